"""Sweeps over the pruning strength C (the paper's Fig. 3b and Fig. 4): TnT against best-first CART
with as many splits, over several seeds, in parallel through joblib.

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
from typing import Callable, Optional

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from tnt.baselines import CARTClassifier
from tnt.estimator import TnTClassifier
from tnt.reduction import reduce_model

__all__ = ["COLUMNS", "log_grid", "sweep", "sweep_one", "summarize"]

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
#: Columns that depend on the machine's speed, not on the data: left out when comparing tables.
TIMING_COLUMNS = ["tnt_fit_time"]


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


def sweep_one(X_train, y_train, X_test, y_test, C: float, seed: int, N1: int = 2, N2: int = 5) -> dict:
    """One row of a sweep: TnT at ``C`` and ``seed``, CART with as many splits, graph reduction.

    Returns
    -------
    row : dict
        The keys of :data:`COLUMNS`. Depths are mean decision depths of the test samples;
        ``reduced_splits`` is TnT's split count after :func:`tnt.reduction.reduce_model`.

    Examples
    --------
    >>> from tnt.experiments.sweep import sweep_one
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(seed=0)
    >>> row = sweep_one(X, y, X, y, C=1e-2, seed=0)
    >>> row["tnt_splits"], row["reduced_splits"], row["tnt_train_acc"]
    (6, 4, 1.0)
    """
    start = time.perf_counter()
    tnt = TnTClassifier(C=C, N1=N1, N2=N2, random_state=seed).fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    cart = CARTClassifier.with_splits(tnt.n_splits_, random_state=seed).fit(X_train, y_train)
    reduced = reduce_model(tnt, X_train, y_train)
    return {
        "C": float(C),
        "seed": int(seed),
        "tnt_splits": int(tnt.n_splits_),
        "tnt_leaves": int(tnt.n_leaves_),
        "tnt_shared_nodes": int(tnt.n_shared_nodes_),
        "tnt_train_acc": float(tnt.score(X_train, y_train)),
        "tnt_test_acc": float(tnt.score(X_test, y_test)),
        "tnt_mean_depth": float(np.mean(tnt.decision_depth(X_test))),
        "tnt_fit_time": float(fit_time),
        "cart_splits": int(cart.n_splits_),
        "cart_train_acc": float(cart.score(X_train, y_train)),
        "cart_test_acc": float(cart.score(X_test, y_test)),
        "cart_mean_depth": float(np.mean(cart.decision_depth(X_test))),
        "reduced_splits": int(reduced.n_splits_),
    }


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
    progress: Optional[Callable[[int, int], None]] = None,
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

    Returns
    -------
    table : pandas.DataFrame
        One row per (C, seed), columns :data:`COLUMNS`, sorted by C then seed; the same whatever
        ``n_jobs`` or the backend, but for ``tnt_fit_time``.

    Examples
    --------
    >>> from tnt.experiments.sweep import sweep
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(n=500, seed=0)
    >>> table = sweep(X, y, X, y, Cs=[1e-3, 1e-1], seeds=[0])
    >>> table["tnt_splits"].tolist()[0] > table["tnt_splits"].tolist()[1]
    True
    """
    Cs, seeds = [float(c) for c in Cs], [int(s) for s in seeds]
    if not Cs or not seeds:
        raise ValueError("A sweep needs at least one value of C and one seed.")
    pairs = [(C, seed) for C in Cs for seed in seeds]
    tasks = (delayed(sweep_one)(X_train, y_train, X_test, y_test, C, seed, N1, N2) for C, seed in pairs)
    rows = []
    for row in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks):
        rows.append(row)
        if progress is not None:
            progress(len(rows), len(pairs))
    table = pd.DataFrame(rows, columns=COLUMNS)
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
