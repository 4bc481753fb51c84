"""Compare page: TnT, TnT fine-tuned, best-first CART, TAO and NDG at the same number of splits."""

import streamlit as st

from tnt.services.compare import compare_models, comparison_frame
from tnt.services.model_on_data import opened_metrics
from ui import drawing, state
from ui.analysis import remembered, show_graph
from ui.display import counted, format_bins, format_C, format_measure, format_size, headline
from ui.opened import model_file_panel, opened_against_data, opened_label
from ui.tables import show_table

st.header("Compare")
data = state.dataset()
model_file_panel("compare")
p = state.params()
settings = (
    f"TnT at the Train page's settings (C={format_C(p.C)}, N1={p.N1}, N2={p.N2}, seed {p.seed}, "
    f"thresholds: {format_bins(p.max_bins)}, size: {format_size(p.ccp_alpha)})"
)
if data.is_regression:
    st.caption(
        f"Data: **{data.name}**, a regression (R² and RMSE on the test part). {settings}; TnT fine-tuned (the "
        "paper's Algorithm A.1) for five rounds; CART (DecisionTreeRegressor) grown best-first with as many "
        "splits. TAO and NDG are classifiers, so they are left out."
    )
else:
    st.caption(
        f"Data: **{data.name}**. {settings}; CART grown best-first and TAO (CART fine-tuned) with as many splits; "
        "fine-tuning (the paper's Algorithm A.1) for five rounds; NDG (the paper's naive decision graph, "
        "Algorithm 1, at C=3e-4) with at most as many splits."
    )
if data.categorical:
    st.caption(
        f"Categorical columns: {', '.join(data.categorical)}. Every model splits them by subsets of their categories."
    )
with st.spinner("Training the models..."):
    results = remembered(
        "compare",
        (data.key, p.C, p.N1, p.N2, p.seed, p.max_bins, p.ccp_alpha),
        lambda: compare_models(
            data,
            C=p.C,
            N1=p.N1,
            N2=p.N2,
            seed=p.seed,
            max_bins=p.max_bins,
            ccp_alpha=p.ccp_alpha,
            fitted=state.comparable_models(data, p),
        ),
    )
opened = opened_against_data(data)
if opened is not None:
    file, match = opened
    if match.ok:
        results = {**results, opened_label(file): (match.model, opened_metrics(match.model, data))}
    else:
        st.info(f"{match.problem} It is left out of the comparison.")
table = comparison_frame(results)
show_table(table, key="compare/table", hide_index=False)
if any(r.tnt is results["TnT"][0] for r in state.results_for(data)):
    st.caption(
        "TnT and CART are the models the Train page trained with these settings (not trained again): their fit "
        "times are the Train page's"
        + ("." if data.is_regression or p.ccp_alpha != 0 else ", and TnT fine-tuned's is TnT's plus the fine-tuning.")
    )
key, label = headline(table.columns)
best = table[key].idxmax()
st.caption(f"Highest {label}: **{best}** ({format_measure(key, table.loc[best, key])}).")

names, classes = list(data.feature_names), None if data.is_regression else data.class_names
if classes is not None:  # one legend for every graph below
    drawing.legend(classes)
    st.caption(drawing.EDGE_LEGEND)
cols = st.columns(2)
for i, (name, (model, m)) in enumerate(results.items()):
    with cols[i % 2]:
        st.markdown(
            f"**{name}**: {counted(m['splits'], 'split')}, {counted(m['leaves'], 'leaf', 'leaves')}, "
            f"{m['shared_nodes']} shared"
        )
        show_graph(
            model.graph_, names, classes, key=f"compare/graph/{i}", target_name=data.target_name,
            own_legend=classes is None,
        )  # fmt: skip
