"""Algorithm 2 of the paper (grow passes and merges) and Algorithm A.1 (fine-tuning) for regression.

The scheme is the classifier's (:mod:`tnt.learn.growth`) with the squared error in place of the
0/1 loss. Targets are standardised (mean 0, weighted variance 1), so ``C`` is a price per split in
units of the training target's variance.

* A leaf grows a squared-error micro tree (:func:`tnt.learn.micro_tree.fit_regression_tree`) on the
  samples reaching it, pruned at ``C_i = C * W / W_i``.
* An internal node solves the alternating-optimisation reduced problem: with the rest of the graph
  fixed, sending sample ``i`` to child ``c`` costs ``w_i * L_i(c)``, ``L_i(c)`` its squared error
  when inference continues at ``c``. Since ``w_i L_i(c) = w_i min(L_i(left), L_i(right)) +
  w_i |L_i(left) - L_i(right)| [c is the worse child]``, the node's best decision function is a
  weighted binary classifier: target the better child, weight ``v_i = w_i |L_i(left) - L_i(right)|``,
  samples with ``v_i = 0`` left out. Its micro tree is the classifier's Gini micro tree on these
  weights, pruned at ``C * W / V`` (``V = sum v_i``), so that, as at the leaves, a split must lower
  the graph's squared error, as a share of ``W`` times the target variance, by more than ``C``.
  With the 0/1 loss every ``v_i`` is ``w_i`` and this is the classifier's "sensitive samples".

Leaves point into a table of values (standardised targets) that grows as micro trees are
installed: a leaf's ``label`` in the working graph is its row in the table, so the working graph
and its compaction are the classifier's unchanged.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property, partial

import numpy as np

from tnt.learn.binning import MAX_EXACT_BINS
from tnt.learn.growth import (
    _gather,
    _MicroTreeCache,
    _pass_waves,
    _Problem,
    _Workers,
    refit_stump_unless_worse,
)
from tnt.learn.micro_tree import (
    MicroTree,
    RegressionTree,
    fit_micro_tree,
    fit_regression_tree,
    make_workspace,
)
from tnt.learn.refit_guard import improves_on_split
from tnt.learn.working_graph import FlatGraph, WorkingGraph, compact

__all__ = ["RegressionProblem", "SquaredLoss"]

#: A regression grow pass shares a wave among threads from this much work (samples times features
#: reaching it) on, the classifier's ``tnt.learn.growth.THREADED_WORK`` being for far larger data:
#: on California housing (8 features) every wave of 6,250 samples or more. Thresholds from 0 to
#: 200,000 took the same time there within the noise of the shared machine (docs/speed_history.md).
THREADED_WORK = 50_000


@dataclass
class RegressionProblem(_Problem):
    """Validated regression data: float32 features, standardised targets ``y`` (weighted mean 0 and
    variance 1), positive weights. ``n_classes`` is 2: the targets of the internal nodes' reduced
    problems. ``target`` holds the targets in their own units (when made by :meth:`standardised`)."""

    target: np.ndarray | None = None

    @cached_property
    def no_labels(self) -> np.ndarray:
        """A class per sample that no leaf label equals, for the classifier's wave routing, which
        compares predictions with classes (:class:`tnt.learn.growth._Wave`): a regression reads the
        labels reached instead."""
        return np.full(self.X.shape[0], -1, dtype=np.intp)

    def loss(self) -> SquaredLoss:
        """What the growth loop minimises on this problem: the squared error."""
        return SquaredLoss(self)

    @classmethod
    def standardised(
        cls, X: np.ndarray, y: np.ndarray, w: np.ndarray, seed: int, max_bins: int = MAX_EXACT_BINS
    ) -> RegressionProblem:
        mean = float(np.average(y, weights=w))
        scale = float(np.sqrt(np.average((y - mean) ** 2, weights=w)))
        if not np.isfinite(scale) or scale == 0.0:
            scale = 1.0
        return cls(X=X, y=(y - mean) / scale, w=w, n_classes=2, seed=seed, max_bins=max_bins, target=y)


class _LeafValues:
    """The values of the leaves installed during training; a working-graph leaf's label is its row."""

    def __init__(self, first: float):
        self._values = np.empty(64)
        self._values[0] = first
        self._size = 1
        self._lock = threading.Lock()

    def add(self, values: np.ndarray) -> np.ndarray:
        """Append ``values``; returns their rows."""
        with self._lock:
            needed = self._size + values.size
            if needed > self._values.size:
                grown = np.empty(max(needed, 2 * self._values.size))
                grown[: self._size] = self._values[: self._size]
                self._values = grown
            self._values[self._size : needed] = values
            rows = np.arange(self._size, needed, dtype=np.intp)
            self._size = needed
            return rows

    @property
    def array(self) -> np.ndarray:
        return self._values[: self._size]


def _as_micro_tree(tree: RegressionTree, values: _LeafValues) -> MicroTree:
    leaf = tree.children_left < 0
    label = np.full(tree.node_count, -1, dtype=np.intp)
    label[leaf] = values.add(tree.value[leaf])
    return MicroTree(
        tree.children_left, tree.children_right, tree.feature, tree.threshold, label, missing_left=tree.missing_left
    )


def _reduced_problem(graph: WorkingGraph, node: int, problem: RegressionProblem, rows: np.ndarray, values):
    """The reduced problem at internal ``node``: rows whose loss differs between the two children,
    their targets (0: left is better, 1: right is better) and weights ``w_i |L_i(left) - L_i(right)|``."""
    start = graph.start
    y = problem.y[rows]
    table = values.array
    loss_left = (table[graph.predict_from(start.children_left[node], problem.X, rows)] - y) ** 2
    loss_right = (table[graph.predict_from(start.children_right[node], problem.X, rows)] - y) ** 2
    gain = loss_left - loss_right
    differs = gain != 0
    return rows[differs], (gain[differs] > 0).astype(np.intp), problem.w[rows[differs]] * np.abs(gain[differs])


def _grow_pass(graph, problem: RegressionProblem, C: float, cache: _MicroTreeCache, workers: _Workers, values) -> None:
    """Visit every node once, parents first, and install a freshly fitted micro tree in it.

    A wave goes as the classifier's (:class:`tnt.learn.growth._Wave`): the labels its samples reach
    from both children of their nodes, then the fits, then the moves of its samples to the children.
    The fits may run on threads (:meth:`tnt.learn.growth._Workers.run`); they are installed afterwards
    on this thread, in one order whatever the threads, so the graph and its table of leaf values
    come out the same.
    """
    start = graph.start
    W = problem.total_weight

    def fit(wave, gain: np.ndarray, i: int, workspace):
        """What node ``wave.nodes[i]`` gets, without changing the graph: None (its phase-start
        content), or ``(rows, key, tree, keep)`` for :func:`install`."""
        node = wave.nodes[i]
        if wave.size[i] == 0:
            return None
        if start.children_left[node] < 0:
            rows = wave.rows(i)
            targets = problem.y[rows]
            tree = cache.find(node, rows, targets)
            if tree is None:
                w = problem.w[rows]
                alpha = C * W / float(w.sum())
                tree = fit_regression_tree(problem.binned, problem.feature_order, rows, targets, w, alpha, workspace)
            return rows, targets, tree, True
        part = slice(wave.offsets[i], wave.offsets[i + 1])
        differs = gain[part] != 0
        if not differs.any():
            return None
        red_rows, red_gain = wave.order[part][differs], gain[part][differs]
        red_targets = (red_gain > 0).astype(np.intp)
        red_w = problem.w[red_rows] * np.abs(red_gain)
        # The cache key holds both the target (sign) and the weight of each row.
        key = np.where(red_targets == 1, red_w, -red_w)
        tree = cache.find(node, red_rows, key)
        if tree is None:
            alpha = C * W / float(red_w.sum())
            tree = fit_micro_tree(
                problem.binned, problem.feature_order, red_rows, red_targets, red_w, alpha, 2, workspace
            )
        keep = not problem.guard_refits or improves_on_split(
            tree,
            start.feature[node],
            start.threshold[node],
            start.missing_go_to_left[node],
            problem.X,
            red_rows,
            red_targets,
            red_w,
        )
        return red_rows, key, tree, keep

    def fit_into(fitted: list, wave, gain: np.ndarray, i: int, workspace) -> None:
        fitted[i] = fit(wave, gain, i, workspace)

    def install(node: int, fitted) -> None:
        if fitted is None:
            graph.reset(node)
            return
        rows, key, tree, keep = fitted
        if isinstance(tree, RegressionTree):
            tree = _as_micro_tree(tree, values)
        cache.store(node, rows, key, tree)
        if start.children_left[node] < 0:
            graph.install_leaf_tree(node, tree)
        elif keep:
            graph.install_split_tree(node, tree)
        else:
            graph.reset(node)

    for wave in _pass_waves(graph, problem, problem.no_labels):
        work = wave.order.size * problem.X.shape[1]
        workers.in_parts(wave.find_sensitive, wave.order.size, work, THREADED_WORK)
        gain = _loss_gains(wave, problem.y, values.array)
        fitted = [None] * wave.nodes.size
        # Largest first, so that no thread is left with a large node at the end of the wave.
        by_size = np.argsort(-wave.size, kind="stable")
        workers.run(by_size, partial(fit_into, fitted, wave, gain), work, THREADED_WORK)
        for i in by_size:
            install(wave.nodes[i], fitted[i])
        workers.in_parts(wave.move, wave.order.size, work, THREADED_WORK)


def _loss_gains(wave, y: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per position of a wave (:class:`tnt.learn.growth._Wave`, after ``find_sensitive``), at its
    internal nodes: ``L(left) - L(right)``, the sample's squared error when inference continues at the
    node's left child minus that from its right child (0 at leaves' positions)."""
    internal = np.repeat(wave.graph.start.children_left[wave.nodes] >= 0, wave.size)
    gain = np.zeros(wave.order.size)
    target = y[wave.order[internal]]
    reached = wave.reached[internal]
    gain[internal] = (values[reached[:, 0]] - target) ** 2 - (values[reached[:, 1]] - target) ** 2
    return gain


def _fine_tune_round(graph: WorkingGraph, problem: RegressionProblem, values: _LeafValues, workspace) -> None:
    """One round of Algorithm A.1 for the squared error over a fixed structure.

    An internal node refits its single split on its reduced problem and keeps it only when it
    misroutes no more loss than the old one, so the training error never grows. A leaf takes the
    weighted mean target of the samples reaching it.
    """
    start = graph.start
    incoming: list[list[np.ndarray]] = [[] for _ in range(graph.n_orig)]
    incoming[0].append(np.arange(problem.X.shape[0]))
    for node in range(graph.n_orig):
        rows = _gather(incoming[node])
        incoming[node] = []
        if rows.size == 0:
            continue
        if start.children_left[node] < 0:
            mean = np.average(problem.y[rows], weights=problem.w[rows])
            graph.label[node] = values.add(np.array([mean]))[0]
            continue
        red_rows, targets, w = _reduced_problem(graph, node, problem, rows, values)
        if red_rows.size:
            refit_stump_unless_worse(graph, node, problem, red_rows, targets, w, workspace)
        to_left, to_right = graph.route_through(node, problem.X, rows)
        incoming[start.children_left[node]].append(to_left)
        incoming[start.children_right[node]].append(to_right)


class SquaredLoss:
    """The squared error in the growth loop (:func:`tnt.learn.growth.grow_graph`): leaves fit
    squared-error micro trees, internal nodes their reduced problems, and leaf labels are rows of
    a table of values that grows as micro trees are installed."""

    logs_micro_trees = False

    def __init__(self, problem: RegressionProblem):
        self.problem = problem
        self.values = _LeafValues(float(np.average(problem.y, weights=problem.w)))

    def first_graph(self) -> FlatGraph:
        """One leaf predicting the weighted mean target (row 0 of the values)."""
        return FlatGraph.single_leaf(0)

    def grow_pass(self, working: WorkingGraph, C: float, cache: _MicroTreeCache, workers: _Workers, log) -> None:
        _grow_pass(working, self.problem, C, cache, workers, self.values)

    def fine_tuned(self, graph: FlatGraph, rounds: int, report) -> FlatGraph:
        if rounds == 0:
            return graph
        workspace = make_workspace(self.problem.binned, 2)
        working = WorkingGraph(graph, self.problem.has_missing)
        for _ in range(rounds):
            _fine_tune_round(working, self.problem, self.values, workspace)
            report("fine_tune", 0, working)
        return compact(working, self.problem.X)
