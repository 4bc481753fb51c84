"""A compiled CART learner on binned features: the micro-tree learner of TnT, for both criteria.

It grows a tree depth-first exactly as scikit-learn's ``DecisionTreeClassifier`` (Gini impurity)
or ``DecisionTreeRegressor`` (squared error) does (best split over all features, thresholds at the
midpoint of two consecutive values present in the node, at least one sample per child), then
applies minimal cost-complexity pruning (:func:`prune_tree`). The criterion is an argument of
every kernel: ``squared`` None (Gini; a node's statistics are its class weights) or True (squared
error; a node's statistics are its weight, weighted target sum and weighted sum of squared
targets), so numba compiles one copy of the learner per criterion from the same code.
What makes it fast without changing the pruned tree:

* split search (:mod:`tnt.learn.split_search`) uses per-node histograms over the feature codes
  (:mod:`tnt.learn.binning`) rather than sorting every feature at every node; a node with few samples
  visits only the codes present;
* each fit copies its samples' codes feature-major, and a split swaps the misplaced pairs of its
  node's positions, so every node reads each feature as one contiguous run, and a split costs in
  proportion to its smaller side (random reads into the training matrix through a list of samples
  would otherwise make most of the cost);
* a large node keeps its histograms, and its larger child inherits them minus the smaller child's
  samples (histogram subtraction), so only the smaller child's samples are read again;
* growth stops where pruning is sure to cut: below a node whose weighted impurity
  ``R(t) = W_t / W * impurity(t)`` is at most ``alpha`` (a branch survives only when it lowers ``R`` by
  more than ``alpha`` per added leaf, and it cannot lower it by more than ``R(t)``), and below a
  split whose subtree cannot beat the split node as a leaf, judged from lower bounds on the pruned
  cost of every pending subtree (a branch and bound; :func:`_tighten`);
* the hot loops index with unsigned integers, which numba does not wrap around (see
  :mod:`tnt.learn.split_search`).

Missing values (NaN, coded last: :attr:`tnt.learn.binning.BinnedData.missing_code`) go at each split
to the side the split search chose for them (:class:`tnt.learn.split_search.Results`); a split whose
node had no missing value of its feature sends them, as scikit-learn does, to the child that got
more of the node's samples (counts, not weights; the right one on a tie). Each node's direction is
stored (``missing_left``: 1 left, 0 right and at leaves).

Ties between equally good splits may be broken differently from scikit-learn, which visits
features in a random order. With non-integer weights, histogram subtraction can change the last
bits of a sum, which only matters between splits that are equally good up to rounding.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import prange, types
from numba.extending import overload

from tnt.learn.compiled import kernel, store_eight_bytes
from tnt.learn.pruning import kept_splits, preorder_ids
from tnt.learn.sorted_runs import (
    buffer_of_depth,
    make_runs,
    mark_left,
    no_runs,
    other_buffer,
    partition_runs,
)
from tnt.learn.split_search import (
    FILL_AND_SCAN,
    NO_MISSING,
    PARALLEL_WORK,
    SCAN,
    SCAN_STORED,
    SUBTRACT,
    Data,
    NodeRange,
    Results,
    SortedRuns,
    Stored,
    _add_code,
    _add_sample,
    _best_of,
    _candidate,
    _on_features,
    _result,
    buffer_classes,
    make_buffers,
    sends_left,
)

__all__ = [
    "SUBSET_WORDS",
    "build_tree",
    "buffer_classes",
    "fit_targets",
    "make_buffers",
    "prune_tree",
    "pruned_tree",
    "split_search_types",
    "threaded",
]

EPSILON = np.finfo(np.float64).eps


@kernel(inline="always")
def _swap_blocks(a, b, shift, mask):
    """``a`` and ``b`` with the blocks of ``b`` under ``mask`` and those of ``a`` ``shift`` bits above
    them exchanged: one step of :func:`_transpose_bytes`."""
    t = ((a >> shift) ^ b) & mask
    return a ^ (t << shift), b ^ t


@kernel(inline="always")
def _transpose_bytes(w0, w1, w2, w3, w4, w5, w6, w7):
    """The 8x8 matrix of bytes whose row ``j`` is the uint64 ``wj`` (column ``k``: its byte ``k``, lowest
    first), transposed: byte ``j`` of the returned word ``k`` is byte ``k`` of ``wj``. Blocks of
    1, then 2, then 4 bytes are exchanged between words 1, 2 and 4 apart."""
    s, m = np.uint64(8), np.uint64(0x00FF00FF00FF00FF)
    w0, w1 = _swap_blocks(w0, w1, s, m)
    w2, w3 = _swap_blocks(w2, w3, s, m)
    w4, w5 = _swap_blocks(w4, w5, s, m)
    w6, w7 = _swap_blocks(w6, w7, s, m)
    s, m = np.uint64(16), np.uint64(0x0000FFFF0000FFFF)
    w0, w2 = _swap_blocks(w0, w2, s, m)
    w1, w3 = _swap_blocks(w1, w3, s, m)
    w4, w6 = _swap_blocks(w4, w6, s, m)
    w5, w7 = _swap_blocks(w5, w7, s, m)
    s, m = np.uint64(32), np.uint64(0x00000000FFFFFFFF)
    w0, w4 = _swap_blocks(w0, w4, s, m)
    w1, w5 = _swap_blocks(w1, w5, s, m)
    w2, w6 = _swap_blocks(w2, w6, s, m)
    w3, w7 = _swap_blocks(w3, w7, s, m)
    return w0, w1, w2, w3, w4, w5, w6, w7


@kernel(inline="always")
def _transpose_halfwords(w0, w1, w2, w3):
    """The 4x4 matrix of 16-bit lanes whose row ``j`` is the uint64 ``wj`` (column ``k``: its lane
    ``k``, lowest first), transposed, as :func:`_transpose_bytes` does for bytes."""
    s, m = np.uint64(16), np.uint64(0x0000FFFF0000FFFF)
    w0, w1 = _swap_blocks(w0, w1, s, m)
    w2, w3 = _swap_blocks(w2, w3, s, m)
    s, m = np.uint64(32), np.uint64(0x00000000FFFFFFFF)
    w0, w2 = _swap_blocks(w0, w2, s, m)
    w1, w3 = _swap_blocks(w1, w3, s, m)
    return w0, w1, w2, w3


@kernel
def _gather_codes(codes, rows, n_bins):
    """Feature-major copy of the codes of ``rows`` from the sample-major matrix ``codes``, and
    whether each feature takes more than one code among them.

    One-byte codes in rows padded to a multiple of eight bytes are moved eight samples by eight
    features at a time: eight 64-bit words read, one from each sample, transposed as an 8x8 matrix
    of bytes (:func:`_transpose_bytes`) and written as eight words, one per feature; a word's bits
    that differ from the first sample's mark the features that vary. Two-byte codes are moved four
    samples by four features at a time alike (:func:`_transpose_halfwords`). Otherwise (rows not
    padded, the samples left over) rows are copied in blocks of 64 samples, so that each is read
    from memory once (constant features are skipped).

    The mask lets the root skip the features constant in the fit (many of a small fit's pixels),
    which its scan would otherwise read in full only to find nothing to split.
    """
    n_features = n_bins.shape[0]
    m = rows.shape[0]
    local_codes = np.empty((n_features, m), dtype=codes.dtype)
    varies = np.zeros(n_features, dtype=np.bool_)
    if m == 0:
        return local_codes, varies
    done = 0
    lanes = 8 // codes.itemsize  # codes per 64-bit word
    if codes.itemsize <= 2 and codes.shape[1] % lanes == 0:
        words = codes.view(np.uint64)
        n_words = (n_features + lanes - 1) // lanes
        done = m - m % lanes
        word = np.empty(lanes, dtype=np.uint64)
        first = words[np.uint64(rows[0])]
        diff = np.zeros(n_words, dtype=np.uint64)
        if codes.itemsize == 1:
            for i0 in range(np.uint64(0), np.uint64(done), np.uint64(8)):
                r0, r1, r2, r3 = (
                    np.uint64(rows[i0]),
                    np.uint64(rows[i0 + 1]),
                    np.uint64(rows[i0 + 2]),
                    np.uint64(rows[i0 + 3]),
                )
                r4, r5, r6, r7 = (
                    np.uint64(rows[i0 + 4]),
                    np.uint64(rows[i0 + 5]),
                    np.uint64(rows[i0 + 6]),
                    np.uint64(rows[i0 + 7]),
                )
                for wf in range(np.uint64(n_words)):
                    w0, w1, w2, w3 = words[r0, wf], words[r1, wf], words[r2, wf], words[r3, wf]
                    w4, w5, w6, w7 = words[r4, wf], words[r5, wf], words[r6, wf], words[r7, wf]
                    x = first[wf]
                    diff[wf] |= (((w0 ^ x) | (w1 ^ x)) | ((w2 ^ x) | (w3 ^ x))) | (
                        ((w4 ^ x) | (w5 ^ x)) | ((w6 ^ x) | (w7 ^ x))
                    )
                    word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7] = _transpose_bytes(
                        w0, w1, w2, w3, w4, w5, w6, w7
                    )
                    for lane in range(np.uint64(min(8, n_features - 8 * np.int64(wf)))):
                        # an index, not a view of the row: a view counts references
                        store_eight_bytes(local_codes, np.uint64(8) * wf + lane, i0, word[lane])
        else:
            for i0 in range(np.uint64(0), np.uint64(done), np.uint64(4)):
                r0, r1 = np.uint64(rows[i0]), np.uint64(rows[i0 + 1])
                r2, r3 = np.uint64(rows[i0 + 2]), np.uint64(rows[i0 + 3])
                for wf in range(np.uint64(n_words)):
                    w0, w1, w2, w3 = words[r0, wf], words[r1, wf], words[r2, wf], words[r3, wf]
                    x = first[wf]
                    diff[wf] |= ((w0 ^ x) | (w1 ^ x)) | ((w2 ^ x) | (w3 ^ x))
                    word[0], word[1], word[2], word[3] = _transpose_halfwords(w0, w1, w2, w3)
                    for lane in range(np.uint64(min(4, n_features - 4 * np.int64(wf)))):
                        store_eight_bytes(local_codes, np.uint64(4) * wf + lane, i0, word[lane])
        bits = 8 * codes.itemsize
        lane_mask = np.uint64((1 << bits) - 1)
        for f in range(n_features):
            varies[f] = (diff[f // lanes] >> np.uint64(bits * (f % lanes))) & lane_mask != 0
    for i0 in range(done, m, 64):
        i1 = min(m, i0 + 64)
        for f in range(n_features):
            if n_bins[f] > 1:
                c0 = codes[np.uint64(rows[0]), f]
                for i in range(np.uint64(i0), np.uint64(i1)):
                    c = codes[np.uint64(rows[i]), f]
                    local_codes[f, i] = c
                    varies[f] |= c != c0
    return local_codes, varies


@kernel
def _split_positions(cf, code, missing, start, end, first, second):
    """Pair the positions that are on the wrong side of a split of start:end (codes <= ``code``
    go left, and the code ``missing``): ``first[:n]`` are positions before the split point that go
    right, ``second[:n]`` positions after it that go left. Returns (split point, n)."""
    n_left = 0
    for i in range(np.uint64(start), np.uint64(end)):
        n_left += sends_left(cf[i], code, missing)
    mid = start + n_left
    n_first = np.uint64(0)
    for i in range(np.uint64(start), np.uint64(mid)):
        first[n_first] = i
        n_first += np.uint64(not sends_left(cf[i], code, missing))
    n_second = np.uint64(0)
    for i in range(np.uint64(mid), np.uint64(end)):
        second[n_second] = i
        n_second += np.uint64(sends_left(cf[i], code, missing))
    return mid, np.int64(n_first)


@kernel
def _split_marked_positions(position_sid, goes_left, start, end, first, second):
    """:func:`_split_positions` for a split marked per sample id (:func:`mark_left`)."""
    n_left = 0
    for i in range(start, end):
        n_left += goes_left[position_sid[i]]
    mid = start + n_left
    n_first = 0
    for i in range(start, mid):
        first[n_first] = i
        n_first += not goes_left[position_sid[i]]
    n_second = 0
    for i in range(mid, end):
        second[n_second] = i
        n_second += goes_left[position_sid[i]]
    return mid, n_first


@kernel
def _swap_features(lane, n_lanes, codes, row, features, n_features, first, second, n_swaps):
    """Swap the codes at positions ``first[k]`` and ``second[k]`` of the given features' rows
    (features in sorted runs, ``row[f] >= 0``, are partitioned apart)."""
    for fi in range(lane, n_features, n_lanes):
        if row[features[fi]] >= 0:
            continue
        f = np.uint64(features[fi])  # an index, not a view of the row: a view counts references
        for k in range(np.uint64(n_swaps)):
            i = np.uint64(first[k])
            j = np.uint64(second[k])
            codes[f, i], codes[f, j] = codes[f, j], codes[f, i]


@kernel(parallel=True)
def _swap_features_in_parallel(codes, row, features, n_features, first, second, n_swaps, n_lanes):
    for lane in prange(n_lanes):
        _swap_features(lane, n_lanes, codes, row, features, n_features, first, second, n_swaps)


@kernel
def _swap(a, first, second, n_swaps):
    for k in range(np.uint64(n_swaps)):
        i = np.uint64(first[k])
        j = np.uint64(second[k])
        a[i], a[j] = a[j], a[i]


@kernel
def _split_samples(data, position_sid, goes_left, start, end, f, code, missing, first, second, with_runs):
    """First half of partitioning positions start:end (codes of ``f`` <= ``code``, and the code
    ``missing``, first): the misplaced pairs found and the targets, weights and sample ids swapped.
    The codes follow in :func:`_split_codes`, only if a child is grown. A split on a feature in sorted runs is read
    from ``goes_left`` (by sample id). Returns (first position of the right part, number of swaps);
    ``first`` and ``second`` hold the pairs."""
    if with_runs is not None:  # None: compiled without sorted runs
        if data.runs.row[f] >= 0:
            mid, n_swaps = _split_marked_positions(position_sid, goes_left, start, end, first, second)
        else:
            mid, n_swaps = _split_positions(data.codes[f], code, missing, start, end, first, second)
    else:
        mid, n_swaps = _split_positions(data.codes[f], code, missing, start, end, first, second)
    _swap(data.ys, first, second, n_swaps)
    _swap(data.ws, first, second, n_swaps)
    if position_sid.shape[0]:
        _swap(position_sid, first, second, n_swaps)
    return mid, n_swaps


@kernel
def _split_codes(data, features, n_features, first, second, n_swaps, parallel, n_lanes, threaded):
    """Second half of the partition begun by :func:`_split_samples`: the same pairs swapped in the
    code rows of ``features``, by swapping the misplaced pairs, so that the cost follows the smaller
    side, not the node. The rows of features in sorted runs are left alone."""
    if threaded is not None:  # None: compiled without the parallel kernel
        if parallel and n_lanes > 1:
            _swap_features_in_parallel(data.codes, data.runs.row, features, n_features, first, second, n_swaps, n_lanes)
            return
    _swap_features(np.int64(0), np.int64(1), data.codes, data.runs.row, features, n_features, first, second, n_swaps)


# Words of a categorical split's subset (:mod:`tnt.categorical`): 256 codes, more than the 255
# categories a feature may have.
SUBSET_WORDS = 4
# Rare categories are pooled (:func:`_ordered_scan`) only at a node where the feature has at least
# this many categories: with fewer, every category keeps its own rank (LightGBM's one-vs-rest for
# features of few categories is the same idea).
POOL_MIN_CATEGORIES = 5


@kernel
def _category_key(stats, present, n_present, K, squared):
    """Per category present (rows ``present[:n_present]`` of ``stats``), the key of Breiman's
    ordering: the mean target (squared error, ``stats`` weight and weighted target sum), the share
    of the second class (two classes), or for more classes the projection of the category's class
    shares on their first principal component, weighted by the categories' weights (Coppersmith,
    Hong and Hosking, 1999), its sign fixed by the component's largest entry being positive so that
    the order does not depend on the eigen solver's choice of sign."""
    key = np.zeros(n_present)
    if squared is not None:
        for j in range(n_present):
            key[j] = stats[present[j], 1] / stats[present[j], 0]
        return key
    weight = np.zeros(n_present)
    for j in range(n_present):
        for k in range(K):
            weight[j] += stats[present[j], k]
    if K == 2:
        for j in range(n_present):
            key[j] = stats[present[j], 1] / weight[j]
        return key
    if n_present < 2:
        return key
    shares = np.empty((n_present, K))
    mean = np.zeros(K)
    total = 0.0
    for j in range(n_present):
        total += weight[j]
        for k in range(K):
            shares[j, k] = stats[present[j], k] / weight[j]
            mean[k] += weight[j] * shares[j, k]
    for k in range(K):
        mean[k] /= total
    cov = np.zeros((K, K))
    for j in range(n_present):
        for a in range(K):
            for b in range(K):
                cov[a, b] += weight[j] * (shares[j, a] - mean[a]) * (shares[j, b] - mean[b])
    _, vectors = np.linalg.eigh(cov)
    largest = 0
    for k in range(K):
        if abs(vectors[k, K - 1]) > abs(vectors[largest, K - 1]):
            largest = k
    sign = -1.0 if vectors[largest, K - 1] < 0 else 1.0
    for j in range(n_present):
        for k in range(K):
            key[j] += (shares[j, k] - mean[k]) * vectors[k, K - 1] * sign
    return key


@kernel
def _category_histogram(codes, f, ys, ws, start, end, nb, K, h, c, squared, in_order):
    """The histogram of feature ``f``'s own codes (its categories) over positions start:end: per
    code its ``K`` entries (:func:`tnt.learn.split_search._add_sample`) in ``h[0]`` and its count in
    ``c[0]``, zeros on entry. As the split search's scan of a node (:func:`_scan_feature`) makes it:
    with many samples per code (``n >= 2 * nb``) even and odd positions apart, in ``h[1]`` and
    ``c[1]`` for the odd ones, then added into ``h[0]`` and ``c[0]``; else every sample in order.
    Returns the smallest and largest code seen, and the row of ``h`` that holds the entries summed
    sample by sample in order: 0, or 2 when they were summed apart and ``in_order`` asks for them
    too (where sums are not exact, the order of the additions changes their last bits, and the
    categories are ordered by these sums, as they were before histograms were kept)."""
    uk = np.uint64(K)
    uf = np.uint64(f)
    lo = np.int64(codes[uf, start])
    hi = lo
    h0, h1, h2, c0, c1 = h[0], h[1], h[2], c[0], c[1]
    if end - start >= 2 * nb:
        i = start
        while i + 1 < end:
            b0 = np.uint64(codes[uf, i])
            b1 = np.uint64(codes[uf, i + 1])
            _add_sample(h0, b0, uk, ys[i], ws[i], squared)
            c0[b0] += 1
            _add_sample(h1, b1, uk, ys[i + 1], ws[i + 1], squared)
            c1[b1] += 1
            if in_order:
                _add_sample(h2, b0, uk, ys[i], ws[i], squared)
                _add_sample(h2, b1, uk, ys[i + 1], ws[i + 1], squared)
            lo = min(lo, np.int64(min(b0, b1)))
            hi = max(hi, np.int64(max(b0, b1)))
            i += 2
        if i < end:
            b0 = np.uint64(codes[uf, i])
            _add_sample(h0, b0, uk, ys[i], ws[i], squared)
            c0[b0] += 1
            lo = min(lo, np.int64(b0))
            hi = max(hi, np.int64(b0))
            if in_order:
                _add_sample(h2, b0, uk, ys[i], ws[i], squared)
        for b in range(lo, hi + 1):
            c0[b] += c1[b]
            c1[b] = 0
            for k in range(K):
                h0[b * K + k] += h1[b * K + k]
                h1[b * K + k] = 0.0
        return lo, hi, np.int64(2 if in_order else 0)
    for i in range(start, end):
        b = np.uint64(codes[uf, i])
        _add_sample(h0, b, uk, ys[i], ws[i], squared)
        c0[b] += 1
        lo = min(lo, np.int64(b))
        hi = max(hi, np.int64(b))
    return lo, hi, np.int64(0)


@kernel
def _ordered_scan(h, c, off, lo, hi, mc, nb, K, total, w_node, fewest, rank, f, stats, present, left, squared, key_h,
                  key_stats):  # fmt: skip
    """Best split of a categorical feature ``f`` (``nb`` codes, missing code ``mc``) of a node, from
    the histogram of its own codes: code ``b``'s entries at ``h[(off + b) * K:]``, its count at
    ``c[off + b]``, every code present within ``lo .. hi``. A :class:`Results` entry whose codes are
    ranks in Breiman's ordering of the node's categories, written to ``rank[f]`` (``nb`` for a code
    absent from the node): the categories are sorted by :func:`_category_key` (ties in code order)
    and their prefixes scanned as the split search scans an ordered feature's codes
    (:func:`tnt.learn.split_search._scan_feature`: missing values right, then left), the same sums
    added in the same order. The categories are ordered by the entries of ``key_h`` (at the same
    places; ``h`` itself, or the same sums added in another order). ``stats``, ``key_stats`` and
    ``present`` are scratch memory.

    ``fewest`` is the fewest samples a category needs at the node to be ranked on its own (1:
    every category, Breiman's ordering): at a node where the feature has at least
    :data:`POOL_MIN_CATEGORIES` categories, those with fewer samples are pooled into one category,
    ranked by the pooled statistic, so that a split sends them all the same way."""
    n_seen = 0
    for b in range(lo, hi + 1):
        if b != mc and c[off + b] != 0:
            n_seen += 1
    if fewest > 1 and n_seen < POOL_MIN_CATEGORIES:
        fewest = np.int64(1)
    for k in range(K):
        stats[nb, k] = 0.0  # row nb: the pooled rare categories
        key_stats[nb, k] = 0.0
    for b in range(nb):
        rank[f, b] = nb
    n_present = 0
    n_rare = 0
    for b in range(lo, hi + 1):
        count = c[off + b]
        if b == mc or count == 0:
            continue
        at = (off + b) * K
        if count < fewest:
            n_rare += 1
            for k in range(K):
                stats[nb, k] += h[at + k]
                key_stats[nb, k] += key_h[at + k]
        else:
            for k in range(K):
                stats[b, k] = h[at + k]
                key_stats[b, k] = key_h[at + k]
            present[n_present] = b
            n_present += 1
    if n_rare > 0:
        present[n_present] = nb
        n_present += 1
    order = np.argsort(_category_key(key_stats, present, n_present, K, squared), kind="mergesort")
    pooled_rank = nb
    for j in range(n_present):
        b = present[order[j]]
        if b == nb:
            pooled_rank = j
        else:
            rank[f, b] = j
    if n_rare > 0:
        for b in range(lo, hi + 1):
            if b != mc and 0 < c[off + b] < fewest:
                rank[f, b] = pooled_rank
    # The first pass: the prefixes of the order left, missing values right; its last boundary sends
    # all the real categories left.
    best = (-np.inf, np.int64(-1), np.int64(-1))
    for k in range(K):
        left[k] = 0.0
    w_left = 0.0
    prev = np.int64(-1)
    for j in range(n_present):
        best = _candidate(best, prev, np.int64(j), left, total, K, w_left, w_node, squared)
        w_left = _add_code(stats[present[order[j]]], np.uint64(0), K, left, w_left, squared)
        prev = np.int64(j)
    has_missing = mc >= 0 and lo <= mc and mc <= hi and c[off + mc] != 0
    second = (-np.inf, np.int64(-1), np.int64(-1))
    if has_missing:
        best = _candidate(best, prev, mc, left, total, K, w_left, w_node, squared)
        # The second pass: the missing values left, then the same prefixes.
        for k in range(K):
            left[k] = 0.0
        w_left = 0.0
        w_left = _add_code(h, np.uint64((off + mc) * K), K, left, w_left, squared)
        prev = np.int64(-1)
        for j in range(n_present):
            second = _candidate(second, prev, np.int64(j), left, total, K, w_left, w_node, squared)
            w_left = _add_code(stats[present[order[j]]], np.uint64(0), K, left, w_left, squared)
            prev = np.int64(j)
    return _result(best, second, has_missing)


@kernel
def _scan_categories(local_codes, categorical, features, at, n_cat, ys, ws, start, end, n_bins, missing_code, K,
                     total, w_node, fresh, pool, slot, offsets, scratch, rank, results, squared, in_order):  # fmt: skip
    """The best split of each candidate categorical feature ``features[at[j]]`` (``j < n_cat``) of a
    node, written to ``results`` at ``at[j]`` (:func:`_ordered_scan`, the ranks of the node's
    categories to ``rank``). Its histogram of the fit's own category codes is read from the node's
    stored slot (``slot >= 0``, not ``fresh``: the parent's less the sibling's samples, as for
    numeric features), or made from the node's samples (:func:`_category_histogram`) and, when the
    node takes a ``fresh`` slot, stored there for its larger child. ``scratch`` is
    :func:`_category_scratch`'s; ``in_order``: the categories are ordered by sums taken sample by
    sample (:func:`_category_histogram`)."""
    h, c, stats, present, left, key_stats = scratch
    for j in range(n_cat):
        fi = at[j]
        f = features[fi]
        nb = n_bins[f]
        fewest = np.int64(categorical[f])
        if slot >= 0 and not fresh:
            off = offsets[f]
            lo, hi = pool.bounds[slot, f, 0], pool.bounds[slot, f, 1]
            hist = pool.hist[slot]
            result = _ordered_scan(hist, pool.counts[slot], off, lo, hi, missing_code[f], nb, K, total, w_node, fewest,
                                   rank, f, stats, present, left, squared, hist, key_stats)  # fmt: skip
        else:
            lo, hi, key_row = _category_histogram(local_codes, f, ys, ws, start, end, nb, K, h, c, squared, in_order)
            if slot >= 0:
                off = offsets[f]
                pool.bounds[slot, f, 0] = lo
                pool.bounds[slot, f, 1] = hi
                for b in range(lo, hi + 1):
                    pool.counts[slot, off + b] = c[0, b]
                    for k in range(K):
                        pool.hist[slot, (off + b) * K + k] = h[0, b * K + k]
            result = _ordered_scan(h[0], c[0], np.int64(0), lo, hi, missing_code[f], nb, K, total, w_node, fewest, rank, f,
                                   stats, present, left, squared, h[key_row], key_stats)  # fmt: skip
            for b in range(lo, hi + 1):
                c[0, b] = 0
                for k in range(K):
                    h[0, b * K + k] = 0.0
                    h[2, b * K + k] = 0.0
        results.proxies[fi], results.codes[fi], results.next_codes[fi], results.missing_left[fi] = result


@kernel
def _whole_multiples(values, total):
    """Whether every value is a whole multiple of the power of two ``2**-s`` for which ``total`` (at
    least the sum of their magnitudes) needs all 53 bits of a float64: then every sum of them, and
    every difference of two such sums, is exact, whatever the order of the additions."""
    if total <= 0.0:
        return True
    _, e = math.frexp(total)
    scale = math.ldexp(1.0, 52 - e)
    for i in range(values.shape[0]):
        v = values[i] * scale
        if v != math.floor(v):
            return False
    return True


@kernel
def _exact_histograms(ys, ws, squared):
    """Whether the histograms of a fit's samples sum exactly in any order: their weights (Gini), or
    their weights and weighted targets (squared error), whole multiples of a small enough power of
    two (:func:`_whole_multiples`), as unit weights are. Only then does a categorical feature keep its
    histograms for a node's larger child: a subtracted sum that differs from a counted one in its
    last bits would reorder categories whose statistics are equal (two categories of one class)."""
    total = 0.0
    for i in range(ws.shape[0]):
        total += ws[i]
    if not _whole_multiples(ws, total):
        return False
    if squared is not None:
        products = np.empty(ws.shape[0])
        magnitude = 0.0
        for i in range(ws.shape[0]):
            products[i] = ws[i] * ys[i]
            magnitude += abs(products[i])
        return _whole_multiples(products, magnitude)
    return True


@kernel
def _category_scratch(n_bins, K, categorical):
    """:func:`_scan_categories`' scratch memory for features of at most ``max(n_bins)`` codes: two
    histograms and two code counts (zeros) and a third histogram (summed in order), the categories'
    statistics, their list, the sums of a split's left side and the statistics they are ordered by
    (empty when ``categorical`` is None)."""
    nb = 0
    if categorical is not None:
        nb = np.max(n_bins)
    return (
        np.zeros((3, nb * K)),
        np.zeros((2, nb), dtype=np.int32),
        np.zeros((nb + 1, K)),
        np.empty(nb + 1, dtype=np.int64),
        np.zeros(K),
        np.zeros((nb + 1, K)),
    )


@kernel
def _to_ranks(local_codes, f, rank, mc, start, end, saved):
    """Write the ranks of the node's ordering (``rank[f]``) over feature ``f``'s own codes at positions
    start:end, keeping the codes in ``saved`` (the missing code ``mc`` stays): the partition of a
    categorical split then reads the ranks as it reads an ordered feature's codes."""
    for i in range(start, end):
        b = local_codes[f, i]
        saved[i] = b
        if np.int64(b) != mc:
            local_codes[f, i] = rank[f, np.int64(b)]


@kernel
def _own_codes(local_codes, f, start, end, saved):
    """Undo :func:`_to_ranks` (the positions not yet moved)."""
    for i in range(start, end):
        local_codes[f, i] = saved[i]


@kernel
def _write_subset(subsets, node, rank, f, last, n_bins, missing_code, bin_min):
    """Row ``node`` of ``subsets``: the categories whose rank (:func:`_ordered_scan`) is at most
    ``last``, by their category codes (each bin of a categorical feature holds one code, its value)."""
    for b in range(n_bins[f]):
        if b != missing_code[f] and rank[f, b] <= last:
            c = np.int64(bin_min[f, b])
            subsets[node, c // 64] |= np.uint64(1) << np.uint64(c % 64)


@kernel(inline="always")
def _node_weight(value, node, squared):
    """A node's weight: the sum of its class weights (Gini), or its first statistic (squared error)."""
    if squared is not None:
        return value[node, 0]
    w_node = 0.0
    for k in range(value.shape[1]):
        w_node += value[node, k]
    return w_node


@kernel(inline="always")
def _variance(value, node):
    """The weighted variance of the targets of a node of statistics (weight, weighted target sum,
    weighted sum of squares)."""
    w = value[node, 0]
    mean = value[node, 1] / w
    return value[node, 2] / w - mean * mean


@kernel(inline="always")
def _leaf_cost(value, node, total_w, alpha, squared):
    """``R(t) + alpha`` for a node kept as a leaf: its weighted impurity (Gini impurity or variance)
    as a share of the tree's weight, plus ``alpha``. Growth bounds and :func:`prune_tree` compute
    it alike."""
    if squared is not None:
        return value[node, 0] * _variance(value, node) / total_w + alpha
    w_node = 0.0
    sq = 0.0
    for k in range(value.shape[1]):
        w_node += value[node, k]
        sq += value[node, k] * value[node, k]
    return (w_node - sq / w_node) / total_w + alpha


def fit_targets(y):
    """The copy of a fit's targets that :func:`build_tree` partitions: class indices as int32, float
    targets as they are. Every scan and partition of a sorted run reads a target per sample, and
    half the bytes of int64 make those passes over runs larger than the caches faster (in compiled
    code, the copy's type follows ``y``'s, as numba needs; :func:`_fit_targets`)."""
    return y.astype(np.int32) if np.issubdtype(y.dtype, np.integer) else y.copy()


@overload(fit_targets)
def _fit_targets(y):
    if isinstance(y.dtype, types.Integer):
        return lambda y: y.astype(np.int32)
    return lambda y: y.copy()


@kernel
def _node_totals(ys, ws, start, end, value, node, squared):
    """A node's statistics from its positions start:end: its class weights (Gini), or its weight,
    weighted target sum and weighted sum of squared targets (squared error)."""
    for k in range(value.shape[1]):
        value[node, k] = 0.0
    if squared is not None:
        w = 0.0
        s = 0.0
        q = 0.0
        for i in range(np.uint64(start), np.uint64(end)):
            wy = ws[i] * ys[i]
            w += ws[i]
            s += wy
            q += wy * ys[i]
        value[node, 0], value[node, 1], value[node, 2] = w, s, q
        return
    for i in range(np.uint64(start), np.uint64(end)):
        value[node, np.uint64(ys[i])] += ws[i]


@kernel(inline="always")
def _stops(value, node, n, depth, max_depth, alpha, total_w, squared):
    """Whether a node is a leaf without looking at its features: too few samples, pure (up to
    rounding), at the depth limit, or so small that cost-complexity pruning would remove any split
    below it."""
    if n < 2 or depth >= max_depth:
        return True
    if squared is not None:
        impurity = _variance(value, node)
        return impurity <= EPSILON or value[node, 0] * impurity / total_w <= alpha
    w_node = 0.0
    sq = 0.0
    for k in range(value.shape[1]):
        w_node += value[node, k]
        sq += value[node, k] * value[node, k]
    w_squared = w_node * w_node
    if w_squared > 0.0:
        gini = 1.0 - sq / w_squared
    else:  # tiny weights (boosting's) whose square underflows: the same Gini from class shares
        gini = 1.0
        for k in range(value.shape[1]):
            gini -= (value[node, k] / w_node) ** 2
    return gini <= EPSILON or (alpha > 0.0 and w_node / total_w * gini <= alpha)


@kernel
def _tighten(node, left, right, parent, leaf_cost, bound, decided):
    """Propagate a raised lower bound from ``node``'s children to its ancestors.

    ``bound[t]`` is a lower bound on the cost ``R + alpha * leaves`` of the best pruning of ``t``'s
    subtree, however the pending nodes below it turn out. Once the children of ``t`` cannot do
    better than ``t`` as a leaf, pruning will cut ``t``: it is ``decided``, and nodes still pending
    below it need not be split.
    """
    a = node
    while a >= 0:
        children = bound[left[a]] + bound[right[a]]
        if children >= leaf_cost[a]:
            decided[a] = True
        tightened = min(leaf_cost[a], children)
        if tightened == bound[a] and a != node:
            return
        bound[a] = tightened
        a = parent[a]


@kernel
def _preorder(left, right, feature, threshold, missing_left, value, subsets, n_nodes):
    """The node arrays renumbered depth-first, left child first, as scikit-learn numbers them
    (``subsets`` too when it has rows: a fit with categorical features)."""
    order = np.empty(n_nodes, dtype=np.int64)
    stack = np.empty(n_nodes + 1, dtype=np.int64)
    stack[0] = 0
    top = 1
    count = 0
    while top > 0:
        top -= 1
        x = stack[top]
        order[count] = x
        count += 1
        if left[x] >= 0:
            stack[top] = right[x]
            stack[top + 1] = left[x]
            top += 2
    new_id = np.empty(n_nodes, dtype=np.int64)
    for i in range(n_nodes):  # a loop, not an array assignment (see _more_slots)
        new_id[order[i]] = i
    new_left = np.full(n_nodes, -1, dtype=np.int64)
    new_right = np.full(n_nodes, -1, dtype=np.int64)
    for i in range(n_nodes):
        x = order[i]
        if left[x] >= 0:
            new_left[i] = new_id[left[x]]
            new_right[i] = new_id[right[x]]
    new_subsets = np.zeros((n_nodes if subsets.shape[0] else 0, SUBSET_WORDS), dtype=np.uint64)
    for i in range(new_subsets.shape[0]):
        for k in range(SUBSET_WORDS):
            new_subsets[i, k] = subsets[order[i], k]
    return new_left, new_right, feature[order], threshold[order], missing_left[order], value[order], new_subsets


SlotPool = namedtuple("SlotPool", ["hist", "counts", "bounds", "free", "n_free"])
SlotPool.__doc__ = """Slots of stored histograms (:class:`tnt.learn.split_search.Stored`), one per
pending node that keeps its histograms: ``free[:n_free[0]]`` are the slots not in use."""


@kernel
def _new_pool(entries, n_codes, n_features):
    return SlotPool(
        np.empty((0, entries)),
        np.empty((0, n_codes), dtype=np.int32),
        np.empty((0, n_features, 2), dtype=np.int64),
        np.empty(0, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
    )


@kernel
def _more_slots(pool):
    """The pool with room for twice as many slots (plus two), the new ones free; no slot was free."""
    old = pool.hist.shape[0]
    new = 2 * old + 2
    hist = np.empty((new, pool.hist.shape[1]))
    counts = np.empty((new, pool.counts.shape[1]), dtype=pool.counts.dtype)
    bounds = np.empty((new, pool.bounds.shape[1], 2), dtype=pool.bounds.dtype)
    # Loops, not slice assignments: numba compiles a slice assignment's error message (a few
    # seconds of string formatting code) for every shape of them.
    for s in range(old):
        for e in range(hist.shape[1]):
            hist[s, e] = pool.hist[s, e]
        for e in range(counts.shape[1]):
            counts[s, e] = pool.counts[s, e]
        for f in range(bounds.shape[1]):
            bounds[s, f, 0] = pool.bounds[s, f, 0]
            bounds[s, f, 1] = pool.bounds[s, f, 1]
    free = np.empty(new, dtype=np.int64)
    for k in range(new - old):
        free[k] = old + k
    pool.n_free[0] = new - old
    return SlotPool(hist, counts, bounds, free, pool.n_free)


@kernel
def _take_slot(pool):
    """(pool, a slot taken from it); the pool grows when no slot is free."""
    if pool.n_free[0] == 0:
        pool = _more_slots(pool)
    pool.n_free[0] -= 1
    return pool, pool.free[pool.n_free[0]]


@kernel
def _release_slot(pool, slot):
    """Give ``slot`` back to the pool (nothing for -1)."""
    if slot >= 0:
        pool.free[pool.n_free[0]] = slot
        pool.n_free[0] += 1


Stack = namedtuple("Stack", ["nodes", "features", "n_features"])
Stack.__doc__ = """Pending nodes, depth first: ``nodes[i]`` is (node, start, end, depth, slot), with
its candidate features ``features[i, :n_features[i]]``."""


@kernel
def _new_stack(n_all):
    capacity = 16  # a depth-first stack holds at most depth + 1 entries; it grows when needed
    return Stack(
        np.zeros((capacity, 5), dtype=np.int64),
        np.empty((capacity, n_all), dtype=np.int64),
        np.zeros(capacity, dtype=np.int64),
    )


@kernel
def _push(stack, top, node, start, end, depth, slot, features, n_features):
    """Put a node on the stack at ``top``; returns the stack, grown when full."""
    if top == stack.nodes.shape[0]:
        capacity = 2 * top
        nodes = np.zeros((capacity, 5), dtype=np.int64)
        grown_features = np.empty((capacity, stack.features.shape[1]), dtype=np.int64)
        grown_n = np.zeros(capacity, dtype=np.int64)
        for i in range(top):  # loops, not slice assignments (see _more_slots)
            for k in range(5):
                nodes[i, k] = stack.nodes[i, k]
            for k in range(grown_features.shape[1]):
                grown_features[i, k] = stack.features[i, k]
            grown_n[i] = stack.n_features[i]
        stack = Stack(nodes, grown_features, grown_n)
    stack.nodes[top, 0] = node
    stack.nodes[top, 1] = start
    stack.nodes[top, 2] = end
    stack.nodes[top, 3] = depth
    stack.nodes[top, 4] = slot
    for k in range(n_features):
        stack.features[top, k] = features[k]
    stack.n_features[top] = n_features
    return stack


# A node keeps its class histograms (so that its larger child inherits them minus the smaller
# child's samples) when it has at least this many samples per histogram entry of a feature.
STORED_SAMPLES_PER_ENTRY = 1.0
# Largest stored histogram, in entries: wider data scans every node directly.
STORED_MAX_ENTRIES = 1 << 22


@kernel
def _histogram_offsets(n_bins, row):
    """Where each feature's codes start in a stored histogram: features with several codes and
    no sorted run (``row[f] < 0``), side by side; the last entry is the total number of codes."""
    offsets = np.zeros(n_bins.shape[0] + 1, dtype=np.int64)
    for f in range(n_bins.shape[0]):
        offsets[f + 1] = offsets[f] + (n_bins[f] if n_bins[f] > 1 and row[f] < 0 else 0)
    return offsets


def threaded(n_rows: int, n_features: int, n_lanes: int):
    """:func:`build_tree`'s ``threaded``: True when a fit on ``n_rows`` samples and ``n_features``
    candidate features with buffers of ``n_lanes`` threads may work on a node with several threads,
    else None (a node with n samples and f features is threaded when ``n * f >= PARALLEL_WORK``)."""
    return True if n_lanes > 1 and n_rows * n_features >= PARALLEL_WORK else None


def with_runs(data, threaded):
    """:func:`build_tree`'s ``with_runs`` for a fit on the :class:`~tnt.learn.binning.BinnedData`
    ``data``: True for two-byte codes or a ``threaded`` fit (the copy with the parallel kernels has
    sorted runs too), else None (one-byte codes, which never have more codes than histograms take).

    Two-byte codes take the copy with sorted runs whether or not some feature has more codes than
    histograms take (:attr:`~tnt.learn.binning.BinnedData.has_sorted_runs`): without such a feature
    it keeps none in runs and scans every feature through histograms, as the copy without runs does,
    at the cost of a few empty arrays per fit. So two-byte codes compile one copy of the fit kernel
    per criterion, not two (``docs/speed_history.md``)."""
    return True if threaded is not None or data.codes.dtype != np.uint8 else None


def split_search_types(code_dtype=np.uint8) -> tuple:
    """numba's types of the arguments with which :func:`build_tree`, in a fit on one thread without
    sorted runs (``threaded`` and ``with_runs`` None) on codes of ``code_dtype``, calls the split
    search (:func:`tnt.learn.split_search._on_features`).

    The split search is a large share of that copy's compile time. The warm-up (:mod:`tnt.warmup`)
    compiles it with these types in one process while another compiles :func:`build_tree`, which
    then loads it from the cache. Only the arrays' types matter here, not their sizes
    (``tests/test_cold_start.py`` checks that :func:`build_tree` compiles no other copy).
    """
    from numba import typeof

    n_features, n_codes = 2, 2
    codes = np.zeros((n_features, 1), dtype=code_dtype)  # feature-major, as _gather_codes copies them
    ys, ws = np.zeros(1, dtype=np.int32), np.zeros(1)  # build_tree's class indices
    bounds = np.zeros((n_features, n_codes), dtype=np.float32)
    runs = SortedRuns(
        np.full(n_features, -1, dtype=np.int64),
        np.empty((0, 0), dtype=np.int32),
        np.empty((0, 0), dtype=code_dtype),
        np.empty((0, 0), dtype=np.int32),
        np.empty((0, 0)),
    )
    missing_code = np.full(n_features, -1, dtype=np.int64)
    data = Data(codes, ys, ws, np.full(n_features, n_codes, dtype=np.intp), bounds, bounds, missing_code, runs, None)
    features = np.zeros((1, n_features), dtype=np.int64)[0]
    value = np.zeros((1, 2))
    stored = Stored(
        np.zeros((1, n_codes * 2)),
        np.zeros((1, n_codes), dtype=np.int32),
        np.zeros((1, n_features, 2), dtype=np.int64),
        np.int64(0),
        np.zeros(n_features + 1, dtype=np.int64),
    )
    # Run by Python, so that nothing is compiled before the split search (a plain function already
    # when NUMBA_DISABLE_JIT makes every kernel one).
    results = getattr(_new_results, "py_func", _new_results)(n_features)
    buffers = make_buffers(np.full(n_features, n_codes), 2, 1)
    node = NodeRange(np.int64(0), np.int64(1), value[0], 1.0)
    arguments = (
        np.int64(SCAN),
        False,
        None,
        None,
        data,
        node,
        features,
        np.int64(n_features),
        results,
        buffers,
        stored,
    )
    return tuple(typeof(argument) for argument in arguments)


@kernel
def _new_results(n_features):
    """:class:`Results` for ``n_features`` candidate features."""
    return Results(
        np.empty(n_features), np.empty(n_features, dtype=np.int64), np.empty(n_features, dtype=np.int64),
        np.empty(n_features, dtype=np.int64),
    )  # fmt: skip


@kernel
def build_tree(
    codes,
    feature_order,
    rows,
    y,
    w,
    n_classes,
    n_bins,
    bin_min,
    bin_max,
    missing_code,
    alpha,
    max_depth,
    buffers,
    threaded,
    with_runs,
    squared,
    categorical,
):
    """Grow a tree on the samples ``rows`` (targets ``y``, weights ``w``, aligned with rows) with the
    Gini impurity (``squared`` None, ``y`` class indices below ``n_classes``) or the squared error
    (``squared`` True, ``y`` float targets, ``n_classes`` 2: a histogram's entries per code).

    ``codes`` is the sample-major code matrix; ``buffers`` is the per-thread workspace made by
    :func:`make_buffers`, reused across fits. ``threaded`` is None for a fit that never works on a
    node with several threads (:func:`threaded`): numba then compiles this kernel without its
    parallel kernels, which are a large part of its compile time; True compiles the copy with them.
    Likewise ``with_runs`` (:func:`with_runs`) is None when no feature is kept in sorted runs.

    ``n_bins``, ``bin_min``, ``bin_max`` and ``missing_code`` are those of
    :class:`tnt.learn.binning.BinnedData`.

    ``categorical`` is None when no feature is categorical (numba then compiles this kernel without
    their search), else a flag per feature (uint8; 0 for a numeric feature, and for a categorical
    one the fewest samples a category needs at a node to be ranked on its own, 1 for Breiman's
    ordering: :func:`_ordered_scan`): a categorical feature's bins hold one category code each
    (its value), and it is split into two subsets of its categories, searched among the prefixes of
    that ordering at each node; the categories absent from the node go right. Its histogram counts
    its own codes, so a large node keeps it for its larger child as it keeps a numeric feature's.

    Returns the node arrays (children, feature, threshold, ``missing_left`` (1: a missing value goes
    to the left child), statistics: the weighted class counts, or
    the weight, weighted target sum and weighted sum of squared targets), the total weight, nodes numbered in
    the order scikit-learn's depth-first builder creates them, and the subsets of the categorical
    splits (bitsets of ``SUBSET_WORDS`` words of the codes sent left, one row per node; no rows
    when ``categorical`` is None), whose threshold is NaN. With ``alpha > 0`` a node is left
    unsplit when cost-complexity pruning with ``alpha`` is sure to remove its split, so the tree is
    only grown as far as :func:`prune_tree` needs.
    """
    m = rows.shape[0]
    n_all = feature_order.shape[0]
    K = n_classes
    capacity = 2 * m + 1
    left = np.full(capacity, -1, dtype=np.int64)
    right = np.full(capacity, -1, dtype=np.int64)
    feature = np.full(capacity, -2, dtype=np.int64)
    threshold = np.full(capacity, -2.0)
    missing_left = np.zeros(capacity, dtype=np.uint8)
    value = np.zeros((capacity, 3 if squared is not None else n_classes))
    parent = np.empty(capacity, dtype=np.int64)
    leaf_cost = np.empty(capacity)
    bound = np.empty(capacity)
    decided = np.zeros(capacity, dtype=np.bool_)
    ys = fit_targets(y)
    ws = w.copy()
    first = np.empty(m, dtype=np.int64)
    second = np.empty(m, dtype=np.int64)
    n_lanes = buffers.left.shape[0]
    # The fit's own feature-major copy of its samples' codes, partitioned node by node: a node's
    # codes of a feature are one contiguous run, which every scan reads in order. Features with
    # many codes are kept in sorted runs instead, partitioned stably.
    local_codes, varies = _gather_codes(codes, rows, n_bins)
    if with_runs is not None:
        runs = make_runs(local_codes, n_bins, ys, ws, n_lanes, m * n_all >= PARALLEL_WORK, threaded)
        runs_other = other_buffer(runs)
    else:
        runs = no_runs(n_bins.shape[0], local_codes, ys, ws)
        runs_other = runs
    has_runs = runs.sid.shape[0] > 0
    position_sid = np.arange(m if has_runs else 0)
    goes_left = np.zeros(m if has_runs else 0, dtype=np.bool_)
    total_w = 0.0
    for i in range(m):
        total_w += w[i]
    kept = np.zeros(n_all, dtype=np.int64)
    results = _new_results(n_all)
    # Stored histograms: one slot per pending node that has them, features side by side.
    offsets = _histogram_offsets(n_bins, runs.row)
    entries = offsets[n_bins.shape[0]] * K
    stored_min = m + 1
    if 0 < entries <= STORED_MAX_ENTRIES:
        stored_min = STORED_SAMPLES_PER_ENTRY * entries / max(n_all, 1)
    subsets = np.zeros((capacity if categorical is not None else 0, SUBSET_WORDS), dtype=np.uint64)
    rank = np.zeros((0, 0), dtype=np.int64)
    saved = np.empty(0, dtype=local_codes.dtype)
    # With categorical features: the numeric candidates of a node and the categorical ones, apart,
    # each with its position among the node's candidates.
    split_features = np.empty((2, n_all), dtype=np.int64)
    split_at = np.empty((2, n_all), dtype=np.int64)
    numeric_results = _new_results(n_all)
    if categorical is not None:
        # A categorical feature keeps the fit's own codes (its histograms are stored and subtracted
        # as a numeric feature's); each node's ordering of its categories is in rank.
        rank = np.zeros((n_bins.shape[0], np.max(n_bins) + 1), dtype=np.int64)
        saved = np.empty(m, dtype=local_codes.dtype)
    scratch = _category_scratch(n_bins, K, categorical)
    # Categorical features keep their histograms for a node's larger child where sums are exact.
    keeps_categories = False
    if categorical is not None:
        keeps_categories = _exact_histograms(ys, ws, squared)
    pool = _new_pool(entries, offsets[n_bins.shape[0]], n_bins.shape[0])
    # Nodes are numbered as they are created and renumbered depth-first at the end.
    stack = _new_stack(n_all)
    zero = np.int64(0)  # int64, not literal, arguments: numba compiles a kernel again for literal ones
    _node_totals(ys, ws, zero, m, value, zero, squared)
    parent[0] = -1
    leaf_cost[0] = _leaf_cost(value, 0, total_w, alpha, squared)
    bound[0] = min(leaf_cost[0], alpha + alpha)
    n_candidates = 0
    for fi in range(n_all):
        if n_bins[feature_order[fi]] > 1 and varies[feature_order[fi]]:
            kept[n_candidates] = feature_order[fi]
            n_candidates += 1
    stack = _push(stack, zero, zero, zero, m, zero, np.int64(-1), kept, np.int64(n_candidates))
    top = 0 if _stops(value, 0, m, 0, max_depth, alpha, total_w, squared) else 1
    n_nodes = 1
    while top > 0:
        top -= 1
        entry = stack.nodes[top]
        node, start, end, depth, slot = entry[0], entry[1], entry[2], entry[3], entry[4]
        cut_above = False
        a = parent[node]
        while a >= 0 and not cut_above:
            cut_above = decided[a]
            a = parent[a]
        w_node = _node_weight(value, node, squared)
        n = end - start
        is_leaf = cut_above
        # The node's runs, and those of its children (sorted_runs: double-buffered).
        node_runs = buffer_of_depth(runs, runs_other, depth)
        child_runs = buffer_of_depth(runs, runs_other, depth + 1)
        data = Data(local_codes, ys, ws, n_bins, bin_min, bin_max, missing_code, node_runs, squared)
        if not is_leaf:
            features = stack.features[top]
            n_features = stack.n_features[top]
            parallel = n * n_features >= PARALLEL_WORK
            if slot >= 0:
                op = SCAN_STORED
            elif n >= stored_min:
                op = FILL_AND_SCAN
                pool, slot = _take_slot(pool)
            else:
                op = SCAN
            if categorical is None:
                _on_features(
                    op,
                    parallel,
                    threaded,
                    with_runs,
                    data,
                    NodeRange(start, end, value[node], w_node),
                    features,
                    n_features,
                    results,
                    buffers,
                    Stored(pool.hist, pool.counts, pool.bounds, slot, offsets),
                )
            else:
                # The numeric features with their stored histograms, the categorical ones in Breiman's
                # ordering of the node's categories (their histograms stored alike); their results at
                # the features' positions, so ties break as in one scan.
                n_kind = np.zeros(2, dtype=np.int64)
                for fi in range(n_features):
                    kind = 1 if categorical[features[fi]] else 0
                    split_features[kind, n_kind[kind]] = features[fi]
                    split_at[kind, n_kind[kind]] = fi
                    n_kind[kind] += 1
                if n_kind[0] > 0:
                    _on_features(
                        op,
                        parallel,
                        threaded,
                        with_runs,
                        data,
                        NodeRange(start, end, value[node], w_node),
                        split_features[0],
                        n_kind[0],
                        numeric_results,
                        buffers,
                        Stored(pool.hist, pool.counts, pool.bounds, slot, offsets),
                    )
                    for j in range(n_kind[0]):
                        fi = split_at[0, j]
                        results.proxies[fi] = numeric_results.proxies[j]
                        results.codes[fi] = numeric_results.codes[j]
                        results.next_codes[fi] = numeric_results.next_codes[j]
                        results.missing_left[fi] = numeric_results.missing_left[j]
                _scan_categories(
                    local_codes, categorical, features, split_at[1], n_kind[1], ys, ws, start, end, n_bins,
                    missing_code, K, value[node], w_node, op == FILL_AND_SCAN, pool, slot if keeps_categories else -1,
                    offsets, scratch, rank, results, squared, not keeps_categories,
                )  # fmt: skip
            f, code, thr, direction, n_kept = _best_of(
                features, n_features, results, kept, bin_min, bin_max, missing_code
            )
            is_leaf = f < 0
        if is_leaf:
            _release_slot(pool, slot)
            if alpha > 0.0 and not cut_above and parent[node] >= 0:
                bound[node] = leaf_cost[node]
                _tighten(parent[node], left, right, parent, leaf_cost, bound, decided)
            continue
        feature[node] = f
        threshold[node] = thr
        split_ranks = False  # a categorical split: the partition reads the ranks of its categories
        if categorical is not None:
            if categorical[f]:
                threshold[node] = np.nan
                _write_subset(subsets, node, rank, f, code, n_bins, missing_code, bin_min)
                _to_ranks(local_codes, f, rank, missing_code[f], start, end, saved)
                split_ranks = True
        missing = missing_code[f] if direction == 1 else np.int64(-1)  # the code that goes left too
        if with_runs is not None:
            if has_runs:
                mark_left(node_runs, local_codes, position_sid, start, end, f, code, missing, goes_left)
        mid, n_swaps = _split_samples(
            data, position_sid, goes_left, start, end, f, code, missing, first, second, with_runs
        )
        if split_ranks:  # the pairs to swap are found: the feature's own codes back, swapped with the others
            _own_codes(local_codes, f, start, end, saved)
        n_left = mid - start
        if direction == NO_MISSING:
            missing_left[node] = n_left > end - mid
        else:
            missing_left[node] = direction
        left[node] = n_nodes
        right[node] = n_nodes + 1
        for child, c_start, c_end in ((n_nodes, start, mid), (n_nodes + 1, mid, end)):
            _node_totals(ys, ws, c_start, c_end, value, child, squared)
            parent[child] = node
            leaf_cost[child] = _leaf_cost(value, child, total_w, alpha, squared)
        n_nodes += 2
        grow_left = not _stops(value, left[node], n_left, depth + 1, max_depth, alpha, total_w, squared)
        grow_right = not _stops(value, right[node], end - mid, depth + 1, max_depth, alpha, total_w, squared)
        # A leaf costs leaf_cost; a split node has two leaves or more, each costing alpha or more.
        for child, grows in ((left[node], grow_left), (right[node], grow_right)):
            bound[child] = min(leaf_cost[child], alpha + alpha) if grows else leaf_cost[child]
        if alpha > 0.0:
            _tighten(node, left, right, parent, leaf_cost, bound, decided)
        if decided[node] or not (grow_left or grow_right):
            # Pruning will cut this split, or both children are leaves already: their codes are
            # never read, so they are not partitioned.
            _release_slot(pool, slot)
            continue
        _split_codes(data, kept, n_kept, first, second, n_swaps, parallel, n_lanes, threaded)
        if with_runs is not None:
            if has_runs:
                partition_runs(
                    node_runs, child_runs, kept, n_kept, start, mid, end, goes_left, n_lanes, parallel, threaded
                )
        # The larger child inherits the node's stored histograms, minus the smaller child's samples.
        left_slot = -1
        right_slot = -1
        if slot >= 0:
            left_larger = n_left >= end - mid
            if left_larger and grow_left and n_left >= stored_min:
                left_slot = slot
            elif not left_larger and grow_right and end - mid >= stored_min:
                right_slot = slot
            else:
                _release_slot(pool, slot)
        if left_slot >= 0 or right_slot >= 0:
            s_start, s_end = (mid, end) if left_slot >= 0 else (start, mid)
            _on_features(
                np.int64(SUBTRACT),
                parallel,
                threaded,
                with_runs,
                data,
                NodeRange(s_start, s_end, value[node], w_node),
                kept,
                n_kept,
                results,
                buffers,
                Stored(pool.hist, pool.counts, pool.bounds, slot, offsets),
            )
        # Right first, so the left child is grown first. A child that stops is a leaf already.
        if grow_right:
            stack = _push(stack, top, n_nodes - 1, mid, end, depth + 1, right_slot, kept, n_kept)
            top += 1
        if grow_left:
            stack = _push(stack, top, n_nodes - 2, start, mid, depth + 1, left_slot, kept, n_kept)
            top += 1
    left, right, feature, threshold, missing_left, value, subsets = _preorder(
        left, right, feature, threshold, missing_left, value, subsets, n_nodes
    )
    return left, right, feature, threshold, missing_left, value, total_w, subsets


@kernel
def prune_tree(left, right, value, total_w, alpha, squared):
    """Minimal cost-complexity pruning for the tree's criterion: the splits the smallest subtree
    minimising ``R(T) + alpha * |leaves|`` keeps (:func:`tnt.learn.pruning.kept_splits`)."""
    as_leaf = np.empty(left.shape[0])
    for node in range(left.shape[0]):
        as_leaf[node] = _leaf_cost(value, node, total_w, alpha, squared)  # W_t * impurity(t) / W + alpha
    return kept_splits(left, right, as_leaf, alpha)


@kernel
def pruned_tree(left, right, feature, threshold, missing_left, value, total_w, alpha, squared, subsets):
    """The tree grown by :func:`build_tree` after :func:`prune_tree`, as compact arrays numbered
    depth-first: (children_left, children_right, feature, threshold, label, mean, missing_left), and
    the weight its leaves misclassify. For the Gini impurity the label is the class of largest weight
    at leaves and -1 at splits, ``mean`` is empty, and the misclassified weight is that of the samples
    of other classes than their leaf's label (the tree's training error, in the fit's weights); for
    the squared error the label is -1, ``mean`` the weighted mean target of every node and the
    misclassified weight 0. Last, the kept nodes' rows of ``subsets`` (none when it has none)."""
    split = prune_tree(left, right, value, total_w, alpha, squared)
    new_id, count = preorder_ids(left, right, split)
    n = left.shape[0]
    out_left = np.full(count, -1, dtype=np.int64)
    out_right = np.full(count, -1, dtype=np.int64)
    out_feature = np.full(count, -2, dtype=np.int64)
    out_threshold = np.full(count, -2.0)
    out_missing_left = np.zeros(count, dtype=np.uint8)
    label = np.full(count, -1, dtype=np.int64)
    mean = np.empty(count if squared is not None else 0)
    out_subsets = np.zeros((count if subsets.shape[0] else 0, SUBSET_WORDS), dtype=np.uint64)
    misclassified = 0.0
    for node in range(n):
        i = new_id[node]
        if i < 0:
            continue
        if squared is not None:
            mean[i] = value[node, 1] / value[node, 0]
        if split[node]:
            out_left[i] = new_id[left[node]]
            out_right[i] = new_id[right[node]]
            out_feature[i] = feature[node]
            out_threshold[i] = threshold[node]
            out_missing_left[i] = missing_left[node]
            if subsets.shape[0]:
                for k in range(SUBSET_WORDS):
                    out_subsets[i, k] = subsets[node, k]
        elif squared is None:
            label[i] = np.argmax(value[node])
            misclassified += _node_weight(value, node, squared) - value[node, label[i]]
    return out_left, out_right, out_feature, out_threshold, label, mean, out_missing_left, misclassified, out_subsets
