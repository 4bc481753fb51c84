"""CSV files that are safe to open in a spreadsheet: text cells cannot be read as formulas.

A spreadsheet program that opens a CSV file evaluates a cell starting with ``=``, ``+``, ``-`` or ``@``
as a formula (and a leading tab or carriage return can hide such a character), so a class name or a
feature name chosen by whoever supplied the data could run a formula on the machine of whoever opens
the download ("CSV injection", OWASP). Such cells get a leading apostrophe, which spreadsheets show
as text and do not evaluate.
"""

from __future__ import annotations

import re

__all__ = ["FORMULA_STARTS", "neutralize_formulas", "neutralize_text"]

#: First characters that make a spreadsheet treat a cell as a formula (or hide one).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def neutralize_text(value):
    """``value`` with a leading ``'`` when it is text a spreadsheet would read as a formula.

    Parameters
    ----------
    value : object
        A cell. Anything but a string is returned as it is, and so is a string that is a plain
        number such as ``"-1.5"`` (a number is never a formula).

    Returns
    -------
    value : object

    Examples
    --------
    >>> from tnt.data.safe_csv import neutralize_text
    >>> neutralize_text("=HYPERLINK(1)"), neutralize_text("-2e3"), neutralize_text(-2), neutralize_text("a=b")
    ("'=HYPERLINK(1)", '-2e3', -2, 'a=b')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def neutralize_formulas(frame):
    """A copy of ``frame`` whose text cells and column names cannot be read as spreadsheet formulas.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    safe : pandas.DataFrame
        The same shape and index; text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
        return has a ``'`` in front. Numeric and boolean columns, and numbers in mixed columns, are
        untouched. ``frame`` itself is not modified.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.data.safe_csv import neutralize_formulas
    >>> frame = pd.DataFrame({"prediction": ["=1+1", "@SUM(A1)", "cat"], "score": [-1.0, 2.0, 3.0]})
    >>> print(neutralize_formulas(frame).to_csv(index=False), end="")
    prediction,score
    '=1+1,-1.0
    '@SUM(A1),2.0
    cat,3.0
    """
    import pandas as pd

    safe = frame.copy()
    for position in range(frame.shape[1]):
        values = frame.iloc[:, position]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        safe.isetitem(position, values.astype(object).map(neutralize_text))
    safe.columns = [neutralize_text(column) for column in frame.columns]
    return safe
