"""A fitted graph model as one SQL query over a table of rows to predict.

The graph is data, not code: its splits and its leaves are two tables written as ``VALUES`` (one row
per node), and each input row walks them in a recursive common table expression, one step per
split it passes. The query thus grows linearly with the number of nodes, whatever their sharing;
a CASE expression picks the tested column by the split's feature number. Every row is walked in a
scalar subquery of its own, so the table needs no index and its key need not be unique.

Standard SQL (``WITH RECURSIVE``, ``VALUES``, ``CASE``, ``CAST``): tested in SQLite.
"""

from __future__ import annotations

import math

from tnt._messages import printable, shown
from tnt.codegen.walker import code_graph

__all__ = ["to_sql"]

#: The names the query gives its own tables; the input table must be called otherwise.
OWN_NAMES = ("tnt_split", "tnt_leaf", "tnt_walk", "tnt_row")
#: Largest power of two written as one integer literal (it fits a signed 64-bit integer).
_LARGEST_SHIFT = 62


def to_sql(estimator, *, table: str = "data", key: str = "id", feature_names=None) -> str:
    """An SQL query predicting every row of ``table`` as ``estimator`` does.

    The query reads the key column and the feature columns (named as the model's features) of
    ``table`` and returns the key and a ``prediction`` column (the class label; for a regressor, the
    value), ordered by the key. A NULL feature value is a missing value: it goes where the model
    sends a NaN at each split. A categorical feature's column holds its categories by name (text,
    or integers for integer codes): a split on it reads ``"colour" IN ('blue', 'red')``, and a
    category the model never saw goes as NULL does. Identifiers are double-quoted and strings
    single-quoted (inner quotes doubled), so any name works.

    Parameters
    ----------
    estimator : fitted graph classifier or regressor (TnT, CART, TAO, NDG or a loaded model file)
    table : str, default="data"
        Name of the table (or view) holding the rows.
    key : str, default="id"
        Name of its key column, returned with each prediction.
    feature_names : sequence of str, default=None
        Column names of the features; the estimator's ``feature_names_in_``, else ``x0``, ``x1``, ...

    Returns
    -------
    query : str

    Examples
    --------
    >>> import sqlite3
    >>> from sklearn.datasets import load_iris
    >>> from tnt import TnTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    >>> db = sqlite3.connect(":memory:")
    >>> _ = db.execute("CREATE TABLE data (id, x0, x1, x2, x3)")
    >>> _ = db.executemany("INSERT INTO data VALUES (?, ?, ?, ?, ?)", [(i, *r) for i, r in enumerate(X.tolist())])
    >>> [c for _, c in db.execute(to_sql(model))] == model.predict(X).tolist()
    True
    """
    g = code_graph(estimator, feature_names)
    _check_names(g.feature_names, table, key)
    row = sql_identifier("tnt_row")
    # Categorical columns are read by the IN lists of their splits only: a CASE mixing text and
    # numbers would not type-check in every database.
    columns = [(f, sql_identifier(g.feature_names[f])) for f in g.used_features if f not in g.categories]
    cases = [f"      WHEN {f} THEN {row}.{name}" for f, name in columns] or ["      WHEN -1 THEN NULL"]
    # A test of missingness has no threshold (NULL): a present value goes "yes".
    thresholds = [
        "CAST(NULL AS DOUBLE PRECISION)" if m or c else sql_number(t)
        for t, m, c in zip(g.threshold, g.tests_missing, g.categorical)
    ]
    splits = [
        f"    ({s}, {g.feature[s]}, {thresholds[s]}, {int(g.missing_left[s])}, {g.left[s]}, {g.right[s]})"
        for s in range(g.n_splits)
    ]
    if g.regression:
        leaves = [f"    ({-1 - k}, {sql_number(v)})" for k, v in enumerate(g.leaf_value)]
    else:
        leaves = [f"    ({-1 - k}, {sql_literal(g.classes[c])})" for k, c in enumerate(g.leaf_class)]
    what = "value" if g.regression else "class label"
    header = [
        f"-- {_comment(g.description)}: a decision graph exported by TnT Explorer.",
        f"-- Reads table {_comment(sql_identifier(table))} (its key column {_comment(sql_identifier(key))} and the "
        "feature columns); returns the key",
        f'-- and "prediction", the predicted {what}, ordered by the key. A split sends a value left when',
        "-- value <= threshold, exactly as the model does (thresholds are exact ratios of integers, and where the",
        "-- model rounds inputs to float32 they are the bounds of that rounding); a NULL (missing) value goes",
        '-- "yes" where "missing_yes" is 1, else "no"; a split whose threshold is NULL tests missingness.',
        "-- Each row walks the split table (one row per split) from split 0 to a leaf (-1 - leaf number).",
        *(
            [
                '-- A split on a categorical column sends the categories of its IN list "yes", the others "no",',
                '-- and NULL or a category the model never saw where "missing_yes" says.',
            ]
            if g.categories
            else []
        ),
    ]
    query = [
        "WITH",
        '"tnt_split"("node", "feature", "threshold", "missing_yes", "yes", "no") AS (',
        *(_values(splits) if splits else ["  SELECT 0, 0, CAST(0 AS DOUBLE PRECISION), 0, 0, 0 WHERE 1 = 0"]),
        "),",
        '"tnt_leaf"("node", "prediction") AS (',
        *_values(leaves),
        ")",
        f"SELECT {row}.{sql_identifier(key)} AS {sql_identifier(key)}, (",
        '  WITH RECURSIVE "tnt_walk"("node") AS (',
        f"    SELECT {g.start}",
        "    UNION ALL",
        *(
            ["    SELECT CASE", *_categorical_steps(g, row), '    WHEN (CASE s."feature"']
            if g.categories
            else ['    SELECT CASE WHEN (CASE s."feature"']
        ),
        *cases,
        '    END) IS NULL THEN CASE WHEN s."missing_yes" = 1 THEN s."yes" ELSE s."no" END',
        '    WHEN s."threshold" IS NULL OR (CASE s."feature"',
        *cases,
        '    END) <= s."threshold" THEN s."yes" ELSE s."no" END',
        '    FROM "tnt_walk" AS w JOIN "tnt_split" AS s ON s."node" = w."node"',
        "  )",
        '  SELECT l."prediction" FROM "tnt_walk" AS w JOIN "tnt_leaf" AS l ON l."node" = w."node"',
        ') AS "prediction"',
        f"FROM {sql_identifier(table)} AS {row}",
        "ORDER BY 1;",
    ]
    return "\n".join(header + query) + "\n"


def _categorical_steps(g, row: str) -> list[str]:
    """The arms of the walk's CASE that take a categorical split: one per such split, its
    categories listed in ``IN (...)`` on each side, anything else (NULL, a category never seen)
    where its missing values go."""
    lines = []
    missing = 'CASE WHEN s."missing_yes" = 1 THEN s."yes" ELSE s."no" END'
    for s, subset in enumerate(g.category_left):
        if subset is None:
            continue
        f = int(g.feature[s])
        names = g.categories[f]
        column = f"{row}.{sql_identifier(g.feature_names[f])}"
        yes = ", ".join(sql_literal(names[c]) for c in subset)
        no = ", ".join(sql_literal(n) for c, n in enumerate(names) if c not in set(subset))
        lines.append(
            f'    WHEN s."node" = {s} THEN CASE'
            + (f' WHEN {column} IN ({yes}) THEN s."yes"' if yes else "")
            + (f' WHEN {column} IN ({no}) THEN s."no"' if no else "")
            + f" ELSE {missing} END"
        )
    return lines


def sql_identifier(name: str) -> str:
    """``name`` as a double-quoted SQL identifier (inner double quotes doubled).

    Examples
    --------
    >>> print(sql_identifier('a "b" c'))
    "a ""b"" c"
    """
    return '"' + str(name).replace('"', '""') + '"'


def sql_literal(label) -> str:
    """An SQL literal of a class label: TRUE or FALSE, an integer, an exact number, or a string
    (single quotes doubled).

    Examples
    --------
    >>> print(sql_literal("it's"), sql_literal(True), sql_literal(7), sql_literal(0.5))
    'it''s' TRUE 7 CAST(1 AS DOUBLE PRECISION) / 2
    """
    if isinstance(label, bool):
        return "TRUE" if label else "FALSE"
    if isinstance(label, int):
        return str(label)
    if isinstance(label, float):
        return sql_number(label)
    return "'" + _no_nul(str(label), "A class label").replace("'", "''") + "'"


def sql_number(x) -> str:
    """An SQL expression of exactly the float64 ``x``: an integer converted to DOUBLE PRECISION,
    multiplied or divided by powers of two, each step exact.

    A decimal literal is not used because not every database reads one as the nearest double
    (SQLite, for one, can be a unit in the last place off), and one unit decides a comparison at
    the threshold.

    Examples
    --------
    >>> sql_number(0.75), sql_number(-3.0)
    ('CAST(3 AS DOUBLE PRECISION) / 4', 'CAST(-3 AS DOUBLE PRECISION)')
    >>> sql_number(2.0**70)
    'CAST(1 AS DOUBLE PRECISION) * 4611686018427387904 * 256'
    """
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"{x} has no exact SQL number; thresholds and values must be finite.")
    fraction, exponent = math.frexp(x)  # x = fraction * 2**exponent, 0.5 <= |fraction| < 1
    mantissa, exponent = int(fraction * 2**53), exponent - 53  # exact: doubles have 53-bit significands
    while mantissa and mantissa % 2 == 0:
        mantissa, exponent = mantissa // 2, exponent + 1
    text = f"CAST({mantissa} AS DOUBLE PRECISION)"
    shift = 0 if mantissa == 0 else abs(exponent)
    while shift > 0:
        step = min(shift, _LARGEST_SHIFT)
        text += f" {'*' if exponent > 0 else '/'} {1 << step}"
        shift -= step
    return text


def _values(rows: list[str]) -> list[str]:
    """A VALUES list of ``rows`` (each already indented), commas between them."""
    return ["  VALUES", *[row + "," for row in rows[:-1]], rows[-1]]


def _check_names(feature_names, table: str, key: str) -> None:
    """Refuse names no SQL identifier can hold, and a table named as one of the query's own."""
    for what, name in (("The table name", table), ("The key column's name", key)):
        if not str(name):
            raise ValueError(f"{what} is empty; give the name of a table and of its key column.")
        _no_nul(name, what)
    if str(table).lower() in OWN_NAMES:
        raise ValueError(
            f"The table may not be called {shown(table)!r}: the query names its own tables "
            f"{', '.join(OWN_NAMES)}; rename it or query it through a view."
        )
    seen = {}
    for i, name in enumerate(feature_names):
        if not name:
            raise ValueError(f"Feature {i} has an empty name, which no SQL column has; pass feature_names.")
        _no_nul(name, f"Feature {i}'s name")
        if name in seen:
            raise ValueError(
                f"Features {seen[name]} and {i} are both called {shown(name)!r}; SQL needs one column per feature: "
                "pass feature_names."
            )
        seen[name] = i


def _no_nul(text: str, what: str) -> str:
    if "\0" in text:
        raise ValueError(f"{what} holds a NUL character, which SQL text cannot carry; rename it.")
    return text


def _comment(text: str) -> str:
    """``text`` on one line, safe in an SQL ``--`` comment."""
    return printable(text)
