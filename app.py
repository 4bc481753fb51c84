"""TnT Explorer: page config, the shared sidebar and the navigation between pages.

The pages live in ``app_pages/``, not ``pages/``: Streamlit still treats a ``pages/`` folder the
old way, so a page's URL opened directly (``/graph``) would run that page alone, without this
script's page config, sidebar and navigation.
"""

import sys

import streamlit as st

st.set_page_config(page_title="TnT Explorer", page_icon=":deciduous_tree:", layout="wide")
# The first run of the server imports the libraries below (seconds on a first start): say so at
# once rather than leave the browser blank meanwhile.
starting = st.empty()
if "ui.views" not in sys.modules:
    starting.info("Starting TnT Explorer: loading its libraries...", icon=":material/hourglass_top:")

from tnt.warmup import start_in_background  # noqa: E402

# Training's compiled code is compiled, on an empty cache, in a separate process while the Data
# page, which needs none of it, is shown. It starts before the imports below (a second or more on
# a first start): importing the warm-up imports neither scikit-learn nor numba.
start_in_background()

from ui.state import start_session  # noqa: E402
from ui.views import sidebar_summary  # noqa: E402

start_session()  # the workspace in the address (?ws=...), restored after a reload or a restart

pages = st.navigation(
    [
        st.Page("app_pages/data.py", title="Data", icon=":material/table:", default=True),
        st.Page("app_pages/train.py", title="Train", icon=":material/model_training:"),
        st.Page("app_pages/graph.py", title="Graph", icon=":material/account_tree:"),
        st.Page("app_pages/sharing.py", title="Shared nodes", icon=":material/merge:"),
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare:"),
        st.Page("app_pages/sweep.py", title="Sweep", icon=":material/stacked_line_chart:"),
        st.Page("app_pages/paths.py", title="Paths", icon=":material/route:"),
        st.Page("app_pages/ensembles.py", title="Ensembles", icon=":material/forest:"),
        st.Page("app_pages/teach.py", title="Teach", icon=":material/school:"),
        st.Page("app_pages/history.py", title="History", icon=":material/history:"),
    ]
)
st.sidebar.title("TnT Explorer")
st.sidebar.caption("Tree in Tree decision graphs (Zhu & Shoaran, NeurIPS 2021)")
summary = st.sidebar.container()
try:
    pages.run()
finally:
    # Cleared once the page is drawn, not before: the page imports its own libraries first, and
    # the browser would show a blank page meanwhile. Also when the page stops early (st.stop, a
    # rerun).
    starting.empty()
with summary:  # filled after the page ran, so it shows what the page just loaded or trained
    sidebar_summary()
