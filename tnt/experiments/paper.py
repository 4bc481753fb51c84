"""The paper's experiments (Table 1, Fig. 4, Table 2) as functions over one data set each;
``benchmarks/paper.py`` runs them over the six data sets and writes ``docs/paper/``.

- :func:`load_paper_data`: one of the paper's data sets (found by :func:`tnt.data.external.find_data`)
  as the paper splits it.
- :func:`select_by_cv`: a hyperparameter chosen by stratified k-fold cross-validation on the
  training part (C for TnT, ``max_leaf_nodes`` for CART).
- :func:`table1`: TnT and CART at the chosen values over several trials.
- :func:`calibrate_C`: the C at which TnT has about a given number of splits (Table 2's sizes).
- Fig. 4 is :func:`tnt.experiments.sweep.sweep` with ``models=EXTRA_MODELS``.

Everything runs through joblib, so ``joblib.parallel_backend("dask")`` sends it to a Dask cluster.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

from tnt._parallel import check_n_jobs
from tnt.baselines import CARTClassifier
from tnt.data.external import find_data, stop_if_missing
from tnt.estimator import TnTClassifier

__all__ = [
    "PAPER_DATASETS",
    "calibrate_C",
    "leaf_grid",
    "load_paper_data",
    "parse_table2_side_study",
    "select_by_cv",
    "table1",
]

#: The data sets of the paper's Table 1 and Fig. 4 that the project has, in the paper's order.
PAPER_DATASETS = ("mnist", "connect_4", "letter", "optdigits", "pendigits", "usps")
#: Share of the data held out for testing where there is no official split (the paper's 33%).
TEST_SHARE = 0.33


def load_paper_data(name: str, data_dir=None, *, max_train: int | None = None, seed: int = 0):
    """One of :data:`PAPER_DATASETS`, split as the paper does.

    Sets with an official split keep it; Letter and Connect-4 (one-hot, 126 features) get a
    stratified 33% test split drawn with ``seed``.

    Parameters
    ----------
    name : str
    data_dir : path-like, default=None
        Folder holding ``<name>.npz``; by default the set is looked for where
        :func:`tnt.data.external.find_data` looks (``$TNT_DATA``, ``../shared/data``, ...).
    max_train : int, default=None
        Keep a stratified random subset of this many training samples (the test part is kept whole).
    seed : int, default=0

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarray

    Raises
    ------
    tnt.data.external.MissingDataError
        When the set is not found; its one sentence says how to get it.
    """
    if name not in PAPER_DATASETS:
        raise ValueError(f"Unknown data set {name!r}; choose from {', '.join(PAPER_DATASETS)}.")
    path = find_data(name, data_dir)
    with np.load(path, allow_pickle=False) as d:
        if "X_train" in d:
            X_train, y_train, X_test, y_test = d["X_train"], d["y_train"], d["X_test"], d["y_test"]
        else:
            X_train, X_test, y_train, y_test = train_test_split(
                d["X"], d["y"], test_size=TEST_SHARE, stratify=d["y"], random_state=seed
            )
    if max_train is not None and max_train < len(y_train):
        X_train, _, y_train, _ = train_test_split(
            X_train, y_train, train_size=int(max_train), stratify=y_train, random_state=seed
        )
    return X_train, y_train, X_test, y_test


def leaf_grid(low: int, high: int, n: int) -> list[int]:
    """``n`` values of ``max_leaf_nodes`` spaced evenly on a log scale (distinct integers, at least 2).

    Examples
    --------
    >>> from tnt.experiments.paper import leaf_grid
    >>> leaf_grid(16, 4096, 5)
    [16, 64, 256, 1024, 4096]
    """
    return sorted({max(2, int(round(v))) for v in np.geomspace(low, high, n)})


def select_by_cv(estimator, param: str, values, X, y, *, cv: int = 3, seed: int = 0, n_jobs: int = 1):
    """The value of ``param`` with the best mean accuracy in stratified ``cv``-fold cross-validation.

    Parameters
    ----------
    estimator : estimator
        For example ``TnTClassifier(ccp_alpha=0.0, random_state=0)`` with ``param="C"``, or
        ``CARTClassifier(random_state=0)`` with ``param="max_leaf_nodes"``.
    param : str
    values : sequence
    X, y : array-like
        The training part only.
    cv : int, default=3
    seed : int, default=0
        Seed of the folds.
    n_jobs : int, default=1
        joblib workers over the (value, fold) fits.

    Returns
    -------
    best : the chosen value (the first of equally good ones)
    scores : pandas.Series
        Mean cross-validation accuracy of each value.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import CARTClassifier
    >>> from tnt.experiments.paper import select_by_cv
    >>> X, y = load_iris(return_X_y=True)
    >>> best, scores = select_by_cv(CARTClassifier(random_state=0), "max_leaf_nodes", [2, 3, 8], X, y)
    >>> int(best), scores.index.tolist()
    (3, [2, 3, 8])
    """
    check_n_jobs(n_jobs)
    values = list(values)
    folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=seed)
    search = GridSearchCV(clone(estimator), {param: values}, cv=folds, n_jobs=n_jobs, refit=False)
    search.fit(X, y)
    scores = pd.Series(search.cv_results_["mean_test_score"], index=values, name="cv_accuracy")
    return values[int(np.argmax(scores.to_numpy()))], scores


def _trial(model, X_train, y_train, X_test, y_test) -> dict:
    model.fit(X_train, y_train)
    return {"splits": int(model.n_splits_), "test_accuracy": float(model.score(X_test, y_test))}


def table1(X_train, y_train, X_test, y_test, *, Cs, leaf_counts, trials=5, cv=3, n_jobs=1) -> pd.DataFrame:
    """The paper's Table 1 on one data set: TnT and CART at the value chosen by cross-validation.

    C (for TnT, N1=2, N2=5) and ``max_leaf_nodes`` (for CART, grown best-first) are each chosen by
    :func:`select_by_cv` on the training part (folds of seed 0); each model is then trained on the
    whole training part once per trial (``random_state`` = trial) and tested.

    Returns
    -------
    rows : pandas.DataFrame
        One row per model and trial: ``model`` ("TnT" or "CART"), ``trial``, ``chosen`` (the C or
        ``max_leaf_nodes``), ``cv_accuracy`` (of the chosen value), ``splits``, ``test_accuracy``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt.experiments.paper import table1
    >>> X, y = load_iris(return_X_y=True)
    >>> rows = table1(X, y, X, y, Cs=[1e-2, 1e-1], leaf_counts=[2, 8], trials=2)
    >>> rows["model"].tolist(), rows.columns.tolist()[2:]
    (['TnT', 'TnT', 'CART', 'CART'], ['chosen', 'cv_accuracy', 'splits', 'test_accuracy'])
    """
    check_n_jobs(n_jobs)
    chosen = {}
    for name, estimator, param, values in (
        ("TnT", TnTClassifier(ccp_alpha=0.0, random_state=0), "C", Cs),
        ("CART", CARTClassifier(random_state=0), "max_leaf_nodes", leaf_counts),
    ):
        best, scores = select_by_cv(estimator, param, values, X_train, y_train, cv=cv, n_jobs=n_jobs)
        chosen[name] = (param, best, float(scores.loc[best]))
    models = {
        "TnT": lambda seed: TnTClassifier(ccp_alpha=0.0, C=chosen["TnT"][1], random_state=seed),
        "CART": lambda seed: CARTClassifier(max_leaf_nodes=chosen["CART"][1], random_state=seed),
    }
    pairs = [(name, trial) for name in models for trial in range(trials)]
    results = Parallel(n_jobs=n_jobs)(
        delayed(_trial)(models[name](trial), X_train, y_train, X_test, y_test) for name, trial in pairs
    )
    rows = [
        {"model": name, "trial": trial, "chosen": chosen[name][1], "cv_accuracy": chosen[name][2], **result}
        for (name, trial), result in zip(pairs, results)
    ]
    return pd.DataFrame(rows)


def calibrate_C(X, y, target_splits: int, low: float, high: float, *, steps: int = 5, seed: int = 0):
    """A C at which TnT (N1=2, N2=5) has about ``target_splits`` splits, by bisection on a log scale.

    Splits fall as C rises; after ``steps`` fits the C whose split count came closest is returned.

    Returns
    -------
    C : float
    splits : int
        TnT's split count at that C (with ``random_state=seed``).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from tnt.experiments.paper import calibrate_C
    >>> X, y = load_digits(return_X_y=True)
    >>> C, splits = calibrate_C(X, y, 40, 1e-4, 1e-1, steps=6)
    >>> 25 <= splits <= 60
    True
    """
    lo, hi = np.log(low), np.log(high)
    best = None
    for _ in range(steps):
        mid = (lo + hi) / 2
        C = float(f"{np.exp(mid):.3g}")
        splits = TnTClassifier(ccp_alpha=0.0, C=C, random_state=seed).fit(X, y).n_splits_
        if best is None or abs(splits - target_splits) < abs(best[1] - target_splits):
            best = (C, int(splits))
        if splits > target_splits:
            lo = mid
        elif splits < target_splits:
            hi = mid
        else:
            break
    return best


def parse_table2_side_study(argv, description: str, out: Path):
    """The command line of a side study of Table 2 (``benchmarks/paper_adaboost.py``,
    ``benchmarks/paper_cart_trees.py``): its arguments, the ``table2.csv`` a full or quick run left
    in ``--out``, and the training and test parts of each data set it studies.

    Parameters
    ----------
    argv : list of str or None
    description : str
        The study in one line (``--help``).
    out : Path
        Default of ``--out`` (the run's folder). ``--data`` names the folder of the data sets (by
        default they are found by :func:`tnt.data.external.find_data`).

    Returns
    -------
    args : argparse.Namespace
        ``data``, ``out``, ``datasets`` (every data set with a Table 2 in ``--out`` unless given),
        ``seeds``, ``max_train`` and ``n_jobs``.
    table2 : pandas.DataFrame
    splits : dict
        ``{data set: (X_train, y_train, X_test, y_test)}``.

    A data set without a Table 2 in ``--out`` stops the study with one sentence (status 2); one not
    found, with the sentence saying how to get it (status 1).
    """
    from tnt.experiments.paper_numbers import TABLE2

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, help="folder of the .npz data sets (default: see docs/data-sets.md)")
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument(
        "--datasets", nargs="+", choices=sorted(TABLE2), help="default: every data set with a Table 2 in --out"
    )
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--max-train", type=int, help="at most this many training samples (tests)")
    parser.add_argument("--n-jobs", type=int, default=-1)
    args = parser.parse_args(argv)
    table2 = pd.read_csv(args.out / "table2.csv")
    if args.datasets is None:
        args.datasets = [name for name in dict.fromkeys(table2["data"]) if name in TABLE2]
    missing = [name for name in args.datasets if name not in set(table2["data"])]
    if missing:
        parser.error(
            f"{args.out / 'table2.csv'} has no Table 2 for {', '.join(missing)}; run benchmarks/paper.py first."
        )
    stop_if_missing(args.datasets, args.data)
    splits = {name: load_paper_data(name, args.data, max_train=args.max_train) for name in args.datasets}
    return args, table2, splits
