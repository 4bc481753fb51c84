"""Sorted runs: the samples of a fit kept sorted by code for the features with many codes.

A continuous column has as many codes as distinct values (up to 65,535), so a node's class
histogram of it would be large and mostly empty. For such a feature a fit sorts its samples by
code once (a stable two-pass radix sort on the 16-bit codes), and every split partitions each
node's run stably, so the run of every node stays sorted and its split search is one pass in order
(:func:`tnt.learn.split_search._scan_sorted`), with no sorting below the root. A run carries each
sample's id, code, target and weight, so the scan reads memory in order.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tnt.learn.compiled import kernel
from tnt.learn.split_search import HISTOGRAM_MAX_BINS, SortedRuns, sends_left

__all__ = [
    "BOTH_SIDES",
    "LEFT_SIDE",
    "RIGHT_SIDE",
    "make_runs",
    "mark_left",
    "no_runs",
    "partition_runs",
    "run_scratch",
]

# Which sides of a split :func:`partition_runs` puts in place: a child that is not grown is a leaf,
# whose runs are never read again.
BOTH_SIDES, LEFT_SIDE, RIGHT_SIDE = 0, 1, 2


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
def _fill_runs_in_parallel(features, codes, ys, ws, runs, scratch):
    # A parallel loop takes arrays, not named tuples: taken apart here, put together in each lane.
    row, sid, code, y, w = runs.row, runs.sid, runs.code, runs.y, runs.w
    n_lanes = scratch.shape[0]
    for lane in prange(n_lanes):
        for fi in range(lane, features.shape[0], n_lanes):
            _fill_run(fi, codes[features[fi]], ys, ws, SortedRuns(row, sid, code, y, w), scratch[lane])


@kernel
def _fill_runs(features, codes, ys, ws, runs, scratch, parallel, threaded):
    if threaded is not None:  # None: compiled without the parallel kernel
        if parallel and scratch.shape[0] > 1:
            _fill_runs_in_parallel(features, codes, ys, ws, runs, scratch)
            return
    for fi in range(features.shape[0]):
        _fill_run(fi, codes[features[fi]], ys, ws, runs, scratch[0])


@kernel
def make_runs(codes, n_bins, ys, ws, n_lanes, parallel, threaded=True):
    """The :class:`SortedRuns` of the features with more than ``HISTOGRAM_MAX_BINS`` codes, from
    the feature-major ``codes`` of a fit's samples (positions are sample ids) and their targets
    ``ys`` and weights ``ws``. With no such feature the arrays are empty. ``threaded`` is None in
    a fit compiled for one thread (:func:`tnt.learn.tree_builder.build_tree`)."""
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
        np.empty((n_sorted, length), dtype=np.int64),
        np.empty((n_sorted, length), dtype=codes.dtype),
        np.empty((n_sorted, length), dtype=ys.dtype),
        np.empty((n_sorted, length), dtype=ws.dtype),
    )
    if n_sorted:
        scratch = np.empty((n_lanes, m), dtype=np.int64)
        _fill_runs(features, codes, ys, ws, runs, scratch, parallel, threaded)
    return runs


@kernel(inline="always")
def no_runs(n_features, codes, ys, ws):
    """:class:`SortedRuns` with no feature in them, for a fit compiled without sorted runs."""
    return SortedRuns(
        np.full(n_features, -1, dtype=np.int64),
        np.empty((0, 0), dtype=np.int64),
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
def _partition_run(runs, j, start, end, goes_left, tmp_sid, tmp_code, tmp_y, tmp_w):
    sid, code, y, w = runs.sid[j], runs.code[j], runs.y[j], runs.w[j]
    # Both sides are written at every step and only one pointer moves: no branch on the side, which
    # a split of continuous values leaves as unpredictable as a coin. put <= i: nothing unread is
    # overwritten.
    # Unsigned indices, as in tnt.learn.split_search.
    put = np.uint64(start)
    n_right = np.uint64(0)
    for i in range(np.uint64(start), np.uint64(end)):
        s = sid[i]
        c = code[i]
        t = y[i]
        v = w[i]
        g = np.uint64(goes_left[np.uint64(s)])
        sid[put] = s
        code[put] = c
        y[put] = t
        w[put] = v
        tmp_sid[n_right] = s
        tmp_code[n_right] = c
        tmp_y[n_right] = t
        tmp_w[n_right] = v
        put += g
        n_right += np.uint64(1) - g
    for k in range(n_right):  # a loop, not slice assignments (see tree_builder._more_slots)
        sid[put + k] = tmp_sid[k]
        code[put + k] = tmp_code[k]
        y[put + k] = tmp_y[k]
        w[put + k] = tmp_w[k]


@kernel
def _keep_left_of_run(runs, j, start, end, goes_left):
    """The samples of positions start:end of run ``j`` that go left, moved in order to its first
    positions; the positions after them are left as they are (a right child not grown)."""
    sid, code, y, w = runs.sid[j], runs.code[j], runs.y[j], runs.w[j]
    # As in _partition_run: every sample is written and only the pointer's step depends on its side.
    put = np.uint64(start)
    for i in range(np.uint64(start), np.uint64(end)):
        s = sid[i]
        c = code[i]
        t = y[i]
        v = w[i]
        sid[put] = s
        code[put] = c
        y[put] = t
        w[put] = v
        put += np.uint64(goes_left[np.uint64(s)])


@kernel
def _keep_right_of_run(runs, j, start, end, goes_left):
    """The samples of positions start:end of run ``j`` that go right, moved in order to its last
    positions; the positions before them are left as they are (a left child not grown)."""
    sid, code, y, w = runs.sid[j], runs.code[j], runs.y[j], runs.w[j]
    # From the last position down, writing at put - 1 >= i: nothing unread is overwritten, the order
    # is kept, and no unsigned index goes below zero.
    put = np.uint64(end)
    for k in range(np.uint64(end) - np.uint64(start)):
        i = np.uint64(end) - np.uint64(1) - k
        s = sid[i]
        c = code[i]
        t = y[i]
        v = w[i]
        sid[put - np.uint64(1)] = s
        code[put - np.uint64(1)] = c
        y[put - np.uint64(1)] = t
        w[put - np.uint64(1)] = v
        put -= np.uint64(1) - np.uint64(goes_left[np.uint64(s)])


@kernel
def _partition_lane(lane, n_lanes, runs, features, n_features, start, end, goes_left, sides, tmp):
    tmp_sid, tmp_code, tmp_y, tmp_w = tmp.sid[lane], tmp.code[lane], tmp.y[lane], tmp.w[lane]
    for fi in range(lane, n_features, n_lanes):
        j = runs.row[features[fi]]
        if j < 0:
            continue
        if sides == LEFT_SIDE:
            _keep_left_of_run(runs, j, start, end, goes_left)
        elif sides == RIGHT_SIDE:
            _keep_right_of_run(runs, j, start, end, goes_left)
        else:
            _partition_run(runs, j, start, end, goes_left, tmp_sid, tmp_code, tmp_y, tmp_w)


@kernel(parallel=True)
def _partition_in_parallel(runs, features, n_features, start, end, goes_left, sides, tmp):
    row, sid, code, y, w = runs.row, runs.sid, runs.code, runs.y, runs.w
    t_sid, t_code, t_y, t_w = tmp.sid, tmp.code, tmp.y, tmp.w
    n_lanes = t_sid.shape[0]
    for lane in prange(n_lanes):
        _partition_lane(
            lane,
            n_lanes,
            SortedRuns(row, sid, code, y, w),
            features,
            n_features,
            start,
            end,
            goes_left,
            sides,
            SortedRuns(row, t_sid, t_code, t_y, t_w),
        )


@kernel
def partition_runs(runs, features, n_features, start, end, goes_left, sides, tmp, parallel, threaded=True):
    """Partition positions start:end of the runs of ``features[:n_features]`` stably: samples
    with ``goes_left[sid]`` first, each side still sorted by code. With ``sides`` ``LEFT_SIDE``
    (``RIGHT_SIDE``) only the left (right) side is put in place, in the same positions as by a whole
    partition, and the other side's positions hold anything: half the writes, for a split whose
    other child is a leaf. ``tmp`` is a :class:`SortedRuns` with one row per thread, for the right
    side. ``threaded`` is None in a fit compiled for one thread."""
    if threaded is not None:
        if parallel and tmp.sid.shape[0] > 1:
            _partition_in_parallel(runs, features, n_features, start, end, goes_left, sides, tmp)
            return
    _partition_lane(np.int64(0), np.int64(1), runs, features, n_features, start, end, goes_left, sides, tmp)


@kernel
def run_scratch(runs, n_lanes):
    """One row per thread of room for the right side of a partition of ``runs``."""
    length = runs.sid.shape[1] if runs.sid.shape[0] else 0
    return SortedRuns(
        runs.row,
        np.empty((n_lanes, length), dtype=runs.sid.dtype),
        np.empty((n_lanes, length), dtype=runs.code.dtype),
        np.empty((n_lanes, length), dtype=runs.y.dtype),
        np.empty((n_lanes, length), dtype=runs.w.dtype),
    )
