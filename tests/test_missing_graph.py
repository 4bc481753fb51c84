"""Missing values in the graph arrays: the direction stored per node, its validation and its
conversion from scikit-learn's ``tree_.missing_go_to_left``."""

import copy

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from tnt import DecisionGraph


def missing_graph():
    """0: x0 <= 0.5 (missing left) -> 1 | 2;  2: x1 is missing? present -> 3, missing -> 4."""
    return DecisionGraph(
        children_left=[1, -1, 3, -1, -1],
        children_right=[2, -1, 4, -1, -1],
        feature=[0, -2, 1, -2, -2],
        threshold=[0.5, -2, np.inf, -2, -2],
        value=[[3, 3], [2, 0], [1, 3], [1, 0], [0, 3]],
        missing_go_to_left=[1, 0, 0, 0, 0],
    )


def test_the_direction_is_kept_as_one_byte_per_node():
    g = missing_graph()
    assert g.missing_go_to_left.dtype == np.uint8
    assert g.missing_go_to_left.tolist() == [1, 0, 0, 0, 0]
    assert g.is_missing_test.tolist() == [False, False, True, False, False]


def test_a_graph_built_without_directions_knows_nothing_of_missing_values():
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[1, 1], [1, 0], [0, 1]])
    assert g.missing_go_to_left is None
    assert not g.is_missing_test.any()


@pytest.mark.parametrize(
    "directions, threshold, message",
    [
        ([1, 0], [0.5, -2, -2], "missing_go_to_left has 2 entries"),
        ([2, 0, 0], [0.5, -2, -2], "one 0 .* or 1 .* per node"),
        ([1, 1, 0], [0.5, -2, -2], "Leaf 1 has missing_go_to_left 1"),
        ([1, 0, 0], [np.inf, -2, -2], "test of missingness, needs missing_go_to_left = 0"),
        (None, [np.inf, -2, -2], "not a finite number"),
        ([0, 0, 0], [-np.inf, -2, -2], "not a finite number"),
        ([0, 0, 0], [np.nan, -2, -2], "not a finite number"),
    ],
)
def test_inconsistent_directions_are_refused(directions, threshold, message):
    with pytest.raises(ValueError, match=message):
        DecisionGraph(
            [1, -1, -1], [2, -1, -1], [0, -2, -2], threshold, [[1, 1], [1, 0], [0, 1]], missing_go_to_left=directions
        )


def test_copies_and_equality_keep_the_direction():
    g = missing_graph()
    assert g.copy() == g and g.copy().missing_go_to_left.tolist() == [1, 0, 0, 0, 0]
    other = g.copy()
    other.missing_go_to_left[0] = 0
    assert other != g
    assert copy.deepcopy(g) == g  # through __getstate__ and __setstate__, as a pickle
    X = np.array([[0.0, 1.0], [1.0, 2.0]])
    assert g.with_training_stats(X, np.array([0, 1])).missing_go_to_left.tolist() == [1, 0, 0, 0, 0]


def test_a_pickle_from_before_missing_values_loads_without_directions():
    g = missing_graph()
    state = g.__getstate__()
    del state["missing_go_to_left"]
    old = DecisionGraph.__new__(DecisionGraph)
    old.__setstate__(state)
    assert old.missing_go_to_left is None


def nan_data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    X[y == 1, 2] = np.nan  # feature 2's missingness tells the class: scikit-learn tests it (+inf)
    return X, y


@pytest.mark.parametrize(
    "model", [DecisionTreeClassifier(max_depth=4, random_state=0), DecisionTreeRegressor(max_depth=4, random_state=0)]
)
def test_from_sklearn_reads_the_directions(model):
    X, y = nan_data()
    tree = model.fit(X, y).tree_
    g = DecisionGraph.from_sklearn(model)
    internal = tree.children_left >= 0
    assert g.missing_go_to_left[internal].tolist() == tree.missing_go_to_left[internal].tolist()
    assert not g.missing_go_to_left[~internal].any()
    assert g.is_missing_test.any()  # the split on feature 2's missingness
    assert np.array_equal(g.threshold[g.is_missing_test], np.full(g.is_missing_test.sum(), np.inf))


def test_from_sklearn_without_nan_still_stores_a_direction_at_every_split():
    X, y = nan_data()
    X = np.nan_to_num(X)
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    g = DecisionGraph.from_sklearn(model)
    assert g.missing_go_to_left is not None
    internal = model.tree_.children_left >= 0
    assert g.missing_go_to_left[internal].tolist() == model.tree_.missing_go_to_left[internal].tolist()
