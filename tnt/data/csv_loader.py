"""The one CSV loader: a file a user supplies (an upload in the app, a path for the ``tnt`` command line),
bytes in, a table out, or one plain sentence saying what is wrong (:class:`tnt.data.datasets.DataError`).

Checks, in order: empty file, binary or spreadsheet file, text encoding (UTF-8), delimiter
(sniffed among ``, ; tab |``), header (names missing, repeated, or numbers: no header row), size limits, rows of the wrong length,
at least two columns and one data row. The checks that depend on the chosen columns (missing
values, text, constants, the class column) are :func:`tnt.data.datasets.prepare_table`'s.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tnt._messages import shown
from tnt.data.datasets import DataError, prepare_table

__all__ = ["Limits", "UploadedTable", "check_size", "read_csv_bytes", "read_csv_table"]

# A number with a fraction or an exponent: data, not a column name (whole numbers such as "0" or
# "17" are common names, e.g. of pixels, and pass).
_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eE][+-]?\d+)")

_MAGIC = {
    b"PK\x03\x04": "a ZIP archive or an Excel workbook",
    b"\xd0\xcf\x11\xe0": "an old Excel or Word file",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"\x1f\x8b": "a gzip archive",
}


@dataclass(frozen=True)
class Limits:
    """Size limits for an uploaded table."""

    max_bytes: int = 50_000_000
    max_rows: int = 200_000
    max_columns: int = 500


@dataclass(frozen=True, eq=False)
class UploadedTable:
    """A parsed upload: the table, its name and a hash of its bytes (used in data set keys)."""

    name: str
    frame: pd.DataFrame
    digest: str
    delimiter: str


def read_csv_bytes(data: bytes, name: str = "upload.csv", limits: Limits = Limits()) -> UploadedTable:
    """Parse the bytes of a CSV file.

    Raises
    ------
    DataError
        When the bytes are not a usable CSV table, with one sentence saying what to do.

    Examples
    --------
    >>> table = read_csv_bytes(b"a;b;label\\n1;2;x\\n3;4;y\\n")
    >>> table.frame.shape, table.delimiter
    ((2, 3), ';')
    """
    check_size(len(data), limits)
    if not data.strip():
        raise DataError("The file is empty; use a CSV file with a header row and at least one data row.")
    for magic, kind in _MAGIC.items():
        if data.startswith(magic):
            raise DataError(f"This file is {kind}, not a CSV file; save the table as CSV (UTF-8) and use that.")
    if b"\x00" in data[:65536]:
        raise DataError("This file is binary, not a CSV text file; save the table as CSV (UTF-8) and use that.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise DataError(
            f"The file is not UTF-8 text (byte 0x{data[err.start]:02x} at position {err.start}); "
            "save it as 'CSV UTF-8' and try again."
        ) from None
    delimiter = _sniff_delimiter(text)
    try:
        header = next(csv.reader(io.StringIO(text, newline=None), delimiter=delimiter), [])  # any line break
    except csv.Error as err:  # e.g. a line break inside an unquoted header field
        raise DataError(
            f"The header row cannot be read as CSV ({str(err).split(' - ')[0]}); fix it and try again."
        ) from None
    header = [h.strip() for h in header]
    if len(header) > limits.max_columns:
        raise DataError(
            f"The file has {len(header)} columns; TnT Explorer takes at most {limits.max_columns}, "
            "so keep only the columns you need."
        )
    if len(header) < 2:
        raise DataError(
            "Only one column was found, so this does not look like a table of features and a class; "
            "use a CSV file with a header row and columns separated by commas or semicolons."
        )
    if any(h == "" for h in header):
        raise DataError("A column in the header row has no name; name every column and try again.")
    seen = set()
    for h in header:
        if h in seen:
            raise DataError(f"Two columns are named '{shown(h)}'; give every column its own name and try again.")
        seen.add(h)
    numbers = [h for h in header if _DECIMAL.fullmatch(h)]
    if numbers:
        raise DataError(
            f"The first row holds numbers such as '{shown(numbers[0])}' where column names belong, so the file "
            "seems to have no header row; add a row of column names and try again."
        )
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise DataError("The file is empty; use a CSV file with a header row and at least one data row.") from None
    except pd.errors.ParserError as err:
        raise DataError(
            f"Some rows do not have as many fields as the header ({_parser_detail(err)}); fix those rows and try again."
        ) from None
    frame.columns = header
    if frame.empty:
        raise DataError("The file has a header row but no data rows; add the data and try again.")
    if len(frame) > limits.max_rows:
        raise DataError(
            f"The file has {len(frame):,} rows; TnT Explorer takes at most {limits.max_rows:,}, so use a sample."
        )
    return UploadedTable(name=name, frame=frame, digest=hashlib.sha256(data).hexdigest()[:16], delimiter=delimiter)


def check_size(n_bytes: int, limits: Limits = Limits()) -> None:
    """Refuse a file of ``n_bytes`` bytes when it is larger than ``limits.max_bytes``.

    Raises
    ------
    DataError

    Examples
    --------
    >>> check_size(3_000_000, Limits(max_bytes=1_000_000))
    Traceback (most recent call last):
    ...
    tnt.data.datasets.DataError: The file is 3 MB; TnT Explorer reads at most 1 MB, so use a sample of the rows.
    """
    if n_bytes > limits.max_bytes:
        raise DataError(
            f"The file is {n_bytes / 1e6:.0f} MB; TnT Explorer reads at most {limits.max_bytes / 1e6:.0f} MB, "
            "so use a sample of the rows."
        )


def _sniff_delimiter(text: str) -> str:
    sample = "\n".join(text[:65536].splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def _listed(names: list[str], most: int = 10) -> str:
    """Column names for a message: the first ``most`` of them, each shortened."""
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(shown(n, 30) for n in names[:most]) + more


def _parser_detail(err: Exception) -> str:
    message = str(err).strip().splitlines()[-1]
    # pandas: "Error tokenizing data. C error: Expected 3 fields in line 4, saw 5"
    return message.split("error: ")[-1].split("Error: ")[-1]


# Reading a file from disk (the command line) goes through the same checks, prefixed with its path.


def read_csv_table(
    path,
    target: str | None = None,
    features=None,
    *,
    limits: Limits = Limits(),
    drop_missing: bool = False,
    reject_constant: bool = False,
    task: str = "classification",
    text_features=(),
):
    """Read a CSV file into numeric features and, optionally, a target column.

    Parameters
    ----------
    path : str or Path
    target : str, default=None
        Name of the column to return as labels; every other column is a feature.
    features : sequence of str, default=None
        When given, exactly these columns are the features (in this order); others are ignored.
    limits : Limits, default=Limits()
        The largest file (bytes), number of rows and number of columns accepted.
    drop_missing : bool, default=False
        Drop rows with missing values instead of refusing the file.
    reject_constant : bool, default=False
        Refuse feature columns holding a single value (for training; a batch to predict may have some).
    task : {"classification", "regression", "auto"}, default="classification"
        What the target is for (see :func:`tnt.data.datasets.prepare_table`).
    text_features : sequence of str, default=()
        Feature columns returned as they are read (the categorical features of a model, whose values
        it reads by name), an empty cell as a missing value; the checks of numeric columns skip them.

    Returns
    -------
    X : pandas.DataFrame
        The feature columns, as float64 numbers (the ``text_features`` as they are).
    y : ndarray or None
        The target column (numbers as they are, other labels as strings), ``None`` without ``target``.

    Raises
    ------
    DataError
        A ``ValueError`` with the path and one sentence naming the problem and what to do.

    Examples
    --------
    >>> import os, tempfile
    >>> from tnt.data.csv_loader import read_csv_table
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "iris.csv")
    ...     _ = open(path, "w").write("width;species\\n0.2;setosa\\n1.8;virginica\\n")
    ...     X, y = read_csv_table(path, target="species")
    >>> X.columns.tolist(), y.tolist()
    (['width'], ['setosa', 'virginica'])
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path} does not exist or is not a file.")
    try:
        check_size(path.stat().st_size, limits)  # before reading it
        with open(path, "rb") as file:
            data = file.read(limits.max_bytes + 1)
        frame = read_csv_bytes(data, name=path.name, limits=limits).frame
        columns = [str(c) for c in frame.columns]
        if target is not None and target not in columns:
            raise DataError(f"There is no column named '{shown(target)}'; the columns are {_listed(columns)}.")
        if features is None:
            features = [c for c in columns if c != target]
        missing = [f for f in features if f not in columns]
        if missing:
            raise DataError(
                f"The model's feature column '{shown(missing[0])}' is missing; use a file with every feature column."
            )
        if not features:
            raise DataError("There are no feature columns besides the class column; add the features.")
        unknown = [f for f in text_features if f not in columns]
        if unknown:
            raise DataError(f"There is no column named '{shown(unknown[0])}'; the columns are {_listed(columns)}.")
        numeric = [f for f in features if f not in set(text_features)]
        if numeric or target is not None:
            X, y, _, rows = prepare_table(
                frame,
                target=target,
                features=numeric,
                drop_missing=drop_missing,
                reject_constant=reject_constant,
                encode_text=False,
                task=task,
            )
        else:  # only columns read by name: nothing to check
            X, y, rows = np.empty((frame.shape[0], 0)), None, frame.index
    except OSError as error:
        raise DataError(f"{path} could not be read ({error.strerror or error}).") from None
    except DataError as error:
        raise DataError(f"{path}: {error}") from None
    table = pd.DataFrame(X, columns=numeric)
    for name in text_features:
        table[name] = frame.loc[rows, name].to_numpy()
    return table[list(features)], y
