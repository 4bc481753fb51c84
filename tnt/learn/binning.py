"""Feature binning done once per fit, so that micro trees are grown from small integer codes.

Every feature's distinct training values are numbered in increasing order. When a feature has at
most ``MAX_EXACT_BINS`` distinct values (pixels, counts, most tabular data) the codes are exact and
the micro trees choose exactly the thresholds scikit-learn's CART would: the midpoint of two
consecutive values present in the node. Only a feature with more distinct values than that is
quantised into ``MAX_EXACT_BINS`` quantile bins.

A column of whole numbers spanning at most ``INTEGER_SPAN`` values (pixels, counts) is numbered
by marking the values present, in one pass over the matrix; other columns are sorted, once each.

A missing value (NaN) gets its feature's largest code, one past the codes of its real values
(:attr:`BinnedData.missing_code`): the missing samples come last in every histogram and sorted run.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tnt.learn.compiled import kernel
from tnt.learn.split_search import histogram_features

MAX_EXACT_BINS = 65535
INTEGER_SPAN = 4096


@dataclass(frozen=True)
class BinnedData:
    """Codes of a float32 training matrix and, per bin, the smallest and largest value in it.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_columns), uint8 or uint16
        Sample-major, so a micro tree gathers each of its samples' codes from one contiguous row.
        Rows are padded with zeros to eight bytes (eight one-byte or four two-byte columns), which
        lets micro trees copy them a 64-bit word at a time; the first ``n_features`` columns are
        the features.
    bin_min, bin_max : ndarray of shape (n_features, max_bins), float32
        Smallest and largest training value falling in each bin; NaN at a missing code.
    n_bins : ndarray of shape (n_features,)
        The number of codes of each feature, its missing code included.
    missing_code : ndarray of shape (n_features,), int64
        The code of a missing value (NaN): ``n_bins[f] - 1`` for a feature with NaN in the training
        matrix, ``-1`` for a feature without.
    categorical : ndarray of shape (n_features,), uint8, or None
        Which features are categorical (1), split by subsets of their categories; None when none
        is. A categorical feature's values are category codes, each real bin holding one.
    """

    codes: np.ndarray
    bin_min: np.ndarray
    bin_max: np.ndarray
    n_bins: np.ndarray
    missing_code: np.ndarray
    categorical: np.ndarray | None = None

    @cached_property
    def has_sorted_runs(self) -> bool:
        """Whether some feature has more codes than histograms take, so that micro trees keep it in
        sorted runs (:func:`tnt.learn.split_search.histogram_features`)."""
        return not bool(histogram_features(self.n_bins).all())


@kernel
def _column_summary(X, start, stop):
    """Per column of rows ``start:stop`` of ``X``, missing values (NaN) left out: the smallest and
    largest value (``+inf`` and ``-inf`` when there is none), whether all are whole numbers, and
    whether some value is missing; one pass over the rows."""
    n_features = X.shape[1]
    lo = np.full(n_features, np.inf, dtype=X.dtype)
    hi = np.full(n_features, -np.inf, dtype=X.dtype)
    whole = np.ones(n_features, dtype=np.bool_)
    missing = np.zeros(n_features, dtype=np.bool_)
    for i in range(start, stop):
        for f in range(n_features):
            v = X[i, f]
            is_nan = v != v
            # Comparisons with NaN are false: a missing value changes neither bound.
            if v < lo[f]:
                lo[f] = v
            if v > hi[f]:
                hi[f] = v
            whole[f] &= (v == np.floor(v)) | is_nan
            missing[f] |= is_nan
    return lo, hi, whole, missing


@kernel
def _mark_whole_numbers(X, start, stop, lo, columns, span):
    """``present[j, v]``: whether value ``lo[columns[j]] + v`` occurs in column ``columns[j]`` among
    rows ``start:stop``."""
    present = np.zeros((columns.shape[0], span), dtype=np.bool_)
    for i in range(start, stop):
        for j in range(columns.shape[0]):
            f = columns[j]
            v = X[i, f]
            if v == v:  # not missing
                present[j, np.int64(v - lo[f])] = True
    return present


@kernel
def _code_whole_numbers(X, start, stop, lo, columns, rank, missing_code, codes):
    for i in range(start, stop):
        for j in range(columns.shape[0]):
            f = columns[j]
            v = X[i, f]
            codes[i, f] = rank[j, np.int64(v - lo[f])] if v == v else missing_code[f]


def _in_one_part(task, n: int) -> list:
    return [task(0, n)]


def bin_features(X: np.ndarray, max_bins: int = MAX_EXACT_BINS, in_parts=None, two_byte: bool = False) -> BinnedData:
    """Number the distinct values of each column of ``X`` (float32, shape (n_samples, n_features)).

    ``in_parts(task, n)`` runs ``task(start, stop)`` over rows ``0..n`` in parts, perhaps on
    several threads, and returns the parts' results in order; the passes over all rows use it
    (None: one part). The codes take one byte where every column has at most 256 codes, else two; with
    ``two_byte``, two bytes always (the regressor's: its kernels are compiled for two-byte codes
    only, :attr:`tnt.learn.growth._Problem.two_byte_codes`).
    """
    X = np.ascontiguousarray(X)
    in_parts = in_parts or _in_one_part
    n_samples, n_features = X.shape
    if n_samples:
        parts = in_parts(lambda a, b: _column_summary(X, a, b), n_samples)
        lo = np.minimum.reduce([p[0] for p in parts])
        hi = np.maximum.reduce([p[1] for p in parts])
        whole_valued = np.logical_and.reduce([p[2] for p in parts])
        has_missing = np.logical_or.reduce([p[3] for p in parts])
    else:
        lo = hi = np.zeros(n_features, dtype=X.dtype)
        whole_valued = np.ones(n_features, dtype=np.bool_)
        has_missing = np.zeros(n_features, dtype=np.bool_)
    # Whole numbers spanning few values (False for infinite values and for a column with no value).
    with np.errstate(over="ignore", invalid="ignore"):  # float32's extremes: an infinite span, not a warning
        spans = hi - lo
    whole = np.flatnonzero(whole_valued & (lo <= hi) & (spans < min(INTEGER_SPAN, max_bins)))
    distinct: list = [None] * n_features
    rank = np.zeros((0, 0), dtype=np.int64)
    if whole.size:
        span = int(np.max(hi[whole] - lo[whole])) + 1
        present = np.logical_or.reduce(in_parts(lambda a, b: _mark_whole_numbers(X, a, b, lo, whole, span), n_samples))
        rank = np.cumsum(present, axis=1) - 1
        for j, f in enumerate(whole):
            distinct[f] = (lo[f] + np.flatnonzero(present[j])).astype(X.dtype)
    sorted_codes: dict = {}  # the codes of the columns not numbered above, and their bins' bounds
    width = [0 if d is None else d.size for d in distinct]  # real codes the bin arrays make room for
    for f in range(n_features):
        if distinct[f] is None:
            distinct[f], sorted_codes[f], width[f] = _sorted_column(X[:, f], bool(has_missing[f]), max_bins)
    # Each feature's codes: its real bins, then its missing code.
    n_bins = np.array([d.size + has_missing[f] for f, d in enumerate(distinct)], dtype=np.intp)
    missing_code = np.where(has_missing, n_bins - 1, -1).astype(np.int64)
    widest = max((w + m for w, m in zip(width, has_missing)), default=1)
    dtype = np.uint8 if widest <= 256 and not two_byte else np.uint16
    n_columns = -(-n_features // 8) * 8 if dtype == np.uint8 else -(-n_features // 4) * 4
    codes = np.zeros((n_samples, n_columns), dtype=dtype)
    bin_min = np.zeros((n_features, max(widest, 1)), dtype=np.float32)
    bin_max = np.zeros_like(bin_min)
    if whole.size:
        in_parts(lambda a, b: _code_whole_numbers(X, a, b, lo, whole, rank, missing_code, codes), n_samples)
    for f, values in enumerate(distinct):
        if f in sorted_codes:
            codes[:, f], bin_min[f, : values.size], bin_max[f, : values.size] = sorted_codes.pop(f)
        else:
            bin_min[f, : values.size] = values
            bin_max[f, : values.size] = values
        if has_missing[f]:
            bin_min[f, values.size] = bin_max[f, values.size] = np.nan
    return BinnedData(codes=codes, bin_min=bin_min, bin_max=bin_max, n_bins=n_bins, missing_code=missing_code)


def _sorted_column(column: np.ndarray, has_missing: bool, max_bins: int) -> tuple:
    """The bins of a column numbered by sorting it: (the upper edge of each real bin, (each sample's
    code, each real bin's smallest and largest value), the real codes the bin arrays make room for);
    a missing value's code is the number of real bins."""
    # One sort gives the distinct values and each sample's rank among them (rather than a binary
    # search of every value among the distinct ones, several times slower). NaN sorts last, all
    # NaNs as one value: its rank is the number of real distinct values.
    order, rank, values, counts = sort_column(column)
    if has_missing:
        values, counts = values[:-1], counts[:-1]
    codes = np.empty(column.shape[0], dtype=np.uint16)  # max_bins <= 65,535
    if values.size <= max_bins:
        codes[order] = rank
        return values, (codes, values, values), values.size
    last = _quantile_ends(rank, int(counts.sum()), max_bins)
    edges = values[last]
    # A distinct value's bin: the number of bins ending below it.
    ends_below = np.zeros(values.size + 1, dtype=np.uint16)
    ends_below[last + 1] = 1
    bins = np.cumsum(ends_below, dtype=np.uint16)  # the missing code, bins[values.size]: edges.size
    starts = np.flatnonzero(np.diff(bins[: values.size], prepend=-1))  # each bin's smallest value
    codes[order] = bins[rank]
    return edges, (codes, values[starts], edges), max_bins


def sort_column(column: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A float32 column sorted: (the order of its samples, stable; each sorted sample's rank among
    the distinct values; the distinct values in increasing order; their counts). All NaNs are one
    value, the last; -0.0 and 0.0 are one. ``rank[i]`` is the rank of sample ``order[i]``: the
    values, ranks and counts are ``np.unique(column, return_inverse=True, return_counts=True)``'s.

    The order comes from one sort of 64-bit keys, a value's bits made to sort in the values' order
    above its position: numpy sorts such integers several times faster than it argsorts (SIMD
    sorts, where the processor has them), and ``np.unique`` was most of a continuous table's binning.
    """
    n = column.shape[0]
    if n == 0 or n >= 2**32:
        values, inverse, counts = np.unique(column, return_inverse=True, return_counts=True)
        order = np.argsort(inverse, kind="stable")
        return order, inverse[order], values, counts
    column = np.asarray(column, dtype=np.float32) + np.float32(0.0)  # a copy; -0.0 + 0.0 is 0.0
    bits = column.view(np.uint32)
    # A negative value's bits all flipped, a positive one's sign bit set: unsigned order is numbers'.
    ordered = bits ^ ((column.view(np.int32) >> np.int32(31)).view(np.uint32) | np.uint32(0x80000000))
    ordered[np.isnan(column)] = np.uint32(0xFFFFFFFF)  # every NaN (whatever its sign and payload) last
    keys = (ordered.astype(np.uint64) << np.uint64(32)) | np.arange(n, dtype=np.uint64)
    keys.sort()
    order = (keys & np.uint64(0xFFFFFFFF)).astype(np.intp)
    ordered = (keys >> np.uint64(32)).astype(np.uint32)
    first = np.empty(n, dtype=np.bool_)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    distinct = ordered[starts]
    # Back from the keys to the values (0xFFFFFFFF, NaN's key, gives a NaN).
    distinct ^= np.where(distinct >> np.uint32(31), np.uint32(0x80000000), np.uint32(0xFFFFFFFF))
    return order, np.cumsum(first) - 1, distinct.view(np.float32), np.diff(starts, append=n)


def _quantile_ends(rank: np.ndarray, n_samples: int, max_bins: int) -> np.ndarray:
    """The distinct values (their ranks, increasing) that end at most ``max_bins`` quantile bins of a
    column whose ``n_samples`` real values, sorted, have ranks ``rank[:n_samples]``: the values at
    ``max_bins`` evenly spaced positions of the sorted column, each edge a value its bin contains."""
    positions = np.linspace(0, n_samples - 1, max_bins + 1)[1:].astype(np.intp)
    at = rank[positions]  # nondecreasing
    return at[np.flatnonzero(np.diff(at, append=at[-1] + 1))]
