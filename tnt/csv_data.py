"""Reading a CSV file from disk for the ``tnt`` command line, through the app's loader.

The bytes go through :func:`tnt.csv_input.read_csv_bytes` (size limits, encoding, sniffed delimiter,
header) and the chosen columns through :func:`tnt.datasets.prepare_table` (missing and infinite
values, text, constant columns, the class column): the command line and the app accept the same
files and say the same sentence about each problem, prefixed here with the file's path.
"""

from __future__ import annotations

from pathlib import Path

from .csv_input import Limits, check_size, read_csv_bytes
from .datasets import DataError, prepare_table

__all__ = ["read_csv_table"]


def read_csv_table(
    path,
    target: str | None = None,
    features=None,
    *,
    limits: Limits = Limits(),
    drop_missing: bool = False,
    reject_constant: bool = False,
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

    Returns
    -------
    X : pandas.DataFrame
        The feature columns, as float64 numbers.
    y : ndarray or None
        The target column (numbers as they are, other labels as strings), ``None`` without ``target``.

    Raises
    ------
    DataError
        A ``ValueError`` with the path and one sentence naming the problem and what to do.

    Examples
    --------
    >>> import os, tempfile
    >>> from tnt.csv_data import read_csv_table
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "iris.csv")
    ...     _ = open(path, "w").write("width;species\\n0.2;setosa\\n1.8;virginica\\n")
    ...     X, y = read_csv_table(path, target="species")
    >>> X.columns.tolist(), y.tolist()
    (['width'], ['setosa', 'virginica'])
    """
    import pandas as pd

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
            raise DataError(f"There is no column named '{target}'; the columns are {', '.join(columns)}.")
        if features is None:
            features = [c for c in columns if c != target]
        missing = [f for f in features if f not in columns]
        if missing:
            raise DataError(f"The model's feature column '{missing[0]}' is missing; use a file with every feature column.")
        if not features:
            raise DataError("There are no feature columns besides the class column; add the features.")
        X, y, _, _ = prepare_table(
            frame, target=target, features=features, drop_missing=drop_missing,
            reject_constant=reject_constant, encode_text=False,
        )
    except OSError as error:
        raise DataError(f"{path} could not be read ({error.strerror or error}).") from None
    except DataError as error:
        raise DataError(f"{path}: {error}") from None
    return pd.DataFrame(X, columns=list(features)), y
