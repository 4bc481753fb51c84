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
from numba import njit

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
def _best_split(codes, feature_order, rows, y, w, samples, start, end, n_classes, n_bins, bin_min, bin_max,
                total, w_node, hist, bin_count, left_counts, scratch):
    """Best split of samples[start:end]: (feature, last code going left, threshold, proxy)."""
    n = end - start
    best_proxy = -np.inf
    best_feature = -1
    best_code = -1
    best_threshold = 0.0
    n_features = codes.shape[0]
    for fi in range(n_features):
        f = feature_order[fi]
        if n_bins[f] <= 1:
            continue
        cf = codes[f]
        lo = n_bins[f]
        hi = -1
        for i in range(start, end):
            c = np.int64(cf[rows[samples[i]]])
            if c < lo:
                lo = c
            if c > hi:
                hi = c
        if lo == hi:
            continue
        span = hi - lo + 1
        if span <= 4 * n + 64:
            # Histogram over the node's code range.
            for b in range(span):
                bin_count[b] = 0
                for k in range(n_classes):
                    hist[b, k] = 0.0
            for i in range(start, end):
                s = samples[i]
                b = np.int64(cf[rows[s]]) - lo
                hist[b, y[s]] += w[s]
                bin_count[b] += 1
            for k in range(n_classes):
                left_counts[k] = 0.0
            w_left = 0.0
            prev = -1
            for b in range(span):
                if bin_count[b] == 0:
                    continue
                if prev >= 0:
                    proxy = _proxy(left_counts, total, w_left, w_node)
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_feature = f
                        best_code = prev + lo
                        best_threshold = _threshold(bin_max[f, prev + lo], bin_min[f, b + lo])
                for k in range(n_classes):
                    left_counts[k] += hist[b, k]
                    w_left += hist[b, k]
                prev = b
        else:
            # Few samples over a wide code range: sort them instead.
            for i in range(n):
                scratch[i] = np.int64(cf[rows[samples[start + i]]])
            order = np.argsort(scratch[:n], kind="mergesort")
            for k in range(n_classes):
                left_counts[k] = 0.0
            w_left = 0.0
            for j in range(n):
                s = samples[start + order[j]]
                c = scratch[order[j]]
                if j > 0 and c != scratch[order[j - 1]]:
                    proxy = _proxy(left_counts, total, w_left, w_node)
                    if proxy > best_proxy:
                        prev_code = scratch[order[j - 1]]
                        best_proxy = proxy
                        best_feature = f
                        best_code = prev_code
                        best_threshold = _threshold(bin_max[f, prev_code], bin_min[f, c])
                left_counts[y[s]] += w[s]
                w_left += w[s]
    return best_feature, best_code, best_threshold


@njit(cache=True, nogil=True)
def build_tree(codes, feature_order, rows, y, w, n_classes, n_bins, bin_min, bin_max, alpha, max_depth):
    """Grow a Gini tree on the samples ``rows`` (targets ``y``, weights ``w``, aligned with rows).

    Returns the node arrays (children, feature, threshold, weighted class counts), nodes numbered in
    the order scikit-learn's depth-first builder creates them, before pruning.
    """
    m = rows.shape[0]
    capacity = 2 * m + 1
    left = np.full(capacity, -1, dtype=np.int64)
    right = np.full(capacity, -1, dtype=np.int64)
    feature = np.full(capacity, -2, dtype=np.int64)
    threshold = np.full(capacity, -2.0)
    value = np.zeros((capacity, n_classes))
    samples = np.arange(m)
    total_w = 0.0
    for i in range(m):
        total_w += w[i]
    widest = 1
    for f in range(n_bins.shape[0]):
        widest = max(widest, n_bins[f])
    hist = np.zeros((min(widest, 4 * m + 64), n_classes))
    bin_count = np.zeros(min(widest, 4 * m + 64), dtype=np.int64)
    left_counts = np.zeros(n_classes)
    scratch = np.zeros(m, dtype=np.int64)
    # Stack of pending nodes: start, end, depth, parent, is_left.
    stack = np.zeros((capacity, 5), dtype=np.int64)
    top = 0
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = 0, m, 0, -1, 0
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
        f, code, thr = _best_split(codes, feature_order, rows, y, w, samples, start, end, n_classes, n_bins, bin_min,
                                   bin_max, total, w_node, hist, bin_count, left_counts, scratch)
        if f < 0:
            continue
        # Partition samples[start:end]: codes <= code go left.
        cf = codes[f]
        i = start
        j = end - 1
        while i <= j:
            if np.int64(cf[rows[samples[i]]]) <= code:
                i += 1
            else:
                tmp = samples[i]
                samples[i] = samples[j]
                samples[j] = tmp
                j -= 1
        feature[node] = f
        threshold[node] = thr
        # Right first, so the left child is created (and numbered) first.
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4] = i, end, depth + 1, node, 0
        top += 1
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4] = start, i, depth + 1, node, 1
        top += 1
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
