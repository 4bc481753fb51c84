"""The samples at one node: the values of its split feature with their classes (or targets) and the
parent each sample came through, or, at a leaf, what the leaf's samples are and what it predicts.

These are the data of dtreeviz's node charts, for training or test samples and for nodes with
several parents; :mod:`tnt.viz.inspection` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnt.categorical import read_codes
from tnt.graph import DecisionGraph
from tnt.inspect.reach import Routes
from tnt.wording import shows_missing

__all__ = ["NodeDistribution", "node_distribution"]


@dataclass(frozen=True, eq=False)
class NodeDistribution:
    """The samples of one part (training or test) that reach one node.

    Attributes
    ----------
    node : int
    is_leaf : bool
    feature : int or None
        Feature tested at the node (None at a leaf).
    threshold : float or None
        A sample goes left ("yes") when its value is at most this.
    values : ndarray of float
        Each reaching sample's value of ``feature`` (empty at a leaf).
    targets : ndarray
        Each reaching sample's class index (``-1`` for a class the model does not know), or its
        target in a regression.
    parents : ndarray of int
        The parent each sample came through (``-1`` at the root).
    regression : bool
    n_classes : int
        Number of classes (1 in a regression).
    prediction : float
        At a leaf, the class index it predicts, or its mean training target in a regression.
    missing_left : bool or None
        Whether the split sends a missing value (NaN in ``values``) left, where the node's texts say
        it: in a graph whose drawings say where missing values go
        (:func:`tnt.wording.shows_missing`), or when some of these samples miss the feature
        (where they went is a fact about them). None otherwise, at a leaf, and in a graph that
        stores no direction.
    categories : tuple of str or None
        At a split on a categorical feature, its categories by name (``values`` holds their codes,
        NaN for a missing or unseen one); None elsewhere.
    category_left : frozenset of int or None
        There, the codes of the categories the split sends left ("yes").
    """

    node: int
    is_leaf: bool
    feature: int | None
    threshold: float | None
    values: np.ndarray
    targets: np.ndarray
    parents: np.ndarray
    regression: bool
    n_classes: int
    prediction: float
    missing_left: bool | None = None
    categories: tuple | None = None
    category_left: frozenset | None = None

    @property
    def n_samples(self) -> int:
        return int(self.targets.shape[0])

    @property
    def parent_ids(self) -> list[int]:
        """The parents samples came through, in increasing order."""
        return np.unique(self.parents).tolist()

    def class_counts(self, mask=None) -> np.ndarray:
        """Samples of each class (of those selected by ``mask``, all by default)."""
        targets = self.targets if mask is None else self.targets[mask]
        return np.bincount(targets[targets >= 0], minlength=self.n_classes)[: self.n_classes]


def node_distribution(graph: DecisionGraph, routes: Routes, X, y, node: int) -> NodeDistribution:
    """The samples of ``(X, y)`` (whose paths are ``routes``) that reach ``node``.

    Parameters
    ----------
    graph : DecisionGraph
    routes : Routes
        ``tnt.inspect.reach.routes(graph, X)``.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class indices (:func:`tnt.inspect.reach.class_indices`), or targets of a regression.
    node : int

    Returns
    -------
    NodeDistribution

    Examples
    --------
    >>> from tnt.inspect.reach import routes
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> X, y = [[0.1], [0.3], [0.7], [0.9]], [0, 0, 1, 1]
    >>> d = node_distribution(g, routes(g, X), X, y, 0)
    >>> d.values.tolist(), d.class_counts().tolist(), d.parents.tolist()
    ([0.1, 0.3, 0.7, 0.9], [2, 2], [-1, -1, -1, -1])
    >>> node_distribution(g, routes(g, X), X, y, 2).prediction
    1.0
    """
    if not 0 <= node < graph.node_count:
        raise ValueError(f"Node {node} does not exist; the graph has nodes 0 to {graph.node_count - 1}.")
    samples, parents = routes.reaching(node)
    leaf = bool(graph.is_leaf[node])
    targets = np.asarray(y)[samples]
    targets = targets.astype(np.float64) if graph.regression else targets.astype(np.intp)
    feature = None if leaf else int(graph.feature[node])
    values = np.empty(0) if leaf else np.asarray(X, dtype=np.float64)[samples, feature]
    prediction = float(graph.value[node, 0]) if graph.regression else float(graph.predicted_class()[node])
    directions = graph.missing_go_to_left is not None
    categories = category_left = None
    if not leaf and graph.tests_categories(node):
        names = graph.categories[feature]
        categories = tuple(str(n) for n in names)
        category_left = frozenset(graph.left_categories(node).tolist())
        codes = read_codes(values, names.shape[0])
        values = np.where(codes < 0, np.nan, codes.astype(np.float64))  # an unseen category is missing
    said = not leaf and directions and (shows_missing(graph) or bool(np.isnan(values).any()))
    return NodeDistribution(
        node=node,
        is_leaf=leaf,
        feature=feature,
        threshold=None if leaf else float(graph.threshold[node]),
        values=values,
        targets=targets,
        parents=parents,
        regression=graph.regression,
        n_classes=1 if graph.regression else graph.n_classes,
        prediction=prediction,
        missing_left=bool(graph.missing_go_to_left[node]) if said else None,
        categories=categories,
        category_left=category_left,
    )
