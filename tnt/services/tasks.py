"""Classification or regression: the one place the experiments choose their models and scores by task.

A classification is scored by accuracy; a regression by R² (the coefficient of determination,
``score`` of every scikit-learn regressor) and RMSE (root mean squared error, in the target's
units). TnT's baseline is CART grown best-first to the same number of splits, a
``DecisionTreeClassifier`` or a ``DecisionTreeRegressor`` (:meth:`CARTClassifier.with_splits`).
"""

from __future__ import annotations

import numpy as np

from tnt.baselines import CARTClassifier, CARTRegressor
from tnt.estimator import TnTClassifier
from tnt.regressor import TnTRegressor

__all__ = ["is_regression", "model_classes", "scores", "headline_measure", "measure_decimals"]


def is_regression(model) -> bool:
    """Whether a fitted graph model (TnT, CART, a loaded model file) predicts numbers."""
    graph = getattr(model, "graph_", model)
    return bool(getattr(graph, "regression", False))


def model_classes(regression: bool) -> tuple[type, type]:
    """(TnT's estimator class, CART's) for a regression or a classification.

    Examples
    --------
    >>> [c.__name__ for c in model_classes(True)]
    ['TnTRegressor', 'CARTRegressor']
    """
    return (TnTRegressor, CARTRegressor) if regression else (TnTClassifier, CARTClassifier)


def scores(model, X, y, part: str) -> dict:
    """``{part}_accuracy`` of a classifier, or ``{part}_r2`` and ``{part}_rmse`` of a regressor.

    Examples
    --------
    >>> import numpy as np
    >>> from tnt.baselines import CARTRegressor
    >>> X, y = np.arange(8.0).reshape(-1, 1), np.arange(8.0)
    >>> s = scores(CARTRegressor(max_leaf_nodes=8).fit(X, y), X, y, "train")
    >>> sorted(s), s["train_r2"], s["train_rmse"]
    (['train_r2', 'train_rmse'], 1.0, 0.0)
    """
    if not is_regression(model):
        return {f"{part}_accuracy": float(model.score(X, y))}
    y = np.asarray(y, dtype=np.float64)
    error = model.predict(X) - y
    mse = float(np.mean(error**2))
    variance = float(np.var(y))
    r2 = 1.0 - mse / variance if variance > 0 else (1.0 if mse == 0 else 0.0)  # scikit-learn's r2_score
    return {f"{part}_r2": r2, f"{part}_rmse": float(np.sqrt(mse))}


def headline_measure(measures) -> str:
    """The headline measure among ``measures`` (a metrics dict or a table's columns): test accuracy,
    or test R² for a regression.

    Examples
    --------
    >>> headline_measure({"test_r2": 0.7, "test_rmse": 1.2}), headline_measure(["test_accuracy"])
    ('test_r2', 'test_accuracy')
    """
    return "test_r2" if "test_r2" in measures else "test_accuracy"


#: Words that make a measure a score (three decimals), wherever they stand in its name.
_SCORE_WORDS = ("accuracy", "precision", "score", "_acc", "r2")


def measure_decimals(name: str) -> int | None:
    """Decimals a measure is shown with: 3 for a score (an accuracy, a precision, an R²), 2 for a
    depth or a time; None for the others (counts, an RMSE in the target's units). The one rule of
    the app's tables, metrics and comparisons.

    Examples
    --------
    >>> measure_decimals("test_accuracy"), measure_decimals("fit_time"), measure_decimals("test_rmse")
    (3, 2, None)
    >>> measure_decimals("tnt_test_acc"), measure_decimals("train_precision"), measure_decimals("test_r2_mean")
    (3, 3, 3)
    """
    lower = name.lower()
    if any(word in lower for word in _SCORE_WORDS):
        return 3
    if "depth" in lower or "time" in lower:
        return 2
    return None
