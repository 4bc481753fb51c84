"""Small display helpers shared by pages: training with a progress bar, the sidebar summary."""

from __future__ import annotations

import streamlit as st

from tnt.data.datasets import Dataset
from tnt.experiments.training import TrainParams, TrainResult, train
from ui.display import format_C

from . import state

def train_with_progress(data: Dataset, params: TrainParams) -> TrainResult | None:
    """Train (or fetch from this session's cache) with a progress bar that moves at every grow pass
    and merge. Returns None, after saying why, if training fails; the previous model stays."""
    cached = state.cached_result(data, params)
    if cached is not None:
        return cached
    bar = st.progress(0.0, text="Training TnT...")

    def on_step(event) -> None:
        bar.progress(
            min(event.step / event.total_steps, 1.0),
            text=f"Training TnT: {event.kind_name} {event.step} of {event.total_steps} "
            f"({event.n_splits} splits)",
        )

    try:
        result = train(data, params, progress_callback=on_step)
    except Exception as err:  # never a stack trace on screen
        bar.empty()
        st.error(f"Training failed ({type(err).__name__}: {err}); try other settings or another data set.")
        return None
    bar.empty()
    state.store_result(result)
    return result


def ensure_result() -> TrainResult | None:
    """The model for the current data set and parameters, training it first if needed."""
    return train_with_progress(state.dataset(), state.params())


def sidebar_summary() -> None:
    """What is loaded and trained, shown in the sidebar on every page."""
    data = state.dataset()
    st.markdown(f"**Data:** {data.name}")
    st.caption(
        f"{len(data.y_train):,} train / {len(data.y_test):,} test rows, {data.n_features} features, "
        f"{len(data.classes)} classes"
    )
    p = state.params()
    st.markdown(f"**Settings:** C={format_C(p.C)}, N1={p.N1}, N2={p.N2}, fine-tune={p.fine_tune}, seed={p.seed}")
    result = state.current_result()
    if result is None:
        st.caption("Not trained yet with these settings: open Train.")
    else:
        m = result.tnt_metrics
        st.caption(
            f"TnT: {m['splits']} splits, {m['shared_nodes']} shared nodes, "
            f"test accuracy {m['test_accuracy']:.3f}"
        )
