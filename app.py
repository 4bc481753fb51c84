"""TnT Explorer: the Streamlit app (placeholder until the app pages land)."""

import streamlit as st

st.set_page_config(page_title="TnT Explorer", layout="wide")
st.title("TnT Explorer")
st.write("Tree in Tree decision graphs. The app pages are on their way; the library is in `tnt/`.")
