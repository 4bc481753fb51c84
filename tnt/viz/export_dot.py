"""A decision graph as Graphviz DOT source, each node drawn exactly once."""

from __future__ import annotations

import functools
import html
import itertools

import numpy as np

from tnt.viz.colors import HIGHLIGHT_COLOR, MIXED_COLOR, MIXED_LABEL, class_palette, fill_color
from tnt.viz.exporter import GraphText, escape_dot, path_mask
from tnt.wording import format_value

__all__ = ["drawn_node_count", "to_dot"]

_RANKDIRS = ("TB", "LR", "BT", "RL")
_FONT = "DejaVu Sans"


def to_dot(
    graph,
    *,
    feature_names=None,
    class_names=None,
    show_ids=False,
    show_samples: bool = True,
    show_shares: bool = False,
    precision: int = 3,
    rankdir: str = "TB",
    depth_window: tuple[int, int] | None = None,
    highlight_sample=None,
    highlight_edges=None,
    highlight_nodes=None,
    nodes=None,
    legend: bool = False,
    show_missing: bool | None = None,
    view=None,
) -> str:
    """Graphviz DOT source of a decision graph.

    Internal nodes show their split (``petal width <= 0.8``), leaves their class. The edge taken
    when the split's test holds is marked "yes" (solid), the other "no" (dashed). Where a graph
    learned directions for missing values, the branch they take says so: the rule ends in
    ``or missing`` when it is "yes", the edge reads "no, or missing" when it is "no", and a test of
    missingness reads ``age is not missing``, its "no" edge taking the missing values. A node with
    more than one parent has a double border and says how many parents share it. Node fill
    follows :mod:`tnt.viz.colors`. All names are escaped, so they show literally.

    Parameters
    ----------
    graph : DecisionGraph
    feature_names, class_names : sequence of str, default=None
        Names of the features and of the classes (columns of ``graph.value``).
    show_ids : bool or array-like of int, default=False
        Start each label with the node id (``#17``); an array gives the id to show for each node (the
        ids a person saw before editing the graph, :attr:`tnt.editing.EditStep.original_ids`).
    show_samples : bool, default=True
        Show the number of training samples reaching each node.
    show_shares : bool, default=False
        Show the largest class shares at each node (three at most, then how many more).
    precision : int, default=3
        Decimals of thresholds and shares.
    rankdir : {"TB", "LR", "BT", "RL"}, default="TB"
        Orientation of the drawing.
    depth_window : (int, int), default=None
        Show only the layers ``a..b`` (inclusive) of ``graph.node_depth()``. An edge leaving the
        window ends in a small stub naming the node outside it.
    highlight_sample : array-like of shape (n_features,), default=None
        Draw the path of this sample bold, in :data:`HIGHLIGHT_COLOR`.
    highlight_edges : iterable of (int, int), default=None
        Edges ``(parent, child)`` drawn bold in :data:`HIGHLIGHT_COLOR` (for instance every edge
        into a shared node); their child gets a bold border.
    highlight_nodes : iterable of int, default=None
        Nodes drawn with a bold border in :data:`HIGHLIGHT_COLOR` (for instance those an edit changed).
    nodes : iterable of int, default=None
        Show only these nodes (within the depth window, if any); edges leaving them end in stubs,
        as at the window's edges.
    legend : bool, default=False
        Add a key below the graph: one chip per class that colours a node, "mixed" if any node
        is mixed, and the highlighted path if one is drawn.
    show_missing : bool, default=None
        Say where missing values go at every threshold split (True) or at none (False); by default
        only in a graph that learned them from training data with missing values
        (:func:`tnt.wording.shows_missing`). A test of missingness is always written as one.
    view : tnt.viz.focus.GraphView, default=None
        Draw only what this view of ``graph`` shows (not with ``depth_window`` or ``nodes``): each
        collapsed split as a summary node (dashed border: its test, the splits below it, its
        samples, and its class mix as a bar or the range of its leaves' values), an edge from a
        node not shown as a stub naming it.

    Returns
    -------
    source : str

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.export_dot import to_dot
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.8, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> source = to_dot(g, feature_names=["petal width"], class_names=["setosa", "other"])
    >>> 'label="petal width <= 0.8\\\\nsamples = 0"' in source
    True
    """
    import graphviz
    from graphviz.quoting import quote

    if rankdir not in _RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(_RANKDIRS)}, got {rankdir!r}.")
    text = GraphText(graph, feature_names, class_names, precision, show_missing)
    if view is not None and (depth_window is not None or nodes is not None):
        raise ValueError("Give a view, or a depth window and nodes, not both.")
    shown = _window(text.depth, depth_window) if view is None else view.shown.copy()
    collapsed = np.zeros(graph.node_count, dtype=bool) if view is None else view.summary
    if nodes is not None:
        chosen = np.zeros(graph.node_count, dtype=bool)
        chosen[np.asarray(list(nodes), dtype=np.intp)] = True
        shown &= chosen
    on_path = path_mask(graph, highlight_sample)
    marked = {(int(p), int(c)) for p, c in (highlight_edges or ())}
    targets = {c for _, c in marked} | {int(n) for n in (highlight_nodes if highlight_nodes is not None else ())}

    dot = graphviz.Digraph("decision_graph")
    # ordering=out keeps each split's "yes" child left of its "no" child (above it for LR).
    dot.attr("graph", rankdir=rankdir, nodesep="0.25", ranksep="0.45", ordering="out")
    dot.attr("node", shape="box", style="rounded,filled", fontname=_FONT, fontsize="11", penwidth="1.2")
    dot.attr("edge", fontname=_FONT, fontsize="9", arrowsize="0.6", color="#555555", fontcolor="#555555")

    # Python ints and lists in the loops below: a graph of 100,000 nodes has 200,000 edges.
    shown_at, lit_at = shown.tolist(), on_path.tolist()
    fills, colors = text.fills, text.colors
    for node in np.flatnonzero(shown).tolist():
        if collapsed[node]:
            label = _summary_label(view, text, node, show_ids)
        else:
            label = quote(_label(_label_lines(text, node, show_ids, show_samples, show_shares)))
        lit = lit_at[node] or node in targets
        # What _attributes writes for these attributes (sorted by name, values quoted), without its
        # dictionary, sort and graphviz quoting per node: half of the time on 100,000 nodes.
        # "node17" needs no quotes.
        attrs = (
            f"color={_quoted(HIGHLIGHT_COLOR if lit else colors[node])} fillcolor={_quoted(fills[node])} id=node{node}"
        )
        attrs += (" penwidth=3" if lit else "") + (" peripheries=2" if text.is_shared(node) else "")
        attrs += ' style="rounded,filled,dashed"' if collapsed[node] else ""
        dot.body.append(f"\tn{node} [label={label} {attrs}]\n")

    # The attribute lists an edge can have: "yes" or "no" (the "no" that missing values take when
    # the rule does not say so: "no, or missing"), on the highlighted path or not.
    edge_attrs = {}
    for branch, lit, missing in itertools.product(("left", "right"), (False, True), (False, True)):
        # ``label``, laid out with the graph: an ``xlabel`` is placed after the layout, and wrote "yes"
        # against "no, or missing" where two edges met.
        attrs = {"label": "yes"} if branch == "left" else {"label": "no", "style": "dashed"}
        if missing:
            attrs["label"] += ", or missing"
        if lit:
            attrs.update(color=HIGHLIGHT_COLOR, penwidth="3")
        edge_attrs[branch, lit, missing] = _attributes(None, attrs)
    stubs = set()
    left, right = graph.children_left.tolist(), graph.children_right.tolist()
    collapsed_at = collapsed.tolist()
    # A view names at most a few of a shown node's hidden parents, the others in one "+n more" stub.
    named = None if view is None else {c: set(first) for c, (first, _) in view.drawn_stubs().items()}
    for parent in np.flatnonzero(~graph.is_leaf).tolist():
        for branch, child in (("left", left[parent]), ("right", right[parent])):
            if not (shown_at[parent] or shown_at[child]):
                continue
            if collapsed_at[parent] and not shown_at[child]:  # a summary hides what is below it
                continue
            if named is not None and not shown_at[parent] and parent not in named[child]:
                continue
            for end in (parent, child):
                if not shown_at[end] and end not in stubs:
                    stubs.add(end)
                    stub = {"shape": "plaintext", "style": "", "fontcolor": "#777777", "id": f"stub{end}"}
                    _add_node(dot, f"n{end}", f"#{end}", stub)
            lit = (lit_at[parent] and lit_at[child]) or (parent, child) in marked
            missing = branch == "right" and text.missing_goes(parent) == "no"
            dot.body.append(f"\tn{parent} -> n{child}{edge_attrs[branch, lit, missing]}\n")
    for child, (_, more) in (view.drawn_stubs() if view is not None else {}).items():
        if more:
            stub = {"shape": "plaintext", "style": "", "fontcolor": "#777777", "id": f"more{child}"}
            _add_node(dot, f"m{child}", f"+{more:,} more parents", stub)
            dot.body.append(f'\tm{child} -> n{child} [color="#999999" style=dashed]\n')
    if legend:
        _add_legend(dot, graph, text, highlight_sample is not None)
    return dot.source


def _add_node(dot, name: str, label: str, attrs: dict) -> None:
    """``dot.node(name, label=label, **attrs)``, the same line, for a name that needs no quoting:
    without graphviz's argument handling per call, which took most of the time of a graph of
    100,000 nodes."""
    dot.body.append(f"\t{name}{_attributes(label, attrs)}\n")


def _attributes(label, attrs: dict) -> str:
    """graphviz's attribute list (``quoting.attr_list``): the label first, then the others sorted."""
    from graphviz.quoting import quote

    items = [f"label={quote(label)}"] if label is not None else []
    items += [f"{_quoted(key)}={_quoted(value)}" for key, value in sorted(attrs.items())]
    return f" [{' '.join(items)}]"


@functools.lru_cache(maxsize=1024)
def _quoted(value: str) -> str:
    """graphviz's quoting of an attribute name or value: few distinct ones (colours, widths)."""
    from graphviz.quoting import quote

    return quote(value)


def _add_legend(dot, graph, text: GraphText, with_path: bool) -> None:
    """A row of chips above the graph (alone on the first rank), in the colours of :mod:`tnt.viz.colors`."""
    palette = class_palette(graph.n_classes)
    present = np.unique(text.dominant)
    chips = [(text.class_name(k), palette[k], 1.2) for k in present if k >= 0]
    if np.any(present < 0):
        chips.append((MIXED_LABEL, MIXED_COLOR, 1.2))
    if with_path:
        chips.append(("sample's path", HIGHLIGHT_COLOR, 3))
    with dot.subgraph(name="legend") as key:
        key.attr(rank="source")
        for i, (name, color, width) in enumerate(chips):
            fill = "white" if width == 3 else fill_color(color)
            key.node(f"legend{i}", label=_label([name]), fillcolor=fill, color=color, penwidth=str(width),
                     fontsize="10", id=f"legend{i}")  # fmt: skip


def drawn_node_count(graph, depth_window: tuple[int, int] | None = None) -> int:
    """Number of nodes in :func:`to_dot`'s drawing of ``graph``: the window's nodes and the stubs
    of the edges leaving it (what Graphviz has to lay out).

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.export_dot import drawn_node_count
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.8, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> drawn_node_count(g), drawn_node_count(g, (0, 0)), drawn_node_count(g, (1, 1))
    (3, 3, 3)
    """
    shown = _window(graph.node_depth(), depth_window)
    internal = ~graph.is_leaf
    parent = np.flatnonzero(internal)
    ends = []
    for child in (graph.children_left[internal], graph.children_right[internal]):
        crossing = shown[parent] != shown[child]  # one end in the window, the other a stub
        ends.append(np.where(shown[parent[crossing]], child[crossing], parent[crossing]))
    return int(np.count_nonzero(shown)) + int(np.unique(np.concatenate(ends)).size)


def _window(depth: np.ndarray, depth_window) -> np.ndarray:
    if depth_window is None:
        return np.ones(depth.shape[0], dtype=bool)
    low, high = (int(v) for v in depth_window)
    if low < 0 or high < low:
        raise ValueError(f"depth_window must be (a, b) with 0 <= a <= b, got {tuple(depth_window)}.")
    return (depth >= low) & (depth <= high)


def _label_lines(text: GraphText, node: int, show_ids, show_samples, show_shares) -> list[str]:
    if isinstance(show_ids, (bool, np.bool_)) or show_ids is None:
        lines = [f"#{node}"] if show_ids else []
    else:
        lines = [f"#{int(show_ids[node])}"]
    lines.append(text.rule(node))
    if show_samples:
        lines.append(f"samples = {text.samples(node)}")
    if show_shares:
        lines.append(text.shares_text(node, top=3))
    if text.is_shared(node):
        lines.append(f"shared by {text.n_parents[node]} parents")
    return lines


#: Width (pt) of a summary node's class-mix bar: no wider than a split's box of short names.
_BAR_PT = 80


def _summary_label(view, text: GraphText, node: int, show_ids: bool) -> str:
    """The HTML-like DOT label of a collapsed split: its test, what it hides, its samples, and its
    class mix as a bar :data:`_BAR_PT` points wide (or its leaves' range of values)."""
    graph = view.graph
    head = ([f"#{node}"] if show_ids else []) + [text.rule(node)]
    head += [view.hidden_text(node), f"samples = {text.samples(node):,}"]  # short lines: a narrow box
    if graph.regression:
        low, high = view.value_range(node)
        head.append(f"values {format_value(low)} to {format_value(high)}")
        cells = []
    else:
        palette = class_palette(graph.n_classes)
        share = text.proba[node]
        cells = [(palette[k], max(2, round(_BAR_PT * share[k]))) for k in np.flatnonzero(share > 0).tolist()]
    span = max(len(cells), 1)
    rows = "".join(f'<TR><TD COLSPAN="{span}">{html.escape(line)}</TD></TR>' for line in head)
    if cells:
        bar = "".join(f'<TD WIDTH="{w}" HEIGHT="7" CELLPADDING="0" BGCOLOR="{c}"></TD>' for c, w in cells)
        rows += f"<TR>{bar}</TR>"
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{rows}</TABLE>>'


def _label(lines: list[str]) -> str:
    """One quoted DOT label: each line escaped, joined by Graphviz line breaks."""
    import graphviz

    # nohtml: a name such as "<b>" must never be taken for an HTML-like label.
    return graphviz.nohtml("\\n".join(escape_dot(line) for line in lines))
