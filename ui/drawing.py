"""Cached drawings and downloads of the current models, keyed on small hashable arguments.

The model itself is passed under a leading underscore (not hashed); ``model_key`` stands for it.
"""

from __future__ import annotations

import hashlib
import html
import re
import threading

import numpy as np
import streamlit as st

from tnt.codegen import LANGUAGES, export_code
from tnt.model_io import model_to_json
from tnt.viz import focus
from tnt.viz.colors import MIXED_COLOR, MIXED_LABEL, VALUE_SCALE, class_palette, value_range, value_ticks
from tnt.viz.export_dot import to_dot
from tnt.viz.export_text import export_text
from tnt.viz.plotly_view import graph_figure, standalone_html
from tnt.viz.render import render
from tnt.wording import format_value

# Graphviz is not thread-safe, and deferred downloads render on their own threads.
_GRAPHVIZ = threading.Lock()

MIME = {
    "svg": "image/svg+xml",
    "png": "image/png",
    "pdf": "application/pdf",
    "dot": "text/vnd.graphviz",
    "json": "application/json",
    "txt": "text/plain",
    "html": "text/html",
    "py": "text/x-python",
    "c": "text/x-c",
    "sql": "application/sql",
}
#: The code downloads: language (as :func:`tnt.codegen.export_code` names it) -> button label.
CODE_LABELS = {"python": "Python module", "c": "C function", "sql": "SQL query"}


def _joined(names: list) -> str:
    """A list (of feature or class names) as one string, as the drawing caches hash it: at once, not
    name by name (Streamlit's hasher takes about 35 us a name: MNIST's 784 pixel names, hashed by each
    cached drawing and download of the Graph page, cost 0.45 s of each rerun). Its ``repr``: two lists
    of strings give the same text only when they are the same.

    Examples
    --------
    >>> _joined(["a", "b"]) != _joined(["a, b"]), _joined(["1", 2])
    (True, "['1', 2]")
    """
    return repr(list(names))


#: The caches' hashing of list arguments (the names): :func:`_joined`.
NAMES_HASH = {list: _joined}


def fingerprint(graph) -> str:
    """A short hash of a graph's structure and statistics: cache keys include it, so a drawing
    cached by one session is never served for a different graph in another."""
    digest = hashlib.sha1()
    for array in (graph.children_left, graph.children_right, graph.feature, graph.threshold, graph.value):
        digest.update(array.tobytes())
    return digest.hexdigest()[:16]


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=NAMES_HASH)
def dot_source(model_key, _graph, feature_names, class_names, depth_window=None, sample_index=None, _sample=None):
    """DOT source of a graph (node ids shown), optionally windowed and with a sample's path."""
    return to_dot(
        _graph,
        feature_names=feature_names,
        class_names=class_names,
        show_ids=True,
        depth_window=depth_window,
        highlight_sample=_sample,
    )


#: The explorer's drawing area (px) in a 1,440 px wide window, the sidebar open: measured in chromium
#: (tests/test_browser_explorer.py checks it); its default view fits it at 11 px labels.
EXPLORER_FRAME_PX = (597, 686)
#: The same for the editor's drawing of a large graph (beside its controls, under the Graph page) and
#: for each of the Compare page's drawings (two a row; 446 px high before, where the default view of
#: the digits' model held 4 nodes, 8 now); measured in chromium by tests/test_browser_explorer.py and
#: tests/test_browser.py.
EDITOR_FRAME_PX = (553, 686)
COMPARE_FRAME_PX = (482, 686)


@st.cache_data(max_entries=32, show_spinner="Choosing the layers that fit...", hash_funcs=NAMES_HASH)
def default_expansion(
    model_key, _graph, feature_names, class_names, frame_px=EXPLORER_FRAME_PX, keep: tuple = ()
) -> frozenset:
    """The splits an explorer opens first: :func:`tnt.viz.focus.default_expansion` in its frame
    ``frame_px`` (width, height; the Graph page's :data:`EXPLORER_FRAME_PX` unless told), its width
    fitting the way down to the nodes ``keep`` too (a sample's path); Graphviz lays out each
    candidate, so under the lock."""
    width, height = frame_px
    with _GRAPHVIZ:
        return focus.default_expansion(
            _graph, feature_names, class_names, width=width, height=height, show_ids=True, keep=keep
        )


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=NAMES_HASH)
def view_source(
    model_key, _graph, feature_names, class_names, opened: tuple, node=None, sample_index=None, marked=(), _sample=None
):
    """DOT source of the explorer's view of a graph (node ids shown): the splits ``opened``, the
    inspected ``node`` and the nodes ``marked`` with a bold border, the path of test sample
    ``sample_index`` (``_sample``) in red."""
    return to_dot(
        _graph,
        feature_names=feature_names,
        class_names=class_names,
        show_ids=True,
        view=focus.graph_view(_graph, opened),
        highlight_sample=_sample,
        highlight_nodes=([] if node is None else [int(node)]) + list(marked),
    )


@st.cache_data(max_entries=32, show_spinner="Drawing the graph...")
def image(dot: str, fmt: str) -> bytes:
    """The DOT source rendered on the server (svg, png or pdf)."""
    with _GRAPHVIZ:
        return render(dot, fmt)


@st.cache_data(max_entries=16, show_spinner="Counting the samples along each edge...")
def edge_samples(model_key, data_key, _graph, _X):
    """Training samples each node sends left and right (``DecisionGraph.edge_samples``)."""
    return _graph.edge_samples(_X)


def interactive_html(graph, feature_names, class_names, title: str) -> bytes:
    """The whole graph as a standalone interactive HTML page (plotly.js inside: works offline)."""
    figure = graph_figure(graph, feature_names=feature_names, class_names=class_names)
    return standalone_html(figure, title=title).encode("utf-8")


def clicked_node(selection, node_count: int) -> int | None:
    """The node a click on the plotly view selected (its ``customdata``), or None.

    ``selection`` is the chart's state in ``st.session_state`` (``{"selection": {"points": [...]}}``);
    only the nodes' trace carries ``customdata``, so clicks on edges select nothing.

    Examples
    --------
    >>> clicked_node({"selection": {"points": [{"curve_number": 0}, {"customdata": 7}]}}, 10)
    7
    >>> clicked_node({"selection": {"points": [{"customdata": [3]}]}}, 10), clicked_node(None, 10)
    (3, None)
    """
    points = ((selection or {}).get("selection") or {}).get("points") or []
    for point in points:
        value = point.get("customdata")
        if isinstance(value, list):
            value = value[0] if value else None
        if isinstance(value, (int, float)) and 0 <= int(value) < node_count:
            return int(value)
    return None


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=NAMES_HASH)
def text_rules(model_key, _graph, feature_names, class_names) -> str:
    return export_text(_graph, feature_names=feature_names, class_names=class_names)


@st.cache_data(max_entries=32, show_spinner=False)
def model_json(model_key, _estimator) -> str:
    return model_to_json(_estimator)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=NAMES_HASH)
def model_code(model_key, _estimator, feature_names, language: str) -> str:
    """The model as code (:func:`tnt.codegen.export_code`), the features named as in the data."""
    return export_code(_estimator, language, feature_names=feature_names)


def class_shares_html(distribution: dict) -> str:
    """The HTML of :func:`class_shares`: a bar split by class, in class order, and a legend of the
    classes present in the same order; each legend entry is kept on one line (``nowrap``).

    Examples
    --------
    >>> text = class_shares_html({"a": 1, "b": 0, "c": 1533})
    >>> text.index(">a: 1 (0%)<") < text.index(">c: 1,533 (100%)<"), "b:" in text
    (True, False)
    >>> class_shares_html({"a": 0}).endswith(">no training samples</div>")
    True
    """
    names = list(distribution)
    colors = class_palette(len(names))
    total = sum(distribution.values()) or 1.0
    present = [(n, c, distribution[n]) for n, c in zip(names, colors) if distribution[n] > 0]
    bar = "".join(
        f'<span title="{html.escape(str(n))}: {format_value(v)}" style="display:inline-block;height:14px;'
        f'width:{100 * v / total:.2f}%;background:{c}"></span>'
        for n, c, v in present
    )
    entries = " ".join(  # the spaces between entries are the only places a line may break
        f'<span style="white-space:nowrap;margin-right:0.6em"><span style="color:{c}">&#9632;</span> '
        f"<span>{html.escape(str(n))}: {format_value(v)} ({100 * v / total:.0f}%)</span></span>"
        for n, c, v in present
    )
    return (
        f'<div style="display:flex;width:100%;border-radius:3px;overflow:hidden;background:#eee">{bar}</div>'
        f'<div style="font-size:0.85rem;margin-top:4px;line-height:1.5">{entries or "no training samples"}</div>'
    )


def class_shares(distribution: dict) -> None:
    """A bar split by class in the classes' colours, and the classes present with their counts,
    both in class order (:func:`class_shares_html`)."""
    st.html(class_shares_html(distribution))


def _short(text: str, limit: int = 36) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Height of one parent's bar in :func:`incoming_figure`, in pixels.
BAR_ROW_PX = 26


def incoming_figure(edges, class_names=None):
    """One chart of what arrives along each edge into a node: one row per edge (its parent's id
    and the condition on the way), busiest first; the samples on the left, and, for a classifier,
    one bar split by class share on the right (class colours, class order; hover for counts).

    Parameters
    ----------
    edges : sequence of :class:`tnt.services.sharing.IncomingEdge`
    class_names : sequence of str, default=None
        None for a regression graph: the samples only.

    Returns
    -------
    figure : plotly Figure
        Its ``samples`` trace holds one bar per edge; its height grows with the number of edges
        (:data:`BAR_ROW_PX` each).

    Examples
    --------
    >>> import numpy as np
    >>> from tnt.services.sharing import IncomingEdge
    >>> edges = [IncomingEdge(3, "left", "x <= 1", np.array([1.0, 3.0])),
    ...          IncomingEdge(5, "right", "y > 2", np.array([0.0, 6.0]))]
    >>> fig = incoming_figure(edges, ["a", "b"])
    >>> list(fig.data[0].y), list(fig.data[0].x), [t.name for t in fig.data[1:]]
    (['#5  y > 2', '#3  x <= 1'], [6, 4], ['a', 'b'])
    >>> [round(v) for v in fig.data[2].x]
    [100, 75]
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    order = sorted(range(len(edges)), key=lambda i: -edges[i].samples)  # stable: ties keep parent order
    edges = [edges[i] for i in order]
    labels = [f"#{e.parent}  {_short(e.condition)}" for e in edges]
    samples = [e.samples for e in edges]
    shown = [format_value(v) for v in samples]
    where = [f"<b>#{e.parent}</b> ({html.escape(e.condition)})" for e in edges]
    shares = class_names is not None
    fig = (
        make_subplots(rows=1, cols=2, shared_yaxes=True, column_widths=[0.28, 0.72], horizontal_spacing=0.03)
        if shares
        else go.Figure()
    )
    where_samples = {"row": 1, "col": 1} if shares else {}
    fig.add_trace(
        go.Bar(
            name="samples",
            y=labels,
            x=samples,
            orientation="h",
            marker_color="#9aa0a6",
            text=shown,
            textposition="outside",
            textfont={"size": 12},
            cliponaxis=False,
            customdata=list(zip(where, shown)),
            hovertemplate="%{customdata[0]}: %{customdata[1]} samples<extra></extra>",
            showlegend=False,
        ),
        **where_samples,
    )
    if shares:
        counts = [np.asarray(e.class_counts, dtype=float) for e in edges]
        totals = [c.sum() or 1.0 for c in counts]
        for k, (name, color) in enumerate(zip(class_names, class_palette(len(class_names)))):
            part = [c[k] / t * 100 for c, t in zip(counts, totals)]
            fig.add_trace(
                go.Bar(
                    name=str(name),
                    y=labels,
                    x=part,
                    orientation="h",
                    marker={"color": color, "line": {"width": 0}},
                    text=[str(name) if p >= 5 else "" for p in part],  # hidden where it does not fit
                    textposition="inside",
                    insidetextanchor="middle",
                    textangle=0,
                    textfont={"color": "black", "size": 10},
                    customdata=[(w, format_value(c[k]), f"{p:.0f}") for w, c, p in zip(where, counts, part)],
                    hovertemplate=f"%{{customdata[0]}}<br>{html.escape(str(name))}: %{{customdata[1]}} "
                    "(%{customdata[2]}%)<extra></extra>",
                ),
                row=1,
                col=2,
            )
    fig.update_layout(
        barmode="stack",
        height=BAR_ROW_PX * len(edges) + (100 if shares else 60),
        margin={"l": 0, "r": 10, "t": 90 if shares else 50, "b": 10},
        bargap=0.2,
        uniformtext={"minsize": 8, "mode": "hide"},
        legend={"orientation": "h", "x": 0, "y": 1, "yanchor": "top", "yref": "container", "traceorder": "normal"},
        font={"size": 13},
    )
    fig.update_yaxes(autorange="reversed", automargin=True, type="category", fixedrange=True, tickfont={"size": 13})
    fig.update_xaxes(side="top", showgrid=False, zeroline=False, fixedrange=True)
    top = max(samples, default=0) * 1.3 or 1  # room for the counts written past the bars
    fig.layout.xaxis.update(title_text="samples", range=[0, top], nticks=4)  # the first panel
    if shares:
        fig.update_xaxes(title_text="class shares", range=[0, 100], ticksuffix="%", row=1, col=2)
    return fig


#: How a drawing tells the two edges of a split apart, said under every drawing of a graph.
EDGE_LEGEND = "Left edge ('yes'): the test holds; dashed ('no'): it does not."


def legend(class_names) -> None:
    """One coloured chip per class, and blue for mixed nodes."""
    items = list(zip(class_names, class_palette(len(class_names)))) + [(MIXED_LABEL, MIXED_COLOR)]
    chips = "".join(
        f'<span style="display:inline-block;margin:0 12px 4px 0;white-space:nowrap">'
        f'<span style="display:inline-block;width:12px;height:12px;border-radius:3px;background:{color};'
        f'vertical-align:middle;margin-right:4px"></span>{html.escape(str(name))}</span>'
        for name, color in items
    )
    st.html(f'<div style="font-size:0.9rem">{chips}</div>')


def value_legend(graph, target_name: str) -> None:
    """The colour bar of a regression graph: :data:`~tnt.viz.colors.VALUE_SCALE` from the smallest to
    the largest node mean (the range the nodes are coloured over), with five values under it."""
    low, high = value_range(graph)
    stops = ", ".join(f"{color} {100 * position:g}%" for position, color in VALUE_SCALE)
    ticks = "".join(
        f'<span style="position:absolute;left:{100 * f:g}%;transform:translateX(-{100 * f:g}%)">{format_value(v)}</span>'
        for f, v in value_ticks(low, high)
    )
    st.html(
        f'<div style="font-size:0.9rem;max-width:520px">Node colour: mean <b>{html.escape(target_name)}</b> of '
        "the training samples reaching the node"
        f'<div style="height:14px;border-radius:3px;border:1px solid #bbb;margin-top:4px;'
        f'background:linear-gradient(to right, {stops})"></div>'
        f'<div style="position:relative;height:1.2em;font-size:0.8rem">{ticks}</div></div>'
    )


def compact_svg(svg: str) -> str:
    r"""Graphviz's SVG with what the explorer's frame does not use left out, for a smaller message at
    each click: the comments, each ``<title>`` (a tooltip naming the node ``n17``), the font family
    written on every text (the frame's stylesheet sets DejaVu Sans, the font Graphviz measured), and a
    second decimal of every number in a tag (a twentieth of a point; the texts, rules and counts, are
    not touched). Ids, classes, colours and sizes stay.

    Examples
    --------
    >>> compact_svg('<!-- n1 -->\n<g id="node1" class="node">\n<title>n1</title>\n'
    ...             '<text x="12.25" y="-3.50" font-family="DejaVu Sans" font-size="11.00">a &lt;= 0.25</text></g>')
    '<g id="node1" class="node">\n<text x="12.2" y="-3.5" font-size="11.0">a &lt;= 0.25</text></g>'
    """
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.DOTALL)
    svg = re.sub(r"<title>[^<]*</title>\n?", "", svg)
    svg = svg.replace(' font-family="DejaVu Sans"', "")
    return re.sub(r"<[^>]+>", lambda tag: _SECOND_DECIMAL.sub(r"\1", tag.group()), svg)


_SECOND_DECIMAL = re.compile(r"(\d\.\d)\d\b")


def svg_page(svg: bytes, *, fit: bool = False, height_px: int = 720, focus: int | None = 0) -> tuple[str, int]:
    """The HTML page :func:`svg_panel` shows, and the height of its frame.

    ``focus`` is a node id: a small script scrolls the frame so that node (Graphviz's
    ``<g id="node17">``, set by :func:`tnt.viz.export_dot.to_dot`) is in the middle, across and
    down, when the frame opens; None leaves the frame at its top left corner.

    Examples
    --------
    >>> svg = b'<?xml version="1.0"?><svg width="800pt" height="400pt"><g id="node7"></g></svg>'
    >>> page, height = svg_page(svg, focus=7)
    >>> page.count("<?xml"), "getElementById('node7')" in page, height
    (0, True, 720)
    >>> page, height = svg_page(svg, fit=True, focus=None)
    >>> "<script>" in page, height
    (False, 466)
    """
    text = svg.decode("utf-8")
    text = text[text.find("<svg") :]  # the XML prologue and doctype do not belong inside HTML
    style = "svg{width:100%;height:auto}" if fit else ""
    if fit:  # a frame as tall as the shrunk drawing (for a page about 900 px wide), not more
        size = re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', text[:400])
        if size:
            width, height = (float(v) for v in size.groups())
            height_px = int(min(max(900 * height / max(width, 1.0) + 16, 160), height_px))
    script = (
        ""
        if focus is None
        else (
            f"<script>function centre(){{const r=document.getElementById('node{int(focus)}');if(!r)return;"
            "const b=r.getBoundingClientRect();"
            "window.scrollTo(window.scrollX+b.left+b.width/2-window.innerWidth/2,"
            "window.scrollY+b.top+b.height/2-window.innerHeight/2);}"
            "centre();window.addEventListener('load',centre);</script>"
        )
    )
    page = (
        f"<!DOCTYPE html><html><head><style>body{{margin:0;background:white}}{style}</style></head>"
        f"<body>{text}{script}</body></html>"
    )
    return page, height_px


def svg_panel(svg: bytes, *, fit: bool = False, height_px: int = 720, focus: int | None = 0) -> None:
    """A server-rendered SVG in a scrollable frame: at natural size (readable, scrolled so the
    ``focus`` node, the root unless told, is in the middle) or shrunk to the frame's width (an
    overview); see :func:`svg_page`.

    The SVG is Graphviz's output of :func:`tnt.viz.export_dot.to_dot`, which escapes every name, so
    it carries no markup from the user. (``st.html`` would strip the SVG: its sanitiser keeps HTML only.)
    """
    page, height = svg_page(svg, fit=fit, height_px=height_px, focus=focus)
    st.iframe(page, height=height, alt="Decision graph")


def file_stem(label: str, params) -> str:
    """A file name (without suffix) for a model's downloads: ``tnt_C1e-03``, ``cart_C1e-03``, or
    ``opened_<file name>`` (letters, digits, ``-`` and ``.`` kept) for an opened model.

    Examples
    --------
    >>> from tnt.services.training import TrainParams
    >>> file_stem("TnT", TrainParams()), file_stem("Opened: my tree/1.json, reduced", TrainParams())
    ('tnt_C1e-03', 'opened_my-tree-1_reduced')
    """
    from ui.display import format_C

    if label.startswith("Opened: "):
        name, _, rest = label[len("Opened: ") :].partition(", ")
        name = re.sub(r"\.json$", "", name, flags=re.IGNORECASE)
        safe = re.sub(r"[^A-Za-z0-9.-]+", "-", name).strip("-")[:60] or "model"
        return "opened_" + safe + ("_reduced" if rest else "")
    return ("tnt" if label == "TnT" else "cart") + f"_C{format_C(params.C)}"


def download_row(
    label: str, model_key, estimator, feature_names, class_names, stem: str, opened: dict | None = None
) -> None:
    """Download buttons for one model: SVG, PNG, PDF, interactive HTML and DOT (made on click), JSON
    and text rules; then the model as code: a Python module, a C function and an SQL query (over a
    table ``data`` with a key column ``id``). With ``opened``, a dict whose ``"opened"`` is the
    explorer's opened splits when a button is clicked (:func:`ui.explorer.live_view`: the explorer,
    a fragment, reruns without the page), the SVG, PNG, PDF and DOT files draw what the explorer shows."""
    graph = estimator.graph_
    model_key = (*model_key, fingerprint(graph))
    if opened is None:
        dot = dot_source(model_key, graph, feature_names, class_names)
        st.markdown(f"**{label}**")

        def view_dot() -> str:
            return dot
    else:
        st.markdown(f"**{label}** (the drawings: what the explorer shows)")

        def view_dot() -> str:  # what the explorer shows at the click
            return view_source(model_key, graph, feature_names, class_names, tuple(sorted(opened["opened"])))

    cols = st.columns(7)
    deferred = {
        "svg": lambda: image(view_dot(), "svg"),
        "png": lambda: image(view_dot(), "png"),
        "pdf": lambda: image(view_dot(), "pdf"),
        "html": lambda: interactive_html(graph, feature_names, class_names, f"{label}: {stem}"),
        "dot": view_dot,
    }
    for col, (fmt, make) in zip(cols[:5], deferred.items()):
        col.download_button(
            "Interactive HTML" if fmt == "html" else fmt.upper(),
            data=make,  # made only when clicked
            file_name=f"{stem}.{fmt}",
            mime=MIME[fmt],
            key=f"graph/download/{stem}/{fmt}",
            on_click="ignore",
        )
    eager = {
        "json": model_json(model_key, estimator),
        "txt": text_rules(model_key, graph, feature_names, class_names),
    }
    for col, (fmt, data) in zip(cols[5:], eager.items()):
        col.download_button(
            "Text rules" if fmt == "txt" else fmt.upper(),
            data=data,
            file_name=f"{stem}.{fmt}",
            mime=MIME[fmt],
            key=f"graph/download/{stem}/{fmt}",
            on_click="ignore",
        )
    code_cols = st.columns(7)
    for col, (language, button) in zip(code_cols, CODE_LABELS.items()):
        suffix = LANGUAGES[language][1]
        try:
            source = model_code(model_key, estimator, feature_names, language)
        except ValueError as error:  # names the language cannot hold
            col.caption(f"{button}: {error}")
            continue
        col.download_button(
            button,
            data=source,
            file_name=f"{stem}.{suffix}",
            mime=MIME[suffix],
            key=f"graph/download/{stem}/{suffix}",
            on_click="ignore",
            help="Predicts exactly as the model does; see the deploy guide for each language's contract.",
        )
