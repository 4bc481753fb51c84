"""Streamlit helpers shared by the app's pages (this package imports streamlit; ``tnt/`` never does)."""
