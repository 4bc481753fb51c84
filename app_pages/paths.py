"""Paths page: root-to-leaf decision depth of TnT and CART (Fig. 3a)."""

import numpy as np
import pandas as pd
import streamlit as st

from tnt.experiments.path_lengths import depth_distributions
from tnt.experiments.sweep import summarize
from tnt.viz.figures import depth_distribution, depth_vs_splits
from ui import state
from ui.analysis import latest
from ui.display import counted, format_C, size_suffix
from ui.opened import model_file_panel, opened_against_data, opened_label
from ui.tables import show_table
from ui.views import ensure_result

st.header("Paths")
data = state.dataset()
model_file_panel("paths")
result = ensure_result()
if result is not None:
    p = result.params
    models = {"TnT": result.tnt, "CART": result.cart}
    opened = opened_against_data(data)
    if opened is not None:
        file, match = opened
        if match.ok:
            models[opened_label(file)] = match.model
        else:
            st.info(f"{match.problem} It is left out of the depth figures.")
    st.caption(
        f"TnT at C={format_C(p.C)}{size_suffix(p.ccp_alpha)} ({counted(result.tnt.n_splits_, 'split')}) and CART "
        f"best-first with {counted(result.cart.n_splits_, 'split')} on **{data.name}**: the depth of each test sample's decision, and "
        "the length of every root-to-leaf path of the graph (counted by dynamic programming, never listed)."
    )
    dist = {}
    for name, model in models.items():  # each model its rows as it reads them (by its feature names, if any)
        dist.update(depth_distributions({name: model}, data.model_input(data.X_test, model)))
    rows = []
    for name, model in models.items():
        lengths, shares = dist[f"{name} (test samples)"]
        plengths, pshares = dist[f"{name} (paths)"]
        path_counts = model.graph_.path_length_distribution()[1]
        rows.append(
            {
                "model": name,
                "splits": model.n_splits_,
                "mean depth (test samples)": round(float(np.sum(lengths * shares)), 2),
                "deepest decision (test)": int(lengths.max()),
                "root-to-leaf paths": f"{sum(path_counts):,}",
                "mean path length": round(float(np.sum(plengths * pshares)), 2),
            }
        )
    show_table(pd.DataFrame(rows).set_index("model"), key="paths/table", hide_index=False)
    st.plotly_chart(depth_distribution(dist), key="paths/dist")

st.subheader("Mean depth against number of splits")
table = latest("sweep")
if table is None:
    st.info("Run a sweep on the Sweep page to see how decision depth grows with the number of splits.")
else:
    st.plotly_chart(depth_vs_splits(summarize(table)), key="paths/sweep")
