"""Sweep page: C over a log grid and several seeds; TnT against CART with bands (Fig. 3b, Fig. 4)."""

import streamlit as st

from tnt._parallel import usable_cores
from tnt.data.safe_csv import neutralize_formulas
from tnt.experiments.sweep import log_grid, summarize, sweep
from tnt.viz.figures import accuracy_vs_splits, splits_vs_C
from ui import state
from ui.analysis import latest, progress_bar, remembered
from ui.display import C_GRID, format_bins, format_C
from ui.tables import show_table

st.header("Sweep")
data = state.dataset()
p = state.params()
score = "R²" if data.is_regression else "accuracy"
st.caption(
    f"Data: **{data.name}**. Each C is trained once per seed (N1={p.N1}, N2={p.N2}, thresholds: "
    f"{format_bins(p.max_bins)}, as on the Train page; size: C alone, the graph TnT grows at each C, as in "
    "the paper's sweeps); CART is grown "
    "best-first to the same number of splits, NDG (optional) to at most as many. Bands: ±1 standard "
    f"deviation across seeds. Scored by {score}."
)
cores = usable_cores()
with st.form("sweep/form"):
    c1, c2 = st.columns(2)
    # Each widget's own default is the value it holds (ui.state.held), for a browser mounting it afresh.
    low, high = c1.select_slider(
        "C range (log scale)", options=C_GRID, format_func=format_C, **state.keyed("sweep/range", (1e-4, 2e-2))
    )
    n_values = c1.slider("Values of C", 2, 30, **state.keyed("sweep/n", 5))
    n_seeds = c2.slider("Seeds", 1, 5, **state.keyed("sweep/seeds", 2))
    n_jobs = c2.slider("Parallel jobs (joblib)", 1, max(cores, 1),
                       **state.keyed("sweep/jobs", min(2, cores), fit=state.in_range(1, max(cores, 1))))  # fmt: skip
    with_ndg = c2.checkbox(
        "Add NDG (the paper's naive decision graph, C=3e-4) at TnT's splits",
        **state.keyed("sweep/ndg", False),
        disabled=data.is_regression,
        help="NDG is a classifier: not for a regression." if data.is_regression else None,
    )
    run = st.form_submit_button("Run sweep", type="primary")

Cs, seeds = log_grid(low, high, n_values), list(range(n_seeds))
models = ("ndg",) if with_ndg and not data.is_regression else ()
key = (data.key, tuple(Cs), tuple(seeds), p.N1, p.N2, models, p.max_bins)
table = None
if run:
    bar, progress = progress_bar("Training:")
    table = remembered(
        "sweep",
        key,
        lambda: sweep(  # categorical columns by name, as pandas categories: every model splits them by subsets
            data.model_input(data.X_train),
            data.y_train,
            data.model_input(data.X_test),
            data.y_test,
            Cs,
            seeds,
            N1=p.N1,
            N2=p.N2,
            n_jobs=n_jobs,
            progress=progress,
            models=models,
            regression=data.is_regression,
            max_bins=p.max_bins,
        ),
    )
    bar.empty()
else:
    previous = latest("sweep")
    if previous is not None:
        table = previous
        st.caption("The last sweep of this session (press Run sweep for the settings above).")
    else:
        st.info("Choose a grid of C and press **Run sweep**.")

if table is not None:
    summary = summarize(table)
    cols = st.columns(4)
    cols[0].metric("Models trained", len(table))
    cols[1].metric("TnT splits (smallest C)", f"{summary['tnt_splits_mean'].iloc[0]:.1f}")
    cols[2].metric("TnT splits (largest C)", f"{summary['tnt_splits_mean'].iloc[-1]:.1f}")
    if "reduced_splits" in table:
        saved = table["tnt_splits"] - table["reduced_splits"]
        cols[3].metric("Splits saved by graph reduction", f"{int(saved.sum())} of {int(table['tnt_splits'].sum())}")
        st.caption(
            "Graph reduction merges sub-graphs that give every training sample reaching them the same "
            f"prediction (tnt.reduction); it saved {saved.mean():.2f} splits per model on average here, "
            f"at most {int(saved.max())}, without changing a training prediction."
        )
    score = "R²" if "tnt_test_r2" in table else "accuracy"  # the table's own task (the last sweep's)
    tabs = st.tabs([f"Test {score}", f"Train {score}", "Splits against C"])
    tabs[0].plotly_chart(accuracy_vs_splits(summary, "test"), key="sweep/test")
    tabs[1].plotly_chart(accuracy_vs_splits(summary, "train"), key="sweep/train")
    tabs[2].plotly_chart(splits_vs_C(summary), key="sweep/splits")
    st.subheader("Mean across seeds")
    shown = summary[[c for c in summary.columns if c.endswith("_mean") and "time" not in c]]
    show_table(shown.rename(columns=lambda c: c[: -len("_mean")]), key="sweep/summary", hide_index=False)
    st.download_button(
        "Download the table (CSV)",
        neutralize_formulas(table).to_csv(index=False),
        file_name="tnt_sweep.csv",
        mime="text/csv",
        key="sweep/csv",
    )
