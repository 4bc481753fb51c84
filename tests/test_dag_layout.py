"""The layered layout made for DAGs (``tnt.viz.dag_layout``): dummy nodes for long edges, no overlaps,
edges routed between boxes, crossings counted exactly (against a pair-by-pair count) and fewer than
the older layout's on real graphs. Its speed: benchmarks/graph_layout.py."""

import itertools

import numpy as np
import pytest

from tnt import DecisionGraph, TnTClassifier
from tnt.viz.dag_layout import dag_layout, inversions, polyline_crossings
from tnt.viz.layout import count_crossings, layered_layout


def pairwise_crossings(layout) -> int:
    """Crossings of the layout's edges drawn through their routes, pair of segments by pair."""
    segments = []  # (upper layer, x on it, x on the layer below)
    for e in range(layout.parent.size):
        points = layout.route(e)
        segments += [(top, x0, x1) for (x0, top), (x1, _) in itertools.pairwise(points)]
    return sum(
        1 for (g, a0, a1), (h, b0, b1) in itertools.combinations(segments, 2) if g == h and (a0 - b0) * (a1 - b1) < 0
    )


def boxes_by_layer(layout, widths):
    """Per layer, every box ``(left, right)``: the nodes', and a dummy's channel for each passing edge."""
    found = {}
    for node in np.flatnonzero(layout.layer >= 0):
        found.setdefault(int(layout.layer[node]), []).append((layout.x[node] - widths[node] / 2,
                                                              layout.x[node] + widths[node] / 2, ("node", node)))  # fmt: skip
    for e in range(layout.parent.size):
        for x, level in layout.route(e)[1:-1]:
            found.setdefault(level, []).append((x, x, ("edge", e)))
    return found


@pytest.fixture(scope="module")
def optdigits_graph(optdigits):
    X, y, _, _ = optdigits
    return TnTClassifier(C=3e-4, random_state=0).fit(X, y).graph_


def test_inversions_and_crossings_match_a_pair_by_pair_count():
    rng = np.random.default_rng(0)
    for size in (0, 1, 2, 7, 64, 301):
        values = rng.integers(0, 9, size)
        expected = sum(1 for i, j in itertools.combinations(range(size), 2) if values[i] > values[j])
        assert inversions(values) == expected
    gap, top, bottom = rng.integers(0, 4, 200), rng.integers(0, 12, 200), rng.integers(0, 12, 200)
    expected = sum(
        1
        for i, j in itertools.combinations(range(200), 2)
        if gap[i] == gap[j] and (top[i] - top[j]) * (bottom[i] - bottom[j]) < 0
    )
    assert polyline_crossings(gap, top.astype(float), bottom.astype(float)) == expected


def test_a_tree_is_drawn_without_crossings_yes_on_the_left():
    # Node 1's children are numbered after node 2's: id order alone would cross them.
    g = DecisionGraph([1, 5, 3, -1, -1, -1, -1], [2, 6, 4, -1, -1, -1, -1], [0, 0, 0, -2, -2, -2, -2],
                      [0.5, 0.2, 0.8, -2, -2, -2, -2], np.ones((7, 2)))  # fmt: skip
    layout = dag_layout(g, widths=np.full(7, 30.0), gap=10)
    assert layout.crossings == 0 == pairwise_crossings(layout)
    x = layout.x
    assert x[5] < x[6] < x[3] < x[4] and x[1] < x[2]  # each yes child left of its no child


def test_long_edges_pass_between_the_boxes_of_the_layers_they_cross(toy_graph):
    widths = np.array([80.0, 60, 60, 40, 70, 30, 30])
    layout = dag_layout(toy_graph, widths=widths, gap=8)
    assert layout.layer.tolist() == toy_graph.node_depth().tolist()
    long = [e for e in range(layout.parent.size) if layout.layer[layout.child[e]] - layout.layer[layout.parent[e]] > 1]
    assert [(int(layout.parent[e]), int(layout.child[e])) for e in long] == [(2, 6)]
    (e,) = long
    assert len(layout.route(e)) == 3  # through one dummy on layer 2
    for level, boxes in boxes_by_layer(layout, widths).items():
        boxes.sort()
        for (_, right, a), (left, _, b) in itertools.pairwise(boxes):
            assert left - right >= 8 - 1e-9, (level, a, b)  # apart by the gap at least


@pytest.mark.parametrize("which", ["optdigits", "random"])
def test_no_two_boxes_overlap_and_crossings_are_counted_right(which, optdigits_graph, big_random_graph):
    graph = optdigits_graph if which == "optdigits" else big_random_graph
    rng = np.random.default_rng(1)
    widths = rng.uniform(20, 160, graph.node_count)
    every = np.ones(graph.node_count, dtype=bool)  # the random graph's root reaches few of its nodes
    layout = dag_layout(graph, widths=widths, gap=10, nodes=every)
    parent, child = layout.parent, layout.child
    assert np.all(layout.layer[child] > layout.layer[parent])  # every edge points down
    for boxes in boxes_by_layer(layout, widths).values():
        boxes.sort()
        lefts, rights = np.array([b[0] for b in boxes]), np.array([b[1] for b in boxes])
        assert np.all(lefts[1:] - rights[:-1] >= 10 - 1e-6)  # no overlap, and room for every edge
    assert np.min(layout.x - widths / 2) >= -1e-6 and np.max(layout.x + widths / 2) <= layout.width + 1e-6
    if which == "optdigits":  # the pair-by-pair count is quadratic: the smaller graph
        assert layout.crossings == pairwise_crossings(layout)


def test_fewer_crossings_than_the_layered_layout_on_real_graphs(optdigits_graph, big_random_graph):
    for graph in (optdigits_graph, big_random_graph):
        old = count_crossings(graph, *layered_layout(graph))
        assert dag_layout(graph, nodes=np.ones(graph.node_count, dtype=bool)).crossings < old


def test_layers_are_the_longest_path_between_laid_nodes_or_the_ones_given(big_random_graph):
    g = big_random_graph
    left, right = g.children_left.tolist(), g.children_right.tolist()
    rng = np.random.default_rng(2)
    laid = rng.random(g.node_count) < 0.6
    # Walked here edge by edge, in id order (a parent's id is less than its children's).
    expected = [0] * g.node_count
    for p in range(g.node_count):
        if laid[p] and left[p] >= 0:
            for c in (left[p], right[p]):
                if laid[c]:
                    expected[c] = max(expected[c], expected[p] + 1)
    layout = dag_layout(g, nodes=laid)
    assert layout.layer[laid].tolist() == [expected[n] for n in np.flatnonzero(laid)]
    assert max(expected) >= 5 and (layout.layer[~laid] == -1).all()
    every = np.ones(g.node_count, dtype=bool)
    given = dag_layout(g, nodes=every, layers=g.node_depth())
    assert given.layer.tolist() == g.node_depth().tolist() == dag_layout(g, nodes=every).layer.tolist()
    deeper = dag_layout(g, nodes=every, layers=2 * g.node_depth())  # a caller's layers are kept, gaps and all
    assert deeper.layer.tolist() == (2 * g.node_depth()).tolist() and deeper.route_x.size > given.route_x.size
    with pytest.raises(ValueError, match="layers must put every laid node below each of its laid parents"):
        dag_layout(g, nodes=every, layers=np.zeros(g.node_count, dtype=int))
