"""A compiled squared-error CART on binned features: the micro-tree learner of TnT regression.

It grows a tree depth-first as scikit-learn's ``DecisionTreeRegressor`` does (best split over all
features by the squared-error proxy ``S_l^2 / W_l + S_r^2 / W_r``, thresholds at the midpoint of
two consecutive values present in the node, at least one sample per child, a node whose impurity
is at most machine epsilon stays a leaf), then applies minimal cost-complexity pruning.

The features arrive as the codes of :mod:`tnt.learn.binning`. Each fit sorts its samples once per
feature by code and keeps, for every node, each feature's samples as a sorted run; a split
partitions every run stably, so no node sorts again (work per tree level is proportional to
samples times features).

Growth stops below a node whose weighted impurity ``R(t) = W_t * impurity(t) / W`` is at most
``alpha``: a branch survives pruning only when it lowers ``R`` by more than ``alpha`` per added
leaf, and it cannot lower it by more than ``R(t)``. This never changes the pruned tree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnt.learn.binning import BinnedData
from tnt.learn.compiled import kernel
from tnt.learn.micro_tree import NO_DEPTH_LIMIT, TreeArrays
from tnt.learn.pruning import kept_splits, preorder_ids
from tnt.learn.split_search import _threshold

__all__ = ["RegressionTree", "fit_regression_tree"]

EPSILON = np.finfo(np.float64).eps


@dataclass(frozen=True)
class RegressionTree(TreeArrays):
    """A fitted regression micro tree, nodes numbered depth-first from the root (id 0); ``value``
    holds the weighted mean target of the training samples at every node."""

    value: np.ndarray


@kernel
def _node_stats(order, start, end, lw, lwy, lwyy):
    w = 0.0
    s = 0.0
    q = 0.0
    for i in range(start, end):
        j = order[i]
        w += lw[j]
        s += lwy[j]
        q += lwyy[j]
    return w, s, q


@kernel
def _stable_order(codes_f, n_codes, out, scratch):
    """Write to ``out`` the permutation that sorts ``codes_f`` stably (``np.argsort`` with
    ``kind="stable"``): a counting sort on the low byte of the codes, then one on the high byte
    when some code is 256 or more (codes are below 65,536). Linear in the number of samples."""
    m = codes_f.shape[0]
    wide = n_codes > 256
    first = scratch if wide else out
    counts = np.zeros(257, dtype=np.int64)
    for i in range(m):
        counts[(codes_f[i] & 255) + 1] += 1
    for b in range(256):
        counts[b + 1] += counts[b]
    for i in range(m):
        b = codes_f[i] & 255
        first[counts[b]] = i
        counts[b] += 1
    if not wide:
        return
    counts[:] = 0
    for i in range(m):
        counts[(codes_f[i] >> 8) + 1] += 1
    for b in range(256):
        counts[b + 1] += counts[b]
    for k in range(m):
        i = scratch[k]
        b = codes_f[i] >> 8
        out[counts[b]] = i
        counts[b] += 1


@kernel
def _best_split(sorted_idx, lc, active, n_active, start, end, lw, lwy, w_node, s_node):
    """Best split of node start:end: (proxy, feature, last code going left, next code), proxy ``-inf``
    when every feature is constant in the node. Features are tried in the order of ``active``; the
    first of several equal proxies wins."""
    best = -np.inf
    best_f = -1
    best_code = -1
    best_next = -1
    for a in range(n_active):
        f = active[a]
        run = sorted_idx[f]
        codes = lc[f]
        if codes[run[start]] == codes[run[end - 1]]:
            continue
        wl = 0.0
        sl = 0.0
        for i in range(start, end - 1):
            j = run[i]
            wl += lw[j]
            sl += lwy[j]
            c = codes[j]
            c_next = codes[run[i + 1]]
            if c == c_next:
                continue
            wr = w_node - wl
            if wr <= 0.0:  # the rest weighs nothing against the node's total, up to rounding
                continue
            sr = s_node - sl
            proxy = sl * sl / wl + sr * sr / wr
            if proxy > best:
                best = proxy
                best_f = f
                best_code = c
                best_next = c_next
    return best, best_f, best_code, best_next


@kernel(inline="always")
def _stops(w, s, q, size, depth, max_depth, total_w, alpha):
    """Whether a node of weight ``w``, weighted target sum ``s`` and weighted sum of squares ``q``
    stays a leaf: too small, too deep, pure up to rounding, or unable to survive pruning."""
    impurity = q / w - (s / w) * (s / w)
    return size < 2 or depth >= max_depth or impurity <= EPSILON or w * impurity / total_w <= alpha


@kernel
def _partition(sorted_idx, lc, active, first, n_active, start, end, f, code, buffer):
    """Split the sorted runs of start:end of features ``active[first:n_active]`` stably into codes of
    ``f`` <= ``code`` and the rest. Returns the number of samples going left."""
    split_codes = lc[f]
    n_left = 0
    for a in range(first, n_active):
        run = sorted_idx[active[a]]
        k_left = start
        k_right = 0
        for i in range(start, end):
            j = run[i]
            if split_codes[j] <= code:
                run[k_left] = j
                k_left += 1
            else:
                buffer[k_right] = j
                k_right += 1
        for i in range(k_right):
            run[k_left + i] = buffer[i]
        n_left = k_left - start
    return n_left


@kernel
def build_regression_tree(codes, feature_order, rows, y, w, n_bins, bin_min, bin_max, alpha, max_depth):
    """Grow a squared-error tree on the samples ``rows`` (targets ``y``, weights ``w`` aligned with them).

    Returns the node arrays in preorder (children, feature, threshold), each node's weight, weighted
    target sum and weighted sum of squared targets, and the total weight.
    """
    m = rows.shape[0]
    n_features = n_bins.shape[0]
    lw = np.empty(m)
    lwy = np.empty(m)
    lwyy = np.empty(m)
    for i in range(m):
        lw[i] = w[i]
        lwy[i] = w[i] * y[i]
        lwyy[i] = w[i] * y[i] * y[i]
    # Features that vary in this fit, in the order they are tried.
    lc = np.zeros((n_features, m), dtype=np.int32)
    sorted_idx = np.zeros((n_features, m), dtype=np.int32)
    active = np.empty(n_features, dtype=np.int64)
    n_active = 0
    buffer = np.empty(m, dtype=np.int32)
    for k in range(feature_order.shape[0]):
        f = feature_order[k]
        if n_bins[f] <= 1:
            continue
        codes_f = lc[f]
        lo = np.int32(codes[rows[0], f]) if m else 0
        varies = False
        for i in range(m):
            c = np.int32(codes[rows[i], f])
            codes_f[i] = c
            varies = varies or c != lo
        if not varies:
            continue
        _stable_order(codes_f, n_bins[f], sorted_idx[f], buffer)
        active[n_active] = f
        n_active += 1

    capacity = max(2 * m - 1, 1)
    left = np.full(capacity, -1, dtype=np.int64)
    right = np.full(capacity, -1, dtype=np.int64)
    feature = np.full(capacity, -2, dtype=np.int64)
    threshold = np.full(capacity, -2.0)
    node_w = np.zeros(capacity)
    node_s = np.zeros(capacity)
    node_q = np.zeros(capacity)

    # The sorted run of the first active feature (or identity) gives each node's samples.
    base = np.arange(m).astype(np.int32)
    total_w, _, _ = _node_stats(base, 0, m, lw, lwy, lwyy)

    # Stack entries: start, end, depth, parent, is_left. Nodes get ids when popped: a preorder.
    stack = np.empty((capacity + 1, 5), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = 0, m, 0, -1, 0
    top = 1
    n_nodes = 0
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
        run = sorted_idx[active[0]] if n_active > 0 else base
        wt, st, qt = _node_stats(run, start, end, lw, lwy, lwyy)
        node_w[node], node_s[node], node_q[node] = wt, st, qt
        if _stops(wt, st, qt, end - start, depth, max_depth, total_w, alpha):
            continue
        proxy, f, code, next_code = _best_split(sorted_idx, lc, active, n_active, start, end, lw, lwy, wt, st)
        if proxy == -np.inf:
            continue
        # The first run gives the children's statistics; the others are partitioned only for a child
        # that grows (a leaf reads no run but the first).
        n_left = _partition(sorted_idx, lc, active, 0, 1, start, end, f, code, buffer)
        mid = start + n_left
        w_l, s_l, q_l = _node_stats(run, start, mid, lw, lwy, lwyy)
        w_r, s_r, q_r = _node_stats(run, mid, end, lw, lwy, lwyy)
        if not (
            _stops(w_l, s_l, q_l, n_left, depth + 1, max_depth, total_w, alpha)
            and _stops(w_r, s_r, q_r, end - mid, depth + 1, max_depth, total_w, alpha)
        ):
            _partition(sorted_idx, lc, active, 1, n_active, start, end, f, code, buffer)
        feature[node] = f
        threshold[node] = _threshold(bin_max[f, code], bin_min[f, next_code])
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4] = (
            start + n_left,
            end,
            depth + 1,
            node,
            0,
        )
        stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3], stack[top + 1, 4] = (
            start,
            start + n_left,
            depth + 1,
            node,
            1,
        )
        top += 2
    return (
        left[:n_nodes],
        right[:n_nodes],
        feature[:n_nodes],
        threshold[:n_nodes],
        node_w[:n_nodes],
        node_s[:n_nodes],
        node_q[:n_nodes],
        total_w,
    )


@kernel
def prune_regression_tree(left, right, node_w, node_s, node_q, total_w, alpha):
    """Minimal cost-complexity pruning for the squared error, with ``R(t) = W_t * impurity(t) / W``
    as scikit-learn computes it: the splits :func:`tnt.learn.pruning.kept_splits` keeps."""
    as_leaf = np.empty(left.shape[0])
    for node in range(left.shape[0]):
        wt = node_w[node]
        mean = node_s[node] / wt
        as_leaf[node] = wt * (node_q[node] / wt - mean * mean) / total_w + alpha
    return kept_splits(left, right, as_leaf, alpha)


def fit_regression_tree(
    data: BinnedData, feature_order, rows, y, sample_weight, alpha: float, max_depth: int = NO_DEPTH_LIMIT
) -> RegressionTree:
    """Fit a squared-error CART on the samples ``rows`` and prune it with minimal cost-complexity pruning.

    Parameters
    ----------
    data, feature_order, rows, sample_weight :
        As in :func:`tnt.learn.micro_tree.fit_micro_tree`.
    y : ndarray of float, aligned with ``rows``
    alpha : float
        scikit-learn's ``ccp_alpha`` in units of ``y`` squared: a split survives when it lowers the
        weighted squared error, divided by this tree's total weight, by more than ``alpha`` per
        added leaf.
    max_depth : int, optional

    Returns
    -------
    RegressionTree
    """
    left, right, feature, threshold, w, s, q, total_w = build_regression_tree(
        data.codes,
        np.ascontiguousarray(feature_order, dtype=np.int64),
        np.ascontiguousarray(rows, dtype=np.int64),
        np.ascontiguousarray(y, dtype=np.float64),
        np.ascontiguousarray(sample_weight, dtype=np.float64),
        data.n_bins,
        data.bin_min,
        data.bin_max,
        float(alpha),
        int(max_depth),
    )
    split = prune_regression_tree(left, right, w, s, q, total_w, float(alpha))
    new_id, _ = preorder_ids(left, right, split)
    kept = np.flatnonzero(new_id >= 0)
    is_split = split[kept]
    return RegressionTree(
        children_left=np.where(is_split, new_id[left[kept]], -1),
        children_right=np.where(is_split, new_id[right[kept]], -1),
        feature=np.where(is_split, feature[kept], -2).astype(np.intp),
        threshold=np.where(is_split, threshold[kept], -2.0),
        value=s[kept] / w[kept],
    )
