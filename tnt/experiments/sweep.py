"""Sweeps over the pruning strength C (the paper's Fig. 3b and Fig. 4): TnT against best-first CART
with as many splits, over several seeds, in parallel through joblib. The paper's other models of
Fig. 4 (TnT fine-tuned, TAO and NDG, the last two at TnT's split count) are optional columns.

Every (C, seed) pair is one joblib task, so the sweep runs on the cores of one machine with
``n_jobs``, or on a Dask cluster from a script::

    from dask.distributed import Client, LocalCluster
    import joblib
    with Client(LocalCluster(n_workers=4)), joblib.parallel_backend("dask"):
        table = sweep(X_train, y_train, X_test, y_test, Cs, seeds=range(5), n_jobs=-1)

(``pip install tnt-explorer[distributed]`` installs Dask).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from tnt._parallel import check_n_jobs
from tnt.learn.binning import MAX_EXACT_BINS
from tnt.ndg import PAPER_C as NDG_C
from tnt.ndg import NDGClassifier
from tnt.reduction import reduce_model
from tnt.services.tasks import model_classes, scores

__all__ = [
    "COLUMNS",
    "REGRESSION_COLUMNS",
    "EXTRA_MODELS",
    "MODEL_NAMES",
    "NDG_C",
    "log_grid",
    "sweep",
    "sweep_one",
    "summarize",
]

#: Columns of a sweep table, in order.
COLUMNS = [
    "C",
    "seed",
    "tnt_splits",
    "tnt_leaves",
    "tnt_shared_nodes",
    "tnt_train_acc",
    "tnt_test_acc",
    "tnt_mean_depth",
    "tnt_fit_time",
    "cart_splits",
    "cart_train_acc",
    "cart_test_acc",
    "cart_mean_depth",
    "reduced_splits",
]
#: The columns of a regression sweep (``regression=True``): R² and RMSE instead of accuracy, no
#: graph reduction (it merges sub-graphs of equal class predictions).
REGRESSION_COLUMNS = [
    "C",
    "seed",
    "tnt_splits",
    "tnt_leaves",
    "tnt_shared_nodes",
    "tnt_train_r2",
    "tnt_test_r2",
    "tnt_train_rmse",
    "tnt_test_rmse",
    "tnt_mean_depth",
    "tnt_fit_time",
    "cart_splits",
    "cart_train_r2",
    "cart_test_r2",
    "cart_train_rmse",
    "cart_test_rmse",
    "cart_mean_depth",
]

#: Columns that depend on the machine's speed, not on the data: left out when comparing tables.
TIMING_COLUMNS = ["tnt_fit_time"]

#: Column prefix and name of every model a sweep can train, in the order of the paper's Fig. 4.
MODEL_NAMES = {"tnt": "TnT", "tnt_ft": "TnT fine-tuned", "tao": "TAO", "cart": "CART", "ndg": "NDG"}
#: The optional models: TnT fine-tuned (5 rounds), TAO and NDG at TnT's number of splits.
EXTRA_MODELS = ("tnt_ft", "tao", "ndg")
_FINE_TUNE_ROUNDS = 5
_MEASURES = ("splits", "train_acc", "test_acc", "mean_depth")


def log_grid(low: float, high: float, n: int) -> list[float]:
    """``n`` values of C equally spaced on a log scale from ``low`` to ``high`` (as the paper samples C).

    Examples
    --------
    >>> from tnt.experiments.sweep import log_grid
    >>> log_grid(1e-4, 1e-2, 3)
    [0.0001, 0.001, 0.01]
    """
    if not 0 < low <= high:
        raise ValueError(f"C must run over 0 < low <= high, got low={low} and high={high}.")
    if n < 1:
        raise ValueError(f"A grid needs at least one value, got n={n}.")
    return [float(f"{c:.6g}") for c in np.geomspace(low, high, n)]


def _measure(prefix, model, X_train, y_train, X_test, y_test) -> dict:
    """``<prefix>_splits``, the scores of :func:`tnt.services.tasks.scores` (``_acc`` for accuracy)
    and ``<prefix>_mean_depth``."""
    found = {**scores(model, X_train, y_train, "train"), **scores(model, X_test, y_test, "test")}
    return {
        f"{prefix}_splits": int(model.n_splits_),
        **{f"{prefix}_{key.replace('accuracy', 'acc')}": value for key, value in found.items()},
        f"{prefix}_mean_depth": float(np.mean(model.decision_depth(X_test))),
    }


def _extra_model(
    prefix: str, C: float, seed: int, N1: int, N2: int, splits: int, regression: bool = False, max_bins=MAX_EXACT_BINS
):
    if prefix == "tnt_ft":
        return model_classes(regression)[0](
            C=C, ccp_alpha=0.0, N1=N1, N2=N2, fine_tune=_FINE_TUNE_ROUNDS, random_state=seed, max_bins=max_bins
        )
    if regression:
        raise ValueError(f"Model {prefix!r} is a classifier; a regression sweep can add 'tnt_ft' only.")
    if prefix == "ndg":
        return NDGClassifier.with_splits(splits, C=NDG_C, random_state=seed)
    raise ValueError(f"Unknown model {prefix!r}; choose from {', '.join(EXTRA_MODELS)}.")


def sweep_one(
    X_train,
    y_train,
    X_test,
    y_test,
    C: float,
    seed: int,
    N1: int = 2,
    N2: int = 5,
    models=(),
    reduce: bool = True,
    regression: bool = False,
    max_bins: int = MAX_EXACT_BINS,
) -> dict:
    """One row of a sweep: TnT at ``C`` and ``seed``, CART with as many splits, graph reduction.

    Every model takes its default ``categorical_features="from_dtype"``: the pandas ``category``
    columns of a DataFrame (as :meth:`tnt.data.datasets.Dataset.model_input` gives a data set's
    categorical features, by name) are split by subsets of their categories.

    Parameters
    ----------
    models : sequence of str, default=()
        Models of :data:`EXTRA_MODELS` to train as well: ``"tnt_ft"`` (TnT at ``C`` fine-tuned for
        5 rounds), ``"tao"`` (CART with TnT's splits, fine-tuned for 5 rounds), ``"ndg"``
        (:class:`tnt.NDGClassifier` at ``C=3e-4`` with at most TnT's splits, as in the paper).
    reduce : bool, default=True
        Measure graph reduction (``reduced_splits``); left out of the row when False.
    regression : bool, default=False
        Train :class:`tnt.TnTRegressor` and CART for regression; the row has the keys of
        :data:`REGRESSION_COLUMNS` (R² and RMSE, no graph reduction).
    max_bins : int, default=65535
        TnT's ``max_bins`` (its fine-tuned copy's too): thresholds between quantile bins for
        features with more distinct values. The baselines (CART, TAO, NDG) split exactly.

    Returns
    -------
    row : dict
        The keys of :data:`COLUMNS` (without ``reduced_splits`` when ``reduce`` is False), then
        ``<model>_splits``, ``_train_acc``, ``_test_acc`` and ``_mean_depth`` for each extra
        model. Depths are mean decision depths of the test samples; ``reduced_splits`` is TnT's
        split count after :func:`tnt.reduction.reduce_model`.

    Examples
    --------
    >>> from tnt.experiments.sweep import sweep_one
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(seed=0)
    >>> row = sweep_one(X, y, X, y, C=1e-2, seed=0)
    >>> row["tnt_splits"], row["reduced_splits"], row["tnt_train_acc"]
    (6, 4, 1.0)
    """
    tnt_class, cart_class = model_classes(regression)
    start = time.perf_counter()
    tnt = tnt_class(C=C, ccp_alpha=0.0, N1=N1, N2=N2, random_state=seed, max_bins=max_bins).fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    cart = cart_class.with_splits(tnt.n_splits_, random_state=seed).fit(X_train, y_train)
    measured = _measure("tnt", tnt, X_train, y_train, X_test, y_test)
    row = {
        "C": float(C),
        "seed": int(seed),
        **measured,
        "tnt_leaves": int(tnt.n_leaves_),
        "tnt_shared_nodes": int(tnt.n_shared_nodes_),
        "tnt_fit_time": float(fit_time),
        **_measure("cart", cart, X_train, y_train, X_test, y_test),
    }
    if reduce and not regression:
        row["reduced_splits"] = int(reduce_model(tnt, X_train, y_train).n_splits_)
    row = {key: row[key] for key in (REGRESSION_COLUMNS if regression else COLUMNS) if key in row}
    for prefix in models:
        if prefix == "tnt_ft" and not regression:  # the same graph fine-tuned, not grown again
            model = tnt.fine_tuned(X_train, y_train, rounds=_FINE_TUNE_ROUNDS)
        elif prefix == "tao" and not regression:  # TAO: the same CART fine-tuned, not grown again
            model = cart.fine_tuned(X_train, y_train, rounds=_FINE_TUNE_ROUNDS)
        else:
            model = _extra_model(prefix, C, seed, N1, N2, tnt.n_splits_, regression, max_bins).fit(X_train, y_train)
        row.update(_measure(prefix, model, X_train, y_train, X_test, y_test))
    return row


def sweep(
    X_train,
    y_train,
    X_test,
    y_test,
    Cs,
    seeds,
    *,
    N1: int = 2,
    N2: int = 5,
    n_jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    models=(),
    reduce: bool = True,
    regression: bool = False,
    max_bins: int = MAX_EXACT_BINS,
) -> pd.DataFrame:
    """Train TnT and CART for every (C, seed) pair, in parallel through joblib.

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
        Training and test data.
    Cs : sequence of float
        Values of C (for example :func:`log_grid`).
    seeds : sequence of int
        Seeds; each C is trained once per seed.
    N1, N2 : int, default=2, 5
        TnT's merge phases and grow passes per phase.
    n_jobs : int, default=1
        joblib workers (``-1``: all cores). Under ``joblib.parallel_backend("dask")`` the tasks
        go to the Dask cluster.
    progress : callable, default=None
        Called as ``progress(done, total)`` after each finished pair.
    models : sequence of str, default=()
        Extra models of :data:`EXTRA_MODELS` (see :func:`sweep_one`).
    reduce : bool, default=True
        Measure graph reduction (the ``reduced_splits`` column; never for a regression).
    regression : bool, default=False
        A regression sweep (:func:`sweep_one`): columns :data:`REGRESSION_COLUMNS`.
    max_bins : int, default=65535
        TnT's ``max_bins`` (see :func:`sweep_one`); the baselines split exactly.

    Returns
    -------
    table : pandas.DataFrame
        One row per (C, seed), columns :data:`COLUMNS` then those of the extra models, sorted by C
        then seed; the same whatever ``n_jobs`` or the backend, but for ``tnt_fit_time``.

    Examples
    --------
    >>> from tnt.experiments.sweep import sweep
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(n=500, seed=0)
    >>> table = sweep(X, y, X, y, Cs=[1e-3, 1e-1], seeds=[0])
    >>> table["tnt_splits"].tolist()[0] > table["tnt_splits"].tolist()[1]
    True
    """
    check_n_jobs(n_jobs)
    Cs, seeds = [float(c) for c in Cs], [int(s) for s in seeds]
    if not Cs or not seeds:
        raise ValueError("A sweep needs at least one value of C and one seed.")
    models = tuple(models)
    unknown = sorted(set(models) - set(EXTRA_MODELS))
    if unknown:
        raise ValueError(f"Unknown model {unknown[0]!r}; choose from {', '.join(EXTRA_MODELS)}.")
    pairs = [(C, seed) for C in Cs for seed in seeds]
    tasks = (
        delayed(sweep_one)(X_train, y_train, X_test, y_test, C, seed, N1, N2, models, reduce, regression, max_bins)
        for C, seed in pairs
    )
    rows = []
    for row in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks):
        rows.append(row)
        if progress is not None:
            progress(len(rows), len(pairs))
    if regression:
        columns = list(REGRESSION_COLUMNS)
        measures = ("splits", "train_r2", "test_r2", "train_rmse", "test_rmse", "mean_depth")
    else:
        columns, measures = [c for c in COLUMNS if reduce or c != "reduced_splits"], _MEASURES
    columns += [f"{prefix}_{measure}" for prefix in models for measure in measures]
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values(["C", "seed"], kind="stable").reset_index(drop=True)


def summarize(table: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation (across seeds) of every measure, one row per C.

    Returns
    -------
    summary : pandas.DataFrame
        Indexed by C; columns ``<measure>_mean`` and ``<measure>_std`` (std 0 for one seed), plus
        ``n_seeds``.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.sweep import summarize
    >>> t = pd.DataFrame({"C": [0.1, 0.1], "seed": [0, 1], "tnt_splits": [4, 6]})
    >>> s = summarize(t)
    >>> float(s.loc[0.1, "tnt_splits_mean"]), float(s.loc[0.1, "tnt_splits_std"]), int(s.loc[0.1, "n_seeds"])
    (5.0, 1.0, 2)
    """
    measures = [c for c in table.columns if c not in ("C", "seed")]
    grouped = table.groupby("C")[measures]
    mean = grouped.mean().add_suffix("_mean")
    std = grouped.std(ddof=0).fillna(0.0).add_suffix("_std")
    out = pd.concat([mean, std], axis=1)
    out["n_seeds"] = table.groupby("C")["seed"].count()
    return out.sort_index()
