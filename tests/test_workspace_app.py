"""The app's workspace through Streamlit's AppTest: the id in the URL, restoring after a reload, the
History page (reopen, download, delete, forget)."""

import hashlib
import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from app_helpers import button, go, metric, new_session, train, upload

from tnt.data.sources import bundled_source, content_hash
from tnt.estimator import TnTClassifier
from tnt.workspace import WorkspaceStore, is_workspace_id
from tnt.workspace.runs import _ADDED_LATER, history_frame
from ui.display import saved_runs_table

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "tests" / "good_text_feature.csv"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A store of its own for each test (the app opens one store per folder)."""
    monkeypatch.setenv("TNT_WORKSPACE_DIR", str(tmp_path / "store"))
    return tmp_path / "store"


def session(ws=None):
    return new_session(60, ws)


def workspace_of(at) -> str:
    ws = at.query_params["ws"]
    return ws[0] if isinstance(ws, list) else ws


def fit_fails(monkeypatch):
    def failing_fit(self, *args, **kwargs):
        raise AssertionError("this model should have come from the workspace, not be trained again")

    monkeypatch.setattr(TnTClassifier, "fit", failing_fit)


def upload_and_train(at, C=1e-2):
    go(at, "data")
    upload(at, CSV)
    button(at, "Use this data").click().run()
    go(at, "train")
    at.select_slider[0].set_value(C)
    button(at, "Train").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return metric(at, "Splits"), metric(at, "Test accuracy")


def test_a_new_visitor_gets_a_new_workspace_in_the_address(folder):
    first, second = session(), session()
    a, b = workspace_of(first), workspace_of(second)
    assert is_workspace_id(a) and is_workspace_id(b) and a != b
    store = WorkspaceStore(folder)
    assert store.exists(a) and store.exists(b)
    train(first)
    assert workspace_of(first) == a  # navigation keeps it in the address
    assert [r.dataset_name for r in store.runs(a)] == ["Handwritten digits (8x8)"] and store.runs(b) == []


def test_a_reload_brings_back_the_upload_the_settings_and_the_model(folder, monkeypatch):
    at = session()
    splits, accuracy = upload_and_train(at, C=1e-2)
    ws = workspace_of(at)
    data = at.session_state["data/dataset"]
    fit_fails(monkeypatch)  # from here on, nothing may be trained again
    again = session(ws)  # a reload: a new session with the same address
    assert again.session_state["data/dataset"].key == data.key
    assert again.session_state["data/dataset"].name == "good_text_feature.csv"
    assert again.session_state["train/params"].C == 1e-2
    go(again, "train")
    assert not again.error
    assert (metric(again, "Splits"), metric(again, "Test accuracy")) == (splits, accuracy)
    go(again, "graph")
    assert not again.error and again.header[0].value == "Graph"


def train_held_out(at):
    train(at)
    at.selectbox(key="train/ccp_alpha").set_value("held_out_regrown")
    button(at, "Train").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return metric(at, "Splits")


def test_a_reload_brings_back_the_held_out_size_and_its_model(folder, monkeypatch):
    at = session()
    splits = train_held_out(at)
    ws = workspace_of(at)
    assert WorkspaceStore(folder).state(ws)["params"]["ccp_alpha"] == "held_out_regrown"
    fit_fails(monkeypatch)
    again = session(ws)
    assert again.session_state["train/params"].ccp_alpha == "held_out_regrown"
    assert any(m.value.endswith("size: held-out graph") for m in again.sidebar.markdown)
    go(again, "train")
    assert not again.error and metric(again, "Splits") == splits
    assert again.selectbox(key="train/ccp_alpha").value == "held_out_regrown"
    assert any("Size chosen on held-out data: pruning level" in c.value for c in again.main.caption)
    go(again, "history")
    assert list(again.dataframe[0].value["size"]) == ["held-out graph", "held-out choice"]  # newest first
    labels = again.selectbox(key="history/run").options
    assert labels[0].endswith(", size: held-out graph") and "size" not in labels[1]  # the default unsaid


def test_a_workspace_saved_before_the_size_choice_opens_as_c_alone(folder, monkeypatch):
    at = session()
    go(at, "train")
    at.selectbox(key="train/ccp_alpha").set_value(0.0)  # what every run was trained with then
    at.select_slider[0].set_value(1e-2)
    button(at, "Train").click().run()
    splits = metric(at, "Splits")
    ws = workspace_of(at)
    store = WorkspaceStore(folder)
    # The workspace as the version before the size choice saved it: no ccp_alpha anywhere, nor the
    # parameters added after it.
    later = list(_ADDED_LATER)[list(_ADDED_LATER).index("ccp_alpha") :]
    state = store.state(ws)
    state["params"] = {k: v for k, v in state["params"].items() if k not in later}
    store.set_state(ws, state)
    with store._write() as con:
        for run in store.runs(ws):
            older = {k: v for k, v in run.params.items() if k not in later}
            con.execute("UPDATE runs SET params = ? WHERE id = ?", (json.dumps(older, sort_keys=True), run.id))
    assert all("ccp_alpha" not in run.params for run in store.runs(ws))
    fit_fails(monkeypatch)  # the saved model is found, not trained again
    again = session(ws)
    params = again.session_state["train/params"]
    assert params.C == 1e-2 and params.ccp_alpha == 0.0
    go(again, "train")
    assert not again.error and metric(again, "Splits") == splits
    assert again.selectbox(key="train/ccp_alpha").value == 0.0
    go(again, "history")
    assert not again.error and set(again.dataframe[0].value["size"]) == {"C alone"}


def test_an_unknown_or_malformed_id_starts_a_new_workspace_with_a_note(folder):
    for given in ("A" * 32, "../../etc"):
        at = session(given)
        assert workspace_of(at) != given and is_workspace_id(workspace_of(at))
        assert any("no longer exists" in w.value for w in at.sidebar.warning)
        assert at.session_state["data/dataset"].name == "Handwritten digits (8x8)"


def json_order(frame):
    """The columns a shown table lists, in order."""
    return list(frame.value.columns)


def test_the_history_lists_runs_and_reopens_one_on_the_graph_page(folder, monkeypatch):
    at = session()
    train(at)  # the default model
    upload_and_train(at, C=1e-2)
    ws = workspace_of(at)
    fit_fails(monkeypatch)
    later = go(session(ws), "history")  # e.g. after a server restart
    # The two tables side by side as one: the runs and, in an expander, their data.
    table = pd.concat([later.dataframe[0].value, later.dataframe[1].value.drop(columns=["run", "data set"])], axis=1)
    # newest first: the upload at 1e-2, the digits at 1e-3 (opening Train trains nothing)
    assert list(table["data set"]) == ["good_text_feature.csv", "Handwritten digits (8x8)"]
    assert list(table["C"]) == ["1e-02", "1e-03"]
    digits_hash = content_hash(bundled_source("digits"))
    assert list(table["data hash (SHA-256)"]) == [hashlib.sha256(CSV.read_bytes()).hexdigest()[:12], digits_hash[:12]]
    assert table["TnT test"].between(0, 1).all() and table["fit time (s)"].ge(0).all()
    # Two tables that fit the page's width at 1,440 px, each a share of the columns, together all of them:
    # the runs (settings, size, scores) and, in an expander, when each was saved and from which data.
    runs, data = (json_order(later.dataframe[i]) for i in (0, 1))
    assert runs == ["run", "data set", "C", "settings", "thresholds", "size", "splits", "TnT test",
                    "CART test", "TnT train", "fit time (s)"]  # fmt: skip
    assert data == ["run", "saved", "data set", "test share", "split seed", "data hash (SHA-256)"]
    every = saved_runs_table(history_frame(WorkspaceStore(folder).runs(ws))).columns
    assert set(runs) | set(data) == set(every)
    headers = {**json.loads(later.dataframe[0].proto.columns), **json.loads(later.dataframe[1].proto.columns)}
    assert (headers["fit time (s)"]["label"], headers["fit time (s)"]["help"]) == (
        "fit (s)",
        "TnT's fit time in seconds",
    )
    hash_header = headers["data hash (SHA-256)"]
    assert hash_header["label"] == "data hash" and "SHA-256" in hash_header["help"]
    later.selectbox(key="history/run").set_value(WorkspaceStore(folder).runs(ws)[1].id).run()
    button(later, "Open on Graph").click().run()
    assert not later.exception and later.header[0].value == "Graph"
    assert later.session_state["data/dataset"].name == "Handwritten digits (8x8)"
    assert later.session_state["train/params"].C == 1e-3
    assert any("TnT on Handwritten digits" in c.value for c in later.caption)


def test_downloading_deleting_and_forgetting(folder):
    at = session()
    train(at)
    ws = workspace_of(at)
    store = WorkspaceStore(folder)
    (run,) = store.runs(ws)
    go(at, "history")
    labels = [d.label for d in at.get("download_button")]
    assert labels == ["TnT model (JSON)", "CART model (JSON)"]
    button(at, "Delete this run").click().run()
    assert store.runs(ws) == [] and any("No runs yet" in i.value for i in at.info)
    assert button(at, "Forget this workspace").disabled  # until confirmed
    at.checkbox(key="history/forget_sure").check().run()
    button(at, "Forget this workspace").click().run()
    assert not at.exception
    assert not store.exists(ws)
    assert workspace_of(at) != ws and store.exists(workspace_of(at))


def test_a_second_tab_with_the_same_address_shares_the_workspace(folder):
    first = session()
    ws = workspace_of(first)
    first.selectbox[0].set_value("iris")
    button(first, "Load data set").click().run()
    second = session(ws)
    assert second.session_state["data/dataset"].name == "Iris"
    assert workspace_of(second) == ws


@pytest.mark.parametrize("page, header", [("Paths", "Paths"), ("Compare", "Compare")])
def test_a_run_reopens_on_the_paths_and_compare_pages(folder, page, header):
    at = session()
    at.selectbox[0].set_value("iris")
    button(at, "Load data set").click().run()
    train(at)  # iris at 1e-3
    ws = workspace_of(at)
    later = go(session(ws), "history")
    button(later, f"Open on {page}").click().run()
    assert not later.exception and not later.error, [e.value for e in later.error]
    assert later.header[0].value == header
    assert later.session_state["data/dataset"].name == "Iris"


def test_a_run_whose_file_is_gone_says_so_in_one_sentence(folder):
    at = session()
    upload_and_train(at, C=1e-2)
    ws = workspace_of(at)
    with sqlite3.connect(folder / "workspaces.sqlite3") as con:  # the file's row lost, the runs kept
        con.execute("PRAGMA foreign_keys = OFF")
        con.execute("DELETE FROM uploads")
    later = go(session(ws), "history")
    assert any("could not be restored" in w.value for w in later.sidebar.warning)
    assert later.session_state["data/dataset"].name == "Handwritten digits (8x8)"
    button(later, "Open on Graph").click().run()
    assert not later.exception
    assert [e.value for e in later.error] == [
        "The uploaded file of this data set could not be read back from the workspace; upload it again on the "
        "Data page."
    ]
    assert later.header[0].value == "History"


def test_a_reload_brings_back_one_of_the_papers_sets(folder):
    """optdigits loaded from the Data page's list of the paper's sets: saved as its source, read again
    from the data folder by a new session with the same address."""
    at = session()
    at.selectbox(key="data/paper").set_value("optdigits").run()
    at.button(key="data/paper_load").click().run()
    assert not at.exception and not at.error
    data = at.session_state["data/dataset"]
    again = session(workspace_of(at))
    assert again.session_state["data/source"]["kind"] == "paper"
    assert again.session_state["data/dataset"].key == data.key and again.session_state["data/dataset"].name == data.name
