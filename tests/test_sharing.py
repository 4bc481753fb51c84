"""Node sharing explained: the tree a graph stands for, the flows into shared nodes, the drawing."""

import numpy as np
import pytest

from tnt import CARTClassifier, TnTClassifier
from tnt.experiments.sharing import (
    edge_flows,
    incoming_edges,
    neighbourhood,
    shared_nodes_table,
    unfold_counts,
)
from tnt.viz.colors import HIGHLIGHT_COLOR
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
