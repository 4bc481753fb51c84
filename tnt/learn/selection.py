"""Held-out selection of where training stops: a share of the training data scores the graph after
every step of the schedule (grow pass, merge, fine-tuning round), and the whole training data is then
trained up to the step that scored best.

Every step lowers the training objective, so the training data cannot say when a step starts to
over-fit; data the steps never saw can. This is early stopping as scikit-learn's gradient boosting
does it (``validation_fraction``), over TnT's fixed schedule of ``N1 * (N2 + 1) + fine_tune`` steps,
with the model trained again on all the data up to the chosen step so that no sample is lost to it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from sklearn.model_selection import train_test_split

from tnt.learn.category_columns import routable
from tnt.learn.growth import GrowthEvent, _Problem, grow_graph, growth_steps, trial_callback
from tnt.learn.routing import route_to_leaves
from tnt.learn.working_graph import FlatGraph

__all__ = ["HeldOutStop", "held_out_rows", "held_out_score", "grow_with_held_out_stop", "leaves_of"]


@dataclasses.dataclass(frozen=True)
class HeldOutStop:
    """What :func:`grow_with_held_out_stop` found.

    Attributes
    ----------
    scores : ndarray of shape (n_steps,)
        The held-out score after each step of the schedule (accuracy for a classifier, minus the
        mean squared error of the standardised targets for a regressor); empty when there was too
        little data to hold any out.
    step : int
        The step the final graph was trained up to: the first of the best scores (the whole
        schedule when ``scores`` is empty).
    """

    scores: np.ndarray
    step: int


def held_out_rows(problem: _Problem, fraction: float, classification: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """``(fit_rows, held_rows)``: ``ceil(fraction * n)`` samples held out, drawn with the problem's
    seed, stratified by class for a classifier when every class has two samples or more; ``None``
    when either part would be empty."""
    n = problem.X.shape[0]
    n_held = math.ceil(fraction * n)
    if n_held < 1 or n - n_held < 1:
        return None
    stratify = None
    if classification:
        counts = np.bincount(problem.y)
        present = np.count_nonzero(counts)
        if counts[counts > 0].min() >= 2 and present <= n_held and present <= n - n_held:
            stratify = problem.y
    fit_rows, held_rows = train_test_split(
        np.arange(n), test_size=n_held, stratify=stratify, random_state=problem.seed % (2**32)
    )
    return np.sort(fit_rows), np.sort(held_rows)


def _subset(problem: _Problem, rows: np.ndarray) -> _Problem:
    """The problem restricted to ``rows`` (same classes, seed, bins and target scaling)."""
    changes = {"X": np.ascontiguousarray(problem.X[rows]), "y": problem.y[rows], "w": problem.w[rows]}
    if getattr(problem, "target", None) is not None:
        changes["target"] = problem.target[rows]
    return dataclasses.replace(problem, **changes)


def leaves_of(graph: FlatGraph, problem: _Problem) -> np.ndarray:
    """The leaf of ``graph`` each of ``problem``'s samples reaches, a categorical split sending a
    category left when its subset holds it (read as a column of its own:
    :class:`tnt.learn.category_columns.CategoryColumns`), as the fitted model predicts."""
    X, feature, threshold = routable(
        problem.X, problem.category_codes, graph.feature, graph.threshold, graph.category_left
    )
    arrays = (graph.children_left, graph.children_right, feature, threshold, graph.missing_go_to_left)
    return route_to_leaves(X, np.arange(X.shape[0]), 0, *arrays)


def held_out_score(graph: FlatGraph, fit: _Problem, held: _Problem, classification: bool) -> float:
    """The weighted score of ``graph`` (grown on ``fit``) on ``held``: accuracy of its leaves' labels
    for a classifier; for a regressor minus the weighted mean squared error of the leaves' mean
    ``fit`` targets (a leaf no ``fit`` sample reaches predicts their overall mean)."""
    held_leaves = leaves_of(graph, held)
    if classification:
        return float(np.average(graph.label[held_leaves] == held.y, weights=held.w))
    fit_leaves = leaves_of(graph, fit)
    weight = np.bincount(fit_leaves, weights=fit.w, minlength=graph.node_count)
    total = np.bincount(fit_leaves, weights=fit.w * fit.y, minlength=graph.node_count)
    overall = float(np.average(fit.y, weights=fit.w))
    value = np.divide(total, weight, out=np.full(graph.node_count, overall), where=weight > 0)
    return -float(np.average((value[held_leaves] - held.y) ** 2, weights=held.w))


def grow_with_held_out_stop(
    problem: _Problem, fraction: float, classification: bool, schedule: dict
) -> tuple[FlatGraph, HeldOutStop]:
    """:func:`tnt.learn.growth.grow_graph` (``schedule``: its keyword arguments ``C``, ``N1``, ``N2``,
    ``fine_tune``, ``callback``, ``n_threads``) stopped at the step a held-out ``fraction`` of the
    samples scores best (see the module's description); ``callback`` sees the final training's steps,
    and the trial's too if it is a :class:`tnt.learn.growth.FitProgress`."""
    parts = held_out_rows(problem, fraction, classification)
    if parts is None:
        steps = growth_steps(schedule["N1"], schedule["N2"], schedule.get("fine_tune", 0))
        return grow_graph(problem, **schedule), HeldOutStop(np.empty(0), steps)
    fit, held = _subset(problem, parts[0]), _subset(problem, parts[1])
    scores = []

    def score(event: GrowthEvent) -> None:
        scores.append(held_out_score(event.snapshot(), fit, held, classification))

    grow_graph(fit, **(schedule | {"callback": trial_callback(schedule.get("callback"), also=score)}))
    scores = np.array(scores)
    step = int(np.argmax(scores)) + 1  # the first of the best
    graph = grow_graph(problem, **schedule, max_steps=step)
    return graph, HeldOutStop(scores, step)
