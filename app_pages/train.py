"""Train page: C, N1, N2, fine-tuning, seed, thresholds, how the size is set and (with categorical columns)
the pooling of rare categories in one form, or a budget of splits; TnT beside CART with as many splits."""

import streamlit as st

from tnt.categorical import MAX_CATEGORIES, MIN_CATEGORY_SAMPLES_HELP
from tnt.services.training import SIZE_CHOICES, TrainParams
from ui import state
from ui.display import (
    BIN_CHOICES,
    C_GRID,
    SIZE_HELP,
    SIZE_WORDS,
    comparison_table,
    counted,
    format_C,
    format_count,
    format_measure,
    format_size,
    headline,
    history_table,
    nearest_C,
    refit_note,
    size_note,
    size_suffix,
    versus_cart,
)
from ui.tables import show_table
from ui.views import budget_with_progress, train_with_progress


def _shown(name: str, in_use, options=None) -> dict:
    """The keyword arguments to draw the form's widget ``train/<name>`` with (:func:`ui.state.keyed`): its
    key, and the value it holds, or ``in_use`` when the form is made afresh, as its default; ``options`` a
    select box's."""
    return state.keyed(f"train/{name}", in_use, options=options)


st.header("Train")
data = state.dataset()
current = state.params()
task = f"a regression of {data.target_name}: R² and RMSE" if data.is_regression else "a classification: accuracy"
st.caption(f"Data: **{data.name}** ({len(data.y_train):,} training rows, {data.n_features} features), {task}.")
if data.categorical:
    st.caption(
        f"Categorical columns: {', '.join(data.categorical)}. TnT and CART split them by subsets of their categories."
    )

# Each widget's default is the value it holds (the parameters in use when the form is made afresh), never
# set through the session state: a browser that mounts the form without having seen the run that set a
# widget's value shows its element default, and Train then submits it (it showed C=1e-05, N1=1, N2=1).
# The form's keys are written by nothing else, so ui.state.held always gives the widget its value.
with st.form("train/form"):
    c1, c2 = st.columns([3, 2], gap="large")
    with c1:
        C = st.select_slider(
            "C, pruning strength (log scale; smaller C, more splits)",
            options=C_GRID,
            format_func=format_C,
            **_shown("C", nearest_C(current.C)),  # a budget search's C is off the grid
            help="The cost of a split in training loss. Smaller C, larger graphs. With the default Size "
            "(chosen on held-out data) C is a lower bound: held-out data may choose a larger cost, so a "
            "smaller graph, where that is clearly better.",
        )
        N1 = st.slider("N1, merge phases (1 = plain pruned CART)", 1, 5, **_shown("N1", current.N1))
        N2 = st.slider("N2, grow passes per phase", 1, 10, **_shown("N2", current.N2))
    with c2:
        fine_tune = st.slider("Fine-tuning rounds", 0, 5, **_shown("fine_tune", current.fine_tune))
        seed = st.number_input("Seed", 0, 10_000, **_shown("seed", current.seed))
        max_bins = st.selectbox(
            "Thresholds",
            BIN_CHOICES,
            **_shown("max_bins", current.max_bins, options=BIN_CHOICES),
            format_func=lambda n: "exact (CART's)" if n == BIN_CHOICES[0] else f"between {n} bins (faster)",
            help="Exact: each split falls halfway between two training values, as in CART. Between "
            "255 bins: a feature with more than 255 values (a continuous column) is cut into 255 "
            "quantile bins first, which trains such data much faster and may cost a little "
            "accuracy; features of at most 255 values are split exactly either way.",
        )
        ccp_alpha = st.selectbox(
            "Size",
            SIZE_CHOICES,
            **_shown("ccp_alpha", current.ccp_alpha, options=SIZE_CHOICES),
            format_func=lambda a: SIZE_WORDS[a],
            help=SIZE_HELP,
        )
        min_category_samples = 1  # a setting of categorical columns only
        if data.categorical:
            min_category_samples = st.number_input(
                "Pool categories of fewer rows than",
                1,
                MAX_CATEGORIES,
                **_shown("min_category_samples", current.min_category_samples),
                help=MIN_CATEGORY_SAMPLES_HELP,
            )
        budget_on = st.toggle(
            "Aim at a budget of splits (searches C)",
            **_shown("budget_on", False),
            help="Search C (starting at the C above) for the TnT with the most splits not "
            "above the budget, reusing every model this session trained with these settings.",
        )
        budget = st.number_input("Budget: at most this many splits", 0, 100_000, **_shown("budget", 100))
        submitted = st.form_submit_button("Train", type="primary")

chosen = None
if submitted:
    chosen = TrainParams(
        C=float(C),
        N1=int(N1),
        N2=int(N2),
        fine_tune=int(fine_tune),
        seed=int(seed),
        max_bins=int(max_bins),
        ccp_alpha=ccp_alpha,
        min_category_samples=int(min_category_samples),
    )
    wanted = chosen
else:
    wanted = state.params()
if submitted and budget_on:
    searched = budget_with_progress(data, wanted, int(budget))
    result = None if searched is None else searched[0]
    if searched is not None:
        found = searched[1]
        wanted, was_cached = result.params, found.C not in found.fit_times
        tried = ", ".join(f"{format_C(c)} ({s:,})" for c, s in sorted(set(found.tried)))
        searching = f" in {sum(found.fit_times.values()):.1f} s" if found.fit_times else ""
        off_grid = nearest_C(found.C) != found.C
        st.session_state["train/budget_note"] = (
            result.key,
            (
                f"Budget of {counted(budget, 'split')}: C={format_C(found.C)} gives {counted(found.n_splits, 'split')}, the most "
                f"not above {int(budget):,} of the values tried, found with {found.n_fits} new fits{searching}. "
                f"C tried (splits): {tried}. Size: {format_size(found.size_rule)}"
                + (", as a budget sets the size." if found.size_rule == 0.0 else ".")
                + (
                    ""
                    if found.bracketed
                    else " No C tried gave more splits than the budget: TnT uses fewer on this data."
                )
                + (
                    " The C slider keeps the value the search started from: this C lies between its steps."
                    if off_grid
                    else ""
                )
            ),
        )
elif submitted:
    shown = state.current_result()
    was_cached = state.cached_result(data, wanted) is not None
    result = train_with_progress(data, wanted)
    if was_cached and result is not None:
        st.info(
            "These are the settings of the model shown: nothing new to train. Change a setting, then press Train."
            if shown is not None and shown.key == result.key
            else "A model with these settings was trained earlier in this workspace: shown again, without training."
        )
else:  # opening the page trains nothing: it shows the model in use, if there is one
    result = state.current_result()
    was_cached = True
    if result is None:
        what = "a regression tree" if data.is_regression else "a classification tree"
        st.info(
            f"Press **Train** to grow TnT with these settings on **{data.name}** ({len(data.y_train):,} rows), "
            f"and {what} of scikit-learn (CART) with as many splits beside it, to compare them on the test rows."
        )
if submitted and result is not None:
    # As chosen; a budget search's C is the one found, and its size rule the one it fitted with (C alone
    # for the default held-out choice, as the budget sets the size).
    state.set_params(wanted)
elif submitted:  # training failed (and said why): the model in use stays
    result, was_cached = state.current_result(), True
params = state.params()

if result is not None:
    tm, cm = result.tnt_metrics, result.cart_metrics
    binned = "" if params.max_bins == BIN_CHOICES[0] else f", thresholds between {params.max_bins} bins"
    pooled = "" if params.min_category_samples == 1 else f", categories of < {params.min_category_samples} rows pooled"
    st.subheader(
        f"TnT at C={format_C(params.C)}, N1={params.N1}, N2={params.N2}{binned}{pooled}{size_suffix(params.ccp_alpha)}"
    )
    cols = st.columns(5)
    key, label = headline(tm)
    gain = tm[key] - cm[key]
    cols[0].metric(
        label[0].upper() + label[1:],
        format_measure(key, tm[key]),
        **versus_cart(gain),
    )
    cols[1].metric("Splits", format_count(tm["splits"]))
    cols[2].metric("Leaves", format_count(tm["leaves"]))
    cols[3].metric("Nodes with several parents", format_count(tm["shared_nodes"]))
    cols[4].metric("Mean decision depth", f"{tm['mean_depth']:.2f}")
    note = st.session_state.get("train/budget_note")
    if note is not None and note[0] == result.key:
        st.info(note[1])
    st.table(comparison_table(result))
    st.caption(
        (f"Trained in {tm['fit_time']:.2f} s." if not was_cached else f"Trained earlier, in {tm['fit_time']:.2f} s.")
        + (
            f" CART ({'DecisionTreeRegressor' if data.is_regression else 'DecisionTreeClassifier'}) is grown "
            if not data.categorical
            else " CART (the project's own CART learner, which splits categorical columns by subsets, as "
            "scikit-learn's tree cannot) is grown "
        )
        + f"best-first with max_leaf_nodes = {max(tm['splits'] + 1, 2)}."
        + (
            f" {level}"
            if (level := size_note(params.ccp_alpha, params.C, getattr(result.tnt, "pruning_level_", None)))
            else ""
        )
        + (f" {refits}" if (refits := refit_note(result.tnt)) else "")
    )
    st.subheader("Models trained on this data in this session")
    st.caption(
        "Kept in memory: going back to a setting is instant. Every model is also saved in this workspace (see History)."
    )
    show_table(history_table(state.results_for(data)), key="train/history", max_rows=8)
