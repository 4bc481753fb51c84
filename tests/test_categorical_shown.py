"""A categorical split reads ``colour in {blue, red}`` (or ``not in``, whichever is shorter) in every
text: the text export, DOT drawings, a node's rule, a sample's path and the rules of the leaves."""

import numpy as np
import pytest
from test_categorical_graph import colour_graph

from tnt import DecisionGraph
from tnt.inspect.path import goes_left, path_table, rule, sample_path
from tnt.inspect.reach import routes
from tnt.inspect.rules import Categories, leaf_rules, merged_conditions, rule_text
from tnt.viz.export_dot import to_dot
from tnt.viz.export_text import export_text
from tnt.wording import categories_text

NAMES = ["colour", "size"]


@pytest.mark.parametrize(
    "names_in, names_out, missing, expected",
    [
        (["blue", "red"], ["green"], False, "colour not in {green}"),
        (["green"], ["blue", "red"], False, "colour in {green}"),
        (["a"], ["b"], True, "colour in {a} or missing"),  # equal lengths: "in"
        ([f"c{i}" for i in range(10)], [f"d{i}" for i in range(12)], False,
         "colour in {c0, c1, c2, c3, c4, c5, c6, c7, … and 2 more}"),
    ],
)  # fmt: skip
def test_the_shorter_of_in_and_not_in(names_in, names_out, missing, expected):
    assert categories_text("colour", names_in, names_out, missing=missing) == expected


def test_the_text_export_names_the_categories():
    g = colour_graph(missing_in_training=True)
    assert export_text(g, feature_names=NAMES) == (
        "|--- colour not in {green} or missing\n"
        "|   |--- size <= 0.5\n"
        "|   |   |--- class: 0\n"
        "|   |--- size > 0.5 or missing\n"
        "|   |   |--- class: 1\n"
        "|--- colour in {green}\n"
        "|   |--- class: 0\n"
    )


def test_a_drawing_names_the_categories():
    dot = to_dot(colour_graph(), feature_names=NAMES)
    assert 'n0 [label="colour not in {green}\\nsamples = 0"' in dot
    assert rule(colour_graph(), 0, NAMES) == "colour not in {green}"


def test_a_sample_path_shows_the_category_by_name():
    g = colour_graph()
    assert path_table(sample_path(g, [2, 0.2], NAMES)).values.tolist() == [
        [0, "colour not in {green}", "red", "yes"],
        [1, "size <= 0.5", "0.2", "yes"],
        [3, "leaf", "", ""],
    ]
    # an unseen code goes as a missing value does, and the step says so
    assert path_table(sample_path(g, [7, 0.7], NAMES)).values.tolist()[0] == [
        0, "colour not in {green} or missing", "missing", "yes (missing)"
    ]  # fmt: skip
    assert [goes_left(g, 0, v) for v in (0.0, 1.0, 2.0, np.nan, 9.0)] == [True, False, True, True, True]


def test_rules_merge_the_subsets_along_a_path():
    # colour in {blue, red} (missing left), then colour not in {red} (missing right): blue or missing
    g = DecisionGraph(
        [1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 0, -2, -2, -2], [np.nan, np.nan, -2, -2, -2],
        [[4, 2], [3, 1], [1, 1], [3, 0], [0, 1]], missing_go_to_left=[1, 0, 0, 0, 0],
        categories={0: ["blue", "green", "red"]}, category_left=[[0, 2], [2], None, None, None],
        missing_in_training=True,
    )  # fmt: skip
    box = merged_conditions(g, [0, 1, 4])
    assert box == {0: (Categories(("blue", "green", "red"), frozenset({0})), "or missing")}
    assert rule_text(box, ["colour"]) == "colour in {blue} or missing"
    assert rule_text(merged_conditions(g, [0, 1, 3]), ["colour"]) == "colour in {red}"
    assert rule_text(merged_conditions(g, [0, 2]), ["colour"]) == "colour in {green}"
    assert rule_text(merged_conditions(g, [0, 1]), ["colour"]) == "colour not in {green} or missing"
    X = np.array([[0.0], [2.0], [1.0], [np.nan]])
    table = leaf_rules(g, routes(g, X), [1, 0, 0, 0], feature_names=["colour"], class_names=["n", "p"]).rules
    assert table[["leaf", "rule", "train_samples"]].values.tolist() == [
        [3, "colour in {red}", 1],
        [2, "colour in {green}", 1],
        [4, "colour in {blue} or missing", 2],
    ]


def test_a_path_no_category_takes_reads_is_missing():
    # colour in {blue, red} or missing at #0, then the same subset without missing at #1: no category
    # takes "yes" at #0 and "no" at #1, only a missing value does.
    g = DecisionGraph(
        [1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 0, -2, -2, -2], [np.nan, np.nan, -2, -2, -2],
        [[4, 2], [3, 1], [1, 1], [3, 0], [0, 1]], missing_go_to_left=[1, 0, 0, 0, 0],
        categories={0: ["blue", "green", "red"]}, category_left=[[0, 2], [0, 2], None, None, None],
        missing_in_training=True,
    )  # fmt: skip
    assert rule_text(merged_conditions(g, [0, 1, 4]), ["colour"]) == "colour is missing"
    assert rule_text(merged_conditions(g, [0, 1, 3]), ["colour"]) == "colour not in {green}"
    X = np.array([[0.0], [2.0], [np.nan]])
    assert routes(g, X).leaves.tolist() == [3, 3, 4]  # the missing value is the only one to reach leaf 4


def test_what_if_shows_the_categories_before_and_after_by_name():
    from tnt.inspect.what_if import what_if

    w = what_if(colour_graph(), [1, 0.2], [2, 0.2], NAMES)
    assert w.changed_tests == [0] and w.path == [0, 1, 3]
    assert w.table[["test", "before", "value", "goes"]].values.tolist()[0] == [
        "colour not in {green}", "green", "red", "yes"
    ]  # fmt: skip
    unseen = what_if(colour_graph(), [1, 0.2], [9, 0.2], NAMES)
    assert unseen.table[["before", "value", "goes"]].values.tolist()[0] == ["green", "missing", "yes"]


def test_the_node_inspector_draws_a_bar_per_category():
    from tnt.inspect.distributions import node_distribution
    from tnt.viz.inspection import graph_small_multiples, node_figure

    g = colour_graph()
    X = np.array([[0, 0.1], [0, 0.9], [1, 0.1], [2, 0.9], [np.nan, 0.1], [7, 0.1]])
    y = np.array([0, 1, 0, 1, 1, 0])
    dist = node_distribution(g, routes(g, X), X, y, 0)
    assert dist.categories == ("blue", "green", "red") and dist.category_left == frozenset({0, 2})
    assert np.isnan(dist.values[-2:]).all()  # missing, and the unseen code 7
    fig = node_figure(dist, NAMES, ["n", "p"])
    # missing values reach it, so the rule says where they (and the unseen category) go
    assert (
        fig.layout.title.text == "Node #0: colour not in {green} or missing, 6 training samples, 2 missing (not drawn)"
    )
    # blue and red ("yes") first, then green; the line between them
    assert list(fig.layout.xaxis.ticktext) == ["blue", "red", "green"] and fig.layout.shapes[0].x0 == 1.5
    bars = {t.name: list(t.y) for t in fig.data}
    assert bars == {"n": [1, 0, 1], "p": [1, 1, 0]}
    multiples = graph_small_multiples(g, routes(g, X), X, y, NAMES, ["n", "p"])
    assert multiples.layout.annotations[0].text == "#0 colour not in {green} or missing"


def test_networkx_names_the_categories_sent_left():
    from tnt.viz.export_networkx import to_networkx

    nodes = to_networkx(colour_graph(), feature_names=NAMES).nodes
    assert nodes[0]["categories_left"] == ["blue", "red"] and nodes[0]["threshold"] is None
    assert nodes[0]["rule"] == "colour not in {green}"
    assert nodes[1]["categories_left"] is None and nodes[1]["threshold"] == 0.5
