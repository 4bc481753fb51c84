"""Algorithm 2 of the paper (grow passes and merges) and Algorithm A.1 (fine-tuning)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

import numpy as np

from tnt.graph import longest_distances
from tnt.learn.binning import BinnedData, bin_features
from tnt.learn.micro_tree import MicroTree, fit_micro_tree, fit_stump, make_workspace
from tnt.learn.working_graph import FlatGraph, WorkingGraph, compact, dead_splits


@dataclass(frozen=True)
class GrowthEvent:
    """One step of training, as reported to a progress callback.

    Attributes
    ----------
    kind : {"grow", "merge", "fine_tune"}
        A grow pass, a merge (after pruning dead nodes), or a fine-tuning round.
    phase : int
        1-based merge phase (``0`` during fine-tuning).
    step : int
        1-based index of this step among all steps of the fit.
    total_steps : int
        ``N1 * (N2 + 1) + fine_tune``.
    n_splits : int
        Splits of the graph as it stands after this step (micro trees counted as merged).
    details : dict or None
        What the step did, for explanations. After a grow pass, ``"micro_trees"``: one
        ``(node, was_leaf, samples, sensitive, splits)`` per node of the phase-start graph that
        samples reached, by node id (``sensitive`` is the number of samples the micro tree of an
        internal node was fitted on, all the samples at a leaf; ``splits`` those of the pruned
        micro tree; an internal node without sensitive samples keeps its split: 0 and 1); and after a grow pass or a merge, ``"dead"``: one
        ``(feature, threshold, samples, side)`` per split that training samples reach but that
        sends them all to ``side`` ("left" or "right"), which the merge removes.
    """

    kind: str
    phase: int
    step: int
    total_steps: int
    n_splits: int
    _snapshot: Callable[[], FlatGraph] = field(repr=False, compare=False)
    details: dict | None = field(default=None, repr=False, compare=False)

    #: Each kind of step in words, as progress bars and the step-through say it.
    KIND_NAMES: ClassVar[dict] = {"grow": "grow pass", "merge": "merge", "fine_tune": "fine-tuning round"}

    @property
    def kind_name(self) -> str:
        """This step's kind in words ("grow pass", "merge" or "fine-tuning round")."""
        return self.KIND_NAMES[self.kind]

    def snapshot(self) -> FlatGraph:
        """The graph as it stands after this step, merged and without dead nodes."""
        return self._snapshot()


ProgressCallback = Callable[[GrowthEvent], None] | None


@dataclass
class _Problem:
    """Validated training data: float32 features, class indices, positive weights."""

    X: np.ndarray  # float32, C-contiguous
    y: np.ndarray  # class indices
    w: np.ndarray  # positive weights
    n_classes: int
    seed: int

    @cached_property
    def binned(self) -> BinnedData:
        return bin_features(self.X)

    @cached_property
    def feature_order(self) -> np.ndarray:
        """The order in which micro trees try features: it breaks ties between equal splits."""
        return np.random.RandomState(self.seed).permutation(self.X.shape[1])

    @property
    def total_weight(self) -> float:
        return float(self.w.sum())


class _MicroTreeCache:
    """Reuse a node's micro tree when it would be refitted on exactly the same samples and targets.

    Within a phase a node is refitted on every pass, and many nodes see the same data again
    (during the first phase the graph is a single leaf, so every pass fits the same tree).
    The learner is deterministic, so reusing the tree changes nothing.
    """

    def __init__(self):
        self._entries: dict[int, tuple[np.ndarray, np.ndarray, MicroTree]] = {}

    def get(self, node, rows, targets, fit):
        entry = self._entries.get(node)
        if entry is not None and np.array_equal(entry[0], rows) and np.array_equal(entry[1], targets):
            return entry[2]
        tree = fit()
        self._entries[node] = (rows, targets, tree)
        return tree


def _gather(parts: list[np.ndarray]) -> np.ndarray:
    if not parts:
        return np.empty(0, dtype=np.intp)
    if len(parts) == 1:
        return parts[0]
    return np.sort(np.concatenate(parts))


def _sensitive(graph: WorkingGraph, node: int, problem: _Problem, rows: np.ndarray):
    """Sensitive rows at an internal node and their targets (0: left is right, 1: right is right)."""
    start = graph.start
    y = problem.y[rows]
    left_ok = graph.predict_from(start.children_left[node], problem.X, rows) == y
    right_ok = graph.predict_from(start.children_right[node], problem.X, rows) == y
    sensitive = left_ok != right_ok
    return rows[sensitive], right_ok[sensitive].astype(np.intp)


# A wave of nodes is shared among threads when at least this many (sample, feature) pairs reach it.
THREADED_WORK = 1_000_000


class _Workers:
    """Threads that grow micro trees in nodes of which none is an ancestor of another.

    Such nodes do not influence each other within a pass (a node's samples depend on its
    ancestors only, the predictions below it on its descendants only), so any order, or none,
    gives the same graph. A node alone in its wave scans its features on all threads instead.
    """

    def __init__(self, problem: _Problem, n_threads: int):
        self.problem = problem
        self.pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None
        self.shared_workspace = make_workspace(problem.binned, problem.n_classes, n_threads)
        self._local = threading.local()

    def workspace(self, alone: bool):
        if alone or self.pool is None:
            return self.shared_workspace
        ws = getattr(self._local, "workspace", None)
        if ws is None:
            ws = self._local.workspace = make_workspace(self.problem.binned, self.problem.n_classes, 1)
        return ws

    def run(self, wave, visit, work: int) -> None:
        """Visit the nodes of ``wave``; ``work`` (samples times features reaching them) decides
        whether threads are worth waking: on small data they cost more than they save."""
        if self.pool is None or len(wave) == 1 or work < THREADED_WORK:
            for node in wave:
                visit(node, self.workspace(alone=True))
            return
        for future in [self.pool.submit(lambda n=n: visit(n, self.workspace(alone=False))) for n in wave]:
            future.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def _waves(start: FlatGraph) -> list[np.ndarray]:
    """Nodes grouped by their longest distance from the root: no node is an ancestor of another
    in its group, and every group comes after the groups of all its nodes' ancestors."""
    depth = longest_distances(start.children_left, start.children_right)
    order = np.argsort(depth, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(depth[order])) + 1)


def _grow_pass(
    graph: WorkingGraph, problem: _Problem, C: float, cache: _MicroTreeCache, workers: _Workers, log=None
) -> None:
    """Visit every node once, parents first, and install a freshly fitted micro tree in it; with a
    ``log`` list, append what each node got (see :attr:`GrowthEvent.details`)."""
    start = graph.start
    incoming: list[list[np.ndarray]] = [[] for _ in range(graph.n_orig)]
    incoming[0].append(np.arange(problem.X.shape[0]))
    W = problem.total_weight

    def fit(rows, targets, n_targets, workspace):
        alpha = C * W / float(problem.w[rows].sum())
        return fit_micro_tree(
            problem.binned, problem.feature_order, rows, targets, problem.w[rows], alpha, n_targets, workspace
        )

    def visit(node, workspace):
        rows = _gather(incoming[node])
        incoming[node] = []
        if rows.size == 0:
            graph.reset(node)
            return
        if start.children_left[node] < 0:
            targets = problem.y[rows]
            tree = cache.get(node, rows, targets, lambda: fit(rows, targets, problem.n_classes, workspace))
            graph.install_leaf_tree(node, tree)
            if log is not None:
                log.append((node, True, rows.size, rows.size, tree.n_splits))
            return
        sens_rows, sens_targets = _sensitive(graph, node, problem, rows)
        if sens_rows.size == 0:
            graph.reset(node)
        else:
            tree = cache.get(node, sens_rows, sens_targets, lambda: fit(sens_rows, sens_targets, 2, workspace))
            graph.install_split_tree(node, tree)
        if log is not None:
            log.append((node, False, rows.size, sens_rows.size, tree.n_splits if sens_rows.size else 1))
        to_left, to_right = graph.route_through(node, problem.X, rows)
        incoming[start.children_left[node]].append(to_left)
        incoming[start.children_right[node]].append(to_right)

    for wave in _waves(start):
        # Largest first, so that no thread is left with a large node at the end of the wave.
        size = np.array([sum(part.size for part in incoming[node]) for node in wave])
        workers.run(wave[np.argsort(-size, kind="stable")], visit, int(size.sum()) * problem.X.shape[1])


def _weighted_error(go_right: np.ndarray, targets: np.ndarray, w: np.ndarray) -> float:
    return float(w[go_right.astype(np.intp) != targets].sum())


def _fine_tune_round(graph: WorkingGraph, problem: _Problem, workspace) -> None:
    """One round of Algorithm A.1 over a fixed structure.

    An internal node refits its single split on its sensitive samples, and keeps the new split
    only when it misroutes no more sensitive weight than the old one, so training accuracy never
    drops. A leaf takes the weighted majority class of the samples reaching it.
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
            counts = np.bincount(problem.y[rows], weights=problem.w[rows], minlength=problem.n_classes)
            graph.label[node] = int(np.argmax(counts))
            continue
        sens_rows, targets = _sensitive(graph, node, problem, rows)
        if sens_rows.size:
            w = problem.w[sens_rows]
            old_error = _weighted_error(~graph.goes_left(node, problem.X, sens_rows), targets, w)
            saved = _save_slot(graph, node)
            stump = fit_stump(problem.binned, problem.feature_order, sens_rows, targets, w, workspace)
            graph.install_split_tree(node, stump)
            if _weighted_error(~graph.goes_left(node, problem.X, sens_rows), targets, w) > old_error:
                _restore_slot(graph, node, saved)
        to_left, to_right = graph.route_through(node, problem.X, rows)
        incoming[start.children_left[node]].append(to_left)
        incoming[start.children_right[node]].append(to_right)


def _save_slot(graph: WorkingGraph, node: int):
    return graph.left[node], graph.right[node], graph.feature[node], graph.threshold[node]


def _restore_slot(graph: WorkingGraph, node: int, saved) -> None:
    graph.left[node], graph.right[node], graph.feature[node], graph.threshold[node] = saved


def grow_graph(
    problem: _Problem,
    C: float,
    N1: int,
    N2: int,
    fine_tune: int = 0,
    callback: ProgressCallback = None,
    n_threads: int = 1,
) -> FlatGraph:
    """Train a TnT decision graph (Algorithm 2), then fine-tune it for ``fine_tune`` rounds."""
    counts = np.bincount(problem.y, weights=problem.w, minlength=problem.n_classes)
    graph = FlatGraph.single_leaf(int(np.argmax(counts)))
    total_steps = N1 * (N2 + 1) + fine_tune
    step = 0

    def report(kind, phase, working_or_flat, details=None):
        nonlocal step
        step += 1
        if callback is None:
            return
        if isinstance(working_or_flat, FlatGraph):
            snapshot = lambda g=working_or_flat: g  # noqa: E731
        else:
            merged = compact(working_or_flat, problem.X)
            snapshot = lambda g=merged: g  # noqa: E731
        callback(GrowthEvent(kind, phase, step, total_steps, snapshot().n_splits, snapshot, details))

    workers = _Workers(problem, n_threads)
    try:
        for phase in range(1, N1 + 1):
            working = WorkingGraph(graph)
            cache = _MicroTreeCache()
            details = None
            for _ in range(N2):
                log = None if callback is None else []
                _grow_pass(working, problem, C, cache, workers, log)
                if log is not None:
                    details = {"micro_trees": sorted(log), "dead": dead_splits(working, problem.X)}
                report("grow", phase, working, details)
            graph = compact(working, problem.X)
            report("merge", phase, graph, details and {"dead": details["dead"]})
    finally:
        workers.close()
    return fine_tune_graph(graph, problem, fine_tune, _report=report)


def fine_tune_graph(graph: FlatGraph, problem: _Problem, rounds: int, _report=None) -> FlatGraph:
    """Algorithm A.1: ``rounds`` rounds of alternating optimisation over a fixed structure, then
    removal of the nodes it made dead. Applied to a CART tree this is TAO for axis-aligned trees."""
    if rounds == 0:
        return graph
    working = WorkingGraph(graph)
    workspace = make_workspace(problem.binned, 2, 1)
    for _ in range(rounds):
        _fine_tune_round(working, problem, workspace)
        if _report is not None:
            _report("fine_tune", 0, working)
    return compact(working, problem.X)
