"""Missing values (NaN) from micro trees up: the grow pass's walks on codes and on values, installs of
micro trees with their directions, merges, fine-tuning, and every learner fitted on data with NaN."""

import numpy as np
import pytest
from growth_helpers import one_split_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import is_classifier
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from test_learner_fingerprints import graph_digest
from test_missing_routing import nan_classification, reference_leaf
from test_n1_is_cart import compare_with_cart

from tnt import CARTClassifier, NDGClassifier, TAOClassifier, TnTClassifier, TnTRegressor
from tnt.baselines import CARTRegressor
from tnt.learn.micro_tree import MicroTree
from tnt.learn.routing import route_to_leaves
from tnt.learn.wave_routing import (
    _self_loops,
    _walk_in_lanes,
    _walk_one,
    _walk_together,
    code_thresholds,
    missing_routing,
)
from tnt.learn.working_graph import UNDECIDED, FlatGraph, WorkingGraph, compact
from tnt.model_io import model_from_json, model_to_json
from tnt.reduction import reduce_model


def micro_tree(left, right, feature, threshold, missing_left, label) -> MicroTree:
    return MicroTree(
        children_left=np.array(left),
        children_right=np.array(right),
        feature=np.array(feature),
        threshold=np.array(threshold, dtype=np.float64),
        missing_left=np.array(missing_left, dtype=np.uint8),
        label=np.array(label),
    )


def random_graph(rng, n_features, n_nodes, thresholds):
    """A random DAG in topological order (children after parents) with its directions for missing
    values: node ``i`` splits on a random feature at a random one of ``thresholds``."""
    n_leaves = n_nodes // 2 + 1
    n_splits = n_nodes - n_leaves
    left = np.full(n_nodes, -1, dtype=np.intp)
    right = np.full(n_nodes, -1, dtype=np.intp)
    for v in range(n_splits):
        left[v], right[v] = rng.integers(v + 1, n_nodes, size=2)
    feature = np.where(left >= 0, rng.integers(0, n_features, n_nodes), -2).astype(np.intp)
    threshold = np.where(left >= 0, rng.choice(thresholds, n_nodes), -2.0)
    missing_left = np.where(left >= 0, rng.integers(0, 2, n_nodes), 0).astype(np.int8)
    missing_left[np.isposinf(threshold)] = 0  # a test of missingness sends missing values right
    return left, right, feature, threshold, missing_left


def reference_walk(x, node, left, right, feature, threshold, missing_left):
    """The leaf one sample reaches from ``node``: ``x <= threshold`` left, NaN by the stored direction."""
    while left[node] >= 0:
        value = x[feature[node]]
        go_left = bool(missing_left[node]) if np.isnan(value) else value <= threshold[node]
        node = left[node] if go_left else right[node]
    return node


@given(seed=st.integers(0, 2**32 - 1), rate=st.sampled_from([0.0, 0.2, 0.7, 1.0]))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_walks_on_codes_and_on_values_send_missing_values_by_the_stored_direction(seed, rate):
    """The grow pass walks the training samples' codes (a missing value has its feature's largest
    code) or, for a graph cut between bins, their values: both reach the leaf of the reference walk."""
    rng = np.random.default_rng(seed)
    n, d = 60, 3
    X = rng.integers(0, 5, size=(n, d)).astype(np.float32)
    X[rng.random(X.shape) < rate] = np.nan
    X[:, 2] = np.where(np.isnan(X[:, 2]), 4.0, X[:, 2])  # a feature without missing values
    # The codes bin_features gives these values: the value itself, NaN the largest code (5) of its feature.
    has_nan = np.isnan(X).any(axis=0)
    missing_code = np.where(has_nan, 5, -1)
    codes = np.where(np.isnan(X), 5, X).astype(np.uint8)
    n_bins = np.where(has_nan, 6, 5)
    bins = np.tile(np.append(np.arange(5.0), np.nan), (d, 1)).astype(np.float32)
    left, right, feature, threshold, missing_left = random_graph(rng, d, 15, [0.5, 1.5, 2.5, 3.5, np.inf])
    on_codes, cut = code_thresholds(feature, threshold, bins, bins, n_bins)
    assert (cut == -1).all()  # bins of one value each: no threshold cuts one
    rows = np.arange(n)
    expected = [reference_walk(X[r], 0, left, right, feature, threshold, missing_left) for r in rows]
    for samples, graph, on_codes_ in [
        (codes, (left, right, feature, on_codes), True),
        (X, (left, right, feature, threshold), False),
    ]:
        missing = missing_routing(missing_code, missing_left, on_codes=on_codes_)
        assert (missing is None) == (not has_nan.any())
        at, first = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        loops, leaf = _self_loops(graph)
        starts = np.zeros(n, dtype=np.int64)
        _walk_in_lanes(samples, rows.astype(np.int64), starts, n, 1, loops, leaf, missing, None, at, first)
        assert at.tolist() == expected  # in lanes, as on a large matrix
        # The moves' walks, one by one and interleaved, stop at the first phase-start node: with
        # every node one, they take a step at a time, and repeated they reach the leaf.
        every = left.size
        one_by_one = []
        for r in rows:
            node = 0
            while left[node] >= 0:
                node = _walk_one(samples, r, node, every, graph, missing, None)
            one_by_one.append(node)
        assert one_by_one == expected
        ends = np.zeros(n, dtype=np.int64)
        while (left[ends] >= 0).any():
            walking = np.flatnonzero(left[ends] >= 0)
            at = ends[walking].copy()
            _walk_together(
                samples, walking.astype(np.int64), at, np.empty_like(at), at.size, every, graph, missing, None
            )
            ends[walking] = at
        assert ends.tolist() == expected


# ---------------------------------------------------------------------- installs and merges
def test_an_installed_micro_tree_carries_its_directions_when_training_has_missing_values():
    start = one_split_graph(missing_go_to_left=[1, 0, 0])
    tree = micro_tree([1, 2, -1, -1, -1], [4, 3, -1, -1, -1], [3, 5, -2, -2, -2], [1.5, np.inf, -2, -2, -2],
                      [1, 0, 0, 0, 0], [-1, -1, 0, 1, 1])  # fmt: skip
    learned = WorkingGraph(start, missing_values=True)
    learned.install_split_tree(0, tree)
    learned.install_leaf_tree(1, tree)
    n = learned.size
    assert learned.feature[:n].tolist() == [3, 3, -2, 5, 5, -2, -2, -2]
    assert learned.missing_left[:n].tolist() == [1, 1, 0, 0, 0, 0, 0, 0]  # slot 2 keeps the start's 0
    complete = WorkingGraph(start)  # no missing value in training: compact decides them from the counts
    complete.install_split_tree(0, tree)
    assert complete.missing_left[0] == UNDECIDED and complete.missing_left[2] == 0


def test_compact_keeps_the_learned_directions_and_merges_no_split_by_its_direction():
    """Two copies of one test under a root, sending missing values different ways: compaction keeps
    both (it bypasses only splits that send every training sample one way)."""
    start = FlatGraph(
        np.array([1, 3, 5, -1, -1, -1, -1]),
        np.array([2, 4, 6, -1, -1, -1, -1]),
        np.array([0, 1, 1, -2, -2, -2, -2]),
        np.array([0.5, 0.5, 0.5, -2, -2, -2, -2]),
        np.array([-1, -1, -1, 0, 1, 0, 1]),
        missing_go_to_left=np.array([0, 1, 0, 0, 0, 0, 0], dtype=np.uint8),
    )
    X = np.array([[0.1, 0.2], [0.2, np.nan], [0.8, 0.3], [0.9, np.nan], [np.nan, 0.9], [0.1, 0.9]], dtype=np.float32)
    flat = compact(WorkingGraph(start, missing_values=True), X)
    assert flat.n_splits == 3
    assert flat.missing_go_to_left.tolist() == [0, 1, 0, 0, 0, 0, 0]
    leaves = route_to_leaves(X, np.arange(6), 0, flat.children_left, flat.children_right, flat.feature,
                             flat.threshold, flat.missing_go_to_left)  # fmt: skip
    assert flat.label[leaves].tolist() == [0, 0, 0, 1, 1, 1]


# ---------------------------------------------------------------------- N1=1 is CART on data with NaN
def with_holes(X, seed=0, rate=0.15):
    rng = np.random.default_rng(seed)
    X = np.array(X, dtype=np.float64)
    X[rng.random(X.shape) < rate] = np.nan
    return X


def nan_cases():
    """(name, X, y) with missing values in several arrangements."""
    X, y = nan_classification(n=1200, seed=0)
    all_missing = np.column_stack([X, np.full(X.shape[0], np.nan)])
    rows_missing = X.copy()
    rows_missing[::37] = np.nan
    Xm, ym = make_classification(n_samples=1000, n_features=6, n_informative=4, n_classes=3, random_state=2)
    informative = with_holes(Xm, seed=1, rate=0.2)
    # Whether feature 1 is missing says much of the class: the test of missingness (+inf) is a good split.
    ym = np.where(np.isnan(informative[:, 1]), 2, ym)
    return {
        "15% missing": (X, y),
        "a feature entirely missing": (all_missing, y),
        "samples missing every feature": (rows_missing, y),
        "missingness informative": (informative, ym),
    }


CASES = nan_cases()


def class_indices(y):
    return np.unique(y, return_inverse=True)[1]


def assert_same_tree_where_no_tie(tnt, cart, X, y, w, regression=False):
    agree, ties, left_out = compare_with_cart(tnt, cart, X, y if regression else class_indices(y), w, regression)
    assert agree > 0
    if ties == 0:  # node for node the same feature, threshold (+inf included) and direction
        assert agree == cart.tree_.node_count == tnt.graph_.node_count
        assert sorted(splits(tnt.graph_)) == sorted(splits(cart.tree_))
    return ties, left_out


def splits(tree):
    """(feature, threshold, direction for missing values) of each split of a graph or a scikit-learn tree."""
    internal = tree.children_left >= 0
    return list(zip(tree.feature[internal], tree.threshold[internal], tree.missing_go_to_left[internal], strict=True))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("C", [3e-3, 1e-2])
@pytest.mark.parametrize("name", list(CASES))
def test_one_phase_classifier_on_missing_values_is_cart(name, C, weighted):
    X, y = CASES[name]
    w = np.random.default_rng(0).uniform(0.1, 3.0, size=y.shape[0]) if weighted else np.ones(y.shape[0])
    tnt = TnTClassifier(C=C, N1=1, ccp_alpha=0.0, random_state=0).fit(X, y, sample_weight=w)
    cart = DecisionTreeClassifier(ccp_alpha=C, random_state=0).fit(X, y, sample_weight=w)
    assert tnt.graph_.missing_in_training
    ties, left_out = assert_same_tree_where_no_tie(tnt, cart, X, y, w)
    if left_out == 0:
        X_test = with_holes(CASES[name][0][:400], seed=5)
        assert np.array_equal(tnt.predict(X), cart.predict(X))
        assert np.array_equal(tnt.predict(X_test), cart.predict(X_test))
        if ties == 0:
            np.testing.assert_allclose(tnt.predict_proba(X_test), cart.predict_proba(X_test), rtol=1e-9, atol=1e-12)


def test_the_test_of_missingness_is_learned_as_scikit_learn_learns_it():
    """Feature 2 is missing exactly for class 2: "is feature 2 missing" (threshold +inf) is the best split."""
    rng = np.random.default_rng(3)
    X = with_holes(rng.normal(size=(1000, 3)), seed=4, rate=0.05)
    y = (np.nan_to_num(X[:, 0]) + 0.3 * rng.normal(size=1000) > 0).astype(int)
    third = rng.random(1000) < 0.25
    X[third, 2], y[third] = np.nan, 2
    tnt = TnTClassifier(C=1e-2, N1=1, random_state=0).fit(X, y)
    cart = DecisionTreeClassifier(ccp_alpha=1e-2, random_state=0).fit(X, y)
    agree, ties, _ = compare_with_cart(tnt, cart, X, class_indices(y), np.ones(y.size))
    assert ties == 0 and agree == cart.tree_.node_count
    n_tests = np.count_nonzero(tnt.graph_.is_missing_test)
    assert n_tests == np.count_nonzero(np.isposinf(cart.tree_.threshold)) > 0
    assert np.count_nonzero(np.isinf(tnt.graph_.threshold)) == n_tests  # every infinite threshold tests missingness
    X_test = with_holes(X[:300], seed=11, rate=0.3)
    assert np.array_equal(tnt.predict(X_test), cart.predict(X_test))


@pytest.mark.parametrize("C", [1e-3, 1e-2])
@pytest.mark.parametrize("name", ["15% missing", "samples missing every feature"])
def test_one_phase_regressor_on_missing_values_is_cart(name, C):
    X, _ = CASES[name]
    y = np.nan_to_num(X[:, 0]) * 2 + np.isnan(X[:, 1]) + 0.3 * np.random.default_rng(0).normal(size=X.shape[0])
    w = np.random.default_rng(1).uniform(0.1, 3.0, size=y.shape[0])
    variance = np.average((y - np.average(y, weights=w)) ** 2, weights=w)
    tnt = TnTRegressor(C=C, N1=1, random_state=0).fit(X, y, sample_weight=w)
    cart = DecisionTreeRegressor(ccp_alpha=C * variance, random_state=0).fit(X, y, sample_weight=w)
    ties, left_out = assert_same_tree_where_no_tie(tnt, cart, X, y, w, regression=True)
    if left_out == 0:
        X_test = with_holes(X[:400], seed=6)
        np.testing.assert_allclose(tnt.predict(X_test), cart.predict(X_test), rtol=1e-9, atol=1e-9)


def test_missing_values_only_at_prediction_go_where_scikit_learn_sends_them():
    """Trained on complete data, a split sends a missing value to the side more training samples took."""
    X_clean, y = make_classification(n_samples=1200, n_features=5, n_informative=3, random_state=8)
    X = with_holes(X_clean, seed=3, rate=0.3)
    tnt = TnTClassifier(C=3e-3, N1=1, random_state=0).fit(X_clean, y)
    cart = DecisionTreeClassifier(ccp_alpha=3e-3, random_state=0).fit(X_clean, y)
    assert not tnt.graph_.missing_in_training
    agree, ties, _ = compare_with_cart(tnt, cart, X_clean, y, np.ones(y.size))  # directions compared too
    assert ties == 0 and agree == cart.tree_.node_count
    assert np.array_equal(tnt.predict(X), cart.predict(X))
    np.testing.assert_allclose(tnt.predict_proba(X), cart.predict_proba(X), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------- every learner, default settings
@st.composite
def nan_problems(draw):
    seed = draw(st.integers(0, 2**16))
    n = draw(st.integers(2, 120))
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = rng.integers(0, draw(st.integers(1, 3)), size=n)
    X[rng.random(X.shape) < draw(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))] = np.nan
    X_new = rng.integers(-4, 5, size=(30, d)).astype(np.float64)
    X_new[rng.random(X_new.shape) < draw(st.sampled_from([0.0, 0.3, 1.0]))] = np.nan
    return X, y, X_new, draw(st.sampled_from([1e-3, 1e-2, 0.0]))


def assert_follows_directions(model, X):
    """Every sample reaches the leaf a walk applying the stored directions one sample at a time
    reaches, and gets that leaf's prediction."""
    graph = model.graph_
    leaves = np.array([reference_leaf(graph, x) for x in X])
    assert (model.apply(X) == leaves).all()
    assert (model.predict(X) == model._predicted_at(leaves)).all()


@given(nan_problems())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_tnt_learns_from_random_missing_masks_and_predicts_by_its_directions(problem):
    X, y, X_new, C = problem
    model = TnTClassifier(C=C, random_state=0).fit(X, y)
    graph = model.graph_
    assert graph.missing_go_to_left is not None and graph.missing_in_training == bool(np.isnan(X).any())
    assert_follows_directions(model, X)
    assert_follows_directions(model, X_new)
    regressor = TnTRegressor(C=C, random_state=0).fit(X, y.astype(float))
    assert_follows_directions(regressor, X_new)


@pytest.mark.parametrize(
    "model",
    [NDGClassifier(random_state=0), NDGClassifier(C=0.0, merge=False, max_splits=10, random_state=0),
     TAOClassifier(max_leaf_nodes=12, random_state=0), TnTClassifier(fine_tune=3, random_state=0)],
    ids=["NDG", "NDG without merges", "TAO", "TnT fine-tuned"],
)  # fmt: skip
def test_ndg_tao_and_fine_tuning_learn_from_missing_values(model):
    X, y = nan_classification(n=800)
    model.fit(X, y)
    assert model.graph_.missing_in_training and model.__sklearn_tags__().input_tags.allow_nan
    assert model.score(X, y) > 0.8
    assert_follows_directions(model, with_holes(nan_classification(n=300, seed=7)[0], seed=8, rate=0.4))


def test_ndg_without_merges_is_best_first_cart_on_missing_values():
    X, y = nan_classification(n=800)
    ndg = NDGClassifier(C=0.0, merge=False, max_splits=8, random_state=0).fit(X, y)
    cart = CARTClassifier.with_splits(8, random_state=0).fit(X, y)

    assert sorted(splits(ndg.graph_)) == sorted(splits(cart.graph_))
    X_test = with_holes(nan_classification(n=300, seed=9)[0], seed=2, rate=0.3)
    assert np.array_equal(ndg.predict(X_test), cart.predict(X_test))


def test_tao_fine_tuning_never_lowers_cart_training_accuracy_on_missing_values():
    X, y = nan_classification(n=800)
    cart = CARTClassifier(max_leaf_nodes=12, random_state=0).fit(X, y)
    tao = cart.fine_tuned(X, y, rounds=5)
    assert tao.score(X, y) >= cart.score(X, y)
    assert tao.graph_.missing_in_training


def test_fine_tuning_a_model_trained_on_missing_values_equals_training_with_fine_tune():
    X, y = nan_classification(n=800)
    tuned = TnTClassifier(C=1e-3, ccp_alpha=0.0, random_state=0).fit(X, y).fine_tuned(X, y, rounds=3)
    direct = TnTClassifier(C=1e-3, ccp_alpha=0.0, fine_tune=3, random_state=0).fit(X, y)
    assert graph_digest(tuned.graph_) == graph_digest(direct.graph_)
    assert np.array_equal(tuned.graph_.missing_go_to_left, direct.graph_.missing_go_to_left)


def test_two_threads_learn_the_same_graph_from_missing_values():
    X, y = nan_classification(n=2000)
    one = TnTClassifier(C=5e-4, random_state=0).fit(X, y)
    two = TnTClassifier(C=5e-4, random_state=0, n_jobs=2).fit(X, y)
    assert graph_digest(one.graph_) == graph_digest(two.graph_)
    assert np.array_equal(one.graph_.missing_go_to_left, two.graph_.missing_go_to_left)


def test_reduction_of_a_graph_learned_from_missing_values_keeps_every_training_prediction():
    X, y = nan_classification(n=800)
    model = TnTClassifier(C=5e-4, random_state=0).fit(X, y)
    small = reduce_model(model, X, y)
    assert small.n_splits_ <= model.n_splits_ and small.graph_.missing_in_training
    assert np.array_equal(small.predict(X), model.predict(X))
    assert_follows_directions(small, with_holes(nan_classification(n=300, seed=3)[0], seed=4, rate=0.4))


def test_a_model_learned_from_missing_values_predicts_the_same_after_its_file():
    X, y = nan_classification(n=800)
    X_test = with_holes(nan_classification(n=300, seed=3)[0], seed=4, rate=0.4)
    for model in (
        TnTClassifier(C=1e-3, random_state=0).fit(X, y),
        TnTRegressor(random_state=0).fit(X, np.nan_to_num(X[:, 0])),
    ):
        loaded = model_from_json(model_to_json(model))
        assert np.array_equal(loaded.graph_.missing_go_to_left, model.graph_.missing_go_to_left)
        assert loaded.graph_.missing_in_training
        assert np.array_equal(loaded.predict(X_test), model.predict(X_test))


# ---------------------------------------------------------------------- what is still refused
LEARNERS = [TnTClassifier(N1=1), TnTRegressor(N1=1), NDGClassifier(), TAOClassifier(max_leaf_nodes=4),
            CARTClassifier(max_leaf_nodes=4), CARTRegressor(max_leaf_nodes=4)]  # fmt: skip


@pytest.mark.parametrize("model", LEARNERS, ids=lambda m: type(m).__name__)
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_infinite_values_are_still_refused_in_one_sentence(model, value):
    X, y = nan_classification(n=100)
    X_bad = X.copy()
    X_bad[3, 1] = value
    with pytest.raises(ValueError, match=r"^Input X contains infinity or a value too large for dtype\('float64'\)\.$"):
        model.fit(X_bad, y if is_classifier(model) else np.nan_to_num(X[:, 0]))
    model.fit(X, y if is_classifier(model) else np.nan_to_num(X[:, 0]))
    for method in (model.predict, model.decision_path):
        with pytest.raises(ValueError, match="^Input X contains infinity"):
            method(X_bad)


class _CompleteDataOnly(TnTClassifier):
    """A learner built on the project's estimators that declares it takes no missing values."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


def test_a_learner_whose_tags_refuse_missing_values_refuses_them_at_fit_and_prediction():
    X, y = nan_classification(n=100)
    model = _CompleteDataOnly(N1=1)
    with pytest.raises(ValueError, match=r"^X contains missing values \(NaN\), which _CompleteDataOnly cannot learn"):
        model.fit(X, y)
    model.fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match=r"^X contains missing values \(NaN\), which _CompleteDataOnly does not take"):
        model.predict(X)


@pytest.mark.parametrize("model", [TnTClassifier(), TnTRegressor(), NDGClassifier(), TAOClassifier()])
def test_every_learner_declares_that_it_learns_from_missing_values(model):
    assert model.__sklearn_tags__().input_tags.allow_nan
