"""The Teach page's state and caches: its choices and drawn points, restored from the workspace
(checked, so a damaged saved state falls back to the defaults), the gallery's data and measured
splits cached across sessions, and the drawing board's click handling."""

from __future__ import annotations

import streamlit as st

from tnt.experiments.gallery import PROBLEMS, make_problem
from tnt.services.drawn_data import MAX_CLASSES, add_selected, check_points
from tnt.services.split_counts import SplitCounts, measure_splits
from ui import state
from ui.display import C_GRID

SOURCE, PROBLEM, NOISY, C, SEED = "teach/source", "teach/problem", "teach/noisy", "teach/C", "teach/seed"
DRAW_CLASS = "teach/draw_class"
POINTS = "teach/points"  # the drawn points, [x1, x2, class] each
TRAINED = "teach/trained"  # the drawn points last trained on
BOARD = "teach/board"  # the drawing board's version: a new chart, with no selection, after each click
SOURCES = ("gallery", "draw", "data")
MAX_SEED = 1000

# Each saved choice: its session key, its default and the test a saved value must pass.
_CHOICES = {
    "source": (SOURCE, "gallery", lambda v: v in SOURCES),
    "problem": (PROBLEM, "corners", lambda v: v in PROBLEMS),
    "noisy": (NOISY, False, lambda v: isinstance(v, bool)),
    "C": (C, 1e-2, lambda v: v in C_GRID),
    "seed": (SEED, 0, lambda v: type(v) is int and 0 <= v <= MAX_SEED),
    "draw_class": (DRAW_CLASS, 0, lambda v: type(v) is int and 0 <= v < MAX_CLASSES),
}


def restore(sources) -> None:
    """Give the page's widgets and drawn points their saved values (or defaults) before they are drawn;
    ``sources`` are the data choices offered now (a saved one no longer offered falls back to the gallery)."""
    saved = state.teach_choices()
    for name, (key, default, valid) in _CHOICES.items():
        value = saved.get(name, default)
        if key not in st.session_state:
            state.ask(key, value if valid(value) else default)
    if st.session_state[SOURCE] not in sources:
        state.ask(SOURCE, "gallery")
    for key, name in ((POINTS, "points"), (TRAINED, "trained")):
        if key not in st.session_state:
            try:
                st.session_state[key] = check_points(saved.get(name, []))
            except ValueError:
                st.session_state[key] = []
    st.session_state.setdefault(BOARD, 0)


def shown(key: str, options=None) -> dict:
    """The keyword arguments to draw the page's widget keyed ``key`` with (:func:`ui.state.keyed`): ``key``
    and the value it holds as its own default, none in a run where :func:`restore` set it; ``options``
    those of a radio."""
    (default,) = [d for k, d, _ in _CHOICES.values() if k == key]
    return state.keyed(key, default, options=options)


def save() -> None:
    """Save the page's current choices and drawn points with the workspace (only when they changed)."""
    value = {name: st.session_state[key] for name, (key, _, _) in _CHOICES.items()}
    value.update(points=st.session_state[POINTS], trained=st.session_state[TRAINED])
    state.set_teach_choices(value)


def board_key() -> str:
    return f"{BOARD}/{st.session_state[BOARD]}"


def add_clicked() -> None:
    """on_select of the drawing board: a point of the chosen class at each selected grid point."""
    event = st.session_state.get(board_key())
    selected = event["selection"]["points"] if event else []
    st.session_state[POINTS] = add_selected(st.session_state[POINTS], selected, st.session_state[DRAW_CLASS])
    st.session_state[BOARD] += 1


def undo() -> None:
    st.session_state[POINTS] = st.session_state[POINTS][:-1]


def clear() -> None:
    st.session_state[POINTS] = []


def train() -> None:
    st.session_state[TRAINED] = list(st.session_state[POINTS])


@st.cache_data(show_spinner=False, max_entries=64)
def gallery_data(problem_id: str, noisy: bool, seed: int):
    """One gallery problem's data, generated once per server for these arguments."""
    return make_problem(problem_id, seed=seed, noisy=noisy)


@st.cache_data(show_spinner="Measuring splits...", max_entries=256)
def gallery_splits(problem_id: str, noisy: bool, C: float, seed: int) -> SplitCounts:
    """The measured splits of one gallery problem, once per server for these arguments."""
    X, y = gallery_data(problem_id, noisy, seed)
    return measure_splits(X, y, C=C, seed=seed)
