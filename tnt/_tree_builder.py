"""A compiled CART learner on binned features: the micro-tree learner of TnT.

It grows a Gini tree depth-first exactly as scikit-learn's ``DecisionTreeClassifier`` does (best
split over all features, thresholds at the midpoint of two consecutive values present in the node,
at least one sample per child), then applies minimal cost-complexity pruning. Two things make it
fast without changing the result:

* split search uses per-node class histograms over the feature codes (:mod:`tnt._binning`) rather
  than sorting every feature at every node; a node whose code range is much wider than its sample
  count is sorted instead;
* a node whose weighted impurity ``R(t) = W_t / W * gini(t)`` is at most ``alpha`` is not split:
  cost-complexity pruning removes every split below such a node (a branch survives only when it
  lowers ``R`` by more than ``alpha`` per added leaf, and it cannot lower it by more than ``R(t)``).

Ties between equally good splits may be broken differently from scikit-learn, which visits
features in a random order.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

EPSILON = np.finfo(np.float64).eps


@njit(cache=True, nogil=True)
def _threshold(low_value, high_value):
    # scikit-learn's rule: the midpoint in float64, unless rounding makes it equal the upper value.
    t = np.float64(low_value) / 2.0 + np.float64(high_value) / 2.0
    if t == np.float64(high_value) or np.isinf(t):
        t = np.float64(low_value)
    return t


@njit(cache=True, nogil=True)
def _proxy(left_counts, total, w_left, w_node):
    """scikit-learn's proxy of the Gini improvement of a split (larger is better), up to a constant."""
    sq_left = 0.0
    sq_right = 0.0
    for k in range(total.shape[0]):
        sq_left += left_counts[k] * left_counts[k]
        r = total[k] - left_counts[k]
        sq_right += r * r
    return sq_left / w_left + sq_right / (w_node - w_left)


@njit(cache=True, nogil=True)
def _insertion_sort(a, n):
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(cache=True, nogil=True)
def _scan_feature(cf, n_bins_f, f, node_rows, y, w, samples, start, end, n_classes, bin_min, bin_max, total,
                  w_node, hist, bin_count, touched, left_counts):
    """Best split of samples[start:end] on one feature: (proxy, last code going left, threshold).

    ``hist`` (2, bins, classes) and ``bin_count`` (2, bins) are all zeros on entry and are left
    that way. The proxy is ``-inf`` when the feature is constant in the node.
    """
    if end - start >= n_bins_f:
        return _scan_dense(cf, f, node_rows, y, w, samples, start, end, n_classes, bin_min, bin_max, total,
                           w_node, hist, bin_count, left_counts)
    return _scan_sparse(cf, f, node_rows, y, w, samples, start, end, n_classes, bin_min, bin_max, total,
                        w_node, hist[0], bin_count[0], touched, left_counts)


@njit(cache=True, nogil=True)
def _scan_dense(cf, f, node_rows, y, w, samples, start, end, n_classes, bin_min, bin_max, total, w_node,
                hist, bin_count, left_counts):
    """Many samples per code: accumulate into two histograms, even and odd samples apart, so that
    consecutive samples with the same code (pixels are mostly 0) do not wait on each other's
    stores; then scan the node's code range."""
    h0, h1, c0, c1 = hist[0], hist[1], bin_count[0], bin_count[1]
    lo = np.int64(cf[node_rows[start]])
    hi = lo
    i = start
    while i + 1 < end:
        s0 = samples[i]
        s1 = samples[i + 1]
        b0 = np.int64(cf[node_rows[i]])
        b1 = np.int64(cf[node_rows[i + 1]])
        h0[b0, y[s0]] += w[s0]
        c0[b0] += 1
        h1[b1, y[s1]] += w[s1]
        c1[b1] += 1
        lo = min(lo, min(b0, b1))
        hi = max(hi, max(b0, b1))
        i += 2
    if i < end:
        s0 = samples[i]
        b0 = np.int64(cf[node_rows[i]])
        h0[b0, y[s0]] += w[s0]
        c0[b0] += 1
        lo = min(lo, b0)
        hi = max(hi, b0)
    best_proxy = -np.inf
    best_code = -1
    best_threshold = 0.0
    for k in range(n_classes):
        left_counts[k] = 0.0
    w_left = 0.0
    prev = -1
    for b in range(lo, hi + 1):
        if c0[b] + c1[b] == 0:
            continue
        if prev >= 0:
            proxy = _proxy(left_counts, total, w_left, w_node)
            if proxy > best_proxy:
                best_proxy = proxy
                best_code = prev
                best_threshold = _threshold(bin_max[f, prev], bin_min[f, b])
        for k in range(n_classes):
            v = h0[b, k] + h1[b, k]
            left_counts[k] += v
            w_left += v
            h0[b, k] = 0.0
            h1[b, k] = 0.0
        c0[b] = 0
        c1[b] = 0
        prev = b
    return best_proxy, best_code, best_threshold


@njit(cache=True, nogil=True)
def _scan_sparse(cf, f, node_rows, y, w, samples, start, end, n_classes, bin_min, bin_max, total, w_node,
                 hist, bin_count, touched, left_counts):
    """Fewer samples than codes: accumulate a class histogram over the codes present and list
    them; only those codes are then sorted and scanned, so the cost follows the node's size."""
    present = 0
    for i in range(start, end):
        s = samples[i]
        b = np.int64(cf[node_rows[i]])
        if bin_count[b] == 0:
            touched[present] = b
            present += 1
        bin_count[b] += 1
        hist[b, y[s]] += w[s]
    best_proxy = -np.inf
    best_code = -1
    best_threshold = 0.0
    if present < 64:
        _insertion_sort(touched, present)
    else:
        touched[:present] = np.sort(touched[:present])
    for k in range(n_classes):
        left_counts[k] = 0.0
    w_left = 0.0
    for j in range(present):
        b = touched[j]
        if j > 0:
            proxy = _proxy(left_counts, total, w_left, w_node)
            if proxy > best_proxy:
                prev = touched[j - 1]
                best_proxy = proxy
                best_code = prev
                best_threshold = _threshold(bin_max[f, prev], bin_min[f, b])
        for k in range(n_classes):
            left_counts[k] += hist[b, k]
            w_left += hist[b, k]
            hist[b, k] = 0.0
        bin_count[b] = 0
    return best_proxy, best_code, best_threshold


@njit(cache=True, nogil=True)
def _scan_features(lane, n_lanes, codes, node_rows, y, w, samples, start, end, n_classes, n_bins, bin_min,
                   bin_max, total, w_node, features, n_features, proxies, codes_out, thresholds, buffers):
    """Scan features lane, lane + n_lanes, ... of the candidate list into the result arrays."""
    hist, bin_count, touched, left_counts = buffers
    for fi in range(lane, n_features, n_lanes):
        f = features[fi]
        proxies[fi], codes_out[fi], thresholds[fi] = _scan_feature(
            codes[f], n_bins[f], f, node_rows, y, w, samples, start, end, n_classes, bin_min, bin_max, total, w_node,
            hist[lane], bin_count[lane], touched[lane], left_counts[lane],
        )


@njit(cache=True, nogil=True, parallel=True)
def _scan_features_in_parallel(codes, node_rows, y, w, samples, start, end, n_classes, n_bins, bin_min,
                               bin_max, total, w_node, features, n_features, proxies, codes_out, thresholds,
                               buffers):
    n_lanes = buffers[0].shape[0]
    for lane in prange(n_lanes):
        _scan_features(lane, n_lanes, codes, node_rows, y, w, samples, start, end, n_classes, n_bins, bin_min,
                       bin_max, total, w_node, features, n_features, proxies, codes_out, thresholds, buffers)


def make_buffers(n_bins, n_classes, n_lanes):
    """Per-thread histograms (all zeros, and left so by every scan), code lists and counts."""
    widest = max(int(np.max(n_bins)), 1) if len(n_bins) else 1
    return (
        np.zeros((n_lanes, 2, widest, n_classes)),
        np.zeros((n_lanes, 2, widest), dtype=np.int64),
        np.zeros((n_lanes, widest), dtype=np.int64),
        np.zeros((n_lanes, n_classes)),
    )


# A node is split with several threads when it has at least this many (sample, feature) pairs.
PARALLEL_WORK = 200_000


@njit(cache=True, nogil=True)
def _best_split(codes, node_rows, y, w, samples, start, end, n_classes, n_bins, bin_min, bin_max, total,
                w_node, features, n_features, kept, buffers, proxies, codes_out, thresholds):
    """Best split of samples[start:end] over ``features[:n_features]``.

    Returns (feature, last code going left, threshold, number of non-constant features); the
    non-constant features are written, in order, to ``kept`` (a feature constant in a node stays
    constant in its descendants, which therefore never look at it again). Among equally good
    splits the first in the candidate order wins, however many threads scanned them.
    """
    if (end - start) * n_features >= PARALLEL_WORK and buffers[0].shape[0] > 1:
        _scan_features_in_parallel(codes, node_rows, y, w, samples, start, end, n_classes, n_bins, bin_min,
                                   bin_max, total, w_node, features, n_features, proxies, codes_out, thresholds,
                                   buffers)
    else:
        _scan_features(0, 1, codes, node_rows, y, w, samples, start, end, n_classes, n_bins, bin_min, bin_max,
                       total, w_node, features, n_features, proxies, codes_out, thresholds, buffers)
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
def _is_identity(rows):
    for i in range(rows.shape[0]):
        if rows[i] != i:
            return False
    return True


@njit(cache=True, nogil=True)
def build_tree(codes, feature_order, rows, y, w, n_classes, n_bins, bin_min, bin_max, alpha, max_depth, buffers):
    """Grow a Gini tree on the samples ``rows`` (targets ``y``, weights ``w``, aligned with rows).

    ``buffers`` is the per-thread workspace made by :func:`make_buffers`, reused across fits.

    Returns the node arrays (children, feature, threshold, weighted class counts), nodes numbered in
    the order scikit-learn's depth-first builder creates them, before pruning.
    """
    m = rows.shape[0]
    n_all = feature_order.shape[0]
    capacity = 2 * m + 1
    left = np.full(capacity, -1, dtype=np.int64)
    right = np.full(capacity, -1, dtype=np.int64)
    feature = np.full(capacity, -2, dtype=np.int64)
    threshold = np.full(capacity, -2.0)
    value = np.zeros((capacity, n_classes))
    samples = np.arange(m)  # positions into rows / y / w, partitioned node by node
    node_rows = np.arange(m)  # positions into local_codes, kept in step with samples
    # The fit's own feature-major copy of its samples' codes: every node then reads short rows
    # that stay in cache, instead of gathering from the whole training matrix.
    if m == codes.shape[1]:
        local_codes = codes[:, rows] if not _is_identity(rows) else codes
    else:
        local_codes = np.empty((codes.shape[0], m), dtype=codes.dtype)
        for f in range(codes.shape[0]):
            cf = codes[f]
            lf = local_codes[f]
            for i in range(m):
                lf[i] = cf[rows[i]]
    total_w = 0.0
    for i in range(m):
        total_w += w[i]
    kept = np.zeros(n_all, dtype=np.int64)
    proxies = np.empty(n_all)
    codes_out = np.empty(n_all, dtype=np.int64)
    thresholds = np.empty(n_all)
    # Stack of pending nodes (start, end, depth, parent, is_left) with each one's candidate features.
    # A depth-first stack holds at most depth + 1 entries; it grows when needed.
    stack_cap = 64
    stack = np.zeros((stack_cap, 5), dtype=np.int64)
    stack_features = np.zeros((stack_cap, n_all), dtype=np.int64)
    stack_n_features = np.zeros(stack_cap, dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = 0, m, 0, -1, 0
    n_candidates = 0
    for fi in range(n_all):
        if n_bins[feature_order[fi]] > 1:
            stack_features[0, n_candidates] = feature_order[fi]
            n_candidates += 1
    stack_n_features[0] = n_candidates
    top = 1
    n_nodes = 0
    total = np.zeros(n_classes)
    while top > 0:
        top -= 1
        start, end, depth, parent, is_left = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4]
        node = n_nodes
        n_nodes += 1
        if parent >= 0:
            if is_left == 1:
                left[parent] = node
            else:
                right[parent] = node
        for k in range(n_classes):
            total[k] = 0.0
        for i in range(start, end):
            s = samples[i]
            total[y[s]] += w[s]
        w_node = 0.0
        sq = 0.0
        for k in range(n_classes):
            w_node += total[k]
            sq += total[k] * total[k]
            value[node, k] = total[k]
        gini = 1.0 - sq / (w_node * w_node)
        if (end - start) < 2 or gini <= EPSILON or depth >= max_depth:
            continue
        if alpha > 0.0 and w_node / total_w * gini <= alpha:
            continue
        f, code, thr, n_kept = _best_split(
            local_codes, node_rows, y, w, samples, start, end, n_classes, n_bins, bin_min, bin_max, total, w_node,
            stack_features[top], stack_n_features[top], kept, buffers, proxies, codes_out, thresholds,
        )
        if f < 0:
            continue
        # Partition samples[start:end]: codes <= code go left.
        cf = local_codes[f]
        i = start
        j = end - 1
        while i <= j:
            if np.int64(cf[node_rows[i]]) <= code:
                i += 1
            else:
                samples[i], samples[j] = samples[j], samples[i]
                node_rows[i], node_rows[j] = node_rows[j], node_rows[i]
                j -= 1
        feature[node] = f
        threshold[node] = thr
        if top + 2 > stack_cap:
            stack_cap *= 2
            grown = np.zeros((stack_cap, 5), dtype=np.int64)
            grown[:top] = stack[:top]
            stack = grown
            grown_features = np.zeros((stack_cap, n_all), dtype=np.int64)
            grown_features[:top] = stack_features[:top]
            stack_features = grown_features
            grown_n = np.zeros(stack_cap, dtype=np.int64)
            grown_n[:top] = stack_n_features[:top]
            stack_n_features = grown_n
        # Right first, so the left child is created (and numbered) first.
        for child, (c_start, c_end, c_left) in enumerate(((i, end, 0), (start, i, 1))):
            entry = top + child
            stack[entry, 0], stack[entry, 1], stack[entry, 2] = c_start, c_end, depth + 1
            stack[entry, 3], stack[entry, 4] = node, c_left
            stack_features[entry, :n_kept] = kept[:n_kept]
            stack_n_features[entry] = n_kept
        top += 2
    return left[:n_nodes], right[:n_nodes], feature[:n_nodes], threshold[:n_nodes], value[:n_nodes], total_w


@njit(cache=True, nogil=True)
def prune_tree(left, right, value, total_w, alpha):
    """Minimal cost-complexity pruning: the smallest subtree minimising ``R(T) + alpha * |leaves|``.

    Returns a boolean mask of the nodes kept as splits (``False`` at leaves and pruned nodes).
    Children always have larger ids than their parent, so one reverse sweep is a bottom-up pass.
    """
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
