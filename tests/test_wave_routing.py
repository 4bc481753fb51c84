"""The wave-batched grow pass (tnt.learn.wave_routing) against the node-by-node definition.

A grow pass finds each internal node's sensitive samples by routing them from both phase-start
children, fits a micro tree and sends the samples on through it. The compiled pass does this a wave
at a time and routes from only one child, the other's prediction being remembered from the
parent's visit; here it is checked against a plain reimplementation of the definition, pass after
pass, on one thread and with the threads forced on.
"""

from collections import Counter

import numpy as np
import pytest
from growth_helpers import nodes_with_their_rows, one_split_graph
from sklearn.datasets import load_digits, make_classification

import tnt.learn.growth as growth
from tnt.learn import wave_routing
from tnt.learn.binning import bin_features
from tnt.learn.growth import _grow_pass, _MicroTreeCache, _Problem, _Workers
from tnt.learn.micro_tree import MicroTree, fit_micro_tree
from tnt.learn.walks import topological_order
from tnt.learn.wave_routing import (
    _self_loops,
    _walk_in_lanes,
    _walk_one,
    _walk_together,
    bucket_rows,
    code_thresholds,
    cut_routing,
    missing_routing,
)
from tnt.learn.working_graph import FlatGraph, WorkingGraph, compact, dead_splits


def _reference_pass(graph: WorkingGraph, problem: _Problem, C: float, log: list) -> None:
    """Algorithm 2's grow pass written out node by node, as the paper states it."""
    start = graph.start
    for node, rows in nodes_with_their_rows(graph, problem):
        w = problem.w[rows]
        alpha = C * problem.total_weight / float(w.sum())
        if start.children_left[node] < 0:
            targets = problem.y[rows]
            tree = fit_micro_tree(problem.binned, problem.feature_order, rows, targets, w, alpha, problem.n_classes)
            graph.install_leaf_tree(node, tree)
            log.append((node, True, rows.size, rows.size, tree.n_splits))
            continue
        y = problem.y[rows]
        left_ok = graph.predict_from(start.children_left[node], problem.X, rows) == y
        right_ok = graph.predict_from(start.children_right[node], problem.X, rows) == y
        sensitive = left_ok != right_ok
        sens_rows, targets = rows[sensitive], right_ok[sensitive].astype(np.intp)
        splits = 1
        if sens_rows.size == 0:
            graph.reset(node)
        else:
            w = problem.w[sens_rows]
            alpha = C * problem.total_weight / float(w.sum())
            tree = fit_micro_tree(problem.binned, problem.feature_order, sens_rows, targets, w, alpha, 2)
            graph.install_split_tree(node, tree)
            splits = tree.n_splits
        log.append((node, False, rows.size, sens_rows.size, splits))


def _same_graph(a: WorkingGraph, b: WorkingGraph) -> bool:
    """The same nodes reachable from slot 0, in the same places, whatever slots hold them (a
    micro tree installed again in the node holding it is not written again)."""
    return all(np.array_equal(x, y) for x, y in zip(_reachable(a), _reachable(b)))


def _reachable(graph: WorkingGraph) -> list[np.ndarray]:
    """The slots reachable from slot 0, numbered in topological order: edges, features,
    thresholds, labels."""
    n = graph.size
    order = topological_order(graph.left[:n], graph.right[:n])
    new_id = np.full(n, -1)
    new_id[order] = np.arange(order.size)
    left, right = graph.left[order], graph.right[order]
    return [
        np.where(left < 0, -1, new_id[left]),
        np.where(right < 0, -1, new_id[right]),
        graph.feature[order],
        graph.threshold[order],
        graph.label[order],
    ]


def _datasets():
    X, y = load_digits(return_X_y=True)
    Xc, yc = make_classification(n_samples=1500, n_features=8, n_informative=5, n_classes=3, random_state=3)
    w = np.random.default_rng(0).uniform(0.2, 2.0, size=yc.size)
    return [("digits", X, y, np.ones(y.size)), ("continuous, weighted", Xc, yc, w)]


@pytest.mark.parametrize("walks", ["one by one", "in lanes"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", _datasets(), ids=lambda c: c[0])
def test_wave_batched_passes_equal_the_node_by_node_definition(case, threads, walks, monkeypatch):
    _, X, y, w = case
    if threads > 1:
        monkeypatch.setattr(growth, "THREADED_WORK", 0)  # every wave of several nodes on threads
    if walks == "in lanes":  # data this small is walked one sample after the other unless made not to
        monkeypatch.setattr(wave_routing, "CACHED_BYTES", -1)
        monkeypatch.setattr(wave_routing, "NARROW_ROW_BYTES", -1)
    classes, y_enc = np.unique(y, return_inverse=True)
    problem = _Problem(np.ascontiguousarray(X, dtype=np.float32), y_enc.astype(np.intp), w, classes.size, seed=0)
    C = 3e-3
    graph = FlatGraph.single_leaf(0)
    workers = _Workers(problem, threads)
    try:
        for _ in range(3):  # phases: the later ones start from graphs with shared nodes
            fast, slow = WorkingGraph(graph), WorkingGraph(graph)
            cache = _MicroTreeCache()
            for _ in range(3):
                fast_log, slow_log = [], []
                _grow_pass(fast, problem, C, cache, workers, fast_log)
                _reference_pass(slow, problem, C, slow_log)
                assert sorted(fast_log) == sorted(slow_log)
                assert _same_graph(fast, slow)
                assert sorted(dead_splits(fast, problem.X)) == sorted(dead_splits(slow, problem.X))
                all_rows = np.arange(problem.X.shape[0])
                assert np.array_equal(
                    fast.predict_from(0, problem.X, all_rows), slow.predict_from(0, problem.X, all_rows)
                )
            merged = compact(fast, problem.X)
            reference = compact(slow, problem.X)
            for name in ("children_left", "children_right", "feature", "threshold", "label"):
                assert np.array_equal(getattr(merged, name), getattr(reference, name))
            graph = merged
        assert graph.n_splits > 20, "the test should reach graphs with many nodes"
    finally:
        workers.close()


@pytest.mark.parametrize("max_bins", [65535, 8], ids=["exact bins", "eight bins"])
def test_thresholds_between_bins_route_codes_as_values_and_others_are_reported(max_bins):
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(400, 3)), 1).astype(np.float32)  # ties: several samples per value
    binned = bin_features(X, max_bins)
    feature, threshold = [], []
    for f in range(3):
        lows, highs = binned.bin_max[f, : binned.n_bins[f] - 1], binned.bin_min[f, 1 : binned.n_bins[f]]
        feature += [f] * (lows.size + 3)
        threshold += list((lows.astype(np.float64) + highs) / 2) + [-np.inf, np.inf, 99.0]
    feature, threshold = np.array(feature + [-2]), np.array(threshold + [-2.0])  # and a leaf
    on_codes, cut = code_thresholds(feature, threshold, binned.bin_min, binned.bin_max, binned.n_bins)
    assert (cut == -1).all()
    for f, t, c in zip(feature[:-1], threshold[:-1], on_codes[:-1]):
        assert np.array_equal(binned.codes[:, f] <= c, X[:, f] <= t)
    # A threshold inside a bin of several values: codes cannot route it.
    inside = [(f, b) for f in range(3) for b in range(binned.n_bins[f]) if binned.bin_min[f, b] < binned.bin_max[f, b]]
    if max_bins == 8:
        f, b = inside[0]
        t = (np.float64(binned.bin_min[f, b]) + binned.bin_max[f, b]) / 2
        assert code_thresholds(np.array([f]), np.array([t]), binned.bin_min, binned.bin_max, binned.n_bins)[1] == [b]
    else:
        assert inside == []


def test_a_pass_over_a_graph_grown_on_other_data_equals_the_definition():
    # The phase-start graph's thresholds come from other samples and cut the bins of these: the
    # walks read the samples' codes, and their values where a node cuts the bin of their code.
    X, y = make_classification(n_samples=1200, n_features=6, n_informative=4, n_classes=3, random_state=1)
    X = X.astype(np.float32)
    other = _Problem(X[:600], y[:600], np.ones(600), 3, seed=0)
    graph = FlatGraph.single_leaf(0)
    workers = _Workers(other, 1)
    for _ in range(2):
        working = WorkingGraph(graph)
        _grow_pass(working, other, 3e-3, _MicroTreeCache(), workers, [])
        graph = compact(working, other.X)
    workers.close()
    problem = _Problem(X[600:], y[600:], np.ones(600), 3, seed=0, max_bins=8)
    binned = problem.binned
    assert code_thresholds(graph.feature, graph.threshold, binned.bin_min, binned.bin_max, binned.n_bins)[1].max() >= 0
    fast, slow = WorkingGraph(graph), WorkingGraph(graph)
    fast_log, slow_log = [], []
    workers = _Workers(problem, 1)
    try:
        _grow_pass(fast, problem, 3e-3, _MicroTreeCache(), workers, fast_log)
    finally:
        workers.close()
    _reference_pass(slow, problem, 3e-3, slow_log)
    assert sorted(fast_log) == sorted(slow_log)
    assert _same_graph(fast, slow)


def _random_dag(rng, n_nodes: int, n_features: int, n_classes: int):
    """A random DAG in topological order (children after parents) whose leaves carry classes."""
    left = np.full(n_nodes, -1, dtype=np.intp)
    right = np.full(n_nodes, -1, dtype=np.intp)
    for v in range(n_nodes // 2):
        left[v], right[v] = rng.integers(v + 1, n_nodes, size=2)
    feature = np.where(left >= 0, rng.integers(0, n_features, n_nodes), -2).astype(np.intp)
    threshold = np.where(left >= 0, rng.integers(0, 4, n_nodes) + 0.5, -2.0)
    label = np.where(left < 0, rng.integers(0, n_classes, n_nodes), -1).astype(np.intp)
    return left, right, feature, threshold, label


def _plain_walk(x, node, n_orig, left, right, feature, threshold, to_phase_start):
    """One sample's walk, step by step: (where it ends, the first phase-start node passed or -1).
    To a leaf; with ``to_phase_start`` to the first node below ``n_orig`` passed (-1 when a leaf
    comes first)."""
    first = -1
    while left[node] >= 0 and not (to_phase_start and first >= 0):
        node = left[node] if x[feature[node]] <= threshold[node] else right[node]
        if node < n_orig and first < 0:
            first = node
    return (first if to_phase_start else node), first


@pytest.mark.parametrize("seed", range(8))
def test_walks_in_lanes_and_one_by_one_end_where_a_plain_walk_does(seed):
    """The sensitive samples' walks in lanes (to the leaf, and the first phase-start node passed;
    walks from leaves among them, in lists longer and shorter than the lanes) and the moves' walks
    one by one and interleaved (to the first phase-start node passed), against a plain walk."""
    rng = np.random.default_rng(seed)
    left, right, feature, threshold, _ = _random_dag(rng, 61, 4, 3)
    n_orig = 30
    X = rng.integers(0, 5, size=(300, 4)).astype(np.uint8)
    rows = rng.integers(0, 300, size=500).astype(np.int64)
    starts = rng.integers(0, left.size, size=500).astype(np.int64)
    graph = (left, right, feature, threshold)
    to_leaf = [_plain_walk(X[r], v, n_orig, *graph, False) for r, v in zip(rows, starts)]
    to_phase_start = [_plain_walk(X[r], v, n_orig, *graph, True)[0] for r, v in zip(rows, starts)]
    assert sum(left[starts] < 0) > 50 and sum(first >= 0 for _, first in to_leaf) > 20
    loops, leaf = _self_loops(graph)
    for n in (500, 16, 3, 0):
        end, first = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        _walk_in_lanes(X, rows, starts, n, n_orig, loops, leaf, None, None, end, first)
        assert list(zip(end.tolist(), first.tolist())) == to_leaf[:n]
    assert [_walk_one(X, r, v, n_orig, graph, None, None) for r, v in zip(rows, starts)] == to_phase_start
    at, first = starts.copy(), np.empty(500, dtype=np.int64)
    for group in range(0, 500, 16):  # as move_samples hands them: at most LANES at a time
        n = min(16, 500 - group)
        _walk_together(X, rows[group:], at[group:], first[group:], n, n_orig, graph, None, None)
    assert at.tolist() == to_phase_start


def _value_walk(x, node, n_orig, left, right, feature, threshold, missing_left, to_phase_start):
    """:func:`_plain_walk` on values, a missing value (NaN) going left where ``missing_left`` is 1."""
    first = -1
    while left[node] >= 0 and not (to_phase_start and first >= 0):
        value = x[feature[node]]
        goes_left = missing_left[node] == 1 if np.isnan(value) else value <= threshold[node]
        node = left[node] if goes_left else right[node]
        if node < n_orig and first < 0:
            first = node
    return (first if to_phase_start else node), first


@pytest.mark.parametrize("missing_share", [0.0, 0.15], ids=["no missing values", "missing values"])
def test_walks_on_codes_take_the_values_of_the_bins_a_threshold_cuts(missing_share):
    # Quantile bins of several values each, and thresholds anywhere: many cut a bin. Every walker
    # on the codes, with the cut bins' samples compared by value, ends where a walk on the values does.
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(400, 4)), 2).astype(np.float32)
    X[rng.random(X.shape) < missing_share] = np.nan
    binned = bin_features(X, 8)
    left, right, feature, _, _ = _random_dag(rng, 61, 4, 3)
    threshold = np.where(left >= 0, rng.normal(size=left.size).round(3), -2.0)
    missing_left = rng.integers(0, 2, left.size).astype(np.int8)
    n_orig = 30
    on_codes, cut = code_thresholds(feature, threshold, binned.bin_min, binned.bin_max, binned.n_bins)
    assert (cut >= 0).sum() > 10 and (cut[left < 0] == -1).all()
    cuts = cut_routing(cut, X, threshold)
    missing = missing_routing(binned.missing_code, missing_left, on_codes=True)
    assert (missing is None) == (missing_share == 0)
    graph = (left, right, feature, on_codes)
    rows = rng.integers(0, 400, size=500).astype(np.int64)
    starts = rng.integers(0, left.size, size=500).astype(np.int64)
    on_values = (left, right, feature, threshold, missing_left)
    to_leaf = [_value_walk(X[r], v, n_orig, *on_values, False) for r, v in zip(rows, starts)]
    to_phase_start = [_value_walk(X[r], v, n_orig, *on_values, True)[0] for r, v in zip(rows, starts)]
    codes_of_cut_bins = sum(
        binned.codes[r, feature[v]] == cut[v] for r in rows for v in range(left.size) if cut[v] >= 0
    )
    assert codes_of_cut_bins > 500  # the walks meet samples of cut bins
    loops, leaf = _self_loops(graph)
    end, first = np.empty(500, dtype=np.int64), np.empty(500, dtype=np.int64)
    _walk_in_lanes(binned.codes, rows, starts, 500, n_orig, loops, leaf, missing, cuts, end, first)
    assert list(zip(end.tolist(), first.tolist())) == to_leaf
    assert [_walk_one(binned.codes, r, v, n_orig, graph, missing, cuts) for r, v in zip(rows, starts)] == to_phase_start
    at, first = starts.copy(), np.empty(500, dtype=np.int64)
    for group in range(0, 500, 16):
        n = min(16, 500 - group)
        _walk_together(binned.codes, rows[group:], at[group:], first[group:], n, n_orig, graph, missing, cuts)
    assert at.tolist() == to_phase_start
    # Without the values of the cut bins, the codes alone go astray.
    end_codes = np.empty(500, dtype=np.int64)
    _walk_in_lanes(binned.codes, rows, starts, 500, n_orig, loops, leaf, missing, None, end_codes, first)
    assert end_codes.tolist() != end.tolist()


def test_bucket_rows_groups_the_samples_of_a_wave_by_node_in_increasing_order():
    rng = np.random.default_rng(1)
    pos = rng.integers(0, 9, size=500)
    wave = np.array([2, 5, 7])
    index_of = np.full(9, -1, dtype=np.int64)
    index_of[wave] = np.arange(wave.size)
    order, offsets = bucket_rows(pos, index_of, wave.size)
    for i, node in enumerate(wave):
        assert np.array_equal(order[offsets[i] : offsets[i + 1]], np.flatnonzero(pos == node))
    assert offsets[-1] == np.isin(pos, wave).sum()


def test_installing_a_micro_tree_writes_the_slots_a_node_by_node_install_would():
    # Splits take slots in depth-first order after the root; a split tree's leaves become edges.
    start = one_split_graph()
    tree = MicroTree(
        np.array([1, 2, -1, -1, -1]),
        np.array([4, 3, -1, -1, -1]),
        np.array([3, 5, -2, -2, -2]),
        np.array([1.5, 2.5, -2, -2, -2.0]),
        np.array([-1, -1, 0, 1, 1]),
    )
    graph = WorkingGraph(start)
    graph.install_split_tree(0, tree)
    graph.install_leaf_tree(1, tree)
    n = graph.size
    assert n == 3 + 1 + 4
    assert graph.left[:n].tolist() == [3, 4, -1, 1, 5, -1, -1, -1]
    assert graph.right[:n].tolist() == [2, 7, -1, 2, 6, -1, -1, -1]
    assert graph.feature[:n].tolist() == [3, 3, -2, 5, 5, -2, -2, -2]
    assert graph.threshold[:n].tolist() == [1.5, 1.5, -2.0, 2.5, 2.5, -2.0, -2.0, -2.0]
    assert graph.label[:n].tolist() == [-1, -1, 1, -1, -1, 0, 1, 1]
    single = MicroTree(np.array([-1]), np.array([-1]), np.array([-2]), np.array([-2.0]), np.array([1]))
    graph.install_split_tree(0, single)  # a split sending everything right: both edges to child 2
    graph.install_leaf_tree(2, single)
    assert (graph.left[0], graph.right[0], graph.feature[0], graph.threshold[0]) == (2, 2, 0, np.inf)
    assert (graph.left[2], graph.feature[2], graph.label[2]) == (-1, -2, 1)
    assert graph.size == n


def _kahn_reference(left, right, root=0):
    """Kahn's algorithm, first in first out, over the nodes reachable from ``root``."""
    reachable, stack = {root}, [root]
    while stack:
        node = stack.pop()
        children = (left[node], right[node]) if left[node] >= 0 else ()
        stack.extend(c for c in children if c not in reachable)
        reachable.update(children)
    indegree = Counter(c for node in reachable if left[node] >= 0 for c in (left[node], right[node]))
    order = [root]
    for node in order:  # the list grows while it is read
        for child in (left[node], right[node]) if left[node] >= 0 else ():
            indegree[child] -= 1
            if indegree[child] == 0:
                order.append(child)
    return order


@pytest.mark.parametrize("seed", range(5))
def test_compiled_topological_order_equals_kahns_algorithm_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    n = 60
    # Node i points only to higher ids: a DAG with shared nodes, some unreachable, some double edges.
    left = np.full(n, -1, dtype=np.intp)
    right = np.full(n, -1, dtype=np.intp)
    for i in range(n - 5):
        if rng.random() < 0.8:
            left[i] = rng.integers(i + 1, n)
            right[i] = left[i] if rng.random() < 0.1 else rng.integers(i + 1, n)
    for root in (0, 3):
        assert topological_order(left, right, root).tolist() == _kahn_reference(left, right, root)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_pass_keeps_the_thresholds_on_codes_of_its_whole_graph(n_jobs, monkeypatch):
    # A pass computes the thresholds on codes of the slots its installs wrote only (the wave's nodes
    # and the new slots): before each wave's walks and moves they equal those of the whole graph
    # computed afresh, on quantile bins that splits cut, with missing values, for both estimators,
    # on one thread and with the threads forced on (the moves' parts refresh them once).
    from tnt.estimator import TnTClassifier
    from tnt.regressor import TnTRegressor

    if n_jobs > 1:
        monkeypatch.setattr(growth, "THREADED_WORK", 0)
    checked = Counter()
    samples = growth._Wave._samples

    def checking(self, feature, threshold, missing_left):
        routing = samples(self, feature, threshold, missing_left)
        size = self.graph.size
        binned = self.problem.binned
        on_codes, cut = code_thresholds(feature[:size], threshold[:size], binned.bin_min, binned.bin_max, binned.n_bins)
        assert np.array_equal(routing[1][:size], on_codes)
        assert np.array_equal(self.codes.cut[: self.codes.size], cut) and self.codes.size == size
        assert (routing[3] is None) == (cut.max(initial=-1) < 0 and binned.codes.itemsize == 1)
        checked["after installs" if self._rewritten else "before installs"] += 1
        checked["cut bins"] += int(cut.max(initial=-1) >= 0)
        return routing

    monkeypatch.setattr(growth._Wave, "_samples", checking)
    X, y = make_classification(n_samples=600, n_features=6, n_informative=4, n_classes=3, random_state=2)
    X[::9, 1] = np.nan
    TnTClassifier(C=1e-3, max_bins=12, random_state=0, n_jobs=n_jobs).fit(X, y)
    TnTRegressor(C=1e-3, max_bins=12, random_state=0, n_jobs=n_jobs).fit(X, X[:, 0] + y)
    assert checked["before installs"] >= 20 and checked["after installs"] >= 20 and checked["cut bins"] >= 10, checked
