"""Train page: C, N1, N2, fine-tuning and seed in one form; TnT beside CART with as many splits."""

import streamlit as st

from tnt.experiments.training import TrainParams
from ui.display import C_GRID, comparison_table, format_C, history_table
from ui import state
from ui.views import train_with_progress

st.header("Train")
data = state.dataset()
current = state.params()
st.caption(f"Data: **{data.name}** ({len(data.y_train):,} training rows, {data.n_features} features)")

# Widgets keep their own keys; (re)filled from the parameters in use when the page opens.
for name in ("C", "N1", "N2", "fine_tune", "seed"):
    st.session_state.setdefault(f"train/{name}", getattr(current, name))

with st.form("train/form"):
    c1, c2 = st.columns([3, 2], gap="large")
    with c1:
        C = st.select_slider(
            "C, pruning strength (log scale; smaller C, more splits)",
            options=C_GRID,
            format_func=format_C,
            key="train/C",
        )
        N1 = st.slider("N1, merge phases (1 = plain pruned CART)", 1, 5, key="train/N1")
        N2 = st.slider("N2, grow passes per phase", 1, 10, key="train/N2")
    with c2:
        fine_tune = st.slider("Fine-tuning rounds", 0, 5, key="train/fine_tune")
        seed = st.number_input("Seed", 0, 10_000, key="train/seed")
        submitted = st.form_submit_button("Train", type="primary")

if submitted:
    wanted = TrainParams(C=float(C), N1=int(N1), N2=int(N2), fine_tune=int(fine_tune), seed=int(seed))
else:
    wanted = state.params()
was_cached = state.cached_result(data, wanted) is not None
result = train_with_progress(data, wanted)
if result is not None:
    state.set_params(wanted)
else:  # training failed (and said why): the model in use stays
    result, was_cached = state.current_result(), True
params = state.params()

if result is not None:
    tm, cm = result.tnt_metrics, result.cart_metrics
    st.subheader(f"TnT at C={format_C(params.C)}, N1={params.N1}, N2={params.N2}")
    cols = st.columns(5)
    gain = tm["test_accuracy"] - cm["test_accuracy"]
    cols[0].metric(
        "Test accuracy",
        f"{tm['test_accuracy']:.3f}",
        f"{gain:+.3f} vs CART" if abs(gain) >= 5e-4 else "same as CART",
        delta_color="normal" if abs(gain) >= 5e-4 else "off",
    )
    cols[1].metric("Splits", tm["splits"])
    cols[2].metric("Leaves", tm["leaves"])
    cols[3].metric("Nodes with several parents", tm["shared_nodes"])
    cols[4].metric("Mean decision depth", f"{tm['mean_depth']:.2f}")
    st.table(comparison_table(result))
    st.caption(
        ("Taken from this session's cache." if was_cached else f"Trained in {tm['fit_time']:.2f} s.")
        + f" CART is grown best-first with max_leaf_nodes = {max(tm['splits'] + 1, 2)}."
    )
    st.subheader("Models trained on this data in this session")
    st.caption("Kept in memory: going back to a setting is instant.")
    st.dataframe(history_table(state.results_for(data)), hide_index=True)
