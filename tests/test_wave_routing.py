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
from tnt.learn.wave_routing import _walk_one, bucket_rows, class_bits, classes_below, code_thresholds
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
    on_codes, exact = code_thresholds(feature, threshold, binned.bin_min, binned.bin_max, binned.n_bins)
    assert exact
    for f, t, c in zip(feature[:-1], threshold[:-1], on_codes[:-1]):
        assert np.array_equal(binned.codes[:, f] <= c, X[:, f] <= t)
    # A threshold inside a bin of several values: codes cannot route it.
    inside = [(f, b) for f in range(3) for b in range(binned.n_bins[f]) if binned.bin_min[f, b] < binned.bin_max[f, b]]
    if max_bins == 8:
        f, b = inside[0]
        t = (np.float64(binned.bin_min[f, b]) + binned.bin_max[f, b]) / 2
        assert not code_thresholds(np.array([f]), np.array([t]), binned.bin_min, binned.bin_max, binned.n_bins)[1]
    else:
        assert inside == []


def test_a_pass_over_a_graph_grown_on_other_data_equals_the_definition():
    # The phase-start graph's thresholds come from other samples and cut the bins of these: the
    # walks read the samples' values, not their codes.
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
    assert not code_thresholds(graph.feature, graph.threshold, binned.bin_min, binned.bin_max, binned.n_bins)[1]
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


def _leaf_classes(node, left, right, label) -> set:
    if left[node] < 0:
        return {int(label[node])}
    return _leaf_classes(left[node], left, right, label) | _leaf_classes(right[node], left, right, label)


@pytest.mark.parametrize("seed", range(6))
def test_classes_below_are_the_classes_of_the_leaves_each_node_reaches(seed):
    rng = np.random.default_rng(seed)
    n_classes = [3, 70][seed % 2]  # classes from 62 on share a bit
    left, right, _, _, label = _random_dag(rng, 41, 3, n_classes)
    below = classes_below(left, right, label, left.size)
    for node in range(left.size):
        expected = sum({1 << min(c, 62) for c in _leaf_classes(node, left, right, label)})
        assert below[node] == expected
    assert class_bits(np.array([-1, 0, 5, 62, 99])).tolist() == [0, 1, 32, 1 << 62, 1 << 62]


@pytest.mark.parametrize("seed", range(8))
def test_walks_stop_where_the_class_decides_or_at_a_phase_start_node_as_a_plain_walk_says(seed):
    """Each walk against a plain walk along the same path: it ends at the leaf, or at the first node
    below which every leaf has the sample's class or none has it (no class never stops), or,
    walking to a phase-start node, once it passed one (a node below ``n_orig``); ``first`` is the
    first such node passed before the walk ended, where a walk to a phase-start node ends (-1: none)."""
    rng = np.random.default_rng(seed)
    left, right, feature, threshold, label = _random_dag(rng, 61, 4, 3)
    n_orig = 30
    n = 300
    X = rng.integers(0, 5, size=(n, 4)).astype(np.uint8)
    rows = rng.integers(0, n, size=500).astype(np.int64)
    starts = rng.integers(0, left.size, size=500).astype(np.int64)
    classes = rng.integers(-1, 3, size=500)  # -1: no class (a regression's walk)
    below = classes_below(left, right, label, left.size)
    graph = (left, right, feature, threshold)
    stopped_early = passed = 0
    for to_phase_start in (False, True):
        bits = class_bits(classes)
        for w in range(500):
            at, first = _walk_one(X, rows[w], starts[w], n_orig, graph, None, bits[w], below, to_phase_start)
            node, first_passed, end = starts[w], -1, None
            reach = lambda v: _leaf_classes(v, left, right, label)  # noqa: E731
            while end is None:
                decided = classes[w] >= 0 and (classes[w] not in reach(node) or reach(node) == {classes[w]})
                if left[node] < 0 or decided:
                    end = node
                    stopped_early += left[node] >= 0
                elif to_phase_start and first_passed >= 0:
                    end = first_passed
                else:
                    node = left[node] if X[rows[w], feature[node]] <= threshold[node] else right[node]
                    if node < n_orig and first_passed < 0:
                        first_passed = node
                        passed += 1
            if to_phase_start:  # a walk to a phase-start node ends at the one it passed (-1: none)
                end = first_passed
            assert (at, first) == (end, first_passed)
    assert stopped_early > 50 and passed > 50, "the cases should include early stops and phase-start nodes"


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
