"""A compiled CART learner on binned features: the micro-tree learner of TnT.

It grows a Gini tree depth-first exactly as scikit-learn's ``DecisionTreeClassifier`` does (best
split over all features, thresholds at the midpoint of two consecutive values present in the node,
at least one sample per child), then applies minimal cost-complexity pruning (:func:`prune_tree`).
What makes it fast without changing the pruned tree:

* split search uses per-node class histograms over the feature codes (:mod:`tnt._binning`) rather
  than sorting every feature at every node; a node with few samples visits only the codes present;
* each fit copies its samples' codes feature-major, and a split swaps the misplaced pairs of its
  node's positions, so every node reads each feature as one contiguous run, and a split costs in
  proportion to its smaller side (random reads into the training matrix made most of the cost of
  the first version);
* a large node keeps its histograms, and its larger child inherits them minus the smaller child's
  samples (histogram subtraction), so only the smaller child's samples are read again;
* growth stops where pruning is sure to cut: below a node whose weighted impurity
  ``R(t) = W_t / W * gini(t)`` is at most ``alpha`` (a branch survives only when it lowers ``R`` by
  more than ``alpha`` per added leaf, and it cannot lower it by more than ``R(t)``), and below a
  split whose subtree cannot beat the split node as a leaf, judged from lower bounds on the pruned
  cost of every pending subtree (a branch and bound; :func:`_tighten`).

Ties between equally good splits may be broken differently from scikit-learn, which visits
features in a random order. With non-integer weights, histogram subtraction can change the last
bits of a sum, which only matters between splits that are equally good up to rounding.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

EPSILON = np.finfo(np.float64).eps

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


@njit(cache=True, nogil=True)
def _gather_codes(codes, rows, n_bins):
    """Feature-major copy of the codes of ``rows`` from the sample-major matrix ``codes``.

    One-byte codes in rows padded to a multiple of eight bytes are moved eight samples by eight
    features at a time: eight 64-bit words read, one from each sample, and each feature's byte
    picked out of them. Otherwise rows are copied in blocks of 64 samples, so that each is read
    from memory once (constant features are skipped).
    """
    n_features = n_bins.shape[0]
    m = rows.shape[0]
    local_codes = np.empty((n_features, m), dtype=codes.dtype)
    done = 0
    if codes.itemsize == 1 and codes.shape[1] % 8 == 0:
        words = codes.view(np.uint64)
        done = m - m % 8
        word = np.empty(8, dtype=np.uint64)
        for i0 in range(0, done, 8):
            for wf in range((n_features + 7) // 8):
                for j in range(8):
                    word[j] = words[rows[i0 + j], wf]
                for byte in range(min(8, n_features - 8 * wf)):
                    shift = np.uint64(8 * byte)
                    lf = local_codes[8 * wf + byte]
                    for j in range(8):
                        lf[i0 + j] = (word[j] >> shift) & np.uint64(255)
    for i0 in range(done, m, 64):
        i1 = min(m, i0 + 64)
        for f in range(n_features):
            if n_bins[f] > 1:
                lf = local_codes[f]
                for i in range(i0, i1):
                    lf[i] = codes[rows[i], f]
    return local_codes


@njit(cache=True, nogil=True)
def _split_positions(cf, code, start, end, first, second):
    """Pair the positions that are on the wrong side of a split of start:end (codes <= ``code``
    go left): ``first[:n]`` are positions before the split point that go right, ``second[:n]``
    positions after it that go left. Returns (split point, n)."""
    n_left = 0
    for i in range(start, end):
        n_left += np.int64(cf[i]) <= code
    mid = start + n_left
    n_first = 0
    for i in range(start, mid):
        first[n_first] = i
        n_first += np.int64(cf[i]) > code
    n_second = 0
    for i in range(mid, end):
        second[n_second] = i
        n_second += np.int64(cf[i]) <= code
    return mid, n_first


@njit(cache=True, nogil=True)
def _swap_features(lane, n_lanes, codes, features, n_features, first, second, n_swaps):
    """Swap the codes at positions ``first[k]`` and ``second[k]`` of the given features' rows."""
    for fi in range(lane, n_features, n_lanes):
        row = codes[features[fi]]
        for k in range(n_swaps):
            i = first[k]
            j = second[k]
            row[i], row[j] = row[j], row[i]


@njit(cache=True, nogil=True, parallel=True)
def _swap_features_in_parallel(codes, features, n_features, first, second, n_swaps, n_lanes):
    for lane in prange(n_lanes):
        _swap_features(lane, n_lanes, codes, features, n_features, first, second, n_swaps)


@njit(cache=True, nogil=True)
def _partition(codes, ys, ws, start, end, f, code, features, n_features, first, second, parallel, n_lanes):
    """Partition positions start:end (codes of ``f`` <= ``code`` first) of the code rows of
    ``features``, the targets and the weights, by swapping the misplaced pairs: the cost follows the
    smaller side, not the node. Returns the first position of the right part."""
    mid, n_swaps = _split_positions(codes[f], code, start, end, first, second)
    for k in range(n_swaps):
        i = first[k]
        j = second[k]
        ys[i], ys[j] = ys[j], ys[i]
        ws[i], ws[j] = ws[j], ws[i]
    if parallel and n_lanes > 1:
        _swap_features_in_parallel(codes, features, n_features, first, second, n_swaps, n_lanes)
    else:
        _swap_features(0, 1, codes, features, n_features, first, second, n_swaps)
    return mid


@njit(cache=True, nogil=True, inline="always")
def _leaf_cost(value, node, total_w, alpha):
    """``R(t) + alpha`` for a node kept as a leaf, computed exactly as :func:`prune_tree` does."""
    w_node = 0.0
    sq = 0.0
    for k in range(value.shape[1]):
        w_node += value[node, k]
        sq += value[node, k] * value[node, k]
    return (w_node - sq / w_node) / total_w + alpha


@njit(cache=True, nogil=True)
def _class_totals(ys, ws, start, end, value, node):
    for k in range(value.shape[1]):
        value[node, k] = 0.0
    for i in range(start, end):
        value[node, ys[i]] += ws[i]


@njit(cache=True, nogil=True, inline="always")
def _stops(value, node, n, depth, max_depth, alpha, total_w):
    """Whether a node is a leaf without looking at its features: too few samples, pure, at the
    depth limit, or so small that cost-complexity pruning would remove any split below it."""
    if n < 2 or depth >= max_depth:
        return True
    w_node = 0.0
    sq = 0.0
    for k in range(value.shape[1]):
        w_node += value[node, k]
        sq += value[node, k] * value[node, k]
    gini = 1.0 - sq / (w_node * w_node)
    return gini <= EPSILON or (alpha > 0.0 and w_node / total_w * gini <= alpha)


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _preorder(left, right, feature, threshold, value, n_nodes):
    """The node arrays renumbered depth-first, left child first, as scikit-learn numbers them."""
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
    new_id[order] = np.arange(n_nodes)
    new_left = np.full(n_nodes, -1, dtype=np.int64)
    new_right = np.full(n_nodes, -1, dtype=np.int64)
    for i in range(n_nodes):
        x = order[i]
        if left[x] >= 0:
            new_left[i] = new_id[left[x]]
            new_right[i] = new_id[right[x]]
    return new_left, new_right, feature[order], threshold[order], value[order]


@njit(cache=True, nogil=True)
def _more_slots(slot_hist, slot_counts, slot_bounds):
    """The stored-histogram arrays with room for twice as many slots (plus two), and the new slots."""
    old = slot_hist.shape[0]
    new = 2 * old + 2
    grown_hist = np.empty((new, slot_hist.shape[1]))
    grown_hist[:old] = slot_hist
    grown_counts = np.empty((new, slot_counts.shape[1]), dtype=slot_counts.dtype)
    grown_counts[:old] = slot_counts
    grown_bounds = np.empty((new, slot_bounds.shape[1], 2), dtype=slot_bounds.dtype)
    grown_bounds[:old] = slot_bounds
    return grown_hist, grown_counts, grown_bounds, np.arange(old, new)


# A node keeps its class histograms (so that its larger child inherits them minus the smaller
# child's samples) when it has at least this many samples per histogram entry of a feature.
STORED_SAMPLES_PER_ENTRY = 1.0
# Largest stored histogram, in entries: wider data scans every node directly.
STORED_MAX_ENTRIES = 1 << 22


@njit(cache=True, nogil=True)
def build_tree(codes, feature_order, rows, y, w, n_classes, n_bins, bin_min, bin_max, alpha, max_depth, buffers):
    """Grow a Gini tree on the samples ``rows`` (targets ``y``, weights ``w``, aligned with rows).

    ``codes`` is the sample-major code matrix; ``buffers`` is the per-thread workspace made by
    :func:`make_buffers`, reused across fits.

    Returns the node arrays (children, feature, threshold, weighted class counts), nodes numbered in
    the order scikit-learn's depth-first builder creates them. With ``alpha > 0`` a node is left
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
    value = np.zeros((capacity, n_classes))
    parent = np.empty(capacity, dtype=np.int64)
    leaf_cost = np.empty(capacity)
    bound = np.empty(capacity)
    decided = np.zeros(capacity, dtype=np.bool_)
    ys = y.copy()
    ws = w.copy()
    first = np.empty(m, dtype=np.int64)
    second = np.empty(m, dtype=np.int64)
    n_lanes = buffers[0].shape[0]
    # The fit's own feature-major copy of its samples' codes, partitioned node by node: a node's
    # codes of a feature are one contiguous run, which every scan reads in order.
    local_codes = _gather_codes(codes, rows, n_bins)
    total_w = 0.0
    for i in range(m):
        total_w += w[i]
    kept = np.zeros(n_all, dtype=np.int64)
    proxies = np.empty(n_all)
    codes_out = np.empty(n_all, dtype=np.int64)
    thresholds = np.empty(n_all)
    results = (proxies, codes_out, thresholds)
    data = (local_codes, ys, ws, n_bins, bin_min, bin_max)
    # Stored histograms: one slot per pending node that has them, features side by side.
    offsets = np.zeros(n_bins.shape[0] + 1, dtype=np.int64)
    for f in range(n_bins.shape[0]):
        offsets[f + 1] = offsets[f] + (n_bins[f] if n_bins[f] > 1 else 0)
    entries = offsets[n_bins.shape[0]] * K
    stored_min = m + 1
    if 0 < entries <= STORED_MAX_ENTRIES:
        stored_min = STORED_SAMPLES_PER_ENTRY * entries / max(n_all, 1)
    slot_hist = np.empty((0, entries))
    slot_counts = np.empty((0, offsets[n_bins.shape[0]]), dtype=np.int32)
    slot_bounds = np.empty((0, n_bins.shape[0], 2), dtype=np.int64)
    free_slots = np.empty(0, dtype=np.int64)
    n_free = 0
    # Stack of pending nodes (node, start, end, depth, slot) with each one's candidate features.
    # A depth-first stack holds at most depth + 1 entries; it grows when needed. Nodes are numbered
    # as they are created and renumbered depth-first at the end.
    stack_cap = 16
    stack = np.zeros((stack_cap, 5), dtype=np.int64)
    stack_features = np.empty((stack_cap, n_all), dtype=np.int64)
    stack_n_features = np.zeros(stack_cap, dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = 0, 0, m, 0, -1
    _class_totals(ys, ws, 0, m, value, 0)
    parent[0] = -1
    leaf_cost[0] = _leaf_cost(value, 0, total_w, alpha)
    bound[0] = min(leaf_cost[0], alpha + alpha)
    n_candidates = 0
    for fi in range(n_all):
        if n_bins[feature_order[fi]] > 1:
            stack_features[0, n_candidates] = feature_order[fi]
            n_candidates += 1
    stack_n_features[0] = n_candidates
    top = 0 if _stops(value, 0, m, 0, max_depth, alpha, total_w) else 1
    n_nodes = 1
    while top > 0:
        top -= 1
        node, start, end, depth, slot = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4]
        cut_above = False
        a = parent[node]
        while a >= 0 and not cut_above:
            cut_above = decided[a]
            a = parent[a]
        w_node = 0.0
        for k in range(K):
            w_node += value[node, k]
        n = end - start
        is_leaf = cut_above
        if not is_leaf:
            features = stack_features[top]
            n_features = stack_n_features[top]
            parallel = n * n_features >= PARALLEL_WORK
            if slot >= 0:
                op = SCAN_STORED
            elif n >= stored_min:
                op = FILL_AND_SCAN
                if n_free == 0:
                    slot_hist, slot_counts, slot_bounds, free_slots = _more_slots(slot_hist, slot_counts, slot_bounds)
                    n_free = free_slots.shape[0]
                n_free -= 1
                slot = free_slots[n_free]
            else:
                op = SCAN
            _on_features(op, parallel, data, (start, end, value[node], w_node), features, n_features, results,
                         buffers, (slot_hist, slot_counts, slot_bounds, slot, offsets))
            f, code, thr, n_kept = _best_of(features, n_features, results, kept)
            is_leaf = f < 0
        if is_leaf:
            if slot >= 0:
                free_slots[n_free] = slot
                n_free += 1
            if alpha > 0.0 and not cut_above and parent[node] >= 0:
                bound[node] = leaf_cost[node]
                _tighten(parent[node], left, right, parent, leaf_cost, bound, decided)
            continue
        feature[node] = f
        threshold[node] = thr
        mid = _partition(local_codes, ys, ws, start, end, f, code, kept, n_kept, first, second, parallel, n_lanes)
        n_left = mid - start
        left[node] = n_nodes
        right[node] = n_nodes + 1
        for child, c_start, c_end in ((n_nodes, start, mid), (n_nodes + 1, mid, end)):
            _class_totals(ys, ws, c_start, c_end, value, child)
            parent[child] = node
            leaf_cost[child] = _leaf_cost(value, child, total_w, alpha)
        n_nodes += 2
        grow_left = not _stops(value, left[node], n_left, depth + 1, max_depth, alpha, total_w)
        grow_right = not _stops(value, right[node], end - mid, depth + 1, max_depth, alpha, total_w)
        # A leaf costs leaf_cost; a split node has two leaves or more, each costing alpha or more.
        for child, grows in ((left[node], grow_left), (right[node], grow_right)):
            bound[child] = min(leaf_cost[child], alpha + alpha) if grows else leaf_cost[child]
        if alpha > 0.0:
            _tighten(node, left, right, parent, leaf_cost, bound, decided)
        if decided[node]:
            # Pruning will cut this split: its children stay leaves.
            if slot >= 0:
                free_slots[n_free] = slot
                n_free += 1
            continue
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
                free_slots[n_free] = slot
                n_free += 1
        if left_slot >= 0 or right_slot >= 0:
            s_start, s_end = (mid, end) if left_slot >= 0 else (start, mid)
            _on_features(SUBTRACT, parallel, data, (s_start, s_end, value[node], w_node), kept, n_kept, results,
                         buffers, (slot_hist, slot_counts, slot_bounds, slot, offsets))
        if top + 2 > stack_cap:
            stack_cap *= 2
            grown = np.zeros((stack_cap, 5), dtype=np.int64)
            grown[:top] = stack[:top]
            stack = grown
            grown_features = np.empty((stack_cap, n_all), dtype=np.int64)
            grown_features[:top] = stack_features[:top]
            stack_features = grown_features
            grown_n = np.zeros(stack_cap, dtype=np.int64)
            grown_n[:top] = stack_n_features[:top]
            stack_n_features = grown_n
        # Right first, so the left child is grown first. A child that stops is a leaf already.
        for child, c_start, c_end, c_slot, grows in (
                (n_nodes - 1, mid, end, right_slot, grow_right), (n_nodes - 2, start, mid, left_slot, grow_left)):
            if grows:
                stack[top, 0], stack[top, 1], stack[top, 2] = child, c_start, c_end
                stack[top, 3], stack[top, 4] = depth + 1, c_slot
                stack_features[top, :n_kept] = kept[:n_kept]
                stack_n_features[top] = n_kept
                top += 1
    left, right, feature, threshold, value = _preorder(left, right, feature, threshold, value, n_nodes)
    return left, right, feature, threshold, value, total_w


@njit(cache=True, nogil=True)
def prune_tree(left, right, value, total_w, alpha):
    """Minimal cost-complexity pruning: the smallest subtree minimising ``R(T) + alpha * |leaves|``."""
    n = left.shape[0]
    best = np.zeros(n)
    keep = np.zeros(n, dtype=np.bool_)
    for node in range(n - 1, -1, -1):
        w_node = 0.0
        sq = 0.0
        for k in range(value.shape[1]):
            w_node += value[node, k]
            sq += value[node, k] * value[node, k]
        r_node = (w_node - sq / w_node) / total_w  # W_t * gini(t) / W
        as_leaf = r_node + alpha
        if left[node] < 0:
            best[node] = as_leaf
            continue
        branch = best[left[node]] + best[right[node]]
        if alpha == 0.0 or branch < as_leaf:
            best[node] = branch
            keep[node] = True
        else:
            best[node] = as_leaf
    return keep
