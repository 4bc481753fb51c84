"""What if a sample were different? The path of an edited sample, next to the original's: which
tests now go the other way, where the paths part, and what each predicts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tnt.graph import DecisionGraph
from tnt.inspect.path import goes_left, sample_path, shown_value, value_text

__all__ = ["WhatIf", "blank_sample", "what_if"]


@dataclass(frozen=True, eq=False)
class WhatIf:
    """The edited sample's path and what changed against the original.

    Attributes
    ----------
    path, original_path : list of int
        The nodes each sample passes, root first.
    changed_tests : list of int
        The splits, on either path, whose test the edited sample passes the other way.
    leaf, original_leaf : int
    table : pandas.DataFrame
        The edited path: ``node``, ``test``, ``before`` and ``value`` (the original's and the edited
        sample's value of the feature tested), ``goes`` ("yes"/"no") and ``changed`` (the test's
        outcome differs from the original's).
    """

    path: list[int]
    original_path: list[int]
    changed_tests: list[int]
    leaf: int
    original_leaf: int
    table: pd.DataFrame

    @property
    def same_leaf(self) -> bool:
        return self.leaf == self.original_leaf


def what_if(graph: DecisionGraph, original, edited, feature_names=None) -> WhatIf:
    """Route an edited sample and compare it with the original.

    Parameters
    ----------
    graph : DecisionGraph
    original, edited : array-like of shape (n_features,)
    feature_names : list of str, optional

    Returns
    -------
    WhatIf

    Examples
    --------
    >>> g = DecisionGraph([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 1, -2, -2], [0.5, -2, 2.0, -2, -2],
    ...                   np.ones((5, 2)))
    >>> w = what_if(g, [0.7, 1.0], [0.7, 3.0], ["a", "b"])
    >>> w.path, w.changed_tests, w.table["changed"].tolist()
    ([0, 2, 4], [2], [False, True, False])
    """
    x0 = np.asarray(original, dtype=np.float64).reshape(-1)
    x1 = np.asarray(edited, dtype=np.float64).reshape(-1)
    if x0.shape != x1.shape:
        raise ValueError(f"The edited sample has {x1.size} values and the original {x0.size}; give both every feature.")
    before = {s.node: s for s in sample_path(graph, x0, feature_names)}
    steps = sample_path(graph, x1, feature_names)
    after = {s.node: s for s in steps}
    changed = sorted(
        node for node in set(before) | set(after)
        if not graph.is_leaf[node] and (after[node].holds if node in after else _holds(graph, x1, node)) != _holds(graph, x0, node)
    )  # fmt: skip
    table = pd.DataFrame(
        [
            {
                "node": s.node,
                "test": s.rule,
                "before": "" if s.value is None else shown_value(graph, s.node, x0[graph.feature[s.node]]),
                "value": s.category if s.category is not None else value_text(s.value),
                "goes": "" if s.holds is None else ("yes" if s.holds else "no"),
                "changed": s.node in changed,
            }
            for s in steps
        ],
        columns=["node", "test", "before", "value", "goes", "changed"],
    )
    path, original_path = [s.node for s in steps], sorted(before)
    return WhatIf(path=path, original_path=original_path, changed_tests=changed, leaf=path[-1],
                  original_leaf=original_path[-1], table=table)  # fmt: skip


def blank_sample(X_train, categorical=()) -> np.ndarray:
    """A sample to start a what-if from: each feature's training median (missing values left out;
    missing where a column has no value), and at a categorical feature (the column indices
    ``categorical``, holding category codes) its most common training category, the smallest code
    among equally common ones (a median code would be a category picked by its place in the order).

    Examples
    --------
    >>> blank_sample(np.array([[2.0, 0.0], [2.0, 1.0], [0.0, 5.0], [np.nan, 7.0]]), categorical=[0]).tolist()
    [2.0, 3.0]
    """
    X = np.asarray(X_train, dtype=np.float64)
    present = ~np.isnan(X)
    sample = np.full(X.shape[1], np.nan)
    for f in range(X.shape[1]):
        column = X[present[:, f], f]
        if column.size == 0:
            continue
        if f in set(int(c) for c in categorical):
            codes, counts = np.unique(column, return_counts=True)
            sample[f] = codes[np.argmax(counts)]
        else:
            sample[f] = np.median(column)
    return sample


def _holds(graph: DecisionGraph, x, node: int) -> bool:
    """Whether ``x`` passes the test of ``node`` (goes left), compared as the graph routes it."""
    return goes_left(graph, node, np.ascontiguousarray(x, dtype=graph.input_dtype)[graph.feature[node]])
