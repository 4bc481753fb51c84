"""Compiled routing of samples through a graph given as parallel arrays (``left < 0`` at leaves).

Each sample walks from a start node to a leaf with ``x[feature] <= threshold`` going left, the
comparison made in float64 on float32 inputs exactly as scikit-learn's trees make it.
"""

from __future__ import annotations

import numpy as np
from numba import njit


# Samples routed together: their independent walks keep several memory loads in flight at once,
# which hides the latency of reading each sample's feature values.
LANES = 16


@njit(cache=True, nogil=True)
def route_to_leaves(X, rows, start, left, right, feature, threshold):
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
                if np.float64(X[rows[block + j], feature[at]]) <= threshold[at]:
                    at = left[at]
                else:
                    at = right[at]
                node[j] = at
                if left[at] >= 0:
                    active += 1
        for j in range(width):
            out[block + j] = node[j]
    return out


@njit(cache=True, nogil=True)
def route_past(X, rows, start, stop_below, left, right, feature, threshold):
    """Walk each ``X[rows[i]]`` from ``start`` until the first node with id below ``stop_below``.

    In a working graph the nodes of a micro tree are numbered after the phase-start nodes, so this
    follows a node's micro tree to the phase-start child it sends the sample to.
    """
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        r = rows[i]
        node = start
        while True:
            if np.float64(X[r, feature[node]]) <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
            if node < stop_below:
                break
        out[i] = node
    return out


@njit(cache=True, nogil=True)
def count_directions(X, n_nodes, left, right, feature, threshold):
    """How many rows of ``X`` each node sends left and right, routing all of them from node 0."""
    went_left = np.zeros(n_nodes, dtype=np.int64)
    went_right = np.zeros(n_nodes, dtype=np.int64)
    for r in range(X.shape[0]):
        node = 0
        while left[node] >= 0:
            if np.float64(X[r, feature[node]]) <= threshold[node]:
                went_left[node] += 1
                node = left[node]
            else:
                went_right[node] += 1
                node = right[node]
    return went_left, went_right


@njit(cache=True, nogil=True)
def decision_paths(X, left, right, feature, threshold):
    """CSR arrays (indptr, indices) of the nodes each row of ``X`` visits, root first."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    for r in range(n):
        node = 0
        length = 1
        while left[node] >= 0:
            if np.float64(X[r, feature[node]]) <= threshold[node]:
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
            if np.float64(X[r, feature[node]]) <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
            k += 1
            indices[k] = node
    return indptr, indices


@njit(cache=True, nogil=True)
def edge_statistics(X, y, w, n_classes, left, right, feature, threshold):
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
            if np.float64(X[r, feature[node]]) <= threshold[node]:
                sent[node, 0, k] += weight
                node = left[node]
            else:
                sent[node, 1, k] += weight
                node = right[node]
    return sent, value, counts
