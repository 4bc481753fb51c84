"""Data page: pick a bundled data set or upload a CSV, choose the columns, the task (classification or
regression) and the split, look at it."""

import streamlit as st

from tnt.data.datasets import MAX_TEXT_CATEGORIES, DataError, catalog, missing_per_column
from tnt.data.sources import (
    bundled_source,
    categorical_choices,
    dataset_from_source,
    paper_sets_found,
    paper_source,
    upload_source,
)
from ui import state
from ui.tables import show_table

TASKS = {
    "auto": "Decide from the column (numbers with many values: regression)",
    "classification": "Classification (the column holds class labels)",
    "regression": "Regression (the column holds numbers to predict)",
}

st.header("Data")
entries = {e["id"]: e for e in catalog()}
source = state.source()

left, right = st.columns(2, gap="large")

with left:
    st.subheader("Bundled data sets")
    with st.form("data/bundled_form"):
        ids = list(entries)
        chosen = st.selectbox(
            "Data set",
            ids,
            index=ids.index(source["id"]) if source.get("kind") == "bundled" else 0,
            format_func=lambda i: entries[i]["name"],
        )
        # Each keyed widget's own default is the value it holds (ui.state.held), for a browser mounting it afresh.
        test_share = st.slider(
            "Test share", 0.1, 0.5, step=0.05, **state.keyed("data/bundled_test", source.get("test_size", 0.3))
        )
        seed = st.number_input("Split seed", 0, 10_000, **state.keyed("data/bundled_seed", source.get("seed", 0)))
        load = st.form_submit_button("Load data set", type="primary")
    if load:
        state.set_dataset(state.bundled(chosen, float(test_share), int(seed)), bundled_source(chosen, test_share, seed))
    with st.expander("About the bundled data sets"):
        st.markdown("\n".join(f"- **{e['name']}**: {e['description']} *({e['source']})*" for e in entries.values()))
    st.subheader("The paper's data sets")
    found, how = paper_sets_found()
    if found:
        paper_cols = st.columns([2, 3], vertical_alignment="bottom")
        name = paper_cols[0].selectbox(
            "Found on this machine", found, **state.keyed("data/paper", found[0], options=found)
        )
        if paper_cols[1].button("Load it with its own split", key="data/paper_load",
                                help="MNIST's 60,000 training and 10,000 test images, for instance: its model "
                                "files open with a test sample's path."):  # fmt: skip
            with st.spinner(f"Loading {name}..."):
                try:
                    state.set_dataset(dataset_from_source(paper_source(name)), paper_source(name))
                except DataError as err:
                    st.error(str(err))
    if how:
        st.caption(f"Not all six are here: {how}")

with right:
    st.subheader("Upload a CSV file")
    opened_now = "data/upload" not in st.session_state
    upload = st.file_uploader(
        "CSV with a header row, one row per sample, one column holding the class (or the number to predict)",
        key="data/upload",
    )
    chosen_file = state.chosen_upload(opened_now, upload)
    if chosen_file is not None and upload is None:
        kept_left, kept_right = st.columns([3, 1], vertical_alignment="center")
        kept_left.caption(f"Chosen before: **{chosen_file[1]}** ({len(chosen_file[2]) / 1024:,.1f} KB).")
        if kept_right.button("Forget this file", key="data/forget_upload"):
            state.forget_upload()
            st.rerun()
    if chosen_file is not None:
        file_id, file_name, raw = chosen_file
        try:
            table = state.uploaded_table(file_id, file_name, raw)
        except DataError as err:
            st.error(str(err))
            table = None
        if table is not None:
            columns = list(table.frame.columns)
            with st.form("data/upload_form"):
                target = st.selectbox("Class column (or target)", columns, index=len(columns) - 1)
                task = st.radio(
                    "Task", list(TASKS), format_func=TASKS.get, **state.keyed("data/upload_task", "auto", options=TASKS)
                )
                features = st.multiselect(
                    "Feature columns (the class column is left out automatically)", columns, default=columns
                )
                markable, marked = categorical_choices(table, source, target=columns[-1])
                marked_key = f"data/upload_categorical/{table.digest}"
                categorical = st.multiselect(
                    "Categorical columns (split by subsets of their values: colour in {red, blue})",
                    markable,
                    default=state.held(marked_key, marked)[1].get("value"),
                    key=marked_key,
                    help=f"Text columns are categorical by default; untick one to code it as numbers in "
                    f"alphabetical order instead. A numeric column of at most {MAX_TEXT_CATEGORIES} values (a "
                    "code, a count of doors) can be ticked too. A column has at most "
                    f"{MAX_TEXT_CATEGORIES} categories.",
                )
                test_share_u = st.slider("Test share", 0.1, 0.5, step=0.05, **state.keyed("data/upload_test", 0.3))
                seed_u = st.number_input("Split seed", 0, 10_000, **state.keyed("data/upload_seed", 0))
                drop_missing = st.checkbox(
                    "Drop rows with missing values",
                    help="Leave out the rows with an empty cell in the chosen columns. Without it they are kept: "
                    "a missing value goes where each split of a model sends it.",
                )
                use = st.form_submit_button("Use this data", type="primary")
            if use:
                chosen_source = upload_source(
                    raw, table.name, target=target, features=features, test_size=test_share_u, seed=seed_u,
                    drop_missing=drop_missing, task=task, categorical=categorical,
                )  # fmt: skip
                try:
                    data = dataset_from_source(chosen_source, table)
                except DataError as err:
                    st.error(str(err))
                else:
                    state.set_dataset(data, chosen_source, raw=raw)
                    kind = f"a regression of '{data.target_name}'" if data.is_regression else "a classification"
                    st.success(
                        f"Using {table.name} as {kind}: {len(data.y_train):,} training and {len(data.y_test):,} "
                        "test rows."
                    )
            st.caption(f"Preview of {table.name} ({len(table.frame):,} rows, {len(columns)} columns)")
            with st.container(key="data-preview-upload"):  # the file's own columns, as they are
                st.dataframe(table.frame.head(50), height=200, placeholder="")
            holes = missing_per_column(table.frame)
            if len(holes):
                st.caption(f"Missing values (empty cells) in {len(holes)} of the {len(columns)} columns")
                show_table(holes, key="data/upload_missing", width="half", hide_index=False)

data = state.dataset()
st.divider()
st.subheader(f"In use: {data.name}")
st.write(data.description)
for note in data.notes:
    st.info(note)
missing = data.missing_counts()
if len(missing):
    st.caption(f"Missing values in {len(missing)} of the {data.n_features} features")
    show_table(missing, key="data/missing", width="half", hide_index=False)
cols = st.columns(4)
cols[0].metric("Training rows", f"{len(data.y_train):,}")
cols[1].metric("Test rows", f"{len(data.y_test):,}")
cols[2].metric("Features", data.n_features)
if data.is_regression:
    cols[3].metric("Task", "regression", help=f"TnT predicts the number in '{data.target_name}'.")
else:
    cols[3].metric("Classes", len(data.classes))
preview, balance = st.columns([3, 2], gap="large")
with preview:
    st.caption("Test rows (first 100)")
    with st.container(key="data-preview-test"):  # the data's own columns, as they are
        st.dataframe(data.test_frame().head(100), height=300, placeholder="")
with balance:
    if data.is_regression:
        st.caption(f"Distribution of {data.target_name}")
        st.bar_chart(data.target_histogram(), stack=True, height=300)
    else:
        st.caption("Class balance")
        st.bar_chart(data.class_balance(), stack=True, height=300)
