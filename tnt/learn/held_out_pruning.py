"""The pruning level chosen by a held-out part of the training data (``ccp_alpha="held_out"``).

A share of the samples is held out, a graph grown on the rest is pruned by weakest links
(:func:`tnt.learn.graph_pruning.prune_graph`) at rising levels down to its root, and the held-out
part scores the graph at each level; the graph grown on all the samples is then pruned at the level
that scored best (the most pruned of the best). This is how ``ccp_alpha`` is chosen for CART by
cross-validation, with one held-out part.
"""

from __future__ import annotations

import numpy as np

from tnt.learn.graph_pruning import prune_graph, pruning_statistics
from tnt.learn.growth import grow_graph, trial_callback
from tnt.learn.selection import _subset, held_out_rows, leaves_of
from tnt.learn.working_graph import FlatGraph

__all__ = ["HELD_OUT_SHARE", "LEVELS", "held_out_pruning_level", "pruning_levels"]

#: The share of the training samples held out to choose the pruning level.
HELD_OUT_SHARE = 0.2
#: Pruning levels tried, geometrically spaced (:func:`pruning_levels`).
LEVELS = 48


def pruning_levels(n_samples: int) -> np.ndarray:
    """The levels tried on ``n_samples`` samples: from a tenth of one sample's share of the weight
    (below it no collapse of a split holding one sample pays) to 1 (the root's impurity at most,
    where every split is collapsed).

    >>> pruning_levels(1000)[[0, -1]].tolist()
    [0.0001, 1.0]
    """
    return np.geomspace(0.1 / max(n_samples, 1), 1.0, LEVELS)


def _score(graph: FlatGraph, fit, held, classification: bool) -> float:
    """The held-out score of ``graph``, each leaf predicting what the ``fit`` samples reaching it
    say (majority class, or mean target)."""
    fit_leaves, held_leaves = leaves_of(graph, fit), leaves_of(graph, held)
    n = graph.node_count
    if classification:
        counts = np.zeros((n, fit.n_classes))
        np.add.at(counts, (fit_leaves, fit.y), fit.w)
        return float(np.average(np.argmax(counts, axis=1)[held_leaves] == held.y, weights=held.w))
    weight = np.bincount(fit_leaves, weights=fit.w, minlength=n)
    total = np.bincount(fit_leaves, weights=fit.w * fit.y, minlength=n)
    overall = float(np.average(fit.y, weights=fit.w))
    value = np.divide(total, weight, out=np.full(n, overall), where=weight > 0)
    return -float(np.average((value[held_leaves] - held.y) ** 2, weights=held.w))


def held_out_pruning_level(problem, fraction: float, classification: bool, schedule: dict) -> tuple[float, np.ndarray]:
    """``(alpha, scores)``: the pruning level the held-out ``fraction`` of ``problem``'s samples
    chooses for graphs grown with ``schedule`` (:func:`tnt.learn.growth.grow_graph`'s keyword
    arguments), and the held-out scores of the unpruned graph and of the graph at each level of
    :func:`pruning_levels` in turn, each pruned from the one before, up to the first with no split
    (0 and an empty array when too few samples were given to hold any out)."""
    parts = held_out_rows(problem, fraction, classification)
    if parts is None:
        return 0.0, np.empty(0)
    fit, held = _subset(problem, parts[0]), _subset(problem, parts[1])
    graph = grow_graph(fit, **(schedule | {"callback": trial_callback(schedule.get("callback"))}))
    stats = pruning_statistics(fit.y, fit.w, fit.n_classes if classification else None)
    levels = pruning_levels(fit.X.shape[0])
    scores = [_score(graph, fit, held, classification)]
    unchanged_below = 0.0  # pruning again at a level below this leaves the graph as it is
    for level in levels:
        if graph.n_splits == 0:
            break
        pruned = []
        if level >= unchanged_below:
            graph, path = prune_graph(graph, fit.X, stats, not classification, level)
            unchanged_below, pruned = path.next_alpha, path.alphas
        scores.append(_score(graph, fit, held, classification) if len(pruned) else scores[-1])
    scores = np.array(scores)
    best = int(np.flatnonzero(scores == scores.max())[-1])  # the most pruned of the best
    return (0.0 if best == 0 else float(levels[best - 1])), scores
