"""Compiled routing for a grow pass of Algorithm 2, a wave of nodes at a time.

A grow pass visits the nodes of the phase-start graph wave by wave (:func:`tnt.learn.growth._waves`).
Every training sample sits at one phase-start node at a time (``pos``); a node's samples are those
sitting at it, in increasing order, and the node sends each of them, through its new micro tree, to
one of its phase-start children. The kernels here do that bookkeeping for many nodes per call, and
find the sensitive samples of internal nodes (those that the graph classifies correctly from one
child and wrongly from the other).

Finding a sample's prediction from both children of a node means routing it down the graph twice.
Half of that is known already: when the sample's parent node was visited, the sample was routed
from this node through its (previous) micro tree to one of its phase-start children ``a`` and on to a
leaf, and nothing from ``a`` down has changed since (nodes below ``a`` are visited after ``a``'s
parent, in later waves). So each sample carries a *memo*: that child ``a`` and the label reached
from it. Only the route from the other child is walked.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NO_MEMO = -1  # no child known (a pass starts with none): both children are walked
UNKNOWN = -2  # the first phase-start node below the known child is found when the sample moves on


@njit(cache=True, nogil=True)
def bucket_rows(pos, index_of, n_nodes):
    """The samples sitting at the nodes of a wave, grouped by node: ``order[offsets[i]:offsets[i + 1]]``
    are those at the wave's node ``i`` (``index_of[node] == i``, -1 for nodes outside the wave), in
    increasing order."""
    offsets = np.zeros(n_nodes + 1, dtype=np.int64)
    n = pos.shape[0]
    for r in range(n):
        i = index_of[pos[r]]
        if i >= 0:
            offsets[i + 1] += 1
    for i in range(n_nodes):
        offsets[i + 1] += offsets[i]
    order = np.empty(offsets[n_nodes], dtype=np.int64)
    fill = offsets[:n_nodes].copy()
    for r in range(n):
        i = index_of[pos[r]]
        if i >= 0:
            order[fill[i]] = r
            fill[i] += 1
    return order, offsets


@njit(cache=True, nogil=True, inline="always")
def _walk(X, r, start, n_orig, left, right, feature, threshold):
    """(leaf reached by sample ``r`` from ``start``, first phase-start node (id below ``n_orig``)
    passed after leaving ``start``, -1 if none)."""
    node = start
    first = -1
    while left[node] >= 0:
        if np.float64(X[r, feature[node]]) <= threshold[node]:
            node = left[node]
        else:
            node = right[node]
        if first < 0 and node < n_orig:
            first = node
    return node, first


@njit(cache=True, nogil=True, inline="always")
def _first_below(X, r, start, n_orig, graph):
    """The first phase-start node sample ``r`` reaches after leaving ``start`` (-1: a leaf first)
    in ``graph = (left, right, feature, threshold)``."""
    left, right, feature, threshold = graph
    node = start
    while left[node] >= 0:
        if np.float64(X[r, feature[node]]) <= threshold[node]:
            node = left[node]
        else:
            node = right[node]
        if node < n_orig:
            return node
    return -1


@njit(cache=True, nogil=True)
def sensitive_samples(
    X, y, wave, first, stop, start_left, start_right, n_orig, graph, label, memo, found, sensitive, target
):
    """For the samples at the internal nodes ``nodes[first:stop]`` of a wave: ``sensitive[k]``,
    whether the graph classifies sample ``order[k]`` correctly from exactly one of its node's
    phase-start children, and ``target[k]``, 1 when that is the right child.

    ``wave`` is ``(order, offsets, nodes)`` (:func:`bucket_rows`), ``graph`` the working graph's
    ``(left, right, feature, threshold)`` and ``memo`` ``(memo_child, memo_label)`` by sample.
    ``found = (below, reached)`` receives, per position and child (0: left, 1: right), the first
    phase-start node the sample passes below that child (``UNKNOWN`` for the child known from the
    memo) and the label it reaches from it, for :func:`move_samples`.
    """
    order, offsets, nodes = wave
    left, right, feature, threshold = graph
    memo_child, memo_label = memo
    below, reached = found
    for i in range(first, stop):
        v = nodes[i]
        children = (start_left[v], start_right[v])
        if children[0] < 0:
            continue
        for k in range(offsets[i], offsets[i + 1]):
            r = order[k]
            a = memo_child[r]
            for side in range(2):
                c = children[side]
                if c == a:
                    reached[k, side] = memo_label[r]
                    below[k, side] = UNKNOWN
                else:
                    leaf, b = _walk(X, r, c, n_orig, left, right, feature, threshold)
                    reached[k, side] = label[leaf]
                    below[k, side] = b
            left_ok = reached[k, 0] == y[r]
            right_ok = reached[k, 1] == y[r]
            sensitive[k] = left_ok != right_ok
            target[k] = right_ok


@njit(cache=True, nogil=True)
def move_samples(X, wave, first, stop, start_left, n_orig, graph, found, pos, memo):
    """Send the samples at the internal nodes ``nodes[first:stop]`` of a wave through their new
    micro trees to their phase-start children (``pos``), each with its memo for that child, made
    from what :func:`sensitive_samples` ``found``. Arguments as there."""
    below, reached = found
    order, offsets, nodes = wave
    for i in range(first, stop):
        v = nodes[i]
        if start_left[v] < 0:
            continue
        for k in range(offsets[i], offsets[i + 1]):
            r = order[k]
            child = _first_below(X, r, v, n_orig, graph)
            side = 0 if child == start_left[v] else 1
            b = below[k, side]
            if b == UNKNOWN:
                b = _first_below(X, r, child, n_orig, graph)
            pos[r] = child
            memo[0][r] = b
            memo[1][r] = reached[k, side]
