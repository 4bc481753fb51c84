"""Installs into a working graph: a micro tree installed again in the node holding it is not
written again, and the graph is the one a new write would give."""

import numpy as np
from growth_helpers import one_split_graph
from test_missing_growth import micro_tree

from tnt.learn.working_graph import WorkingGraph, compact

START = one_split_graph(missing_go_to_left=[0, 0, 0])


def _tree():
    """Two splits and three leaves (labels 0, 1, 1)."""
    return micro_tree([1, 2, -1, -1, -1], [4, 3, -1, -1, -1], [1, 2, -2, -2, -2], [1.5, 0.5, -2, -2, -2],
                      [0, 0, 0, 0, 0], [-1, -1, 0, 1, 1])  # fmt: skip


def _state(graph: WorkingGraph) -> list:
    n = graph.size
    return [getattr(graph, name)[:n].tolist() for name in ("left", "right", "feature", "threshold", "label")]


def test_the_same_tree_installed_again_writes_nothing():
    graph, tree = WorkingGraph(START), _tree()
    graph.install_leaf_tree(1, tree)
    graph.install_split_tree(0, tree)
    before = _state(graph)
    graph.install_leaf_tree(1, tree)
    graph.install_split_tree(0, tree)
    assert _state(graph) == before


def test_an_equal_tree_that_is_another_object_is_written_again_as_the_same_graph():
    X = np.random.default_rng(0).uniform(0, 3, size=(200, 3))
    graph, again = WorkingGraph(START), WorkingGraph(START)
    graph.install_leaf_tree(1, _tree())
    again.install_leaf_tree(1, _tree())
    again.install_leaf_tree(1, _tree())
    assert again.size == graph.size + 4  # a leaf's tree of five nodes takes four new slots
    one, two = compact(graph, X), compact(again, X)
    for name in ("children_left", "children_right", "feature", "threshold", "label"):
        assert np.array_equal(getattr(one, name), getattr(two, name))


def test_after_a_reset_or_a_restore_the_tree_is_written_again():
    graph, tree = WorkingGraph(START), _tree()
    saved = graph.slot(0)
    graph.install_split_tree(0, tree)
    graph.reset(0)
    assert graph.feature[0] == 0 and graph.threshold[0] == 0.5  # the phase-start split
    graph.install_split_tree(0, tree)
    assert graph.feature[0] == 1 and graph.threshold[0] == 1.5  # the tree's root
    graph.restore(0, saved)
    graph.install_split_tree(0, tree)
    assert graph.feature[0] == 1 and graph.threshold[0] == 1.5
    graph.reset(1)  # another node's reset leaves node 0's tree installed
    size = graph.size
    graph.install_split_tree(0, tree)
    assert graph.size == size
