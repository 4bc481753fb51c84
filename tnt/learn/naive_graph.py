"""The naive decision graph (the paper's Algorithm 1, after Oliver 1992): greedy splits of leaves
and merges of pairs of leaves, one operation at a time.

The graph minimises the cost-complexity objective ``R(G) + C * |leaves(G)|``, where ``R`` is the
weighted Gini impurity of the leaves as a share of the total training weight (the units of
scikit-learn's ``ccp_alpha`` and of TnT's ``C``). A split turns one leaf into two: its gain is the
impurity it removes less ``C`` (for a tree, ``|leaves| = splits + 1``, so each split pays ``C``, as
the paper says). A merge joins two leaves into one: its gain is ``C`` less the impurity it adds.
Every step applies the operation of largest gain; growth stops when no operation gains anything
(or when no split is allowed any more and no merge gains). The objective strictly decreases, so
growth always ends.
"""

from __future__ import annotations

import heapq
import itertools

import numpy as np

from tnt.categorical import read_codes, subset_table
from tnt.learn.micro_tree import fit_stump, make_workspace
from tnt.learn.tree_builder import SUBSET_WORDS
from tnt.learn.walks import topological_order
from tnt.learn.working_graph import FlatGraph

# Gains at or below this (a share of the total training weight) are rounding noise, not progress.
_MIN_GAIN = 1e-12


def _impurity(counts: np.ndarray, total_weight: float) -> np.ndarray:
    """Weighted Gini impurity of class-weight rows as a share of ``total_weight`` (``W_t * gini_t / W``)."""
    counts = np.atleast_2d(counts)
    w = counts.sum(axis=1)
    safe = np.where(w > 0, w, 1.0)
    return (w - (counts**2).sum(axis=1) / safe) / total_weight


class _Leaves:
    """The active leaves: their samples, class weights, best split and best merge partner."""

    def __init__(self, problem, C: float, merge: bool):
        self.problem = problem
        self.C = C
        self.merge = merge
        self.W = problem.total_weight
        self.K = problem.n_classes
        self.workspace = make_workspace(problem.binned, self.K, 1)
        capacity = 64
        self.rows: dict[int, np.ndarray] = {}
        self.split: dict[int, tuple] = {}
        # Splits by gain after the penalty, largest first, ties to the leaf added first (the order
        # of ``split``); an entry whose leaf was removed or added again since is skipped.
        self._by_gain: list[tuple[float, int, int]] = []
        self._added = itertools.count()
        self._entry: dict[int, int] = {}
        self.counts = np.zeros((capacity, self.K))
        self.R = np.zeros(capacity)
        self.active = np.zeros(capacity, dtype=bool)
        self.merge_gain = np.full(capacity, -np.inf)
        self.merge_with = np.full(capacity, -1, dtype=np.intp)

    # ------------------------------------------------------------------ leaves in and out
    def _reserve(self, node: int) -> None:
        capacity = self.R.shape[0]
        if node < capacity:
            return
        grow = max(capacity, node + 1 - capacity)
        self.counts = np.vstack([self.counts, np.zeros((grow, self.K))])
        self.R = np.concatenate([self.R, np.zeros(grow)])
        self.active = np.concatenate([self.active, np.zeros(grow, dtype=bool)])
        self.merge_gain = np.concatenate([self.merge_gain, np.full(grow, -np.inf)])
        self.merge_with = np.concatenate([self.merge_with, np.full(grow, -1, dtype=np.intp)])

    def add(self, node: int, rows: np.ndarray) -> None:
        p = self.problem
        self._reserve(node)
        self.rows[node] = rows
        self.counts[node] = np.bincount(p.y[rows], weights=p.w[rows], minlength=self.K)
        self.R[node] = _impurity(self.counts[node], self.W)[0]
        self.split[node] = split = self._best_split(node, rows)
        self._entry[node] = order = next(self._added)
        if split is not None:
            heapq.heappush(self._by_gain, (-(split[0] - self.C), order, node))
        if self.merge:
            others = np.flatnonzero(self.active)
            self.merge_gain[node], self.merge_with[node] = -np.inf, -1
            if others.size:
                gains = self._merge_gains(node, others)
                best = int(np.argmax(gains))
                self.merge_gain[node], self.merge_with[node] = gains[best], others[best]
                better = gains > self.merge_gain[others]
                self.merge_gain[others[better]] = gains[better]
                self.merge_with[others[better]] = node
        self.active[node] = True

    def remove(self, *nodes: int) -> None:
        for node in nodes:
            self.active[node] = False
            self.merge_gain[node], self.merge_with[node] = -np.inf, -1
            self.rows.pop(node, None)
            self.split.pop(node, None)
            self._entry.pop(node, None)
        if self.merge:
            stale = np.flatnonzero(self.active & np.isin(self.merge_with, nodes))
            for node in stale:
                self._refresh_partner(int(node))

    def _refresh_partner(self, node: int) -> None:
        others = np.flatnonzero(self.active)
        others = others[others != node]
        if others.size == 0:
            self.merge_gain[node], self.merge_with[node] = -np.inf, -1
            return
        gains = self._merge_gains(node, others)
        best = int(np.argmax(gains))
        self.merge_gain[node], self.merge_with[node] = gains[best], others[best]

    def _merge_gains(self, node: int, others: np.ndarray) -> np.ndarray:
        joined = self.counts[others] + self.counts[node]
        return self.C - (_impurity(joined, self.W) - self.R[others] - self.R[node])

    def _best_split(self, node: int, rows: np.ndarray):
        """(gain before the penalty, feature, threshold, direction for missing values, rows going
        left, rows going right, the subset of categories sent left or None) or None."""
        p = self.problem
        if self.R[node] <= 0.0 or rows.size < 2:
            return None
        stump = fit_stump(p.binned, p.feature_order, rows, p.y[rows], p.w[rows], self.workspace, n_targets=self.K)
        if stump.is_single_leaf:
            return None
        feature, threshold, missing_left = int(stump.feature[0]), float(stump.threshold[0]), int(stump.missing_left[0])
        # Compared in float64, as the graph routes samples.
        x = p.X[rows, feature].astype(np.float64)
        subset = None
        if np.isnan(threshold):  # a categorical split: its subset of category codes goes left
            subset = stump.category_left[0].copy()
            table = subset_table(subset, 64 * subset.shape[0])
            codes = read_codes(x, table.shape[0])
            goes_left = np.where(codes >= 0, table[np.maximum(codes, 0)], missing_left == 1)
        else:
            goes_left = (x <= threshold) | (np.isnan(x) & (missing_left == 1))
        left_rows, right_rows = rows[goes_left], rows[~goes_left]
        left_counts = np.bincount(p.y[left_rows], weights=p.w[left_rows], minlength=self.K)
        children = np.vstack([left_counts, self.counts[node] - left_counts])
        gain = self.R[node] - _impurity(children, self.W).sum()
        return gain, feature, threshold, missing_left, left_rows, right_rows, subset

    # ------------------------------------------------------------------ choosing
    def best_split(self):
        """(gain after the penalty, leaf) of the best split, or (-inf, -1)."""
        heap = self._by_gain
        while heap:
            negative_gain, order, node = heap[0]
            if self._entry.get(node) == order:
                return -negative_gain, node
            heapq.heappop(heap)
        return -np.inf, -1

    def best_merge(self):
        """(gain, leaf, partner) of the best merge, or (-inf, -1, -1)."""
        if not self.merge or not self.active.any():
            return -np.inf, -1, -1
        node = int(np.argmax(np.where(self.active, self.merge_gain, -np.inf)))
        return float(self.merge_gain[node]), node, int(self.merge_with[node])


class _Structure:
    """The graph's nodes; a merged-away leaf or a bypassed split forwards to the node that replaced it."""

    def __init__(self):
        self.left, self.right, self.feature, self.threshold, self.missing_left = [-1], [-1], [-2], [-2.0], [0]
        self.subsets: dict[int, np.ndarray] = {}  # node -> the categories its categorical split sends left
        self.forward = [-1]
        self.parents: list[set[int]] = [set()]
        self.n_splits = 0

    def resolve(self, node: int) -> int:
        while self.forward[node] >= 0:
            node = self.forward[node]
        return node

    def new_leaf(self, parent: int) -> int:
        self.left.append(-1)
        self.right.append(-1)
        self.feature.append(-2)
        self.threshold.append(-2.0)
        self.missing_left.append(0)
        self.forward.append(-1)
        self.parents.append({parent})
        return len(self.left) - 1

    def split(self, node: int, feature: int, threshold: float, missing_left: int, subset=None) -> tuple[int, int]:
        left, right = self.new_leaf(node), self.new_leaf(node)
        if subset is not None:
            self.subsets[node] = subset
        self.left[node], self.right[node] = left, right
        self.feature[node], self.threshold[node], self.missing_left[node] = feature, threshold, missing_left
        self.n_splits += 1
        return left, right

    def merge(self, keep: int, gone: int) -> None:
        """Send every edge into leaf ``gone`` to leaf ``keep``; bypass splits left with one child."""
        self.forward[gone] = keep
        pending = list(self.parents[gone])
        self.parents[keep] |= self.parents[gone]
        self.parents[gone] = set()
        while pending:
            parent = pending.pop()
            if self.forward[parent] >= 0:
                continue
            target = self.resolve(self.left[parent])
            if target == self.resolve(self.right[parent]):
                # Both edges now lead to the same node: the split decides nothing any more.
                self.forward[parent] = target
                self.n_splits -= 1
                self.parents[target].discard(parent)
                self.parents[target] |= self.parents[parent]
                pending.extend(self.parents[parent])
                self.parents[parent] = set()

    def flat(self, labels: dict[int, int]) -> FlatGraph:
        left = np.array([self.resolve(c) if c >= 0 else -1 for c in self.left], dtype=np.intp)
        right = np.array([self.resolve(c) if c >= 0 else -1 for c in self.right], dtype=np.intp)
        order = topological_order(left, right, self.resolve(0))
        new_id = np.full(left.size, -1, dtype=np.intp)
        new_id[order] = np.arange(order.size)
        is_leaf = left[order] < 0
        category_left = None
        if self.subsets:
            category_left = np.zeros((order.size, SUBSET_WORDS), dtype=np.uint64)
            for i, node in enumerate(order.tolist()):
                if not is_leaf[i] and node in self.subsets:
                    category_left[i] = self.subsets[node]
        return FlatGraph(
            children_left=np.where(is_leaf, -1, new_id[left[order]]),
            children_right=np.where(is_leaf, -1, new_id[right[order]]),
            feature=np.where(is_leaf, -2, np.asarray(self.feature, dtype=np.intp)[order]),
            threshold=np.where(is_leaf, -2.0, np.asarray(self.threshold)[order]),
            label=np.array([labels.get(int(n), -1) for n in order], dtype=np.intp),
            missing_go_to_left=np.where(is_leaf, 0, np.asarray(self.missing_left)[order]).astype(np.uint8),
            category_left=category_left,
        )


def grow_naive_graph(problem, C: float, max_splits: int | None = None, merge: bool = True, callback=None) -> FlatGraph:
    """Train a naive decision graph (Algorithm 1) on a validated problem.

    Parameters
    ----------
    problem : tnt.learn.growth._Problem
    C : float
        Penalty per leaf: a split pays it, a merge earns it back.
    max_splits : int or None
        No split is made once the graph has this many.
    merge : bool
        Whether merges are considered; without them the result is a best-first CART tree stopped
        where no split gains more than ``C``.
    callback : callable, default=None
        Called after every operation as ``callback(kind, snapshot)``, ``kind`` being ``"split"`` or
        ``"merge"`` and ``snapshot()`` returning the graph at that moment as a FlatGraph.

    Returns
    -------
    FlatGraph
    """
    leaves = _Leaves(problem, C, merge)
    graph = _Structure()
    leaves.add(0, np.arange(problem.X.shape[0]))
    while True:
        split_gain, to_split = leaves.best_split()
        if max_splits is not None and graph.n_splits >= max_splits:
            split_gain = -np.inf
        merge_gain, keep, gone = leaves.best_merge()
        if max(split_gain, merge_gain) <= _MIN_GAIN:
            break
        if split_gain >= merge_gain:
            _, feature, threshold, missing_left, left_rows, right_rows, subset = leaves.split[to_split]
            leaves.remove(to_split)
            left, right = graph.split(to_split, feature, threshold, missing_left, subset)
            leaves.add(left, left_rows)
            leaves.add(right, right_rows)
        else:
            keep, gone = min(keep, gone), max(keep, gone)
            rows = np.sort(np.concatenate([leaves.rows[keep], leaves.rows[gone]]))
            leaves.remove(keep, gone)
            graph.merge(keep, gone)
            leaves.add(keep, rows)
        if callback is not None:
            callback("split" if split_gain >= merge_gain else "merge", lambda: graph.flat(_labels(leaves)))
    return graph.flat(_labels(leaves))


def _labels(leaves: _Leaves) -> dict[int, int]:
    """Each active leaf's weighted majority class."""
    return {int(node): int(np.argmax(leaves.counts[node])) for node in np.flatnonzero(leaves.active)}
