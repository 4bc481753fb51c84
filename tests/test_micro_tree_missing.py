"""Missing values (NaN) in the micro-tree learner: the trees are scikit-learn's (``DecisionTreeClassifier``,
``DecisionTreeRegressor`` with ``ccp_alpha``) on the same data, splits, thresholds (``+inf`` for the test
of missingness), ``missing_go_to_left`` and predictions; and a plain reference CART with scikit-learn's
rules for missing values, where ties make the two learners' choices differ."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification, make_friedman1
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from tnt.learn.binning import bin_features
from tnt.learn.micro_tree import fit_micro_tree, fit_regression_tree, fit_stump


def leaves(tree, X) -> np.ndarray:
    """The leaf each row of ``X`` reaches: ``value <= threshold`` goes left, NaN as ``missing_left`` says."""
    X = np.asarray(X, dtype=np.float32)
    node = np.zeros(X.shape[0], dtype=np.intp)
    active = np.flatnonzero(tree.children_left[node] >= 0)
    while active.size:
        at = node[active]
        value = X[active, tree.feature[at]]
        go_left = np.where(np.isnan(value), tree.missing_left[at] == 1, value <= tree.threshold[at])
        node[active] = np.where(go_left, tree.children_left[at], tree.children_right[at])
        active = active[tree.children_left[node[active]] >= 0]
    return node


def n_splits(tree) -> int:
    return int(np.count_nonzero(tree.children_left >= 0))


def with_missing(X, share, seed):
    X = np.array(X, dtype=np.float32)
    X[np.random.default_rng(seed).random(X.shape) < share] = np.nan
    return X


def _goes_left(X, feature, threshold, missing_left):
    value = X[:, feature]
    return np.where(np.isnan(value), missing_left == 1, value <= threshold)


def assert_same_tree(ours, theirs, X):
    """Node for node: the same children, and at every split the same feature, threshold (bit for bit)
    and direction of missing values, or a split that divides the training samples of ``X`` alike
    (perhaps with the sides swapped: in small nodes one extreme sample is isolated as well by one
    feature as by another, and the two learners may take different ones)."""
    t = theirs.tree_
    X = np.asarray(X, dtype=np.float32)
    np.testing.assert_array_equal(ours.children_left, t.children_left)
    np.testing.assert_array_equal(ours.children_right, t.children_right)
    assert not ours.missing_left[ours.children_left < 0].any()
    at_node = theirs.decision_path(X).toarray().astype(bool)
    for node in np.flatnonzero(t.children_left >= 0):
        mine = (ours.feature[node], ours.threshold[node], ours.missing_left[node])
        scikit_learns = (t.feature[node], t.threshold[node], t.missing_go_to_left[node])
        if mine != scikit_learns:
            rows = X[at_node[:, node]]
            left, their_left = _goes_left(rows, *mine), _goes_left(rows, *scikit_learns)
            assert (left == their_left).all() or (left != their_left).all()


@pytest.fixture(scope="module")
def awkward():
    """Continuous features with 15% NaN, plus a feature entirely missing (1), a feature of one value
    and NaN (2) and a sample missing every feature (0)."""
    X, y = make_classification(n_samples=3000, n_features=8, n_informative=5, n_classes=4, random_state=0)
    X = with_missing(X, 0.15, 0)
    X[:, 1] = np.nan
    X[:, 2] = np.where(np.isnan(X[:, 2]), np.nan, 1.5)
    X[0] = np.nan
    y[np.isnan(X[:, 2])] = 3  # the test of missingness of feature 2 is worth taking
    return X, y


def _not_at_a_pruning_boundary(X, y, w, alpha):
    path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X, y, sample_weight=w)
    assert np.min(np.abs(path.ccp_alphas - alpha)) > 1e-9


@pytest.mark.parametrize("alpha", [1.3e-3, 1.3e-2])
@pytest.mark.parametrize("weighted", [False, True])
def test_same_tree_as_scikit_learn_with_missing_values(awkward, alpha, weighted):
    X, y = awkward
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
    _not_at_a_pruning_boundary(X, y, w, alpha)
    binned = bin_features(X)
    assert binned.missing_code[1] == 0 and binned.n_bins[1] == 1  # entirely missing: one code
    assert binned.codes.dtype == np.uint16 and binned.has_sorted_runs
    ours = fit_micro_tree(binned, np.arange(X.shape[1]), np.arange(len(y)), y, w, alpha, 4)
    theirs = DecisionTreeClassifier(ccp_alpha=alpha, random_state=0).fit(X, y, sample_weight=w)
    assert n_splits(ours) == theirs.tree_.node_count - theirs.get_n_leaves() > 3
    assert 2 in ours.feature and 1 not in ours.feature
    assert np.inf in ours.threshold[ours.feature == 2]  # "feature 2 is missing"
    assert_same_tree(ours, theirs, X)
    probe = np.vstack([X, np.full(X.shape[1], np.nan)])  # and a sample missing everything
    np.testing.assert_array_equal(ours.label[leaves(ours, probe)], theirs.predict(probe))


@pytest.mark.parametrize("n_values", [40, 2000], ids=["one-byte codes", "two-byte codes"])
def test_quantised_features_split_as_scikit_learn_splits_their_codes(n_values):
    # max_bins below the distinct values: scikit-learn on the codes, the missing code put back to NaN.
    X, y = make_classification(n_samples=3000, n_features=6, n_informative=4, n_classes=3, random_state=1)
    X = with_missing(np.round(X * n_values / 8), 0.2, 1)
    binned = bin_features(X, max_bins=30 if n_values == 40 else 900)
    assert binned.codes.dtype == (np.uint8 if n_values == 40 else np.uint16)
    codes = binned.codes[:, : X.shape[1]].astype(np.float32)
    codes[np.isnan(X)] = np.nan
    alpha = 2.1e-3
    ours = fit_micro_tree(binned, np.arange(X.shape[1]), np.arange(len(y)), y, np.ones(len(y)), alpha, 3)
    theirs = DecisionTreeClassifier(ccp_alpha=alpha, random_state=0).fit(codes, y)
    assert n_splits(ours) == theirs.tree_.node_count - theirs.get_n_leaves() > 5
    np.testing.assert_array_equal(ours.missing_left, theirs.tree_.missing_go_to_left)
    np.testing.assert_array_equal(ours.children_left, theirs.tree_.children_left)
    np.testing.assert_array_equal(ours.label[leaves(ours, X)], theirs.predict(codes))


def test_a_stump_is_scikit_learns_depth_one_tree_with_missing_values(awkward):
    X, y = awkward
    binary = (y == 3).astype(np.int64)
    binned = bin_features(X)
    w = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    stump = fit_stump(binned, np.arange(X.shape[1]), np.arange(len(y)), binary, w)
    theirs = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, binary, sample_weight=w)
    assert_same_tree(stump, theirs, X)
    assert stump.feature[0] == 2 and stump.threshold[0] == np.inf and stump.missing_left[0] == 0


def test_a_split_without_missing_values_sends_them_to_the_child_with_more_samples():
    # Counts, not weights: the left child has more samples, the right more weight. On a tie, right.
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0]], dtype=np.float32)
    y = np.array([0, 0, 0, 1, 1])
    w = np.array([1.0, 1.0, 1.0, 5.0, 5.0])
    tree = fit_stump(bin_features(X), np.arange(1), np.arange(5), y, w)
    theirs = DecisionTreeClassifier(max_depth=1).fit(X, y, sample_weight=w)
    assert tree.missing_left[0] == theirs.tree_.missing_go_to_left[0] == 1
    tie = fit_stump(bin_features(X[1:]), np.arange(1), np.arange(4), y[1:], w[1:])
    assert tie.missing_left[0] == DecisionTreeClassifier(max_depth=1).fit(X[1:], y[1:]).tree_.missing_go_to_left[0] == 0


@pytest.mark.parametrize("alpha", [3e-4, 3e-3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_bins", [65535, 200], ids=["exact", "quantised"])
def test_the_regression_tree_is_scikit_learns_with_missing_values(alpha, weighted, max_bins):
    X, y = make_friedman1(n_samples=3000, n_features=8, noise=1.0, random_state=2)
    X = with_missing(X, 0.15, 3)
    X[:, 5] = np.nan
    X[7] = np.nan
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
    binned = bin_features(X, max_bins)
    codes = binned.codes[:, : X.shape[1]].astype(np.float32)
    codes[np.isnan(X)] = np.nan
    scaled = alpha * np.cov(y, aweights=w, bias=True)
    ours = fit_regression_tree(binned, np.arange(X.shape[1]), np.arange(len(y)), y, w, scaled)
    theirs = DecisionTreeRegressor(ccp_alpha=scaled, random_state=0).fit(codes, y, sample_weight=w)
    t = theirs.tree_
    assert ours.node_count == t.node_count > 20
    assert (ours.feature[0], ours.missing_left[0]) == (t.feature[0], t.missing_go_to_left[0])
    if max_bins == 65535:
        assert (
            ours.threshold[0] == DecisionTreeRegressor(ccp_alpha=scaled).fit(X, y, sample_weight=w).tree_.threshold[0]
        )
    np.testing.assert_allclose(np.sort(ours.value), np.sort(t.value[:, 0, 0]), rtol=1e-9)
    np.testing.assert_allclose(ours.value[leaves(ours, X)], theirs.predict(codes), rtol=1e-9)


def _reference_tree(X, y, w, n_classes, alpha, order):
    """Plain CART with scikit-learn's rules for missing values, for small data: per feature in
    ``order``, the boundaries between real values with missing values right, then "real left, missing
    right", then the boundaries with missing values left; the first of equally good splits wins. A
    split whose node had no missing value of its feature sends them to the child with more samples
    (ties right). Grown to purity, then pruned; returns the pruned tree's nodes depth-first."""
    from tnt.learn.split_search import _threshold
    from tnt.learn.tree_builder import prune_tree

    nodes, values = [], []  # [left, right, feature, threshold, missing_left]

    def grow(idx):
        value = np.bincount(y[idx], weights=w[idx], minlength=n_classes)
        node = len(values)
        nodes.append([-1, -1, -2, -2.0, 0])
        values.append(value)
        total = value.sum()
        if len(idx) < 2 or 1.0 - (value**2).sum() / total**2 <= np.finfo(np.float64).eps:
            return node
        best = (-np.inf, -1, 0.0, 0, None)
        for f in order:
            x = X[idx, f]
            missing = np.isnan(x)
            distinct = np.unique(x[~missing])
            candidates = [(low, high, False) for low, high in zip(distinct[:-1], distinct[1:])]
            if missing.any() and distinct.size:
                candidates.append((distinct[-1], np.inf, False))
                candidates += [(low, high, True) for low, high in zip(distinct[:-1], distinct[1:])]
            for low, high, missing_left in candidates:
                goes_left = (x <= low) | (missing & missing_left)
                left = np.bincount(y[idx[goes_left]], weights=w[idx[goes_left]], minlength=n_classes)
                w_left = left.sum()
                proxy = (left**2).sum() / w_left + ((value - left) ** 2).sum() / (total - w_left)
                if proxy > best[0]:
                    threshold = np.inf if high == np.inf else _threshold(low, high)
                    direction = missing_left if missing.any() else goes_left.sum() > (~goes_left).sum()
                    best = (proxy, f, threshold, int(direction), goes_left)
        if best[1] < 0:
            return node
        nodes[node][2:] = best[1:4]
        nodes[node][0] = grow(idx[best[4]])
        nodes[node][1] = grow(idx[~best[4]])
        return node

    grow(np.arange(len(y)))
    left, right = np.array([n[0] for n in nodes]), np.array([n[1] for n in nodes])
    value = np.array(values)
    split = prune_tree(left, right, value, value[0].sum(), alpha, None)
    kept, stack = [], [0]
    while stack:
        node = stack.pop()
        if split[node]:
            kept.append(tuple(nodes[node][2:]))
            stack += [right[node], left[node]]
        else:
            kept.append((-2, int(np.argmax(value[node])), 0))
    return kept


def _as_list(tree):
    return [
        (int(tree.feature[i]), float(tree.threshold[i]), int(tree.missing_left[i]))
        if tree.children_left[i] >= 0
        else (-2, int(tree.label[i]), 0)
        for i in range(tree.node_count)
    ]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [0.0, 1e-2])
def test_same_pruned_tree_as_plain_cart_on_tied_integer_data_with_missing_values(seed, alpha):
    # Few distinct values, integer weights: many equally good splits, between the two passes too.
    rng = np.random.default_rng(seed)
    n_classes = 2 + seed % 2
    X = rng.integers(0, 6, size=(300, 5)).astype(np.float32)
    y = ((X[:, 0] + X[:, 1]).astype(np.int64) + rng.integers(0, 4, 300)) % n_classes
    X[rng.random(X.shape) < 0.2] = np.nan
    w = np.ones(300) if seed < 3 else rng.integers(1, 4, 300).astype(float)
    order = rng.permutation(5)
    tree = fit_micro_tree(bin_features(X), order, np.arange(300), y, w, alpha, n_classes)
    assert _as_list(tree) == _reference_tree(X, y, w, n_classes, alpha, order)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(40, 200),
    d=st.integers(1, 4),
    share=st.sampled_from([0.05, 0.3, 0.7]),
    alpha=st.sampled_from([3e-3, 2e-2]),
)
def test_random_missing_values_give_the_reference_tree_and_scikit_learns_root(seed, n, d, share, alpha):
    """Continuous values with NaN at random: node for node the plain reference's tree, and
    scikit-learn's root split. (Deeper down, scikit-learn breaks ties between features that divide a
    few samples alike in a random order, and the trees below may differ.)"""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X.sum(axis=1) + rng.normal(size=n) > 0).astype(np.int64) + (X[:, 0] > 1)
    X = with_missing(X, share, seed)
    w = rng.integers(1, 4, n).astype(float)
    ours = fit_micro_tree(bin_features(X), np.arange(d), np.arange(n), y, w, alpha, 3)
    assert _as_list(ours) == _reference_tree(X, y, w, 3, alpha, np.arange(d))
    t = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y, sample_weight=w).tree_
    if t.node_count > 1:
        assert (ours.feature[0], ours.threshold[0], ours.missing_left[0]) == (
            t.feature[0], t.threshold[0], t.missing_go_to_left[0]
        )  # fmt: skip
