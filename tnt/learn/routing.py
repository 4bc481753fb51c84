"""Compiled routing of samples through a graph given as parallel arrays (``left < 0`` at leaves).

Each sample walks from a start node to a leaf with ``x[feature] <= threshold`` going left, the
comparison made in float64 on float32 inputs exactly as scikit-learn's trees make it. A missing
value (NaN) fails every comparison; where a kernel is given ``missing_left`` (the graph's
``missing_go_to_left``), it goes left at the nodes where that is 1, else right. Inputs of any
other type are routed as they are, against :func:`float32_routing_thresholds`, so that they go where
their float32 cast would go without being converted.
"""

from __future__ import annotations

import numpy as np

from tnt.learn.compiled import kernel

_FLOAT32_OVERFLOW = 2.0**128  # where float32's next number after its largest would be


def float32_routing_thresholds(threshold) -> np.ndarray:
    """Thresholds ``t2`` such that ``x <= t2`` exactly when ``float32(x) <= threshold``, for every float64 ``x``.

    scikit-learn's trees (and TnT) cast samples to float32 before comparing them with float64
    thresholds. A float64 ``x`` compared with ``t2`` goes where that cast sends it, so float64 input
    is routed without converting it; float32 and small-integer values, which the cast leaves
    unchanged, go where they go with ``threshold`` itself.

    Parameters
    ----------
    threshold : array-like of float64

    Returns
    -------
    t2 : ndarray of float64, same shape
        Just below (or at, when the tie rounds down) the rounding boundary between the largest
        float32 number ``<= threshold`` and the next float32 number.

    Examples
    --------
    >>> import numpy as np
    >>> t2 = float32_routing_thresholds(np.array([0.5]))
    >>> x = np.nextafter(0.5, 1.0)  # above 0.5 in float64, 0.5 once cast to float32
    >>> bool(x <= 0.5), bool(np.float32(x) <= 0.5), bool(x <= t2[0])
    (False, True, True)
    """
    t = np.asarray(threshold, dtype=np.float64)
    with np.errstate(over="ignore"):  # beyond float32's range: infinity, dealt with below
        low = t.astype(np.float32)
        low = np.where(low.astype(np.float64) > t, np.nextafter(low, np.float32(-np.inf)), low)  # largest float32 <= t
        up = np.nextafter(low, np.float32(np.inf)).astype(np.float64)
    up[np.isposinf(up)] = _FLOAT32_OVERFLOW
    low64 = low.astype(np.float64)
    low64[np.isneginf(low64)] = -_FLOAT32_OVERFLOW  # t below every finite float32: only -inf is <= t
    up[low64 == -_FLOAT32_OVERFLOW] = -float(np.finfo(np.float32).max)
    middle = (low64 + up) / 2  # exact: float32 numbers have 24-bit significands, float64 53
    # A value exactly in the middle rounds to the float32 number with an even significand.
    rounds_down = (low.view(np.uint32) & 1) == 0
    return np.where(rounds_down, middle, np.nextafter(middle, -np.inf))


# Samples routed together: their independent walks keep several memory loads in flight at once,
# which hides the latency of reading each sample's feature values.
LANES = 16


@kernel
def route_to_leaves(X, rows, start, left, right, feature, threshold, missing_left=None):
    """Leaf reached by each ``X[rows[i]]`` when starting at node ``start``."""
    n = rows.shape[0]
    out = np.empty(n, dtype=np.int64)
    node = np.empty(LANES, dtype=np.int64)
    for block in range(0, n, LANES):
        width = min(LANES, n - block)
        for j in range(width):
            node[j] = start
        active = width
        while active > 0:
            active = 0
            for j in range(width):
                at = node[j]
                if left[at] < 0:
                    continue
                v = np.float64(X[rows[block + j], feature[at]])
                if v <= threshold[at] or (missing_left is not None and v != v and missing_left[at]):
                    at = left[at]
                else:
                    at = right[at]
                node[j] = at
                if left[at] >= 0:
                    active += 1
        for j in range(width):
            out[block + j] = node[j]
    return out


@kernel
def route_past(X, rows, start, stop_below, left, right, feature, threshold, missing_left=None):
    """Walk each ``X[rows[i]]`` from ``start`` until the first node with id below ``stop_below``.

    In a working graph the nodes of a micro tree are numbered after the phase-start nodes, so this
    follows a node's micro tree to the phase-start child it sends the sample to.
    """
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        r = rows[i]
        node = start
        while True:
            v = np.float64(X[r, feature[node]])
            if v <= threshold[node] or (missing_left is not None and v != v and missing_left[node]):
                node = left[node]
            else:
                node = right[node]
            if node < stop_below:
                break
        out[i] = node
    return out


@kernel
def count_directions(X, n_nodes, left, right, feature, threshold, missing_left=None):
    """How many rows of ``X`` each node sends left and right, routing all of them from node 0."""
    went_left = np.zeros(n_nodes, dtype=np.int64)
    went_right = np.zeros(n_nodes, dtype=np.int64)
    for r in range(X.shape[0]):
        node = 0
        while left[node] >= 0:
            v = np.float64(X[r, feature[node]])
            if v <= threshold[node] or (missing_left is not None and v != v and missing_left[node]):
                went_left[node] += 1
                node = left[node]
            else:
                went_right[node] += 1
                node = right[node]
    return went_left, went_right


@kernel
def decision_paths(X, left, right, feature, threshold, missing_left=None):
    """CSR arrays (indptr, indices) of the nodes each row of ``X`` visits, root first."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    for r in range(n):
        node = 0
        length = 1
        while left[node] >= 0:
            v = np.float64(X[r, feature[node]])
            if v <= threshold[node] or (missing_left is not None and v != v and missing_left[node]):
                node = left[node]
            else:
                node = right[node]
            length += 1
        indptr[r + 1] = indptr[r] + length
    indices = np.empty(indptr[n], dtype=np.int64)
    for r in range(n):
        node = 0
        k = indptr[r]
        indices[k] = 0
        while left[node] >= 0:
            v = np.float64(X[r, feature[node]])
            if v <= threshold[node] or (missing_left is not None and v != v and missing_left[node]):
                node = left[node]
            else:
                node = right[node]
            k += 1
            indices[k] = node
    return indptr, indices


@kernel
def edge_statistics(X, y, w, n_classes, left, right, feature, threshold, missing_left=None):
    """Weighted class counts each node sends left (``[:, 0]``) and right (``[:, 1]``), and the
    number of samples and weighted class counts reaching each node, routing every row of ``X``
    (class indices ``y``, weights ``w``) from node 0."""
    n_nodes = left.shape[0]
    sent = np.zeros((n_nodes, 2, n_classes))
    value = np.zeros((n_nodes, n_classes))
    counts = np.zeros(n_nodes, dtype=np.int64)
    for r in range(X.shape[0]):
        k = y[r]
        weight = w[r]
        node = 0
        while True:
            counts[node] += 1
            value[node, k] += weight
            if left[node] < 0:
                break
            v = np.float64(X[r, feature[node]])
            if v <= threshold[node] or (missing_left is not None and v != v and missing_left[node]):
                sent[node, 0, k] += weight
                node = left[node]
            else:
                sent[node, 1, k] += weight
                node = right[node]
    return sent, value, counts


_STAGE_BYTES = 1 << 17  # rows are staged through a float32 buffer of this size, which stays in cache
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def walk_tables(left, right, feature) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tables :func:`route_float32_cast` walks: each node's children side by side (left at
    ``2 * node``, right at ``2 * node + 1``), a leaf being both children of itself; each node's
    feature (0 at leaves, so that a step from a leaf reads a real value and stays there); and
    whether each node is a leaf (1) or not (0)."""
    left, right = np.asarray(left), np.asarray(right)
    is_leaf = left < 0
    nodes = np.arange(left.size)
    children = np.stack([np.where(is_leaf, nodes, left), np.where(is_leaf, nodes, right)], axis=1)
    return (
        np.ascontiguousarray(children.ravel(), dtype=np.int64),
        np.where(is_leaf, 0, feature).astype(np.int64),
        is_leaf.astype(np.uint8),
    )


@kernel(inline="always")
def _step(row, node, children, feature, threshold):
    """The child of ``node`` that ``row`` goes to (a leaf goes to itself), without a branch."""
    return children[2 * node + np.int64(np.float64(row[feature[node]]) > threshold[node])]


@kernel
def route_float32_cast(X, children, feature, is_leaf, threshold):
    """Leaf reached from node 0 by each row of ``X`` cast to float32, and whether every value of
    ``X`` is finite and within float32's range (when not, the leaves are meaningless: a missing
    value is then routed by the kernels that take ``missing_left``).

    ``children``, ``feature`` and ``is_leaf`` are :func:`walk_tables`. Rows are cast a block at a
    time into a buffer that stays in cache, read in order: the input is read once and never copied
    whole, and the walks, twice as deep in a TnT graph as in CART, read the cache rather than
    memory. Four walks go at once, each step choosing its child by index rather than by a branch,
    and a walk at its leaf stepping in place, so that neither a hard-to-predict comparison nor the
    end of one walk costs a pipeline flush; the only branch is whether all four have ended.
    """
    n, d = X.shape
    out = np.empty(n, dtype=np.int64)
    block = max(4, _STAGE_BYTES // (4 * max(d, 1)))
    buffer = np.empty((block, d), dtype=np.float32)
    for start in range(0, n, block):
        stop = min(n, start + block)
        fine = True
        for i in range(start, stop):
            for f in range(d):
                v = np.float64(X[i, f])
                fine &= abs(v) <= _FLOAT32_MAX  # NaN fails this too
                buffer[i - start, f] = np.float32(v)
        if not fine:
            return out, False
        i = start
        while i < stop:
            r0 = buffer[i - start]
            r1 = buffer[min(i + 1, stop - 1) - start]  # past the end: walks the last row again
            r2 = buffer[min(i + 2, stop - 1) - start]
            r3 = buffer[min(i + 3, stop - 1) - start]
            a = b = c = e = 0
            while not (is_leaf[a] & is_leaf[b] & is_leaf[c] & is_leaf[e]):
                a = _step(r0, a, children, feature, threshold)
                b = _step(r1, b, children, feature, threshold)
                c = _step(r2, c, children, feature, threshold)
                e = _step(r3, e, children, feature, threshold)
            out[i] = a
            if i + 1 < stop:
                out[i + 1] = b
            if i + 2 < stop:
                out[i + 2] = c
            if i + 3 < stop:
                out[i + 3] = e
            i += 4
    return out, True
