"""Opening a model file in the app: the uploader (on the Graph, Compare and Paths pages), the one
opened model every page shares (``ui.state``), and what it can show with the data in use."""

from __future__ import annotations

import streamlit as st

from tnt.model_io import MAX_BYTES
from tnt.reduction import reduce_model
from tnt.services.model_on_data import DataMatch, match_data, open_model_file, reduction_summary
from tnt.services.tasks import scores
from ui.display import counted
from ui.drawing import fingerprint
from ui.lru import LRUStore

from . import state

_LAST = "opened/last_upload"  # (file id, error message or None) of the last file handled
_REDUCED = "opened/reduced"  # LRUStore: (opened model's id, data key) -> reduced model


def model_file_panel(page: str) -> bool:
    """An expander with a model-file uploader; a file that cannot be read gets one sentence and
    the model already open (if any) stays open. True when a file was opened in this run."""
    just_opened = False
    with st.expander("Open a model file", expanded=False):  # one label: the expander stays as the user left it
        upload = st.file_uploader(
            "Model file (JSON): from `tnt train`, a JSON download of the Graph page, or a scikit-learn tree "
            "converted by `tnt.model_io.from_sklearn`",
            key=f"{page}/model_file",
            help=f"At most {MAX_BYTES // 2**20} MB; read as JSON only, never run. The model is drawn as one trained "
            "here; with a data set whose columns are the model's, a sample's path and the accuracy work too.",
        )
        if upload is not None:
            last = st.session_state.get(_LAST)
            if last is None or last[0] != upload.file_id:
                try:
                    state.set_opened_model(open_model_file(upload.getvalue(), upload.name))
                    last = (upload.file_id, None)
                    just_opened = True
                except ValueError as err:
                    last = (upload.file_id, str(err))
                st.session_state[_LAST] = last
            if last[1] is not None:
                st.error(f"{upload.name} cannot be opened: {last[1]}")
        opened = state.opened_model()
        if opened is not None:
            st.markdown(
                f"Open: **{opened.name}** ({opened.model.estimator_kind_}, {counted(opened.model.n_splits_, 'split')})."
            )
            st.button("Close the model file", key=f"{page}/close_model", on_click=state.set_opened_model, args=(None,))
    return just_opened


@st.cache_data(max_entries=8, show_spinner=False)
def scores_on(model_key, data_key, _model, _data) -> dict:
    """The opened model's test and training scores on the data in use (:func:`tnt.services.tasks.scores`),
    kept per model and data: MNIST's 70,000 rows were predicted at every rerun of the Graph page (60 ms)."""
    return {
        **scores(_model, _data.model_input(_data.X_test, _model), _data.y_test, "test"),
        **scores(_model, _data.model_input(_data.X_train, _model), _data.y_train, "train"),
    }


def opened_label(opened) -> str:
    """The opened model's name in model pickers and tables."""
    return f"Opened: {opened.name}"


def opened_against_data(data) -> tuple[object, DataMatch] | None:
    """The opened model and its match with ``data`` (None when no model file is open)."""
    opened = state.opened_model()
    if opened is None:
        return None
    return opened, match_data(opened.model, data)


def _reduction_key(opened, data) -> tuple:
    return (fingerprint(opened.model.graph_), opened.name, data.key)


def reduced_model(opened, data):
    """The opened model after graph reduction on ``data``'s training part, if already computed."""
    store = st.session_state.get(_REDUCED)
    return None if store is None else store.get(_reduction_key(opened, data))


def _reduce(opened, match: DataMatch, data) -> None:
    store = st.session_state.setdefault(_REDUCED, LRUStore(4))
    try:
        store.put(
            _reduction_key(opened, data),
            reduce_model(match.model, data.model_input(data.X_train, match.model), data.y_train),
        )
    except ValueError as err:  # e.g. classes in an order reduction cannot use
        st.session_state["opened/reduce_error"] = str(err)


def reduction_panel(opened, match: DataMatch, data, *, expanded: bool) -> None:
    """What graph reduction saves on the opened model (a tree can become a graph): a button that
    reduces it on the training part of the data in use, then the splits and shared nodes before
    and after, and whether any prediction changed."""
    with st.expander("Graph reduction: how much smaller can this model get?", expanded=expanded):
        st.caption(
            "Merges the nodes whose sub-graphs give every training sample reaching them the same prediction "
            "(`tnt.reduction.reduce_model`), so repeated sub-trees of a tree become one shared sub-graph. "
            f"It runs on the training part of the data in use ({data.name}); no training prediction changes."
        )
        reduced = reduced_model(opened, data)
        if reduced is None:
            st.button("Reduce the graph", key="opened/reduce", on_click=_reduce, args=(opened, match, data))
            error = st.session_state.pop("opened/reduce_error", None)
            if error:
                st.error(f"The graph could not be reduced: {error}")
            return
        s = reduction_summary(match.model, reduced, data)
        before, after = s["splits"] + s["leaves"], s["splits_after"] + s["leaves_after"]
        st.markdown(
            f"**{counted(s['splits'], 'split')} and {counted(s['leaves'], 'leaf', 'leaves')} become "
            f"{counted(s['splits_after'], 'split')} and {counted(s['leaves_after'], 'leaf', 'leaves')}** "
            f"({before - after} of {before} nodes saved, "
            f"{100 * (before - after) / before:.0f}%); nodes with several parents: {s['shared_nodes']} before, "
            f"{s['shared_nodes_after']} after. Training predictions "
            f"{'unchanged' if s['training_predictions_kept'] else 'CHANGED'}; test accuracy "
            f"{s['test_accuracy']:.3f} before, {s['test_accuracy_after']:.3f} after. The reduced model is in "
            "the model picker above."
        )
