"""Layered layout: layers by longest path, crossings reduced by barycenter sweeps, fast on big graphs."""

import numpy as np

from tnt import DecisionGraph, TnTClassifier
from tnt.viz.layout import count_crossings, edge_list, layered_layout


def crossed_tree():
    """Node 1's children are numbered after node 2's, so id order draws four crossings."""
    return DecisionGraph(
        children_left=[1, 5, 3, -1, -1, -1, -1],
        children_right=[2, 6, 4, -1, -1, -1, -1],
        feature=[0, 0, 0, -2, -2, -2, -2],
        threshold=[0.5, 0.2, 0.8, -2, -2, -2, -2],
        value=[[4, 4], [2, 2], [2, 2], [1, 1], [1, 1], [1, 1], [1, 1]],
    )


def test_nodes_sit_on_their_longest_path_layer(toy_graph):
    x, y = layered_layout(toy_graph)
    assert (-y).tolist() == toy_graph.node_depth().tolist() == [0, 1, 1, 2, 2, 3, 3]
    parent, child, _ = edge_list(toy_graph)
    assert np.all(y[child] < y[parent])  # every edge points down


def test_sweeps_remove_crossings_that_id_order_draws():
    graph = crossed_tree()
    y = -graph.node_depth().astype(float)
    unswept, _ = layered_layout(graph, sweeps=0)
    swept, _ = layered_layout(graph, sweeps=2)
    assert count_crossings(graph, unswept, y) == 4
    assert count_crossings(graph, swept, y) == 0


def test_yes_branch_stays_left_of_no_branch():
    x, _ = layered_layout(crossed_tree(), sweeps=2)
    assert x[5] < x[6] and x[3] < x[4] and x[1] < x[2]


def test_nodes_of_a_layer_never_overlap(optdigits):
    X, y, _, _ = optdigits
    graph = TnTClassifier(C=3e-3, N1=2, N2=2, random_state=0).fit(X, y).graph_
    x, ys = layered_layout(graph)
    for level in np.unique(ys):
        xs = np.sort(x[ys == level])
        assert np.all(np.diff(xs) > 0.5)
    assert count_crossings(graph, x, ys) <= count_crossings(graph, *layered_layout(graph, sweeps=0))


def test_layout_of_fifteen_hundred_nodes(big_random_graph):  # its speed: benchmarks/limits.py
    x, y = layered_layout(big_random_graph)
    assert np.isfinite(x).all() and x.shape == (big_random_graph.node_count,) == (1501,)
    assert count_crossings(big_random_graph, x, y) <= count_crossings(
        big_random_graph, *layered_layout(big_random_graph, sweeps=0)
    )
