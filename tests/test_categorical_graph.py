"""Categorical splits in a DecisionGraph: a subset of category codes goes left, a missing value or a
category unseen in training where the split's missing direction says; checked against a one-sample
walker in pure Python, in model files of version 3 and in prediction by name."""

import json
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tnt import DecisionGraph
from tnt.categorical import subset_bits, subset_codes
from tnt.model_io import LoadedGraphModel, LoadedGraphRegressor, model_from_json, model_to_json

COLOURS = ["blue", "green", "red"]


def colour_graph(**changes):
    """colour in {blue, red} (missing left) -> size <= 0.5; else a leaf."""
    arguments = dict(
        children_left=[1, 3, -1, -1, -1],
        children_right=[2, 4, -1, -1, -1],
        feature=[0, 1, -2, -2, -2],
        threshold=[np.nan, 0.5, -2, -2, -2],
        value=[[4, 2], [3, 1], [1, 1], [3, 0], [0, 1]],
        missing_go_to_left=[1, 0, 0, 0, 0],
        categories={0: COLOURS},
        category_left=[[0, 2], None, None, None, None],
    )
    arguments.update(changes)
    return DecisionGraph(**arguments)


def walk(graph: DecisionGraph, x) -> list[int]:
    """The nodes one sample passes, by the graph's definition, in plain Python."""
    node, path = 0, [0]
    while graph.children_left[node] >= 0:
        value = float(x[graph.feature[node]])
        if graph.is_categorical[node]:
            n_categories = len(graph.categories[int(graph.feature[node])])
            known = not np.isnan(value) and value == int(value) and 0 <= value < n_categories
            if not known:
                left = graph.missing_go_to_left[node] == 1
            else:
                left = int(value) in set(graph.left_categories(node).tolist())
        elif np.isnan(value):
            left = graph.missing_go_to_left[node] == 1
        else:
            left = np.float32(value) <= graph.threshold[node]
        node = int(graph.children_left[node] if left else graph.children_right[node])
        path.append(node)
    return path


X_CODES = np.array([[0, 0.1], [1, 0.1], [2, 0.9], [np.nan, 0.9], [7, 0.1], [1.5, 0.1], [-1, 0.9]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_subset_goes_left_and_missing_or_unseen_codes_follow_the_missing_direction(dtype):
    g = colour_graph()
    X = X_CODES.astype(dtype)
    assert g.apply(X).tolist() == [3, 2, 4, 4, 3, 3, 4]
    assert g.decision_depth(X).tolist() == [2, 1, 2, 2, 2, 2, 2]
    assert g.decision_path(X).toarray().tolist()[1] == [1, 0, 1, 0, 0]
    assert g.is_categorical.tolist() == [True, False, False, False, False]
    assert g.left_categories(0).tolist() == [0, 2]


def test_missing_going_right_at_a_categorical_split():
    g = colour_graph(missing_go_to_left=[0, 0, 0, 0, 0])
    assert g.apply(X_CODES).tolist() == [3, 2, 4, 2, 2, 2, 2]


def test_training_statistics_and_importances_count_the_subsets():
    g = colour_graph()
    X = X_CODES[:3]
    stats = g.with_training_stats(X, np.array([0, 1, 1]))
    assert stats.value.tolist()[:3] == [[1, 2], [1, 1], [0, 1]]
    assert stats.categories[0].tolist() == COLOURS and stats.category_left is not None
    assert g.edge_samples(X).tolist()[0] == [2, 1]
    regression = g.with_regression_stats(X, np.array([1.0, 2.0, 3.0]))
    assert regression.value[:, 0].tolist()[:3] == [2.0, 2.0, 2.0]
    assert regression.is_categorical[0]


def test_copy_equality_and_pickle_keep_the_subsets():
    g = colour_graph()
    assert g == g.copy() == pickle.loads(pickle.dumps(g))
    assert g != colour_graph(category_left=[[0], None, None, None, None])
    assert g != colour_graph(categories={0: ["blue", "green", "red", "white"]})


def test_bitsets_and_code_lists_are_one_subset():
    assert subset_codes(subset_bits([0, 63, 64, 254], 4)).tolist() == [0, 63, 64, 254]
    bits = np.zeros((5, 1), dtype=np.uint64)
    bits[0] = subset_bits([0, 2], 1)
    assert colour_graph(category_left=bits) == colour_graph()


def test_255_categories_route_by_their_codes():
    many = [f"c{i}" for i in range(255)]
    left = list(range(0, 255, 3))
    g = colour_graph(categories={0: many}, category_left=[left, None, None, None, None])
    X = np.column_stack([np.arange(255.0), np.zeros(255)])
    assert (g.apply(X) == np.where(np.arange(255) % 3 == 0, 3, 2)).all()


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"category_left": None}, "splits on the categorical feature 0 but the graph has no category_left"),
        ({"categories": None}, "category_left needs categories"),
        ({"category_left": [[0, 3], None, None, None, None]}, "sends the category code 3 left, but feature 0 has 3"),
        ({"category_left": [[0], [1], None, None, None]}, "Node 1 has categories in category_left but does not"),
        ({"threshold": [0.5, 0.5, -2, -2, -2]}, "a categorical split has threshold NaN"),
        ({"missing_go_to_left": None}, "needs missing_go_to_left"),
        ({"categories": {0: ["a", "a", "b"]}}, "lists a category twice"),
        ({"category_left": [[0]]}, "category_left has 1 entries but children_left has 5"),
    ],
)
def test_inconsistent_categorical_graphs_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        colour_graph(**changes)


@st.composite
def categorical_graphs(draw):
    """A random tree-shaped graph with shared nodes over two categorical features (2-6 and 1-70
    categories) and one numeric feature, and samples with codes, NaN and unseen codes."""
    n_categories = {0: draw(st.integers(2, 6)), 2: draw(st.integers(1, 70))}
    n_splits = draw(st.integers(1, 8))
    n = 2 * n_splits + 1
    left, right, feature, threshold, subsets, missing = [], [], [], [], [], []
    for node in range(n_splits):
        # children among later nodes (shared nodes allowed), always forward: a DAG in topological order
        left.append(draw(st.integers(node + 1, n - 1)))
        right.append(draw(st.integers(node + 1, n - 1)).__index__())
        f = draw(st.sampled_from([0, 1, 2]))
        feature.append(f)
        missing.append(draw(st.integers(0, 1)))
        if f == 1:
            threshold.append(draw(st.floats(-2, 2, width=32)))
            subsets.append(None)
        else:
            threshold.append(np.nan)
            subsets.append(sorted(draw(st.sets(st.integers(0, n_categories[f] - 1)))))
    leaves = n - n_splits
    left += [-1] * leaves
    right += [-1] * leaves
    feature += [-2] * leaves
    threshold += [-2.0] * leaves
    subsets += [None] * leaves
    missing += [0] * leaves
    for node in range(n_splits):
        if left[node] == right[node]:
            right[node] = n - 1 if left[node] != n - 1 else n - 2
    graph = DecisionGraph(
        left, right, feature, threshold, np.ones((n, 2)), missing_go_to_left=missing,
        categories={f: list(range(k)) for f, k in n_categories.items()}, category_left=subsets,
    )  # fmt: skip
    m = draw(st.integers(1, 30))
    code = st.one_of(st.integers(-2, 75).map(float), st.just(np.nan), st.floats(0, 5, width=32))
    X = np.array(
        draw(st.lists(st.tuples(code, st.floats(-3, 3, width=32) | st.just(np.nan), code), min_size=m, max_size=m))
    )
    return graph, X


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=categorical_graphs())
def test_every_routing_equals_a_one_sample_walker(case):
    graph, X = case
    paths = [walk(graph, x) for x in X]
    for dtype in (np.float64, np.float32):
        assert graph.apply(X.astype(dtype)).tolist() == [p[-1] for p in paths]
    assert graph.decision_depth(X).tolist() == [len(p) - 1 for p in paths]
    indicator = graph.decision_path(X).toarray()
    assert [np.flatnonzero(row).tolist() for row in indicator] == [sorted(p) for p in paths]
    # integer categories 0..k-1: each code is its own name
    loaded = model_from_json(
        model_to_json(LoadedGraphModel._holding(graph, 3, None, "CARTClassifier", {}, np.array([0, 1])))
    )
    assert loaded.graph_ == graph
    assert loaded.apply(X).tolist() == [p[-1] for p in paths]


# ---------------------------------------------------------------------- model files and names


def colour_model(graph=None):
    return LoadedGraphModel._holding(
        graph or colour_graph(), 2, ["colour", "size"], "CARTClassifier", {}, np.array(["no", "yes"])
    )


TABLE = pd.DataFrame({"colour": ["blue", "green", "red", None, "purple"], "size": [0.1, 0.1, 0.9, 0.9, 0.1]})


def test_prediction_reads_categories_by_name_and_routes_unseen_ones_as_missing():
    model = colour_model()
    assert model.apply(TABLE).tolist() == [3, 2, 4, 4, 3]
    assert model.predict(TABLE).tolist() == ["no", "no", "yes", "yes", "no"]
    as_category = TABLE.astype({"colour": pd.CategoricalDtype(["red", "green", "blue", "purple"])})
    assert model.apply(as_category).tolist() == [3, 2, 4, 4, 3]
    as_objects = TABLE.to_numpy(dtype=object)
    with pytest.warns(UserWarning, match="feature names"):
        assert model.apply(as_objects).tolist() == [3, 2, 4, 4, 3]
    assert model.decision_path(TABLE).toarray()[1].tolist() == [1, 0, 1, 0, 0]


def test_a_file_of_version_3_keeps_categories_by_name_and_subsets():
    text = model_to_json(colour_model())
    doc = json.loads(text)
    assert doc["version"] == 3
    assert doc["categories"] == [COLOURS, None]
    assert doc["graph"]["category_left"] == [[0, 2], None, None, None, None]
    assert doc["graph"]["threshold"][0] is None and doc["graph"]["missing_go_to_left"][0] == 1
    loaded = model_from_json(text)
    assert loaded.graph_ == colour_graph()
    assert loaded.predict(TABLE).tolist() == ["no", "no", "yes", "yes", "no"]


def test_integer_categories_are_names_too():
    graph = colour_graph(categories={0: [10, 20, 30]})
    model = LoadedGraphRegressor._holding(
        graph.with_regression_stats(np.array([[0, 0.1], [1, 0.1]]), [1.0, 2.0]), 2, None, "CARTRegressor", {}
    )  # fmt: skip
    loaded = model_from_json(model_to_json(model))
    assert json.loads(model_to_json(model))["categories"] == [[10, 20, 30], None]
    # 30 is the third category (code 2: left), 20 the second (right), 25 unseen (missing: left)
    assert loaded.apply(np.array([[30, 0.9], [20, 0.9], [25, 0.9]])).tolist() == [4, 2, 4]


def test_a_model_without_categorical_features_writes_null():
    graph = colour_graph(categories=None, category_left=None, threshold=[0.5, 0.5, -2, -2, -2])
    doc = json.loads(model_to_json(colour_model(graph)))
    assert doc["categories"] is None and doc["graph"]["category_left"] is None


def _broken(change):
    doc = json.loads(model_to_json(colour_model()))
    change(doc)
    return json.dumps(doc)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(categories=[COLOURS]), r'"categories" must be null or a list of 2 entries'),
        (lambda d: d.update(categories=[["a", 1], None]), r'"categories" of feature 0 must be null or a list of'),
        (lambda d: d.update(categories=[["a", "a"], None]), r'"categories" of feature 0 must be null or a list of'),
        (lambda d: d["graph"].update(category_left=[[0], [1], None, None, None]), "node 1 must be a list of codes"),
        (lambda d: d["graph"].update(category_left=[[0, 0], None, None, None, None]), "distinct non-negative"),
        (lambda d: d["graph"].update(category_left=[[0, 5], None, None, None, None]), "code 5 left"),
        (lambda d: d["graph"]["threshold"].__setitem__(0, 1.5), "its threshold is written null"),
        (lambda d: d["graph"].update(missing_go_to_left=None), "the graph has categorical splits"),
        (lambda d: d["graph"].update(category_left=None), "has no category_left"),
        (lambda d: d["graph"].update(category_left=[[0, 10**20], None, None, None, None]), "distinct non-negative"),
        (lambda d: d["graph"].update(category_left=[[True], None, None, None, None]), "distinct non-negative"),
        (lambda d: d["graph"].update(category_left=[[[0]], None, None, None, None]), "distinct non-negative"),
        (lambda d: d["graph"].update(category_left="abc"), "category_left must be null or a list of 5 entries"),
        (lambda d: d.update(categories={"0": COLOURS}), r'"categories" must be null or a list of 2 entries'),
        (lambda d: d.update(categories=[[True, False, 2], None]), r'"categories" of feature 0 must be null'),
        (lambda d: d.update(categories=[[], None]), r'"categories" of feature 0 must be null'),
    ],
)
def test_a_broken_categorical_file_is_refused_in_one_sentence(change, message):
    with pytest.raises(ValueError, match=message):
        model_from_json(_broken(change))


def test_a_file_of_version_2_ignores_the_keys_of_version_3():
    doc = json.loads(
        model_to_json(colour_model(colour_graph(categories=None, category_left=None, threshold=[0.5, 0.5, -2, -2, -2])))
    )
    doc["version"] = 2
    del doc["categories"]
    del doc["graph"]["category_left"]
    assert model_from_json(json.dumps(doc)).graph_.categories is None


def test_a_category_that_is_not_text_or_an_integer_is_not_saved():
    model = colour_model(colour_graph(categories={0: [0.5, 1.5, 2.5]}))
    with pytest.raises(ValueError, match="cannot be stored in a model file; categories are text or integer codes"):
        model_to_json(model)


# ---------------------------------------------------------------------- editing, reduction, counterfactuals


def test_edits_keep_the_categorical_splits():
    from tnt.editing import collapse, redirect
    from tnt.editing.graph_edits import remove_unreachable
    from tnt.editing.statistics import refreshed

    g = colour_graph()
    collapsed = collapse(g, 1).graph
    assert collapsed.is_categorical.tolist() == [True, False, False] and collapsed.left_categories(0).tolist() == [0, 2]
    assert collapsed.apply(X_CODES).tolist() == [1, 2, 1, 1, 1, 1, 1]
    collapsed_root = collapse(g, 0).graph
    assert collapsed_root.node_count == 1 and not collapsed_root.is_categorical.any()
    moved = redirect(g, 0, "no", 4).graph
    assert moved.left_categories(0).tolist() == [0, 2]
    assert moved.apply(X_CODES).tolist() == [2, 3, 3, 3, 2, 2, 3]
    kept, _ = remove_unreachable(g)
    assert kept == g
    fresh = refreshed(g, X_CODES[:3], np.array([0, 1, 1]))
    assert fresh.categories[0].tolist() == COLOURS and fresh.left_categories(0).tolist() == [0, 2]


def test_a_model_gives_its_categories_per_feature():
    model = colour_model()
    assert [None if c is None else c.tolist() for c in model.categories_] == [COLOURS, None]
    plain = colour_model(colour_graph(categories=None, category_left=None, threshold=[0.5, 0.5, -2, -2, -2]))
    assert not hasattr(plain, "categories_")
    assert model_from_json(model_to_json(model)).categories_[0].tolist() == COLOURS
