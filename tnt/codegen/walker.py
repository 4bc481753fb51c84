"""What every code writer needs from a fitted graph model: its reachable splits and leaves, renumbered.

A :class:`CodeGraph` lists the splits reachable from the root in topological order (split 0 is the
root) and the leaves reachable from it; a branch leads to split ``s >= 0`` or to leaf ``k``, encoded
``-1 - k``. Each split's threshold is the one to compare a float64 value with so that ``x <= threshold``
holds exactly when the model sends ``x`` left: for a model that compares in float32 (every model
trained here), that is :func:`~tnt.learn.routing.float32_routing_thresholds`, so code reading
double-precision inputs needs no float32 cast. A missing value (NaN, SQL's NULL) goes where the
model's stored direction sends it (``missing_left``; right at every split of a model without
directions), and a split whose threshold is ``+inf`` tests missingness: present values go left.
A split on a categorical feature has no threshold (NaN): it sends the categories of its
``category_left`` (codes: positions in ``categories[feature]``) left, the feature's other
categories right, and a missing value or a category the model never saw where ``missing_left``
says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tnt.learn.routing import float32_routing_thresholds

__all__ = ["CodeGraph", "code_graph", "leaf_code", "plain_label", "wrap"]


@dataclass(frozen=True)
class CodeGraph:
    """The reachable part of a fitted graph, numbered for code.

    Attributes
    ----------
    feature : ndarray of int, shape (n_splits,)
        Feature each split tests.
    threshold : ndarray of float64, shape (n_splits,)
        ``x <= threshold`` sends ``x`` left, exactly as the model does (float32 rounding included).
    left, right : ndarray of int, shape (n_splits,)
        Where each split sends a sample: a split id ``>= 0`` or a leaf ``-1 - k``.
    missing_left : ndarray of bool, shape (n_splits,)
        Whether each split sends a missing value left (all False for a model without directions).
    leaf_class : ndarray of int, shape (n_leaves,)
        Index (into ``classes``) of the class each leaf predicts; empty for a regression.
    leaf_proba : ndarray of float64, shape (n_leaves, n_classes)
        Class probabilities at each leaf, as ``predict_proba`` gives them; no columns for a regression.
    leaf_value : ndarray of float64, shape (n_leaves,)
        Value each leaf predicts (regression); empty for a classifier.
    start : int
        Where a sample starts: split 0, or leaf 0 (``-1``) when the root is a leaf.
    feature_names : list of str
        One name per input feature, in input order.
    classes : list of bool, int, float or str
        The class labels (``classes_``, as :func:`plain_label` gives them); empty for a regression.
    regression : bool
    n_features : int
        Number of values in an input row.
    description : str
        One line naming the model: estimator, splits, leaves, shared nodes.
    categories : dict of int to list
        Per categorical feature, its categories by name (strings, or integers for integer codes), in
        the order of their codes; empty for a model without categorical features.
    category_left : tuple
        Per split, the codes (ascending) of the categories a categorical split sends left; None at a
        threshold split.
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    missing_left: np.ndarray
    leaf_class: np.ndarray
    leaf_proba: np.ndarray
    leaf_value: np.ndarray
    start: int
    feature_names: list
    classes: list
    regression: bool
    n_features: int
    description: str
    categories: dict = None
    category_left: tuple = ()

    @property
    def n_splits(self) -> int:
        return int(self.feature.shape[0])

    @property
    def n_leaves(self) -> int:
        return int(self.leaf_proba.shape[0])

    @property
    def tests_missing(self) -> np.ndarray:
        """Whether each split tests missingness (threshold ``+inf``): present values left, missing right."""
        return np.isposinf(self.threshold)

    @property
    def categorical(self) -> np.ndarray:
        """Whether each split tests a categorical feature (a subset of its categories)."""
        return np.array([c is not None for c in self.category_left], dtype=bool).reshape(-1)

    @property
    def used_features(self) -> list[int]:
        """The features some split tests, ascending."""
        return sorted({int(f) for f in self.feature})


def leaf_code(k: int) -> int:
    """The branch target of leaf ``k`` (``-1 - k``); it is its own inverse."""
    return -1 - int(k)


def code_graph(estimator, feature_names=None) -> CodeGraph:
    """The :class:`CodeGraph` of a fitted graph classifier or regressor.

    Parameters
    ----------
    estimator : fitted TnT, CART, TAO, NDG or loaded model (anything with ``graph_``)
    feature_names : sequence of str, default=None
        Names of the input features; the estimator's ``feature_names_in_`` when omitted, else
        ``x0``, ``x1``, ...

    Returns
    -------
    graph : CodeGraph

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import CARTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> g = code_graph(CARTClassifier(max_leaf_nodes=3).fit(X, y))
    >>> g.n_splits, g.n_leaves, g.left.tolist(), g.right.tolist(), g.feature_names[:2]
    (2, 3, [-1, -2], [1, -3], ['x0', 'x1'])
    """
    graph = estimator.graph_
    n_features = int(estimator.n_features_in_)
    names = feature_names if feature_names is not None else getattr(estimator, "feature_names_in_", None)
    names = [f"x{i}" for i in range(n_features)] if names is None else [str(n) for n in names]
    if len(names) != n_features:
        raise ValueError(f"feature_names has {len(names)} names but the model reads {n_features} features.")
    if graph.input_dtype not in (np.float32, np.float64):
        raise ValueError(f"Models comparing in {graph.input_dtype} cannot be exported as code (float32 or float64).")
    reached = graph.reachable()
    splits, leaves = np.flatnonzero(reached & ~graph.is_leaf), np.flatnonzero(reached & graph.is_leaf)
    number = np.zeros(graph.node_count, dtype=np.int64)
    number[splits] = np.arange(splits.size)
    number[leaves] = -1 - np.arange(leaves.size)
    categorical = graph.is_categorical[splits]
    threshold = np.where(categorical, 0.0, graph.threshold[splits])
    if graph.input_dtype == np.float32:
        threshold = float32_routing_thresholds(threshold)
    threshold = np.where(categorical, np.nan, threshold)
    regression = bool(graph.regression)
    # The kind of a loaded model is any text its file holds: only identifier characters reach the
    # comments and docstrings of the code.
    kind = re.sub(r"[^A-Za-z0-9_]", "?", str(getattr(estimator, "estimator_kind_", type(estimator).__name__)))[:60]
    shared = int(np.count_nonzero(graph.n_parents[np.concatenate([splits, leaves])] > 1))
    return CodeGraph(
        feature=graph.feature[splits].astype(np.int64),
        threshold=np.asarray(threshold, dtype=np.float64),
        left=number[graph.children_left[splits]],
        right=number[graph.children_right[splits]],
        missing_left=np.zeros(splits.size, dtype=bool)
        if graph.missing_go_to_left is None
        else graph.missing_go_to_left[splits].astype(bool),
        leaf_class=np.empty(0, dtype=np.int64) if regression else graph.predicted_class()[leaves].astype(np.int64),
        leaf_proba=np.empty((leaves.size, 0)) if regression else graph.proba()[leaves],
        leaf_value=graph.value[leaves, 0] if regression else np.empty(0),
        start=int(number[0]),
        feature_names=names,
        classes=[] if regression else [plain_label(c) for c in estimator.classes_],
        regression=regression,
        n_features=n_features,
        description=f"{kind}, {_count(splits.size, 'split')}, {_count(leaves.size, 'leaf', 'leaves')}, "
        f"{_count(shared, 'node')} with several parents",
        categories={f: [plain_label(c) for c in names] for f, names in (graph.categories or {}).items()},
        category_left=tuple(
            tuple(graph.left_categories(s).tolist()) if c else None for s, c in zip(splits.tolist(), categorical)
        ),
    )


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def plain_label(label):
    """A class label as the Python ``bool``, ``int``, ``float`` or ``str`` each writer spells: numpy
    numbers become Python numbers, anything else its text.

    Examples
    --------
    >>> import numpy as np
    >>> plain_label(np.int64(3)), plain_label(np.bool_(True)), plain_label(np.str_("a")), plain_label((1, 2))
    (3, True, 'a', '(1, 2)')
    """
    if isinstance(label, (bool, np.bool_)):
        return bool(label)
    if isinstance(label, (int, np.integer)):
        return int(label)
    if isinstance(label, (float, np.floating)):
        return float(label)
    return str(label)


def wrap(items, indent: str = "    ", width: int = 100) -> list[str]:
    """Lines of ``items`` (strings) separated by ``", "``, each line starting with ``indent``, at most
    ``width`` characters long unless one item is longer; every item is followed by a comma.

    Examples
    --------
    >>> wrap(["1", "22", "333"], indent="  ", width=10)
    ['  1, 22,', '  333,']
    """
    lines, line = [], ""
    for item in items:
        piece = item + ","
        if line and len(indent) + len(line) + 1 + len(piece) > width:
            lines.append(indent + line)
            line = ""
        line = f"{line} {piece}" if line else piece
    if line:
        lines.append(indent + line)
    return lines
