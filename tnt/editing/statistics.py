"""Node statistics of an edited graph, from the training data or, without it, kept and marked unknown."""

from __future__ import annotations

import numpy as np

from tnt.graph import DecisionGraph

__all__ = ["class_indices", "refreshed"]


def class_indices(classes: np.ndarray, y) -> np.ndarray:
    """The index in ``classes`` of each label of ``y``.

    Raises
    ------
    ValueError
        When ``y`` holds a label that is not one of ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> class_indices(np.array(["a", "b"]), ["b", "a"]).tolist()
    [1, 0]
    >>> class_indices(np.array(["a", "b"]), ["c"])
    Traceback (most recent call last):
    ...
    ValueError: The training labels hold a class the model does not predict; pass the data it was trained on.
    """
    classes, y = np.asarray(classes), np.asarray(y)
    order = np.argsort(classes, kind="stable")
    found = np.clip(np.searchsorted(classes[order], y), 0, classes.shape[0] - 1)
    index = order[found]
    if y.size and not np.array_equal(classes[index], y):
        raise ValueError(
            "The training labels hold a class the model does not predict; pass the data it was trained on."
        )
    return index.astype(np.intp)


def refreshed(graph: DecisionGraph, X, y, sample_weight=None) -> DecisionGraph:
    """``graph`` with the statistics of the training samples ``(X, y)`` at every node: class counts
    and Gini impurity (``y`` class indices), or mean target and mean squared error (a regression
    graph, ``y`` the targets), and the number of samples reaching each node.

    With ``sample_weight``, class counts, means and impurities are weighted as the model's training
    weighted them (a leaf predicts the class of largest weight); ``n_node_samples`` still counts samples.

    A node no training sample reaches keeps the value it had (its leaf prediction), with zero
    samples: it would otherwise predict the first class, or a mean of 0.

    Examples
    --------
    >>> import numpy as np
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[1, 1], [1, 0], [0, 1]])
    >>> r = refreshed(g, np.array([[0.0], [0.1]]), np.array([0, 1]))
    >>> r.value.tolist(), r.n_node_samples.tolist()
    ([[1.0, 1.0], [1.0, 1.0], [0.0, 1.0]], [2, 2, 0])
    """
    if graph.regression:
        fresh = graph.with_regression_stats(X, np.asarray(y, dtype=np.float64), sample_weight)
    else:
        fresh = graph.with_training_stats(X, y, sample_weight)
    unreached = fresh.n_node_samples == 0
    value = np.where(unreached[:, None], graph.value, fresh.value)
    return DecisionGraph(
        graph.children_left,
        graph.children_right,
        graph.feature,
        graph.threshold,
        value,
        n_node_samples=fresh.n_node_samples,
        impurity=np.where(unreached, graph.impurity, fresh.impurity),
        input_dtype=graph.input_dtype,
        regression=graph.regression,
        missing_go_to_left=graph.missing_go_to_left,
        missing_in_training=graph.missing_in_training,
        categories=graph.categories,
        category_left=graph.category_left,
    )
