"""History page: the workspace's saved runs; reopen one on the Graph, Compare or Paths page,
download its models, delete it, or forget the whole workspace."""

import streamlit as st

from tnt.workspace.runs import history_frame, is_edited, run_model_names
from ui import state
from ui.display import run_label, saved_runs_columns, saved_runs_table
from ui.opened import opened_label
from ui.tables import show_table

st.header("History")
runs = state.saved_runs_list()
if runs is None:
    st.info("Work is not being saved in this session (see the note in the sidebar), so there is no history.")
    st.stop()
st.caption(
    "Every model trained in this workspace is saved with its data set, parameters and measurements; the "
    "address of this page (with its ?ws=...) brings the workspace back after a reload or a restart."
)
if not runs:
    st.info("No runs yet: train a model on the Train page and it appears here.")
else:
    table = saved_runs_table(history_frame(runs))
    order, labels = saved_runs_columns(table, "runs")
    show_table(table[order], key="history/table", labels=labels)
    with st.expander("When each run was saved, and the data it was trained on"):
        order, labels = saved_runs_columns(table, "data")
        show_table(table[order], key="history/data", labels=labels)
    by_id = {run.id: run for run in runs}
    chosen = by_id[st.selectbox("Run", list(by_id), format_func=lambda i: run_label(by_id[i]),
                                **state.keyed("history/run", runs[0].id, options=by_id))]  # fmt: skip
    cols = st.columns(6)
    for col, (label, page) in zip(
        cols, (("Open on Graph", "graph"), ("Open on Compare", "compare"), ("Open on Paths", "paths"))
    ):
        if col.button(label, key=f"history/open/{page}"):
            problem = state.open_run(chosen)
            if problem:
                st.error(problem)
            else:
                if is_edited(chosen):  # it is the opened model of every page: the Graph page shows it
                    state.ask("graph/model", opened_label(state.opened_model()), next_run=True)
                st.switch_page(f"app_pages/{page}.py")
    for col, name in zip(cols[3:5], run_model_names(chosen)):
        text = state.saved_model_json(chosen, name)
        if text is not None:
            col.download_button(
                f"{name} model (JSON)", data=text, file_name=f"run{chosen.id}_{name.lower()}.json",
                mime="application/json", key=f"history/download/{name}", on_click="ignore",
            )  # fmt: skip
    if cols[5].button("Delete this run", key="history/delete"):
        state.delete_run(chosen)
        st.rerun()

st.divider()
st.subheader("Forget this workspace")
st.caption("Deletes its runs, models and uploaded files from the store; the app starts afresh on the bundled digits.")
sure = st.checkbox("Yes, delete everything in this workspace", **state.keyed("history/forget_sure", False))
if st.button("Forget this workspace", type="primary", disabled=not sure, key="history/forget"):
    state.forget_workspace()
    st.rerun()
