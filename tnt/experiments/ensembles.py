"""TnT inside ensembles (the paper's Table 2): TnT-bagging against Random Forest (bagging of CART)
and TnT-AdaBoost against AdaBoost, with the total number of splits matched as the paper does.

The TnT ensembles are trained first; the CART base trees then get ``max_leaf_nodes`` = the mean
split count of the TnT base estimators + 1, so both ensembles have about as many splits. Every
(ensemble, seed) is one joblib task, so ``joblib.parallel_backend("dask")`` sends them to a Dask
cluster.

The CART base trees are best-first Gini trees, grown by one of two growers (``cart_trees``):

- ``"binned"`` (the default): the project's binned split search, as
  ``NDGClassifier(C=0, merge=False, max_splits=max_leaf_nodes - 1)``, which grows the tree of
  scikit-learn's ``DecisionTreeClassifier(max_leaf_nodes=...)`` up to ties between equally good
  splits (``tests/test_ndg.py``); on MNIST in about a third of the time, on Connect-4 (small
  trees on one-hot features) in more (``benchmarks/paper_cart_trees.py`` measures both);
- ``"scikit-learn"``: scikit-learn's ``DecisionTreeClassifier(max_leaf_nodes=...)`` itself.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier
from sklearn.tree import DecisionTreeClassifier

from tnt._parallel import check_n_jobs
from tnt.estimator import TnTClassifier
from tnt.ndg import NDGClassifier

__all__ = [
    "ADABOOST_TAKES_NO_MISSING",
    "CART_TREES",
    "CART_TWINS",
    "ENSEMBLES",
    "matched_leaves",
    "compare_ensembles",
    "fit_ensemble",
    "fit_ensemble_sizes",
    "summarize_ensembles",
]

#: The four ensembles, in the order of the paper's table.
ENSEMBLES = ("TnT-bagging", "Random Forest", "TnT-AdaBoost", "AdaBoost")

#: The growers of the CART ensembles' base trees (see the module's docstring).
CART_TREES = ("binned", "scikit-learn")

#: Why the ensembles are not compared on data with missing values (TnT learns from them; the
#: AdaBoost of scikit-learn, around TnT and CART alike, refuses them).
ADABOOST_TAKES_NO_MISSING = (
    "scikit-learn's AdaBoost takes no missing values (NaN), so the ensembles are compared on data without "
    "them: choose the columns again with 'Drop rows with missing values' ticked, or leave out the columns "
    "that have them."
)


def _splits(estimator) -> int:
    if hasattr(estimator, "n_splits_"):
        return int(estimator.n_splits_)
    tree = estimator.tree_
    return int(np.count_nonzero(tree.children_left >= 0))


def _cart_tree(cart_trees: str, max_leaf_nodes: int | None, seed: int, categorical_features=None):
    if cart_trees == "binned":
        max_splits = None if max_leaf_nodes is None else max_leaf_nodes - 1
        return NDGClassifier(
            C=0.0, max_splits=max_splits, merge=False, random_state=seed, categorical_features=categorical_features
        )
    return DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes, random_state=seed)


def _check_cart_trees(cart_trees: str, categorical_features=None) -> None:
    if cart_trees not in CART_TREES:
        raise ValueError(f"Unknown grower of CART trees {cart_trees!r}; choose one of {', '.join(CART_TREES)}.")
    if cart_trees == "scikit-learn" and categorical_features is not None and len(categorical_features):
        raise ValueError("scikit-learn's trees have no subset splits of categorical features; use cart_trees='binned'.")


def _make(
    kind: str,
    n_estimators: int,
    seed: int,
    C: float,
    max_leaf_nodes: int | None,
    cart_trees: str,
    categorical_features=None,
):
    if kind.startswith("TnT"):
        # the paper's graph, C alone
        base = TnTClassifier(C=C, ccp_alpha=0.0, random_state=seed, categorical_features=categorical_features)
    else:
        base = _cart_tree(cart_trees, max_leaf_nodes, seed, categorical_features)
    if kind.endswith("AdaBoost"):
        extra = {"algorithm": "SAMME"} if "algorithm" in inspect.signature(AdaBoostClassifier).parameters else {}
        return AdaBoostClassifier(base, n_estimators=n_estimators, learning_rate=1.0, random_state=seed, **extra)
    return BaggingClassifier(
        base, n_estimators=n_estimators, max_samples=1.0, bootstrap=True, bootstrap_features=False, random_state=seed
    )


def fit_ensemble(
    kind,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    n_estimators,
    seed,
    C=1e-3,
    max_leaf_nodes=None,
    cart_trees="binned",
    categorical_features=None,
) -> dict:
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
    cart_trees : {"binned", "scikit-learn"}, default="binned"
        Grower of the CART base trees (see the module's docstring).
    categorical_features : array-like of int, default=None
        Columns of category codes, split by subsets of their categories by every base estimator
        (``"binned"`` CART trees only: scikit-learn's have no subset splits). The base estimators
        get arrays (bagging and AdaBoost convert tables), so the columns are given by index.

    Returns
    -------
    row : dict
        ``ensemble``, ``seed``, ``size`` (asked), ``estimators`` (fitted), ``total_splits``,
        ``mean_splits``, ``train_accuracy``, ``test_accuracy``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt.experiments.ensembles import fit_ensemble
    >>> X, y = load_iris(return_X_y=True)
    >>> row = fit_ensemble("Random Forest", X, y, X, y, n_estimators=3, seed=0, max_leaf_nodes=4)
    >>> row["estimators"], row["total_splits"]
    (3, 9)
    """
    (row,) = fit_ensemble_sizes(
        kind,
        X_train,
        y_train,
        X_test,
        y_test,
        sizes=(n_estimators,),
        seed=seed,
        C=C,
        max_leaf_nodes=max_leaf_nodes,
        cart_trees=cart_trees,
        categorical_features=categorical_features,
    )
    return row


def fit_ensemble_sizes(
    kind,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    sizes,
    seed,
    C=1e-3,
    max_leaf_nodes=None,
    cart_trees="binned",
    categorical_features=None,
) -> list:
    """Fit one ensemble of ``max(sizes)`` base estimators and measure its first ``k`` for each ``k`` in ``sizes``.

    With the same seed, scikit-learn's bagging and AdaBoost draw the first ``k`` base estimators of
    a larger ensemble exactly as they draw an ensemble of ``k``, so one fit measures every size.

    Returns
    -------
    rows : list of dict
        One row per size, as :func:`fit_ensemble` returns it, with the requested ``size``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt.experiments.ensembles import fit_ensemble, fit_ensemble_sizes
    >>> X, y = load_iris(return_X_y=True)
    >>> rows = fit_ensemble_sizes("AdaBoost", X, y, X, y, sizes=(2, 4), seed=0, max_leaf_nodes=3)
    >>> small = fit_ensemble("AdaBoost", X, y, X, y, n_estimators=2, seed=0, max_leaf_nodes=3)
    >>> [r["estimators"] for r in rows], rows[0] == small
    ([2, 4], True)
    """
    if kind not in ENSEMBLES:
        raise ValueError(f"Unknown ensemble {kind!r}; choose one of {', '.join(ENSEMBLES)}.")
    _check_cart_trees(cart_trees, categorical_features)
    sizes = sorted({int(k) for k in sizes})
    model = _make(kind, sizes[-1], seed, C, max_leaf_nodes, cart_trees, categorical_features).fit(X_train, y_train)
    splits = [_splits(e) for e in model.estimators_]
    train = _prefix_accuracies(model, X_train, y_train)
    test = _prefix_accuracies(model, X_test, y_test)
    rows = []
    for size in sizes:
        k = min(size, len(splits))  # AdaBoost stops early after a perfect base estimator
        rows.append(
            {
                "ensemble": kind,
                "seed": int(seed),
                "size": size,
                "estimators": k,
                "total_splits": int(sum(splits[:k])),
                "mean_splits": float(np.mean(splits[:k])),
                "train_accuracy": train[k - 1],
                "test_accuracy": test[k - 1],
            }
        )
    return rows


def _prefix_accuracies(model, X, y) -> list[float]:
    """Accuracy of the ensemble made of its first k base estimators, for every k."""
    if isinstance(model, AdaBoostClassifier):
        return [float(score) for score in model.staged_score(X, y)]
    # Bagging averages the base estimators' probabilities (each was fitted on encoded labels and
    # its own order of the features).
    X = np.asarray(X)
    proba = np.zeros((X.shape[0], model.n_classes_))
    y = np.asarray(y)
    out = []
    for estimator, features in zip(model.estimators_, model.estimators_features_):
        proba[:, np.asarray(estimator.classes_, dtype=np.intp)] += estimator.predict_proba(X[:, features])
        out.append(float(np.mean(model.classes_.take(np.argmax(proba, axis=1)) == y)))
    return out


def compare_ensembles(
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    n_estimators=5,
    C_bagging=1e-3,
    C_boosting=1e-2,
    seeds=(0,),
    n_jobs=1,
    sizes=None,
    cart_trees="binned",
    categorical_features=None,
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
    sizes : sequence of int, default=None
        Several ensemble sizes (the paper's 5, 10, 20), measured on the first base estimators
        of one ensemble of the largest size (see :func:`fit_ensemble_sizes`); replaces
        ``n_estimators``. The CART trees match the TnT base estimators of the largest size.
    cart_trees : {"binned", "scikit-learn"}, default="binned"
        Grower of the CART base trees (see the module's docstring).
    categorical_features : array-like of int, default=None
        As in :func:`fit_ensemble`.

    Returns
    -------
    rows : pandas.DataFrame
        One row per ensemble, size and seed (see :func:`fit_ensemble`), in the order of
        :data:`ENSEMBLES`, then by size.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt.experiments.ensembles import compare_ensembles
    >>> X, y = load_iris(return_X_y=True)
    >>> rows = compare_ensembles(X, y, X, y, n_estimators=2, C_bagging=1e-2, C_boosting=1e-1)
    >>> rows["ensemble"].tolist()
    ['TnT-bagging', 'Random Forest', 'TnT-AdaBoost', 'AdaBoost']
    """
    check_n_jobs(n_jobs)
    _check_cart_trees(cart_trees, categorical_features)  # before the TnT ensembles, which take most of the time
    if any(np.isnan(np.asarray(X, dtype=np.float64)).any() for X in (X_train, X_test)):
        raise ValueError(ADABOOST_TAKES_NO_MISSING)
    seeds = [int(s) for s in seeds]
    sizes = (n_estimators,) if sizes is None else tuple(sizes)
    data = (X_train, y_train, X_test, y_test)
    parallel = Parallel(n_jobs=n_jobs)
    tnt_rows = parallel(
        delayed(fit_ensemble_sizes)(kind, *data, sizes=sizes, seed=seed, C=C, categorical_features=categorical_features)
        for kind, C in (("TnT-bagging", C_bagging), ("TnT-AdaBoost", C_boosting))
        for seed in seeds
    )
    tnt_rows = [row for rows in tnt_rows for row in rows]
    matched = matched_leaves(pd.DataFrame(tnt_rows))
    cart_rows = parallel(
        delayed(fit_ensemble_sizes)(
            kind,
            *data,
            sizes=sizes,
            seed=seed,
            max_leaf_nodes=leaves,
            cart_trees=cart_trees,
            categorical_features=categorical_features,
        )
        for kind, leaves in matched.items()
        for seed in seeds
    )
    table = pd.DataFrame(tnt_rows + [row for rows in cart_rows for row in rows])
    table["_order"] = table["ensemble"].map(ENSEMBLES.index)
    table = table.sort_values(["_order", "size", "seed"], kind="stable").drop(columns="_order")
    return table.reset_index(drop=True)


#: The CART ensemble matched to each TnT ensemble.
CART_TWINS = {"TnT-bagging": "Random Forest", "TnT-AdaBoost": "AdaBoost"}


def matched_leaves(rows: pd.DataFrame) -> dict:
    """``max_leaf_nodes`` of the CART base trees matched to TnT's: for each CART ensemble, the mean
    split count of its TnT twin's base estimators (at the largest ensemble fitted) + 1.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of TnT ensembles (others are ignored) with ``ensemble``, ``estimators`` and
        ``mean_splits``, as :func:`compare_ensembles` returns them.

    Returns
    -------
    leaves : dict
        ``{"Random Forest": int, "AdaBoost": int}`` for the TnT ensembles present.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.ensembles import matched_leaves
    >>> rows = pd.DataFrame({"ensemble": ["TnT-bagging"] * 3, "estimators": [5, 10, 10],
    ...                      "mean_splits": [30.0, 41.0, 43.0]})
    >>> matched_leaves(rows)
    {'Random Forest': 43}
    """
    leaves = {}
    for kind, twin in CART_TWINS.items():
        part = rows[rows["ensemble"] == kind]
        if len(part):
            largest = part[part["estimators"] == part["estimators"].max()]
            leaves[twin] = max(int(round(largest["mean_splits"].mean())) + 1, 2)
    return leaves


def summarize_ensembles(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean and std across seeds per ensemble, as text: the layout of the paper's Table 2 (the mean
    alone where there is one seed: a spread of one value says nothing).

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
    >>> summarize_ensembles(rows[:1]).loc["AdaBoost", "test_accuracy"]
    '0.700'
    """
    out = []
    for kind, group in rows.groupby("ensemble", sort=False):
        out.append(
            {
                "ensemble": kind,
                "estimators": _short(group["estimators"].mean()),
                "total_splits": _short(group["total_splits"].mean()),
                **{
                    col: f"{group[col].mean():.3f}" + (f" ± {group[col].std(ddof=0):.3f}" if len(group) > 1 else "")
                    for col in ("train_accuracy", "test_accuracy")
                },
            }
        )
    return pd.DataFrame(out).set_index("ensemble")


def _short(value: float) -> str:
    """A mean count for display: one decimal, none when it is whole."""
    return f"{value:.1f}".removesuffix(".0")
