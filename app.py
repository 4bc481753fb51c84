"""TnT Explorer: page config, the shared sidebar and the navigation between pages."""

import streamlit as st

from ui.views import sidebar_summary

st.set_page_config(page_title="TnT Explorer", page_icon=":deciduous_tree:", layout="wide")

pages = st.navigation(
    [
        st.Page("pages/data.py", title="Data", icon=":material/table:", default=True),
        st.Page("pages/train.py", title="Train", icon=":material/model_training:"),
        st.Page("pages/graph.py", title="Graph", icon=":material/account_tree:"),
    ]
)
st.sidebar.title("TnT Explorer")
st.sidebar.caption("Tree in Tree decision graphs (Zhu & Shoaran, NeurIPS 2021)")
summary = st.sidebar.container()
pages.run()
with summary:  # filled after the page ran, so it shows what the page just loaded or trained
    sidebar_summary()
