"""Every view of a graph that learned from missing values says where they go: text, DOT, plotly,
networkx, the node inspector and a sample's path (a golden test on a hand-built graph, as
tests/test_export_text.py; tests/test_missing_shown.py covers graphs that did not learn them)."""

import numpy as np
import pytest
from test_missing_routing import missing_dag

from tnt import CARTClassifier, DecisionGraph
from tnt.inspect.path import path_table, sample_path
from tnt.viz.colors import HIGHLIGHT_COLOR
from tnt.viz.explain import node_info
from tnt.viz.export_dot import to_dot
from tnt.viz.export_networkx import to_networkx
from tnt.viz.export_text import export_text
from tnt.viz.exporter import path_mask
from tnt.viz.plotly_view import graph_figure
from tnt.wording import condition_text

NAMES = ["age", "income"]


def test_the_text_export_says_or_missing_and_draws_a_test_of_missingness():
    assert export_text(missing_dag(), feature_names=NAMES) == (
        "|--- age <= 0.5 or missing\n"
        "|   |--- income <= 0\n"
        "|   |   |--- class: 0\n"
        "|   |--- income > 0 or missing\n"
        "|   |   |--- node #4: age <= 0.25 or missing\n"
        "|   |   |   |--- class: 0\n"
        "|   |   |--- node #4: age > 0.25\n"
        "|   |   |   |--- node #5: class: 1\n"
        "|--- age > 0.5\n"
        "|   |--- income is not missing\n"
        "|   |   |--- -> see node #4\n"
        "|   |--- income is missing\n"
        "|   |   |--- -> see node #5 (class: 1)\n"
    )


def test_a_graph_without_directions_is_drawn_as_before():
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [37.5, -2, -2], [[1, 1], [1, 0], [0, 1]])
    assert export_text(g, feature_names=["age"]) == (
        "|--- age <= 37.5\n|   |--- class: 0\n|--- age > 37.5\n|   |--- class: 1\n"
    )
    assert "missing" not in to_dot(g, feature_names=["age"])


def test_the_dot_edge_that_missing_values_take_says_so():
    source = to_dot(missing_dag(), feature_names=NAMES)
    assert 'n0 [label="age <= 0.5 or missing' in source
    assert "n0 -> n2 [label=no style=dashed]" in source  # NaN goes left at node 0: the rule says so
    assert 'n1 -> n4 [label="no, or missing" style=dashed]' in source
    assert 'n2 [label="income is not missing' in source
    assert "n2 -> n5 [label=no style=dashed]" in source  # the test of missingness says it itself
    assert "inf" not in source


def test_a_sample_with_missing_values_lights_the_path_it_takes():
    g = missing_dag()
    sample = [np.nan, np.nan]  # 0 -> 1 (NaN left) -> 4 (NaN right) -> 6 (NaN left)
    assert np.flatnonzero(path_mask(g, sample)).tolist() == [0, 1, 4, 6]
    source = to_dot(g, feature_names=NAMES, highlight_sample=sample)
    assert f'n1 -> n4 [color="{HIGHLIGHT_COLOR}" label="no, or missing" penwidth=3 style=dashed]' in source


def test_plotly_hover_and_networkx_conditions_name_the_missing_branch():
    g = missing_dag()
    figure = graph_figure(g, feature_names=NAMES)
    hover = next(trace for trace in figure.data if trace.name == "nodes").hovertext
    assert "missing values go: no" in hover[1] and "missing values go" not in hover[0]
    assert hover[2].startswith("<b>#2</b> split: income is not missing")
    digraph = to_networkx(g, feature_names=NAMES)
    assert digraph.edges[1, 4]["condition"] == "income > 0 or missing"
    assert digraph.edges[2, 5]["condition"] == "income is missing"


def test_the_node_inspector_and_the_path_table_mark_the_missing_test():
    g = missing_dag()
    assert node_info(g, 0, feature_names=NAMES).rule == "age <= 0.5 or missing"
    assert node_info(g, 2, feature_names=NAMES).rule == "income is not missing"
    steps = sample_path(g, [0.9, np.nan], feature_names=NAMES)
    assert [(s.node, s.holds, s.missing) for s in steps] == [(0, False, False), (2, False, True), (5, None, False)]
    assert path_table(steps).values.tolist() == [
        [0, "age <= 0.5 or missing", "0.9", "no"],
        [2, "income is not missing", "missing", "no (missing)"],
        [5, "leaf", "", ""],
    ]
    nan_left = sample_path(g, [np.nan, -1.0], feature_names=NAMES)
    assert [(s.node, s.holds) for s in nan_left] == [(0, True), (1, True), (3, None)]


def test_condition_text_never_writes_an_infinite_threshold():
    assert condition_text("age", np.inf, "left") == "age is not missing"
    assert condition_text("age", np.inf, "right", missing=True) == "age is missing"
    assert condition_text("age", 37.5, "left", missing=True) == "age <= 37.5 or missing"


def test_a_node_chart_counts_the_missing_values_it_cannot_place_on_the_axis():
    from tnt.inspect.distributions import node_distribution
    from tnt.inspect.reach import routes
    from tnt.viz.inspection import graph_small_multiples, node_figure

    g = missing_dag()
    X = np.array([[np.nan, -1.0], [0.1, np.nan], [0.9, 1.0], [0.9, np.nan], [0.2, 2.0]])
    y = np.array([0, 1, 1, 1, 0])
    reached = routes(g, X)
    root = node_figure(node_distribution(g, reached, X, y, 0), NAMES, ["a", "b"])
    assert root.layout.title.text == "Node #0: age <= 0.5 or missing, 5 training samples, 1 missing (not drawn)"
    assert sum(sum(trace.y) for trace in root.data) == 4  # the present values, stacked by class
    assert root.layout.shapes[0].x0 == 0.5
    test_of_missingness = node_figure(node_distribution(g, reached, X, y, 2), NAMES, ["a", "b"])
    assert test_of_missingness.layout.title.text.startswith(
        "Node #2: income is not missing, 2 training samples, 1 miss"
    )
    assert not test_of_missingness.layout.shapes  # no threshold to draw
    every = graph_small_multiples(g, reached, X, y, NAMES, ["a", "b"])
    assert "#2 income is not missing" in [a.text for a in every.layout.annotations]


def test_a_split_whose_two_branches_meet_says_which_way_its_test_went():
    g = DecisionGraph([1, -1], [1, -1], [0, -2], [0.5, -2], [[1, 1], [1, 1]], missing_go_to_left=[1, 0])
    assert [sample_path(g, [x])[0].holds for x in (0.2, 0.9, np.nan)] == [True, False, True]


def test_what_if_compares_a_missing_value_with_a_present_one():
    from tnt.inspect.what_if import what_if

    g = missing_dag()
    w = what_if(g, [0.9, np.nan], [0.9, 1.0], NAMES)  # income missing, then present: node 2 turns "yes"
    assert w.original_path == [0, 2, 5] and w.path == [0, 2, 4, 5] and w.changed_tests == [2]
    assert w.table.loc[1, ["before", "value", "goes"]].tolist() == ["missing", "1", "yes"]


def test_a_model_without_directions_does_not_match_data_with_missing_values():
    import json

    import pandas as pd

    from tnt.data.datasets import make_dataset
    from tnt.model_io import model_from_json, model_to_json
    from tnt.services.model_on_data import match_data

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.normal(size=80), "income": rng.normal(size=80)})
    frame["y"] = np.where(frame["age"] > 0, "up", "down")
    frame.loc[::9, "income"] = np.nan
    data = make_dataset(frame, target="y", features=["age", "income"], name="holes.csv")
    doc = json.loads(
        model_to_json(CARTClassifier(max_leaf_nodes=4, random_state=0).fit(frame[["age", "income"]], frame["y"]))
    )
    assert match_data(model_from_json(json.dumps(doc)), data).ok
    doc["graph"]["missing_go_to_left"] = None  # as a file written before missing values were supported
    found = match_data(model_from_json(json.dumps(doc)), data)
    assert not found.ok and found.problem.startswith("The model was saved before missing values were supported")


def test_a_leaf_rule_says_what_it_holds_of_missing_values():
    from tnt.inspect.reach import routes
    from tnt.inspect.rules import leaf_rules, merged_conditions, rule_text

    g = missing_dag()
    assert rule_text(merged_conditions(g, [0, 2, 5]), NAMES) == "age > 0.5 and income is missing"
    assert rule_text(merged_conditions(g, [0, 2, 4, 5]), NAMES) == "age > 0.5 and income is not missing"
    assert (
        rule_text(merged_conditions(g, [0, 1, 4, 6]), NAMES) == "(age <= 0.25 or missing) and (income > 0 or missing)"
    )
    assert rule_text(merged_conditions(g, [0, 1, 3]), NAMES) == "(age <= 0.5 or missing) and income <= 0"
    X = np.array([[0.9, np.nan], [np.nan, np.nan], [0.1, 1.0], [0.9, 2.0]])
    rules = leaf_rules(g, routes(g, X), np.array([1, 0, 0, 1]), feature_names=NAMES).rules
    assert "age > 0.5 and income is missing" in rules["rule"].tolist()


def test_the_counterfactual_search_answers_for_samples_missing_a_tested_feature():
    from tnt.inspect.counterfactual import CounterfactualSpace, counterfactual

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    model = CARTClassifier(max_leaf_nodes=8, random_state=0).fit(X, y)
    assert not model.graph_.is_missing_test.any()
    space = CounterfactualSpace(model.graph_, X)
    assert all(not np.isnan(values).any() for values in space.values.values()) and np.isfinite(space.scales).all()
    present = int(np.flatnonzero(~np.isnan(X).any(axis=1))[0])
    found = counterfactual(space, X[present], 1 - model.predict(X[present : present + 1])[0], budget=2.0)
    assert found.found and model.predict(found.sample[None])[0] != model.predict(X[present : present + 1])[0]
    root = model.graph_.feature[0]
    missing = np.flatnonzero(np.isnan(X[:, root]))[:20]
    for row in missing:
        wanted = 1 - model.predict(X[row : row + 1])[0]
        cf = counterfactual(space, X[row], wanted, budget=2.0)
        assert cf.found and model.predict(cf.sample[None])[0] == wanted
        kept = counterfactual(space, X[row], wanted, budget=2.0, allow_missing_changes=False)
        if kept.found:  # around the tests that would need the missing value filled in
            assert np.isnan(kept.sample[root]) and model.predict(kept.sample[None])[0] == wanted
    assert missing.size == 20
    # A graph that knows nothing of missing values refuses them in one sentence.
    plain = DecisionGraph(model.graph_.children_left, model.graph_.children_right, model.graph_.feature,
                          model.graph_.threshold, model.graph_.value)  # fmt: skip
    with pytest.raises(ValueError, match="^This model was trained without missing values"):
        counterfactual(CounterfactualSpace(plain, X[~np.isnan(X).any(axis=1)]), X[missing[0]], 0)
