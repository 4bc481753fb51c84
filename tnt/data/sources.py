"""Where a data set came from, as a small JSON-able dict, and the data set rebuilt from it.

A *source* names a bundled data set and its split, one of the paper's data sets found on this
machine (:func:`~tnt.data.datasets.load_paper_set`), or an uploaded file (by the SHA-256 hash of its
bytes) with the columns and split chosen for it. The app keeps the source of the data in use, and a
saved run keeps the source of its data, so that either can be rebuilt exactly (same rows, same split,
same :attr:`~tnt.data.datasets.Dataset.key`) after a reload or a restart.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from tnt.data.csv_loader import UploadedTable
from tnt.data.datasets import (
    SAMPLE_DATA,
    TASKS,
    DataError,
    Dataset,
    _entry,
    can_be_categorical,
    is_text_column,
    load_bundled,
    load_paper_set,
    make_dataset,
)

__all__ = [
    "bundled_source",
    "paper_sets_found",
    "paper_source",
    "categorical_choices",
    "upload_source",
    "dataset_from_source",
    "content_hash",
    "check_source",
]

_HEX = frozenset("0123456789abcdef")


def bundled_source(dataset_id: str, test_size: float = 0.3, seed: int = 0) -> dict:
    """The source of a bundled data set split with ``test_size`` and ``seed``.

    Examples
    --------
    >>> bundled_source("iris")
    {'kind': 'bundled', 'id': 'iris', 'test_size': 0.3, 'seed': 0}
    """
    return {"kind": "bundled", "id": str(dataset_id), "test_size": float(test_size), "seed": int(seed)}


def paper_source(name: str, seed: int = 0) -> dict:
    """The source of one of the paper's data sets (its own split; ``seed`` splits a set that has none).

    Examples
    --------
    >>> paper_source("mnist")
    {'kind': 'paper', 'name': 'mnist', 'test_size': 0.33, 'seed': 0}
    """
    from tnt.experiments.paper import TEST_SHARE

    return {"kind": "paper", "name": str(name), "test_size": TEST_SHARE, "seed": int(seed)}


def paper_sets_found() -> tuple[list[str], str | None]:
    """The paper's data sets found on this machine (where :func:`tnt.data.external.find_data` looks), and
    the sentence saying how to get the first one missing (None when all six are there)."""
    from tnt.data.external import missing_data
    from tnt.experiments.paper import PAPER_DATASETS

    missing = {name: missing_data([name]) for name in PAPER_DATASETS}
    first = next((sentence for sentence in missing.values() if sentence), None)
    return [name for name, sentence in missing.items() if sentence is None], first


def upload_source(
    raw: bytes,
    name: str,
    *,
    target: str,
    features,
    test_size: float = 0.3,
    seed: int = 0,
    drop_missing: bool = False,
    task: str = "auto",
    categorical=(),
) -> dict:
    """The source of an uploaded CSV file (``raw``, its bytes) and the choices made on it; ``task``
    (``"auto"``, ``"classification"`` or ``"regression"``, see :func:`tnt.data.datasets.make_dataset`)
    is kept only when it is not ``"auto"``, so that sources saved before regression read the same,
    and ``categorical`` (the features split by subsets of categories) only when it names a column:
    a source without it has none, as every source saved before categorical features came.

    Examples
    --------
    >>> upload_source(b"colour,y\\nred,1\\n", "f.csv", target="y", features=["colour"], categorical=["colour"])["categorical"]
    ['colour']
    """
    extra = {} if task == "auto" else {"task": str(task)}
    chosen = [str(c) for c in categorical if str(c) in {str(f) for f in features} and str(c) != str(target)]
    if chosen:
        extra["categorical"] = chosen
    return {
        "kind": "upload",
        "name": str(name),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "target": str(target),
        "features": [str(f) for f in features],
        "test_size": float(test_size),
        "seed": int(seed),
        "drop_missing": bool(drop_missing),
        **extra,
    }


def categorical_choices(
    table: UploadedTable, source: dict | None = None, target: str | None = None
) -> tuple[list[str], list[str]]:
    """The columns of an uploaded table that can be categorical (:func:`tnt.data.datasets.can_be_categorical`:
    text or whole numbers, at most ``MAX_TEXT_CATEGORIES`` values), and those marked at first: the choice kept in
    ``source`` when it is this file's, else the text columns (categorical by default) but
    ``target``, the class column proposed.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "blue"] * 200, "doors": [2, 4] * 200, "w": range(400)})
    >>> table = UploadedTable("f.csv", frame, "0" * 16, ",")
    >>> categorical_choices(table, target="w")
    (['colour', 'doors'], ['colour'])
    """
    frame = table.frame
    markable = [str(c) for c in frame.columns if can_be_categorical(frame[c])]
    same_file = source is not None and source.get("kind") == "upload" and source.get("sha256", "")[:16] == table.digest
    if same_file:
        return markable, [c for c in source.get("categorical", []) if c in markable]
    return markable, [c for c in markable if c != target and is_text_column(frame[c])]


def check_source(source) -> dict:
    """``source`` if it is a well-formed source dict, else :class:`DataError` (one sentence).

    Sources read back from a workspace store go through this before anything is loaded.
    """
    if not isinstance(source, dict) or source.get("kind") not in ("bundled", "paper", "upload"):
        raise DataError("The saved data source is not valid; load the data again on the Data page.")
    number = (int, float)
    fields = {"test_size": number, "seed": int}
    if source["kind"] == "bundled":
        fields["id"] = str
    elif source["kind"] == "paper":
        fields["name"] = str
    else:
        fields.update(name=str, sha256=str, target=str, features=list, drop_missing=bool)
    for key, kind in fields.items():
        if not isinstance(source.get(key), kind) or isinstance(source.get(key), bool) and kind is not bool:
            raise DataError(f"The saved data source has no valid '{key}'; load the data again on the Data page.")
    if source["kind"] == "upload" and source.get("task", "auto") not in TASKS:
        raise DataError("The saved data source has no valid 'task'; load the data again on the Data page.")
    marked = source.get("categorical", [])
    if source["kind"] == "upload" and not (isinstance(marked, list) and all(isinstance(c, str) for c in marked)):
        raise DataError("The saved data source has no valid 'categorical'; load the data again on the Data page.")
    if source["kind"] == "upload" and (
        len(source["sha256"]) != 64
        or not set(source["sha256"]) <= _HEX
        or not all(isinstance(f, str) for f in source["features"])
    ):
        raise DataError("The saved data source is not valid; load the data again on the Data page.")
    return source


def dataset_from_source(source: dict, table: UploadedTable | None = None) -> Dataset:
    """The data set ``source`` describes; an upload needs its parsed file, ``table``.

    Raises
    ------
    DataError
        When the source is malformed, names an unknown bundled set, or the table does not fit it.

    Examples
    --------
    >>> data = dataset_from_source(bundled_source("iris", 0.2, 1))
    >>> data.key == load_bundled("iris", test_size=0.2, seed=1).key
    True
    """
    check_source(source)
    if source["kind"] == "bundled":
        try:
            return load_bundled(source["id"], test_size=source["test_size"], seed=source["seed"])
        except KeyError as error:
            raise DataError(str(error.args[0])) from None
    if source["kind"] == "paper":
        return load_paper_set(source["name"], seed=source["seed"])
    if table is None:
        raise DataError("The uploaded file of this data set is not available; upload it again on the Data page.")
    return make_dataset(
        table.frame,
        target=source["target"],
        features=[c for c in source["features"] if c != source["target"]],
        name=table.name,
        description=f"Uploaded file, {len(table.frame):,} rows.",
        test_size=source["test_size"],
        seed=source["seed"],
        drop_missing=source["drop_missing"],
        source_key=f"upload:{table.digest}",
        task=source.get("task", "auto"),
        categorical=source.get("categorical", []),
    )


def content_hash(source: dict) -> str:
    """The SHA-256 hash (hex) of the file the data comes from: the upload's bytes, the bundled file's, or
    the paper's set's (as its catalog, ``external.json``, gives it).

    Examples
    --------
    >>> len(content_hash(bundled_source("iris")))
    64
    """
    check_source(source)
    if source["kind"] == "upload":
        return source["sha256"]
    if source["kind"] == "paper":
        from tnt.data.external import external_set

        return external_set(source["name"]).sha256
    try:
        return _bundled_hash(source["id"])
    except KeyError as error:
        raise DataError(str(error.args[0])) from None


@lru_cache(maxsize=32)
def _bundled_hash(dataset_id: str) -> str:
    return hashlib.sha256((SAMPLE_DATA / _entry(dataset_id)["file"]).read_bytes()).hexdigest()
