"""Categorical features: which columns are categorical, their categories, and subsets of them.

A categorical feature is read as a **code** per sample: the position of its value in the feature's
categories (kept in the fitted model by name, in their own order), NaN for a missing value and for
a value never seen in training, which every split then routes as missing. A split on a categorical
feature sends a **subset** of its codes left; a subset is kept as a bitset of 64-bit words (bit
``c % 64`` of word ``c // 64`` set when code ``c`` goes left), the representation of scikit-learn's
``HistGradientBoosting*`` and LightGBM.

:func:`categorical_mask` reads the ``categorical_features`` parameter with the conventions of
scikit-learn's ``HistGradientBoosting*``; :class:`CategoryCoding` turns the marked columns of a table
(pandas categories, strings or integer codes) into codes and back.
"""

from __future__ import annotations

import numbers

import numpy as np

#: Most categories a categorical feature may have (scikit-learn's ``HistGradientBoosting*`` limit).
MAX_CATEGORIES = 255
#: What ``min_category_samples`` does, in the words the app's Train page and ``tnt train --help``
#: show (the learners' docstrings say it at length).
MIN_CATEGORY_SAMPLES_HELP = (
    "Pool rare categories: at a node where a categorical column has at least 5 categories, those with "
    "fewer training rows than this are ordered as one, so a split sends them all the same way instead "
    "of choosing a side for each on a few rows (less over-fitting on columns of many categories). "
    "1, the default, pools nothing: Breiman's exact ordering."
)

__all__ = [
    "MAX_CATEGORIES",
    "MIN_CATEGORY_SAMPLES_HELP",
    "CategoryCoding",
    "categorical_mask",
    "subset_bits",
    "subset_codes",
]


def subset_bits(codes, n_words: int) -> np.ndarray:
    """The bitset of ``n_words`` 64-bit words holding the category codes ``codes``.

    Examples
    --------
    >>> subset_bits([0, 2, 65], 2).tolist()
    [5, 2]
    """
    codes = np.asarray(codes, dtype=np.int64).ravel()
    if codes.size and (codes.min() < 0 or codes.max() >= 64 * n_words):
        raise ValueError(f"A category code is outside 0..{64 * n_words - 1}.")
    bits = np.zeros(n_words, dtype=np.uint64)
    np.bitwise_or.at(bits, codes // 64, np.left_shift(np.uint64(1), (codes % 64).astype(np.uint64)))
    return bits


def subset_codes(bits) -> np.ndarray:
    """The category codes of the bitset ``bits``, in increasing order.

    Examples
    --------
    >>> subset_codes(subset_bits([3, 1, 64], 2)).tolist()
    [1, 3, 64]
    """
    words = np.asarray(bits, dtype=np.uint64)
    flags = np.unpackbits(words.astype("<u8").view(np.uint8), bitorder="little")
    return np.flatnonzero(flags)


def subset_table(bits, n_categories: int) -> np.ndarray:
    """Per code ``0..n_categories-1``, whether the bitset ``bits`` holds it (a lookup table).

    Examples
    --------
    >>> subset_table(subset_bits([0, 2], 1), 4).tolist()
    [True, False, True, False]
    """
    words = np.asarray(bits, dtype=np.uint64)
    flags = np.unpackbits(words.astype("<u8").view(np.uint8), bitorder="little").view(np.bool_)
    if flags.size >= n_categories:
        return flags[:n_categories]
    table = np.zeros(n_categories, dtype=bool)
    table[: flags.size] = flags
    return table


def read_codes(column, n_categories: int) -> np.ndarray:
    """The integer codes of a column of codes as float numbers, ``-1`` where a value is missing (NaN)
    or is no code of the feature's ``n_categories`` categories (a category unseen in training)."""
    column = np.asarray(column, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        known = (column >= 0) & (column < n_categories) & (column == np.floor(column))
    return np.where(known, column, -1).astype(np.int64)


def categorical_mask(categorical_features, X, n_features: int, feature_names=None) -> np.ndarray:
    """Which of the ``n_features`` columns of ``X`` are categorical, as a boolean mask.

    Parameters
    ----------
    categorical_features : "from_dtype", None, array-like of int, array-like of bool or array-like of str
        scikit-learn's ``HistGradientBoosting*`` conventions: ``"from_dtype"`` marks the columns of a
        pandas DataFrame whose dtype is ``category`` (nothing for other inputs), ``None`` none,
        integers the columns at those indices, booleans a mask of ``n_features`` entries, strings
        the columns of those names (``X`` must have them).
    X : array-like or pandas DataFrame
        The training input, read only for its column dtypes (``"from_dtype"``).
    n_features : int
    feature_names : array-like of str, default=None
        The names of the columns (``feature_names_in_``), needed for names.

    Returns
    -------
    mask : ndarray of bool, shape (n_features,)

    Examples
    --------
    >>> categorical_mask([0, 2], None, 3).tolist()
    [True, False, True]
    >>> categorical_mask(["colour"], None, 2, feature_names=["size", "colour"]).tolist()
    [False, True]
    """
    mask = np.zeros(n_features, dtype=bool)
    if categorical_features is None:
        return mask
    if isinstance(categorical_features, str):
        if categorical_features != "from_dtype":
            raise ValueError(
                f"categorical_features must be 'from_dtype', None, indices, a boolean mask or feature names, "
                f"got the string {categorical_features!r}."
            )
        dtypes = getattr(X, "dtypes", None)
        if dtypes is not None:
            mask[:] = [getattr(dtype, "name", "") == "category" for dtype in dtypes]
        return mask
    given = np.asarray(categorical_features)
    if given.ndim != 1:
        raise ValueError("categorical_features must be one-dimensional: indices, a boolean mask or feature names.")
    if given.size == 0:
        return mask
    if given.dtype.kind == "b":
        if given.size != n_features:
            raise ValueError(
                f"categorical_features as a boolean mask needs one entry per feature ({n_features}), got {given.size}."
            )
        return given.copy()
    if given.dtype.kind in "US" or given.dtype == object and all(isinstance(v, str) for v in given):
        if feature_names is None:
            raise ValueError(
                "categorical_features names columns, but X has no column names; pass a DataFrame or use indices."
            )
        names = [str(name) for name in feature_names]
        for name in given:
            if str(name) not in names:
                raise ValueError(f"categorical_features names {str(name)!r}, which is not a column of X.")
            mask[names.index(str(name))] = True
        return mask
    if given.dtype.kind in "iu" or all(isinstance(v, numbers.Integral) for v in given):
        indices = given.astype(np.int64)
        if np.any((indices < 0) | (indices >= n_features)):
            raise ValueError(f"categorical_features holds an index outside 0..{n_features - 1}.")
        mask[indices] = True
        return mask
    raise ValueError("categorical_features must be 'from_dtype', None, indices, a boolean mask or feature names.")


def _is_missing(value) -> bool:
    """None, NaN and pandas' missing markers (``pd.NA``, ``NaT``) are missing values."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return type(value).__name__ in ("NAType", "NaTType")


class CategoryCoding:
    """The categories of a table's categorical columns, and their codes.

    Parameters
    ----------
    categories : dict of int to ndarray
        Per categorical column index, its categories in their order (a category's code is its
        position). Strings, or numbers for a column of integer codes.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([["red", 1.5], ["blue", 2.0], [None, 0.5]], dtype=object)
    >>> coding = CategoryCoding.learn(X, np.array([True, False]))
    >>> coding.categories[0].tolist()
    ['blue', 'red']
    >>> coding.codes(np.array([["red", 1.0], ["green", 3.0]], dtype=object)).tolist()
    [[1.0, 1.0], [nan, 3.0]]
    """

    def __init__(self, categories: dict):
        self.categories = {int(f): np.asarray(c, dtype=object) for f, c in categories.items()}

    @classmethod
    def learn(cls, X, mask: np.ndarray) -> CategoryCoding:
        """The categories of the columns ``mask`` marks in the training input ``X``: a pandas
        ``category`` column keeps its own categories and their order; strings and numbers are
        sorted. Missing values (None, NaN) are no category. More than :data:`MAX_CATEGORIES`
        categories in a column is refused with one sentence."""
        categories = {}
        for f in np.flatnonzero(mask):
            column = _column(X, f)
            dtype = getattr(column, "dtype", None)
            if getattr(dtype, "name", "") == "category":
                found = np.asarray(column.cat.categories, dtype=object)
            else:
                found = _present_values(column, X, f)
            if found.size > MAX_CATEGORIES:
                raise ValueError(
                    f"Categorical column {_name(X, f)} has {found.size} categories; at most {MAX_CATEGORIES} "
                    "are supported. Treat it as numeric or group rare categories."
                )
            categories[int(f)] = found
        return cls(categories)

    def codes(self, X) -> np.ndarray:
        """``X`` as a float array, its categorical columns replaced by codes (NaN for a missing
        value or a category not among the learned ones)."""
        n_rows, n_cols = X.shape
        if isinstance(X, np.ndarray) and X.dtype.kind in "fiub":
            # An array of numbers: copied at once, only its categorical columns looked up.
            out = X.astype(np.float64)
            for f, categories in self.categories.items():
                out[:, f] = _lookup(out[:, f], categories)
            return out
        out = np.empty((n_rows, n_cols), dtype=np.float64)
        for f in range(n_cols):
            column = _column(X, f)
            if f not in self.categories:
                out[:, f] = np.asarray(column, dtype=np.float64)
                continue
            out[:, f] = _lookup(column, self.categories[f])
        return out

    def names(self, feature: int, codes) -> list:
        """The categories of the codes ``codes`` of the categorical column ``feature``."""
        return self.categories[int(feature)][np.asarray(codes, dtype=np.int64)].tolist()


def _present_values(column, X, f: int) -> np.ndarray:
    """The sorted distinct values of a column of text or of numbers (whole numbers 0 or more, as
    ints), missing values left out; one sentence for a column that mixes the two or holds other numbers."""
    values = np.asarray(column)
    if values.dtype.kind in "fiub":
        numbers_ = values.astype(np.float64)
        numbers_ = numbers_[~np.isnan(numbers_)]
    else:
        import pandas as pd

        values = np.asarray(column, dtype=object)
        values = values[~pd.isna(values)]
        is_text = np.fromiter((isinstance(v, str) for v in values), dtype=bool, count=values.size)
        if is_text.any() and not is_text.all():
            raise ValueError(f"Categorical column {_name(X, f)} mixes text and numbers; give it one kind of value.")
        if is_text.any():
            return np.asarray(sorted(set(values.tolist())), dtype=object)
        numbers_ = values.astype(np.float64)
    if np.any(numbers_ != np.floor(numbers_)) or np.any(numbers_ < 0):
        raise ValueError(
            f"Categorical column {_name(X, f)} holds numbers that are not non-negative integer "
            "codes; give categories as text, pandas categories or integer codes."
        )
    return np.asarray([int(v) for v in np.unique(numbers_)], dtype=object)


def _lookup(column, categories: np.ndarray) -> np.ndarray:
    """The code of each value of ``column`` among ``categories`` (NaN for a missing value or one not
    among them), comparing numbers by value (the integer 2, the float 2.0 and numpy's 2 are one
    code) and text as text."""
    values = np.asarray(column)
    numeric = [i for i, c in enumerate(categories.tolist()) if _key(c)[0] == "n"]
    if values.dtype.kind in "fiub":
        if len(numeric) == categories.size and np.array_equal(
            categories.astype(np.float64), np.arange(categories.size)
        ):
            # The categories are the codes 0..k-1 (a column of codes, as in training): a code is its value.
            x = values.astype(np.float64)
            with np.errstate(invalid="ignore"):
                known = (x >= 0) & (x < categories.size) & (x == np.floor(x))
            return np.where(known, x, np.nan)
        out = np.full(values.shape[0], np.nan)
        if numeric:
            known = np.asarray([float(categories[i]) for i in numeric])
            order = np.argsort(known, kind="stable")
            x = values.astype(np.float64)
            at = np.minimum(np.searchsorted(known[order], x), known.size - 1)
            found = known[order][at] == x
            out[found] = np.asarray(numeric)[order][at[found]]
        return out
    import pandas as pd  # text and objects only: numbers are coded without it (pip's build environment)

    values = np.asarray(column, dtype=object)
    if all(isinstance(c, str) for c in categories.tolist()):  # text looked up as text, in one pass
        codes = pd.Index(categories.tolist(), dtype=object).get_indexer(values).astype(np.float64)
    else:
        lookup = {_key(c): i for i, c in enumerate(categories.tolist())}
        codes = np.array(
            [np.nan if _is_missing(v) else lookup.get(_key(v), np.nan) for v in values.tolist()], dtype=np.float64
        )
    codes[codes < 0] = np.nan
    return codes


def _key(value):
    """A dictionary key equal for a category and the same value read back from a file or a table
    (the integer 2, the float 2.0 and numpy's 2 are one code)."""
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        return ("n", int(value))
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return ("n", int(value))
    return ("s", value) if isinstance(value, str) else ("o", value)


def _column(X, f: int):
    if hasattr(X, "iloc"):
        return X.iloc[:, f]
    return np.asarray(X, dtype=object)[:, f] if np.asarray(X).dtype.kind not in "fiub" else np.asarray(X)[:, f]


def _name(X, f: int) -> str:
    columns = getattr(X, "columns", None)
    return repr(str(columns[f])) if columns is not None else str(f)
