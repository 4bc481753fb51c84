"""Algorithm 2 of the paper (grow passes and merges) and Algorithm A.1 (fine-tuning)."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

import numpy as np

from tnt.learn.binning import MAX_EXACT_BINS, BinnedData, bin_features
from tnt.learn.category_columns import CategoryColumns
from tnt.learn.micro_tree import MicroTree, batches_ready, fit_micro_tree, fit_stump, fit_trees, make_workspace
from tnt.learn.refit_guard import PRICED
from tnt.learn.threaded_copies import lanes
from tnt.learn.tree_builder import threaded
from tnt.learn.walks import ancestors, longest_distances
from tnt.learn.wave_routing import (
    NO_MEMO,
    bucket_rows,
    cut_routing,
    missing_routing,
    move_samples,
    one_by_one,
    sensitive_samples,
    update_code_thresholds,
)
from tnt.learn.working_graph import FlatGraph, WorkingGraph, compact, dead_splits


@dataclass(frozen=True)
class GrowthEvent:
    """One step of training, as reported to a progress callback.

    Attributes
    ----------
    kind : {"grow", "merge", "fine_tune", "trial"}
        A grow pass, a merge (after pruning dead nodes), or a fine-tuning round of the growth whose
        graph the fit keeps; or ``"trial"``, any step of a growth on part of the training samples
        that the other part scores, to choose the size (``ccp_alpha="held_out"`` and
        ``"held_out_regrown"``), a regressor's refit rule (the default) or the step to stop at
        (``validation_fraction``), before that growth. A trial's ``snapshot`` and ``details`` are
        those of its own graph, which the fit does not keep.
    phase : int
        1-based merge phase (``0`` during fine-tuning).
    step : int
        1-based index of this step among the steps of its growth.
    total_steps : int
        The steps of its growth: ``N1 * (N2 + 1) + fine_tune`` (fewer where a held-out score
        stops the growth early).
    n_splits : int
        Splits of the graph as it stands after this step (micro trees counted as merged).
    details : dict or None
        What the step did, for explanations. After a grow pass, ``"micro_trees"``: one
        ``(node, was_leaf, samples, sensitive, splits)`` per node of the phase-start graph that
        samples reached, by node id (``sensitive`` is the number of samples the micro tree of an
        internal node was fitted on, all the samples at a leaf; ``splits`` those of the pruned
        micro tree; an internal node without sensitive samples keeps its split: 0 and 1); and after a grow pass or a merge, ``"dead"``: one
        ``(feature, threshold, samples, side)`` per split that training samples reach but that
        sends them all to ``side`` ("left" or "right"), which the merge removes (a categorical
        split's threshold NaN).
    fit_step, fit_steps : int
        This step's 1-based index among the steps of all the fit's growths, trials first, and their
        number: ``fit_step / fit_steps`` is the share of the fit done. Without trials they are
        ``step`` and ``total_steps``. During trials ``fit_steps`` counts the steps the fit plans;
        from the first step of the kept growth on, the steps it makes.
    """

    kind: str
    phase: int
    step: int
    total_steps: int
    n_splits: int
    _snapshot: Callable[[], FlatGraph] = field(repr=False, compare=False)
    details: dict | None = field(default=None, repr=False, compare=False)
    fit_step: int = 0  # 0: this growth's step (set in __post_init__)
    fit_steps: int = 0

    #: Each kind of step in words, as progress bars and the step-through say it.
    KIND_NAMES: ClassVar[dict] = {
        "grow": "grow pass",
        "merge": "merge",
        "fine_tune": "fine-tuning round",
        "trial": "held-out trial step",
    }

    def __post_init__(self):
        if self.fit_steps == 0:  # a fit of one growth
            object.__setattr__(self, "fit_step", self.step)
            object.__setattr__(self, "fit_steps", self.total_steps)

    @property
    def kind_name(self) -> str:
        """This step's kind in words ("grow pass", "merge" or "fine-tuning round")."""
        return self.KIND_NAMES[self.kind]

    def snapshot(self) -> FlatGraph:
        """The graph as it stands after this step, merged and without dead nodes."""
        return self._snapshot()


ProgressCallback = Callable[[GrowthEvent], None] | None


def growth_steps(N1: int, N2: int, fine_tune: int = 0) -> int:
    """The steps of a growth (:class:`GrowthEvent`'s): ``N2`` grow passes and a merge per phase, then
    the fine-tuning rounds.

    >>> growth_steps(2, 5), growth_steps(2, 5, 3)
    (12, 15)
    """
    return N1 * (N2 + 1) + fine_tune


class FitProgress:
    """A progress callback's view of a fit that grows graphs on part of its samples (trials, scored
    on the other part) before the growth whose graph it keeps: every step of every growth reaches
    ``callback``, a trial's as ``kind="trial"``, each with its place among all of them
    (:attr:`GrowthEvent.fit_step`), so that a progress bar moves from the first trial on and ends full.

    The fit passes this object as the kept growth's callback (:func:`tnt.learn.growth.grow_graph`'s
    ``callback``), and each trial takes its own from :func:`trial_callback`. ``trials`` is the number
    of trial growths planned, each of ``steps_per_growth`` steps; one that does not happen (too few
    samples to hold any out) is left out of the count at the kept growth's first step.
    """

    def __init__(self, callback: Callable[[GrowthEvent], None], steps_per_growth: int, trials: int):
        self._callback, self._per_growth = callback, steps_per_growth
        self._planned = steps_per_growth * (trials + 1)
        self._done = 0  # steps of the trials begun

    def trial(self, also: ProgressCallback = None) -> Callable[[GrowthEvent], None]:
        """The callback of the next trial growth, which calls ``also`` (if given) with the trial's
        own events first."""
        before = self._done
        self._done += self._per_growth

        def report(event: GrowthEvent) -> None:
            if also is not None:
                also(event)
            self._callback(
                dataclasses.replace(event, kind="trial", fit_step=before + event.step, fit_steps=self._planned)
            )

        return report

    def __call__(self, event: GrowthEvent) -> None:
        """The kept growth's event, placed after the trials'."""
        self._callback(
            dataclasses.replace(event, fit_step=self._done + event.step, fit_steps=self._done + event.total_steps)
        )


def trial_callback(callback, also: ProgressCallback = None) -> ProgressCallback:
    """The callback of a trial growth in a fit whose kept growth reports to ``callback``: the
    trial's own from ``callback`` if it is a :class:`FitProgress`, chained with ``also``; else
    ``also`` alone (None: the trial reports nothing)."""
    return callback.trial(also) if isinstance(callback, FitProgress) else also


@dataclass
class _Problem:
    """Validated training data: float32 features, class indices, positive weights."""

    X: np.ndarray  # float32, C-contiguous
    y: np.ndarray  # class indices
    w: np.ndarray  # positive weights
    n_classes: int
    seed: int
    max_bins: int = MAX_EXACT_BINS  # codes per feature (see tnt.learn.binning)
    # Which refits internal nodes take: "always", "improving" or "cost_complexity" (tnt.learn.refit_guard).
    refit_rule: str = "always"
    # Which features are categorical (their values category codes, split by subsets), or None.
    categorical: np.ndarray | None = None
    #: The criteria of its micro trees, as ``build_tree``'s ``squared`` (None: class targets).
    criteria: ClassVar[tuple] = (None,)
    #: Whether its feature codes take two bytes even where one would do (``bin_features``'s ``two_byte``).
    two_byte_codes: ClassVar[bool] = False

    @cached_property
    def binned(self) -> BinnedData:
        return self.bin()

    def bin(self, in_parts=None) -> BinnedData:
        """Its features' codes (:func:`tnt.learn.binning.bin_features`, over rows in parts with
        ``in_parts``), its categorical features marked: what :attr:`binned` holds."""
        binned = bin_features(self.X, self.max_bins, in_parts, two_byte=self.two_byte_codes)
        if self.categorical is None or not np.any(self.categorical):
            return binned
        for f in np.flatnonzero(self.categorical):
            real = int(binned.n_bins[f]) - int(binned.missing_code[f] >= 0)
            if not np.array_equal(binned.bin_min[f, :real], binned.bin_max[f, :real]):
                raise ValueError(
                    f"Categorical feature {int(f)} has more categories than max_bins={self.max_bins}; "
                    "raise max_bins to at least its number of categories."
                )
        return dataclasses.replace(binned, categorical=np.asarray(self.categorical, dtype=np.uint8))

    @cached_property
    def has_missing(self) -> bool:
        """Whether some training value is missing (NaN): only then do the walks look for missing values."""
        return bool(np.any(self.binned.missing_code >= 0))

    @cached_property
    def feature_order(self) -> np.ndarray:
        """The order in which micro trees try features: it breaks ties between equal splits."""
        return np.random.RandomState(self.seed).permutation(self.X.shape[1])

    @cached_property
    def total_weight(self) -> float:
        return float(self.w.sum())

    def split_price(self, C: float) -> float:
        """What a guarded refit must lower its reduced problem's misrouted weight by for each split
        it adds, growing at ``C`` (:func:`tnt.learn.refit_guard.improves_on_split`): ``C`` times the
        total weight with ``refit_rule`` "cost_complexity", else nothing."""
        return C * self.total_weight if self.refit_rule == PRICED else 0.0

    def working_graph(self, start: FlatGraph) -> WorkingGraph:
        """The working graph of a phase (or of fine-tuning) starting at ``start``: with the columns of
        categorical tests when a feature is categorical (:mod:`tnt.learn.category_columns`), made
        afresh so that only the tests of the graph and of the micro trees installed in it take memory."""
        categorical = self.categorical is not None and bool(np.any(self.categorical))
        columns = CategoryColumns(self.X, self.category_codes) if categorical else None
        return WorkingGraph(start, self.has_missing, columns)

    @cached_property
    def category_codes(self) -> dict:
        """The integer codes of the categorical columns, read once a fit for the columns of every
        phase's categorical tests (:class:`tnt.learn.category_columns.CategoryColumns`)."""
        return {}

    @cached_property
    def unit_weights(self) -> bool:
        """Whether every weight is 1 (no ``sample_weight``, or one of ones)."""
        return bool(np.all(self.w == 1.0))

    @cached_property
    def ones(self) -> np.ndarray:
        return np.ones(self.X.shape[0])

    def micro_tree_weights(self, rows: np.ndarray, C: float) -> tuple[np.ndarray, float, float]:
        """The weights of a micro tree fitted on ``rows`` growing at ``C``, their sum as the fit sums
        them, and the tree's pruning level ``alpha = C * W / sum`` (``W`` the total weight)."""
        if self.unit_weights:  # a sum of ones is exact: the same as summing them
            w, total = self.ones[: rows.size], float(rows.size)
        else:
            w = self.w[rows]
            total = float(np.add.reduce(w))
        return w, total, C * self.total_weight / total

    def loss(self) -> ZeroOneLoss:
        """What the growth loop minimises on this problem: the 0/1 loss."""
        return ZeroOneLoss(self)


class _MicroTreeCache:
    """Reuse a node's micro tree when it would be refitted on exactly the same samples and targets.

    Within a phase a node is refitted on every pass, and many nodes see the same data again
    (during the first phase the graph is a single leaf, so every pass fits the same tree).
    The learner is deterministic, so reusing the tree changes nothing. An entry is keyed by the
    bytes of its rows and targets; ``targets`` None keys by the rows alone, for fits whose targets
    are a function of the rows (a classifier's leaves: the class labels, fixed during a fit).
    """

    def __init__(self):
        self._entries: dict[int, tuple[bytes, MicroTree]] = {}

    def get(self, node, rows, targets, fit):
        """The tree :meth:`find` gives, else ``fit()``'s, stored for the next time."""
        tree = self.find(node, rows, targets)
        if tree is None:
            tree = fit()
            self.store(node, rows, targets, tree)
        return tree

    def find(self, node, rows, targets=None):
        """The tree last fitted in ``node`` when it was fitted on these ``rows`` and ``targets``, else None."""
        entry = self._entries.get(node)
        if entry is not None and entry[0] == _key(rows, targets):
            return entry[1]
        return None

    def store(self, node, rows, targets, tree) -> None:
        self._entries[node] = (_key(rows, targets), tree)


def _key(rows: np.ndarray, targets: np.ndarray | None) -> bytes:
    """What :class:`_MicroTreeCache` compares: the bytes of ``rows`` and of ``targets`` (two keys are
    equal only for rows of one length, so the boundary between the two parts is the same)."""
    return rows.tobytes() if targets is None else rows.tobytes() + targets.tobytes()


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.array_equal`` for two 1-d arrays of one dtype, without its overhead (called per node)."""
    return a.shape == b.shape and a.tobytes() == b.tobytes()


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


def fit_threads(problem: _Problem, requested: int) -> int:
    """The threads a fit on ``problem`` uses when ``requested`` are asked for (``n_jobs``): one
    when the training matrix has fewer than :data:`THREADED_WORK` values and every feature few
    enough codes to be scanned in histograms (at most
    :data:`tnt.learn.split_search.HISTOGRAM_MAX_BINS`, a missing value's included), else ``requested``.

    On such data no wave is large enough to be shared among threads, so threads could only scan
    the features of a large node together (:func:`tnt.learn.tree_builder.threaded`), which costs
    more than it saves with histograms (measured in ``docs/speed_history.md``, 2026-11-28); a
    feature kept in sorted runs (many distinct values, e.g. California housing) gains from it.
    """
    n_samples, n_features = problem.X.shape
    if requested > 1 and n_samples * n_features < THREADED_WORK and not problem.binned.has_sorted_runs:
        return 1
    return requested


class _Workers:
    """Threads that grow micro trees in nodes of which none is an ancestor of another, and that
    route the samples of a wave in parts.

    Such nodes do not influence each other within a pass (a node's samples depend on its
    ancestors only, the predictions below it on its descendants only), so any order, or none,
    gives the same graph. A node alone in its wave scans its features on all threads instead.
    """

    def __init__(self, problem: _Problem, n_threads: int):
        self.problem = problem
        self.n_threads = n_threads
        self.pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None
        if "binned" not in problem.__dict__:  # bin on the threads too
            work = problem.X.shape[0] * problem.X.shape[1]
            problem.binned = problem.bin(lambda task, n: self.in_parts(task, n, work))
        # A large node alone in its wave scans its features on all threads once the copies of the
        # fit kernel that do are compiled; until then on one (tnt.learn.threaded_copies).
        self.shared_workspace = make_workspace(
            problem.binned, problem.n_classes, lanes(problem.binned, n_threads, problem.criteria)
        )
        # A wave's micro trees fitted in batches once their kernel is compiled; until then one by one.
        self.batches = not _one_call_each and batches_ready(problem.binned, self.shared_workspace)
        self._local = threading.local()

    def workspace(self, alone: bool):
        if alone or self.pool is None:
            return self.shared_workspace
        ws = getattr(self._local, "workspace", None)
        if ws is None:
            ws = self._local.workspace = make_workspace(self.problem.binned, self.problem.n_classes, 1)
        return ws

    def threaded(self, n_tasks: int, work: int, least: int | None = None) -> bool:
        """Whether ``n_tasks`` tasks (a wave's nodes, or parts of its samples) are shared among
        threads; ``work`` (samples times features reaching them) decides whether they are worth
        waking: on small data they cost more than they save. They are from ``least`` work on
        (:data:`THREADED_WORK` unless given)."""
        least = THREADED_WORK if least is None else least
        return self.pool is not None and n_tasks > 1 and work >= least

    def run(self, wave, visit, work: int, least: int | None = None) -> None:
        """Visit the nodes of ``wave``, on threads when :meth:`threaded` says so: each thread takes
        the next node in ``wave``'s order until none is left (one task per thread, not per node:
        a future per node made hundreds of objects at a time, and Python's garbage collector ran
        twenty times as often as with one thread)."""
        if not self.threaded(len(wave), work, least):
            workspace = self.workspace(alone=True)
            for node in wave:
                visit(node, workspace)
            return
        nodes = iter(wave)
        lock = threading.Lock()

        def take_nodes():
            workspace = self.workspace(alone=False)
            while True:
                with lock:
                    node = next(nodes, None)
                if node is None:
                    return
                visit(node, workspace)

        self.in_parts(lambda start, stop: take_nodes(), self.n_threads, work, least)

    def in_parts(self, task, n: int, work: int, least: int | None = None) -> list:
        """``task(start, stop)`` over ``0..n``: in one part per thread, on all threads at once, when
        :meth:`threaded` says so, else in one part. Returns the parts' results in order."""
        n_parts = min(self.n_threads, n)  # none empty
        if not self.threaded(n_parts, work, least):
            return [task(0, n)]
        bounds = [n * part // n_parts for part in range(n_parts + 1)]
        others = [self.pool.submit(task, bounds[p], bounds[p + 1]) for p in range(1, n_parts)]
        first = task(bounds[0], bounds[1])
        return [first] + [future.result() for future in others]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def _waves(start: FlatGraph) -> list[np.ndarray]:
    """Nodes grouped by their longest distance from the root: no node is an ancestor of another
    in its group, and every group comes after the groups of all its nodes' ancestors."""
    depth = longest_distances(start.children_left, start.children_right)
    order = np.argsort(depth, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(depth[order])) + 1)


_NO_NODES = np.empty(0, dtype=np.int64)


class _CodeThresholds:
    """The working graph's thresholds on the fit's codes (:func:`tnt.learn.wave_routing.code_thresholds`)
    through a grow pass, each slot's computed once: a pass's first wave computes them for every
    slot, and after each wave's installs they are computed again only for the slots those wrote,
    its nodes' and the new ones (:meth:`refresh`), not for the whole graph before and after every
    wave's installs."""

    def __init__(self, binned):
        self.binned = binned
        self.on_codes = np.zeros(0)
        self.cut = np.full(0, -1, dtype=np.int64)
        self.size = 0  # slots computed: 0..size-1
        self.lock = threading.Lock()

    def refresh(self, graph: WorkingGraph, rewritten: np.ndarray) -> None:
        """Compute the slots ``rewritten`` and those added to ``graph`` since the last refresh."""
        _, _, feature, threshold, _, _ = graph.all_arrays()
        if feature.shape[0] > self.on_codes.shape[0]:  # the graph made room: so do these
            self.on_codes = np.concatenate([self.on_codes, np.zeros(feature.shape[0] - self.on_codes.shape[0])])
            self.cut = np.concatenate([self.cut, np.full(feature.shape[0] - self.cut.shape[0], -1, dtype=np.int64)])
        b = self.binned
        size = graph.size
        update_code_thresholds(
            feature, threshold, b.bin_min, b.bin_max, b.n_bins, rewritten, self.size, size, self.on_codes, self.cut
        )
        self.size = size


class _Wave:
    """The samples at the nodes of one wave of a grow pass (:func:`_waves`), grouped by node, with
    what :mod:`tnt.learn.wave_routing` finds about them: which are sensitive, and where they go.

    ``moves`` holds the state of the pass shared by all waves: ``(pos, memo_child, memo_label)``;
    ``labels`` the samples' classes that the labels reached are compared with
    (:func:`tnt.learn.wave_routing.sensitive_samples`).
    A regression compares none (its labels are -1), and reads the labels reached (``reached``) instead.
    """

    def __init__(
        self, graph: WorkingGraph, problem: _Problem, nodes: np.ndarray, index_of: np.ndarray, moves, labels, codes
    ):
        self.graph, self.problem, self.nodes, self.moves = graph, problem, nodes, moves
        self.labels = labels
        # The pass's thresholds on codes (None on categorical tests' columns), up to date before the
        # installs; after them once the first part of the moves has refreshed them.
        self.codes = codes
        self._rewritten = False
        if codes is not None:
            codes.refresh(graph, _NO_NODES)
        self.ready: dict[int, MicroTree] = {}  # micro trees fitted or found before the installs, by node
        index_of[nodes] = np.arange(nodes.size)
        self.order, self.offsets = bucket_rows(moves[0], index_of, nodes.size)
        index_of[nodes] = -1
        self.size = np.diff(self.offsets)
        # Python ints for the per-node work of the installs (numpy scalars index more slowly).
        self.node_ids, self.bounds = nodes.tolist(), self.offsets.tolist()
        self.is_leaf = (graph.start.children_left[nodes] < 0).tolist()
        m = self.order.size
        self.sensitive = np.zeros(m, dtype=np.bool_)  # never set at a leaf's positions
        self.target = np.empty(m, dtype=np.int64)
        self.below = np.empty((m, 2), dtype=np.int64)
        self.reached = np.empty((m, 2), dtype=np.int64)

    def rows(self, i: int) -> np.ndarray:
        return self.order[self.bounds[i] : self.bounds[i + 1]]

    def gather_sensitive(self) -> None:
        """Gather the sensitive samples of all the wave's internal nodes and their targets, node by
        node, once :meth:`find_sensitive` has covered every position (for :meth:`sensitive_rows`)."""
        chosen = np.flatnonzero(self.sensitive)
        self._sensitive_order, self._sensitive_target = self.order[chosen], self.target[chosen]
        self._sensitive_bounds = np.searchsorted(chosen, self.offsets).tolist()

    def sensitive_rows(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The sensitive samples at internal node ``nodes[i]`` and their targets (0: left is right,
        1: right is right), in the order of :meth:`rows`; :meth:`gather_sensitive` must have run."""
        a, b = self._sensitive_bounds[i], self._sensitive_bounds[i + 1]
        return self._sensitive_order[a:b], self._sensitive_target[a:b]

    def _positions(self, start: int, stop: int):
        """``(order, offsets, nodes)`` for the kernels, each node's positions clipped to ``start:stop``
        (a kernel visits node ``i``'s positions ``offsets[i]:offsets[i + 1]``; no position depends on
        another, so a wave is routed in parts)."""
        offsets = self.offsets if (start, stop) == (0, self.order.size) else np.clip(self.offsets, start, stop)
        return self.order, offsets, self.nodes

    def _samples(self, feature, threshold, missing_left):
        """The matrix the walks read the samples from, the graph's thresholds on it, where missing
        values go (:func:`missing_routing`) and which samples go by value (:func:`cut_routing`): the
        fit's feature codes, with the values of the bins a threshold cuts (:func:`code_thresholds`;
        a quantile bin may be cut, a bin of one value never is), so that the walks read one byte
        or two of a sample's feature, not four, as the values would route it."""
        if self.graph.categories is not None:  # categorical tests read columns of their own
            samples = self.graph.routed(self.problem.X)
            missing = None
            if self.problem.has_missing:
                missing = (np.full(samples.shape[1], np.nan), missing_left)
            return samples, threshold, missing, None
        binned, codes = self.problem.binned, self.codes
        on_codes, cut = codes.on_codes, codes.cut[: codes.size]
        missing = (
            missing_routing(binned.missing_code, missing_left, on_codes=True) if self.problem.has_missing else None
        )
        wide = binned.codes.dtype.itemsize > 1
        return binned.codes, on_codes, missing, cut_routing(cut, self.problem.X, threshold, always=wide)

    def find_sensitive(self, start: int, stop: int) -> None:
        """Sensitive samples among positions ``start:stop`` (those of internal nodes), before the
        nodes' installs."""
        g, phase_start = self.graph, self.graph.start
        left, right, feature, threshold, label, missing_left = g.all_arrays()
        samples, threshold, missing, cut = self._samples(feature, threshold, missing_left)
        sensitive_samples(
            samples,
            self.labels,
            self._positions(start, stop),
            phase_start.children_left,
            phase_start.children_right,
            g.n_orig,
            (left, right, feature, threshold),
            missing,
            cut,
            label,
            self.moves[1:],
            (self.below, self.reached),
            self.sensitive,
            self.target,
        )

    def move(self, start: int, stop: int) -> None:
        """Send the samples at positions ``start:stop`` to the children, after the nodes' installs."""
        g = self.graph
        if self.codes is not None:
            with self.codes.lock:  # the moves' first part, of one or several threads, refreshes them
                if not self._rewritten:
                    self.codes.refresh(g, self.nodes)
                    self._rewritten = True
        left, right, feature, threshold, _, missing_left = g.all_arrays()
        samples, threshold, missing, cut = self._samples(feature, threshold, missing_left)
        move_samples(
            samples,
            self._positions(start, stop),
            g.start.children_left,
            g.n_orig,
            (left, right, feature, threshold),
            missing,
            cut,
            (self.below, self.reached),
            self.moves[0],
            self.moves[1:],
            one_by_one(samples),
        )


def _pass_waves(graph: WorkingGraph, problem: _Problem, labels=None):
    """The waves of a grow pass as :class:`_Wave` objects, parents first; each is made when the one
    before it has moved its samples on."""
    n = problem.X.shape[0]
    # The phase-start node each sample sits at, and its memo (see tnt.learn.wave_routing).
    moves = (np.zeros(n, dtype=np.int64), np.full(n, NO_MEMO, dtype=np.int64), np.zeros(n, dtype=np.int64))
    index_of = np.full(graph.n_orig, -1, dtype=np.int64)
    labels = problem.y if labels is None else labels
    codes = _CodeThresholds(problem.binned) if graph.categories is None else None
    for nodes in _waves(graph.start):
        yield _Wave(graph, problem, nodes, index_of, moves, labels, codes)


def _grow_pass(
    graph: WorkingGraph, problem: _Problem, C: float, cache: _MicroTreeCache, workers: _Workers, log=None
) -> None:
    """Visit every node once, parents first, and install a freshly fitted micro tree in it; with a
    ``log`` list, append what each node got (see :attr:`GrowthEvent.details`).

    A wave goes in three steps (:class:`_Wave`): the sensitive samples of all its nodes, then the
    installs, then the moves of all its samples to the children. With threads, the first and last
    steps split the wave's samples in equal parts, one per thread, and the installs share the nodes
    (a node alone in its wave is fitted on all threads).
    """
    split_price = problem.split_price(C)

    def fit(rows, targets, n_targets, workspace):
        w, _, alpha = problem.micro_tree_weights(rows, C)
        return fit_micro_tree(problem.binned, problem.feature_order, rows, targets, w, alpha, n_targets, workspace)

    def install(wave: _Wave, i: int, workspace) -> None:
        node = wave.node_ids[i]
        if wave.bounds[i] == wave.bounds[i + 1]:
            graph.reset(node)
            return
        tree = wave.ready.get(node)  # fitted or found by _fit_in_batches
        if wave.is_leaf[i]:
            rows = wave.rows(i)
            # A leaf's targets are its rows' labels: keyed by the rows alone, gathered only to fit.
            if tree is None:
                tree = cache.get(node, rows, None, lambda: fit(rows, problem.y[rows], problem.n_classes, workspace))
            graph.install_leaf_tree(node, tree)
            if log is not None:
                log.append((node, True, rows.size, rows.size, tree.n_splits))
            return
        sens_rows, sens_targets = wave.sensitive_rows(i)
        if sens_rows.size == 0:
            graph.reset(node)
        else:
            if tree is None:
                tree = cache.get(node, sens_rows, sens_targets, lambda: fit(sens_rows, sens_targets, 2, workspace))
            if problem.refit_rule != "always" and not graph.improves(
                node, tree, problem.X, sens_rows, sens_targets, problem.w[sens_rows], split_price
            ):
                graph.reset(node)
            else:
                graph.install_split_tree(node, tree)
        if log is not None:
            log.append(
                (
                    node,
                    False,
                    wave.bounds[i + 1] - wave.bounds[i],
                    sens_rows.size,
                    tree.n_splits if sens_rows.size else 1,
                )
            )

    for wave in _pass_waves(graph, problem):
        work = wave.order.size * problem.X.shape[1]
        workers.in_parts(wave.find_sensitive, wave.order.size, work)
        wave.gather_sensitive()
        # Largest first, so that no thread is left with a large node at the end of the wave.
        by_size = np.argsort(-wave.size, kind="stable")
        if workers.batches and not workers.threaded(by_size.size, work):
            wave.ready, settled = _fit_in_batches(wave, problem, C, cache, workers.workspace(alone=True), graph)
            if log is None:  # a node whose install would change nothing is not visited
                by_size = by_size[~settled[by_size]]
        workers.run(by_size.tolist(), lambda i, workspace, wave=wave: install(wave, i, workspace), work)
        workers.in_parts(wave.move, wave.order.size, work)


_one_call_each = False  # set by one_call_per_micro_tree


@contextlib.contextmanager
def one_call_per_micro_tree():
    """Within this context a classification pass fits each micro tree by its own call of
    :func:`tnt.learn.micro_tree.fit_micro_tree` (which calls the fit kernel from Python), as it does
    before the batch kernel is compiled: the same graphs. For what wraps or replaces those functions
    (the warm-up's stand-in fit kernel, the studies of ``benchmarks/``), which a batch would bypass."""
    global _one_call_each
    before, _one_call_each = _one_call_each, True
    try:
        yield
    finally:
        _one_call_each = before


def _fit_in_batches(
    wave: _Wave, problem: _Problem, C: float, cache: _MicroTreeCache, workspace, graph: WorkingGraph
) -> tuple[dict, np.ndarray]:
    """The micro trees of a wave's nodes, by node: those the ``cache`` holds, and those it does not,
    fitted in one compiled call for the wave's leaves and one for its internal nodes
    (:func:`tnt.learn.micro_tree.fit_trees`, the same trees as one fit at a time) and stored in it.
    A fit that scans its features on the workspace's several threads is left to its install. For a
    wave that is not shared among threads: without the Python of a call per fit, a small table's
    grow pass takes less time.

    Also, per position in the wave, whether its node is settled: the cache gave it the tree its slot
    holds (``graph``), so its install would change nothing. That tree was stored with the rows and
    targets it has now and installed with them, and whether an internal node keeps it
    (:meth:`WorkingGraph.improves`) depends on nothing else; most nodes of a pass after the first
    of its phase are settled."""
    n_features, n_lanes = problem.X.shape[1], workspace.left.shape[0]
    ready, leaves, internal = {}, [], []
    settled = np.zeros(len(wave.node_ids), dtype=np.bool_)
    for i, node in enumerate(wave.node_ids):
        if wave.bounds[i] == wave.bounds[i + 1]:
            continue
        if wave.is_leaf[i]:
            rows, targets, fits = wave.rows(i), None, leaves
        else:
            (rows, targets), fits = wave.sensitive_rows(i), internal
        if rows.size == 0:
            continue
        tree = cache.find(node, rows, targets)
        if tree is not None:
            ready[node] = tree
            settled[i] = graph.holds(node, tree)
        elif threaded(rows.size, n_features, n_lanes) is None:
            fits.append((node, rows, targets))
    for fits, n_targets in ((leaves, problem.n_classes), (internal, 2)):
        if not fits:
            continue
        rows = np.concatenate([fit[1] for fit in fits])
        targets = problem.y[rows] if fits is leaves else np.concatenate([fit[2] for fit in fits])
        sizes = np.array([fit[1].size for fit in fits])
        stops = np.cumsum(sizes)
        starts = stops - sizes
        weights, totals, alphas = zip(*(problem.micro_tree_weights(fit[1], C) for fit in fits))
        w = np.concatenate(weights)
        trees = fit_trees(
            problem.binned, problem.feature_order, rows, targets, w, starts, stops, alphas, totals, workspace, n_targets
        )
        for (node, node_rows, node_targets), tree in zip(fits, trees):
            cache.store(node, node_rows, node_targets, tree)
            ready[node] = tree
    return ready, settled


def refit_stump_unless_worse(graph, node: int, problem, rows, targets, w, workspace):
    """Fit a stump on the reduced problem ``(rows, targets, w)`` of an internal ``node`` and keep it
    unless it misroutes more weight than the node's split; returns the node's slot as it was."""
    old_error = _weighted_error(~graph.goes_left(node, problem.X, rows), targets, w)
    saved = graph.slot(node)
    graph.install_split_tree(node, fit_stump(problem.binned, problem.feature_order, rows, targets, w, workspace))
    if _weighted_error(~graph.goes_left(node, problem.X, rows), targets, w) > old_error:
        graph.restore(node, saved)
    return saved


def _weighted_error(go_right: np.ndarray, targets: np.ndarray, w: np.ndarray) -> float:
    return float(w[go_right.astype(np.intp) != targets].sum())


class _FineTuneMemory:
    """What the rounds of :func:`fine_tune_graph` keep of each node's last visit, to skip work whose
    inputs have not changed since (each skip gives exactly what the work would):

    - the node's sensitive samples and targets, computed from the rows reaching it and the
      predictions of its two children, which only change when the rows or a node below do;
    - its last refit: a node refitted on the sensitive samples and targets of its last refit is left
      as it is, since the stump fit is deterministic, so the same stump would be fitted and the same
      choice made between it and the split the last refit left;
    - where its split sent its rows, while neither has changed.

    Later rounds change few nodes, so most refits are skipped (measured in ``docs/speed_history.md``).
    """

    def __init__(self, n_nodes: int):
        self.sensitive: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.refit: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.routes: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.changed = np.zeros(n_nodes, dtype=np.bool_)  # nodes whose split or label the last round changed

    def changed_below(self, start: FlatGraph) -> np.ndarray:
        """Nodes with a node below them that the last round changed."""
        left, right = start.children_left, start.children_right
        reaching = ancestors(left, right, np.flatnonzero(self.changed))  # numbered topologically
        below = np.zeros_like(self.changed)
        split = left >= 0
        below[split] = reaching[left[split]] | reaching[right[split]]
        return below


def _fine_tune_round(graph: WorkingGraph, problem: _Problem, workspace, memory: _FineTuneMemory) -> None:
    """One round of Algorithm A.1 over a fixed structure.

    An internal node refits its single split on its sensitive samples, and keeps the new split
    only when it misroutes no more sensitive weight than the old one, so training accuracy never
    drops. A leaf takes the weighted majority class of the samples reaching it. ``memory`` (kept by
    the caller from round to round) skips the work a node would repeat unchanged.
    """
    start = graph.start
    stale = memory.changed_below(start)
    changed = np.zeros_like(memory.changed)
    incoming: list[list[np.ndarray]] = [[] for _ in range(graph.n_orig)]
    incoming[0].append(np.arange(problem.X.shape[0]))
    for node in range(graph.n_orig):
        rows = _gather(incoming[node])
        incoming[node] = []
        if rows.size == 0:  # what is remembered of a node holds from one round to the next only
            memory.sensitive.pop(node, None)
            memory.routes.pop(node, None)
            continue
        if start.children_left[node] < 0:
            counts = np.bincount(problem.y[rows], weights=problem.w[rows], minlength=problem.n_classes)
            label = int(np.argmax(counts))
            changed[node] = label != graph.label[node]
            graph.label[node] = label
            continue
        known = memory.sensitive.get(node)
        if known is not None and not stale[node] and _same(known[0], rows):
            sens_rows, targets = known[1], known[2]
        else:
            sens_rows, targets = _sensitive(graph, node, problem, rows)
            memory.sensitive[node] = (rows, sens_rows, targets)
        last = memory.refit.get(node)
        if sens_rows.size and not (last is not None and _same(last[0], sens_rows) and _same(last[1], targets)):
            memory.refit[node] = (sens_rows, targets)
            saved = refit_stump_unless_worse(graph, node, problem, sens_rows, targets, problem.w[sens_rows], workspace)
            now = graph.slot(node)
            # A direction routes samples only when some have missing values.
            changed[node] = now[:4] != saved[:4] or (graph.missing_values and now[4] != saved[4])
        route = memory.routes.get(node)
        if route is not None and not changed[node] and _same(route[0], rows):
            to_left, to_right = route[1], route[2]
        else:
            to_left, to_right = graph.route_through(node, problem.X, rows)
            memory.routes[node] = (rows, to_left, to_right)
        incoming[start.children_left[node]].append(to_left)
        incoming[start.children_right[node]].append(to_right)
    memory.changed = changed


class ZeroOneLoss:
    """The classifier's loss in the growth loop: a leaf's micro tree fits the class labels, an
    internal node's the sensitive samples (:func:`_grow_pass`), fine-tuning is :func:`fine_tune_graph`.

    The loop (:func:`grow_graph`) asks a loss for the graph it starts from, one grow pass and the
    fine-tuning rounds; :class:`tnt.learn.regression_growth.SquaredLoss` is the regressor's.
    """

    #: Grow passes log their micro trees, for the progress events' details.
    logs_micro_trees = True

    def __init__(self, problem: _Problem):
        self.problem = problem

    def first_graph(self) -> FlatGraph:
        """One leaf labelled with the class of largest weight."""
        counts = np.bincount(self.problem.y, weights=self.problem.w, minlength=self.problem.n_classes)
        return FlatGraph.single_leaf(int(np.argmax(counts)))

    def grow_pass(self, working: WorkingGraph, C: float, cache: _MicroTreeCache, workers: _Workers, log) -> None:
        _grow_pass(working, self.problem, C, cache, workers, log)

    def fine_tuned(self, graph: FlatGraph, rounds: int, report) -> FlatGraph:
        return fine_tune_graph(graph, self.problem, rounds, _report=report)


def grow_graph(
    problem: _Problem,
    C: float,
    N1: int,
    N2: int,
    fine_tune: int = 0,
    callback: ProgressCallback = None,
    n_threads: int = 1,
    max_steps: int | None = None,
) -> FlatGraph:
    """Train a TnT decision graph (Algorithm 2), then fine-tune it for ``fine_tune`` rounds, for the
    loss of the problem (``problem.loss()``: the 0/1 loss of a classification, the squared error of a
    :class:`tnt.learn.regression_growth.RegressionProblem`).

    With ``max_steps``, training stops after that many steps (grow passes, merges and fine-tuning
    rounds, counted as :class:`GrowthEvent` counts them) and returns the graph as it stands then,
    merged: the graph ``event.snapshot()`` shows at that step.

    A regression graph's leaf labels are meaningless outside training: its leaf values are the mean
    training targets of its leaves (see :meth:`tnt.graph.DecisionGraph.with_regression_stats`).
    """
    loss = problem.loss()
    graph = loss.first_graph()
    schedule = growth_steps(N1, N2)
    total_steps = growth_steps(N1, N2, fine_tune)
    if max_steps is not None:
        total_steps = min(max_steps, total_steps)
    step = 0

    def report(kind, phase, working_or_flat, details=None, counts=None):
        nonlocal step
        step += 1
        if callback is None:
            return
        if isinstance(working_or_flat, FlatGraph):
            snapshot = lambda g=working_or_flat: g  # noqa: E731
        else:
            merged = compact(working_or_flat, problem.X, counts)
            snapshot = lambda g=merged: g  # noqa: E731
        callback(GrowthEvent(kind, phase, step, total_steps, snapshot().n_splits, snapshot, details))

    workers = _Workers(problem, fit_threads(problem, n_threads))
    try:
        for phase in range(1, N1 + 1):
            working = problem.working_graph(graph)
            cache = _MicroTreeCache()
            details = None
            for _ in range(N2):
                log = None if callback is None or not loss.logs_micro_trees else []
                loss.grow_pass(working, C, cache, workers, log)
                counts = None
                if log is not None:  # one routing of the samples for the details and the snapshot
                    counts = working.routing_counts(problem.X)
                    details = {"micro_trees": sorted(log), "dead": dead_splits(working, problem.X, counts)}
                report("grow", phase, working, details, counts)
                if step == total_steps:
                    return compact(working, problem.X)
            graph = compact(working, problem.X)
            report("merge", phase, graph, details and {"dead": details["dead"]})
            if step == total_steps:
                return graph
    finally:
        workers.close()
    return loss.fine_tuned(graph, total_steps - schedule, report)


def fine_tune_graph(graph: FlatGraph, problem: _Problem, rounds: int, _report=None) -> FlatGraph:
    """Algorithm A.1: ``rounds`` rounds of alternating optimisation over a fixed structure, then
    removal of the nodes it made dead. Applied to a CART tree this is TAO for axis-aligned trees."""
    if rounds == 0:
        return graph
    workspace = make_workspace(problem.binned, 2, 1)
    working = problem.working_graph(graph)
    memory = _FineTuneMemory(working.n_orig)
    for _ in range(rounds):
        _fine_tune_round(working, problem, workspace, memory)
        if _report is not None:
            _report("fine_tune", 0, working)
    return compact(working, problem.X)
