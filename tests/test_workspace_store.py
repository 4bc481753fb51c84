"""The workspace store on its own: runs, models, uploads, isolation, size limit, restarts and bad rows."""

import json
import sqlite3
import stat
import zlib

import numpy as np
import pytest
from sklearn.datasets import load_iris

from tnt import CARTClassifier, TnTClassifier
from tnt.workspace import WorkspaceNotFound, WorkspaceStore, default_folder, is_workspace_id
from tnt.workspace.location import DB_NAME, default_max_bytes

X, Y = load_iris(return_X_y=True)


@pytest.fixture(scope="module")
def models():
    return {"TnT": TnTClassifier(C=1e-2, random_state=0).fit(X, Y), "CART": CARTClassifier(max_leaf_nodes=4).fit(X, Y)}


@pytest.fixture
def store(tmp_path):
    return WorkspaceStore(tmp_path / "store")


def save(store, ws, models, C=0.01, key="k"):
    return store.save_run(
        ws, dataset_name="iris", data_hash="ab" * 32, dataset_key=key, source={"kind": "bundled", "id": "iris"},
        params={"C": C, "N1": 2}, metrics={"TnT": {"splits": int(models["TnT"].n_splits_)}}, models=models,
    )  # fmt: skip


def test_ids_are_long_random_and_distinct(store):
    ids = {store.new_workspace() for _ in range(20)}
    assert len(ids) == 20 and all(is_workspace_id(i) for i in ids)
    assert all(store.exists(i) for i in ids)
    assert not store.exists("A" * 32) and not store.exists("short") and not store.exists(None)


def test_a_run_and_its_models_come_back_as_saved(store, models):
    ws = store.new_workspace()
    run = save(store, ws, models)
    (listed,) = store.runs(ws)
    assert listed == run == store.run(ws, run.id)
    assert listed.params == {"C": 0.01, "N1": 2} and listed.metrics == {"TnT": {"splits": models["TnT"].n_splits_}}
    for name, model in models.items():
        loaded = store.load_model(ws, run.id, name)
        assert np.array_equal(loaded.predict(X), model.predict(X))
        assert loaded.estimator_kind_ == type(model).__name__
        assert json.loads(store.model_json(ws, run.id, name))["format"] == "tnt-explorer-model"
    assert store.find_run(ws, "k", {"N1": 2, "C": 0.01}) == run  # key order does not matter
    assert store.find_run(ws, "k", {"C": 0.02, "N1": 2}) is None and store.find_run(ws, "other", run.params) is None


def test_runs_are_newest_first_and_deleted_one_by_one(store, models):
    ws = store.new_workspace()
    first, second = save(store, ws, models, C=0.01), save(store, ws, models, C=0.02)
    assert [r.id for r in store.runs(ws)] == [second.id, first.id]
    store.delete_run(ws, first.id)
    assert [r.id for r in store.runs(ws)] == [second.id]
    with pytest.raises(KeyError, match="not in the workspace"):
        store.run(ws, first.id)
    with pytest.raises(KeyError, match="no model named"):
        store.load_model(ws, first.id, "TnT")


def test_one_workspace_cannot_reach_another(store, models):
    mine, theirs = store.new_workspace(), store.new_workspace()
    run = save(store, theirs, models)
    digest = store.put_data(theirs, b"a,b\n1,2\n", "theirs.csv")
    assert store.runs(mine) == []
    with pytest.raises(KeyError):
        store.run(mine, run.id)
    with pytest.raises(KeyError):
        store.load_model(mine, run.id, "TnT")
    with pytest.raises(KeyError):
        store.get_data(mine, digest)
    assert store.find_run(mine, "k", run.params) is None
    store.delete_run(mine, run.id)  # not theirs to delete: nothing happens
    assert [r.id for r in store.runs(theirs)] == [run.id]
    with pytest.raises(WorkspaceNotFound):
        store.runs("not-an-id")
    with pytest.raises(WorkspaceNotFound):
        store.set_state("B" * 32, {})


def test_uploads_are_compressed_checked_and_stored_once(store):
    a, b = store.new_workspace(), store.new_workspace()
    raw = b"x,y,label\n" + b"".join(b"%d,%d,%s\n" % (i, i * i, b"ab"[i % 2 : i % 2 + 1]) for i in range(2000))
    digest = store.put_data(a, raw, "a.csv")
    assert store.put_data(b, raw, "b.csv") == digest
    assert store.get_data(a, digest) == raw == store.get_data(b, digest)
    with sqlite3.connect(store.path) as con:
        ((count, size),) = con.execute("SELECT COUNT(*), SUM(size) FROM blobs").fetchall()
    assert count == 1 and size < len(raw) / 2 and store.size_bytes() == size
    store.forget(a)
    assert store.get_data(b, digest) == raw  # still used by b
    store.forget(b)
    with sqlite3.connect(store.path) as con:
        assert con.execute("SELECT COUNT(*) FROM blobs").fetchone() == (0,)
    assert store.size_bytes() == 0


def test_forgetting_a_workspace_removes_everything_of_it(store, models):
    ws, other = store.new_workspace(), store.new_workspace()
    save(store, ws, models)
    kept = save(store, other, models)
    store.put_data(ws, b"a,b\n1,2\n", "f.csv")
    store.set_state(ws, {"params": {"C": 0.1}})
    store.forget(ws)
    assert not store.exists(ws)
    for call in (store.runs, store.state):
        with pytest.raises(WorkspaceNotFound, match="does not exist"):
            call(ws)
    with sqlite3.connect(store.path) as con:
        assert con.execute("SELECT COUNT(*) FROM runs").fetchone() == (1,)
        assert con.execute("SELECT COUNT(*) FROM models WHERE run_id != ?", (kept.id,)).fetchone() == (0,)
        assert con.execute("SELECT COUNT(*) FROM uploads").fetchone() == (0,)


def test_state_and_runs_survive_a_new_store_on_the_same_folder(tmp_path, models):
    first = WorkspaceStore(tmp_path)
    ws = first.new_workspace()
    first.set_state(ws, {"source": {"kind": "bundled", "id": "iris"}, "params": {"C": 0.001}})
    run = save(first, ws, models)
    again = WorkspaceStore(tmp_path)  # a restart
    assert again.state(ws) == {"source": {"kind": "bundled", "id": "iris"}, "params": {"C": 0.001}}
    assert again.runs(ws) == [run]
    assert np.array_equal(again.load_model(ws, run.id, "TnT").predict(X), models["TnT"].predict(X))


def test_the_file_is_in_wal_mode_and_private(store):
    with sqlite3.connect(store.path) as con:
        assert con.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    assert store.path.name == DB_NAME


def test_the_least_recently_used_workspaces_go_first_when_the_store_is_full(tmp_path, models):
    probe = WorkspaceStore(tmp_path / "probe")
    one_run = save(probe, probe.new_workspace(), models) and probe.size_bytes()
    store = WorkspaceStore(tmp_path / "full", max_bytes=int(3.5 * one_run))
    old, used, new = store.new_workspace(), store.new_workspace(), store.new_workspace()
    save(store, old, models)
    save(store, used, models)
    save(store, new, models)
    assert store.exists(used)  # used again: now more recent than `old`
    save(store, new, models)  # four runs do not fit: the least recently used workspace goes
    assert not store.exists(old)
    assert len(store.runs(used)) == 1 and len(store.runs(new)) == 2
    assert store.size_bytes() <= store.max_bytes


def test_a_workspace_alone_over_the_limit_loses_its_oldest_runs_but_not_the_new_one(tmp_path, models):
    probe = WorkspaceStore(tmp_path / "probe")
    one_run = save(probe, probe.new_workspace(), models) and probe.size_bytes()
    store = WorkspaceStore(tmp_path / "full", max_bytes=int(2.5 * one_run))
    ws = store.new_workspace()
    runs = [save(store, ws, models, C=c) for c in (0.01, 0.02, 0.03)]
    assert [r.id for r in store.runs(ws)] == [runs[2].id, runs[1].id]
    tiny = WorkspaceStore(tmp_path / "tiny", max_bytes=1)
    only = save(tiny, tiny.new_workspace(), models)  # larger than the limit by itself: kept all the same
    assert only.id == 1 and tiny.size_bytes() > 1


def test_stored_models_are_read_with_the_checks_of_any_model_file(store, models):
    ws = store.new_workspace()
    run = save(store, ws, models)
    doc = json.loads(store.model_json(ws, run.id, "TnT"))
    doc["graph"]["children_left"][0] = 10**6  # a child out of range
    with sqlite3.connect(store.path) as con:
        con.execute("UPDATE models SET data = ? WHERE name = 'TnT'", (zlib.compress(json.dumps(doc).encode()),))
        con.execute("UPDATE models SET data = ? WHERE name = 'CART'", (b"not zlib",))
    with pytest.raises(ValueError, match="left child id out of range"):
        store.load_model(ws, run.id, "TnT")
    with pytest.raises(ValueError, match="damaged"):
        store.load_model(ws, run.id, "CART")


def test_a_decompression_bomb_or_a_changed_file_is_refused(store):
    ws = store.new_workspace()
    digest = store.put_data(ws, b"a,b\n1,2\n", "f.csv")
    with sqlite3.connect(store.path) as con:
        con.execute("UPDATE blobs SET data = ?", (zlib.compress(b"a,b\n1,3\n"),))
    with pytest.raises(ValueError, match="does not match its hash"):
        store.get_data(ws, digest)
    with sqlite3.connect(store.path) as con:
        con.execute("UPDATE blobs SET data = ?", (zlib.compress(b"0" * 60_000_000, 9),))
    with pytest.raises(ValueError, match="larger than the limit"):
        store.get_data(ws, digest)
    with pytest.raises(KeyError):
        store.get_data(ws, "../" * 21 + "x")


def test_the_folder_and_limit_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("TNT_WORKSPACE_DIR", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_folder() == tmp_path / ".local" / "share" / "tnt-explorer"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert default_folder() == tmp_path / ".local" / "share" / "tnt-explorer"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_folder() == tmp_path / "xdg" / "tnt-explorer"
    monkeypatch.setenv("TNT_WORKSPACE_DIR", str(tmp_path / "mine"))
    assert WorkspaceStore().folder == tmp_path / "mine"
    assert WorkspaceStore().max_bytes == 500_000_000  # the documented default (docs/workspaces.md)
    monkeypatch.setenv("TNT_WORKSPACE_MAX_MB", "1.5")
    assert WorkspaceStore().max_bytes == 1_500_000
    for bad in ("0", "-2", "lots"):
        monkeypatch.setenv("TNT_WORKSPACE_MAX_MB", bad)
        with pytest.raises(ValueError, match="TNT_WORKSPACE_MAX_MB must be a positive number"):
            default_max_bytes()


def test_no_method_reaches_a_workspace_without_its_id():
    """Every public method but making a workspace and measuring the store takes a workspace id first;
    none lists workspaces."""
    import inspect

    methods = {n: m for n, m in inspect.getmembers(WorkspaceStore, inspect.isfunction) if not n.startswith("_")}
    assert set(methods) >= {"new_workspace", "runs", "save_run", "load_model", "get_data", "forget"}
    for name, method in methods.items():
        if name not in ("new_workspace", "size_bytes"):
            assert list(inspect.signature(method).parameters)[1] == "workspace", name
