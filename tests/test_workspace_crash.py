"""The workspace store under concurrent writers and under ``kill -9`` in the middle of a save."""

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from tnt import CARTClassifier
from tnt.model_io import model_to_json
from tnt.workspace import WorkspaceStore

ROOT = Path(__file__).resolve().parent.parent

# A writer process: saves runs named "<prefix> <i>" in a loop (or `count` of them), saying when it
# starts and ends each save. With "block", the save after `count` runs stops inside its transaction
# (its rows written, not committed) and says "inside".
WRITER = r"""
import sys, time
import tnt.workspace.store as store_module
from tnt.model_io import model_from_json
from tnt.workspace import WorkspaceStore

folder, workspace, model_path, prefix, count, mode = sys.argv[1:]
count = int(count)
model = model_from_json(open(model_path).read())
store = WorkspaceStore(folder)
i = 0
while mode != "count" or i < count:
    if mode == "block" and i == count:
        def stop_inside(con):
            print("inside", flush=True)
            time.sleep(600)
        store_module._size = stop_inside
    print(f"saving {i}", flush=True)
    store.save_run(workspace, dataset_name=f"{prefix} {i}", data_hash="0" * 64, dataset_key="k", source={},
                   params={"i": i}, metrics={}, models={"TnT": model, "CART": model})
    store.put_data(workspace, f"a,b\n{prefix},{i}\n".encode(), "f.csv")
    print(f"saved {i}", flush=True)
    i += 1
"""


@pytest.fixture(scope="module")
def big_model_file(tmp_path_factory):
    """A CART tree of about 2,000 leaves (random labels), saved as a model file of a few hundred KB."""
    rng = np.random.default_rng(0)
    model = CARTClassifier().fit(rng.random((3000, 8)), rng.integers(0, 5, 3000))
    path = tmp_path_factory.mktemp("model") / "big.json"
    path.write_text(model_to_json(model))
    return path


def writer(folder, workspace, model_path, prefix, count, mode):
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(folder), workspace, str(model_path), prefix, str(count), mode],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def read_until(proc, wanted: str) -> list[str]:
    """The writer's lines up to and including ``wanted`` (fails if the writer ends first)."""
    lines = []
    while True:
        line = proc.stdout.readline().strip()
        assert line, f"the writer ended early: {proc.stderr.read()}"
        lines.append(line)
        if line == wanted:
            return lines


def kill(proc):
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    rest = proc.stdout.read().splitlines()
    proc.stdout.close()
    proc.stderr.close()
    return rest


def assert_sound(folder):
    """The store opens, passes SQLite's integrity check, and every run has both its models."""
    with sqlite3.connect(Path(folder) / "workspaces.sqlite3") as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        incomplete = con.execute(
            "SELECT r.id FROM runs r LEFT JOIN models m ON m.run_id = r.id GROUP BY r.id HAVING COUNT(m.name) != 2"
        ).fetchall()
    assert incomplete == []


def saved_names(store, workspace):
    return sorted(r.dataset_name for r in store.runs(workspace))


def test_a_writer_killed_inside_its_transaction_leaves_every_committed_run(tmp_path, big_model_file):
    store = WorkspaceStore(tmp_path)
    ws = store.new_workspace()
    proc = writer(tmp_path, ws, big_model_file, "run", 3, "block")
    lines = read_until(proc, "inside")  # three runs committed, the fourth written but not committed
    assert lines[-2:] == ["saving 3", "inside"]
    kill(proc)
    again = WorkspaceStore(tmp_path)  # a restart after the kill
    assert_sound(tmp_path)
    assert saved_names(again, ws) == ["run 0", "run 1", "run 2"]
    for run in again.runs(ws):
        assert again.load_model(ws, run.id, "TnT").n_leaves_ > 1000
    again.save_run(ws, dataset_name="after", data_hash="0" * 64, dataset_key="k", source={}, params={},
                   metrics={}, models={})  # fmt: skip
    assert len(again.runs(ws)) == 4


def test_writers_killed_at_random_moments_of_saving_lose_nothing_committed(tmp_path, big_model_file):
    store = WorkspaceStore(tmp_path)
    ws = store.new_workspace()
    rng = random.Random(0)
    committed = set()
    for round_ in range(3):
        proc = writer(tmp_path, ws, big_model_file, f"round{round_}", 0, "loop")
        lines = read_until(proc, f"saving {rng.randint(1, 3)}")
        threading.Event().wait(rng.uniform(0.0, 0.15))  # somewhere in this save (or just after it)
        lines += kill(proc)
        committed |= {f"round{round_} {line.split()[-1]}" for line in lines if line.startswith("saved")}
        assert_sound(tmp_path)
        names = set(saved_names(WorkspaceStore(tmp_path), ws))
        assert committed <= names  # every save reported as done is there
        assert len(names - committed) <= 1  # at most the save the kill cut short, committed but unreported
        committed = names


def test_processes_and_threads_writing_at_once_all_get_their_runs(tmp_path, big_model_file):
    store = WorkspaceStore(tmp_path)
    shared, alone, threaded = store.new_workspace(), store.new_workspace(), store.new_workspace()
    procs = [
        writer(tmp_path, shared, big_model_file, "p0", 5, "count"),
        writer(tmp_path, shared, big_model_file, "p1", 5, "count"),
        writer(tmp_path, alone, big_model_file, "p2", 5, "count"),
    ]
    errors = []

    def in_thread(prefix, workspace):
        try:
            own = WorkspaceStore(tmp_path)
            for i in range(5):
                own.save_run(workspace, dataset_name=f"{prefix} {i}", data_hash="0" * 64, dataset_key="k",
                             source={}, params={"i": i}, metrics={}, models={"TnT": model, "CART": model})  # fmt: skip
                own.put_data(workspace, f"a,b\n{prefix},{i}\n".encode(), "f.csv")
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    from tnt.model_io import model_from_json

    model = model_from_json(big_model_file.read_text())
    threads = [threading.Thread(target=in_thread, args=(p, w)) for p, w in (("t0", threaded), ("t1", shared))]
    for t in threads:
        t.start()
    outputs = [p.communicate() for p in procs]
    for t in threads:
        t.join()
    assert errors == [] and [p.returncode for p in procs] == [0, 0, 0], outputs
    assert_sound(tmp_path)
    assert saved_names(store, shared) == sorted(f"{p} {i}" for p in ("p0", "p1", "t1") for i in range(5))
    assert saved_names(store, alone) == [f"p2 {i}" for i in range(5)]
    assert saved_names(store, threaded) == [f"t0 {i}" for i in range(5)]
    for ws, n in ((shared, 15), (alone, 5), (threaded, 5)):
        digests = {hashlib.sha256(f"a,b\n{r.dataset_name.replace(' ', ',')}\n".encode()).hexdigest()
                   for r in store.runs(ws)}  # fmt: skip
        assert len(digests) == n and all(store.get_data(ws, d) for d in digests)
