"""Train to a budget: the TnT with the most splits not above N, found by a search over C.

The paper's limitation section: "we can not precisely control the number of nodes as in CART... we
searched over a range of C values". :func:`fit_to_budget` is that search. The number of splits falls
as C grows (a step function of C, nearly monotone), so the search first brackets N between two
values of C a factor ``step`` apart, then bisects on log C, and keeps every fit it made: the answer
is the best of all of them, and a caller's dict of earlier fits is reused and filled.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tnt.baselines import CARTClassifier
from tnt.estimator import TnTClassifier
from tnt.services.tasks import model_classes

__all__ = ["BudgetResult", "budget_size", "fit_to_budget"]


def budget_size(ccp_alpha):
    """The size rule a budget search of the app or the command line fits with: their default, the
    held-out choice ("auto"), becomes the graph C alone grows (0.0), as the budget sets the size;
    another rule chosen is kept (its graphs bounded by the budget).

    >>> budget_size("auto"), budget_size(0.0), budget_size("held_out_regrown")
    (0.0, 0.0, 'held_out_regrown')
    """
    return 0.0 if ccp_alpha == "auto" else ccp_alpha


@dataclass
class BudgetResult:
    """What :func:`fit_to_budget` found.

    Attributes
    ----------
    model : TnTClassifier
        The fitted TnT with the most splits not above the budget (the largest C among equals).
    C : float
        Its C.
    cart : CARTClassifier
        CART grown best-first to exactly as many splits (:meth:`CARTClassifier.with_splits`).
    tried : list of (float, int)
        Every C the search looked at (new fits and reused ones) with its number of splits, in order.
    n_fits : int
        Fits this call made (reused fits not counted).
    fit_times : dict
        Seconds each new fit took, by C.
    cart_time : float
        Seconds the CART fit took.
    max_splits : int
        The budget asked for.
    """

    model: TnTClassifier
    C: float
    cart: CARTClassifier
    tried: list = field(default_factory=list)
    n_fits: int = 0
    fit_times: dict = field(default_factory=dict)
    cart_time: float = 0.0
    max_splits: int = 0

    @property
    def n_splits(self) -> int:
        return int(self.model.n_splits_)

    @property
    def size_rule(self):
        """The ``ccp_alpha`` every fit of the search used: 0.0 (C alone), or a held-out choice
        ("auto", "held_out_regrown") whose graphs the budget bounds."""
        return self.model.get_params()["ccp_alpha"]

    @property
    def bracketed(self) -> bool:
        """Whether some C tried gave more splits than the budget. When not, the search went down to
        ``C_min`` without reaching N: TnT uses fewer splits than that on this data at any C."""
        return any(s > self.max_splits for _, s in self.tried)


def fit_to_budget(
    X,
    y,
    max_splits: int,
    *,
    C_start: float = 1e-3,
    C_min: float = 1e-7,
    C_max: float = 1.0,
    step: float = 10.0,
    max_fits: int = 14,
    resolution: float = 1.02,
    fitted: dict | None = None,
    on_fit: Callable[[float, int, int], None] | None = None,
    regression: bool = False,
    **params,
) -> BudgetResult:
    """Fit TnT with the most splits not above ``max_splits``, searching over C.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    max_splits : int
        The budget N (at least 0).
    C_start : float, default=1e-3
        First C tried.
    C_min, C_max : float, default=1e-7 and 1.0
        The range searched. Below ``C_min`` the search stops growing the graph (the budget is more
        than TnT uses on this data); if even ``C_max`` gives more than N splits it fails.
    step : float, default=10
        Factor between the values of C tried while bracketing.
    max_fits : int, default=14
        Most new fits (bracketing and bisection together); reused fits are free.
    resolution : float, default=1.02
        Bisection stops when the bracket ``[C_low, C_high]`` has ``C_high / C_low`` below this.
    fitted : dict, default=None
        ``{C: fitted TnTClassifier}`` of earlier fits on the same data and parameters; reused, and
        every new fit is added to it.
    on_fit : callable, default=None
        Called as ``on_fit(C, n_splits, n_fits)`` after each new fit (for a progress bar).
    regression : bool, default=False
        Fit :class:`tnt.TnTRegressor` and CART for regression instead of the classifiers.
    **params
        Other parameters of :class:`tnt.TnTClassifier` (``N1``, ``N2``, ``fine_tune``,
        ``random_state``, ``n_jobs``, ``ccp_alpha``). ``ccp_alpha`` is 0.0 here unless given: a
        budget is a size the caller sets, so each fit is the graph ``C`` alone grows (the search
        finds the C); with ``ccp_alpha="auto"`` each fit's size is also chosen on held-out data, and
        the search returns the held-out choice's graph when it is below the budget at every C
        (``bracketed`` False). :attr:`BudgetResult.size_rule` says which.

    Returns
    -------
    result : BudgetResult
        ``result.n_splits <= max_splits``, and no C tried gave more splits without exceeding N.

    Raises
    ------
    ValueError
        When ``max_splits`` is negative or even ``C_max`` gives more than ``max_splits`` splits.

    Notes
    -----
    **How close to N.** The splits of TnT are a step function of C: between two neighbouring
    values of C the graph jumps by a few splits at a time (more for large graphs, as a whole micro
    tree appears or goes), so exactly N is not always reachable. The search returns N itself when
    it meets it, otherwise the best found below N once the bracket is narrower than ``resolution``.
    ``benchmarks/budget.py`` (results in ``benchmarks/budget_results.md``) measured 0 to 3 splits
    below N on pendigits and the 8x8 digits for N from 20 to 200, exactly N in 4 of 7 cases. When N
    is more than TnT uses at any C (the fully grown graph), the search stops at ``C_min`` with the
    largest graph it saw and :attr:`BudgetResult.bracketed` is False.

    **What it costs.** One fit per decade of C while bracketing (2 to 4 from ``C_start=1e-3``),
    then one per halving of log C, at most ``log2(log(step) / log(resolution))``, 7 for the
    defaults, fewer when a fit meets N exactly: 6 to 9 fits in the benchmark, and 6 to 14 times
    the time of one plain fit at the C found (fits at smaller C take longer), plus one CART fit.
    ``max_fits`` caps it, and fits in ``fitted`` are free.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from tnt.services.budget import fit_to_budget
    >>> X, y = load_digits(return_X_y=True)
    >>> found = fit_to_budget(X, y, 40, random_state=0)
    >>> found.n_splits <= 40, found.cart.n_splits_ == found.n_splits
    (True, True)
    """
    max_splits = int(max_splits)
    if max_splits < 0:
        raise ValueError(f"max_splits must be 0 or more, got {max_splits}.")
    if not 0 < C_min <= C_start <= C_max:
        raise ValueError(f"Need 0 < C_min <= C_start <= C_max, got {C_min}, {C_start}, {C_max}.")
    fitted = {} if fitted is None else fitted
    params = {"ccp_alpha": 0.0} | params
    tnt_class, cart_class = model_classes(regression)
    result = BudgetResult(model=None, C=float("nan"), cart=None, max_splits=max_splits)

    def splits_at(C: float) -> int:
        C = float(C)
        if C not in fitted:
            if result.n_fits >= max_fits:
                raise _OutOfFits
            start = time.perf_counter()
            fitted[C] = tnt_class(C=C, **params).fit(X, y)
            result.fit_times[C] = time.perf_counter() - start
            result.n_fits += 1
            if on_fit is not None:
                on_fit(C, int(fitted[C].n_splits_), result.n_fits)
        splits = int(fitted[C].n_splits_)
        result.tried.append((C, splits))
        return splits

    try:
        _search(splits_at, max_splits, float(C_start), float(C_min), float(C_max), float(step), float(resolution))
    except _OutOfFits:
        pass
    within = [(s, C) for C, s in result.tried if s <= max_splits]
    if not within:
        raise ValueError(
            f"No C up to {C_max:g} gives at most {max_splits} splits on this data"
            + (f" within {max_fits} fits." if result.n_fits >= max_fits else "; allow a larger C_max.")
        )
    best_splits, best_C = max(within)  # most splits, then the largest C among equals
    result.model, result.C = fitted[best_C], best_C
    start = time.perf_counter()
    # The CART finds the categorical columns from their pandas categories, pooled as TnT's are.
    pooling = {"min_category_samples": params["min_category_samples"]} if "min_category_samples" in params else {}
    result.cart = cart_class.with_splits(best_splits, random_state=params.get("random_state"), **pooling).fit(X, y)
    result.cart_time = time.perf_counter() - start
    return result


class _OutOfFits(Exception):
    pass


def _search(splits_at, N: int, C: float, C_min: float, C_max: float, step: float, resolution: float) -> None:
    """Bracket N between ``low`` (more than N splits) and ``high`` (at most N), then bisect on log C."""
    low = high = None
    s = splits_at(C)
    if s > N:
        low = C
        while high is None:
            C = min(C * step, C_max)
            if splits_at(C) <= N:
                high = C
            elif C >= C_max:
                return  # even C_max gives too many splits
            else:
                low = C
    else:
        high = C
        while low is None:
            if s == N or C <= C_min:
                return
            C = max(C / step, C_min)
            s = splits_at(C)
            if s > N:
                low = C
            else:
                high = C
    while high / low > resolution:
        mid = math.sqrt(low * high)
        s = splits_at(mid)
        if s == N:
            return
        if s > N:
            low = mid
        else:
            high = mid
