"""A compiled CART learner on binned features: the micro-tree learner of TnT.

It grows a Gini tree depth-first exactly as scikit-learn's ``DecisionTreeClassifier`` does (best
split over all features, thresholds at the midpoint of two consecutive values present in the node,
at least one sample per child), then applies minimal cost-complexity pruning (:func:`prune_tree`).
What makes it fast without changing the pruned tree:

* split search (:mod:`tnt.learn.split_search`) uses per-node class histograms over the feature codes
  (:mod:`tnt.learn.binning`) rather than sorting every feature at every node; a node with few samples
  visits only the codes present;
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

from tnt.learn.split_search import (
    FILL_AND_SCAN,
    PARALLEL_WORK,
    SCAN,
    SCAN_STORED,
    SUBTRACT,
    _best_of,
    _on_features,
    buffer_classes,
    make_buffers,
)

__all__ = ["build_tree", "buffer_classes", "make_buffers", "prune_tree"]

EPSILON = np.finfo(np.float64).eps


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
    """``R(t) + alpha`` for a node kept as a leaf: its weighted Gini impurity as a share of the
    tree's weight, plus ``alpha``. Growth bounds and :func:`prune_tree` compute it alike."""
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
        as_leaf = _leaf_cost(value, node, total_w, alpha)  # W_t * gini(t) / W + alpha
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
