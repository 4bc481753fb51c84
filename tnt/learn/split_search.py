"""Best-split search of the micro-tree learner (:mod:`tnt.learn.tree_builder`).

For each candidate feature of a node, the class histogram of the node's codes is built and its
codes are visited in increasing order, every boundary between two codes present being a
candidate split scored with scikit-learn's Gini proxy. A histogram is built from the node's
samples (two interleaved copies for many samples per code, a bitmap of the codes present for few,
a sorted list of them for few samples over very many codes), or kept for a large node and
reused, less the smaller child's samples, by its larger child.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# de Bruijn sequence and table: index of the lowest set bit of a 64-bit word.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_TABLE[(((1 << _i) * 0x03F79D71B4CB0A89) & (2**64 - 1)) >> 58] = _i


@njit(cache=True, nogil=True, inline="always")
def _lowest_bit(x):
    """Index of the lowest set bit of the nonzero uint64 ``x``."""
    low = x & (~x + np.uint64(1))
    return _DEBRUIJN_TABLE[(low * _DEBRUIJN) >> np.uint64(58)]


@njit(cache=True, nogil=True, inline="always")
def _threshold(low_value, high_value):
    # scikit-learn's rule: the midpoint in float64, unless rounding makes it equal the upper value.
    t = np.float64(low_value) / 2.0 + np.float64(high_value) / 2.0
    if t == np.float64(high_value) or np.isinf(t):
        t = np.float64(low_value)
    return t


@njit(cache=True, nogil=True, inline="always")
def _proxy(left_counts, total, n_classes, w_left, w_node):
    """scikit-learn's proxy of the Gini improvement of a split (larger is better), up to a constant."""
    sq_left = 0.0
    sq_right = 0.0
    for k in range(n_classes):
        sq_left += left_counts[k] * left_counts[k]
        r = total[k] - left_counts[k]
        sq_right += r * r
    return sq_left / w_left + sq_right / (w_node - w_left)


@njit(cache=True, nogil=True, inline="always")
def _accumulate(cf, ys, ws, start, end, K, h0, h1, c0, c1):
    """Add positions start:end to the class histograms and counts of one feature, even and odd
    samples apart so that consecutive samples with the same code (pixels are mostly 0) do not wait
    on each other's stores. Returns the smallest and largest code seen."""
    lo = np.int64(cf[start])
    hi = lo
    i = start
    while i + 1 < end:
        b0 = np.int64(cf[i])
        b1 = np.int64(cf[i + 1])
        h0[b0 * K + ys[i]] += ws[i]
        c0[b0] += 1
        h1[b1 * K + ys[i + 1]] += ws[i + 1]
        c1[b1] += 1
        lo = min(lo, min(b0, b1))
        hi = max(hi, max(b0, b1))
        i += 2
    if i < end:
        b0 = np.int64(cf[i])
        h0[b0 * K + ys[i]] += ws[i]
        c0[b0] += 1
        lo = min(lo, b0)
        hi = max(hi, b0)
    return lo, hi


@njit(cache=True, nogil=True, inline="always")
def _candidate(best, prev, b, f, left, total, K, w_left, w_node, bin_min, bin_max):
    """``best`` (proxy, last code going left, threshold) updated with the split between the codes
    present ``prev`` (the last going left; -1 before the first code) and ``b``."""
    if prev < 0:
        return best
    proxy = _proxy(left, total, K, w_left, w_node)
    if proxy > best[0]:
        return proxy, prev, _threshold(bin_max[f, prev], bin_min[f, b])
    return best


@njit(cache=True, nogil=True, inline="always")
def _move_code(b, K, h0, h1, left, w_left, hist, base):
    """Move code ``b``'s class weights from the scratch histograms (cleared) to the left side of a
    split, storing them at ``hist[base:base + K]`` too when ``base >= 0``. Returns the new weight
    on the left."""
    for k in range(K):
        v = h0[b * K + k] + h1[b * K + k]
        if base >= 0:
            hist[base + k] = v
        left[k] += v
        w_left += v
        h0[b * K + k] = 0.0
        h1[b * K + k] = 0.0
    return w_left


@njit(cache=True, nogil=True)
def _scan_feature(cf, nb, f, ys, ws, start, end, K, bin_min, bin_max, total, w_node,
                  h0, h1, c0, c1, bits, touched, left):
    """Best split of positions start:end on one feature: (proxy, last code going left, threshold).

    The histograms ``h0``/``h1`` (bins * K), counts ``c0``/``c1`` and ``bits`` are zero on entry
    and are left that way. The proxy is ``-inf`` when the feature is constant in the node.
    """
    n = end - start
    best = (-np.inf, -1, 0.0)
    for k in range(K):
        left[k] = 0.0
    w_left = 0.0
    prev = -1
    if n >= 2 * nb:
        # Many samples per code: histograms over the whole range of codes.
        lo, hi = _accumulate(cf, ys, ws, start, end, K, h0, h1, c0, c1)
        for b in range(lo, hi + 1):
            if c0[b] + c1[b] == 0:
                continue
            best = _candidate(best, prev, b, f, left, total, K, w_left, w_node, bin_min, bin_max)
            w_left = _move_code(b, K, h0, h1, left, w_left, h0, -1)
            c0[b] = 0
            c1[b] = 0
            prev = b
        return best
    if nb <= 64 * bits.shape[0]:
        # Few samples: mark the codes present in a bitmap and visit them in order.
        lo_word = nb
        hi_word = 0
        for i in range(start, end):
            b = np.int64(cf[i])
            h0[b * K + ys[i]] += ws[i]
            word = b >> 6
            bits[word] |= np.uint64(1) << np.uint64(b & 63)
            lo_word = min(lo_word, word)
            hi_word = max(hi_word, word)
        for word in range(lo_word, hi_word + 1):
            x = bits[word]
            bits[word] = 0
            while x != 0:
                b = word * 64 + _lowest_bit(x)
                x &= x - np.uint64(1)
                best = _candidate(best, prev, b, f, left, total, K, w_left, w_node, bin_min, bin_max)
                w_left = _move_code(b, K, h0, h1, left, w_left, h0, -1)
                prev = b
        return best
    # Few samples and very many codes: list the codes present and sort them.
    present = 0
    for i in range(start, end):
        b = np.int64(cf[i])
        if c0[b] == 0:
            touched[present] = b
            present += 1
        c0[b] += 1
        h0[b * K + ys[i]] += ws[i]
    for b in np.sort(touched[:present]):
        best = _candidate(best, prev, b, f, left, total, K, w_left, w_node, bin_min, bin_max)
        w_left = _move_code(b, K, h0, h1, left, w_left, h0, -1)
        c0[b] = 0
        prev = b
    return best


@njit(cache=True, nogil=True)
def _fill_and_scan(cf, f, ys, ws, start, end, K, bin_min, bin_max, total, w_node, h0, h1, c0, c1, left,
                   hist, counts, off, bounds):
    """:func:`_scan_feature` for a node that keeps its histograms: they are written to bins
    ``off + lo .. off + hi`` of the stored histogram, ``(lo, hi)`` (the range of codes present) to
    ``bounds``. Leaves the scratch histograms zeroed."""
    best = (-np.inf, -1, 0.0)
    for k in range(K):
        left[k] = 0.0
    w_left = 0.0
    prev = -1
    lo, hi = _accumulate(cf, ys, ws, start, end, K, h0, h1, c0, c1)
    bounds[0] = lo
    bounds[1] = hi
    for b in range(lo, hi + 1):
        count = c0[b] + c1[b]
        counts[off + b] = count
        if count == 0:
            continue
        best = _candidate(best, prev, b, f, left, total, K, w_left, w_node, bin_min, bin_max)
        w_left = _move_code(b, K, h0, h1, left, w_left, hist, (off + b) * K)
        c0[b] = 0
        c1[b] = 0
        prev = b
    return best


@njit(cache=True, nogil=True)
def _scan_stored(hist, counts, off, bounds, f, K, bin_min, bin_max, total, w_node, left):
    """Best split on one feature from its stored histogram, codes ``bounds[0] .. bounds[1]`` (a
    range holding every code present), which is left unchanged: (proxy, last code going left,
    threshold), the proxy ``-inf`` for a constant feature."""
    best = (-np.inf, -1, 0.0)
    for k in range(K):
        left[k] = 0.0
    w_left = 0.0
    prev = -1
    for b in range(bounds[0], bounds[1] + 1):
        if counts[off + b] == 0:
            continue
        best = _candidate(best, prev, b, f, left, total, K, w_left, w_node, bin_min, bin_max)
        base = (off + b) * K
        for k in range(K):
            v = hist[base + k]
            left[k] += v
            w_left += v
        prev = b
    return best


@njit(cache=True, nogil=True)
def _subtract_samples(cf, ys, ws, start, end, K, hist, counts, off):
    """Remove positions start:end from a stored histogram of one feature."""
    for i in range(start, end):
        b = off + np.int64(cf[i])
        hist[b * K + ys[i]] -= ws[i]
        counts[b] -= 1


SCAN, FILL_AND_SCAN, SCAN_STORED, SUBTRACT = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _feature_work(op, lane, n_lanes, data, node, features, n_features, results, buffers, stored):
    """One step on features lane, lane + n_lanes, ... of ``features[:n_features]``:

    * ``SCAN``: best split of the node, histograms built in the scratch ``buffers``;
    * ``FILL_AND_SCAN``: the same, keeping the histograms in the node's stored slot;
    * ``SCAN_STORED``: the same from the histograms already in the slot;
    * ``SUBTRACT``: remove the node's positions from the histograms in the slot.

    ``data`` is (codes, targets, weights, n_bins, bin_min, bin_max), ``node`` (start, end, class
    weights, total weight), ``results`` (proxies, last codes going left, thresholds) per candidate,
    ``stored`` (histograms, counts, code ranges, slot, feature offsets); ``SCAN`` uses no slot.
    """
    codes, ys, ws, n_bins, bin_min, bin_max = data
    start, end, total, w_node = node
    proxies, codes_out, thresholds = results
    slot_hist, slot_counts, slot_bounds, slot, offsets = stored
    K = total.shape[0]
    scratch_hist, scratch_counts, bits, touched, left = buffers
    h0 = scratch_hist[lane, 0]
    h1 = scratch_hist[lane, 1]
    c0 = scratch_counts[lane, 0]
    c1 = scratch_counts[lane, 1]
    bl = bits[lane]
    tl = touched[lane]
    ll = left[lane]
    if op != SCAN:
        hist = slot_hist[slot]
        counts = slot_counts[slot]
        bounds = slot_bounds[slot]
    for fi in range(lane, n_features, n_lanes):
        f = features[fi]
        if op == SUBTRACT:
            _subtract_samples(codes[f], ys, ws, start, end, K, hist, counts, offsets[f])
            continue
        if op == SCAN:
            result = _scan_feature(codes[f], n_bins[f], f, ys, ws, start, end, K, bin_min, bin_max, total,
                                   w_node, h0, h1, c0, c1, bl, tl, ll)
        elif op == FILL_AND_SCAN:
            result = _fill_and_scan(codes[f], f, ys, ws, start, end, K, bin_min, bin_max, total, w_node,
                                    h0, h1, c0, c1, ll, hist, counts, offsets[f], bounds[f])
        else:
            result = _scan_stored(hist, counts, offsets[f], bounds[f], f, K, bin_min, bin_max, total, w_node, ll)
        proxies[fi], codes_out[fi], thresholds[fi] = result


@njit(cache=True, nogil=True, parallel=True)
def _feature_work_in_parallel(op, data, node, features, n_features, results, buffers, stored):
    n_lanes = buffers[0].shape[0]
    for lane in prange(n_lanes):
        _feature_work(op, lane, n_lanes, data, node, features, n_features, results, buffers, stored)


@njit(cache=True, nogil=True)
def _on_features(op, parallel, data, node, features, n_features, results, buffers, stored):
    """:func:`_feature_work` on all lanes of ``buffers`` at once when ``parallel``, else on one."""
    if parallel and buffers[0].shape[0] > 1:
        _feature_work_in_parallel(op, data, node, features, n_features, results, buffers, stored)
    else:
        _feature_work(op, 0, 1, data, node, features, n_features, results, buffers, stored)


BITMAP_WORDS = 16


def buffer_classes(buffers) -> int:
    """The number of classes the buffers made by :func:`make_buffers` can hold."""
    return buffers[4].shape[1]


def make_buffers(n_bins, n_classes, n_lanes):
    """Per-thread histograms and counts (all zeros, and left so by every scan), code bitmaps,
    code lists and class sums."""
    widest = max(int(np.max(n_bins)), 1) if len(n_bins) else 1
    return (
        np.zeros((n_lanes, 2, widest * n_classes)),
        np.zeros((n_lanes, 2, widest), dtype=np.int32),
        np.zeros((n_lanes, BITMAP_WORDS), dtype=np.uint64),
        np.zeros((n_lanes, widest), dtype=np.int64),
        np.zeros((n_lanes, n_classes)),
    )


# A node is split with several threads when it has at least this many (sample, feature) pairs.
PARALLEL_WORK = 200_000


@njit(cache=True, nogil=True)
def _best_of(features, n_features, results, kept):
    """The best scanned split: (feature, last code going left, threshold, number of non-constant
    features); the non-constant features are written, in order, to ``kept`` (a feature constant in
    a node stays constant in its descendants, which therefore never look at it again). Among
    equally good splits the first in the candidate order wins, however many threads scanned them.
    """
    proxies, codes_out, thresholds = results
    best_proxy = -np.inf
    best = -1
    n_kept = 0
    for fi in range(n_features):
        if proxies[fi] == -np.inf:
            continue
        kept[n_kept] = features[fi]
        n_kept += 1
        if proxies[fi] > best_proxy:
            best_proxy = proxies[fi]
            best = fi
    if best < 0:
        return -1, -1, 0.0, n_kept
    return features[best], codes_out[best], thresholds[best], n_kept
