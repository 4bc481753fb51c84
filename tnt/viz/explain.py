"""Plain-language views of one node of a :class:`~tnt.graph.DecisionGraph` (a sample's path is
:mod:`tnt.inspect.path`'s), and the choice of how to draw a graph of a given size."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnt.graph import MIXED, DecisionGraph
from tnt.inspect.path import rule

__all__ = [
    "INTERACTIVE_GRAPH_NODES",
    "LARGE_GRAPH_NODES",
    "MAX_DRAWN_NODES",
    "NodeInfo",
    "drawing_mode",
    "drawing_note",
    "node_info",
]

#: Graphs with more nodes than this are drawn on the server at natural size (readable, scrollable,
#: with a depth window) rather than laid out in the browser and shrunk to the page's width.
LARGE_GRAPH_NODES = 60
# Above this many nodes the app shows the plotly view first (pendigits at C=1e-4 has about 430).
INTERACTIVE_GRAPH_NODES = 300
#: Most nodes one Graphviz drawing holds (the depth window's nodes and stubs): beyond, the
#: interactive plotly view is shown instead, with a note.
MAX_DRAWN_NODES = 2_000


def _class(names, index: int) -> str:
    return str(names[index]) if names is not None else str(index)


@dataclass(frozen=True)
class NodeInfo:
    node: int
    is_leaf: bool
    rule: str
    n_samples: int
    distribution: dict  # class name -> weighted count of training samples (empty in a regression graph)
    dominant: str  # dominant class name, or "mixed" ("" in a regression graph)
    parents: list
    left: int | None  # child when the rule holds
    right: int | None  # child when it does not
    mean: float | None = None  # regression graphs: weighted mean training target at the node
    std: float | None = None  # and its weighted standard deviation


def node_info(graph: DecisionGraph, node: int, feature_names=None, class_names=None) -> NodeInfo:
    """Everything the app shows about one node.

    Examples
    --------
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> info = node_info(g, 0, feature_names=["x"], class_names=["a", "b"])
    >>> info.rule, info.left, info.right, info.dominant
    ('x <= 0.5', 1, 2, 'mixed')

    A regression graph's node has the mean and standard deviation of its training targets:

    >>> r = DecisionGraph([-1], [-1], [-2], [-2], [[2.5]], n_node_samples=[4], impurity=[0.25], regression=True)
    >>> info = node_info(r, 0)
    >>> info.mean, info.std, info.n_samples, info.distribution
    (2.5, 0.5, 4, {})
    """
    if not 0 <= node < graph.node_count:
        raise ValueError(f"Node {node} does not exist; the graph has nodes 0 to {graph.node_count - 1}.")
    leaf = bool(graph.is_leaf[node])
    shape = dict(
        node=node,
        is_leaf=leaf,
        rule=rule(graph, node, feature_names),
        n_samples=int(graph.n_node_samples[node]),
        parents=graph.parents(node),
        left=None if leaf else int(graph.children_left[node]),
        right=None if leaf else int(graph.children_right[node]),
    )
    if graph.regression:
        mean, std = float(graph.value[node, 0]), float(np.sqrt(max(graph.impurity[node], 0.0)))
        return NodeInfo(**shape, distribution={}, dominant="", mean=mean, std=std)
    dominant = int(graph.dominant_class()[node])
    return NodeInfo(
        **shape,
        distribution={_class(class_names, k): float(v) for k, v in enumerate(graph.value[node])},
        dominant="mixed" if dominant == MIXED else _class(class_names, dominant),
    )


def drawing_mode(graph: DecisionGraph) -> str:
    """How the app draws a graph by default: ``"browser"`` (Graphviz in the browser) up to
    :data:`LARGE_GRAPH_NODES` nodes, ``"server"`` (an SVG rendered on the server, readable at
    natural size) up to :data:`INTERACTIVE_GRAPH_NODES`, ``"interactive"`` (the plotly view: the
    whole shape at once, zoom and pan, laid out in linear time) above.

    Examples
    --------
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> drawing_mode(g)
    'browser'
    """
    if graph.node_count <= LARGE_GRAPH_NODES:
        return "browser"
    return "server" if graph.node_count <= INTERACTIVE_GRAPH_NODES else "interactive"


def drawing_note(graph: DecisionGraph, depth_window: tuple[int, int] | None = None) -> str | None:
    """Why a Graphviz drawing of ``graph`` (or of the layers of ``depth_window``) is not made: it
    would hold more than :data:`MAX_DRAWN_NODES` nodes, which Graphviz takes minutes to lay out, so
    the interactive view is shown instead. ``None`` when Graphviz can draw it."""
    from tnt.viz.export_dot import drawn_node_count

    count = drawn_node_count(graph, depth_window)
    if count <= MAX_DRAWN_NODES:
        return None
    return (
        f"This drawing would hold {count:,} nodes, more than Graphviz lays out quickly ({MAX_DRAWN_NODES:,}), "
        "so the graph is shown in the interactive view; a narrower depth window brings the Graphviz views back."
    )
