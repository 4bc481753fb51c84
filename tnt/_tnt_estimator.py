"""What :class:`tnt.TnTClassifier` and :class:`tnt.TnTRegressor` share: their parameters, the checks
of those parameters and ``fit``; each task adds its growth function and its mixin."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils._param_validation import Interval, StrOptions

from tnt._base import CATEGORICAL_FEATURES, EXCLUDED_FEATURES, MIN_CATEGORY_SAMPLES, GrownGraphEstimator
from tnt._parallel import effective_n_jobs, n_jobs_constraint
from tnt.learn.binning import MAX_EXACT_BINS
from tnt.learn.graph_pruning import prune_fitted_graph
from tnt.learn.growth import FitProgress, ProgressCallback, grow_graph, growth_steps
from tnt.learn.held_out_pruning import HELD_OUT_SHARE, held_out_pruning_level
from tnt.learn.refit_choice import chooses_refit_rule, chosen_refit_rule
from tnt.learn.refit_guard import INTERNAL_REFITS, refit_rule
from tnt.learn.selection import grow_with_held_out_stop
from tnt.learn.size_choice import cart_pruning_level
from tnt.learn.working_graph import FlatGraph

#: The values of ``ccp_alpha`` that let a held-out part of the training samples choose the level:
#: "auto" (the default) reads it off one CART (:mod:`tnt.learn.size_choice`), "held_out" and
#: "held_out_regrown" off the pruning path of a graph grown on the rest of the samples; "held_out"
#: prunes the graph grown at ``C`` to it, "auto" and "held_out_regrown" grow the graph at the larger
#: of ``C`` and the level, then prune it there.
CHOSEN_LEVELS = ("auto", "held_out", "held_out_regrown")
#: The default ``ccp_alpha``; ``ccp_alpha=0.0`` gives the graph of version 0.1 (``C`` alone).
DEFAULT_SIZE = "auto"


class TnTEstimator(GrownGraphEstimator):
    """Tree in Tree training (the paper's Algorithm 2, and Algorithm A.1 when ``fine_tune > 0``), for
    the loss of the problem the task's mixin validates (0/1 for a classifier, squared error for a
    regressor)."""

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="left")],
        "N1": [Interval(Integral, 1, None, closed="left")],
        "N2": [Interval(Integral, 1, None, closed="left")],
        "fine_tune": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": n_jobs_constraint(),
        "max_bins": [Interval(Integral, 2, MAX_EXACT_BINS, closed="both")],
        **EXCLUDED_FEATURES,
        **CATEGORICAL_FEATURES,
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "internal_refit": [StrOptions(set(INTERNAL_REFITS))],
        "ccp_alpha": [Interval(Real, 0, None, closed="left"), StrOptions(set(CHOSEN_LEVELS))],
        **MIN_CATEGORY_SAMPLES,
    }

    def __init__(
        self,
        *,
        C=1e-3,
        N1=2,
        N2=5,
        fine_tune=0,
        random_state=None,
        n_jobs=None,
        max_bins=MAX_EXACT_BINS,
        excluded_features=None,
        validation_fraction=None,
        internal_refit="auto",
        ccp_alpha=DEFAULT_SIZE,
        categorical_features="from_dtype",
        min_category_samples=1,
    ):
        self.C = C
        self.N1 = N1
        self.N2 = N2
        self.fine_tune = fine_tune
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.max_bins = max_bins
        self.excluded_features = excluded_features
        self.validation_fraction = validation_fraction
        self.internal_refit = internal_refit
        self.ccp_alpha = ccp_alpha
        self.categorical_features = categorical_features
        self.min_category_samples = min_category_samples

    def fit(self, X, y, sample_weight=None, progress_callback: ProgressCallback = None):
        """Train the decision graph.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels for a classifier, numeric targets for a regressor.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights honoured everywhere: micro-tree fits, the leaves' predictions and ``C_i``.
        progress_callback : callable, default=None
            Called with a :class:`tnt.GrowthEvent` after every grow pass, merge and fine-tuning
            round, those of any trial growth on part of the samples first (``kind="trial"``:
            a held-out choice of size, refit rule or stopping step); ``event.fit_step /
            event.fit_steps`` is the share of the fit done and ``event.snapshot()`` the graph at
            that moment.

        Returns
        -------
        self : TnTClassifier or TnTRegressor
        """
        return self._fit(X, y, sample_weight, callback=progress_callback)

    def _max_bins(self) -> int:
        return int(self.max_bins)

    def _pruned_after_growth(self) -> bool:
        """Whether the fitted graph was pruned after it was grown: any ``ccp_alpha`` but 0, except
        "auto" where it kept ``C`` (its choice does not depend on ``fine_tune``). Such a graph
        fine-tuned is no graph that training gives, as training prunes after fine-tuning."""
        return self.ccp_alpha != 0 and not (self.ccp_alpha == "auto" and self.pruning_level_ == 0)

    def _trial_growths(self) -> int:
        """How many graphs a fit grows on part of its samples before the one it keeps (each scored
        on the rest: :attr:`tnt.GrowthEvent.kind` ``"trial"``): one to choose a held-out size, two
        to choose a regressor's refit rule, one to choose where ``validation_fraction`` stops."""
        held_out_size = self.ccp_alpha in ("held_out", "held_out_regrown")
        refit_rules = chooses_refit_rule(is_classifier(self), self.internal_refit, self.ccp_alpha)
        return int(held_out_size) + 2 * int(refit_rules) + int(self.validation_fraction is not None)

    def _grow(self, problem, callback: ProgressCallback = None) -> FlatGraph:
        # The problem's binned data (which every growth below needs) says whether a value is missing.
        problem.refit_rule = refit_rule(self.internal_refit, problem.has_missing)
        schedule = {
            "C": float(self.C),
            "N1": int(self.N1),
            "N2": int(self.N2),
            "fine_tune": int(self.fine_tune),
            "callback": callback,
            "n_threads": effective_n_jobs(self.n_jobs),
        }
        steps = growth_steps(schedule["N1"], schedule["N2"], schedule["fine_tune"])
        trials = self._trial_growths()
        if callback is not None and trials:  # the trials' steps reported too, as one progress
            schedule["callback"] = FitProgress(callback, steps, trials)
        level = self.ccp_alpha
        if level == "auto":
            level = cart_pruning_level(problem, is_classifier(self), schedule["C"])
        elif isinstance(level, str):  # "held_out" or "held_out_regrown"
            level, _ = held_out_pruning_level(problem, HELD_OUT_SHARE, is_classifier(self), schedule)
        if self.ccp_alpha in ("auto", "held_out_regrown"):
            # TnT's own graph at that cost per split, not a larger graph cut down to it:
            # weakest-link pruning keeps splits and refits chosen for the larger graph.
            schedule["C"] = max(schedule["C"], level)
        self.pruning_level_ = float(level)
        if chooses_refit_rule(is_classifier(self), self.internal_refit, self.ccp_alpha):
            problem.refit_rule, _ = chosen_refit_rule(problem, schedule, self.pruning_level_, problem.refit_rule)
        self.refit_rule_ = problem.refit_rule
        if self.validation_fraction is None:
            self.validation_scores_ = np.empty(0)
            self.n_steps_ = steps
            graph = grow_graph(problem, **schedule)
        else:
            graph, stop = grow_with_held_out_stop(
                problem, float(self.validation_fraction), is_classifier(self), schedule
            )
            self.validation_scores_, self.n_steps_ = stop.scores, stop.step
        return prune_fitted_graph(graph, problem, self.pruning_level_, is_classifier(self))
