"""Which refits a regressor's internal nodes take at the default size, chosen on held-out data
(``internal_refit="auto"`` with ``ccp_alpha="auto"``).

Two rules compete: the paper's (every refit taken, or only those that lower the training loss when
some training value is missing: :func:`tnt.learn.refit_guard.refit_rule`) and ``"cost_complexity"``
(only refits that lower the training loss by more than ``C`` per split they add). Neither is better
on every table: on the benchmark suite's small, noisy regression sets the price keeps the graph from
spending splits on noise, on California housing and Friedman #1 it gives up refits that generalise
(``docs/algorithm.md``). So a graph is grown with each rule on 80 % of the samples (the held-out
split of the size choice), both pruned at the chosen level, and the rule whose graph has the lower
squared error on the other 20 % grows the graph on all the samples (the paper's on a tie).
"""

from __future__ import annotations

import numpy as np

from tnt.learn.graph_pruning import prune_fitted_graph
from tnt.learn.growth import grow_graph, trial_callback
from tnt.learn.held_out_pruning import HELD_OUT_SHARE
from tnt.learn.refit_guard import PRICED
from tnt.learn.selection import _subset, held_out_rows, held_out_score

__all__ = ["chooses_refit_rule", "chosen_refit_rule"]


def chooses_refit_rule(classification: bool, internal_refit, ccp_alpha) -> bool:
    """Whether an estimator chooses its refit rule on held-out data (:func:`chosen_refit_rule`): a
    regressor with ``internal_refit="auto"`` at the default size (``ccp_alpha="auto"``).

    >>> chooses_refit_rule(False, "auto", "auto"), chooses_refit_rule(True, "auto", "auto")
    (True, False)
    >>> chooses_refit_rule(False, "auto", 0.0), chooses_refit_rule(False, "always", "auto")
    (False, False)
    """
    return not classification and internal_refit == "auto" and isinstance(ccp_alpha, str) and ccp_alpha == "auto"


def chosen_refit_rule(problem, schedule: dict, level: float, paper_rule: str) -> tuple[str, np.ndarray]:
    """``(rule, scores)``: the refit rule of a regression graph grown with ``schedule``
    (:func:`tnt.learn.growth.grow_graph`'s keyword arguments, ``C`` the level it grows at) and pruned
    at ``level``, ``paper_rule`` or :data:`PRICED`, whichever scores better on the held-out share
    :data:`tnt.learn.held_out_pruning.HELD_OUT_SHARE` of ``problem``'s samples (minus the weighted
    mean squared error of the standardised targets), and the two scores in that order; ``paper_rule``
    and an empty array when too few samples were given to hold any out."""
    parts = held_out_rows(problem, HELD_OUT_SHARE, False)
    if parts is None:
        return paper_rule, np.empty(0)
    fit, held = _subset(problem, parts[0]), _subset(problem, parts[1])
    scores = []
    for rule in (paper_rule, PRICED):
        fit.refit_rule = rule
        graph = grow_graph(fit, **(schedule | {"callback": trial_callback(schedule.get("callback"))}))
        scores.append(held_out_score(prune_fitted_graph(graph, fit, level, False), fit, held, False))
    return (PRICED if scores[1] > scores[0] else paper_rule), np.array(scores)
