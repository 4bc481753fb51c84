"""Node sharing explained: the tree a graph stands for, the flows into shared nodes, the drawing."""

import re

import numpy as np
import pytest

from tnt import CARTClassifier, TnTClassifier
from tnt.services.sharing import (
    IncomingEdge,
    edge_flows,
    incoming_edges,
    neighbourhood,
    shared_nodes_table,
    unfold_counts,
)
from tnt.viz.colors import HIGHLIGHT_COLOR, class_palette
from tnt.viz.export_dot import to_dot


def brute_force_tree(graph):
    """Unfold the graph into an explicit tree: a list of (origin node, parent copy) per copy."""
    copies = []

    def visit(node, parent):
        copies.append((node, parent))
        me = len(copies) - 1
        if not graph.is_leaf[node]:
            visit(int(graph.children_left[node]), me)
            visit(int(graph.children_right[node]), me)
        return me

    visit(0, -1)
    return copies


def subtree_splits(graph, copies, root_copy):
    children = {}
    for i, (_, parent) in enumerate(copies):
        children.setdefault(parent, []).append(i)
    count, stack = 0, [root_copy]
    while stack:
        i = stack.pop()
        if not graph.is_leaf[copies[i][0]]:
            count += 1
        stack.extend(children.get(i, []))
    return count


@pytest.mark.parametrize("seed", range(30))
def test_counts_equal_a_brute_force_unfolding(seed, random_dag):
    rng = np.random.default_rng(seed)
    graph = None
    while graph is None:
        graph = random_dag(rng, int(rng.integers(2, 10)))
    copies = brute_force_tree(graph)
    origins = np.array([origin for origin, _ in copies])
    u = unfold_counts(graph)
    assert u.leaves == int(np.sum(graph.is_leaf[origins]))
    assert u.splits == int(np.sum(~graph.is_leaf[origins]))
    for node in range(graph.node_count):
        mine = np.flatnonzero(origins == node)
        assert u.paths_to[node] == mine.size
        assert u.splits_below(node) == subtree_splits(graph, copies, int(mine[0]))
        # Every copy but one repeats the tree below the node.
        extra = sum(subtree_splits(graph, copies, int(i)) for i in mine[1:])
        assert u.saved_by(node) == extra


def test_counts_are_exact_python_ints_for_deep_sharing(fibonacci_ladder):
    k = 80
    u = unfold_counts(fibonacci_ladder(k))
    assert isinstance(u.leaves, int) and u.leaves > 2**53  # beyond what a float holds exactly
    fib = [1, 1]
    for _ in range(k):
        fib.append(fib[-1] + fib[-2])
    assert u.leaves == fib[k + 1]  # leaves below split i: those below i + 1 and below i + 2


def test_a_tree_unfolds_to_itself(pendigits):
    X, y, _, _ = pendigits
    tree = CARTClassifier(max_leaf_nodes=40, random_state=0).fit(X, y).graph_
    u = unfold_counts(tree)
    assert (u.splits, u.leaves) == (tree.n_splits, tree.n_leaves)
    assert set(u.paths_to) == {1}
    assert all(u.saved_by(node) == 0 for node in range(tree.node_count))
    assert shared_nodes_table(tree, edge_flows(tree, X, y)).empty


@pytest.fixture(scope="module")
def tnt_digits(pendigits):
    X, y, _, _ = pendigits
    model = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    return model, X, np.searchsorted(model.classes_, y)


def test_flows_into_every_node_add_up_to_the_samples_reaching_it(tnt_digits):
    model, X, y = tnt_digits
    graph = model.graph_
    flows = edge_flows(graph, X, y)
    for node in range(1, graph.node_count):
        edges = incoming_edges(graph, node, flows)
        assert len({e.parent for e in edges}) == graph.n_parents[node]
        arriving = sum(e.class_counts for e in edges)
        np.testing.assert_allclose(arriving, graph.value[node])
        assert sum(e.samples for e in edges) == graph.n_node_samples[node]


def test_shared_nodes_table_lists_every_shared_node_busiest_first(tnt_digits):
    model, X, y = tnt_digits
    graph = model.graph_
    u = unfold_counts(graph)
    table = shared_nodes_table(graph, edge_flows(graph, X, y), u)
    assert sorted(table["node"]) == graph.shared_nodes.tolist()
    assert table["samples"].is_monotonic_decreasing
    assert (table["samples"] == graph.n_node_samples[table["node"]]).all()
    assert (table["samples_from_other_parents"] <= table["samples"]).all()
    assert (table["parents"] >= 2).all()
    assert u.splits > graph.n_splits  # sharing makes the graph smaller than its tree
    assert all(s == u.saved_by(n) for n, s in zip(table["node"], table["splits_saved"]))


def test_the_drawing_highlights_every_edge_into_the_node(toy_graph):
    node = 4
    edges = [(e.parent, node) for e in incoming_edges(toy_graph, node, np.zeros((7, 2, 2)))]
    assert sorted(edges) == [(1, 4), (2, 4)]
    source = to_dot(toy_graph, highlight_edges=edges, nodes=neighbourhood(toy_graph, node, 1))
    lines = source.splitlines()
    bold = [line for line in lines if "->" in line and HIGHLIGHT_COLOR in line]
    assert sorted(line.split("[")[0].strip() for line in bold) == ["n1 -> n4", "n2 -> n4"]
    # Node 0 is not in the neighbourhood of node 4: it is a stub (its id only).
    assert 'n0 [label="#0"' in source and "stub0" in source


def test_the_chart_of_incoming_edges_has_one_bar_per_edge_busiest_first(tnt_digits):
    from ui.drawing import BAR_ROW_PX, incoming_figure

    model, X, y = tnt_digits
    graph = model.graph_
    flows = edge_flows(graph, X, y)
    node = int(graph.shared_nodes[np.argmax(graph.n_parents[graph.shared_nodes])])
    edges = incoming_edges(graph, node, flows)
    assert len(edges) >= 3
    names = [str(c) for c in model.classes_]
    fig = incoming_figure(edges, names)
    samples, *shares = fig.data
    busiest = sorted(edges, key=lambda e: -e.samples)
    assert list(samples.x) == [e.samples for e in busiest] and sum(samples.x) == graph.n_node_samples[node]
    assert [label.split()[0] for label in samples.y] == [f"#{e.parent}" for e in busiest]
    assert [t.name for t in shares] == names  # class order, the bar's stacking order too
    assert [t.marker.color for t in shares] == class_palette(len(names))
    total = np.sum([t.x for t in shares], axis=0)
    np.testing.assert_allclose(total, 100.0)
    assert fig.layout.barmode == "stack" and fig.layout.yaxis.autorange == "reversed"
    # Its height grows with the number of edges: the page scrolls it in a frame beyond a maximum.
    assert fig.layout.height == BAR_ROW_PX * len(edges) + 100
    assert incoming_figure(edges[:1], names).layout.height < fig.layout.height


def test_the_chart_of_incoming_edges_of_a_regression_graph_shows_samples_only():
    from ui.drawing import incoming_figure

    edges = [
        IncomingEdge(2, "left", "a very long feature name of a data set <= 1.5", np.array([5.0])),
        IncomingEdge(7, "right", "b > 3", np.array([9.0])),
        IncomingEdge(9, "left", "c <= 0", np.array([5.0])),
    ]
    (samples,) = incoming_figure(edges, None).data
    assert list(samples.x) == [9, 5, 5] and list(samples.text) == ["9", "5", "5"]
    assert samples.y[0] == "#7  b > 3" and samples.y[1].startswith("#2  a very long") and samples.y[1].endswith("…")
    assert "a very long feature name of a data set &lt;= 1.5" in samples.customdata[1][0]  # whole in the hover


def test_class_shares_legend_is_in_class_order_and_never_breaks_inside_an_entry():
    from ui.drawing import class_shares_html

    page = class_shares_html({"0": 20, "1": 0, "2": 1533, "3": 7.5})
    bar, legend = page.split("</div>", 1)
    # The bar and the legend in the same (class) order, classes without samples left out.
    assert [bar.index(f'title="{c}:') for c in "023"] == sorted(bar.index(f'title="{c}:') for c in "023")
    entries = re.findall(r'<span style="white-space:nowrap[^"]*">(.*?)</span></span>', legend)
    assert [re.sub("<[^>]+>", "", e).replace("&#9632;", "").strip() for e in entries] == [
        "0: 20 (1%)",
        "2: 1,533 (98%)",
        "3: 7.5 (0%)",
    ]
    assert "&nbsp;" not in legend and ", " not in legend  # lines break between entries only


def test_the_svg_panel_opens_centred_on_the_chosen_node(toy_graph):
    from tnt.viz.render import render
    from ui.drawing import svg_page

    svg = render(to_dot(toy_graph, show_ids=True, nodes=neighbourhood(toy_graph, 4, 1)), "svg")
    assert b'id="node4"' in svg  # the element the script looks for
    page, height = svg_page(svg, focus=4)
    assert page.startswith("<!DOCTYPE html>") and "<?xml" not in page and height == 720
    script = page[page.index("<script>") :]
    assert "getElementById('node4')" in script and "scrollTo" in script and "innerHeight" in script
    assert "getElementById('node0')" in svg_page(svg)[0]  # the root by default (the Graph page)
    assert "<script>" not in svg_page(svg, focus=None)[0]
    assert svg_page(svg, fit=True)[1] <= 720
