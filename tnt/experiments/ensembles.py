"""TnT inside ensembles (the paper's Table 2): TnT-bagging against Random Forest (bagging of CART)
and TnT-AdaBoost against AdaBoost, with the total number of splits matched as the paper does.

The TnT ensembles are trained first; the CART base trees then get ``max_leaf_nodes`` = the mean
split count of the TnT base estimators + 1, so both ensembles have about as many splits. Every
(ensemble, seed) is one joblib task, so ``joblib.parallel_backend("dask")`` sends them to a Dask
cluster.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier
from sklearn.tree import DecisionTreeClassifier

from tnt.estimator import TnTClassifier

__all__ = ["ENSEMBLES", "compare_ensembles", "fit_ensemble", "summarize_ensembles"]

#: The four ensembles, in the order of the paper's table.
ENSEMBLES = ("TnT-bagging", "Random Forest", "TnT-AdaBoost", "AdaBoost")


def _splits(estimator) -> int:
    if hasattr(estimator, "n_splits_"):
        return int(estimator.n_splits_)
    tree = estimator.tree_
    return int(np.count_nonzero(tree.children_left >= 0))


def _make(kind: str, n_estimators: int, seed: int, C: float, max_leaf_nodes: int | None):
    if kind.startswith("TnT"):
        base = TnTClassifier(C=C, random_state=seed)
    else:
        base = DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes, random_state=seed)
    if kind.endswith("AdaBoost"):
        extra = {"algorithm": "SAMME"} if "algorithm" in inspect.signature(AdaBoostClassifier).parameters else {}
        return AdaBoostClassifier(base, n_estimators=n_estimators, learning_rate=1.0, random_state=seed, **extra)
    return BaggingClassifier(
        base, n_estimators=n_estimators, max_samples=1.0, bootstrap=True, bootstrap_features=False, random_state=seed
    )


def fit_ensemble(kind, X_train, y_train, X_test, y_test, *, n_estimators, seed, C=1e-3, max_leaf_nodes=None) -> dict:
    """Fit one ensemble and measure it.

    Parameters
    ----------
    kind : {"TnT-bagging", "Random Forest", "TnT-AdaBoost", "AdaBoost"}
    X_train, y_train, X_test, y_test : array-like
    n_estimators : int
        Base estimators (AdaBoost may stop earlier when a base estimator is perfect).
    seed : int
    C : float, default=1e-3
        TnT's pruning strength (TnT ensembles).
    max_leaf_nodes : int, default=None
        Size of the CART base trees (CART ensembles).

    Returns
    -------
    row : dict
        ``ensemble``, ``seed``, ``estimators`` (fitted), ``total splits``, ``mean splits``,
        ``train accuracy``, ``test accuracy``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt.experiments.ensembles import fit_ensemble
    >>> X, y = load_iris(return_X_y=True)
    >>> row = fit_ensemble("Random Forest", X, y, X, y, n_estimators=3, seed=0, max_leaf_nodes=4)
    >>> row["estimators"], row["total_splits"]
    (3, 9)
    """
    if kind not in ENSEMBLES:
        raise ValueError(f"Unknown ensemble {kind!r}; choose one of {', '.join(ENSEMBLES)}.")
    model = _make(kind, n_estimators, seed, C, max_leaf_nodes).fit(X_train, y_train)
    splits = [_splits(e) for e in model.estimators_]
    return {
        "ensemble": kind,
        "seed": int(seed),
        "estimators": len(splits),
        "total_splits": int(sum(splits)),
        "mean_splits": float(np.mean(splits)),
        "train_accuracy": float(model.score(X_train, y_train)),
        "test_accuracy": float(model.score(X_test, y_test)),
    }


def compare_ensembles(
    X_train, y_train, X_test, y_test, *, n_estimators=5, C_bagging=1e-3, C_boosting=1e-2, seeds=(0,), n_jobs=1
) -> pd.DataFrame:
    """TnT-bagging vs Random Forest and TnT-AdaBoost vs AdaBoost at matched total splits.

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
    n_estimators : int, default=5
    C_bagging, C_boosting : float
        TnT's C for the bagging (large base models) and the boosting (small ones) ensembles.
    seeds : sequence of int, default=(0,)
    n_jobs : int, default=1
        joblib workers over the (ensemble, seed) tasks.

    Returns
    -------
    rows : pandas.DataFrame
        One row per ensemble and seed (see :func:`fit_ensemble`), in the order of :data:`ENSEMBLES`.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt.experiments.ensembles import compare_ensembles
    >>> X, y = load_iris(return_X_y=True)
    >>> rows = compare_ensembles(X, y, X, y, n_estimators=2, C_bagging=1e-2, C_boosting=1e-1)
    >>> rows["ensemble"].tolist()
    ['TnT-bagging', 'Random Forest', 'TnT-AdaBoost', 'AdaBoost']
    """
    seeds = [int(s) for s in seeds]
    data = (X_train, y_train, X_test, y_test)
    parallel = Parallel(n_jobs=n_jobs)
    tnt_rows = parallel(
        delayed(fit_ensemble)(kind, *data, n_estimators=n_estimators, seed=seed, C=C)
        for kind, C in (("TnT-bagging", C_bagging), ("TnT-AdaBoost", C_boosting))
        for seed in seeds
    )
    matched = {}
    for kind in ("TnT-bagging", "TnT-AdaBoost"):
        mean = np.mean([r["mean_splits"] for r in tnt_rows if r["ensemble"] == kind])
        matched[kind] = max(int(round(mean)) + 1, 2)
    cart_rows = parallel(
        delayed(fit_ensemble)(kind, *data, n_estimators=n_estimators, seed=seed, max_leaf_nodes=matched[twin])
        for kind, twin in (("Random Forest", "TnT-bagging"), ("AdaBoost", "TnT-AdaBoost"))
        for seed in seeds
    )
    table = pd.DataFrame(tnt_rows + cart_rows)
    table["_order"] = table["ensemble"].map(ENSEMBLES.index)
    return table.sort_values(["_order", "seed"], kind="stable").drop(columns="_order").reset_index(drop=True)


def summarize_ensembles(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean and std across seeds per ensemble, as text: the layout of the paper's Table 2.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.ensembles import summarize_ensembles
    >>> rows = pd.DataFrame({"ensemble": ["AdaBoost"] * 2, "seed": [0, 1], "estimators": [5, 5],
    ...                      "total_splits": [20, 22], "mean_splits": [4.0, 4.4],
    ...                      "train_accuracy": [0.9, 0.8], "test_accuracy": [0.7, 0.9]})
    >>> s = summarize_ensembles(rows)
    >>> s.loc["AdaBoost", "total_splits"], s.loc["AdaBoost", "test_accuracy"]
    ('21', '0.800 ± 0.100')
    """
    out = []
    for kind, group in rows.groupby("ensemble", sort=False):
        out.append(
            {
                "ensemble": kind,
                "estimators": _short(group["estimators"].mean()),
                "total_splits": _short(group["total_splits"].mean()),
                **{
                    col: f"{group[col].mean():.3f} ± {group[col].std(ddof=0):.3f}"
                    for col in ("train_accuracy", "test_accuracy")
                },
            }
        )
    return pd.DataFrame(out).set_index("ensemble")


def _short(value: float) -> str:
    """A mean count for display: one decimal, none when it is whole."""
    return f"{value:.1f}".removesuffix(".0")
