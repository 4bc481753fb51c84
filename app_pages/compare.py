"""Compare page: TnT, TnT fine-tuned, best-first CART and TAO at the same number of splits."""

import streamlit as st

from tnt.experiments.compare import compare_models, comparison_frame
from ui.display import format_C, labelled
from ui import state
from ui.analysis import remembered, show_graph

st.header("Compare")
data = state.dataset()
p = state.params()
st.caption(
    f"Data: **{data.name}**. TnT at the Train page's settings (C={format_C(p.C)}, N1={p.N1}, N2={p.N2}, "
    f"seed {p.seed}); CART grown best-first and TAO (CART fine-tuned) with as many splits; fine-tuning "
    "(the paper's Algorithm A.1) for five rounds."
)
with st.spinner("Training the four models..."):
    results = remembered(
        "compare",
        (data.key, p.C, p.N1, p.N2, p.seed),
        lambda: compare_models(data, C=p.C, N1=p.N1, N2=p.N2, seed=p.seed),
    )
table = comparison_frame(results)
st.dataframe(labelled(table), key="compare/table")
best = table["test_accuracy"].idxmax()
st.caption(f"Highest test accuracy: **{best}** ({table.loc[best, 'test_accuracy']:.3f}).")

names, classes = list(data.feature_names), data.class_names
cols = st.columns(2)
for i, (name, (model, m)) in enumerate(results.items()):
    with cols[i % 2]:
        st.markdown(f"**{name}**: {m['splits']} splits, {m['leaves']} leaves, {m['shared_nodes']} shared")
        show_graph(model.graph_, names, classes, key=f"compare/graph/{i}")
