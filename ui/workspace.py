"""The browser session's workspace: the store (one per server process), the id carried in the URL,
and writes that survive a workspace forgotten in another tab.

The store's folder is ``--workspace-dir`` after the script's ``--``
(``streamlit run app.py -- --workspace-dir PATH``), else ``$TNT_WORKSPACE_DIR``, else the per-user
default of :func:`tnt.workspace.default_folder`.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable

import streamlit as st

from tnt.workspace import WorkspaceNotFound, WorkspaceStore, default_folder, is_workspace_id

QUERY_KEY = "ws"  # ?ws=<id> in the address
_ID = "workspace/id"
_NOTICE = "workspace/notice"
_FAILURE = (OSError, sqlite3.Error, ValueError)


def folder_argument(argv=None) -> str | None:
    """``--workspace-dir`` among the script's arguments, if given."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--workspace-dir")
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    return args.workspace_dir


@st.cache_resource(show_spinner=False)
def _open(folder: str) -> tuple[WorkspaceStore | None, str | None]:
    try:
        return WorkspaceStore(folder), None
    except _FAILURE as error:
        return None, f"Work is not saved: the workspace store in {folder} could not be opened ({error})."


def store() -> WorkspaceStore | None:
    """The server's store, or None (with a notice) if it cannot be opened."""
    value, problem = _open(str(folder_argument() or default_folder()))
    if problem:
        set_notice(problem)
    return value


def start(restore: Callable[[WorkspaceStore, str], None]) -> None:
    """Give the session its workspace, at the top of every script run.

    On the session's first run, the id in the URL is adopted if the store has it, and ``restore``
    is called with it; otherwise a new workspace is made. The id is then (re)written into the URL,
    which page navigation clears.
    """
    s = store()
    if s is None:
        return
    workspace = st.session_state.get(_ID)
    if workspace is None:
        given = st.query_params.get(QUERY_KEY)
        try:
            if is_workspace_id(given) and s.exists(given):
                workspace = st.session_state[_ID] = given
                restore(s, given)
            else:
                workspace = st.session_state[_ID] = s.new_workspace()
                if given:
                    set_notice(
                        "The workspace in this address no longer exists (forgotten, or removed to save space); "
                        "a new one was started."
                    )
        except _FAILURE as error:
            set_notice(f"Work is not saved: the workspace store failed ({error}).")
            return
    if st.query_params.get(QUERY_KEY) != workspace:
        st.query_params[QUERY_KEY] = workspace


def current() -> str | None:
    """The session's workspace id, or None when work is not being saved."""
    return st.session_state.get(_ID)


def notice() -> str | None:
    """A sentence about the workspace the user should see (not found, not saved), or None."""
    return st.session_state.get(_NOTICE)


def set_notice(text: str) -> None:
    """Show ``text`` in the sidebar for the rest of the session."""
    st.session_state[_NOTICE] = text


def write(action: Callable[[WorkspaceStore, str], object]):
    """``action(store, id)``'s result; a workspace gone meanwhile (forgotten in another tab, evicted) is
    replaced by a new one; a failing store leaves a notice and returns None."""
    s, workspace = store(), current()
    if s is None or workspace is None:
        return None
    try:
        try:
            return action(s, workspace)
        except WorkspaceNotFound:
            workspace = st.session_state[_ID] = s.new_workspace()
            st.query_params[QUERY_KEY] = workspace
            set_notice(
                "This workspace was removed (forgotten in another tab, or to save space); a new one was started."
            )
            return action(s, workspace)
    except _FAILURE as error:
        set_notice(f"Work is not saved: the workspace store failed ({error}).")
        return None


def read(action: Callable[[WorkspaceStore, str], object], default=None):
    """``action(store, id)``'s result, or ``default`` when work is not saved, the workspace or the run is gone,
    or what is stored cannot be read."""
    s, workspace = store(), current()
    if s is None or workspace is None:
        return default
    try:
        return action(s, workspace)
    except (WorkspaceNotFound, KeyError, *_FAILURE):
        return default


def forget() -> None:
    """Delete the session's workspace from the store and leave the session empty: the next run starts afresh."""
    s, workspace = store(), current()
    if s is not None and workspace is not None:
        try:
            s.forget(workspace)
        except WorkspaceNotFound:
            pass
    for key in list(st.session_state):
        del st.session_state[key]
    st.query_params.clear()
