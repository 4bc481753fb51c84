"""An interactive plotly view of a decision graph that stays usable for thousands of nodes.

The figure has a fixed number of traces whatever the graph's size: one for the "yes" branches,
one for the "no" branches (edges drawn as single line traces with ``None`` separators), one for
the highlighted path and one for the nodes; the legend entries add one empty trace per class.
Edges drawn with widths proportional to the samples along them add at most ``2 * _WIDTH_LEVELS``
traces (one per width level and branch) in place of the first two.

Given a :class:`tnt.viz.focus.GraphView` (``view=``), the figure draws only what the view shows, as
the explorer's SVG does: each collapsed split as a *summary node* (a diamond; its label and hover say the
splits below it and its samples, a bar just above it its class mix, or its leaves' range of values), and each
edge from a node not shown as a short *stub* above the node it enters, naming that parent (a click on a
stub's marker gives the parent's id, as a click on a node gives the node's). Stubs and class-mix bars add
``2 + n_classes`` traces at most.

Nodes are placed by :func:`tnt.viz.dag_layout.dag_layout` (no two markers overlap; an edge spanning
several layers is drawn through its dummy nodes, between the nodes of those layers), graphs of more
than :data:`DAG_LAYOUT_NODES` nodes by the faster :func:`tnt.viz.layout.layered_layout`.
"""

from __future__ import annotations

import html

import numpy as np

from tnt.viz.callout import FreeSpace
from tnt.viz.colors import HIGHLIGHT_COLOR, MIXED_COLOR, MIXED_LABEL, VALUE_SCALE, class_palette, value_range
from tnt.viz.dag_layout import dag_layout, laid_edges
from tnt.viz.exporter import GraphText, escape_html, path_mask
from tnt.viz.layout import layered_layout
from tnt.wording import format_value

__all__ = ["DAG_LAYOUT_NODES", "LABEL_PX", "TOP_PX", "figure_height", "focus_ranges", "graph_figure", "standalone_html"]

#: Graphs up to this many nodes are laid out with dummy nodes and overlap removal (a fraction of a
#: second); larger ones in :func:`tnt.viz.layout.layered_layout`'s linear time.
DAG_LAYOUT_NODES = 20_000
#: Long edges pass one dummy node a layer in dag_layout: a graph whose long edges would need more
#: (a node of 10,000 parents down a chain needs about 50 million) is drawn with straight edges.
DAG_LAYOUT_DUMMIES = 200_000
# One node's slot in the layout, in x units of the figure (markers are a few px wide at any zoom).
_SLOT = 1.0
# A view's label of this many characters gets one slot (and a longer one more).
_SLOT_CHARS = 10

# Graphs up to this many nodes get their rules written next to the nodes, not only on hover; a view
# (the explorer's opened part) up to this many more, as it opens zoomed on its target (focus_ranges).
_LABELLED_NODES = 40
_LABELLED_VIEW_NODES = 200
#: Height (px) of the labels written under a view's nodes; plotly writes text at this size whatever the
#: zoom, so a view opens at the zoom where each label fits its node's slot (:func:`focus_ranges`).
LABEL_PX = 11
# Width of one character of a label, in px, with a margin (DejaVu Sans at 11 px, chromium's sans-serif
# here: 5.6 to 6.3 px a character on average over rules, summaries' lines and ids): one slot
# (_SLOT_CHARS characters) is this many px at a readable zoom.
_CHAR_PX = 0.65 * LABEL_PX
_SLOT_PX = _SLOT_CHARS * _CHAR_PX
#: A white halo around every label (a CSS text-shadow, plotly's ``textfont.shadow``): an edge or a
#: path passing under a label is hidden where the text is, so the text stays legible.
LABEL_HALO = ", ".join(f"{dx}px {dy}px 1px white" for dx in (-2, 0, 2) for dy in (-2, 0, 2) if dx or dy)
#: The figure's top margin (px): room for plotly's mode bar (its tool buttons, about 30 px high, drawn at
#: the figure's top right), so that it covers no label of the top layer in view; keep it when hiding the legend.
TOP_PX = 40
#: A stub's marker sits this far (in layers) above the node its edge enters, stubs of one node
#: this far apart (in x units): low enough that a stub's ``#id`` stays clear of the labels of the layer above.
_STUB_RISE, _STUB_STEP = 0.3, 0.3
# The figure's margins (px) left and right, and at the top and bottom.
_MARGIN_X, _MARGIN_Y = 20, TOP_PX + 10
_MAX_LISTED_PARENTS = 12
# Above this many nodes, smaller markers so that the wide middle layers stay readable when zoomed out.
_MANY_NODES = 300
# Edge widths (in px) when drawn in proportion to the samples along each edge, in this many steps.
_WIDTH_LEVELS = 8
_MAX_EDGE_WIDTH = 14.0
# Height of the figure: this many pixels per layer in view, within these bounds. A 1,000-split graph
# (60-70 layers) gets the tallest, about a screen and a half: its layers ~20 px apart, not 12 as in one
# screen. Over the figure the scroll wheel zooms; beside it (the page's side column) it scrolls the page.
_LAYER_PX = 30
_LABELLED_LAYER_PX = 90
_MIN_HEIGHT, _MAX_HEIGHT = 450, 1400


def graph_figure(
    graph,
    *,
    feature_names=None,
    class_names=None,
    highlight_sample=None,
    precision: int = 3,
    edge_samples=None,
    layers=None,
    selected_node=None,
    target_name=None,
    show_missing=None,
    view=None,
    focus_node=None,
    frame_px=None,
    uirevision=None,
):
    """A zoomable, pannable plotly figure of a decision graph in a layered layout.

    Nodes are coloured by the contract of :mod:`tnt.viz.colors` (leaves square, splits round, shared
    nodes with a thick dark ring). Hovering a node shows its rule, sample count, class
    distribution (mean and spread of the target in a regression graph) and parents. A regression
    graph gets a colour bar of its node means instead of the class legend.

    Parameters
    ----------
    graph : DecisionGraph
    feature_names, class_names : sequence of str, default=None
        Names of the features and of the classes (columns of ``graph.value``).
    highlight_sample : array-like of shape (n_features,), default=None
        Draw this sample's root-to-leaf path in red.
    precision : int, default=3
        Decimals of thresholds and shares.
    edge_samples : array-like of shape (n_nodes, 2), default=None
        Samples each node sends left and right (:meth:`DecisionGraph.edge_samples
        <tnt.DecisionGraph.edge_samples>` of the training data): each edge is then drawn with a
        width proportional to its count (in eight steps; an edge no sample takes is a hairline),
        and its count is added to the hover text of the node it leaves.
    layers : (int, int), default=None
        The layers (0 is the root's) in view at first; the whole graph when omitted. Zooming out
        or double-clicking shows the rest.
    selected_node : int, default=None
        A node marked with an arrow and its id (the node being inspected).
    target_name : str, default=None
        Name of a regression graph's target, the title of its colour bar ("mean <target_name>").
    show_missing : bool, default=None
        Say where missing values go at every threshold split (True) or at none (False); by default
        only in a graph that learned them from training data with missing values
        (:func:`tnt.wording.shows_missing`). A test of missingness is always written as one.
    view : tnt.viz.focus.GraphView, default=None
        Draw only what this view of ``graph`` shows (the explorer's opened splits): its summary
        nodes, and a stub for each edge from a node not shown (:meth:`GraphView.drawn_stubs
        <tnt.viz.focus.GraphView.drawn_stubs>`); the whole graph when omitted.
    focus_node : int, default=None
        With ``view`` and ``frame_px``: open the figure on this node, at the zoom where the labels do
        not overlap (:func:`focus_ranges`); the view's target (a search hit, the inspected node, a
        sample's leaf, a changed node), marked with a blue ``#id`` arrow unless it is ``selected_node``.
        Ignored when the view does not show it.
    frame_px : (int, int), default=None
        Width and height (px) of the frame the figure is shown in: the figure is that high
        (:func:`figure_height` when omitted).
    uirevision : hashable, default=None
        Plotly's ``layout.uirevision``: while it stays the same, the reader's own zoom and pan are
        kept when the figure is drawn again (give a new one when the target changes).

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

    text = GraphText(graph, feature_names, class_names, precision, show_missing)
    drawn = np.ones(graph.node_count, dtype=bool) if view is None else view.shown
    labelled_nodes = _LABELLED_NODES if view is None else _LABELLED_VIEW_NODES
    labels = _labels(text, view) if int(np.count_nonzero(drawn)) <= labelled_nodes else None
    x, y, routes, (parent, child, is_left), widths = _placed(graph, view, labels)
    on_path = path_mask(graph, highlight_sample)
    path_edges = on_path[parent] & on_path[child]

    flows = None if edge_samples is None else np.asarray(edge_samples)
    if flows is None:
        traces = [
            _edge_trace(routes, mask, name, dict(color="#888888", width=1, dash=dash))
            for name, mask, dash in (("yes (<=)", is_left, "solid"), ("no (>)", ~is_left, "dot"))
        ]
    else:
        flow = np.where(is_left, flows[parent, 0], flows[parent, 1])
        traces = _weighted_edge_traces(routes, is_left, flow)
    traces.append(_edge_trace(routes, path_edges, "path", dict(color=HIGHLIGHT_COLOR, width=4)))
    traces.append(_node_trace(graph, text, x, y, on_path, flows, view, labels))
    if view is not None:
        traces += _stub_traces(view, x, y) + _mix_traces(view, text, x, y)
    for name, color in _legend(graph, text):
        traces.append(
            _scatter(x=[None], y=[None], mode="markers", name=escape_html(name), marker=dict(color=color, size=10))
        )
    if text.regression:
        traces.append(_colour_bar(graph, target_name))
    # Every value is built here from a checked graph. Validating traces (go.Scatter, add_trace) checks
    # the node colours and hover texts one by one, most of the time for 100,000 nodes: so the traces
    # are plain dicts, handed to an unvalidated figure.
    fig = go.Figure(data=traces, _validate=False)
    n_layers = int(-np.min(y[drawn])) + 1
    labelled = view is not None and labels is not None
    height = figure_height(n_layers, layers, labelled=labelled) if frame_px is None else int(frame_px[1])
    x_range = _x_range(x[drawn], labels) if view is not None else None
    y_range = _y_range(layers, n_layers)
    focused = view is not None and focus_node is not None and frame_px is not None and drawn[int(focus_node)]
    if focused:
        extent = x_range or [float(np.nanmin(x[drawn])) - _SLOT, float(np.nanmax(x[drawn])) + _SLOT]
        boxes = (x[drawn] - widths[drawn] / 2, x[drawn] + widths[drawn] / 2, y[drawn])
        x_range, y_range = focus_ranges(
            (x[int(focus_node)], y[int(focus_node)]), extent, n_layers, (frame_px[0], height), labelled, boxes
        )
    fig.update_layout(
        height=height,
        dragmode="pan",
        hovermode="closest",
        plot_bgcolor="white",
        margin=dict(l=10, r=10, t=TOP_PX, b=10),
        xaxis=dict(visible=False, range=x_range),
        yaxis=dict(visible=False, range=y_range),
        legend=dict(itemsizing="constant", orientation="h", yanchor="bottom", y=1.0, x=0),
        hoverlabel=dict(align="left"),
        uirevision=uirevision,
    )
    # The arrows to the target and to the inspected node: in a focused figure each where it crosses no
    # edge and covers no node or label (tnt.viz.callout), else up and to the side.
    free = FreeSpace(fig, int(frame_px[0]), _CHAR_PX) if focused else None
    if focused and focus_node != selected_node:  # the target, when not the inspected node: a search hit, a leaf
        node = int(focus_node)
        ax, ay = free.place(x[node], y[node], f"#{node}") if free else (-30, -30)
        fig.add_annotation(
            x=x[node], y=y[node], text=f"#{node}", showarrow=True, arrowhead=2, arrowwidth=1.5,
            arrowcolor="#1f5fbf", ax=ax, ay=ay, bgcolor="#e3eeff", bordercolor="#1f5fbf", name="target",
        )  # fmt: skip
    if selected_node is not None and drawn[int(selected_node)]:
        node = int(selected_node)
        ax, ay = free.place(x[node], y[node], f"#{node}", bold=True) if free else (30, -30)
        fig.add_annotation(
            x=x[node], y=y[node], text=f"<b>#{node}</b>", showarrow=True, arrowhead=2, arrowwidth=2,
            arrowcolor="#111111", ax=ax, ay=ay, bgcolor="#fff7cc", bordercolor="#111111", name="inspected",
        )  # fmt: skip
    return fig


def standalone_html(figure, title: str = "Decision graph") -> str:
    """A figure as one self-contained HTML page (plotly.js embedded, no network access needed):
    drag pans, the scroll wheel zooms, hovering a node shows its details.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.plotly_view import graph_figure, standalone_html
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.8, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> page = standalone_html(graph_figure(g), title="A & B")
    >>> "<title>A &amp; B</title>" in page, "<script src=" in page, len(page) > 3_000_000
    (True, False, True)
    """
    import html

    page = figure.to_html(include_plotlyjs=True, full_html=True, config={"scrollZoom": True, "displaylogo": False})
    return page.replace("<head>", f"<head><title>{html.escape(title)}</title>", 1)


def figure_height(n_layers: int, layers=None, labelled: bool = False) -> int:
    """Height in pixels of :func:`graph_figure` for a graph of ``n_layers`` layers with ``layers``
    (first, last) in view at first (all when None): 30 px a layer (90 px when ``labelled``: a view's
    labels of up to three lines under each node), between 450 and 1,400 px.

    Examples
    --------
    >>> figure_height(5), figure_height(20), figure_height(64), figure_height(64, layers=(0, 9))
    (450, 600, 1400, 450)
    >>> figure_height(8, labelled=True)
    720
    """
    if layers is not None:
        first, last = (int(v) for v in layers)
        n_layers = min(last, n_layers - 1) - max(first, 0) + 1
    return int(np.clip((_LABELLED_LAYER_PX if labelled else _LAYER_PX) * n_layers, _MIN_HEIGHT, _MAX_HEIGHT))


def focus_ranges(at, extent, n_layers: int, frame_px, labelled: bool = True, boxes=None):
    """The axes' ranges of a view's figure opened on the node at ``at`` (x, y), in a frame
    ``frame_px`` (width, height) px: as many slots across as fit at :data:`_SLOT_PX` each (where
    :data:`LABEL_PX` labels do not overlap) and as many whole layers down as fit at the figure's px a
    layer, centred on the node, shifted to stay within the drawing (``extent``, its x range, and
    its ``n_layers`` layers); the whole drawing along an axis where it fits.

    No node is cut at an edge of the window: vertically the window holds whole layers (a layer's stubs
    and class-mix bars above its nodes, its labels below them), and across, given the nodes' ``boxes``,
    each side is where it cuts no box of those layers: moved to an end of the boxes it would cut, the
    window at most as wide (else a quarter wider, as the boxes at that zoom), or, where the boxes of
    these layers leave no such sides, on fewer layers about the target's.

    Parameters
    ----------
    at : (float, float)
        The target node's x and y in the figure (layer ``k`` at y = -k).
    extent : (float, float)
        The drawing's x range, labels included.
    n_layers : int
        Layers of the drawing.
    frame_px : (int, int)
        Width and height of the figure in px.
    labelled : bool, default=True
        Whether the nodes carry labels (90 px a layer, else 30 px).
    boxes : (ndarray, ndarray, ndarray), default=None
        Left and right edges (x) and y of each node's box (its label's width); the window's sides are
        not moved when omitted.

    Returns
    -------
    x_range, y_range : list of float
        ``[low, high]`` of each axis.

    Examples
    --------
    >>> [[round(v, 2) for v in r] for r in focus_ranges((0.0, 0.0), [-2.0, 2.0], 3, (800, 720))]  # fits: the whole drawing
    [[-2.0, 2.0], [-2.21, 0.37]]
    >>> [round(v, 2) for v in focus_ranges((40.0, -30.0), [-50.0, 50.0], 60, (597, 720))[0]]
    [35.97, 44.03]
    >>> boxes = np.array([35.0, 39.5, 44.0]), np.array([37.0, 40.5, 46.0]), np.array([-30.0, -30.0, -30.0])
    >>> [round(v, 2) for v in focus_ranges((40.0, -30.0), [-50.0, 50.0], 60, (597, 720), boxes=boxes)[0]]
    [37.0, 44.0]
    """
    width, height = frame_px
    slots = max(width - _MARGIN_X, 1) / _SLOT_PX
    # Whole layers: a layer takes _STUB_RISE of a pitch and _ABOVE_PX above its nodes, _BELOW_PX below them.
    rows_px = max(height - _MARGIN_Y, 1) - _ABOVE_PX - (_BELOW_PX if labelled else _MARKER_PX)
    pitch = max(_LABELLED_LAYER_PX if labelled else _LAYER_PX, _LAYER_GAP_PX / (1 - _STUB_RISE))
    fit = int(np.clip(np.floor(rows_px / pitch + 1 - _STUB_RISE), 1, n_layers))  # whole layers that fit
    first = min(max(round(-float(at[1])) - (fit - 1) // 2, 0), n_layers - fit)
    last = first + fit - 1
    pitch = rows_px / (fit - 1 + _STUB_RISE)  # the window's px a layer
    x_range = _window(float(at[0]), slots, float(extent[0]), float(extent[1]))
    if boxes is not None:  # fewer layers where the boxes of these leave no side free
        left, right, y = (np.asarray(v, dtype=float) for v in boxes)
        own = np.flatnonzero((left <= at[0]) & (right >= at[0]) & (np.abs(y - at[1]) < 0.01))
        keep = (float(left[own].min()), float(right[own].max())) if own.size else (float(at[0]), float(at[0]))
        target = round(-float(at[1]))
        for _ in range(fit):
            seen = (y >= -last - 0.01) & (y <= -first + 0.01)  # the nodes of the layers in the window
            moved = _off_boxes(x_range, left[seen], right[seen], keep) or _off_boxes(
                x_range, left[seen], right[seen], keep, grow=1.25
            )
            if moved is not None or first == last:
                x_range = moved or x_range
                break
            first, last = (first + 1, last) if target - first > last - target else (first, last - 1)
        pitch = rows_px / (last - first + _STUB_RISE)
    y_range = [-last - (_BELOW_PX if labelled else _MARKER_PX) / pitch, -first + _STUB_RISE + _ABOVE_PX / pitch]
    return x_range, y_range


#: What a layer draws below its nodes' centres in px: half a summary's marker, and with labels a gap
#: and a summary's three lines; above them: its stubs (:data:`_STUB_RISE` of a layer) and, in px, a
#: stub's half marker, a gap and its ``#id``. Two layers are at least one's below and the other's
#: above apart (``_LAYER_GAP_PX`` and the rise).
_MARKER_PX = 8.0
_BELOW_PX = _MARKER_PX + 3 + 3 * 1.3 * LABEL_PX
_ABOVE_PX = 2.5 + 2 + 1.3 * LABEL_PX
_LAYER_GAP_PX = _BELOW_PX + _ABOVE_PX


def _off_boxes(window, left, right, keep, grow: float = 1.0):
    """``window`` (low, high) with its sides where they cut none of the boxes (``left``, ``right``),
    ``keep`` (the target's box: its left and right) inside, and at most ``grow`` times as wide (the
    boxes then taken ``grow`` times as wide, as at that less zoom); the widest such window, else None.
    A side stays where it is if it cuts nothing, or moves to either end of the run of boxes it cuts."""
    low, high = window
    span = (high - low) * grow
    centre = (left + right) / 2
    left, right = centre - (centre - left) * grow, centre + (right - centre) * grow
    order = np.argsort(left)
    runs = []  # the boxes merged into runs of overlapping ones: [start, end]
    for a, b in zip(left[order].tolist(), right[order].tolist()):
        if runs and a < runs[-1][1]:
            runs[-1][1] = max(runs[-1][1], b)
        else:
            runs.append([a, b])

    def ends(at: float) -> list[float]:
        run = next((r for r in runs if r[0] < at < r[1]), None)
        return [at] if run is None else run

    lows = [v for v in [*ends(low), ends(keep[0])[0]] if v <= keep[0]]
    highs = [v for v in [*ends(high), ends(keep[1])[-1]] if v >= keep[1]]
    pairs = [(lo, hi) for lo in lows for hi in highs if hi - lo <= span + 1e-9]
    if not pairs:
        return None
    return list(max(pairs, key=lambda p: (p[1] - p[0], -abs(p[0] + p[1] - low - high))))


def _window(centre: float, span: float, low: float, high: float) -> list[float]:
    """A range ``span`` wide centred on ``centre``, shifted to stay within [low, high]; [low, high]
    when it is narrower than ``span``."""
    if high - low <= span:
        return [low, high]
    start = min(max(centre - span / 2, low), high - span)
    return [start, start + span]


def _x_range(x, labels):
    """A view's horizontal range: its nodes and half the longest label line on either side (plotly's
    own range would cut the labels of the leftmost and rightmost nodes)."""
    if not labels:
        return None
    half = 0.75 * max(_longest_line(label) for label in labels.values()) / _SLOT_CHARS * _SLOT  # and a margin
    return [float(np.min(x)) - half, float(np.max(x)) + half]


def _longest_line(label: str) -> int:
    """Characters of the longest line of a label (``<br>`` between lines, HTML escapes counted once)."""
    return max(len(html.unescape(line)) for line in label.split("<br>"))


def _y_range(layers, n_layers: int):
    """The vertical axis range showing ``layers`` (first, last), with half a layer of margin."""
    if layers is None:
        return None
    first, last = (int(v) for v in layers)
    return [-min(last, n_layers - 1) - 0.5, -max(first, 0) + 0.5]


def _scatter(**properties) -> dict:
    """A scatter trace as a plain dict (for the unvalidated figure)."""
    return dict(type="scatter", **properties)


def _labels(text, view=None) -> dict:
    """The text written under each node drawn (its rule; a summary's line below it), by node id."""
    drawn = range(text.graph.node_count) if view is None else np.flatnonzero(view.shown).tolist()
    labels = {}
    for node in drawn:
        labels[node] = escape_html(text.rule(node))
        if view is not None and view.summary[node]:
            labels[node] += "".join("<br>" + escape_html(line) for line in _summary_lines(view, text, node))
    return labels


def _placed(graph, view=None, labels=None):
    """x and y of every node drawn (NaN for the others), each drawn edge's polyline ``(xs, ys)``, and
    the drawn edges as (parent, child, is_left) arrays (:func:`tnt.viz.dag_layout.laid_edges`'s order):
    every node and edge, or what ``view`` shows. A view's ``labels`` (by node) each get a box as wide
    as their longest line (:data:`_SLOT` per :data:`_SLOT_CHARS` characters), so that at the zoom
    where one slot holds that many characters no two labels overlap; and each node's box width (x units)."""
    # Every node, reached or not (as layered_layout): a node of the arrays is always drawn.
    laid = np.ones(graph.node_count, dtype=bool) if view is None else view.shown
    depth = graph.node_depth() if view is None else view.layers()  # dag_layout's layers
    edges = parent, child, _ = laid_edges(graph, laid)
    dummies = int(np.maximum(depth[child] - depth[parent] - 1, 0).sum())
    if graph.node_count > DAG_LAYOUT_NODES or dummies > DAG_LAYOUT_DUMMIES:
        x, y = layered_layout(graph)
        x, y = np.where(laid, x, np.nan), np.where(laid, y, np.nan)
        routes = [([x[p], x[c]], [y[p], y[c]]) for p, c in zip(parent.tolist(), child.tolist())]
        return x, y, routes, edges, np.full(graph.node_count, 0.6 * _SLOT)
    widths = np.full(graph.node_count, 0.6 * _SLOT)
    if view is not None and labels:
        for node, label in labels.items():
            widths[node] = max(widths[node], _SLOT * _longest_line(label) / _SLOT_CHARS)
    layout = dag_layout(graph, widths=widths, gap=0.4 * _SLOT, nodes=laid, layers=depth)
    x = layout.x - layout.width / 2
    y = np.where(laid, -layout.layer.astype(np.float64), np.nan)
    routes = []
    for e in range(layout.parent.size):
        points = layout.route(e)
        routes.append(([px - layout.width / 2 for px, _ in points], [-float(level) for _, level in points]))
    return x, y, routes, edges, widths


def _weighted_edge_traces(routes, is_left, flow) -> list[dict]:
    """Edges grouped by width level (proportional to ``flow``), one trace per level and branch."""
    top = float(flow.max()) if flow.size else 0.0
    level = np.zeros(flow.size, dtype=int) if top <= 0 else np.ceil(flow / top * _WIDTH_LEVELS).astype(int)
    traces = []
    for name, branch, dash in (("yes (<=)", is_left, "solid"), ("no (>)", ~is_left, "dot")):
        first = True
        for k in range(_WIDTH_LEVELS + 1):
            mask = branch & (level == k)
            if not mask.any():
                continue
            width = 0.5 if k == 0 else max(1.0, _MAX_EDGE_WIDTH * k / _WIDTH_LEVELS)
            line = dict(color="#888888", width=width, dash=dash if k < 3 else "solid")
            trace = _edge_trace(routes, mask, name, line)
            trace.update(legendgroup=name, showlegend=first, opacity=0.75)
            traces.append(trace)
            first = False
    return traces


def _edge_trace(routes, mask, name, line) -> dict:
    """The edges ``mask`` picks as one line trace: each edge's points, then None, which separates
    the lines of one trace."""
    xs, ys = [], []
    for e in np.flatnonzero(mask).tolist():
        xs += [*routes[e][0], None]
        ys += [*routes[e][1], None]
    return _scatter(x=xs, y=ys, mode="lines", name=name, line=line, hoverinfo="skip")


def _node_trace(graph, text, x, y, on_path, flows=None, view=None, labels=None) -> dict:
    drawn = np.flatnonzero(np.ones(graph.node_count, dtype=bool) if view is None else view.shown)
    summary = np.zeros(graph.node_count, dtype=bool) if view is None else view.summary
    shared = text.n_parents > 1
    outline = np.where(on_path, HIGHLIGHT_COLOR, np.where(shared, "#222222", "#ffffff"))
    labelled = labels is not None
    small = drawn.size > _MANY_NODES
    hover = _hover_texts(text, flows, drawn)
    for node in np.flatnonzero(summary).tolist():
        hover[node] += f"<br><b>{escape_html(', '.join(_summary_lines(view, text, node)))}</b> (click to open)"
    return _scatter(
        x=x[drawn].tolist(),
        y=y[drawn].tolist(),
        mode="markers+text" if labelled else "markers",
        name="nodes",
        showlegend=False,
        text=[labels[i] for i in drawn.tolist()] if labelled else None,
        textposition="middle right" if view is None else "bottom center",
        textfont=dict(size=LABEL_PX, shadow=LABEL_HALO),
        hovertext=[hover[i] for i in drawn.tolist()],
        hoverinfo="text",
        customdata=drawn.tolist(),
        marker=dict(
            color=[text.colors[i] for i in drawn.tolist()],
            size=np.where(summary, 16, np.where(text.is_leaf, 5 if small else 9, 7 if small else 12))[drawn],
            symbol=np.where(summary, "diamond", np.where(text.is_leaf, "square", "circle"))[drawn],
            line=dict(color=outline[drawn], width=np.where(shared | on_path, 2.5, 0.5)[drawn]),
            opacity=1.0,
        ),
    )


def _summary_lines(view, text, node: int) -> list[str]:
    """A summary node's lines: what it hides, its samples, and its leaves' range of values in a
    regression graph (its class mix is a bar)."""
    lines = [view.hidden_text(node), f"samples = {text.samples(node):,}"]
    if text.regression:
        low, high = view.value_range(node)
        lines.append(f"values {format_value(low)} to {format_value(high)}")
    return lines


def _stub_traces(view, x, y) -> list[dict]:
    """Each edge from a node not shown: a short dotted line from a grey ``#id`` marker (``customdata``
    the hidden parent's id) down to the node it enters; a node with many hidden parents names a few
    and a "+n more parents" marker (``customdata`` -1) folds the others."""
    sx, sy, labels, ids, lx, ly = [], [], [], [], [], []
    for child, (parents, more) in view.drawn_stubs().items():
        ends = [(f"#{p}", p) for p in parents] + ([(f"+{more:,} more parents", -1)] if more else [])
        for k, (label, parent) in enumerate(ends):
            px, py = x[child] + (k - (len(ends) - 1) / 2) * _STUB_STEP, y[child] + _STUB_RISE
            sx.append(px)
            sy.append(py)
            labels.append(label)
            ids.append(parent)
            lx += [px, x[child], None]
            ly += [py, y[child], None]
    line = _scatter(x=lx, y=ly, mode="lines", name="stub edges", showlegend=False, hoverinfo="skip",
                    line=dict(color="#999999", width=1, dash="dot"))  # fmt: skip
    markers = _scatter(
        x=sx, y=sy, mode="markers+text", name="stubs", showlegend=False, text=labels, textposition="top center",
        textfont=dict(size=LABEL_PX, color="#777777", shadow=LABEL_HALO), customdata=ids, hoverinfo="text",
        hovertext=[f"{label}: a parent not shown" + (" (click to open the way to it)" if i >= 0 else "")
                   for label, i in zip(labels, ids)],
        marker=dict(color="#bbbbbb", size=5, symbol="circle"),
    )  # fmt: skip
    return [line, markers]


#: A summary's class-mix bar: this wide (x units) and this far above its node (layers).
_BAR_WIDTH, _BAR_DROP = 0.6 * _SLOT, 0.2


def _mix_traces(view, text, x, y) -> list[dict]:
    """The class mix of every summary node as a bar under it, split by class share in class order:
    one line trace per class (none for a regression graph, whose summaries say their range of values)."""
    if text.regression:
        return []
    summaries = np.flatnonzero(view.summary)
    shares = text.proba[summaries]
    starts = np.cumsum(shares, axis=1) - shares
    traces = []
    for k, color in enumerate(class_palette(view.graph.n_classes)):
        xs, ys = [], []
        for row, node in enumerate(summaries.tolist()):
            if shares[row, k] > 0:
                left = x[node] - _BAR_WIDTH / 2 + _BAR_WIDTH * starts[row, k]
                xs += [left, left + _BAR_WIDTH * shares[row, k], None]
                ys += [y[node] + _BAR_DROP] * 2 + [None]
        if xs:
            traces.append(_scatter(x=xs, y=ys, mode="lines", name=f"mix {text.class_name(k)}", showlegend=False,
                                   hoverinfo="skip", line=dict(color=color, width=6)))  # fmt: skip
    return traces


def _hover_texts(text: GraphText, flows=None, nodes=None) -> dict:
    """Each node's hover text (of ``nodes``, the drawn ones, or of every node), by node: rule,
    samples, class shares (mean and spread in a regression graph), parents and, given ``flows``
    (samples sent left and right), what each split sends each way. Only the drawn nodes' texts are
    written: a view of 74 nodes of a 4,801-node graph spent 0.3 s writing them all."""
    nodes = list(range(text.graph.node_count)) if nodes is None else [int(n) for n in nodes]
    shares = dict(zip(nodes, text.all_shares_text(top=5, nodes=nodes)))
    samples = text.graph.n_node_samples.tolist()
    sent = None if flows is None else flows[:, :2].tolist()
    is_leaf, all_parents = text.is_leaf.tolist(), text.parents()
    texts = {}
    for node in nodes:
        leaf, parents = is_leaf[node], all_parents[node]
        lines = [
            f"<b>#{node}</b> {'leaf' if leaf else 'split'}: {escape_html(text.rule(node))}",
            f"samples = {samples[node]}",
            escape_html(shares[node]) or "no training samples",
        ]
        if parents:
            listed = ", ".join(f"#{p}" for p in parents[:_MAX_LISTED_PARENTS])
            more = len(parents) - _MAX_LISTED_PARENTS
            lines.append(f"parents: {listed}" + (f" and {more} more" if more > 0 else ""))
        else:
            lines.append("root")
        if len(parents) > 1:
            lines.append(f"shared by {len(parents)} parents")
        if not leaf and text.missing_goes(node) == "no":
            lines.append("missing values go: no")
        if sent is not None and not leaf:
            yes, no = sent[node]
            lines.append(f"training samples sent: {int(yes):,} yes, {int(no):,} no")
        texts[node] = "<br>".join(lines)
    return texts


def _colour_bar(graph, target_name: str | None) -> dict:
    """An invisible trace carrying the colour bar of a regression graph: :data:`VALUE_SCALE` from the
    smallest to the largest node mean, as the nodes are coloured."""
    low, high = value_range(graph)
    title = escape_html(f"mean {target_name}" if target_name else "mean target")
    return _scatter(
        x=[None],
        y=[None],
        mode="markers",
        name="mean target",
        showlegend=False,
        hoverinfo="skip",
        marker=dict(
            color=[low, high],
            cmin=low,
            cmax=high if high > low else low + 1.0,
            colorscale=[list(stop) for stop in VALUE_SCALE],
            showscale=True,
            colorbar=dict(title=dict(text=title, side="right"), thickness=14, len=0.8, outlinewidth=0),
        ),
    )


def _legend(graph, text: GraphText) -> list[tuple[str, str]]:
    """(name, colour) of each class that colours some node, then "mixed" if any node is mixed (none
    for a regression graph: its colour bar stands for the legend)."""
    if text.regression:
        return []
    palette = class_palette(graph.n_classes)
    present = np.unique(text.dominant)
    entries = [(text.class_name(k), palette[k]) for k in present if k >= 0]
    if np.any(present < 0):
        entries.append((MIXED_LABEL, MIXED_COLOR))
    return entries
