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
from typing import ClassVar

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
    fit_trees,
    make_workspace,
)
from tnt.learn.tree_builder import threaded
from tnt.learn.working_graph import FlatGraph, WorkingGraph, compact

__all__ = ["RegressionProblem", "SquaredLoss"]

#: A regression grow pass shares a wave among threads from this much work (samples times features
#: reaching it) on, the classifier's ``tnt.learn.growth.THREADED_WORK`` being for far larger data:
#: on California housing (8 features) every wave of 6,250 samples or more. Thresholds from 0 to
#: 200,000 took the same time there within the noise of the shared machine (docs/speed_history.md).
THREADED_WORK = 50_000

#: A thread of a grow pass takes a wave's next fits in batches of about this many samples
#: (:class:`_WaveFits`): one compiled call fits them all, and a batch of small fits costs one call.
BATCH_SAMPLES = 2_000


@dataclass
class RegressionProblem(_Problem):
    """Validated regression data: float32 features, standardised targets ``y`` (weighted mean 0 and
    variance 1), positive weights. ``n_classes`` is 2: the targets of the internal nodes' reduced
    problems. ``target`` holds the targets in their own units (when made by :meth:`standardised`)."""

    target: np.ndarray | None = None
    #: Squared error at the leaves, class targets at the internal nodes' reduced problems.
    criteria: ClassVar[tuple] = (True, None)
    #: Two-byte codes always: the regression trees' kernels are compiled for them only, one copy per
    #: criterion fewer to compile at install (docs/speed_history.md); a few more bytes read per sample.
    two_byte_codes: ClassVar[bool] = True

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
        tree.children_left,
        tree.children_right,
        tree.feature,
        tree.threshold,
        label,
        missing_left=tree.missing_left,
        category_left=tree.category_left,
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
    Its fits (:class:`_WaveFits`) are made in batches, on threads when the wave is large; they are
    installed afterwards on this thread, in one order whatever the threads, so the graph and its
    table of leaf values come out the same.
    """
    start = graph.start
    split_price = problem.split_price(C)
    for wave in _pass_waves(graph, problem, problem.no_labels):
        work = wave.order.size * problem.X.shape[1]
        workers.in_parts(wave.find_sensitive, wave.order.size, work, THREADED_WORK)
        fits = _WaveFits(wave, problem, C, cache, values)
        fits.fit(workers, work)
        for i in fits.by_size:
            node = wave.nodes[i]
            if fits.rows[i] is None:
                graph.reset(node)
                continue
            rows, key, tree = fits.rows[i], fits.keys[i], fits.trees[i]
            a, b = fits.ranges[i]
            if isinstance(tree, RegressionTree):
                tree = _as_micro_tree(tree, values)
            if not fits.cached[i]:
                cache.store(node, rows, key, tree)
            if start.children_left[node] < 0:
                graph.install_leaf_tree(node, tree)
            elif problem.refit_rule == "always" or graph.improves(
                node, tree, problem.X, rows, fits.red_targets[a:b], fits.red_w[a:b], split_price
            ):
                graph.install_split_tree(node, tree)
            else:
                graph.reset(node)
        workers.in_parts(wave.move, wave.order.size, work, THREADED_WORK)


class _WaveFits:
    """The micro trees of one wave's nodes (:class:`tnt.learn.growth._Wave`, after
    ``find_sensitive``), without changing the graph.

    A leaf fits a squared-error tree on its samples, an internal node a Gini tree on its reduced
    problem; both are read from the wave's arrays at once, each node's a range of them. Per node
    ``i``: ``rows[i]`` (None: the node gets its phase-start content back), ``keys[i]`` (what the
    cache compares: the targets, or for a reduced problem each row's signed weight, the sign its
    target), ``ranges[i]``, where its rows are in ``wave.order`` (a leaf) or in ``red_rows``, ``red_targets``
    and ``red_w`` (an internal node), ``trees[i]`` once :meth:`fit` has run, and ``cached[i]``,
    whether the tree came from the cache.
    """

    def __init__(self, wave, problem: RegressionProblem, C: float, cache: _MicroTreeCache, values):
        self.problem = problem
        nodes = wave.nodes
        is_leaf = wave.graph.start.children_left[nodes] < 0
        # Leaves: every sample, its target and weight.
        self.wave_order = wave.order
        self.leaf_y, self.leaf_w = problem.y[wave.order], problem.w[wave.order]
        # Internal nodes: the samples whose loss differs between the two children (gain != 0).
        gain = _loss_gains(wave, self.leaf_y, values.array)
        differs = np.flatnonzero(gain != 0)
        reduced_at = np.searchsorted(differs, wave.offsets)
        self.red_rows = wave.order[differs]
        gain = gain[differs]
        self.red_targets = (gain > 0).astype(np.int64)
        self.red_w = problem.w[self.red_rows] * np.abs(gain)
        red_keys = np.where(gain > 0, self.red_w, -self.red_w)
        W = problem.total_weight
        k = nodes.size
        self.rows, self.keys, self.ranges, self.trees = [None] * k, [None] * k, [None] * k, [None] * k
        self.cached = [False] * k
        self.leaf_fits, self.split_fits = [], []  # (node index, start, stop, alpha, total weight)
        # The order of the installs, one whatever the threads (the table of leaf values grows in it).
        self.by_size = np.argsort(-wave.size, kind="stable")
        for i in self.by_size.tolist():
            if is_leaf[i]:
                a, b = wave.offsets[i], wave.offsets[i + 1]
                rows, key, weights, fits = wave.order[a:b], self.leaf_y[a:b], self.leaf_w[a:b], self.leaf_fits
            else:
                a, b = reduced_at[i], reduced_at[i + 1]
                rows, key, weights, fits = self.red_rows[a:b], red_keys[a:b], self.red_w[a:b], self.split_fits
            if a == b:
                continue
            self.rows[i], self.keys[i], self.ranges[i] = rows, key, (a, b)
            self.trees[i] = cache.find(nodes[i], rows, key)
            self.cached[i] = self.trees[i] is not None
            if not self.cached[i]:
                total = float(weights.sum())
                fits.append((i, a, b, C * W / total, total))

    def fit(self, workers: _Workers, work: int) -> None:
        """Fit the trees not found in the cache: on threads when the wave is large enough
        (:data:`THREADED_WORK`), each thread taking the next fits, largest first, a batch of about
        :data:`BATCH_SAMPLES` samples at a time."""
        fits = [(True, fit) for fit in self.leaf_fits] + [(False, fit) for fit in self.split_fits]
        if not workers.threaded(len(fits), work, THREADED_WORK):
            self._fit_batch(fits, workers.workspace(alone=True))
            return
        # Largest first, so that no thread is left with a large fit at the end of the wave.
        fits.sort(key=lambda fit: fit[1][1] - fit[1][2])
        lock = threading.Lock()
        queue = iter(fits)

        def take_batches(start: int, stop: int) -> None:
            workspace = workers.workspace(alone=False)
            while True:
                batch, samples = [], 0
                with lock:
                    for fit in queue:
                        batch.append(fit)
                        samples += fit[1][2] - fit[1][1]
                        if samples >= BATCH_SAMPLES:
                            break
                if not batch:
                    return
                self._fit_batch(batch, workspace)

        workers.in_parts(take_batches, workers.n_threads, work, THREADED_WORK)

    def _fit_batch(self, fits: list, workspace) -> None:
        """Fit ``fits`` (``(is_leaf, (node index, start, stop, alpha, total))``) with ``workspace``:
        one compiled call per criterion, except that a fit large enough to scan its nodes on the
        workspace's several threads (:func:`tnt.learn.tree_builder.threaded`) is made alone."""
        problem = self.problem
        n_features, n_lanes = problem.X.shape[1], workspace.left.shape[0]
        for leaves in (True, False):
            group = [fit for is_leaf, fit in fits if is_leaf == leaves]
            if leaves:
                rows, y, w = self.wave_order, self.leaf_y, self.leaf_w
            else:
                rows, y, w = self.red_rows, self.red_targets, self.red_w
            alone = [fit for fit in group if threaded(fit[2] - fit[1], n_features, n_lanes) is not None]
            batched = [fit for fit in group if threaded(fit[2] - fit[1], n_features, n_lanes) is None]
            for i, a, b, alpha, _ in alone:
                fit_tree = fit_regression_tree if leaves else partial(fit_micro_tree, n_targets=2)
                self.trees[i] = fit_tree(
                    problem.binned, problem.feature_order, rows[a:b], y[a:b], w[a:b], alpha, workspace=workspace
                )
            if batched:
                index, starts, stops, alphas, totals = zip(*batched)
                trees = fit_trees(
                    problem.binned, problem.feature_order, rows, y, w, starts, stops, alphas, totals, workspace
                )
                for i, tree in zip(index, trees):
                    self.trees[i] = tree


def _loss_gains(wave, y: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per position of a wave (:class:`tnt.learn.growth._Wave`, after ``find_sensitive``), at its
    internal nodes: ``L(left) - L(right)``, the sample's squared error when inference continues at the
    node's left child minus that from its right child (0 at leaves' positions); ``y`` holds the
    targets of the wave's samples in its order."""
    internal = np.repeat(wave.graph.start.children_left[wave.nodes] >= 0, wave.size)
    gain = np.zeros(wave.order.size)
    target = y[internal]
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
        working = self.problem.working_graph(graph)
        for _ in range(rounds):
            _fine_tune_round(working, self.problem, self.values, workspace)
            report("fine_tune", 0, working)
        return compact(working, self.problem.X)
