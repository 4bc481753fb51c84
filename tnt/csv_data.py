"""Reading a table of numeric features (and optionally a target column) from a CSV file."""

from __future__ import annotations

from pathlib import Path

__all__ = ["read_csv_table"]


def read_csv_table(path, target: str | None = None, features=None):
    """Read a CSV file into numeric features and, optionally, a target column.

    Parameters
    ----------
    path : str or Path
    target : str, default=None
        Name of the column to return as labels; every other column is a feature.
    features : sequence of str, default=None
        When given, exactly these columns are the features (in this order); others are ignored.

    Returns
    -------
    X : pandas.DataFrame
        The feature columns, all numeric.
    y : pandas.Series or None
        The target column (any label type), ``None`` without ``target``.

    Raises
    ------
    ValueError
        With one sentence naming the problem: missing or unreadable file, not a CSV, missing
        target or feature column, text in a feature column, missing values.

    Examples
    --------
    >>> import io, tempfile, os
    >>> from tnt.csv_data import read_csv_table
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "iris.csv")
    ...     _ = open(path, "w").write("width,species\\n0.2,setosa\\n1.8,virginica\\n")
    ...     X, y = read_csv_table(path, target="species")
    >>> X.columns.tolist(), y.tolist()
    (['width'], ['setosa', 'virginica'])
    """
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path} does not exist or is not a file.")
    with open(path, "rb") as file:
        if b"\0" in file.read(8192):
            raise ValueError(f"{path} is not a CSV file (it holds binary data).")
    try:
        table = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"{path} is not a readable CSV file ({reason}).") from None
    except OSError as error:
        raise ValueError(f"{path} could not be read ({error.strerror or error}).") from None
    if table.shape[1] == 0 or table.shape[0] == 0:
        raise ValueError(f"{path} has no data rows.")
    y = None
    if target is not None:
        if target not in table.columns:
            raise ValueError(f"{path} has no column {target!r} (columns: {', '.join(map(str, table.columns))}).")
        y = table[target]
        if y.isna().any():
            raise ValueError(f"The target column {target!r} has missing values in {int(y.isna().sum())} rows.")
        table = table.drop(columns=[target])
    if features is not None:
        missing = [f for f in features if f not in table.columns]
        if missing:
            raise ValueError(f"{path} lacks the model's feature column(s) {', '.join(map(repr, missing))}.")
        table = table[list(features)]
    if table.shape[1] == 0:
        raise ValueError(f"{path} has no feature columns besides the target.")
    for column in table.columns:
        if not pd.api.types.is_numeric_dtype(table[column]):
            raise ValueError(f"Feature column {column!r} holds text; every feature must be numeric.")
    if table.isna().any().any():
        column = table.columns[table.isna().any()][0]
        raise ValueError(f"Feature column {column!r} has missing values; fill or drop them first.")
    return table, y
