"""Every table the app shows, one way: headers in words, numbers formatted by kind (counts as whole
numbers, shares as percentages with one decimal, accuracies and precisions with three decimals,
seconds with two),
empty cells empty, and columns sized so that the table fits its frame at 1,440 px, long text wrapping
onto more lines instead of being cut.

The library's tables keep snake_case keys (``train_samples``); :func:`show_table` is where they get
words. ``st.dataframe`` draws on a canvas and cannot size a column to its text, so the widths are
estimated from the number of characters (:data:`CHAR_PX`, a little wider than Source Sans' average at
14 px), and a column too long for the room left wraps, with rows tall enough for its longest cell.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import streamlit as st

from tnt.services.tasks import measure_decimals
from ui.display import LABELS, TABLE_ROW_PX, table_height

__all__ = ["FRAME_PX", "header", "shortened", "show_table", "table_layout"]

#: Width in pixels of the main frame of a page at 1,440 px (wide layout, sidebar open), of one of two
#: columns with a large gap (the Data page's), and of the side column of the Graph page (3/8 of it),
#: as measured in chromium (tests/test_browser_walk.py checks that no table scrolls sideways).
FRAME_PX = {"full": 976, "half": 452, "side": 348}
#: Estimated width of one character of a cell, and of a cell's padding.
CHAR_PX = 7.6
PAD_PX = 18
#: Height of one more line of wrapped text, and the most lines a row grows to.
LINE_PX = 21
MAX_LINES = 6
#: st.dataframe wraps a cell's text only in rows taller than 4rem (64 px; Streamlit 1.67's
#: ``isWrappingAllowed``): a row of two lines (56 px) showed one line cut at the column's edge.
WRAPPING_ROW_PX = 65
MIN_COLUMN_PX = 44

#: Header words for the library's keys, besides :data:`ui.display.LABELS`.
HEADERS = {
    **LABELS,
    "train_samples": "training samples",
    "train_coverage": "training coverage",
    "train_precision": "training precision",
    "test_coverage": "test coverage",
    "test_precision": "test precision",
    "train_share": "training share",
    "test_share": "test share",
    "other_paths": "other paths",
    "other_train_samples": "training samples of other paths",
    "rules_shown": "rules shown",
    "train_mean": "training mean",
    "paths": "paths",
    "rmse": "RMSE",
    "test_mean": "test mean",
}
_WORDS = {"tnt": "TnT", "cart": "CART", "ndg": "NDG", "tao": "TAO", "acc": "accuracy", "r2": "R²", "rmse": "RMSE",
          "std": "std", "train": "training", "n": "number of"}  # fmt: skip
# Columns shown as shares (0..1, written as percentages), by name.
_SHARE_WORDS = ("share", "coverage")
# Whole numbers that name something (a node, a seed) rather than count: no thousands separator.
_ID_NAMES = {"node", "leaf", "seed", "N1", "N2", "run", "sample", "test sample", "feature"}


def header(name) -> str:
    """A column's header in words.

    Examples
    --------
    >>> header("train_samples"), header("tnt_test_acc"), header("test_r2_mean"), header("C")
    ('training samples', 'TnT test accuracy', 'test R² mean', 'C')
    """
    name = str(name)
    if name in HEADERS:
        return HEADERS[name]
    if "_" not in name:
        return name
    return " ".join(_WORDS.get(word, word) for word in name.split("_") if word)


def _kind(name: str, column: pd.Series) -> str:
    lower = name.lower()
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return "text"
    if name in _ID_NAMES:
        return "id"
    if set(re.split(r"[_ ]", lower)) & set(_SHARE_WORDS):  # "test_share", not "shared_nodes"
        return "share"
    if measure_decimals(name) is not None:  # a score or a time: its decimals whatever its values
        return "number"
    values = column.dropna().to_numpy(dtype=np.float64)
    if values.size == 0 or np.all(np.mod(values, 1) == 0):
        return "count"
    return "number"


#: What ends a cell shortened to the lines of its row.
ELLIPSIS = " …"


def shortened(value, holds: int):
    """``value`` as it is if it is not text or holds in ``holds`` characters, else its words that do,
    followed by :data:`ELLIPSIS`.

    Wrapping breaks lines between words, so a line holds a little less than its width in characters:
    the words kept fill at most nine tenths of ``holds``.

    >>> shortened("x <= 1 and y > 2 and z <= 3", 20)
    'x <= 1 and y > 2 …'
    >>> shortened("x <= 1", 20), shortened(None, 3)
    ('x <= 1', None)
    """
    if not isinstance(value, str) or len(value) <= holds:
        return value
    room = max(int(holds * 0.9) - len(ELLIPSIS), 1)
    cut = value.rfind(" ", 0, room + 1)
    return value[: cut if cut > 0 else room].rstrip() + ELLIPSIS


def _text(value, kind: str, name: str) -> str:
    """What a cell of column ``name`` shows, to estimate its width."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if kind == "share":
        return f"{100 * float(value):.1f} %"
    if kind == "count":
        return f"{int(value):,}"
    if kind == "id":
        return str(int(value))
    digits = measure_decimals(name) if kind == "number" else None
    return str(value) if digits is None else f"{float(value):.{digits}f}"


def table_layout(frame: pd.DataFrame, frame_px: int, *, hide_index: bool = True, labels: dict | None = None):
    """How :func:`show_table` draws ``frame`` in a frame ``frame_px`` wide.

    Returns
    -------
    shown : DataFrame
        The table to draw: headers in words, shares as percentages (0..100), counts as integers.
    column_config : dict
        Per header, its ``st.column_config`` (format and width in pixels).
    row_height : int
        Rows tall enough for the longest wrapped cell.
    widths : dict
        Per header, its width in pixels; they add up to at most ``frame_px``.

    Examples
    --------
    >>> t = pd.DataFrame({"leaf": [3, 4], "train_coverage": [0.155, 0.1517], "rule": ["x <= 1", "x > 1"]})
    >>> shown, config, row_height, widths = table_layout(t, 400)
    >>> list(shown.columns), shown["training coverage"].round(2).tolist(), row_height
    (['leaf', 'training coverage', 'rule'], [15.5, 15.17], 35)
    >>> sum(widths.values()) <= 400
    True
    """
    index_name = None if hide_index else (frame.index.name or "")
    shown = frame.reset_index(drop=True) if hide_index else frame.reset_index(names=index_name or "_index")
    labels = labels or {}

    def title(name) -> str:  # the header drawn: a shorter label where given (its tooltip says it in full)
        label = labels.get(name, (None, None))[0]
        return label if label is not None else header(name)

    kinds = {name: _kind(str(name), shown[name]) for name in shown.columns}
    need = {}
    for name in shown.columns:
        texts = [_text(v, kinds[name], str(name)) for v in shown[name].tolist()] or [""]
        longest = max(max(len(t) for t in texts), len(title(name)))
        need[name] = max(MIN_COLUMN_PX, int(math.ceil(longest * CHAR_PX)) + PAD_PX)
    header_px = {n: max(MIN_COLUMN_PX, int(math.ceil(len(title(n)) * CHAR_PX)) + PAD_PX) for n in shown.columns}
    widths = dict(need)
    lines = 1
    texts = [n for n in shown.columns if kinds[n] == "text"]
    room = frame_px - sum(need[n] for n in shown.columns if n not in texts)
    if texts and sum(need[n] for n in texts) > room:
        # The fewest lines on which every text column fits the room left, each as narrow as that allows.
        for lines in range(2, MAX_LINES + 1):
            narrowed = {
                n: max(header_px[n], int(math.ceil((need[n] - PAD_PX) / lines)) + PAD_PX) for n in texts
            }  # a header does not wrap: no column gets narrower than its header
            if sum(narrowed.values()) <= room:
                break
        else:  # longer than MAX_LINES lines even so: the room shared by need, the rest cut (shortened)
            spare = max(room - sum(header_px[n] for n in texts), 0)
            total = sum(need[n] - header_px[n] for n in texts) or 1
            narrowed = {n: header_px[n] + int(spare * (need[n] - header_px[n]) / total) for n in texts}
        widths.update(narrowed)
    if texts:  # spare room to the longest text
        longest = max(texts, key=lambda n: need[n])
        widths[longest] += max(frame_px - sum(widths.values()), 0)
    lines = min(lines, MAX_LINES)
    for name in texts:  # a cell longer than its row holds (MNIST's rules) ends in "…", never cut mid-word unseen
        holds = max(int(lines * (widths[name] - PAD_PX) / CHAR_PX + 1e-9), 1)  # table_layout's own measure
        shown[name] = shown[name].map(lambda v, holds=holds: shortened(v, holds))
    config = {}
    for name in shown.columns:
        kind = kinds[name]
        common = {"label": title(name), "width": widths[name], "help": labels.get(name, (None, None))[1]}
        if kind == "share":
            shown[name] = shown[name] * 100
            config[name] = st.column_config.NumberColumn(format="%.1f %%", **common)
        elif kind in ("count", "id"):
            shown[name] = shown[name].astype("Int64")
            config[name] = st.column_config.NumberColumn(format="localized" if kind == "count" else "%d", **common)
        elif kind == "number":  # decimals by tnt.services.tasks.measure_decimals, else as it is
            digits = measure_decimals(str(name))
            config[name] = st.column_config.NumberColumn(format=None if digits is None else f"%.{digits}f", **common)
        else:  # numbers written as text (counts too large for a float) stand right, as numbers do
            numeric = shown[name].dropna().astype(str).str.fullmatch(r"[\d,.]+( ?%)?|about .*").all()
            config[name] = st.column_config.TextColumn(alignment="right" if numeric else None, **common)
    if not hide_index:  # the index stays the index (its column is "_index" to st.dataframe)
        index_key = index_name or "_index"
        shown = shown.set_index(index_key)
        shown.index.name = index_name or None
        config["_index"] = config.pop(index_key)
        widths["_index"] = widths.pop(index_key)
    shown = shown.rename(columns=header)
    config = {name if name == "_index" else header(name): c for name, c in config.items()}
    widths = {name if name == "_index" else header(name): w for name, w in widths.items()}
    row_px = TABLE_ROW_PX + (lines - 1) * LINE_PX
    return shown, config, (row_px if lines == 1 else max(row_px, WRAPPING_ROW_PX)), widths


#: Shorter headers, with a tooltip saying them in full, for the measures whose words are long.
SHORT_HEADERS = {
    "shared_nodes": ("shared nodes", "Nodes with several parents"),
    "mean_depth": ("mean depth", "Mean decision depth of the test samples: splits on the way to their leaf"),
    "fit_time": ("fit (s)", "Fit time in seconds"),
}

#: Background of the rows :func:`show_table` is asked to mark (a what-if's changed tests).
MARKED_ROW = "background-color: #fff2cc"


def show_table(frame: pd.DataFrame, *, key: str | None = None, width: str = "full", max_rows: int | None = 12,
               hide_index: bool = True, marked=None, labels: dict | None = None, **kwargs):  # fmt: skip
    """Draw ``frame`` with :func:`table_layout` in a frame of :data:`FRAME_PX` ``width``: its header
    and rows exactly (up to ``max_rows`` rows; the rest scroll), empty cells empty, the rows where
    ``marked`` is true on a yellow ground; ``labels`` maps a column to a shorter header and its tooltip
    ``(label, help)``. Other keyword arguments go to ``st.dataframe`` (``on_select``,
    ``selection_mode``); returns what it returns."""
    labels = {**SHORT_HEADERS, **(labels or {})}
    shown, config, row_height, _ = table_layout(frame, FRAME_PX[width], hide_index=hide_index, labels=labels)
    rows = len(shown) if max_rows is None else min(len(shown), max_rows)
    height = table_height(max(rows, 1), row_px=row_height)
    data = shown
    if marked is not None:
        marks = np.asarray(marked, dtype=bool)
        data = shown.style.apply(
            lambda row: [MARKED_ROW if marks[shown.index.get_loc(row.name)] else ""] * len(row), axis=1
        )
    return st.dataframe(data, hide_index=hide_index, column_config=config, row_height=row_height, height=height,
                        placeholder="", key=key, **kwargs)  # fmt: skip
