"""DecisionGraph: routing, statistics and conversion from scikit-learn trees."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.tree import DecisionTreeClassifier

from tnt import MIXED, DecisionGraph


def shared_graph():
    """Root splits x0 at 0.5; both branches reach the shared node 3 (x1 <= 0.5).

    0: x0 <= 0.5 -> 1 else 2
    1: x1 <= 0.2 -> 4 (leaf) else 3
    2: x1 <= 0.8 -> 3 else 5 (leaf)
    3: x0 <= 0.25 -> 6 (leaf) else 7 (leaf)
    """
    return DecisionGraph(
        children_left=[1, 4, 3, 6, -1, -1, -1, -1],
        children_right=[2, 3, 5, 7, -1, -1, -1, -1],
        feature=[0, 1, 1, 0, -2, -2, -2, -2],
        threshold=[0.5, 0.2, 0.8, 0.25, -2, -2, -2, -2],
        value=[[4, 4], [2, 2], [2, 2], [2, 2], [1, 0], [0, 1], [3, 0], [0, 1]],
    )


def test_routing_through_a_shared_node():
    g = shared_graph()
    X = np.array([[0.1, 0.1], [0.1, 0.5], [0.4, 0.5], [0.9, 0.5], [0.9, 0.9]])
    assert g.apply(X).tolist() == [4, 6, 7, 7, 5]
    path = g.decision_path(X).toarray()
    assert path[1].tolist() == [1, 1, 0, 1, 0, 0, 1, 0]
    assert path[3].tolist() == [1, 0, 1, 1, 0, 0, 0, 1]
    assert g.decision_depth(X).tolist() == [2, 3, 3, 3, 2]


def test_structure_statistics():
    g = shared_graph()
    assert (g.n_splits, g.n_leaves, g.node_count) == (4, 4, 8)
    assert g.shared_nodes.tolist() == [3]
    assert g.parents(3) == [1, 2]
    assert g.n_parents.tolist() == [0, 1, 1, 2, 1, 1, 1, 1]
    assert g.node_depth().tolist() == [0, 1, 1, 2, 2, 2, 3, 3]


def test_dominant_class_needs_more_than_half():
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.0, -2, -2], [[2, 2], [3, 1], [1, 1]])
    assert g.dominant_class().tolist() == [MIXED, 0, MIXED]


def brute_force_path_lengths(g):
    lengths = []

    def walk(node, depth):
        if g.is_leaf[node]:
            lengths.append(depth)
            return
        walk(g.children_left[node], depth + 1)
        walk(g.children_right[node], depth + 1)

    walk(0, 0)
    values, counts = np.unique(lengths, return_counts=True)
    return values.tolist(), counts.tolist()


def test_path_length_dp_matches_enumeration_on_random_dags(random_dag):
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 40:
        g = random_dag(rng, int(rng.integers(1, 12)))
        if g is None:
            continue
        lengths, counts = g.path_length_distribution()
        assert (lengths.tolist(), [int(c) for c in counts]) == brute_force_path_lengths(g)
        expected = brute_force_path_lengths(g)
        mean = sum(length * c for length, c in zip(*expected)) / sum(expected[1])
        assert g.mean_path_length() == pytest.approx(mean)
        checked += 1


# 90 rungs: counts up to 2**61, counted compiled in 64-bit integers; 130 rungs: counts past 2**63,
# counted again in Python integers.
@pytest.mark.parametrize("n", [90, 130])
def test_path_counts_stay_exact_when_paths_are_exponentially_many(fibonacci_ladder, n):
    from collections import Counter
    from functools import lru_cache

    g = fibonacci_ladder(n)

    @lru_cache(None)
    def lengths_below(node):
        if node >= n:
            return Counter({0: 1})
        out = Counter()
        for child in (node + 1, node + 2):
            for length, count in lengths_below(child).items():
                out[length + 1] += count
        return out

    expected = lengths_below(0)
    lengths, counts = g.path_length_distribution()
    assert dict(zip(lengths.tolist(), counts.tolist())) == dict(expected)
    assert sum(counts) > 2**60  # beyond float64's exact integers: counts are Python ints
    assert all(type(c) is int for c in counts)
    assert (max(counts) > 2**63) == (n == 130)


@pytest.mark.parametrize("max_leaf_nodes", [None, 5])
def test_graph_from_sklearn_predicts_like_the_tree(max_leaf_nodes):
    X, y = make_classification(n_samples=400, n_features=6, n_informative=4, n_classes=3, random_state=0)
    tree = DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes, random_state=0).fit(X, y)
    g = DecisionGraph.from_sklearn(tree)
    X_new = np.random.default_rng(1).normal(size=(2000, 6)) * 2
    assert np.array_equal(g.apply(X_new), tree.apply(X_new))
    assert np.allclose(g.predict_proba(X_new), tree.predict_proba(X_new))
    assert (g.decision_path(X_new) != tree.decision_path(X_new)).nnz == 0
    assert g.n_splits == tree.tree_.node_count - tree.get_n_leaves()
    assert g.shared_nodes.size == 0


def test_graph_from_sklearn_routes_exactly_at_the_thresholds():
    # Values right at, just below and just above every threshold, in float64: routing must cast to
    # float32 exactly as scikit-learn does.
    X, y = load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    g = DecisionGraph.from_sklearn(tree)
    t = tree.tree_
    probes = []
    for node in np.flatnonzero(t.children_left >= 0):
        for delta in (-1e-7, 0.0, 1e-7, np.nextafter(t.threshold[node], np.inf) - t.threshold[node]):
            row = X.mean(axis=0).copy()
            row[t.feature[node]] = t.threshold[node] + delta
            probes.append(row)
    probes = np.array(probes, dtype=np.float64)
    assert np.array_equal(g.apply(probes), tree.apply(probes))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(children_left=[1, -1], children_right=[-1, -1]), "exactly one child"),
        (dict(children_left=[5, -1, -1], children_right=[2, -1, -1]), "out of range"),
        (dict(children_left=[0, -1, -1], children_right=[2, -1, -1]), "topological order"),
        (dict(children_left=[1, -1, -1], children_right=[2, -1, -1], feature=[0, -2]), "feature has 2 entries"),
    ],
)
def test_malformed_graphs_are_rejected(kwargs, message):
    base = dict(
        children_left=[1, -1, -1],
        children_right=[2, -1, -1],
        feature=[0, -2, -2],
        threshold=[0.5, -2, -2],
        value=np.ones((3, 2)),
    )
    base.update(kwargs)
    n = len(base["children_left"])
    if len(base["value"]) != n:
        base["value"] = np.ones((n, 2))
    if len(base["threshold"]) != n:
        base["threshold"] = [0.5] + [-2] * (n - 1)
    if "feature" not in kwargs and len(base["feature"]) != n:
        base["feature"] = [0] + [-2] * (n - 1)
    with pytest.raises(ValueError, match=message):
        DecisionGraph(**base)


def test_with_training_stats_counts_weighted_samples():
    g = shared_graph()
    X = np.array([[0.1, 0.1], [0.1, 0.5], [0.9, 0.5], [0.9, 0.9]])
    y = np.array([0, 0, 1, 1])
    stats = g.with_training_stats(X, y, sample_weight=np.array([1.0, 2.0, 3.0, 4.0]))
    assert stats.value[0].tolist() == [3.0, 7.0]
    assert stats.value[3].tolist() == [2.0, 3.0]
    assert stats.n_node_samples.tolist() == [4, 2, 2, 2, 1, 1, 1, 1]
    assert stats.impurity[4] == 0.0


def test_stats_and_importances_from_one_routing_equal_the_two_methods():
    # A fit stores both from one routing of the training samples.
    g = shared_graph()
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(50, 3))
    y = rng.integers(0, 2, 50)
    w = rng.uniform(0.5, 2.0, 50)
    graph, importances = g.with_training_stats_and_importances(X, y, w, n_features=4)
    assert graph == g.with_training_stats(X, y, w)
    assert np.array_equal(graph.n_node_samples, g.with_training_stats(X, y, w).n_node_samples)
    assert np.array_equal(importances, g.feature_importances(X, y, w, n_features=4))
    assert importances.shape == (4,) and importances.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.int64])
def test_any_input_type_routes_as_its_float32_value(dtype):
    # Pixels are routed as uint8 without conversion; every type must land where its float32 value does.
    rng = np.random.default_rng(0)
    X = rng.integers(0, 120, size=(500, 5)).astype(np.float64) + (0.3 if dtype in (np.float32, np.float64) else 0)
    y = (X[:, 0] + X[:, 1] > 120).astype(int)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    g = DecisionGraph.from_sklearn(tree)
    X_typed = X.astype(dtype)
    assert np.array_equal(g.apply(X_typed), tree.apply(X_typed.astype(np.float32)))
