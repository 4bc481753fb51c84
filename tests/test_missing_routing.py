"""Routing samples with missing values (NaN): every reader of a graph sends them the way the graph
stores (``missing_go_to_left``), for every input type, and refuses them where no way is stored."""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from tnt import CARTClassifier, DecisionGraph
from tnt.baselines import CARTRegressor
from tnt.graph import NO_DIRECTIONS


def reference_leaf(graph, x) -> int:
    """The leaf one sample reaches, walked in Python: float32 comparison, NaN where stored."""
    node = 0
    while graph.children_left[node] >= 0:
        value = np.float32(x[graph.feature[node]])
        if np.isnan(value):
            go_left = graph.missing_go_to_left[node] == 1
        else:
            go_left = value <= graph.threshold[node]
        node = graph.children_left[node] if go_left else graph.children_right[node]
    return int(node)


def reference_path(graph, x) -> list[int]:
    path = [0]
    while graph.children_left[path[-1]] >= 0:
        node = path[-1]
        value = np.float32(x[graph.feature[node]])
        go_left = graph.missing_go_to_left[node] == 1 if np.isnan(value) else value <= graph.threshold[node]
        path.append(int(graph.children_left[node] if go_left else graph.children_right[node]))
    return path


def missing_dag(missing_in_training=True):
    """A DAG with a shared node, NaN left at the root, right at node 1, and a test of missingness (node 2),
    learned from missing values unless ``missing_in_training`` is False.

    0: x0 <= 0.5 (NaN left) -> 1 | 2;  1: x1 <= 0.0 (NaN right) -> 3 | 4;
    2: x1 is missing? present -> 4, missing -> 5;  4: x0 <= 0.25 (NaN left) -> 6 | 5.
    """
    return DecisionGraph(
        children_left=[1, 3, 4, -1, 6, -1, -1],
        children_right=[2, 4, 5, -1, 5, -1, -1],
        feature=[0, 1, 1, -2, 0, -2, -2],
        threshold=[0.5, 0.0, np.inf, -2, 0.25, -2, -2],
        value=[[6, 4], [4, 1], [2, 3], [3, 0], [2, 2], [0, 3], [1, 0]],
        missing_go_to_left=[1, 0, 0, 0, 1, 0, 0],
        missing_in_training=missing_in_training,
    )


def test_missing_values_take_the_stored_direction_at_each_node():
    g = missing_dag()
    nan = np.nan
    X = np.array([[nan, -1.0], [nan, nan], [nan, 1.0], [0.9, 1.0], [0.9, nan], [nan, 0.5], [0.1, 0.5]])
    # [nan,-1]: 0 left (NaN) -> 1: -1 <= 0 -> 3.   [nan,nan]: 0 left -> 1 right (NaN) -> 4 left (NaN) -> 6.
    # [0.9, 1]: 0 right -> 2: present -> 4: 0.9 > 0.25 -> 5.   [0.9, nan]: 0 right -> 2: missing -> 5.
    assert g.apply(X).tolist() == [3, 6, 6, 5, 5, 6, 6]
    assert g.decision_path(X).toarray()[1].tolist() == [1, 1, 0, 0, 1, 0, 1]
    assert g.decision_depth(X).tolist() == [2, 3, 3, 3, 2, 3, 3]
    assert g.edge_samples(X).tolist() == [[5, 2], [1, 4], [1, 1], [0, 0], [4, 1], [0, 0], [0, 0]]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_fast_walk_and_the_walk_with_missing_values_agree_on_every_row(dtype):
    """A NaN in one row (in the second block the fast walk stages) sends the whole batch down the
    walk that takes missing values: the other rows still reach the leaves the fast walk gives them."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(20000, 2)).astype(dtype)
    g = missing_dag()
    clean = g.apply(X)
    X_nan = X.copy()
    X_nan[14321] = np.nan
    routed = g.apply(X_nan)
    assert routed[14321] == 6
    assert np.array_equal(np.delete(routed, 14321), np.delete(clean, 14321))


def test_integer_input_routes_through_a_graph_with_directions():
    g = missing_dag()
    X = np.array([[0, 1], [1, 0], [0, -1]], dtype=np.int64)
    assert g.apply(X).tolist() == [reference_leaf(g, x) for x in X]
    assert g.apply(X.astype(np.int16)).tolist() == [reference_leaf(g, x) for x in X]


def test_a_graph_without_directions_refuses_nan_everywhere():
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[1, 1], [1, 0], [0, 1]])
    X = np.array([[0.1], [np.nan]])
    for route in (g.apply, g.decision_path, g.decision_depth, g.edge_samples):
        with pytest.raises(ValueError, match="saved before missing values were supported"):
            route(X)
    with pytest.raises(ValueError, match="stores no direction for them"):
        g.with_training_stats(X, np.array([0, 1]))
    assert g.apply(np.array([[0.1], [0.9]])).tolist() == [1, 2]  # without NaN, as before


@st.composite
def trees_and_samples(draw):
    """A scikit-learn tree fitted on data with random NaN masks, and other samples with NaN."""
    seed = draw(st.integers(0, 2**16))
    n = draw(st.integers(5, 80))
    d = draw(st.integers(1, 4))
    rate = draw(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = rng.integers(0, 3, size=n)
    X[rng.random(X.shape) < rate] = np.nan
    tree = DecisionTreeClassifier(random_state=0, max_leaf_nodes=draw(st.integers(2, 12))).fit(X, y)
    X_new = rng.integers(-4, 5, size=(40, d)).astype(np.float64)
    X_new[rng.random(X_new.shape) < draw(st.sampled_from([0.0, 0.3, 1.0]))] = np.nan
    return tree, X_new


@given(trees_and_samples(), st.sampled_from([np.float64, np.float32]))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_routing_with_random_nan_masks_equals_the_reference_walk(tree_and_samples, dtype):
    tree, X = tree_and_samples
    X = X.astype(dtype)
    g = DecisionGraph.from_sklearn(tree)
    expected = [reference_leaf(g, x) for x in X]
    assert g.apply(X).tolist() == expected
    assert tree.apply(X).tolist() == expected  # scikit-learn numbers its nodes as the graph does
    paths = g.decision_path(X)
    assert [paths[i].indices.tolist() for i in range(X.shape[0])] == [sorted(reference_path(g, x)) for x in X]


def nan_classification(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    X[rng.random(X.shape) < 0.15] = np.nan
    return X, y


def test_cart_classifier_learns_from_nan_and_predicts_as_scikit_learn():
    X, y = nan_classification()
    ours = CARTClassifier(max_leaf_nodes=12, random_state=0).fit(X, y)
    theirs = DecisionTreeClassifier(max_leaf_nodes=12, random_state=0).fit(X, y)
    X_test, _ = nan_classification(seed=1)
    assert ours.graph_.missing_go_to_left is not None
    assert (ours.predict(X_test) == theirs.predict(X_test)).all()
    assert np.allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test))
    assert (ours.predict(X_test.astype(np.float32)) == theirs.predict(X_test.astype(np.float32))).all()
    assert ours.decision_path(X_test).sum() == theirs.decision_path(X_test).sum()
    assert ours.__sklearn_tags__().input_tags.allow_nan


def test_cart_regressor_learns_from_nan_and_predicts_as_scikit_learn():
    X, _ = nan_classification()
    target = np.nan_to_num(X[:, 0]) * 3 + np.isnan(X[:, 1])
    ours = CARTRegressor(max_leaf_nodes=10, random_state=0).fit(X, target)
    theirs = DecisionTreeRegressor(max_leaf_nodes=10, random_state=0).fit(X, target)
    X_test, _ = nan_classification(seed=2)
    assert np.allclose(ours.predict(X_test), theirs.predict(X_test))
    assert ours.__sklearn_tags__().input_tags.allow_nan


def test_a_cart_trained_without_nan_sends_later_ones_where_scikit_learn_does():
    X, y = nan_classification()
    X_clean = np.nan_to_num(X)
    ours = CARTClassifier(max_leaf_nodes=8, random_state=0).fit(X_clean, y)
    theirs = DecisionTreeClassifier(max_leaf_nodes=8, random_state=0).fit(X_clean, y)
    assert (ours.predict(X) == theirs.predict(X)).all()


def test_predict_with_nan_on_a_model_without_directions_is_one_sentence():
    X, y = nan_classification(n=200)
    model = CARTClassifier(max_leaf_nodes=6, random_state=0).fit(np.nan_to_num(X), y)
    model.graph_.missing_go_to_left = None  # as a model loaded from a file written before missing values
    for method in (model.predict, model.predict_proba, model.apply, model.decision_path):
        with pytest.raises(ValueError, match=f"^{re.escape(NO_DIRECTIONS)}$"):
            method(X)
    assert model.predict(np.nan_to_num(X)).shape == (200,)
