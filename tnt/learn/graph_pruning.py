"""Weakest-link (minimal cost-complexity) pruning of a finished decision graph, the graph analogue of
CART's ``ccp_alpha``.

A graph's cost at level ``alpha`` is ``R(G) + alpha * |splits|``, ``R`` the weighted impurity of its
leaves on the training data as a share of the total weight (Gini for a classifier, squared error of
the standardised targets for a regressor: the units of TnT's ``C``). Collapsing an internal node
``t`` into a leaf sends the samples reaching it to that leaf and frees the splits only ``t`` reaches
(``t`` and the nodes it dominates); a node below ``t`` that another path reaches stays, with fewer
samples. Pruning collapses, one at a time, the node whose collapse costs least impurity per split
freed, while that cost is at most ``alpha``. In a tree every node dominates its whole subtree and
this is scikit-learn's minimal cost-complexity pruning (``tests/test_graph_pruning.py``).

In a graph a collapse can lower the impurity: a leaf shared by several parents holds samples of
all of them, and the samples of one may be better served by a leaf of their own. Such a collapse
costs less than nothing and is taken first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnt.learn.category_columns import CategoryColumns
from tnt.learn.compiled import kernel
from tnt.learn.walks import disjoint_reaches
from tnt.learn.working_graph import FlatGraph, WorkingGraph, compact

__all__ = ["PruningPath", "prune_fitted_graph", "prune_graph", "pruning_statistics"]


@dataclass(frozen=True)
class PruningPath:
    """The collapses :func:`prune_graph` made, in order.

    Attributes
    ----------
    alphas : ndarray of shape (n_collapses,)
        Each collapse's impurity cost per split freed (its *effective alpha*).
    n_splits : ndarray of shape (n_collapses + 1,)
        The graph's splits before the first collapse and after each (the splits a collapse
        frees, before dead splits are removed at the end).
    impurities : ndarray of shape (n_collapses + 1,)
        ``R`` of the graph before the first collapse and after each.
    nodes : ndarray of shape (n_collapses,)
        The node each collapse turned into a leaf, numbered as in the graph given.
    next_alpha : float
        The cheapest collapse of the pruned graph, per split freed: pruning it again at any level
        below this changes nothing (``inf`` when it has no split left to collapse, 0 when pruning
        stopped for another reason than the level).
    """

    alphas: np.ndarray
    n_splits: np.ndarray
    impurities: np.ndarray
    nodes: np.ndarray
    next_alpha: float = 0.0


def pruning_statistics(y: np.ndarray, w: np.ndarray, n_classes: int | None) -> np.ndarray:
    """Per-sample statistics the pruning kernels add up: ``[1, w * onehot(y)]`` for class indices
    (``n_classes`` given), ``[1, w, w * y, w * y**2]`` for regression targets (``n_classes`` None).

    Examples
    --------
    >>> pruning_statistics(np.array([1, 0]), np.array([2.0, 1.0]), 2).tolist()
    [[1.0, 0.0, 2.0], [1.0, 1.0, 0.0]]
    >>> pruning_statistics(np.array([3.0]), np.array([2.0]), None).tolist()
    [[1.0, 2.0, 6.0, 18.0]]
    """
    n = y.shape[0]
    if n_classes is not None:
        stats = np.zeros((n, n_classes + 1))
        stats[np.arange(n), 1 + y] = w
    else:
        y = y.astype(np.float64)
        stats = np.column_stack([np.zeros(n), w, w * y, w * y * y])
    stats[:, 0] = 1.0
    return stats


@kernel(inline="always")
def _loss(stats, row, squared):
    """The weighted impurity of the samples summed in ``stats[row]`` (0 when there are none)."""
    if stats[row, 0] < 0.5:
        return 0.0
    if squared:
        weight = stats[row, 1]
        if weight <= 0.0:
            return 0.0
        return max(stats[row, 3] - stats[row, 2] * stats[row, 2] / weight, 0.0)
    weight = 0.0
    squares = 0.0
    for k in range(1, stats.shape[1]):
        weight += stats[row, k]
        squares += stats[row, k] * stats[row, k]
    if weight <= 0.0:
        return 0.0
    return max(weight - squares / weight, 0.0)


@kernel(inline="always")
def _next(X, r, node, left, right, feature, threshold, missing_left):
    v = np.float64(X[r, feature[node]])
    if v <= threshold[node] or (missing_left is not None and v != v and missing_left[node]):
        return left[node]
    return right[node]


@kernel
def collapse_costs(X, stats, squared, left, right, feature, threshold, missing_left=None):
    """``(delta, flow)``: the change of the leaves' total impurity if each internal node were
    collapsed into a leaf (0 at leaves), and the statistics of the samples reaching each node,
    routing every row of ``X`` (statistics ``stats``, :func:`pruning_statistics`) from node 0."""
    n, width = stats.shape
    n_nodes = left.shape[0]
    flow = np.zeros((n_nodes, width))
    leaf_of = np.empty(n, dtype=np.int64)
    for r in range(n):
        node = 0
        while True:
            for k in range(width):
                flow[node, k] += stats[r, k]
            if left[node] < 0:
                break
            node = _next(X, r, node, left, right, feature, threshold, missing_left)
        leaf_of[r] = node
    # The samples grouped by leaf (a counting sort).
    first = np.zeros(n_nodes + 1, dtype=np.int64)
    for r in range(n):
        first[leaf_of[r] + 1] += 1
    for node in range(n_nodes):
        first[node + 1] += first[node]
    filled = first[:n_nodes].copy()
    by_leaf = np.empty(n, dtype=np.int64)
    for r in range(n):
        by_leaf[filled[leaf_of[r]]] = r
        filled[leaf_of[r]] += 1

    delta = np.zeros(n_nodes)
    for node in range(n_nodes):
        if left[node] >= 0:
            delta[node] = _loss(flow, node, squared)
    # For each leaf, what the samples passing each ancestor t bring to it: collapsing t takes them
    # away, and the leaf keeps the rest.
    through = np.zeros((n_nodes, width))
    rest = np.zeros((1, width))
    touched = np.empty(n_nodes, dtype=np.int64)
    seen = np.zeros(n_nodes, dtype=np.bool_)
    for leaf in range(n_nodes):
        if first[leaf + 1] == first[leaf]:
            continue
        base = _loss(flow, leaf, squared)
        n_touched = 0
        for i in range(first[leaf], first[leaf + 1]):
            r = by_leaf[i]
            node = 0
            while left[node] >= 0:
                if not seen[node]:
                    seen[node] = True
                    touched[n_touched] = node
                    n_touched += 1
                for k in range(width):
                    through[node, k] += stats[r, k]
                node = _next(X, r, node, left, right, feature, threshold, missing_left)
        for i in range(n_touched):
            t = touched[i]
            for k in range(width):
                rest[0, k] = flow[leaf, k] - through[t, k]
                through[t, k] = 0.0
            seen[t] = False
            delta[t] += _loss(rest, 0, squared) - base
    return delta, flow


@kernel
def freed_splits(left, right):
    """For each node, the splits that collapsing it frees: the internal nodes (itself included) it
    dominates, that is every path from node 0 to them passes through it; 0 for leaves and for nodes
    node 0 does not reach. Nodes are numbered topologically (children after their parents)."""
    n = left.shape[0]
    idom = np.full(n, -1, dtype=np.int64)  # immediate dominator; -1: not reached (node 0: itself)
    depth = np.zeros(n, dtype=np.int64)  # depth in the dominator tree
    idom[0] = 0
    for node in range(n):
        if idom[node] < 0 or left[node] < 0:
            continue
        if node > 0:
            depth[node] = depth[idom[node]] + 1
        for child in (left[node], right[node]):
            if idom[child] < 0:
                idom[child] = node
                continue
            a, b = idom[child], node  # their nearest common dominator
            while a != b:
                if depth[a] >= depth[b] and a != 0:
                    a = idom[a]
                else:
                    b = idom[b]
            idom[child] = a
    freed = np.zeros(n, dtype=np.int64)
    for node in range(n - 1, -1, -1):
        if idom[node] < 0:
            continue
        if left[node] >= 0:
            freed[node] += 1
        if node > 0:
            freed[idom[node]] += freed[node]
    return freed


def prune_graph(
    graph: FlatGraph,
    X: np.ndarray,
    stats: np.ndarray,
    squared: bool,
    alpha: float,
    min_splits: int = 0,
) -> tuple[FlatGraph, PruningPath]:
    """The graph pruned at level ``alpha`` (see the module's description) on the training samples
    ``X`` with statistics ``stats`` (:func:`pruning_statistics`; ``squared`` for regression ones).

    Collapses go on while the cheapest costs at most ``alpha`` per split freed and the graph keeps
    more than ``min_splits`` splits, in rounds: each round computes every node's cost once and
    collapses, cheapest first, those of cost at most ``alpha`` that reach no node an earlier one
    of the round reaches; ``alpha=0`` prunes nothing, ``alpha=inf`` with ``min_splits=k``
    prunes down to at most ``k`` splits. The pruned graph is merged as a grow pass's graph is
    (:func:`tnt.learn.working_graph.compact`: splits that then send all their samples one way are
    bypassed), and a collapsed node's label is the first largest class weight of its samples.
    """
    # A graph with categorical splits routes them by columns of their own (tnt.learn.category_columns).
    working = WorkingGraph(graph, categories=None if graph.category_left is None else CategoryColumns(X))
    left, right = working.left[: working.size], working.right[: working.size]
    feature, threshold = working.feature[: working.size], working.threshold[: working.size]
    missing = None if working.missing_left is None else working.missing_left[: working.size]
    total = float(stats[:, 1].sum() if squared else stats[:, 1:].sum())
    splits = graph.n_splits
    alphas, sizes, impurities, nodes = [], [splits], [], []
    next_alpha = 0.0
    while alpha > 0 and splits > min_splits:
        delta, flow = collapse_costs(working.routed(X), stats, squared, left, right, feature, threshold, missing)
        if not impurities:
            leaves = (left < 0) & (flow[:, 0] > 0)
            impurities.append(float(sum(_leaf_losses(flow[leaves], squared))) / total)
        freed = freed_splits(left, right)
        candidates = np.flatnonzero((left >= 0) & (freed > 0))
        cost = delta[candidates] / total / np.maximum(freed[candidates], 1)
        order = np.argsort(cost, kind="stable")
        order = order[cost[order] <= alpha]
        if order.size == 0:
            next_alpha = float(cost.min()) if cost.size else np.inf
            break
        # Collapses whose nodes reach no node in common change disjoint samples, leaves and splits:
        # taken together, cheapest first, they are the collapses one at a time would make.
        for i in order[disjoint_reaches(left, right, candidates[order])]:
            if splits <= min_splits:
                break
            node = int(candidates[i])
            left[node] = right[node] = -1
            feature[node] = -2
            threshold[node] = -2.0
            working.label[node] = 0 if squared else int(np.argmax(flow[node, 1:]))
            splits -= int(freed[node])
            alphas.append(float(cost[i]))
            nodes.append(node)
            sizes.append(splits)
            impurities.append(impurities[-1] + float(delta[node]) / total)
    if not impurities:
        impurities.append(np.nan)
    path = PruningPath(
        np.array(alphas), np.array(sizes), np.array(impurities), np.array(nodes, dtype=np.intp), next_alpha
    )
    if not alphas:
        return graph, path
    return compact(working, X), path


def _leaf_losses(flow: np.ndarray, squared: bool) -> np.ndarray:
    """:func:`_loss` of each row of ``flow``, in NumPy."""
    if squared:
        return np.maximum(flow[:, 3] - flow[:, 2] ** 2 / flow[:, 1], 0.0)
    weight = flow[:, 1:].sum(axis=1)
    return np.maximum(weight - (flow[:, 1:] ** 2).sum(axis=1) / weight, 0.0)


def prune_fitted_graph(graph: FlatGraph, problem, alpha: float, classification: bool) -> FlatGraph:
    """:func:`prune_graph` at ``alpha`` on the training problem a graph was grown on (a classifier's
    class indices, or a regressor's standardised targets)."""
    if alpha <= 0:
        return graph
    stats = pruning_statistics(problem.y, problem.w, problem.n_classes if classification else None)
    return prune_graph(graph, problem.X, stats, not classification, alpha)[0]
