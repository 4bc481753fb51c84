"""``N1=1`` is CART, stated precisely and tested as stated.

With ``N1=1``, ``TnTClassifier(ccp_alpha=0.0, C=C)`` grows scikit-learn's ``DecisionTreeClassifier(ccp_alpha=C)`` and
``TnTRegressor(ccp_alpha=0.0, C=C)`` grows ``DecisionTreeRegressor(ccp_alpha=C * v)`` (``v`` the weighted variance
of ``y``), weights included, **up to ties between equally good splits**: where several splits of a
node are equally good, TnT takes the first in one order of the features drawn once per fit from
``random_state`` (``np.random.RandomState(seed).permutation(n_features)``), scikit-learn the first in
an order it draws again at every node; within one feature both take the lowest threshold. So the two
trees are the same node for node, from the root down to any node where they chose differently
between equally good splits; below it they may differ. Where no node has such a tie they are
identical: splits, thresholds and predictions.
"""

import numpy as np
import pytest
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_iris,
    load_wine,
    make_classification,
    make_friedman1,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from tnt import TnTClassifier, TnTRegressor


def _tree_arrays(model):
    """(left, right, feature, threshold, missing_go_to_left) of a fitted TnT graph or scikit-learn tree."""
    t = model.graph_ if hasattr(model, "graph_") else model.tree_
    return t.children_left, t.children_right, t.feature, t.threshold, t.missing_go_to_left


def _loss(y, w, regression):
    """Weighted Gini impurity times weight (classes) or weighted squared error (targets) of a node."""
    total = w.sum()
    if regression:
        mean = np.average(y, weights=w)
        return float(np.sum(w * (y - mean) ** 2))
    counts = np.bincount(y, weights=w)
    return float(total - np.sum(counts**2) / total)


def compare_with_cart(tnt, cart, X, y, w, regression=False):
    """Walk both trees together from the root, returning (nodes that agree, ties, differing subtrees).

    At two splits that differ, the test asserts they are equally good on the samples reaching them
    (a tie, up to rounding); if they also divide those samples the same way the walk goes on below,
    else that subtree is left (the trees may differ there). Anywhere else they must be the same:
    a leaf against a leaf, or the same feature, threshold and direction for missing values (NaN).
    """
    X = np.asarray(X, dtype=np.float32)
    a, b = _tree_arrays(tnt), _tree_arrays(cart)
    agree, ties, left_out = 0, 0, 0
    stack = [(0, 0, np.arange(X.shape[0]))]
    while stack:
        na, nb, rows = stack.pop()
        leaf_a, leaf_b = a[0][na] < 0, b[0][nb] < 0
        assert leaf_a == leaf_b, f"a leaf against a split on {rows.size} samples"
        if leaf_a:
            agree += 1
            continue
        go_a, go_b = (_goes_left(X[rows], t, node) for t, node in ((a, na), (b, nb)))
        if (a[2][na], a[3][na], a[4][na]) == (b[2][nb], b[3][nb], b[4][nb]):
            agree += 1
        else:
            same_test = (a[2][na], a[3][na]) == (b[2][nb], b[3][nb])
            # Without missing values there, the direction is the rule for that case, never a tie.
            assert not (same_test and not np.isnan(X[rows, a[2][na]]).any()), "directions differ"
            parent = _loss(y[rows], w[rows], regression)
            gain = [
                parent - _loss(y[rows[g]], w[rows[g]], regression) - _loss(y[rows[~g]], w[rows[~g]], regression)
                for g in (go_a, go_b)
            ]
            assert gain[0] == pytest.approx(gain[1], rel=1e-9, abs=1e-12 * max(parent, 1.0)), (
                f"TnT split x{a[2][na]} <= {a[3][na]} and CART split x{b[2][nb]} <= {b[3][nb]} are not a tie"
            )
            ties += 1
            if not np.array_equal(go_a, go_b):
                left_out += 1
                continue
        stack.append((a[0][na], b[0][nb], rows[go_a]))
        stack.append((a[1][na], b[1][nb], rows[~go_a]))
    return agree, ties, left_out


def _goes_left(X, tree, node):
    """Which rows of ``X`` the split at ``node`` of ``tree`` (:func:`_tree_arrays`) sends left."""
    x = X[:, tree[2][node]]
    return np.where(np.isnan(x), tree[4][node] == 1, x <= tree[3][node])


CLASSIFICATION = {
    "three classes, continuous": lambda: make_classification(
        n_samples=1500, n_features=8, n_informative=5, n_classes=3, random_state=0
    ),
    "two classes, 20 features": lambda: make_classification(
        n_samples=800, n_features=20, n_informative=6, random_state=3
    ),
    "breast cancer": lambda: load_breast_cancer(return_X_y=True),
    "wine": lambda: load_wine(return_X_y=True),
    "iris": lambda: load_iris(return_X_y=True),
}


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("C", [1e-3, 1e-2])
@pytest.mark.parametrize("name", list(CLASSIFICATION))
def test_one_phase_classifier_is_cart_up_to_ties(name, C, weighted):
    X, y = CLASSIFICATION[name]()
    w = np.random.default_rng(0).uniform(0.1, 3.0, size=y.shape[0]) if weighted else np.ones(y.shape[0])
    tnt = TnTClassifier(ccp_alpha=0.0, C=C, N1=1, random_state=0).fit(X, y, sample_weight=w)
    cart = DecisionTreeClassifier(ccp_alpha=C, random_state=0).fit(X, y, sample_weight=w)
    agree, ties, left_out = compare_with_cart(tnt, cart, X, y, w)
    assert agree > 0
    if ties == 0:  # no tie anywhere: the very same tree
        assert tnt.n_splits_ == cart.tree_.node_count - cart.get_n_leaves()
        assert np.array_equal(tnt.predict(X), cart.predict(X))
        np.testing.assert_allclose(tnt.predict_proba(X), cart.predict_proba(X), rtol=1e-9, atol=1e-12)
    if left_out == 0:  # every tie divided the samples alike: the same training predictions
        assert np.array_equal(tnt.predict(X), cart.predict(X))


REGRESSION = {
    "friedman": lambda: make_friedman1(n_samples=1500, n_features=6, noise=1.0, random_state=0),
    "diabetes": lambda: load_diabetes(return_X_y=True),
}


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("C", [1e-3, 1e-2])
@pytest.mark.parametrize("name", list(REGRESSION))
def test_one_phase_regressor_is_cart_up_to_ties(name, C, weighted):
    X, y = REGRESSION[name]()
    w = np.random.default_rng(0).uniform(0.1, 3.0, size=y.shape[0]) if weighted else np.ones(y.shape[0])
    variance = np.average((y - np.average(y, weights=w)) ** 2, weights=w)
    tnt = TnTRegressor(ccp_alpha=0.0, C=C, N1=1, random_state=0).fit(X, y, sample_weight=w)
    cart = DecisionTreeRegressor(ccp_alpha=C * variance, random_state=0).fit(X, y, sample_weight=w)
    agree, ties, _ = compare_with_cart(tnt, cart, X, y, w, regression=True)
    assert agree > 0
    if ties == 0:
        assert tnt.n_splits_ == cart.tree_.node_count - cart.get_n_leaves()
        np.testing.assert_allclose(tnt.predict(X), cart.predict(X), rtol=1e-9, atol=1e-9 * np.abs(y).max())


def test_on_continuous_weighted_data_the_ties_change_no_training_prediction():
    """Even features in general position tie in small nodes (several features separate a handful of
    samples equally well); here those ties never change a training prediction."""
    X, y = make_classification(n_samples=2000, n_features=6, n_informative=4, n_classes=3, random_state=1)
    w = np.random.default_rng(0).uniform(0.1, 3.0, size=y.shape[0])
    tnt = TnTClassifier(ccp_alpha=0.0, C=1e-3, N1=1, random_state=0).fit(X, y, sample_weight=w)
    cart = DecisionTreeClassifier(ccp_alpha=1e-3, random_state=0).fit(X, y, sample_weight=w)
    agree, ties, left_out = compare_with_cart(tnt, cart, X, y, w)
    assert ties > 0 and agree > 0.9 * cart.tree_.node_count
    assert tnt.n_splits_ == cart.tree_.node_count - cart.get_n_leaves()
    assert np.array_equal(tnt.predict(X), cart.predict(X))


def test_one_feature_without_ties_gives_the_very_same_tree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 1))
    y = (np.sin(3 * X[:, 0]) + rng.normal(scale=0.5, size=3000) > 0).astype(int)
    w = rng.uniform(0.1, 3.0, size=3000)
    tnt = TnTClassifier(ccp_alpha=0.0, C=1e-3, N1=1, random_state=0).fit(X, y, sample_weight=w)
    cart = DecisionTreeClassifier(ccp_alpha=1e-3, random_state=0).fit(X, y, sample_weight=w)
    agree, ties, _ = compare_with_cart(tnt, cart, X, y, w)
    assert ties == 0 and agree == cart.tree_.node_count > 5
    np.testing.assert_allclose(tnt.predict_proba(X), cart.predict_proba(X), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------- how ties are broken
def _twins(seed=0):
    """Data whose feature 1 is a copy of feature 0: every split on one has an equally good twin."""
    X, y = make_classification(n_samples=600, n_features=4, n_informative=3, n_redundant=0, random_state=seed)
    return np.column_stack([X[:, 0], X[:, 0], X[:, 1:]]), y


@pytest.mark.parametrize("seed", range(6))
def test_tnt_breaks_ties_by_one_feature_order_drawn_from_random_state(seed):
    X, y = _twins()
    order = np.random.RandomState(seed).permutation(X.shape[1]).tolist()
    first, second = sorted((0, 1), key=order.index)
    features = TnTClassifier(ccp_alpha=0.0, C=0.0, N1=1, random_state=seed).fit(X, y).graph_.feature
    assert np.sum(features == first) > 3
    assert not np.any(features == second)  # at every node: the order is the same for the whole fit


def test_scikit_learn_draws_its_feature_order_again_at_every_node():
    """So its tree names both twins, where TnT's names one; every split where they differ is a tie."""
    X, y = _twins()
    both = []
    for seed in range(6):
        cart = DecisionTreeClassifier(random_state=seed).fit(X, y)
        tnt = TnTClassifier(ccp_alpha=0.0, C=0.0, N1=1, random_state=seed).fit(X, y)
        both.append(bool(np.any(cart.tree_.feature == 0) and np.any(cart.tree_.feature == 1)))
        _, ties, _ = compare_with_cart(tnt, cart, X, y, np.ones(y.shape[0]))
        assert ties > 0
    assert any(both)


def test_within_a_feature_both_take_the_lowest_of_equally_good_thresholds():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 1, 0])  # x <= 0.5 and x <= 2.5 are equally good first splits
    tnt = TnTClassifier(ccp_alpha=0.0, C=0.0, N1=1, random_state=0).fit(X, y)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert tnt.graph_.threshold[0] == cart.tree_.threshold[0] == 0.5
