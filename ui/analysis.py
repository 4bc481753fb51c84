"""Helpers shared by the analysis pages: a graph panel, and per-session caches of finished sweeps,
comparisons and ensembles (keyed on the data set and the settings, so going back is instant)."""

from __future__ import annotations

import streamlit as st

from tnt.viz.explain import drawing_mode
from tnt.viz.export_dot import to_dot
from ui.drawing import COMPARE_FRAME_PX, fingerprint, legend, value_legend
from ui.explorer import focus_panel
from ui.lru import LRUStore

MAX_KEPT = 12  # finished runs kept per kind and session


def remembered(kind: str, key: tuple, compute):
    """``compute()``'s result, computed once per session for ``key`` (least recently used dropped)."""
    return st.session_state.setdefault(f"analysis/{kind}", LRUStore(MAX_KEPT)).get_or_compute(key, compute)


def latest(kind: str):
    """The last result of ``kind`` this session computed or opened, or None."""
    store = st.session_state.get(f"analysis/{kind}")
    return store.latest() if store else None


def show_graph(
    graph, feature_names, class_names, key: str, target_name: str = "target", own_legend: bool = True
) -> None:
    """A small graph laid out by Graphviz in the browser, a large one as the explorer's default view
    (:func:`ui.explorer.focus_panel`: the root and the layers that fit a frame of
    :data:`ui.drawing.COMPARE_FRAME_PX`, two graphs a row, the rest in summary nodes),
    each under its colour bar if it is a regression graph (each graph's colours span its own node
    means). A large classification graph gets its legend of classes unless ``own_legend`` is False (a
    page that shows one legend for all); ``key`` names the drawing in the caches."""
    if graph.regression:
        value_legend(graph, target_name)
    if drawing_mode(graph) == "browser":
        st.graphviz_chart(to_dot(graph, feature_names=feature_names, class_names=class_names))
        return
    if own_legend and not graph.regression:
        legend(class_names)
    focus_panel((key, fingerprint(graph)), graph, feature_names, class_names, frame_px=COMPARE_FRAME_PX)


def progress_bar(text: str):
    """A progress bar and a ``progress(done, total)`` callback that moves it."""
    bar = st.progress(0.0, text=text)

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"{text} {done} of {total}")

    return bar, progress
