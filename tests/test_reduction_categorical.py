"""Graph reduction and hand edits on graphs with categorical splits. Reduction merges two categorical
splits only when they test the same feature by the same subset and send missing values the same way;
trained on every combination of every category and a missing value, the reduced graph predicts, by
the one-sample walker in pure Python, exactly as the original on any row: every category, codes
unseen in training and NaN."""

import itertools

import numpy as np
import pandas as pd
import pytest
from random_graphs import random_categorical_tests, random_dag
from test_categorical_graph import walk

from tnt import CARTClassifier, DecisionGraph, TnTClassifier
from tnt.editing import GraphEditor
from tnt.reduction import reduce_graph, reduce_model

N_CATEGORIES = [3, 4]  # features 0 and 1 are categorical; feature 2 holds numbers 0..3
CATEGORIES = {0: ["blue", "green", "red"], 1: ["a", "b", "c", "d"]}
GRID = [[*range(3), np.nan], [*range(4), np.nan], [*range(4), np.nan]]


def random_categorical_graph(rng, n_internal, tree_copies: bool):
    """A random graph of categorical splits on features 0 and 1 (random subsets and directions) and
    thresholds on feature 2, two classes; with ``tree_copies`` the root's two children are one random
    sub-graph written twice (a duplicate a reduction should merge)."""
    skeleton = random_dag(rng, n_internal)
    if skeleton is None:
        return None
    left, right = skeleton
    if tree_copies:  # node 0 -> copy A (1..n) and copy B (n+1..2n) of the same sub-graph
        n = left.shape[0]
        shift = lambda a, by: np.where(a >= 0, a + by, -1)  # noqa: E731
        left = np.concatenate([[1], shift(left, 1), shift(left, n + 1)])
        right = np.concatenate([[n + 1], shift(right, 1), shift(right, n + 1)])
    n = left.shape[0]
    internal = left >= 0
    feature, threshold, subsets = random_categorical_tests(rng, internal, N_CATEGORIES, 3)
    missing_left = np.where(internal, rng.integers(0, 2, n), 0)
    value = rng.random((n, 2))
    if tree_copies:  # the copies are the same sub-graph: the same tests and leaves
        half = (n - 1) // 2
        for array in (feature, threshold, missing_left, value):
            array[half + 1 :] = array[1 : half + 1]
        subsets[half + 1 :] = subsets[1 : half + 1]
    return DecisionGraph(left, right, feature, threshold, value, missing_go_to_left=missing_left,
                         missing_in_training=True, categories=CATEGORIES, category_left=subsets)  # fmt: skip


def predicted(graph, X):
    """Each row's class by the pure-Python walker (:func:`test_categorical_graph.walk`)."""
    return np.array([int(np.argmax(graph.value[walk(graph, x)[-1]])) for x in X])


def the_tests(graph):
    """Each split as (feature, its subset or threshold, where missing values go)."""
    return {
        (int(graph.feature[n]), tuple(graph.left_categories(n).tolist()) if graph.is_categorical[n] else None,
         int(graph.missing_go_to_left[n]))
        for n in np.flatnonzero(~graph.is_leaf)
    }  # fmt: skip


def test_reduced_on_every_combination_it_predicts_every_row_as_the_original():
    rng = np.random.default_rng(52)
    grid = np.array(list(itertools.product(*GRID)))  # every category and a missing value, per feature
    # Rows the grid does not hold: codes no category has (routed as missing) and NaN, mixed.
    other = np.column_stack(
        [rng.choice([0, 1, 2, 3, 7, -1, 1.5, np.nan], 400), rng.choice([0, 1, 2, 3, 4, 9, np.nan], 400),
         rng.choice([0.0, 1.0, 2.0, 3.0, np.nan], 400)]
    )  # fmt: skip
    checked = smaller = categorical_kept = 0
    while checked < 30:
        graph = random_categorical_graph(rng, int(rng.integers(2, 8)), tree_copies=checked % 2 == 0)
        if graph is None or not graph.is_categorical.any():
            continue
        y = predicted(graph, grid)
        reduced = reduce_graph(graph, grid, y)
        checked += 1
        rows = np.vstack([grid, other])
        assert np.array_equal(predicted(reduced, rows), predicted(graph, rows))
        assert np.array_equal(reduced.predict_proba(rows).argmax(axis=1), predicted(reduced, rows))
        assert reduced.n_splits <= graph.n_splits and reduced.categories.keys() == graph.categories.keys()
        # No new test is made up: each split of the reduced graph is one of the original's.
        assert the_tests(reduced) <= the_tests(graph)
        smaller += reduced.n_splits < graph.n_splits
        categorical_kept += bool(reduced.is_categorical.any())
    assert checked == 30 and smaller >= 15 and categorical_kept >= 15


def test_two_copies_of_a_categorical_split_become_one_and_a_different_subset_does_not():
    # root: size <= 0.5; both children test colour in {blue, red}, missing left, with the same leaves
    def graph(second_subset, second_missing=1):
        return DecisionGraph(
            [1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [1, 0, 0, -2, -2], [0.5, np.nan, np.nan, -2, -2],
            [[2, 2], [1, 1], [1, 1], [2, 0], [0, 2]], missing_go_to_left=[0, 1, second_missing, 0, 0],
            missing_in_training=True, categories={0: ["blue", "green", "red"]},
            category_left=[None, [0, 2], second_subset, None, None],
        )  # fmt: skip

    X = np.array([[c, s] for c in (0, 1, 2, np.nan) for s in (0.0, 1.0)])
    same = graph([0, 2])
    y = predicted(same, X)
    reduced = reduce_graph(same, X, y)
    assert reduced.n_splits == 1 and reduced.is_categorical.tolist() == [True, False, False]
    assert reduced.left_categories(0).tolist() == [0, 2] and reduced.missing_go_to_left[0] == 1
    for different in (graph([0]), graph([0, 2], second_missing=0)):  # another subset, another direction
        y = predicted(different, X)
        assert reduce_graph(different, X, y).n_splits == 3


def test_a_learned_model_is_reduced_without_changing_a_training_prediction():
    rng = np.random.default_rng(0)
    colour = rng.choice(["blue", "green", "red", "white", "black", None], 500)
    size = rng.integers(0, 8, 500).astype(float)
    y = np.where(np.isin(colour, ["green", "white"]) ^ (size > 4) ^ (rng.random(500) < 0.1), "yes", "no")
    table = pd.DataFrame({"colour": colour, "size": size})
    for model in (
        CARTClassifier(max_leaf_nodes=24, random_state=0, categorical_features=["colour"]),
        TnTClassifier(N1=1, C=1e-4, random_state=0, categorical_features=["colour"]),
    ):
        model.fit(table, y)
        small = reduce_model(model, table, y)
        assert small.n_splits_ <= model.n_splits_ and small.graph_.is_categorical.any()
        assert (small.predict(table) == model.predict(table)).all()
        assert small.categories_[0].tolist() == model.categories_[0].tolist()
        unseen = table.assign(colour=["purple"] * len(table))  # read as missing, and predicted
        assert (small.predict(unseen) == small.predict(table.assign(colour=[None] * len(table)))).all()


def test_without_missing_values_in_training_each_categorical_split_keeps_its_direction():
    rng = np.random.default_rng(4)
    checked = 0
    while checked < 20:
        graph = random_categorical_graph(rng, int(rng.integers(2, 8)), tree_copies=True)
        if graph is None or not graph.is_categorical.any():
            continue
        graph.missing_in_training = False
        complete = np.array(list(itertools.product(*(values[:-1] for values in GRID))))  # no NaN
        reduced = reduce_graph(graph, complete, predicted(graph, complete))
        checked += 1
        assert np.array_equal(predicted(reduced, complete), predicted(graph, complete))
        kept = {t for t in the_tests(graph) if t[1] is not None}
        assert {t for t in the_tests(reduced) if t[1] is not None} <= kept
    assert checked == 20


# ---------------------------------------------------------------------------------------------- editing
@pytest.fixture
def colours():
    rng = np.random.default_rng(1)
    colour = rng.choice(["blue", "green", "red", None], 300)
    size = rng.integers(0, 6, 300).astype(float)
    y = np.where(np.isin(colour, ["green"]) | (size > 3), "yes", "no")
    table = pd.DataFrame({"colour": colour, "size": size})
    model = TnTClassifier(N1=1, C=1e-3, random_state=0, categorical_features=["colour"]).fit(table, y)
    assert model.graph_.is_categorical.any()
    return model, table, y


def test_edits_keep_the_categorical_splits_and_read_names(colours):
    model, table, y = colours
    editor = GraphEditor(model, table, y)
    graph = model.graph_
    split = int(np.flatnonzero(~graph.is_leaf)[-1])  # the last split: collapsed into a leaf
    editor.collapse(split)
    edited = editor.model.graph_
    assert edited.n_splits == graph.n_splits - 1
    categorical = [n for n in np.flatnonzero(graph.is_categorical) if n != split]
    assert edited.is_categorical.sum() == len(categorical)
    assert {tuple(edited.left_categories(n)) for n in np.flatnonzero(edited.is_categorical)} <= {
        tuple(graph.left_categories(n)) for n in np.flatnonzero(graph.is_categorical)
    }
    # The edited model reads colours by name, and where no edit reached, predicts as before.
    X = model._validate_X_predict(table)
    untouched = ~graph.decision_path(X)[:, split].toarray().ravel().astype(bool)
    assert (editor.model.predict(table)[untouched] == model.predict(table)[untouched]).all()
    hand = editor.edited_model()
    assert hand.graph_.categories[0].tolist() == ["blue", "green", "red"]
    assert (hand.predict(table) == editor.model.predict(table)).all()
    assert editor.undo().model is model


def test_forbidding_a_feature_trains_again_on_the_categories_by_name(colours):
    model, table, y = colours
    editor = GraphEditor(model, table, y)
    editor.forbid(1)  # size: the model trained again splits colour alone, by its names
    again = editor.model
    assert again.graph_.categories[0].tolist() == ["blue", "green", "red"]
    assert set(again.graph_.feature[~again.graph_.is_leaf].tolist()) == {0}
    assert (again.predict(table.assign(size=0.0)) == again.predict(table)).all()
