"""DOT export: golden output, every node once, shared-node marking, windows, highlights, escaping."""

import re

import numpy as np
import pytest

from tnt.viz.colors import HIGHLIGHT_COLOR, MIXED_COLOR, MIXED_LABEL
from tnt.viz.export_dot import to_dot

GOLDEN_DOT = r"""digraph decision_graph {
	graph [nodesep=0.25 ordering=out rankdir=TB ranksep=0.45]
	node [fontname="DejaVu Sans" fontsize=11 penwidth=1.2 shape=box style="rounded,filled"]
	edge [arrowsize=0.6 color="#555555" fontcolor="#555555" fontname="DejaVu Sans" fontsize=9]
	n0 [label="#0\npetal width <= 0.5\nsamples = 10" color="#f28e2b" fillcolor="#f7bb80" id=node0]
	n1 [label="#1\npetal length <= 1.5\nsamples = 5" color="#f28e2b" fillcolor="#f7bb80" id=node1]
	n2 [label="#2\npetal length <= 2.5\nsamples = 5" color="#59a14f" fillcolor="#9bc795" id=node2]
	n3 [label="#3\nsetosa\nsamples = 3" color="#f28e2b" fillcolor="#f7bb80" id=node3]
	n4 [label="#4\npetal width <= 0.25\nsamples = 4\nshared by 2 parents" color="#2563eb" fillcolor="#7ca1f3" id=node4 peripheries=2]
	n5 [label="#5\nsetosa\nsamples = 1" color="#f28e2b" fillcolor="#f7bb80" id=node5]
	n6 [label="#6\nother\nsamples = 3\nshared by 2 parents" color="#59a14f" fillcolor="#9bc795" id=node6 peripheries=2]
	n0 -> n1 [label=yes]
	n0 -> n2 [label=no style=dashed]
	n1 -> n3 [label=yes]
	n1 -> n4 [label=no style=dashed]
	n2 -> n4 [label=yes]
	n2 -> n6 [label=no style=dashed]
	n4 -> n5 [label=yes]
	n4 -> n6 [label=no style=dashed]
}
"""

HOSTILE_FEATURES = ['a"b', "x}y", "<script>alert(1)</script>", "back\\slash\\"]
HOSTILE_CLASSES = ["two\nlines", "&amp; {node} \\N"]


def node_statements(source):
    return re.findall(r"^\t(n\d+) \[", source, flags=re.M)


def test_golden_dot_of_a_graph_with_shared_nodes(toy_graph):
    source = to_dot(
        toy_graph, feature_names=["petal width", "petal length"], class_names=["setosa", "other"], show_ids=True
    )
    assert source == GOLDEN_DOT


def test_every_node_is_drawn_exactly_once(toy_graph):
    names = node_statements(to_dot(toy_graph))
    assert sorted(names) == [f"n{i}" for i in range(toy_graph.node_count)]


def test_shared_nodes_have_a_double_border_and_a_note(toy_graph):
    source = to_dot(toy_graph)
    marked = re.findall(r"^\tn(\d+) \[.*peripheries=2", source, flags=re.M)
    assert [int(i) for i in marked] == toy_graph.shared_nodes.tolist() == [4, 6]
    assert source.count("shared by 2 parents") == 2


def test_mixed_node_is_blue(toy_graph):
    line = next(row for row in to_dot(toy_graph).splitlines() if row.startswith("\tn4 ["))
    assert f'color="{MIXED_COLOR}"' in line


def test_the_legend_names_every_class_and_the_mixed_colour_as_the_other_views_do(toy_graph):
    dot = to_dot(toy_graph, class_names=["setosa", "other"], legend=True)
    legend = dot[dot.index("subgraph legend") :]
    assert "label=setosa " in legend and "label=other " in legend
    assert f'[label="{MIXED_LABEL}" color="{MIXED_COLOR}"' in legend


def test_options_change_labels(toy_graph):
    plain = to_dot(toy_graph, show_samples=False, precision=1, rankdir="LR")
    assert "samples" not in plain and "rankdir=LR" in plain and "x[0] <= 0.2\\n" in plain
    shares = to_dot(toy_graph, show_shares=True, class_names=["a", "b"])
    assert "a 60%, b 40%" in shares and "a 50%, b 50%" in shares


def test_depth_window_shows_layers_with_stubs(toy_graph):
    # node_depth: [0, 1, 1, 2, 2, 3, 3]
    source = to_dot(toy_graph, depth_window=(1, 2))
    assert sorted(re.findall(r"id=node(\d+)", source)) == ["1", "2", "3", "4"]
    assert sorted(re.findall(r"id=stub(\d+)", source)) == ["0", "5", "6"]
    assert "n0 -> n1" in source and "n2 -> n6" in source and "n4 -> n5" in source


def test_bad_options_are_rejected(toy_graph):
    with pytest.raises(ValueError, match="depth_window"):
        to_dot(toy_graph, depth_window=(2, 1))
    with pytest.raises(ValueError, match="rankdir"):
        to_dot(toy_graph, rankdir="XY")
    with pytest.raises(ValueError, match="class_names has 3 names"):
        to_dot(toy_graph, class_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="feature_names has 1 names"):
        to_dot(toy_graph, feature_names=["a"])


def test_highlighted_sample_path_is_bold_and_red(toy_graph):
    source = to_dot(toy_graph, highlight_sample=np.array([0.3, 2.0]))  # 0 -> 1 -> 4 -> 6
    bold_nodes = re.findall(rf'^\tn(\d+) \[.*color="{HIGHLIGHT_COLOR}".*penwidth=3', source, flags=re.M)
    bold_edges = re.findall(rf'^\tn(\d+) -> n(\d+) \[color="{HIGHLIGHT_COLOR}" .*penwidth=3', source, flags=re.M)
    assert bold_nodes == ["0", "1", "4", "6"]
    assert bold_edges == [("0", "1"), ("1", "4"), ("4", "6")]


def test_highlighted_nodes_get_a_bold_border_and_no_edge_is_bold(toy_graph):
    source = to_dot(toy_graph, highlight_nodes=[2, 5])
    bold_nodes = re.findall(rf'^\tn(\d+) \[.*color="{HIGHLIGHT_COLOR}".*penwidth=3', source, flags=re.M)
    assert bold_nodes == ["2", "5"]
    assert not re.findall(rf"-> n\d+ \[color=\"{HIGHLIGHT_COLOR}\"", source)


def test_hostile_names_are_escaped_in_dot(toy_graph):
    import pygraphviz

    source = to_dot(toy_graph, feature_names=HOSTILE_FEATURES[:2], class_names=HOSTILE_CLASSES)
    assert 'label="a\\"b <= 0.5\\nsamples = 10"' in source
    assert "two\\nlines" in source and "&amp;amp; {node} \\\\N" in source
    parsed = pygraphviz.AGraph(string=source)  # valid DOT: Graphviz's own parser reads it back
    assert parsed.number_of_nodes() == toy_graph.node_count
    assert parsed.get_node("n0").attr["label"] == 'a"b <= 0.5\\nsamples = 10'


def test_html_looking_names_never_become_html_labels(toy_graph):
    source = to_dot(toy_graph, show_samples=False, feature_names=["<b>", "<i>"], class_names=["<x>", "<y>"])
    assert "label=<" not in source
    assert 'label="<x>"' in source


def test_node_and_edge_lines_are_the_ones_graphviz_writes():
    # to_dot writes its node and edge lines itself (graphviz's per-call handling took most of the
    # time of a large graph); they must stay what graphviz's own node() and edge() write.
    import graphviz

    from tnt.viz.export_dot import _add_node, _attributes

    labels = [graphviz.nohtml('a "quoted" <b>\\\\n</b> label'), "#12", "node", "plain"]
    attrs = {"fillcolor": "#a1b2c3", "id": "node7", "peripheries": "2", "style": "", "xlabel": "graph", "color": "x y"}
    for label in labels:
        ours, theirs = graphviz.Digraph(), graphviz.Digraph()
        _add_node(ours, "n7", label, attrs)
        theirs.node("n7", label=label, **attrs)
        ours.body.append(f"\tn1 -> n7{_attributes(None, attrs)}\n")
        theirs.edge("n1", "n7", **attrs)
        assert ours.source == theirs.source


def test_ids_to_show_can_be_given_per_node():
    """An edited graph is drawn with the ids a person saw before the edits (EditStep.original_ids)."""
    from tnt import DecisionGraph

    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    source = to_dot(g, show_ids=[0, 4, 9])
    assert '"#4\\n' in source and '"#9\\n' in source and '"#1\\n' not in source and '"#2\\n' not in source
    assert all(f'"#{n}\\n' in to_dot(g, show_ids=True) for n in range(3)) and '"#0\\n' not in to_dot(g)


def edge_label_boxes(dot_source: str) -> list[tuple[str, float, float, float, float]]:
    """Where Graphviz's dot writes each edge label (its text and box), read from its JSON output."""
    import json

    import pygraphviz

    laid = json.loads(pygraphviz.AGraph(string=dot_source).draw(format="json", prog="dot"))
    boxes = []
    for edge in laid.get("edges", []):
        for key in ("_ldraw_", "_xldraw_"):
            size = 14.0
            for op in edge.get(key, []):
                if op["op"] == "F":
                    size = op["size"]
                elif op["op"] == "T":
                    x, y = op["pt"]
                    left = x - op["width"] / 2 if op["align"] == "c" else x if op["align"] == "l" else x - op["width"]
                    boxes.append((op["text"], left, y - size * 0.25, left + op["width"], y + size * 0.8))
    return boxes


def test_edge_labels_never_overlap_where_edges_meet():
    """Edge labels are laid out with the graph (``label``), not placed afterwards (``xlabel``), which
    wrote "yes" against "no, or missing" where two edges met (the editor's drawing of issue 54)."""
    from sklearn.datasets import make_classification

    from tnt import TnTClassifier

    X, y = make_classification(n_samples=600, n_features=6, n_informative=4, random_state=0)
    X[np.random.default_rng(0).random(X.shape) < 0.15] = np.nan
    model = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    boxes = edge_label_boxes(to_dot(model.graph_, show_ids=True))
    assert len(boxes) == 2 * model.graph_.n_splits and any("or missing" in b[0] for b in boxes)
    for i, (text_a, *a) in enumerate(boxes):
        for text_b, *b in boxes[i + 1 :]:
            apart = max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])  # the gap between the boxes
            # With xlabels this graph had "yes" 1.8 pt from "no, or missing"; with labels, at least 36 pt.
            assert apart >= 4, f"{text_a!r} and {text_b!r} touch ({apart:.1f} pt apart)"
