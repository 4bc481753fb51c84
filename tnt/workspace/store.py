"""The workspace store: workspaces, their runs, models and uploaded data in one SQLite file.

One folder (see :mod:`tnt.workspace.location`) holds ``workspaces.sqlite3`` in WAL mode. Every write
is one ``BEGIN IMMEDIATE`` transaction, so several threads and processes may write at once and a
process killed in the middle of a write leaves the store as it was before that write. Models are
kept as the project's JSON model files (:mod:`tnt.model_io`, never pickle), compressed, and read
back through :func:`~tnt.model_io.model_from_json` with all its checks. Uploaded files are kept
compressed, once per content hash however many workspaces use them.

A workspace is reached only through its id, 32 random URL-safe characters from
:func:`secrets.token_urlsafe`; no method lists workspaces, and every method about runs or data
takes the workspace id and sees only that workspace's rows. When the stored models and files pass
the size limit, the least recently used workspaces are removed, then the least recently used runs
of the workspace being written.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import sqlite3
import time
import zlib
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tnt.model_io import MAX_BYTES, model_from_json, model_to_json
from tnt.workspace.location import DB_NAME, default_folder, default_max_bytes

__all__ = ["Run", "WorkspaceNotFound", "WorkspaceStore", "is_workspace_id"]

_ID = re.compile(r"[A-Za-z0-9_-]{32}")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS workspaces (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    last_used REAL NOT NULL,
    state TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS blobs (  -- uploaded files, compressed, one row per content hash
    sha256 TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS uploads (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    sha256 TEXT NOT NULL REFERENCES blobs(sha256),
    name TEXT NOT NULL,
    added REAL NOT NULL,
    PRIMARY KEY (workspace_id, sha256)
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    created REAL NOT NULL,
    last_used REAL NOT NULL,
    dataset_name TEXT NOT NULL,
    data_hash TEXT NOT NULL,
    dataset_key TEXT NOT NULL,
    source TEXT NOT NULL,
    params TEXT NOT NULL,
    metrics TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_workspace ON runs (workspace_id, dataset_key, params);
CREATE TABLE IF NOT EXISTS models (  -- JSON model files (tnt.model_io), compressed
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    size INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, name)
);
"""
_MAX_UPLOAD = 50_000_000  # the CSV loader's own limit
_RUN_COLUMNS = "id, created, dataset_name, data_hash, dataset_key, source, params, metrics"


class WorkspaceNotFound(LookupError):
    """The workspace id is malformed, or no such workspace is stored (never made, forgotten or evicted)."""


@dataclass(frozen=True)
class Run:
    """One saved training run of a workspace (its models are read with :meth:`WorkspaceStore.load_model`).

    Attributes
    ----------
    id : int
    created : float
        When it was saved (seconds since the epoch).
    dataset_name, data_hash, dataset_key : str
        The data set's name, the SHA-256 hash of its file and its :attr:`~tnt.data.datasets.Dataset.key`.
    source : dict
        Where the data came from (:mod:`tnt.data.sources`).
    params : dict
        The training parameters.
    metrics : dict
        Per model name, its measurements.
    """

    id: int
    created: float
    dataset_name: str
    data_hash: str
    dataset_key: str
    source: dict
    params: dict
    metrics: dict


def is_workspace_id(value) -> bool:
    """Whether ``value`` has the form of a workspace id (32 URL-safe characters).

    Examples
    --------
    >>> is_workspace_id("x" * 32), is_workspace_id("../../etc/passwd")
    (True, False)
    """
    return isinstance(value, str) and _ID.fullmatch(value) is not None


class WorkspaceStore:
    """Workspaces of data and models in one SQLite file.

    Parameters
    ----------
    folder : str or Path, default=None
        The folder of the store (created, readable by its owner only); by default
        :func:`~tnt.workspace.location.default_folder`.
    max_bytes : int, default=None
        Size limit of the stored models and files (compressed); by default
        :func:`~tnt.workspace.location.default_max_bytes` (500 MB).

    Examples
    --------
    >>> import tempfile
    >>> from sklearn.datasets import load_iris
    >>> from tnt import TnTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     store = WorkspaceStore(folder)
    ...     ws = store.new_workspace()
    ...     run = store.save_run(ws, dataset_name="iris", data_hash="0" * 64, dataset_key="k", source={},
    ...                          params={"C": 0.01}, metrics={}, models={"TnT": TnTClassifier(C=1e-2).fit(X, y)})
    ...     [r.id for r in store.runs(ws)] == [run.id], store.load_model(ws, run.id, "TnT").n_splits_ > 0
    (True, True)
    """

    def __init__(self, folder=None, *, max_bytes: int | None = None):
        self.folder = Path(folder) if folder is not None else default_folder()
        self.max_bytes = default_max_bytes() if max_bytes is None else int(max_bytes)
        self.path = self.folder / DB_NAME
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._create()

    # ------------------------------------------------------------------ workspaces
    def new_workspace(self) -> str:
        """Create an empty workspace and return its id (unguessable: 192 random bits)."""
        workspace = secrets.token_urlsafe(24)
        now = time.time()
        with self._write() as con:
            con.execute("INSERT INTO workspaces (id, created, last_used) VALUES (?, ?, ?)", (workspace, now, now))
        return workspace

    def exists(self, workspace: str) -> bool:
        """Whether the workspace is stored; marks it used (for the least-recently-used eviction)."""
        if not is_workspace_id(workspace):
            return False
        with self._write() as con:
            return (
                con.execute("UPDATE workspaces SET last_used = ? WHERE id = ?", (time.time(), workspace)).rowcount == 1
            )

    def forget(self, workspace: str) -> None:
        """Delete the workspace with its runs, models and uploaded files (files no other workspace uses)."""
        with self._write() as con:
            self._check(con, workspace)
            con.execute("DELETE FROM workspaces WHERE id = ?", (workspace,))
            self._drop_unused_blobs(con)
        self._vacuum()

    def state(self, workspace: str) -> dict:
        """The small JSON state saved with :meth:`set_state` (``{}`` at first)."""
        with self._read() as con:
            row = con.execute("SELECT state FROM workspaces WHERE id = ?", (self._id(workspace),)).fetchone()
        if row is None:
            raise WorkspaceNotFound("This workspace does not exist (it was forgotten or removed to save space).")
        value = json.loads(row[0])
        return value if isinstance(value, dict) else {}

    def set_state(self, workspace: str, value: dict) -> None:
        """Save a small JSON-able dict with the workspace (the app keeps its data source and parameters)."""
        text = json.dumps(value, allow_nan=False, sort_keys=True)
        with self._write() as con:
            self._check(con, workspace)
            con.execute("UPDATE workspaces SET state = ?, last_used = ? WHERE id = ?", (text, time.time(), workspace))

    # ------------------------------------------------------------------ uploaded files
    def put_data(self, workspace: str, raw: bytes, name: str) -> str:
        """Keep an uploaded file for the workspace (compressed, stored once per content); returns its SHA-256."""
        if len(raw) > _MAX_UPLOAD:
            raise ValueError(f"The file is {len(raw)} bytes, more than the store's limit of {_MAX_UPLOAD} bytes.")
        digest = hashlib.sha256(raw).hexdigest()
        packed = zlib.compress(raw, 6)
        with self._write() as con:
            self._check(con, workspace)
            con.execute(
                "INSERT OR IGNORE INTO blobs (sha256, size, data) VALUES (?, ?, ?)", (digest, len(packed), packed)
            )
            con.execute(
                "INSERT OR REPLACE INTO uploads (workspace_id, sha256, name, added) VALUES (?, ?, ?, ?)",
                (workspace, digest, str(name), time.time()),
            )
            self._evict(con, workspace, keep_run=None)
        return digest

    def get_data(self, workspace: str, sha256: str) -> bytes:
        """The bytes of a file this workspace uploaded, checked against their hash.

        Raises
        ------
        KeyError
            When this workspace has no file with that hash.
        """
        if not isinstance(sha256, str) or not _DIGEST.fullmatch(sha256):
            raise KeyError("No uploaded file with this hash is stored in the workspace.")
        with self._read() as con:
            row = con.execute(
                "SELECT b.data FROM uploads u JOIN blobs b ON b.sha256 = u.sha256 WHERE u.workspace_id = ? AND u.sha256 = ?",
                (self._id(workspace), sha256),
            ).fetchone()
        if row is None:
            raise KeyError("No uploaded file with this hash is stored in the workspace.")
        raw = _inflate(row[0], _MAX_UPLOAD, "stored file")
        if hashlib.sha256(raw).hexdigest() != sha256:
            raise ValueError("The stored file does not match its hash; upload it again.")
        return raw

    # ------------------------------------------------------------------ runs
    def save_run(
        self, workspace: str, *, dataset_name: str, data_hash: str, dataset_key: str, source: dict, params: dict,
        metrics: dict, models: dict,
    ) -> Run:  # fmt: skip
        """Save a run and its fitted models (name -> estimator) in one transaction; returns the run."""
        packed = {str(name): zlib.compress(model_to_json(model).encode("utf-8"), 6) for name, model in models.items()}
        texts = [json.dumps(v, allow_nan=False, sort_keys=True) for v in (source, params, metrics)]
        now = time.time()
        with self._write() as con:
            self._check(con, workspace)
            run_id = con.execute(
                "INSERT INTO runs (workspace_id, created, last_used, dataset_name, data_hash, dataset_key, source, "
                "params, metrics) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (workspace, now, now, str(dataset_name), str(data_hash), str(dataset_key), *texts),
            ).lastrowid
            con.executemany(
                "INSERT INTO models (run_id, name, size, data) VALUES (?, ?, ?, ?)",
                [(run_id, name, len(data), data) for name, data in packed.items()],
            )
            con.execute("UPDATE workspaces SET last_used = ? WHERE id = ?", (now, workspace))
            self._evict(con, workspace, keep_run=run_id)
        return Run(run_id, now, str(dataset_name), str(data_hash), str(dataset_key), *map(json.loads, texts))

    def runs(self, workspace: str) -> list[Run]:
        """The workspace's runs, newest first."""
        with self._read() as con:
            self._check(con, workspace)
            rows = con.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE workspace_id = ? ORDER BY created DESC, id DESC", (workspace,)
            ).fetchall()
        return [_run(row) for row in rows]

    def run(self, workspace: str, run_id: int) -> Run:
        """One run of the workspace; :class:`KeyError` if the workspace has no such run."""
        with self._read() as con:
            row = con.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE workspace_id = ? AND id = ?", (self._id(workspace), int(run_id))
            ).fetchone()
        if row is None:
            raise KeyError("This run is not in the workspace (it was deleted or removed to save space).")
        return _run(row)

    def find_run(self, workspace: str, dataset_key: str, params: dict) -> Run | None:
        """The newest run of the workspace on ``dataset_key`` with exactly ``params``, or None."""
        with self._read() as con:
            row = con.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE workspace_id = ? AND dataset_key = ? AND params = ? "
                "ORDER BY created DESC, id DESC LIMIT 1",
                (self._id(workspace), str(dataset_key), json.dumps(params, allow_nan=False, sort_keys=True)),
            ).fetchone()
        return None if row is None else _run(row)

    def model_json(self, workspace: str, run_id: int, name: str) -> str:
        """A model of a run as the text of a model file, after the checks of :func:`~tnt.model_io.model_from_json`."""
        with self._write() as con:  # a write: it marks the run used
            row = con.execute(
                "SELECT m.data FROM models m JOIN runs r ON r.id = m.run_id "
                "WHERE r.workspace_id = ? AND r.id = ? AND m.name = ?",
                (self._id(workspace), int(run_id), str(name)),
            ).fetchone()
            if row is not None:
                con.execute("UPDATE runs SET last_used = ? WHERE id = ?", (time.time(), int(run_id)))
        if row is None:
            raise KeyError(f"The run has no model named {name!r} in this workspace.")
        text = _inflate(row[0], MAX_BYTES, "stored model").decode("utf-8")
        model_from_json(text)  # the same checks as any model file
        return text

    def load_model(self, workspace: str, run_id: int, name: str):
        """A model of a run, read as a model file (:class:`~tnt.model_io.LoadedGraphModel`)."""
        return model_from_json(self.model_json(workspace, run_id, name))

    def delete_run(self, workspace: str, run_id: int) -> None:
        """Delete a run of the workspace and its models (nothing happens for another workspace's run)."""
        with self._write() as con:
            con.execute("DELETE FROM runs WHERE workspace_id = ? AND id = ?", (self._id(workspace), int(run_id)))
        self._vacuum()

    # ------------------------------------------------------------------ size
    def size_bytes(self) -> int:
        """The compressed size of every stored model and file, the figure the size limit applies to."""
        with self._read() as con:
            return _size(con)

    # ------------------------------------------------------------------ internals
    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        con.execute("PRAGMA busy_timeout = 60000")
        con.execute("PRAGMA foreign_keys = ON")
        con.execute("PRAGMA synchronous = FULL")
        return con

    @contextmanager
    def _write(self):
        with closing(self._connect()) as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    @contextmanager
    def _read(self):
        with closing(self._connect()) as con:
            con.execute("BEGIN")
            try:
                yield con
            finally:
                con.execute("ROLLBACK")

    def _create(self) -> None:
        with closing(self._connect()) as con:
            if con.execute("PRAGMA user_version").fetchone()[0] == _SCHEMA_VERSION:
                return
            con.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before the first table: space is given back
            if con.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                raise OSError(f"The workspace store {self.path} cannot use SQLite's WAL mode.")
            con.execute("BEGIN IMMEDIATE")
            try:
                version = con.execute("PRAGMA user_version").fetchone()[0]
                if version not in (0, _SCHEMA_VERSION):
                    raise OSError(
                        f"The workspace store {self.path} has schema {version}; this version reads {_SCHEMA_VERSION}."
                    )
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        con.execute(statement)
                con.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    @staticmethod
    def _id(workspace: str) -> str:
        if not is_workspace_id(workspace):
            raise WorkspaceNotFound("This is not a workspace id.")
        return workspace

    def _check(self, con, workspace: str) -> None:
        if con.execute("SELECT 1 FROM workspaces WHERE id = ?", (self._id(workspace),)).fetchone() is None:
            raise WorkspaceNotFound("This workspace does not exist (it was forgotten or removed to save space).")

    def _evict(self, con, workspace: str, keep_run) -> None:
        """Within the caller's transaction: drop least recently used workspaces, then runs, until under the limit."""
        if _size(con) <= self.max_bytes:
            return
        others = con.execute("SELECT id FROM workspaces WHERE id != ? ORDER BY last_used", (workspace,)).fetchall()
        for (other,) in others:
            con.execute("DELETE FROM workspaces WHERE id = ?", (other,))
            self._drop_unused_blobs(con)
            if _size(con) <= self.max_bytes:
                return
        oldest = con.execute(
            "SELECT id FROM runs WHERE workspace_id = ? AND id IS NOT ? ORDER BY last_used", (workspace, keep_run)
        ).fetchall()
        for (run_id,) in oldest:
            con.execute("DELETE FROM runs WHERE id = ?", (run_id,))
            if _size(con) <= self.max_bytes:
                return

    @staticmethod
    def _drop_unused_blobs(con) -> None:
        con.execute("DELETE FROM blobs WHERE sha256 NOT IN (SELECT sha256 FROM uploads)")

    def _vacuum(self) -> None:
        with closing(self._connect()) as con:
            con.execute("PRAGMA incremental_vacuum")


def _size(con) -> int:
    return con.execute(
        "SELECT (SELECT COALESCE(SUM(size), 0) FROM blobs) + (SELECT COALESCE(SUM(size), 0) FROM models)"
    ).fetchone()[0]


def _run(row) -> Run:
    run_id, created, name, data_hash, key, source, params, metrics = row
    return Run(run_id, created, name, data_hash, key, json.loads(source), json.loads(params), json.loads(metrics))


def _inflate(data: bytes, limit: int, what: str) -> bytes:
    """Decompress at most ``limit`` bytes; more means a damaged or hostile store."""
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data, limit + 1)
    except zlib.error:
        raise ValueError(f"The {what} is damaged (it does not decompress).") from None
    if len(raw) > limit or inflater.unconsumed_tail:
        raise ValueError(f"The {what} is larger than the limit of {limit} bytes.")
    return raw
