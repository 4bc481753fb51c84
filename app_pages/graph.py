"""Graph page (placeholder until the rendering layer lands)."""
import streamlit as st
st.header("Graph")
