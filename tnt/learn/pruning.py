"""Minimal cost-complexity pruning, whatever a micro tree's criterion: the learner gives each node's
cost as a leaf, ``R(t) + alpha`` (``R`` its criterion's weighted impurity as a share of the tree's
weight), and these kernels find the subtree minimising ``R(T) + alpha * |leaves|`` and number its
nodes. Trees arrive numbered in preorder (creation order), each child after its parent."""

from __future__ import annotations

import numpy as np

from tnt.learn.compiled import kernel

__all__ = ["kept_splits", "preorder_ids"]


@kernel
def kept_splits(left, right, as_leaf, alpha):
    """Whether each node stays a split in the smallest subtree minimising ``R(T) + alpha * |leaves|``,
    given ``as_leaf[t] = R(t) + alpha``; with ``alpha == 0`` every split stays."""
    n = left.shape[0]
    best = np.zeros(n)
    keep = np.zeros(n, dtype=np.bool_)
    for node in range(n - 1, -1, -1):
        if left[node] < 0:
            best[node] = as_leaf[node]
            continue
        branch = best[left[node]] + best[right[node]]
        if alpha == 0.0 or branch < as_leaf[node]:
            best[node] = branch
            keep[node] = True
        else:
            best[node] = as_leaf[node]
    return keep


@kernel
def preorder_ids(left, right, split):
    """Each node's id in the pruned tree (-1 when cut) and the pruned tree's size.

    The nodes kept are those whose ancestors are all kept splits; the survivors in increasing id
    order are a preorder of the pruned tree.
    """
    n = left.shape[0]
    present = np.zeros(n, dtype=np.bool_)
    present[0] = True
    new_id = np.full(n, -1, dtype=np.int64)
    count = 0
    for node in range(n):
        if present[node]:
            new_id[node] = count
            count += 1
            if split[node]:
                present[left[node]] = True
                present[right[node]] = True
    return new_id, count
