"""An interactive plotly view of a decision graph that stays usable for thousands of nodes.

The figure has a fixed number of traces whatever the graph's size: one for the "yes" branches,
one for the "no" branches (edges drawn as single line traces with ``None`` separators), one for
the highlighted path and one for the nodes; the legend entries add one empty trace per class.
"""

from __future__ import annotations

import numpy as np

from tnt.viz.exporter import GraphText, escape_html, path_mask
from tnt.viz.colors import HIGHLIGHT_COLOR, MIXED_COLOR, class_palette
from tnt.viz.layout import edge_list, layered_layout

__all__ = ["graph_figure"]

# Graphs up to this many nodes get their rules written next to the nodes, not only on hover.
_LABELLED_NODES = 40
_MAX_LISTED_PARENTS = 12
# Above this many nodes, smaller markers so that the wide middle layers stay readable when zoomed out.
_MANY_NODES = 300


def graph_figure(graph, *, feature_names=None, class_names=None, highlight_sample=None, precision: int = 3):
    """A zoomable, pannable plotly figure of a decision graph in a layered layout.

    Nodes are coloured by the contract of :mod:`tnt.viz.colors` (leaves square, splits round, shared
    nodes with a thick dark ring). Hovering a node shows its rule, sample count, class
    distribution and parents.

    Parameters
    ----------
    graph : DecisionGraph
    feature_names, class_names : sequence of str, default=None
        Names of the features and of the classes (columns of ``graph.value``).
    highlight_sample : array-like of shape (n_features,), default=None
        Draw this sample's root-to-leaf path in red.
    precision : int, default=3
        Decimals of thresholds and shares.

    Returns
    -------
    figure : plotly.graph_objects.Figure
        Drag pans, the scroll wheel zooms when shown with ``config={"scrollZoom": True}``.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.plotly_view import graph_figure
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.8, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> fig = graph_figure(g, feature_names=["petal width"], class_names=["setosa", "other"])
    >>> [trace.name for trace in fig.data][:4]
    ['yes (<=)', 'no (>)', 'path', 'nodes']
    """
    import plotly.graph_objects as go

    text = GraphText(graph, feature_names, class_names, precision)
    x, y = layered_layout(graph)
    parent, child, is_left = edge_list(graph)
    on_path = path_mask(graph, highlight_sample)
    path_edges = on_path[parent] & on_path[child]

    # Every value is built here from a checked graph: plotly's per-element validation of the node
    # colours and hover texts would take most of the time for 100,000 nodes, so it is skipped.
    fig = go.Figure(_validate=False)
    for name, mask, dash in (("yes (<=)", is_left, "solid"), ("no (>)", ~is_left, "dot")):
        fig.add_trace(_edge_trace(go, x, y, parent[mask], child[mask], name, dict(color="#888888", width=1, dash=dash)))
    fig.add_trace(
        _edge_trace(go, x, y, parent[path_edges], child[path_edges], "path", dict(color=HIGHLIGHT_COLOR, width=4))
    )
    fig.add_trace(_node_trace(go, graph, text, x, y, on_path))
    for name, color in _legend(graph, text):
        fig.add_trace(
            go.Scatter(x=[None], y=[None], mode="markers", name=escape_html(name), marker=dict(color=color, size=10))
        )
    n_layers = int(-y.min()) + 1
    fig.update_layout(
        height=int(np.clip(40 * n_layers, 450, 1400)),
        dragmode="pan",
        hovermode="closest",
        plot_bgcolor="white",
        margin=dict(l=10, r=10, t=30, b=10),
        xaxis=dict(visible=False),
        yaxis=dict(visible=False),
        legend=dict(itemsizing="constant"),
        hoverlabel=dict(align="left"),
    )
    return fig


def _edge_trace(go, x, y, parent, child, name, line):
    """All the given edges as one line trace: ``x0, x1, None`` per edge."""
    return go.Scatter(
        _validate=False,
        x=_with_breaks(x[parent], x[child]),
        y=_with_breaks(y[parent], y[child]),
        mode="lines",
        name=name,
        line=line,
        hoverinfo="skip",
    )


def _with_breaks(start: np.ndarray, end: np.ndarray) -> list:
    """``[start0, end0, None, start1, end1, None, ...]``: None separates the segments of one line."""
    points = np.column_stack([start, end, start]).astype(object)
    points[:, 2] = None
    return points.ravel().tolist()


def _node_trace(go, graph, text, x, y, on_path):
    parents = text.parents()
    shared = text.n_parents > 1
    outline = np.where(on_path, HIGHLIGHT_COLOR, np.where(shared, "#222222", "#ffffff"))
    labelled = graph.node_count <= _LABELLED_NODES
    return go.Scatter(
        _validate=False,
        x=x,
        y=y,
        mode="markers+text" if labelled else "markers",
        name="nodes",
        showlegend=False,
        text=[escape_html(text.rule(i)) for i in range(graph.node_count)] if labelled else None,
        textposition="middle right",
        hovertext=[_hover(text, i, parents[i]) for i in range(graph.node_count)],
        hoverinfo="text",
        customdata=np.arange(graph.node_count),
        marker=dict(
            color=text.colors,
            size=np.where(graph.is_leaf, 9, 12) if graph.node_count <= _MANY_NODES else np.where(graph.is_leaf, 5, 7),
            symbol=np.where(graph.is_leaf, "square", "circle"),
            line=dict(color=outline, width=np.where(shared | on_path, 2.5, 0.5)),
            opacity=1.0,
        ),
    )


def _hover(text: GraphText, node: int, parents: list[int]) -> str:
    kind = "leaf" if text.graph.is_leaf[node] else "split"
    lines = [f"<b>#{node}</b> {kind}: {escape_html(text.rule(node))}", f"samples = {text.samples(node)}"]
    lines.append(escape_html(text.shares_text(node, top=5)) or "no training samples")
    if parents:
        listed = ", ".join(f"#{p}" for p in parents[:_MAX_LISTED_PARENTS])
        more = len(parents) - _MAX_LISTED_PARENTS
        lines.append(f"parents: {listed}" + (f" and {more} more" if more > 0 else ""))
    else:
        lines.append("root")
    if len(parents) > 1:
        lines.append(f"shared by {len(parents)} parents")
    return "<br>".join(lines)


def _legend(graph, text: GraphText) -> list[tuple[str, str]]:
    """(name, colour) of each class that colours some node, then "mixed" if any node is mixed."""
    palette = class_palette(graph.n_classes)
    present = np.unique(text.dominant)
    entries = [(text.class_name(k), palette[k]) for k in present if k >= 0]
    if np.any(present < 0):
        entries.append(("mixed (no class over half)", MIXED_COLOR))
    return entries
