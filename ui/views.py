"""Small display helpers shared by pages: training with a progress bar, the sidebar summary."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from tnt import warmup
from tnt.data.datasets import Dataset
from tnt.services.budget import BudgetResult, budget_size
from tnt.services.training import TrainParams, TrainResult, train, train_to_budget
from ui.analysis import remembered
from ui.display import counted, format_bins, format_C, format_measure, format_size, headline

from . import state, workspace


def _wait_for_compiled_code(data: Dataset, params: TrainParams) -> None:
    """Wait (with a word) for the app's warm-up process to compile what training on ``data`` needs
    (:data:`tnt.warmup.READY_LINES`): its first stage for classification data of at most 256 codes
    per feature (256 values, or at most 256 bins), the kernels of categorical features for data that
    has some (``pip install`` leaves them out), else what any one-thread fit needs (on a fresh
    install with the code left out; never the threaded copies, compiled last)."""
    if warmup.ready():  # every stage compiled: no need to read the data's values
        return
    if data.categorical:
        stage = warmup.CATEGORICAL
    elif data.is_regression or warmup.needs_wide_codes(data.X_train, params.max_bins):
        stage = warmup.WIDE
    else:
        stage = warmup.NARROW
    if not warmup.ready(stage=stage):
        with st.spinner("Compiling TnT's training code for this machine (once, after an install)..."):
            warmup.wait(stage=stage)


def progress_text(event) -> str:
    """What the progress bar says at a step of training (a :class:`tnt.GrowthEvent`): a trial
    growth's steps (on part of the rows, to choose on the others) by their count in the whole fit,
    the kept growth's by its own."""
    if event.kind == "trial":
        return (
            f"Training TnT: choosing on held-out rows, step {event.fit_step} of {event.fit_steps} "
            f"({counted(event.n_splits, 'split')} in this trial)"
        )
    return f"Training TnT: {event.kind_name} {event.step} of {event.total_steps} ({counted(event.n_splits, 'split')})"


def train_with_progress(data: Dataset, params: TrainParams) -> TrainResult | None:
    """Train (or fetch from this session's cache) with a progress bar that moves at every grow pass
    and merge. Returns None, after saying why, if training fails; the previous model stays."""
    cached = state.cached_result(data, params)
    if cached is not None:
        return cached
    _wait_for_compiled_code(data, params)
    bar = st.progress(0.0, text="Training TnT...")

    def on_step(event) -> None:
        bar.progress(min(event.fit_step / event.fit_steps, 1.0), text=progress_text(event))

    result = _run(
        bar,
        lambda: train(data, params, progress_callback=on_step),
        "Training failed",
        "try other settings or another data set",
    )
    if result is not None:
        state.store_result(result)
    return result


def budget_with_progress(
    data: Dataset, params: TrainParams, max_splits: int
) -> tuple[TrainResult, BudgetResult] | None:
    """Train to at most ``max_splits`` splits, searching C from ``params.C`` with a progress line per
    fit. Every fit of this session with the same data and other settings is reused (the models of
    the Train page's history and earlier searches). Returns None, after saying why, on failure."""
    params = replace(params, ccp_alpha=budget_size(params.ccp_alpha))  # the size rule the search fits with
    settings = replace(params, C=0.0)  # a fit with these settings at any C can be reused
    fitted = remembered("budget-fits", (data.key, settings), dict)
    for r in state.results_for(data):
        if replace(r.params, C=0.0) == settings:
            fitted.setdefault(r.params.C, r.tnt)
    _wait_for_compiled_code(data, params)
    bar = st.progress(0.0, text=f"Searching C for at most {max_splits} splits...")

    def on_fit(C, n_splits, n_fits) -> None:
        bar.progress(min(n_fits / 11, 1.0), text=f"Searching C: fit {n_fits} at C={C:.3g} gave {n_splits} splits")

    searched = _run(
        bar,
        lambda: train_to_budget(data, max_splits, params, fitted=fitted, on_fit=on_fit),
        "Training to a budget failed",
        "try another budget or other settings",
    )
    if searched is not None:
        state.store_result(searched[0])
    return searched


def _run(bar, compute, failed: str, advice: str):
    """``compute()``, then the progress bar cleared; on an error, one sentence (never a stack
    trace on screen) and None."""
    try:
        return compute()
    except Exception as err:
        st.error(f"{failed} ({type(err).__name__}: {err}); {advice}.")
        return None
    finally:
        bar.empty()


def ensure_result() -> TrainResult | None:
    """The model for the current data set and parameters, training it first if needed."""
    return train_with_progress(state.dataset(), state.params())


def sidebar_summary() -> None:
    """What is loaded and trained, shown in the sidebar on every page, and whether it is saved."""
    data = state.dataset()
    st.markdown(f"**Data:** {data.name}")
    target = f"regression of {data.target_name}" if data.is_regression else f"{len(data.classes)} classes"
    st.caption(f"{len(data.y_train):,} train / {len(data.y_test):,} test rows, {data.n_features} features, {target}")
    p = state.params()
    st.markdown(
        f"**Settings:** C={format_C(p.C)}, N1={p.N1}, N2={p.N2}, fine-tune={p.fine_tune}, seed={p.seed}, "
        f"thresholds: {format_bins(p.max_bins)}, size: {format_size(p.ccp_alpha)}"
        + ("" if p.min_category_samples == 1 else f", categories of < {p.min_category_samples} rows pooled")
    )
    result = state.current_result()
    if result is None:
        st.caption("Not trained yet with these settings: press Train on the Train page.")
    else:
        m = result.tnt_metrics
        key, label = headline(m)
        st.caption(
            f"TnT: {counted(m['splits'], 'split')}, {counted(m['shared_nodes'], 'shared node')}, {label} "
            f"{format_measure(key, m[key])}"
        )
    if workspace.notice():
        st.warning(workspace.notice())
    if workspace.current():
        st.caption("Saved in this workspace: this page's address (bookmark it) brings it back. See History.")
