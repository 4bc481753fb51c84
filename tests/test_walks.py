"""The walks over a graph's structure (``tnt.learn.walks``): each against networkx on random DAGs,
the ``DecisionGraph`` methods that expose them, and a scan of the sources finding no other copy."""

import ast
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from tnt import DecisionGraph
from tnt.learn import walks

ROOT = Path(__file__).resolve().parent.parent


def random_dag(seed: int, n_splits: int = 30) -> DecisionGraph:
    """A random graph numbered topologically: each split's children have larger ids, some nodes
    shared, some never reached from the root."""
    rng = np.random.default_rng(seed)
    n = 2 * n_splits + 1
    left, right = np.full(n, -1), np.full(n, -1)
    for node in range(n_splits):
        left[node], right[node] = rng.integers(node + 1, n, size=2)
    feature = np.where(left >= 0, 0, -2)
    threshold = np.where(left >= 0, 0.5, -2.0)
    return DecisionGraph(left, right, feature, threshold, np.ones((n, 2)))


def as_networkx(graph: DecisionGraph) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(graph.node_count))
    for node in np.flatnonzero(~graph.is_leaf):
        g.add_edge(int(node), int(graph.children_left[node]))
        g.add_edge(int(node), int(graph.children_right[node]))
    return g


def mask(nodes, n) -> list[bool]:
    out = [False] * n
    for node in nodes:
        out[node] = True
    return out


@pytest.mark.parametrize("seed", range(8))
def test_descendants_and_ancestors_are_networkx_reachability(seed):
    graph = random_dag(seed)
    g = as_networkx(graph)
    n = graph.node_count
    for node in range(0, n, 3):
        assert graph.descendants(node).tolist() == mask({node} | nx.descendants(g, node), n)
        assert graph.ancestors(node).tolist() == mask({node} | nx.ancestors(g, node), n)
    several = [1, 5, 9]
    assert graph.descendants(several).tolist() == mask(set(several).union(*(nx.descendants(g, s) for s in several)), n)
    assert graph.ancestors(several).tolist() == mask(set(several).union(*(nx.ancestors(g, s) for s in several)), n)
    assert graph.reachable().tolist() == mask({0} | nx.descendants(g, 0), n)


@pytest.mark.parametrize("seed", range(8))
def test_ancestors_follow_a_given_order_in_a_graph_numbered_any_way(seed):
    graph = random_dag(seed)
    n = graph.node_count
    shuffle = np.random.default_rng(seed).permutation(n)  # node i of the graph becomes shuffle[i]
    left, right = np.full(n, -1), np.full(n, -1)
    left[shuffle], right[shuffle] = (
        np.where(c >= 0, shuffle[c], -1) for c in (graph.children_left, graph.children_right)
    )
    order = walks.topological_order(left, right, root=shuffle[0])
    reached = graph.reachable()
    for node in np.flatnonzero(reached):
        expected = graph.ancestors(node)[reached]
        assert walks.ancestors(left, right, shuffle[node], order)[shuffle[reached]].tolist() == expected.tolist()
        assert walks.descendants(left, right, shuffle[node])[shuffle].tolist() == graph.descendants(node).tolist()


@pytest.mark.parametrize("seed", range(8))
def test_path_counts_parents_and_order_are_networkx_s(seed):
    graph = random_dag(seed)
    g = as_networkx(graph)
    reached = np.flatnonzero(graph.reachable())
    counts = graph.path_counts()
    leaves = [int(v) for v in np.flatnonzero(graph.is_leaf)]
    for node in reached:
        # networkx counts a split whose two edges lead to one node once; the graph counts both edges
        assert counts[node] == _paths(graph, 0, node)
        assert graph.paths_below()[node] == sum(_paths(graph, node, leaf) for leaf in leaves)
    assert graph.parent_lists() == [sorted(g.predecessors(v)) for v in range(graph.node_count)]
    order = graph.topological_order().tolist()
    assert sorted(order) == reached.tolist()
    assert all(order.index(p) < order.index(c) for p, c in g.subgraph(order).edges)


def _paths(graph: DecisionGraph, a: int, b: int) -> int:
    """Paths from a to b, both edges of a split counted even when they lead to one node."""
    if a == b:
        return 1
    if graph.is_leaf[a]:
        return 0
    return _paths(graph, int(graph.children_left[a]), b) + _paths(graph, int(graph.children_right[a]), b)


def test_path_counts_are_exact_beyond_64_bits():
    n = 70  # a ladder: node i's two edges both lead to i + 1, so 2**i paths reach node i
    left = np.r_[np.arange(1, n), -1]
    graph = DecisionGraph(left, left, np.where(left >= 0, 0, -2), np.where(left >= 0, 0.5, -2), np.ones((n, 2)))
    assert graph.path_counts()[-1] == 2 ** (n - 1)
    assert graph.paths_below()[0] == 2 ** (n - 1)


def test_disjoint_reaches_takes_the_nodes_whose_reach_meets_no_earlier_one_s():
    left, right = np.array([1, 3, 3, -1, -1]), np.array([2, 4, 4, -1, -1])
    assert walks.disjoint_reaches(left, right, np.array([1, 3, 2, 4])).tolist() == [True, False, False, False]
    assert walks.disjoint_reaches(left, right, np.array([3, 4])).tolist() == [True, True]


# ---------------------------------------------------------------------------- one home
#: Names of the walks, which only tnt/learn/walks.py defines (and DecisionGraph's methods calling them).
WALK_NAMES = {
    "ancestors",
    "descendants",
    "disjoint_reaches",
    "parent_lists",
    "path_counts",
    "paths_below",
    "reachable",
    "topological_order",
}
#: Loops over a graph's child arrays that are not walks of its structure: they route samples, fit or
#: prune micro trees, compact a graph being grown, compute a cost along the graph, or choose a tree's
#: splits best-first by their impurity decrease (the CART baseline's max_leaf_nodes on the project's
#: own learner, a priority order rather than a walk).
NOT_WALKS = {
    ("tnt/baselines.py", "_best_first"),
    ("tnt/learn/growth.py", "_fine_tune_round"),
    ("tnt/learn/regression_growth.py", "_fine_tune_round"),
    ("tnt/learn/pruning.py", "kept_splits"),
    ("tnt/learn/pruning.py", "preorder_ids"),
    ("tnt/learn/tree_builder.py", "_preorder"),
    ("tnt/learn/tree_builder.py", "_tighten"),
    ("tnt/learn/tree_builder.py", "pruned_tree"),
    ("tnt/learn/working_graph.py", "_bypass_dead"),
    ("tnt/learn/graph_pruning.py", "freed_splits"),
    ("tnt/learn/size_choice.py", "tree_level_losses"),  # a tree's pruning costs at many levels at once
    ("tnt/reduction.py", "_refit_thresholds"),
}
CHILD_ARRAYS = {"left", "right", "children_left", "children_right"}


def _is_child(node) -> bool:
    """``left[...]``, ``graph.children_right[...]`` and the like."""
    if not isinstance(node, ast.Subscript):
        return False
    array = node.value
    return (array.id if isinstance(array, ast.Name) else getattr(array, "attr", None)) in CHILD_ARRAYS


def _walks_in(function) -> bool:
    """Whether ``function`` has a loop over nodes that indexes an array by a child
    (``reached[left[node]]``) or runs over each node's children (``for child in (left[node],
    right[node])``): a walk."""
    for loop in ast.walk(function):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        for inner in ast.walk(loop):
            if inner is not loop and isinstance(inner, ast.For) and isinstance(inner.iter, ast.Tuple):
                if any(map(_is_child, inner.iter.elts)):
                    return True
            if isinstance(inner, ast.Subscript) and _is_child(inner.slice):
                return True
    return False


def test_no_module_but_walks_walks_a_graph():
    sources = sorted(p for folder in ("tnt", "ui", "app_pages") for p in (ROOT / folder).rglob("*.py"))
    defined, walking = [], []
    for path in sources:
        name = path.relative_to(ROOT).as_posix()
        if name == "tnt/learn/walks.py":
            continue
        text = path.read_text()
        assert "__new__(DecisionGraph)" not in text, name  # a graph is built through its checks
        for function in ast.walk(ast.parse(text)):
            if not isinstance(function, ast.FunctionDef):
                continue
            if function.name.lstrip("_") in WALK_NAMES and name != "tnt/graph.py":
                defined.append((name, function.name))
            if _walks_in(function) and (name, function.name) not in NOT_WALKS:
                walking.append((name, function.name))
    assert defined == [], "walks belong in tnt/learn/walks.py"
    assert walking == [], "walk a graph with tnt.learn.walks (or DecisionGraph's methods)"


def test_the_scan_finds_a_walk():
    copy = """
def reaches(graph, node):
    mask = np.zeros(graph.node_count, dtype=bool)
    for i in range(node, graph.node_count):
        if mask[i]:
            mask[graph.children_left[i]] = True
"""
    other = "def f(left, right):\n    for node in range(9):\n        for child in (left[node], right[node]):\n            print(child)\n"
    assert _walks_in(ast.parse(copy).body[0]) and _walks_in(ast.parse(other).body[0])
    assert not _walks_in(ast.parse("def g(left):\n    return left[0]\n").body[0])


def test_graph_methods_call_the_walks():
    graph_source = (ROOT / "tnt" / "graph.py").read_text()
    methods = {
        f.name: f for f in ast.walk(ast.parse(graph_source)) if isinstance(f, ast.FunctionDef) and f.name in WALK_NAMES
    }
    assert set(methods) == WALK_NAMES - {"disjoint_reaches"}
    for function in methods.values():
        assert not _walks_in(function)
