"""Ensembles page: TnT-bagging vs Random Forest, TnT-AdaBoost vs AdaBoost at matched splits (Table 2)."""

import streamlit as st

from tnt._parallel import usable_cores
from tnt.experiments.ensembles import ADABOOST_TAKES_NO_MISSING, compare_ensembles, summarize_ensembles
from ui import state
from ui.analysis import remembered
from ui.display import C_GRID, format_C, labelled
from ui.tables import show_table

st.header("Ensembles")
data = state.dataset()
if data.is_regression:
    st.info(
        f"{data.name} is a regression, and this page compares the paper's classifier ensembles (bagging, "
        "AdaBoost with SAMME); load a classification data set on the Data page to use it."
    )
elif len(data.missing_counts()):
    st.info(ADABOOST_TAKES_NO_MISSING)
else:
    st.caption(
        f"Data: **{data.name}**. Bagging draws each base model's training set with replacement "
        "(max_samples=1.0, no feature sampling); AdaBoost is SAMME with learning rate 1.0. Each TnT base graph "
        "is the graph TnT grows at C alone (`ccp_alpha=0.0`, the paper's). The CART base "
        "trees get as many splits as the TnT base graphs have on average, so both ensembles are the same size; "
        "they are best-first CART trees grown by the project's binned split search, the same trees as "
        "scikit-learn's `DecisionTreeClassifier(max_leaf_nodes=...)` up to ties between equally good splits."
    )
    cores = usable_cores()
    with st.form("ensembles/form"):
        c1, c2 = st.columns(2)
        # Each widget's own default is the value it holds (ui.state.held), for a browser mounting it afresh.
        n_estimators = c1.slider("Base estimators", 2, 20, **state.keyed("ensembles/n", 5))
        n_seeds = c1.slider("Seeds", 1, 5, **state.keyed("ensembles/seeds", 1))
        C_bag, C_boost = (
            c2.select_slider(
                label,
                options=C_GRID,
                format_func=format_C,
                **state.keyed(f"ensembles/{key}", value),
            )
            for label, value, key in (
                ("C of TnT-bagging (large base models)", 1e-3, "C_bag"),
                ("C of TnT-AdaBoost (small base models)", 2e-2, "C_boost"),
            )
        )
        n_jobs = c2.slider("Parallel jobs (joblib)", 1, max(cores, 1),
                           **state.keyed("ensembles/jobs", min(2, cores), fit=state.in_range(1, max(cores, 1))))  # fmt: skip
        run = st.form_submit_button("Train the ensembles", type="primary")

    if run:
        with st.spinner("Training four ensembles per seed..."):
            rows = remembered(
                "ensembles",
                (data.key, n_estimators, n_seeds, C_bag, C_boost),
                lambda: compare_ensembles(
                    data.X_train,
                    data.y_train,
                    data.X_test,
                    data.y_test,
                    n_estimators=n_estimators,
                    C_bagging=C_bag,
                    C_boosting=C_boost,
                    seeds=range(n_seeds),
                    n_jobs=n_jobs,
                    # category codes by index: bagging and AdaBoost hand the base models arrays
                    categorical_features=[list(data.feature_names).index(name) for name in data.categorical] or None,
                ),
            )
        st.subheader(
            f"{n_estimators} base estimators, " + ("one seed" if n_seeds == 1 else f"mean ± std over {n_seeds} seeds")
        )
        st.table(labelled(summarize_ensembles(rows)))
        st.caption(
            "AdaBoost stops early when a base model fits the weighted training data perfectly, "
            "so 'estimators' can be below the number asked for."
        )
        with st.expander("Every ensemble and seed"):
            show_table(rows, key="ensembles/rows")
    else:
        st.info("Choose the ensemble size and press **Train the ensembles**.")
