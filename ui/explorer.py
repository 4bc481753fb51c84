"""The Graph page's explorer: a large graph drawn from the root down, what is not opened folded into
summary nodes (:mod:`tnt.viz.focus`), with controls to open it further and a search box.

The opened splits are kept per graph in the session (``explorer/opened/<fingerprint>``); a search
hit, the inspected node, the sample's path, a counterfactual's tests and a click are opened when they
change, and the last of them becomes the view's *target* (:func:`view_target`): the SVG frame is
centred on it and the interactive view opens zoomed on it, until the target changes.

The Graph page draws the explorer as a fragment (:func:`explorer_fragment`): a click on its drawing or
one of its controls reruns the explorer alone, not the page; what else on the page follows the opened
splits reads them when it needs them (:func:`live_view`: the downloads, made on click).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st
import streamlit.components.v1 as components

from tnt.viz import focus
from tnt.viz.explain import MAX_DRAWN_NODES
from ui import drawing, state

OPENED = "explorer/opened"
#: The last click on the explorer's drawing: ``{"node": id, "stub": bool, "at": time}``.
CLICK = "explorer/click"
#: The height of the drawing's tool bar (zoom buttons) above its frame, in px (ui/clickable_svg).
TOOLS_PX = 34
HEIGHT_PX = drawing.EXPLORER_FRAME_PX[1] + TOOLS_PX
# A Graphviz SVG whose nodes answer clicks (ui/clickable_svg/index.html, written for this app).
_clickable_svg = components.declare_component("clickable_svg", path=str(Path(__file__).parent / "clickable_svg"))
#: Most search hits opened at once (a feature tested by hundreds of splits would open the graph).
MAX_OPENED_HITS = 20


def explorer(
    model_key, graph, fp: str, names, classes, sample=None, sample_index=None, node: int | None = None, marked=()
) -> None:
    """Draw ``graph``'s explorer: its controls (:func:`explorer_state`), then the SVG of what is opened.

    Parameters
    ----------
    model_key : hashable
        Stands for the graph in the drawing caches.
    graph : DecisionGraph
    fp : str
        The graph's :func:`ui.drawing.fingerprint`.
    names, classes : list of str or None
    sample : ndarray, optional
        The highlighted sample: its path is opened (when it changes) and drawn in red.
    sample_index : int, optional
        The sample's index in the test set (the drawing cache's key for it).
    node : int, optional
        The inspected node: opened into view (when it changes) and drawn with a bold border.
    marked : sequence of int, optional
        Nodes to open into view (when they change) and draw with a bold border: the tests a
        counterfactual changes.
    """
    opened, target = explorer_state(
        model_key, graph, fp, names, classes, sample, node, marked, _new_click(CLICK, f"{OPENED}/{fp}")
    )
    marked = tuple(int(n) for n in marked)
    view = focus.graph_view(graph, opened)
    if view.size > MAX_DRAWN_NODES:
        st.info(
            f"This view holds {view.size:,} nodes, more than Graphviz lays out quickly ({MAX_DRAWN_NODES:,}): close "
            "some splits, expand to a smaller depth, or use the interactive view."
        )
        return
    dot = drawing.view_source(
        model_key, graph, names, classes, tuple(sorted(opened)), node, sample_index, marked, _sample=sample
    )
    st.caption(
        f"{view.size:,} of {_everything(graph):,} nodes shown. A dashed box stands for the splits below it (their "
        "number, samples and class mix): click it to open it (click an open split to close it), or *Find* a "
        "node; a grey #id names a node not shown that leads to the node below it (click it to open the way). "
        "The wheel zooms about the pointer and a drag pans, in the browser."
    )
    _draw(dot, HEIGHT_PX, target[0] if target is not None else node, CLICK)


@st.fragment
def explorer_fragment(*args, **kwargs) -> None:
    """:func:`explorer` as a Streamlit fragment: its controls and a click on its drawing rerun it alone,
    with the arguments of the page's last run (the page's own widgets rerun the page, and it with them)."""
    explorer(*args, **kwargs)


def live_view(fp: str) -> dict:
    """The explorer's state of graph ``fp`` as one dict kept in the session and updated in place at every
    run of the explorer (a fragment's too): ``"opened"``, its opened splits. What is made outside the
    explorer after the page's run (the downloads, made on click) reads it then, not as it was."""
    return st.session_state.setdefault(f"{OPENED}/{fp}/live", {})


def view_target(key: str) -> tuple[int, int] | None:
    """The target of the view whose opened splits are kept under ``key``: the node it follows (the
    last search hit, inspected node, sample's leaf, counterfactual test, changed node or click) and
    the target's revision, counted up at each change (even back to the same node), so that a
    drawing knows when to open on it again; None before any.

    The one home of what the explorer's SVG frame is centred on and what the interactive view opens
    zoomed on (:func:`tnt.viz.plotly_view.focus_ranges`).
    """
    return st.session_state.get(f"{key}/target")


def _aim(key: str, node: int) -> None:
    """Make ``node`` the target of the view kept under ``key`` (a new revision)."""
    target = view_target(key)
    st.session_state[f"{key}/target"] = (int(node), 1 if target is None else target[1] + 1)


def _follow(graph, opened: frozenset, key: str, what: str, nodes: tuple) -> frozenset:
    """``opened`` with ``nodes`` brought into view when they changed since the last run (kept as
    ``key/what``), the last of them then the view's target (:func:`view_target`)."""
    if nodes and st.session_state.get(f"{key}/{what}") != nodes:  # applied once per change
        st.session_state[f"{key}/{what}"] = nodes
        opened = focus.expand_to(graph, opened, nodes)
        _aim(key, nodes[-1])
    return opened


def explorer_state(
    model_key, graph, fp: str, names, classes, sample=None, node: int | None = None, marked=(), clicked=None
) -> tuple[frozenset, tuple[int, int] | None]:
    """The explorer's controls, and the splits they leave opened: the one state of which nodes the
    Graph page's explorer (SVG) and interactive view (plotly) show, kept per graph in the session.

    ``sample``, ``node`` and ``marked`` are opened into view when they change (as in :func:`explorer`);
    ``clicked``, a node the reader clicked in the drawing, is opened or closed
    (:func:`tnt.viz.focus.toggle`). Returns the opened splits and the view's target
    (:func:`view_target`: the node to centre the view on, and its revision).
    """
    key = f"{OPENED}/{fp}"
    path = () if sample is None else tuple(graph.decision_path(sample.reshape(1, -1)).indices.tolist())
    if key not in st.session_state:  # the layers that fit the frame with the sample's path opened
        st.session_state[key] = drawing.default_expansion(model_key, graph, names, classes, keep=path)
    opened = st.session_state[key]
    if clicked is not None and 0 <= int(clicked) < graph.node_count:
        opened = focus.toggle(graph, opened, int(clicked))
        _aim(key, int(clicked))

    marked = tuple(int(n) for n in marked)
    for what, nodes in (("path", path), ("marked", marked), ("node", () if node is None else (int(node),))):
        opened = _follow(graph, opened, key, what, nodes)

    max_depth = int(graph.node_depth().max())
    everything = _everything(graph)
    controls = st.columns([2, 3, 4, 3], vertical_alignment="bottom")
    # Each keyed widget's own default is the value it holds (ui.state.held), for a browser mounting it afresh.
    depth = controls[0].number_input(
        "Depth", 0, max_depth, **state.keyed("explorer/depth", min(3, max_depth), fit=state.in_range(0, max_depth))
    )
    if controls[1].button("Expand to depth", key="explorer/to_depth", help="Open every split above this depth."):
        opened = focus.expand_to_depth(graph, int(depth))
    too_many = everything > MAX_DRAWN_NODES
    if controls[2].button(
        f"Expand all ({everything:,} nodes)",
        key="explorer/all",
        disabled=too_many,
        help=expand_all_help(everything),
    ):
        opened = focus.expand_all(graph)
    if controls[3].button(
        "Default view", key="explorer/default", help="The root and the layers that fit, the sample's path opened."
    ):
        opened = focus.expand_to(graph, drawing.default_expansion(model_key, graph, names, classes, keep=path), path)
    controls = st.columns([3, 2, 5], vertical_alignment="bottom")
    toggled = state.keyed("explorer/toggle", 0, fit=lambda n: n if n < graph.node_count else 0)
    picked = controls[0].number_input("Open or close a split", 0, graph.node_count - 1, **toggled)
    if controls[1].button("Open / close", key="explorer/toggle_button"):
        opened = focus.toggle(graph, opened, int(picked))
        _aim(key, int(picked))
    query = controls[2].text_input(
        "Find", placeholder="node id, feature, or class 7", **state.keyed("explorer/find", "")
    )
    if not query:  # an emptied box: the same search typed again is a new one
        st.session_state.pop(f"{key}/query", None)
    if query and st.session_state.get(f"{key}/query") != query:
        st.session_state[f"{key}/query"] = query
        hits = focus.find_nodes(graph, query, names, classes)
        st.session_state[f"{key}/hits"] = hits
        if hits:
            opened = focus.expand_to(graph, opened, hits[:MAX_OPENED_HITS])
            _aim(key, hits[0])
    hits = st.session_state.get(f"{key}/hits", []) if query else []
    if query:
        st.caption(_hits_text(query, hits))
    st.session_state[key] = opened
    live_view(fp)["opened"] = opened
    return opened, view_target(key)


def expand_all_help(everything: int) -> str | None:
    """Why "Expand all" is disabled, in one sentence (None when it is not: ``everything``, the nodes
    of the whole graph, are at most :data:`MAX_DRAWN_NODES`).

    Examples
    --------
    >>> expand_all_help(2_000) is None
    True
    >>> expand_all_help(4_801)
    'The whole graph has 4,801 nodes, more than the 2,000 one drawing here holds: open splits by a click, a depth or Find.'
    """
    if everything <= MAX_DRAWN_NODES:
        return None
    return (
        f"The whole graph has {everything:,} nodes, more than the {MAX_DRAWN_NODES:,} one drawing here holds: "
        "open splits by a click, a depth or Find."
    )


def _everything(graph) -> int:
    """The nodes "Expand all" shows: every node the root reaches."""
    return int(np.count_nonzero(graph.reachable()))


def _new_click(click_key: str, key: str) -> int | None:
    """The node of the last click on a drawing (``st.session_state[click_key]``), once per click
    (``key``: the opened splits' key, beside which the click applied last is kept); None: no new click."""
    click = st.session_state.get(click_key)
    if not click or st.session_state.get(f"{key}/click") == click.get("at"):
        return None
    st.session_state[f"{key}/click"] = click.get("at")
    return int(click["node"])


def focus_panel(model_key, graph, names, classes, nodes=(), frame_px=drawing.EDITOR_FRAME_PX) -> None:
    """A large graph's explorer without controls: its default view in a frame ``frame_px`` (width,
    height) px, the page's (:data:`ui.drawing.EDITOR_FRAME_PX`, :data:`ui.drawing.COMPARE_FRAME_PX`),
    with ``nodes`` (an edit's changed nodes: the first :data:`MAX_OPENED_HITS`) opened when they change,
    drawn with a bold border and the frame centred on the first (the frame no taller than the drawing,
    so a drawing shrunk to the frame's width leaves no blank band under it); a click on a node opens or closes it,
    the wheel zooms, a drag pans, as in the Graph page's explorer. The editor's and the Compare page's
    drawing of a graph too large to draw whole; ``model_key`` (hashable) names the graph and keeps its
    opened splits in the session."""
    nodes = tuple(int(n) for n in nodes)
    key = f"{OPENED}/panel/{model_key!r}"
    click_key = f"{CLICK}/panel/{model_key!r}"
    frame_px = tuple(frame_px)
    if key not in st.session_state:
        st.session_state[key] = drawing.default_expansion(model_key, graph, names, classes, frame_px)
    # The first changed nodes, the first of them the target (brought into view in reverse order).
    opened = _follow(graph, st.session_state[key], key, "nodes", nodes[:MAX_OPENED_HITS][::-1])
    opened = _apply_click(graph, opened, click_key, key)
    target = view_target(key)
    centre = target[0] if target is not None else 0
    st.session_state[key] = opened
    view = focus.graph_view(graph, opened)
    if view.size > MAX_DRAWN_NODES:
        st.session_state[key] = opened = drawing.default_expansion(model_key, graph, names, classes, frame_px)
        view = focus.graph_view(graph, opened)
    dot = drawing.view_source(model_key, graph, names, classes, tuple(sorted(opened)), None, None, nodes)
    st.caption(
        f"{view.size:,} of {graph.node_count:,} nodes shown; a dashed box stands for the splits below it: click it "
        "to open it. The wheel zooms, a drag pans."
    )
    _draw(dot, frame_px[1] + TOOLS_PX, centre, click_key, fit_height=True)


def _apply_click(graph, opened, click_key: str, key: str) -> frozenset:
    """``opened`` with the last click on a drawing applied (once per click), the node clicked then
    the view's target."""
    node = _new_click(click_key, key)
    if node is None or not 0 <= node < graph.node_count:
        return opened
    _aim(key, node)
    return focus.toggle(graph, opened, node)


def _draw(dot: str, height_px: int, centre, click_key: str, fit_height: bool = False) -> None:
    """The SVG of ``dot`` in the clickable, zoomable frame, centred on node ``centre``; with
    ``fit_height``, the frame no taller than the drawing at its zoom (up to ``height_px``)."""
    try:
        svg = drawing.compact_svg(drawing.image(dot, "svg").decode("utf-8"))
        _clickable_svg(
            svg=svg[svg.find("<svg") :], height=height_px, focus=centre, key=click_key, default=None,
            fit_height=fit_height,
        )  # fmt: skip
    except Exception as err:  # never a stack trace on screen
        st.error(f"The graph could not be drawn on the server ({err}).")


def _hits_text(query: str, hits: list) -> str:
    if not hits:
        return f"Nothing found for “{query}”: try a node id, a feature name, or *class* and a class name."
    shown = ", ".join(f"#{n}" for n in hits[:MAX_OPENED_HITS])
    more = f" (the first {MAX_OPENED_HITS} opened)" if len(hits) > MAX_OPENED_HITS else ""
    return f"{len(hits):,} found{more}: {shown}."
