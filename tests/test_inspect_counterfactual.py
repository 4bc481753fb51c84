"""Counterfactuals against brute force: on small hand-built and random graphs, every sample made of
the original's values and real training values is tried, and the search must find the same minimum."""

import itertools

import numpy as np
import pytest
from random_graphs import random_dag

from tnt import DecisionGraph
from tnt.inspect.counterfactual import CounterfactualSpace, counterfactual, feature_scales


def random_graph(rng, n_internal, n_features=3, n_classes=3, regression=False):
    """A random reachable DAG with random tests on integer-valued features (values 0..5)."""
    skeleton = random_dag(rng, n_internal)
    if skeleton is None:
        return None
    left, right = skeleton
    n = left.shape[0]
    internal = left >= 0
    value = (
        rng.random((n, 1)) * 10
        if regression
        else rng.integers(0, 5, (n, n_classes)).astype(float) + rng.random((n, n_classes))
    )
    return DecisionGraph(left, right, np.where(internal, rng.integers(0, n_features, n), -2),
                         np.where(internal, rng.integers(0, 5, n) + 0.5, -2.0), value, regression=regression)  # fmt: skip


def brute_force(graph, X_train, x, good_leaf):
    """The cheapest (features changed, scaled distance) over every sample whose each value is the
    original's or a training value, and whether any reaches a wanted leaf."""
    scales = feature_scales(X_train)
    options = [np.union1d(np.unique(X_train[:, f]), [x[f]]) for f in range(X_train.shape[1])]
    grid = np.array(list(itertools.product(*options)))
    reached = good_leaf[graph.apply(grid)]
    if not reached.any():
        return None
    grid = grid[reached]
    changed = grid != x
    cost = sorted(zip(changed.sum(axis=1).tolist(), (np.abs(grid - x) / scales).sum(axis=1).tolist()))
    return cost[0]


def check(graph, X_train, x, wanted, good_leaf):
    space = CounterfactualSpace(graph, X_train)
    cf = counterfactual(space, x, wanted, budget=30.0)
    expected = brute_force(graph, X_train, x, good_leaf)
    assert cf.exact
    if expected is None:
        assert not cf.found
        return cf
    assert cf.found
    assert cf.n_changed == expected[0]
    assert cf.distance == pytest.approx(expected[1], abs=1e-9)
    assert good_leaf[graph.apply(cf.sample.reshape(1, -1))[0]]
    assert int((cf.sample != x).sum()) == cf.n_changed == len(cf.changes)
    for change in cf.changes:  # proposed values are training values, and inside the interval given
        assert change.new in X_train[:, change.feature]
        assert change.low < change.new <= change.high
    return cf


def test_a_hand_built_graph_needs_two_features_and_says_so():
    # 0: age <= 50 -> 1 (class 0) | 2;  2: hours <= 40 -> 3 (class 1) | 4 (class 0)
    g = DecisionGraph([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 1, -2, -2], [50, -2, 40, -2, -2],
                      [[3, 3], [3, 0], [0, 3], [0, 3], [3, 0]])  # fmt: skip
    X_train = np.array([[37, 30], [45, 40], [52, 46], [60, 50], [49, 41]], dtype=float)
    cf = check(g, X_train, np.array([52.0, 30.0]), 0, g.is_leaf & (g.predicted_class() == 0))
    # age down to 49 (the nearest training value at or below 50) costs 3/15 of age's IQR; hours up
    # to 41 costs 11/10: one feature either way, the smaller distance wins.
    assert cf.describe(["age", "hours"]) == "change `age` from 52 to 49 or less"
    assert cf.lower_bound == (cf.n_changed, cf.distance)


def test_already_predicted_needs_no_change():
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    cf = counterfactual(CounterfactualSpace(g, [[0.0], [1.0]]), [0.0], 0)
    assert cf.found and cf.exact and cf.changes == [] and "already" in cf.describe()


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    graph = None
    while graph is None:
        graph = random_graph(rng, int(rng.integers(2, 14)))
    X_train = rng.integers(0, 6, (25, 3)).astype(float)
    x = rng.integers(0, 6, 3) + rng.choice([0.0, 0.3], 3)  # values off the training grid too
    wanted = int(rng.integers(0, 3))
    check(graph, X_train, x, wanted, graph.is_leaf & (graph.predicted_class() == wanted))


@pytest.mark.parametrize("seed", range(10))
def test_random_regression_graphs_match_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    graph = None
    while graph is None:
        graph = random_graph(rng, int(rng.integers(2, 12)), regression=True)
    X_train = rng.integers(0, 6, (25, 3)).astype(float)
    x = rng.integers(0, 6, 3).astype(float)
    low, high = 3.0, 6.0
    check(graph, X_train, x, (low, high), graph.is_leaf & (graph.value[:, 0] >= low) & (graph.value[:, 0] <= high))


def test_without_time_the_result_is_flagged_and_its_lower_bound_holds():
    rng = np.random.default_rng(7)
    for _ in range(20):
        graph = None
        while graph is None:
            graph = random_graph(rng, 12)
        X_train = rng.integers(0, 6, (25, 3)).astype(float)
        x = rng.integers(0, 6, 3).astype(float)
        good = graph.is_leaf & (graph.predicted_class() == 1)
        expected = brute_force(graph, X_train, x, good)
        cf = counterfactual(CounterfactualSpace(graph, X_train), x, 1, budget=0.0)
        if cf.exact:  # the seeds alone proved the minimum (or the root is the answer)
            continue
        assert tuple(cf.lower_bound) <= (expected if expected is not None else (99, 0.0))
        if cf.found:
            assert (cf.n_changed, cf.distance) >= (expected[0], expected[1] - 1e-9)


def test_a_graph_of_astronomically_many_paths_is_searched_without_listing_them():
    # A ladder of 300 splits (split i goes to i + 1 and i + 2) has more paths than atoms in the
    # universe; the search expands a few states per node at most.
    n = 300
    rng = np.random.default_rng(0)
    left = [i + 1 for i in range(n)] + [-1, -1]
    right = [i + 2 for i in range(n)] + [-1, -1]
    g = DecisionGraph(left, right, list(rng.integers(0, 4, n)) + [-2, -2], list(rng.integers(0, 9, n) + 0.5) + [-2, -2],
                      [[1, 1]] * n + [[5, 0], [0, 5]])  # fmt: skip
    X_train = rng.integers(0, 10, (200, 4)).astype(float)
    x = X_train[int(np.flatnonzero(g.apply(X_train) == n)[0])]
    cf = counterfactual(CounterfactualSpace(g, X_train), x, 1, budget=20.0)
    assert cf.found and cf.exact
    assert g.apply(cf.sample.reshape(1, -1))[0] == n + 1
    assert cf.states < 50 * n


def test_bad_wanted_targets_are_refused_in_one_sentence():
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    space = CounterfactualSpace(g, [[0.0], [1.0]])
    with pytest.raises(ValueError, match="wanted class must be a class index from 0 to 1"):
        counterfactual(space, [0.0], 5)
    with pytest.raises(ValueError, match="The sample has 2 values but the model has 1 features"):
        counterfactual(space, [0.0, 1.0], 1)
    r = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[1.0], [0.0], [2.0]], regression=True)
    with pytest.raises(ValueError, match="give the wanted target as a range"):
        counterfactual(CounterfactualSpace(r, [[0.0], [1.0]]), [0.0], 3)
    with pytest.raises(ValueError, match="starts at 3 above its end 1"):
        counterfactual(CounterfactualSpace(r, [[0.0], [1.0]]), [0.0], (3, 1))


# ------------------------------------------------------------------------------------ missing values
def with_missing_directions(graph, rng, n_missing_tests):
    """``graph`` with a random direction for missing values at every split and ``n_missing_tests`` of
    its splits turned into tests of missingness (threshold +inf, missing values right)."""
    internal = np.flatnonzero(~graph.is_leaf)
    directions = np.where(graph.is_leaf, 0, rng.integers(0, 2, graph.node_count))
    threshold = graph.threshold.copy()
    tests = rng.choice(internal, size=min(n_missing_tests, internal.size), replace=False)
    threshold[tests], directions[tests] = np.inf, 0
    return DecisionGraph(graph.children_left, graph.children_right, graph.feature, threshold, graph.value,
                         missing_go_to_left=directions, missing_in_training=True)  # fmt: skip


def brute_force_with_missing(graph, X_train, x, good_leaf, allow_missing_changes):
    """The cheapest (features changed, scaled distance) over every sample whose each value is the
    original's, a training value, or missing; a change to or from missing costs one unit."""
    scales = []
    for f in range(X_train.shape[1]):
        present = X_train[:, f][~np.isnan(X_train[:, f])]
        q1, q3 = np.percentile(present, [25, 75])
        scale = q3 - q1 if q3 > q1 else present.max() - present.min()
        scales.append(scale if scale > 0 else 1.0)
    options = []
    for f in range(X_train.shape[1]):
        present = np.unique(X_train[:, f][~np.isnan(X_train[:, f])])
        if not allow_missing_changes:
            options.append([x[f]] if np.isnan(x[f]) else np.union1d(present, [x[f]]))
        else:
            options.append([*np.union1d(present, [] if np.isnan(x[f]) else [x[f]]), np.nan])
    best = None
    for row in itertools.product(*options):
        row = np.array(row)
        if not good_leaf[graph.apply(row.reshape(1, -1))[0]]:
            continue
        same = (row == x) | (np.isnan(row) & np.isnan(x))
        one_missing = np.isnan(row) != np.isnan(x)
        distance = np.where(one_missing, 1.0, np.nan_to_num(np.abs(row - x)) / scales)
        cost = (int((~same).sum()), float(distance[~same].sum()))
        best = cost if best is None or cost < best else best
    return best


@pytest.mark.parametrize("allow", [True, False])
@pytest.mark.parametrize("seed", range(25))
def test_graphs_that_test_missingness_match_brute_force_over_missing_values(seed, allow):
    rng = np.random.default_rng(500 + seed)
    graph = None
    while graph is None:
        graph = random_graph(rng, int(rng.integers(2, 12)))
    graph = with_missing_directions(graph, rng, int(rng.integers(0, 4)))
    X_train = rng.integers(0, 6, (25, 3)).astype(float)
    X_train[rng.random(X_train.shape) < 0.2] = np.nan
    X_train[0] = [0.0, 1.0, 2.0]  # every feature has present values
    x = rng.integers(0, 6, 3).astype(float)
    x[rng.random(3) < 0.35] = np.nan
    wanted = int(rng.integers(0, 3))
    good = graph.is_leaf & (graph.predicted_class() == wanted)
    cf = counterfactual(CounterfactualSpace(graph, X_train), x, wanted, budget=30.0, allow_missing_changes=allow)
    expected = brute_force_with_missing(graph, X_train, x, good, allow)
    assert cf.exact
    if expected is None:
        assert not cf.found
        return
    assert cf.found and (cf.n_changed, cf.distance) == (expected[0], pytest.approx(expected[1], abs=1e-9))
    assert good[graph.apply(cf.sample.reshape(1, -1))[0]]
    changed = ~((cf.sample == x) | (np.isnan(cf.sample) & np.isnan(x)))
    assert int(changed.sum()) == cf.n_changed == len(cf.changes)
    if not allow:
        assert np.array_equal(np.isnan(cf.sample), np.isnan(x))


def test_a_model_learned_with_missing_values_answers_for_complete_and_incomplete_rows():
    """The issue's case: a TnT that tests missingness answers every test row (before, none)."""
    from sklearn.datasets import make_classification

    from tnt import TnTClassifier

    X, y = make_classification(n_samples=600, n_features=6, n_informative=4, random_state=0)
    rng = np.random.default_rng(0)
    X[rng.random(X.shape) < 0.15] = np.nan
    # Missingness that predicts the class: the learner tests it.
    X[(y == 1) & (rng.random(600) < 0.5), 0] = np.nan
    model = TnTClassifier(C=1e-3, random_state=0).fit(X[:400], y[:400])
    graph = model.graph_
    assert graph.is_missing_test.any()
    space = CounterfactualSpace(graph, X[:400])
    answered = 0
    for x in X[400:460]:
        wanted = 1 - int(model.predict(x.reshape(1, -1))[0])
        cf = counterfactual(space, x, wanted, budget=1.0)
        assert cf.found
        assert model.predict(cf.sample.reshape(1, -1))[0] == wanted
        answered += 1
    assert answered == 60
    text = counterfactual(space, X[400:401][0], 1 - int(model.predict(X[400:401])[0])).describe(list("abcdef"))
    assert text.startswith("change `")


def test_a_missing_change_is_described_in_words():
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [np.inf, -2, -2], [[2, 2], [2, 0], [0, 2]],
                      missing_go_to_left=[0, 0, 0], missing_in_training=True)  # fmt: skip
    space = CounterfactualSpace(g, [[0.0], [1.0], [np.nan]])
    assert counterfactual(space, [0.5], 1).describe(["age"]) == "change `age` from 0.5 to missing"
    assert counterfactual(space, [np.nan], 0).describe(["age"]) in (
        "change `age` from missing to 0",
        "change `age` from missing to 1",
    )
    refused = counterfactual(space, [0.5], 1, allow_missing_changes=False)
    assert not refused.found and refused.exact
