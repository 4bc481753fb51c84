"""Drawings and texts say where missing values go only where the graph learned it (``missing_in_training``)
or when asked to (``show_missing``); a test of missingness and a sample's own missing value always say it."""

import json
import pickle

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.tree import DecisionTreeClassifier
from test_missing_routing import missing_dag

from tnt import CARTClassifier, CARTRegressor, DecisionGraph
from tnt.codegen import to_python
from tnt.editing import GraphEditor, collapse, refreshed, remove_unreachable
from tnt.inspect.distributions import node_distribution
from tnt.inspect.path import path_table, sample_path
from tnt.inspect.reach import routes
from tnt.inspect.rules import leaf_rules, merged_conditions, rule_text
from tnt.inspect.what_if import what_if
from tnt.model_io import from_sklearn, model_from_json, model_to_json
from tnt.reduction import reduce_graph
from tnt.viz.explain import node_info
from tnt.viz.export_dot import to_dot
from tnt.viz.export_networkx import to_networkx
from tnt.viz.export_text import export_text
from tnt.viz.inspection import node_figure
from tnt.viz.notebook import plot_graph
from tnt.viz.plotly_view import graph_figure
from tnt.wording import shows_missing

NAMES = ["age", "income"]
WINE = load_wine()


def wine_model(nan_share=0.0):
    """CART on wine, with ``nan_share`` of the values removed (seeded)."""
    X = WINE.data.copy()
    X[np.random.default_rng(0).random(X.shape) < nan_share] = np.nan
    return CARTClassifier(max_leaf_nodes=6, random_state=0).fit(X, WINE.target), X


def every_text(graph, **options):
    """What the text export, DOT, plotly hover, networkx and the leaf rules write of ``graph``."""
    names = list(WINE.feature_names) if graph.feature.max() >= len(NAMES) else NAMES
    hover = next(t for t in graph_figure(graph, feature_names=names, **options).data if t.name == "nodes").hovertext
    conditions = [d["condition"] for _, _, d in to_networkx(graph, feature_names=names, **options).edges(data=True)]
    return {
        "text": export_text(graph, feature_names=names, **options),
        "dot": to_dot(graph, feature_names=names, **options),
        "hover": "\n".join(hover),
        "networkx": "\n".join(conditions),
    }


def test_a_model_trained_without_missing_values_draws_no_direction():
    model, X = wine_model()
    assert not model.graph_.missing_in_training and model.graph_.missing_go_to_left is not None
    texts = every_text(model.graph_)
    for view, text in texts.items():
        assert "missing" not in text, view
    assert texts["text"].startswith("|--- proline <= 755\n")
    rules = leaf_rules(model.graph_, routes(model.graph_, X), model.predict(X), feature_names=WINE.feature_names)
    assert not any("missing" in r for r in rules.rules["rule"])
    assert all("missing" not in node_info(model.graph_, n, WINE.feature_names).rule for n in range(5))


def test_a_model_trained_with_missing_values_draws_where_they_go():
    model, X = wine_model(nan_share=0.1)
    assert model.graph_.missing_in_training
    texts = every_text(model.graph_)
    assert "or missing" in texts["text"] and "or missing" in texts["networkx"]
    assert "or missing" in texts["dot"]
    rules = leaf_rules(model.graph_, routes(model.graph_, X), model.predict(X), feature_names=WINE.feature_names)
    assert any("or missing" in r for r in rules.rules["rule"])


def test_a_regressor_records_missing_values_in_training_too():
    y = WINE.data[:, 0]
    plain = CARTRegressor(max_leaf_nodes=4, random_state=0).fit(WINE.data[:, 1:], y)
    holes = WINE.data[:, 1:].copy()
    holes[::5, 0] = np.nan
    learned = CARTRegressor(max_leaf_nodes=4, random_state=0).fit(holes, y)
    assert not plain.graph_.missing_in_training and learned.graph_.missing_in_training


def test_missing_values_only_in_samples_of_weight_zero_are_not_learned_from():
    X = WINE.data.copy()
    X[0, :] = np.nan
    weights = np.ones(len(X))
    weights[0] = 0
    model = CARTClassifier(max_leaf_nodes=4, random_state=0).fit(X, WINE.target, sample_weight=weights)
    assert not model.graph_.missing_in_training


def test_a_test_of_missingness_is_always_drawn_and_other_splits_only_when_learned():
    hidden = missing_dag(missing_in_training=False)
    text = export_text(hidden, feature_names=NAMES)
    # tests/test_missing_exports.py has the learned graph's text as a golden: the same lines, minus "or missing"
    assert text == export_text(missing_dag(), feature_names=NAMES).replace(" or missing", "")
    assert text.startswith("|--- age <= 0.5\n|   |--- income <= 0\n")
    assert "|   |--- income is not missing\n" in text and "|   |--- income is missing\n" in text
    texts = every_text(hidden)
    assert "or missing" not in texts["dot"] and "missing values go" not in texts["hover"]
    assert 'n2 [label="income is not missing' in texts["dot"]
    assert "income is missing" in texts["networkx"] and "or missing" not in texts["networkx"]
    assert rule_text(merged_conditions(hidden, [0, 2, 5]), NAMES) == "age > 0.5 and income is missing"
    assert rule_text(merged_conditions(hidden, [0, 2, 4, 5]), NAMES) == "age > 0.5 and income is not missing"
    assert rule_text(merged_conditions(hidden, [0, 1, 4, 6]), NAMES) == "age <= 0.25 and income > 0"


def test_show_missing_forces_the_directions_on_or_off():
    model, _ = wine_model()
    forced = every_text(model.graph_, show_missing=True)
    assert forced["text"].startswith("|--- proline <= 755 or missing\n")
    assert "missing values go: no" in forced["hover"] and 'label="no, or missing"' in forced["dot"]
    assert "or missing" in forced["networkx"]
    learned = missing_dag()
    quiet = every_text(learned, show_missing=False)
    assert "or missing" not in quiet["text"] + quiet["dot"] + quiet["networkx"]
    assert "income is missing" in quiet["text"]  # a test of missingness still reads as one
    assert "missing values go" not in quiet["hover"]
    assert "or missing" in plot_graph(model, show_missing=True).source
    assert "or missing" not in plot_graph(model).source
    X = WINE.data
    said = leaf_rules(model.graph_, routes(model.graph_, X), model.predict(X), show_missing=True).rules["rule"]
    assert any("or missing" in r for r in said)


def test_shows_missing_is_false_for_a_graph_without_directions_whatever_is_asked():
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[1, 1], [1, 0], [0, 1]])
    assert not shows_missing(g, show_missing=True)
    assert "missing" not in export_text(g, show_missing=True)


def test_a_sample_with_a_missing_value_says_which_way_it_went_whatever_the_graph_learned():
    model, _ = wine_model()
    graph = model.graph_
    root_feature = int(graph.feature[0])
    sample = WINE.data[0].copy()
    sample[root_feature] = np.nan
    steps = sample_path(graph, sample, WINE.feature_names)
    went_left = bool(graph.missing_go_to_left[0])
    table = path_table(steps)
    assert table.loc[0, "value"] == "missing"
    assert table.loc[0, "goes"] == ("yes" if went_left else "no") + " (missing)"
    assert table.loc[0, "test"].endswith(" or missing") == went_left
    assert all("missing" not in rule for rule in table["test"][1:])  # present values: as drawn
    changed = what_if(graph, WINE.data[0], sample, WINE.feature_names)
    assert changed.table.loc[0, ["test", "value"]].tolist() == [table.loc[0, "test"], "missing"]


def test_the_node_chart_says_where_missing_values_went_only_when_some_are_there():
    model, X = wine_model()
    graph = model.graph_
    name = WINE.feature_names[int(graph.feature[0])]
    plain = node_figure(node_distribution(graph, routes(graph, X), X, WINE.target, 0), WINE.feature_names)
    assert plain.layout.title.text.startswith(f"Node #0: {name} <= 755, ")
    holes = X.copy()
    holes[:5, int(graph.feature[0])] = np.nan
    dist = node_distribution(graph, routes(graph, holes), holes, WINE.target, 0)
    assert graph.missing_go_to_left[0] == 1  # the root's "yes" child has more training samples
    assert dist.missing_left is True
    title = node_figure(dist, WINE.feature_names).layout.title.text
    assert title.startswith(f"Node #0: {name} <= 755 or missing, ") and "5 missing (not drawn)" in title
    assert node_distribution(graph, routes(graph, X), X, WINE.target, 0).missing_left is None


def test_exported_code_follows_the_direction_of_a_model_trained_without_missing_values():
    model, _ = wine_model()
    X = WINE.data.copy()
    X[np.random.default_rng(1).random(X.shape) < 0.3] = np.nan
    namespace = {}
    exec(to_python(model), namespace)
    assert [namespace["predict"](row) for row in X.tolist()] == model.predict(X).tolist()


def test_the_flag_survives_a_model_file():
    for share in (0.0, 0.1):
        model, X = wine_model(share)
        text = model_to_json(model)
        assert json.loads(text)["graph"]["missing_in_training"] is model.graph_.missing_in_training
        loaded = model_from_json(text)
        assert loaded.graph_.missing_in_training is model.graph_.missing_in_training
        assert loaded.graph_ == model.graph_
        assert export_text(loaded.graph_) == export_text(model.graph_)


def test_a_file_without_the_key_reads_as_not_learned():
    model, _ = wine_model(0.1)
    doc = json.loads(model_to_json(model))
    del doc["graph"]["missing_in_training"]
    assert not model_from_json(json.dumps(doc)).graph_.missing_in_training
    doc["graph"]["missing_in_training"] = 1
    with pytest.raises(ValueError, match=r"^graph\.missing_in_training must be true or false\.$"):
        model_from_json(json.dumps(doc))


def test_a_file_of_version_1_reads_as_not_learned():
    from test_model_io import OLD_FILE

    graph = model_from_json(OLD_FILE.read_text()).graph_
    assert graph.missing_go_to_left is None and not graph.missing_in_training


def test_the_flag_survives_copies_pickles_statistics_edits_and_reduction():
    model, X = wine_model(0.1)
    graph = model.graph_
    present = ~np.isnan(X).any(axis=1)
    y = WINE.target
    copies = [
        graph.copy(),
        pickle.loads(pickle.dumps(graph)),
        graph.with_training_stats(X, y),
        refreshed(graph, X, y),
        remove_unreachable(graph)[0],
        collapse(graph, int(np.flatnonzero(~graph.is_leaf)[-1])).graph,
        reduce_graph(graph, X[present], y[present]),
    ]
    assert all(g.missing_in_training for g in copies)
    editor = GraphEditor(model, X, y)
    editor.collapse(int(np.flatnonzero(~graph.is_leaf)[-1]))
    assert editor.model.graph_.missing_in_training
    assert model_from_json(model_to_json(editor.model)).graph_.missing_in_training
    plain, _ = wine_model()
    assert not reduce_graph(plain.graph_, WINE.data, y).missing_in_training
    assert not plain.graph_.copy().missing_in_training


def test_the_flag_is_part_of_the_graph_equality():
    assert missing_dag() != missing_dag(missing_in_training=False)
    assert missing_dag() == missing_dag()


def test_a_pickle_from_before_the_flag_reads_as_not_learned():
    state = missing_dag().__getstate__()
    del state["missing_in_training"]
    old = DecisionGraph.__new__(DecisionGraph)
    old.__setstate__(state)
    assert old.missing_in_training is False


def test_a_converted_scikit_learn_tree_learned_missing_values_when_told_or_when_it_tests_missingness():
    plain = DecisionTreeClassifier(max_leaf_nodes=6, random_state=0).fit(WINE.data, WINE.target)
    assert not DecisionGraph.from_sklearn(plain).missing_in_training
    assert DecisionGraph.from_sklearn(plain, missing_in_training=True).missing_in_training
    assert from_sklearn(plain, missing_in_training=True).graph_.missing_in_training
    assert "or missing" not in export_text(from_sklearn(plain).graph_)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = rng.integers(0, 2, size=400)
    X[y == 1, 1] = np.nan  # the class is whether feature 1 is missing
    tests_missingness = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    graph = DecisionGraph.from_sklearn(tests_missingness)
    assert graph.is_missing_test.any() and graph.missing_in_training
    assert not DecisionGraph.from_sklearn(tests_missingness, missing_in_training=False).missing_in_training
