"""The baselines the paper compares TnT with, behind the same graph-based interface:
CART (scikit-learn's tree, converted to a :class:`~tnt.graph.DecisionGraph`) and TAO (CART
fine-tuned by tree alternating optimisation, the paper's Algorithm A.1 applied to a tree)."""

from __future__ import annotations

import dataclasses
import heapq
from numbers import Integral, Real

import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils._param_validation import Interval

from tnt._base import (
    CATEGORICAL_FEATURES,
    EXCLUDED_FEATURES,
    MIN_CATEGORY_SAMPLES,
    GraphClassifierMixin,
    GraphRegressorMixin,
    GrownGraphEstimator,
    _shape,
)
from tnt.learn.growth import fine_tune_graph
from tnt.learn.micro_tree import fit_micro_tree, fit_regression_tree
from tnt.learn.pruning import kept_splits
from tnt.learn.working_graph import FlatGraph

__all__ = ["CARTClassifier", "CARTRegressor", "TAOClassifier"]


#: The parameters every CART baseline checks.
_TREE_PARAMETERS = {
    "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
    "ccp_alpha": [Interval(Real, 0, None, closed="left")],
    "random_state": ["random_state"],
    **EXCLUDED_FEATURES,
    **CATEGORICAL_FEATURES,
    **MIN_CATEGORY_SAMPLES,
}


class _SameSplits:
    """``with_splits`` and the fit of scikit-learn's tree, shared by every CART baseline."""

    @classmethod
    def with_splits(cls, n_splits: int, **params):
        """The tree to compare with a graph of ``n_splits`` splits: grown best-first to as many splits.

        ``max_leaf_nodes = n_splits + 1`` (at least 2, scikit-learn's smallest); the one rule every
        same-splits comparison of the project uses.

        Examples
        --------
        >>> from tnt.baselines import CARTClassifier, CARTRegressor, TAOClassifier
        >>> CARTClassifier.with_splits(6, random_state=0).max_leaf_nodes
        7
        >>> TAOClassifier.with_splits(0).max_leaf_nodes
        2
        >>> type(CARTRegressor.with_splits(3)).__name__
        'CARTRegressor'
        """
        return cls(max_leaf_nodes=max(int(n_splits) + 1, 2), **params)

    def _own_tree(self, problem, y, n_classes) -> FlatGraph:
        """CART on the project's own learner (TnT's micro-tree learner), for data with categorical
        features, whose splits send subsets of categories left (scikit-learn's tree has none): the
        tree grown depth-first (Gini for ``n_classes`` classes, the squared error for ``n_classes``
        None), the best-first tree of ``max_leaf_nodes`` leaves taken from it (each split's
        improvement depends on its node's samples only, so growing best-first finds the same
        splits), then pruned at ``ccp_alpha``, as scikit-learn grows and prunes."""
        rows = np.arange(problem.X.shape[0])
        alpha = 0.0 if self.max_leaf_nodes is not None else float(self.ccp_alpha)
        if n_classes is None:
            tree = fit_regression_tree(problem.binned, problem.feature_order, rows, y, problem.w, alpha)
        else:
            tree = fit_micro_tree(problem.binned, problem.feature_order, rows, y, problem.w, alpha, n_classes)
        grown = FlatGraph(
            tree.children_left.astype(np.intp),
            tree.children_right.astype(np.intp),
            tree.feature.astype(np.intp),
            tree.threshold.astype(np.float64),
            np.full(tree.node_count, -1, dtype=np.intp),
            missing_go_to_left=tree.missing_left.astype(np.uint8),
            category_left=tree.category_left,
        )
        graph = _shape(grown, 1, **self._graph_categories(tree.category_left, tree.node_count))
        path = graph.decision_path(problem.X).T.tocsr()  # nodes by samples
        weight = path @ problem.w
        if n_classes is None:
            mean = (path @ (problem.w * y)) / weight
            impurity = (path @ (problem.w * y * y)) / weight - mean**2
            labels = np.zeros(tree.node_count, dtype=np.intp)
        else:
            counts = np.column_stack([path @ (problem.w * (y == k)) for k in range(n_classes)])
            impurity = 1.0 - np.sum((counts / weight[:, None]) ** 2, axis=1)
            labels = np.argmax(counts, axis=1).astype(np.intp)
        cost = weight * impurity / problem.w.sum()  # R(t): each node's share of the weighted impurity
        left, right = grown.children_left, grown.children_right
        split = left >= 0
        if self.max_leaf_nodes is not None:
            split = _best_first(left, right, cost, int(self.max_leaf_nodes) - 1)
        if self.ccp_alpha > 0:
            cut_left, cut_right = np.where(split, left, -1), np.where(split, right, -1)
            split = kept_splits(cut_left, cut_right, cost + float(self.ccp_alpha), float(self.ccp_alpha))
        cut = {"children_left": np.where(split, left, -1), "children_right": np.where(split, right, -1)}
        return _breadth_first(dataclasses.replace(grown, label=labels, **cut))

    def _tree(self, tree_class, problem, y):
        """scikit-learn's tree of class ``tree_class`` fitted on the problem's samples, targets ``y``."""
        return tree_class(max_leaf_nodes=self.max_leaf_nodes, ccp_alpha=self.ccp_alpha, random_state=problem.seed).fit(
            problem.X, y, sample_weight=problem.w
        )


class CARTClassifier(_SameSplits, GraphClassifierMixin, GrownGraphEstimator):
    """CART (scikit-learn's ``DecisionTreeClassifier``, Gini) exposed as a decision graph.

    With ``max_leaf_nodes`` set, scikit-learn grows the tree best-first, which is how the paper
    compares CART with TnT at the same number of splits (``max_leaf_nodes = splits + 1``).

    Parameters
    ----------
    max_leaf_nodes : int, default=None
        Grow best-first with at most this many leaves.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning strength.
    fine_tune : int, default=0
        Rounds of alternating optimisation applied to the tree after fitting (TAO).
    random_state : int, RandomState instance or None, default=None
    excluded_features : array-like of int or str, default=None
        Columns never split on, as in :class:`tnt.TnTClassifier`.
    categorical_features : "from_dtype", None, array-like of int, bool or str, default="from_dtype"
        Categorical columns, as in :class:`tnt.TnTClassifier`. scikit-learn's tree has no subset
        splits: when a column is categorical the tree is the project's own CART (TnT's micro-tree
        learner), its categorical splits sending subsets of categories left, grown best-first to
        ``max_leaf_nodes`` leaves and pruned at ``ccp_alpha`` as scikit-learn's would be, then
        fine-tuned with subsets for ``fine_tune`` rounds.
    min_category_samples : int in [1, 255], default=1
        As in :class:`tnt.TnTClassifier`: at a node where a categorical feature has at least 5
        categories, those with fewer samples are ordered as one, so that a split sends them all
        the same way. The default, 1, pools nothing (Breiman's exact ordering).

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, graph_, n_splits_, n_leaves_, feature_importances_
        As in :class:`tnt.TnTClassifier`.
    categories_ : list of (ndarray or None)
        As in :class:`tnt.TnTClassifier`, when a column is categorical.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import CARTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> CARTClassifier(max_leaf_nodes=4, random_state=0).fit(X, y).n_splits_
    3
    """

    _parameter_constraints: dict = {**_TREE_PARAMETERS, "fine_tune": [Interval(Integral, 0, None, closed="left")]}

    def __init__(
        self,
        *,
        max_leaf_nodes=None,
        ccp_alpha=0.0,
        fine_tune=0,
        random_state=None,
        excluded_features=None,
        categorical_features="from_dtype",
        min_category_samples=1,
    ):
        self.max_leaf_nodes = max_leaf_nodes
        self.ccp_alpha = ccp_alpha
        self.fine_tune = fine_tune
        self.random_state = random_state
        self.excluded_features = excluded_features
        self.categorical_features = categorical_features
        self.min_category_samples = min_category_samples

    def _grow(self, problem) -> FlatGraph:
        if problem.categorical is not None:
            return fine_tune_graph(self._own_tree(problem, problem.y, problem.n_classes), problem, int(self.fine_tune))
        tree = self._tree(DecisionTreeClassifier, problem, problem.y)
        flat = _flat_tree(tree, leaf_labels=tree.classes_.take(tree.tree_.value[:, 0, :].argmax(axis=1)))
        return fine_tune_graph(flat, problem, int(self.fine_tune))

    def fine_tuned(self, X, y, rounds: int = 5, sample_weight=None) -> TAOClassifier:
        """TAO from this tree without growing it again: the tree fine-tuned for ``rounds`` rounds
        (the paper's Algorithm A.1), as ``TAOClassifier(fine_tune=rounds)`` with this tree's
        ``max_leaf_nodes``, ``ccp_alpha`` and ``random_state`` trains it on this tree's training data.

        Parameters and errors are those of :meth:`tnt.TnTClassifier.fine_tuned`; the result is a
        new fitted :class:`TAOClassifier` with ``fine_tune=rounds`` (this tree is unchanged).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from tnt import CARTClassifier, TAOClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> cart = CARTClassifier(max_leaf_nodes=5, random_state=0).fit(X, y)
        >>> tao = cart.fine_tuned(X, y, rounds=5)
        >>> direct = TAOClassifier(max_leaf_nodes=5, fine_tune=5, random_state=0).fit(X, y)
        >>> bool((tao.graph_.threshold == direct.graph_.threshold).all()), tao.get_params() == direct.get_params()
        (True, True)
        """
        params = {
            name: getattr(self, name)
            for name in (
                "max_leaf_nodes",
                "ccp_alpha",
                "random_state",
                "excluded_features",
                "categorical_features",
                "min_category_samples",
            )
        }
        return self._fine_tuned(lambda n: TAOClassifier(**params, fine_tune=n), X, y, rounds, sample_weight)


class CARTRegressor(_SameSplits, GraphRegressorMixin, GrownGraphEstimator):
    """CART for regression (scikit-learn's ``DecisionTreeRegressor``, squared error) exposed as a
    regression graph, the baseline of :class:`tnt.TnTRegressor` at the same number of splits.

    Parameters
    ----------
    max_leaf_nodes : int, default=None
        Grow best-first with at most this many leaves.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning strength (in the target's squared units).
    random_state : int, RandomState instance or None, default=None
    excluded_features : array-like of int or str, default=None
        Columns never split on, as in :class:`tnt.TnTClassifier`.
    categorical_features : "from_dtype", None, array-like of int, bool or str, default="from_dtype"
        Categorical columns, as in :class:`CARTClassifier`: split by subsets of their categories
        on the project's own CART (squared error).
    min_category_samples : int in [1, 255], default=1
        As in :class:`CARTClassifier`.

    Attributes
    ----------
    n_features_in_, feature_names_in_, graph_, n_splits_, n_leaves_, feature_importances_
        As in :class:`tnt.TnTRegressor`.
    categories_ : list of (ndarray or None)
        As in :class:`tnt.TnTClassifier`, when a column is categorical.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from tnt.baselines import CARTRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> CARTRegressor.with_splits(5, random_state=0).fit(X, y).n_splits_
    5
    """

    _parameter_constraints: dict = _TREE_PARAMETERS

    def __init__(
        self,
        *,
        max_leaf_nodes=None,
        ccp_alpha=0.0,
        random_state=None,
        excluded_features=None,
        categorical_features="from_dtype",
        min_category_samples=1,
    ):
        self.max_leaf_nodes = max_leaf_nodes
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state
        self.excluded_features = excluded_features
        self.categorical_features = categorical_features
        self.min_category_samples = min_category_samples

    def _grow(self, problem) -> FlatGraph:
        if problem.categorical is not None:
            return self._own_tree(problem, problem.target, None)
        return _flat_tree(self._tree(DecisionTreeRegressor, problem, problem.target), leaf_labels=0)


class TAOClassifier(CARTClassifier):
    """TAO for axis-aligned trees: CART followed by ``fine_tune`` rounds of alternating optimisation.

    The same procedure as :class:`tnt.TnTClassifier`'s fine-tuning (the paper's Algorithm A.1),
    applied to a CART tree; the baseline of the paper's Fig. 4.

    Parameters
    ----------
    max_leaf_nodes, ccp_alpha, random_state, excluded_features, categorical_features, min_category_samples
        As in :class:`CARTClassifier` (fine-tuning refits categorical splits by subsets too).
    fine_tune : int, default=5
        Rounds of alternating optimisation (the paper uses 5).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import TAOClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> TAOClassifier(max_leaf_nodes=4, random_state=0).fit(X, y).score(X, y) > 0.9
    True
    """

    def __init__(
        self,
        *,
        max_leaf_nodes=None,
        ccp_alpha=0.0,
        fine_tune=5,
        random_state=None,
        excluded_features=None,
        categorical_features="from_dtype",
        min_category_samples=1,
    ):
        super().__init__(
            max_leaf_nodes=max_leaf_nodes,
            ccp_alpha=ccp_alpha,
            fine_tune=fine_tune,
            random_state=random_state,
            excluded_features=excluded_features,
            categorical_features=categorical_features,
            min_category_samples=min_category_samples,
        )


def _flat_tree(tree, leaf_labels) -> FlatGraph:
    """A fitted scikit-learn tree as a :class:`FlatGraph` numbered breadth-first, each leaf labelled
    from ``leaf_labels`` (one per node, or one for all) and every split -1, with the direction
    scikit-learn sends a missing value at each split."""
    t = tree.tree_
    flat = FlatGraph(
        children_left=t.children_left.astype("intp"),
        children_right=t.children_right.astype("intp"),
        feature=t.feature.astype("intp"),
        threshold=t.threshold.copy(),
        label=np.where(t.children_left < 0, leaf_labels, -1).astype("intp"),
        missing_go_to_left=np.where(t.children_left < 0, 0, t.missing_go_to_left).astype(np.uint8),
    )
    return _breadth_first(flat)


def _breadth_first(flat: FlatGraph) -> FlatGraph:
    """Renumber a tree breadth-first, the order in which training and fine-tuning visit nodes; nodes
    the root does not reach (below a split made a leaf) are left out."""

    order = [0]
    for node in order:
        if flat.children_left[node] >= 0:
            order += [int(flat.children_left[node]), int(flat.children_right[node])]
    order = np.asarray(order, dtype=np.intp)
    new_id = np.full(flat.node_count, -1, dtype=np.intp)  # nodes below a cut stay unreached
    new_id[order] = np.arange(order.size)
    leaf = flat.children_left[order] < 0
    return FlatGraph(
        children_left=np.where(leaf, -1, new_id[flat.children_left[order]]),
        children_right=np.where(leaf, -1, new_id[flat.children_right[order]]),
        feature=np.where(leaf, -2, flat.feature[order]),
        threshold=np.where(leaf, -2.0, flat.threshold[order]),
        label=np.where(leaf, flat.label[order], -1),
        missing_go_to_left=np.where(leaf, 0, flat.missing_go_to_left[order]).astype(np.uint8),
        category_left=None
        if flat.category_left is None
        else np.where(leaf[:, None], np.uint64(0), flat.category_left[order]),
    )


def _best_first(left, right, cost, n_splits: int) -> np.ndarray:
    """Which nodes of a fully grown tree (children ``left``, ``right``; ``cost`` each node's share of
    the weighted impurity) stay splits when at most ``n_splits`` are expanded best-first from the
    root, the split lowering the impurity most first (the first node on a tie), as scikit-learn's
    best-first builder grows with ``max_leaf_nodes``."""
    split = np.zeros(left.shape[0], dtype=bool)
    frontier = [(-(cost[0] - cost[left[0]] - cost[right[0]]), 0)] if left[0] >= 0 else []
    while frontier and int(split.sum()) < n_splits:
        _, node = heapq.heappop(frontier)
        split[node] = True
        for child in (left[node], right[node]):
            if left[child] >= 0:
                heapq.heappush(frontier, (-(cost[child] - cost[left[child]] - cost[right[child]]), int(child)))
    return split
