"""Edits of a :class:`~tnt.graph.DecisionGraph`'s structure: collapse a node into a leaf, send an
edge to another node. Each edit returns a new graph without the nodes the root no longer reaches,
renumbered in topological order (every child's id greater than its parents', the root 0), so it
passes every check a model file's graph passes.

Statistics are not recomputed here (:mod:`tnt.editing.statistics` does that from training data);
each edit says which nodes' statistics it made stale: the nodes whose set of training samples may
have changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnt.graph import TREE_LEAF, TREE_UNDEFINED, DecisionGraph
from tnt.learn.walks import topological_order

__all__ = ["BRANCHES", "GraphChange", "collapse", "legal_targets", "redirect", "remove_unreachable"]

#: The two branches of a split: "yes" (left, the test holds) and "no" (right).
BRANCHES = ("yes", "no")


@dataclass(frozen=True, eq=False)
class GraphChange:
    """A graph after an edit, and how its nodes relate to the graph before it.

    Attributes
    ----------
    graph : DecisionGraph
        The edited graph, unreachable nodes removed, numbered topologically.
    new_id : ndarray of int
        For each node of the graph before the edit, its id in ``graph`` (-1: removed).
    edited : ndarray of int
        Ids in ``graph`` of the nodes the edit changed itself (the collapsed node; the node whose
        edge moved and the edge's new end).
    stale : ndarray of bool, shape (graph.node_count,)
        Nodes whose statistics may no longer describe the training samples reaching them.
    """

    graph: DecisionGraph
    new_id: np.ndarray
    edited: np.ndarray
    stale: np.ndarray


def _check_node(graph: DecisionGraph, node, what: str = "node") -> int:
    if isinstance(node, bool) or not isinstance(node, (int, np.integer)) or not 0 <= node < graph.node_count:
        raise ValueError(f"There is no {what} {node!r}: the graph's nodes are 0 to {graph.node_count - 1}.")
    return int(node)


def _check_split(graph: DecisionGraph, node) -> int:
    node = _check_node(graph, node)
    if graph.is_leaf[node]:
        raise ValueError(f"Node {node} is a leaf already; only a split can be collapsed or have its edges moved.")
    return node


def _child_array(graph: DecisionGraph, branch: str) -> np.ndarray:
    if branch not in BRANCHES:
        raise ValueError(f"branch must be 'yes' (the left edge, where the test holds) or 'no'; got {branch!r}.")
    return graph.children_left if branch == "yes" else graph.children_right


def remove_unreachable(graph: DecisionGraph) -> tuple[DecisionGraph, np.ndarray]:
    """The nodes the root reaches, renumbered in topological order (breadth-first, each node after
    all its parents, as training numbers them).

    Returns
    -------
    graph : DecisionGraph
    new_id : ndarray of int
        Each old node's new id, -1 for the removed ones.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.editing.graph_edits import remove_unreachable
    >>> g = DecisionGraph([2, -1, -1, -1], [3, -1, -1, -1], [0, -2, -2, -2], [0.5, -2, -2, -2],
    ...                   [[1, 1], [9, 9], [1, 0], [0, 1]])
    >>> small, new_id = remove_unreachable(g)
    >>> small.node_count, new_id.tolist()
    (3, [0, -1, 1, 2])
    """
    return _renumbered(_arrays_of(graph), graph)


#: The per-node arrays of a graph, which an edit changes and renumbering reorders.
_NODE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "n_node_samples", "impurity")


def _arrays_of(graph: DecisionGraph) -> dict:
    arrays = {name: getattr(graph, name) for name in _NODE_ARRAYS}
    arrays["missing_go_to_left"] = graph.missing_go_to_left
    return arrays


def _renumbered(arrays: dict, graph: DecisionGraph) -> tuple[DecisionGraph, np.ndarray]:
    """The nodes the root reaches in ``arrays`` (a graph's arrays, ids in any order), renumbered
    topologically, as a graph with ``graph``'s other attributes, and each old node's new id."""
    left, right = arrays["children_left"], arrays["children_right"]
    order = topological_order(left, right)
    new_id = np.full(left.shape[0], -1, dtype=np.intp)
    new_id[order] = np.arange(order.size)
    leaf = left[order] < 0
    missing_left = arrays["missing_go_to_left"]
    kept = DecisionGraph(
        children_left=np.where(leaf, TREE_LEAF, new_id[left[order]]),
        children_right=np.where(leaf, TREE_LEAF, new_id[right[order]]),
        feature=np.where(leaf, TREE_UNDEFINED, arrays["feature"][order]),
        threshold=np.where(leaf, TREE_UNDEFINED, arrays["threshold"][order]),
        value=arrays["value"][order],
        n_node_samples=arrays["n_node_samples"][order],
        impurity=arrays["impurity"][order],
        input_dtype=graph.input_dtype,
        regression=graph.regression,
        missing_go_to_left=None if missing_left is None else np.where(leaf, 0, missing_left[order]),
        missing_in_training=graph.missing_in_training,
        categories=graph.categories,
        category_left=None
        if graph.category_left is None
        else np.where(leaf[:, None], np.uint64(0), graph.category_left[order]),
    )
    return kept, new_id


def _finish(arrays: dict, graph: DecisionGraph, edited, stale_before: np.ndarray) -> GraphChange:
    """Arrays with an edit applied (ids possibly out of order, unreachable nodes left) as a change."""
    result, new_id = _renumbered({**_arrays_of(graph), **arrays}, graph)
    stale = np.zeros(result.node_count, dtype=bool)
    kept = new_id >= 0
    stale[new_id[kept]] = stale_before[kept]
    edited = np.asarray([new_id[n] for n in edited if new_id[n] >= 0], dtype=np.intp)
    return GraphChange(result, new_id, np.unique(edited), stale)


def collapse(graph: DecisionGraph, node: int) -> GraphChange:
    """Make the split ``node`` a leaf, predicting from the training samples that reach it.

    The samples reaching the node do not change, so its statistics (``value``, the class counts or
    mean target of those samples) stay right and become the leaf's prediction. Nodes below it that
    other paths still reach lose samples: their statistics are stale.

    Parameters
    ----------
    graph : DecisionGraph
    node : int
        A split of ``graph``.

    Returns
    -------
    change : GraphChange

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.editing import collapse
    >>> g = DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 1, -2, -2, -2],
    ...                   [0.5, 0.5, -2, -2, -2], [[4, 2], [3, 1], [1, 1], [3, 0], [0, 1]])
    >>> change = collapse(g, 1)
    >>> change.graph.n_splits, change.graph.value[1].tolist(), change.edited.tolist()
    (1, [3.0, 1.0], [1])
    """
    node = _check_split(graph, node)
    below = graph.descendants(node)
    below[node] = False
    left, right = graph.children_left.copy(), graph.children_right.copy()
    feature, threshold = graph.feature.copy(), graph.threshold.copy()
    left[node] = right[node] = TREE_LEAF
    feature[node] = threshold[node] = TREE_UNDEFINED
    arrays = {"children_left": left, "children_right": right, "feature": feature, "threshold": threshold}
    if graph.missing_go_to_left is not None:
        arrays["missing_go_to_left"] = graph.missing_go_to_left.copy()
        arrays["missing_go_to_left"][node] = 0
    if graph.category_left is not None:
        arrays["category_left"] = graph.category_left.copy()
        arrays["category_left"][node] = 0
    return _finish(arrays, graph, [node], below)


def legal_targets(graph: DecisionGraph, node: int, branch: str) -> np.ndarray:
    """The nodes the ``branch`` edge of split ``node`` may be sent to, in increasing order.

    Every node the root reaches, except: ``node`` itself and its ancestors (the graph would have a
    cycle), the edge's present end (nothing would change) and the split's other child (the split
    would send every sample to one node and decide nothing; collapse it instead).

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.editing import legal_targets
    >>> g = DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 1, -2, -2, -2],
    ...                   [0.5, 0.5, -2, -2, -2], [[4, 2], [3, 1], [1, 1], [3, 0], [0, 1]])
    >>> legal_targets(g, 1, "yes").tolist(), legal_targets(g, 0, "no").tolist()
    ([2], [3, 4])
    """
    node = _check_split(graph, node)
    _child_array(graph, branch)  # checks the branch's name
    allowed = graph.reachable() & ~graph.ancestors(node)
    allowed[graph.children_left[node]] = allowed[graph.children_right[node]] = False
    return np.flatnonzero(allowed)


def redirect(graph: DecisionGraph, node: int, branch: str, target: int) -> GraphChange:
    """Send the ``branch`` ("yes" or "no") edge of split ``node`` to the existing node ``target``.

    The graph stays acyclic: a target among :func:`legal_targets` is required. The nodes below the
    edge's old end and below ``target`` get other training samples: their statistics are stale.
    Nodes no path reaches any more are removed and the rest renumbered.

    Raises
    ------
    ValueError
        One sentence saying why ``target`` cannot be the edge's end.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.editing import redirect
    >>> g = DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 1, -2, -2, -2],
    ...                   [0.5, 0.5, -2, -2, -2], [[4, 2], [3, 1], [1, 1], [3, 0], [0, 1]])
    >>> redirect(g, 0, "no", 4).graph.children_right.tolist()
    [3, 3, -1, -1]
    >>> redirect(g, 1, "yes", 0)
    Traceback (most recent call last):
    ...
    ValueError: Node 0 is an ancestor of node 1: an edge from 1 to it would make a cycle.
    """
    node = _check_split(graph, node)
    target = _check_node(graph, target, "target node")
    children = _child_array(graph, branch)
    other = (graph.children_right if branch == "yes" else graph.children_left)[node]
    if target == node:
        raise ValueError(f"Node {node} cannot lead to itself: that would make a cycle.")
    if graph.ancestors(node)[target]:
        raise ValueError(f"Node {target} is an ancestor of node {node}: an edge from {node} to it would make a cycle.")
    if target == children[node]:
        raise ValueError(f"The {branch} edge of node {node} already leads to node {target}.")
    if target == other:
        raise ValueError(
            f"Node {target} is already node {node}'s other child: the split would decide nothing; collapse it instead."
        )
    if target not in legal_targets(graph, node, branch):
        raise ValueError(f"Node {target} is not reached from the root; send the edge to a node of the graph.")
    stale = graph.descendants([int(children[node]), target])
    children = children.copy()
    children[node] = target
    name = "children_left" if branch == "yes" else "children_right"
    return _finish({name: children}, graph, [node, target], stale)
