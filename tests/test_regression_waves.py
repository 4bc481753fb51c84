"""The regressor's wave-batched grow pass against the node-by-node definition.

A regression grow pass fits a squared-error micro tree in every leaf and, in every internal node,
a Gini micro tree on its reduced problem (targets: the better child; weights: how much better).
The pass works a wave at a time with the classifier's compiled routing, and may fit a wave's nodes
on threads; here it is checked against a plain reimplementation of the definition, pass after
pass and phase after phase, on one thread and with threads forced on every wave.
"""

from functools import partial

import numpy as np
import pytest
from growth_helpers import nodes_with_their_rows
from sklearn.datasets import make_friedman1

import tnt.learn.regression_growth as regression_growth
from tnt.learn.growth import _MicroTreeCache, _Workers
from tnt.learn.micro_tree import fit_micro_tree, fit_regression_tree
from tnt.learn.regression_growth import RegressionProblem, SquaredLoss, _as_micro_tree, _reduced_problem
from tnt.learn.working_graph import WorkingGraph, compact


def _reference_pass(graph: WorkingGraph, problem: RegressionProblem, C: float, cache: _MicroTreeCache, values) -> None:
    """A regression grow pass written out node by node: each node's samples are routed to it, and
    an internal node's reduced problem is read from both children's predictions
    (:func:`~tnt.learn.regression_growth._reduced_problem`, as fine-tuning reads it). A node refitted
    on the samples and targets (and weights) of its last fit in the phase keeps that tree."""
    start = graph.start
    W = problem.total_weight
    for node, rows in nodes_with_their_rows(graph, problem):
        if start.children_left[node] < 0:
            w, targets = problem.w[rows], problem.y[rows]
            alpha = C * W / float(w.sum())
            fit = partial(fit_regression_tree, problem.binned, problem.feature_order, rows, targets, w, alpha)
            graph.install_leaf_tree(node, cache.get(node, rows, targets, lambda fit=fit: _as_micro_tree(fit(), values)))
            continue
        red_rows, targets, red_w = _reduced_problem(graph, node, problem, rows, values)
        if red_rows.size == 0:
            graph.reset(node)
        else:
            alpha = C * W / float(red_w.sum())
            fit = partial(fit_micro_tree, problem.binned, problem.feature_order, red_rows, targets, red_w, alpha, 2)
            graph.install_split_tree(node, cache.get(node, red_rows, np.where(targets == 1, red_w, -red_w), fit))


def _slots(graph: WorkingGraph):
    return [getattr(graph, name)[: graph.size].tolist() for name in ("left", "right", "feature", "threshold", "label")]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_wave_batched_regression_passes_equal_the_node_by_node_definition(threads, weighted, monkeypatch):
    monkeypatch.setattr(regression_growth, "THREADED_WORK", 0)  # every wave of several nodes on threads
    monkeypatch.setattr(regression_growth, "BATCH_SAMPLES", 100)  # the threads share a wave's fits
    X, y = make_friedman1(n_samples=1200, n_features=6, noise=1.0, random_state=5)
    w = np.random.default_rng(1).uniform(0.2, 2.0, y.size) if weighted else np.ones(y.size)
    problem = RegressionProblem.standardised(np.ascontiguousarray(X, dtype=np.float32), y, w, seed=0)
    C = 2e-3
    fast_loss, slow_loss = SquaredLoss(problem), SquaredLoss(problem)
    graph = fast_loss.first_graph()
    workers = _Workers(problem, threads)
    try:
        for _ in range(3):  # phases: the later ones start from graphs with shared nodes
            fast, slow = WorkingGraph(graph), WorkingGraph(graph)
            fast_cache, slow_cache = _MicroTreeCache(), _MicroTreeCache()
            for _ in range(3):
                fast_loss.grow_pass(fast, C, fast_cache, workers, None)
                _reference_pass(slow, problem, C, slow_cache, slow_loss.values)
                # Installed in the same order whatever the threads: the same slots and leaf values.
                assert _slots(fast) == _slots(slow)
                assert np.array_equal(fast_loss.values.array, slow_loss.values.array)
            graph = compact(fast, problem.X)
    finally:
        workers.close()
    assert graph.n_splits > 30
