"""Node sharing, explained: which nodes several parents share, what flows into them, and the tree
the graph stands for.

A decision graph makes the same decisions as the tree obtained by *unfolding* it: every node is
copied once for each root-to-node path, so that each copy has one parent. The counts of that tree
are computed by dynamic programming over the topological order (never by listing paths) as exact
Python integers: they grow exponentially with the depth of sharing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tnt.graph import DecisionGraph
from tnt.viz.exporter import GraphText

__all__ = [
    "IncomingEdge",
    "Unfolding",
    "edge_flows",
    "incoming_edges",
    "neighbourhood",
    "shared_nodes_table",
    "unfold_counts",
]


@dataclass(frozen=True)
class Unfolding:
    """The tree a decision graph stands for, counted without building it.

    Attributes
    ----------
    paths_to : list of int
        Number of root-to-node paths of each node: how many copies of it the tree has
        (1 for the root, 0 for a node the root does not reach).
    leaves_below : list of int
        Leaves of the tree unfolded from each node (1 at a leaf).
    """

    paths_to: list
    leaves_below: list

    @property
    def leaves(self) -> int:
        """Leaves of the tree the whole graph stands for (its root-to-leaf paths)."""
        return self.leaves_below[0]

    @property
    def splits(self) -> int:
        """Splits of that tree: a binary tree has one split fewer than leaves."""
        return self.leaves - 1

    def splits_below(self, node: int) -> int:
        """Splits of the tree unfolded from ``node`` (node included)."""
        return self.leaves_below[node] - 1

    def saved_by(self, node: int) -> int:
        """Splits the tree needs because ``node`` is shared: it repeats the tree below ``node``
        once for each extra path reaching it, ``(paths_to - 1) * splits_below``.

        Counts of nested shared nodes overlap (the tree below one contains the other), so they do
        not add up to ``splits - graph.n_splits``.
        """
        return max(self.paths_to[node] - 1, 0) * self.splits_below(node)


def unfold_counts(graph: DecisionGraph) -> Unfolding:
    """Count the tree a graph stands for, by dynamic programming over the topological order.

    Parameters
    ----------
    graph : DecisionGraph

    Returns
    -------
    unfolding : Unfolding
        Exact Python integers; a tree unfolds to itself (``splits == graph.n_splits``).

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.services.sharing import unfold_counts
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 2, 4, -1, -1], [0, 1, 1, -2, -2],
    ...                   [0.5, 0.5, 0.5, -2, -2], [[1, 1]] * 5)
    >>> u = unfold_counts(g)
    >>> u.splits, u.leaves, u.paths_to[2], u.saved_by(2)
    (4, 5, 2, 1)
    """
    return Unfolding(paths_to=graph.path_counts(), leaves_below=graph.paths_below())


def edge_flows(graph: DecisionGraph, X, y) -> np.ndarray:
    """How many training samples of each class each split sends along each of its two edges.

    Parameters
    ----------
    graph : DecisionGraph
    X : array-like of shape (n_samples, n_features)
    y : array-like of int, shape (n_samples,)
        Class indices in ``0..graph.n_classes - 1``.

    Returns
    -------
    flows : ndarray of shape (n_nodes, 2, n_classes)
        ``flows[p, 0]`` the samples node ``p`` sends to its left ("yes") child, ``flows[p, 1]``
        to its right ("no") child; zeros at leaves.
    """
    sent, _, _ = graph._edge_statistics(X, y, None)
    return sent


@dataclass(frozen=True)
class IncomingEdge:
    """One edge into a node: the parent, the test a sample passes on it, and what flows along it."""

    parent: int
    branch: str  # "left" (the test holds) or "right"
    condition: str
    class_counts: np.ndarray

    @property
    def samples(self) -> int:
        return int(round(float(self.class_counts.sum())))


def incoming_edges(graph: DecisionGraph, node: int, flows: np.ndarray, feature_names=None) -> list[IncomingEdge]:
    """Every edge into ``node``, by parent id then branch, with the samples arriving along it.

    Parameters
    ----------
    graph : DecisionGraph
    node : int
    flows : ndarray
        :func:`edge_flows` of the graph.
    feature_names : sequence of str, default=None
    """
    return _incoming(graph, node, flows, GraphText(graph, feature_names))


def _incoming(graph: DecisionGraph, node: int, flows: np.ndarray, text: GraphText) -> list[IncomingEdge]:
    edges = []
    for parent in graph.parents(node):
        for side, (branch, child) in enumerate(
            (("left", graph.children_left[parent]), ("right", graph.children_right[parent]))
        ):
            if child == node:
                edges.append(
                    IncomingEdge(
                        parent=int(parent),
                        branch=branch,
                        condition=text.condition(parent, branch),
                        class_counts=np.asarray(flows[parent, side], dtype=np.float64),
                    )
                )
    return edges


def shared_nodes_table(
    graph: DecisionGraph, flows: np.ndarray, unfolding: Unfolding | None = None, feature_names=None
) -> pd.DataFrame:
    """Every node with several parents, most training samples first.

    Parameters
    ----------
    graph : DecisionGraph
    flows : ndarray
        :func:`edge_flows` of the graph.
    unfolding : Unfolding, default=None
        :func:`unfold_counts` of the graph (computed when omitted).
    feature_names : sequence of str, default=None

    Returns
    -------
    table : DataFrame
        One row per shared node: ``node``, ``rule`` (its split, or ``leaf``), ``parents``,
        ``samples`` (training samples reaching it), ``samples_from_other_parents`` (those not
        coming from its busiest parent), ``paths`` (root-to-node paths: its copies in the tree),
        ``splits_below`` (of the tree unfolded from it) and ``splits_saved``
        (:meth:`Unfolding.saved_by`; a Python int). Ties in samples keep node order.
    """
    unfolding = unfold_counts(graph) if unfolding is None else unfolding
    text = GraphText(graph, feature_names)
    is_leaf = text.is_leaf
    rows = []
    for node in graph.shared_nodes.tolist():
        arriving = [edge.samples for edge in _incoming(graph, node, flows, text)]
        rows.append(
            {
                "node": node,
                "rule": f"leaf: {text.rule(node)}" if is_leaf[node] else text.rule(node),
                "parents": int(graph.n_parents[node]),
                "samples": sum(arriving),
                "samples_from_other_parents": sum(arriving) - max(arriving),
                "paths": unfolding.paths_to[node],
                "splits_below": unfolding.splits_below(node),
                "splits_saved": unfolding.saved_by(node),
            }
        )
    columns = [
        "node",
        "rule",
        "parents",
        "samples",
        "samples_from_other_parents",
        "paths",
        "splits_below",
        "splits_saved",
    ]
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values("samples", ascending=False, kind="stable").reset_index(drop=True)


def neighbourhood(graph: DecisionGraph, node: int, levels_below: int = 2) -> list[int]:
    """The nodes to draw around ``node``: its parents, itself and its descendants up to
    ``levels_below`` edges down, in increasing order.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.services.sharing import neighbourhood
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 2, 4, -1, -1], [0, 1, 1, -2, -2],
    ...                   [0.5, 0.5, 0.5, -2, -2], [[1, 1]] * 5)
    >>> neighbourhood(g, 2, levels_below=1)
    [0, 1, 2, 3, 4]
    """
    keep = set(graph.parents(node)) | {int(node)}
    frontier = [int(node)]
    is_leaf = graph.is_leaf
    for _ in range(levels_below):
        frontier = [
            int(c) for n in frontier if not is_leaf[n] for c in (graph.children_left[n], graph.children_right[n])
        ]
        keep.update(frontier)
    return sorted(keep)
