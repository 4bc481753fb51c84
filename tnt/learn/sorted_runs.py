"""Sorted runs: the samples of a fit kept sorted by code for the features with many codes.

A continuous column has as many codes as distinct values (up to 65,535), so a node's class
histogram of it would be large and mostly empty. For such a feature a fit sorts its samples by
code once (a stable two-pass radix sort on the 16-bit codes), and every split partitions each
node's run stably, so the run of every node stays sorted and its split search is one pass in order
(:func:`tnt.learn.split_search._scan_sorted`), with no sorting below the root. A run carries each
sample's id, code, target and weight, so the scan reads memory in order.

Runs are double-buffered: each feature has two rows, and a split's partition reads the node's
positions from one and writes both sides, each in order, to the same positions of the other (the
left side's size is known from the split), once per sample. A partition in place would write every
sample twice and copy one side back. A node's runs are in the buffer of its depth's parity
(:func:`buffer_of_depth`): nodes at one depth have disjoint positions, and a node's positions in
the other buffer hold only its parent's, which nothing reads again.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tnt.learn.compiled import kernel
from tnt.learn.split_search import HISTOGRAM_MAX_BINS, SortedRuns, sends_left

__all__ = [
    "MAX_SAMPLES",
    "buffer_of_depth",
    "make_runs",
    "mark_left",
    "no_runs",
    "other_buffer",
    "partition_runs",
]

#: The most samples a fit takes: runs number them in 32 bits (a partition moves 4 bytes less a sample).
MAX_SAMPLES = 2**31 - 1


@kernel
def _argsort_codes(cf, order, scratch):
    """``order[:m]``: the positions of ``cf`` (m codes of at most 16 bits) sorted by code, equal
    codes in increasing position: a stable radix sort, low byte then high byte."""
    m = cf.shape[0]
    counts = np.zeros(257, dtype=np.int64)
    for i in range(m):
        counts[(np.int64(cf[i]) & 255) + 1] += 1
    for b in range(256):
        counts[b + 1] += counts[b]
    for i in range(m):
        b = np.int64(cf[i]) & 255
        scratch[counts[b]] = i
        counts[b] += 1
    counts[:] = 0
    for i in range(m):
        counts[(np.int64(cf[i]) >> 8) + 1] += 1
    for b in range(256):
        counts[b + 1] += counts[b]
    for k in range(m):
        i = scratch[k]
        b = np.int64(cf[i]) >> 8
        order[counts[b]] = i
        counts[b] += 1


@kernel
def _fill_run(j, cf, ys, ws, runs, scratch):
    sid = runs.sid[j]
    _argsort_codes(cf, sid, scratch)
    code = runs.code[j]
    y = runs.y[j]
    w = runs.w[j]
    for k in range(cf.shape[0]):
        i = sid[k]
        code[k] = cf[i]
        y[k] = ys[i]
        w[k] = ws[i]


@kernel(parallel=True)
def _fill_runs_in_parallel(features, codes, ys, ws, runs, n_lanes):
    # A parallel loop takes arrays, not named tuples: taken apart here, put together in each lane.
    row, sid, code, y, w = runs.row, runs.sid, runs.code, runs.y, runs.w
    n_sorted = features.shape[0]
    for lane in prange(n_lanes):
        for fi in range(lane, n_sorted, n_lanes):
            # The run's row in the other buffer is free until the first partition: the sort's scratch.
            _fill_run(fi, codes[features[fi]], ys, ws, SortedRuns(row, sid, code, y, w), sid[n_sorted + fi])


@kernel
def _fill_runs(features, codes, ys, ws, runs, n_lanes, parallel, threaded):
    n_sorted = features.shape[0]
    if threaded is not None:  # None: compiled without the parallel kernel
        if parallel and n_lanes > 1:
            _fill_runs_in_parallel(features, codes, ys, ws, runs, n_lanes)
            return
    for fi in range(n_sorted):
        _fill_run(fi, codes[features[fi]], ys, ws, runs, runs.sid[n_sorted + fi])


@kernel
def make_runs(codes, n_bins, ys, ws, n_lanes, parallel, threaded=True):
    """The :class:`SortedRuns` of the features with more than ``HISTOGRAM_MAX_BINS`` codes, from
    the feature-major ``codes`` of a fit's samples (positions are sample ids, fewer than 2**31) and
    their targets ``ys`` and weights ``ws``: the first buffer, filled, whose ``row[f]`` is feature
    ``f``'s row (-1: not in runs); the arrays have a row more per run for the second buffer
    (:func:`other_buffer`). With no such feature the arrays are empty. ``threaded`` is None in a fit
    compiled for one thread (:func:`tnt.learn.tree_builder.build_tree`)."""
    m = ys.shape[0]
    row = np.full(n_bins.shape[0], -1, dtype=np.int64)
    n_sorted = 0
    for f in range(n_bins.shape[0]):
        if n_bins[f] > HISTOGRAM_MAX_BINS:
            row[f] = n_sorted
            n_sorted += 1
    features = np.flatnonzero(row >= 0)
    length = m if n_sorted else 0
    runs = SortedRuns(
        row,
        np.empty((2 * n_sorted, length), dtype=np.int32),
        np.empty((2 * n_sorted, length), dtype=codes.dtype),
        np.empty((2 * n_sorted, length), dtype=ys.dtype),
        np.empty((2 * n_sorted, length), dtype=ws.dtype),
    )
    if n_sorted:
        _fill_runs(features, codes, ys, ws, runs, n_lanes, parallel, threaded)
    return runs


@kernel
def other_buffer(runs):
    """``runs`` (as :func:`make_runs` returns them) with each feature's row in the second buffer."""
    n_sorted = runs.sid.shape[0] // 2
    row = runs.row.copy()
    for f in range(row.shape[0]):
        if row[f] >= 0:
            row[f] += n_sorted
    return SortedRuns(row, runs.sid, runs.code, runs.y, runs.w)


@kernel(inline="always")
def buffer_of_depth(first, second, depth):
    """The buffer that holds the runs of a node at ``depth``: ``first`` (the root's) at even depths."""
    return first if depth % 2 == 0 else second


@kernel(inline="always")
def no_runs(n_features, codes, ys, ws):
    """:class:`SortedRuns` with no feature in them, for a fit compiled without sorted runs."""
    return SortedRuns(
        np.full(n_features, -1, dtype=np.int64),
        np.empty((0, 0), dtype=np.int32),
        np.empty((0, 0), dtype=codes.dtype),
        np.empty((0, 0), dtype=ys.dtype),
        np.empty((0, 0), dtype=ws.dtype),
    )


@kernel
def mark_left(runs, codes, position_sid, start, end, f, code, missing, goes_left):
    """``goes_left[s]`` for every sample id ``s`` of positions start:end: whether the split
    (feature ``f``, codes <= ``code`` go left, and the code ``missing``; -1 for none) sends it left."""
    j = runs.row[f]
    if j >= 0:
        sid = runs.sid[j]
        cf = runs.code[j]
        for i in range(np.uint64(start), np.uint64(end)):
            goes_left[np.uint64(sid[i])] = sends_left(cf[i], code, missing)
    else:
        cf = codes[f]
        for i in range(np.uint64(start), np.uint64(end)):
            goes_left[np.uint64(position_sid[i])] = sends_left(cf[i], code, missing)


@kernel
def _partition_run(runs, into, j, k, start, mid, end, goes_left):
    """Positions start:end of row ``j`` of ``runs`` to the same positions of row ``k`` of ``into``:
    the samples that go left first (from ``start``), then the others (from ``mid``), in order."""
    sid, code, y, w = runs.sid[j], runs.code[j], runs.y[j], runs.w[j]
    to_sid, to_code, to_y, to_w = into.sid[k], into.code[k], into.y[k], into.w[k]
    # One write a sample, at a position chosen by arithmetic, not a branch: which side a sample takes
    # is as unpredictable as a coin. Unsigned indices, as in tnt.learn.split_search.
    put_left = np.uint64(start)
    put_right = np.uint64(mid)
    for i in range(np.uint64(start), np.uint64(end)):
        s = sid[i]
        g = np.uint64(goes_left[np.uint64(s)])
        put = put_right + g * (put_left - put_right)
        to_sid[put] = s
        to_code[put] = code[i]
        to_y[put] = y[i]
        to_w[put] = w[i]
        put_left += g
        put_right += np.uint64(1) - g


@kernel
def _partition_lane(lane, n_lanes, runs, into, features, n_features, start, mid, end, goes_left):
    for fi in range(lane, n_features, n_lanes):
        f = features[fi]
        j = runs.row[f]
        if j >= 0:
            _partition_run(runs, into, j, into.row[f], start, mid, end, goes_left)


@kernel(parallel=True)
def _partition_in_parallel(runs, into, features, n_features, start, mid, end, goes_left, n_lanes):
    row, sid, code, y, w = runs.row, runs.sid, runs.code, runs.y, runs.w
    into_row = into.row
    for lane in prange(n_lanes):
        _partition_lane(
            lane,
            n_lanes,
            SortedRuns(row, sid, code, y, w),
            SortedRuns(into_row, sid, code, y, w),
            features,
            n_features,
            start,
            mid,
            end,
            goes_left,
        )


@kernel
def partition_runs(runs, into, features, n_features, start, mid, end, goes_left, n_lanes, parallel, threaded=True):
    """Partition positions start:end of the runs of ``features[:n_features]`` stably from the buffer
    ``runs`` to the buffer ``into`` (:func:`other_buffer`): the ``mid - start`` samples with
    ``goes_left[sid]`` at start:mid, the others at mid:end, each side still sorted by code. ``threaded``
    is None in a fit compiled for one thread; with ``parallel``, ``n_lanes`` threads share the features."""
    if threaded is not None:
        if parallel and n_lanes > 1:
            _partition_in_parallel(runs, into, features, n_features, start, mid, end, goes_left, n_lanes)
            return
    _partition_lane(np.int64(0), np.int64(1), runs, into, features, n_features, start, mid, end, goes_left)
