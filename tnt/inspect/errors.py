"""Where a decision graph is wrong on test data: per node, how many training and test samples reach
it and how well the test samples that pass it end up predicted (accuracy, or RMSE in a regression);
the leaves that make most test errors, each with the path most of those errors took; the confusion
matrix with the samples of each cell.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tnt.graph import DecisionGraph
from tnt.inspect.reach import Routes

__all__ = ["Confusion", "confusion", "error_leaves", "node_scores"]


def _errors(graph: DecisionGraph, routes: Routes, y) -> np.ndarray:
    """Per sample: 1.0 for a wrong class (a regression: the squared error)."""
    if graph.regression:
        return (graph.value[routes.leaves, 0] - np.asarray(y, dtype=np.float64)) ** 2
    return (graph.predicted_class()[routes.leaves] != np.asarray(y)).astype(np.float64)


def node_scores(graph: DecisionGraph, routes: Routes, y) -> pd.DataFrame:
    """One row per node: training samples (the graph's own counts), test samples reaching it, and how
    the test samples passing it end up predicted.

    Parameters
    ----------
    graph : DecisionGraph
    routes : Routes
        The test samples' paths (:func:`tnt.inspect.reach.routes`).
    y : array-like
        The test samples' class indices, or targets of a regression.

    Returns
    -------
    scores : pandas.DataFrame
        Columns ``node``, ``train_samples``, ``test_samples``, then ``test_errors`` and
        ``test_accuracy`` (NaN where no test sample passes) for a classifier, ``test_rmse`` for a
        regression.

    Examples
    --------
    >>> from tnt.inspect.reach import routes
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]],
    ...                   n_node_samples=[4, 2, 2])
    >>> s = node_scores(g, routes(g, [[0.1], [0.2], [0.9]]), [0, 1, 1])
    >>> s[["test_samples", "test_errors", "test_accuracy"]].round(3).values.tolist()
    [[3.0, 1.0, 0.667], [2.0, 1.0, 0.5], [1.0, 0.0, 1.0]]
    """
    n = graph.node_count
    counts = routes.counts(n)
    wrong = routes.sums(n, _errors(graph, routes, y))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(counts > 0, wrong / np.maximum(counts, 1), np.nan)
    frame = pd.DataFrame({"node": np.arange(n), "train_samples": graph.n_node_samples, "test_samples": counts})
    if graph.regression:
        frame["test_rmse"] = np.sqrt(share)
    else:
        frame["test_errors"] = wrong.round().astype(np.int64)
        frame["test_accuracy"] = 1.0 - share
    return frame


def _rule_of_path(graph: DecisionGraph, path: list[int], feature_names) -> str:
    from tnt.inspect.rules import merged_conditions, rule_text

    return rule_text(merged_conditions(graph, path), feature_names)


def error_leaves(graph: DecisionGraph, routes: Routes, y, feature_names=None, top: int | None = 20) -> pd.DataFrame:
    """The leaves that make most test errors (a regression: the largest total squared error), most
    first, each with the path most of its wrong test samples took (the first ``top`` such leaves; all
    when ``top`` is None).

    Returns
    -------
    leaves : pandas.DataFrame
        Columns ``leaf``, ``test_samples``, ``test_errors`` (``test_squared_error`` in a regression),
        ``train_samples``, ``path`` (node ids joined by arrows) and ``rule`` (its merged conditions).

    Examples
    --------
    >>> from tnt.inspect.reach import routes
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]],
    ...                   n_node_samples=[4, 2, 2])
    >>> error_leaves(g, routes(g, [[0.1], [0.2], [0.9]]), [0, 1, 0], ["x"]).values.tolist()
    [[1, 2, 1, 2, '0 → 1', 'x <= 0.5'], [2, 1, 1, 2, '0 → 2', 'x > 0.5']]
    """
    errors = _errors(graph, routes, y)
    per_leaf = np.bincount(routes.leaves, weights=errors, minlength=graph.node_count)
    tested = np.bincount(routes.leaves, minlength=graph.node_count)
    order = [int(v) for v in np.argsort(-per_leaf, kind="stable") if per_leaf[v] > 0][:top]  # a slice to None keeps all
    rows = []
    for leaf in order:
        wrong = np.flatnonzero((routes.leaves == leaf) & (errors > 0))
        if graph.regression:  # the path of the largest squared errors' samples, weighted by them
            paths = Counter()
            for i in wrong:
                paths[tuple(routes.path(i))] += errors[i]
            path = list(max(paths, key=paths.get))
        else:
            path = list(Counter(tuple(routes.path(i)) for i in wrong).most_common(1)[0][0])
        rows.append({
            "leaf": leaf,
            "test_samples": int(tested[leaf]),
            "test_squared_error" if graph.regression else "test_errors": (
                float(per_leaf[leaf]) if graph.regression else int(round(per_leaf[leaf]))
            ),
            "train_samples": int(graph.n_node_samples[leaf]),
            "path": " → ".join(map(str, path)),
            "rule": _rule_of_path(graph, path, feature_names),
        })  # fmt: skip
    measure = "test_squared_error" if graph.regression else "test_errors"
    return pd.DataFrame(rows, columns=["leaf", "test_samples", measure, "train_samples", "path", "rule"])


@dataclass(frozen=True, eq=False)
class Confusion:
    """The confusion matrix of a test set.

    Attributes
    ----------
    counts : ndarray of shape (n_classes, n_classes)
        ``counts[i, j]``: samples of true class ``i`` predicted as ``j``.
    true, predicted : ndarray of int
        Each sample's true and predicted class index.
    """

    counts: np.ndarray
    true: np.ndarray
    predicted: np.ndarray

    def samples(self, true: int, predicted: int) -> np.ndarray:
        """The indices of the samples of one cell."""
        return np.flatnonzero((self.true == true) & (self.predicted == predicted))

    def frame(self, class_names=None) -> pd.DataFrame:
        """The matrix as a table: one row per true class, one column per predicted class."""
        names = [str(c) for c in (class_names if class_names is not None else range(self.counts.shape[0]))]
        return pd.DataFrame(self.counts, index=pd.Index(names, name="true class"), columns=names)


def confusion(graph: DecisionGraph, routes: Routes, y) -> Confusion:
    """The confusion matrix of the test samples whose paths are ``routes`` and whose class indices are
    ``y`` (a sample of a class the model does not know, index -1, is left out).

    Examples
    --------
    >>> from tnt.inspect.reach import routes
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> c = confusion(g, routes(g, [[0.1], [0.2], [0.9]]), [0, 1, 1])
    >>> c.counts.tolist(), c.samples(1, 0).tolist()
    ([[1, 0], [1, 1]], [1])
    """
    if graph.regression:
        raise ValueError("A regression has no confusion matrix; look at the test RMSE per node instead.")
    true = np.asarray(y, dtype=np.intp)
    predicted = graph.predicted_class()[routes.leaves]
    known = true >= 0
    counts = np.zeros((graph.n_classes, graph.n_classes), dtype=np.int64)
    np.add.at(counts, (true[known], predicted[known]), 1)
    return Confusion(counts=counts, true=true, predicted=predicted)
