"""The fitted decision graph as parallel arrays, in the style of scikit-learn's ``Tree``.

A :class:`DecisionGraph` is a DAG of binary nodes. Node ``i`` is a leaf when
``children_left[i] == children_right[i] == -1``; otherwise a sample goes to
``children_left[i]`` when ``x[feature[i]] <= threshold[i]`` and to
``children_right[i]`` otherwise. A sample whose ``x[feature[i]]`` is missing (NaN) goes left
when ``missing_go_to_left[i]`` is 1 and right when it is 0, as in scikit-learn's trees; a
threshold of ``+inf`` with ``missing_go_to_left[i] == 0`` is a test of missingness (present
values left, missing ones right). ``missing_in_training`` says whether the graph learned those
directions from training data that had missing values; the drawings say where missing values go
only then (see :func:`tnt.wording.shows_missing`). A split on a categorical feature (one of
``categories``) sends the samples whose category code is in its subset ``category_left[i]`` left,
the other categories right, and a missing value or a category unseen in training where
``missing_go_to_left[i]`` says (:mod:`tnt.categorical`). Nodes are numbered in topological order: every
child id is greater than the id of each of its parents, and node 0 is the root.

The same class describes TnT models and CART trees (see :meth:`DecisionGraph.from_sklearn`),
so every later tool (statistics, rendering, export, the app) serves both.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.base import is_regressor

from tnt.categorical import read_codes, subset_bits, subset_codes, subset_table
from tnt.learn.routing import (
    decision_paths,
    edge_statistics,
    float32_routing_thresholds,
    route_float32_cast,
    route_to_leaves,
    walk_tables,
)
from tnt.learn.walks import (
    ancestors,
    count_paths_by_length,
    descendants,
    distance_ranges,
    exact_paths_by_length,
    longest_distances,
    parent_lists,
    path_counts,
    paths_below,
    topological_order,
)

# Number types whose every value float32 represents exactly.
EXACT_IN_FLOAT32 = (np.float32, np.uint8, np.int8, np.uint16, np.int16)

TREE_LEAF = -1
TREE_UNDEFINED = -2
MIXED = -1

#: What routing NaN through a graph without directions for missing values says.
NO_DIRECTIONS = (
    "X contains missing values (NaN), but this model stores no direction for them (it was saved before "
    "missing values were supported, or built without missing_go_to_left); retrain it with this version "
    "to predict samples with missing values."
)

__all__ = ["DecisionGraph", "MIXED", "NO_DIRECTIONS", "TREE_LEAF", "TREE_UNDEFINED"]


class DecisionGraph:
    """A binary decision graph stored as parallel numpy arrays.

    Parameters
    ----------
    children_left, children_right : array-like of int, shape (n_nodes,)
        Child ids, ``-1`` for leaves. Every child id must be greater than its parent's id.
    feature : array-like of int, shape (n_nodes,)
        Feature tested at each internal node, ``-2`` at leaves.
    threshold : array-like of float, shape (n_nodes,)
        Threshold of each internal node (left when ``x <= threshold``), ``-2`` at leaves.
    value : array-like of float, shape (n_nodes, n_classes)
        Weighted class counts of the training samples reaching each node.
    n_node_samples : array-like of int, shape (n_nodes,), default=None
        Number of training samples reaching each node (zeros when unknown).
    impurity : array-like of float, shape (n_nodes,), default=None
        Gini impurity at each node; computed from ``value`` when omitted.
    input_dtype : numpy dtype, default=np.float32
        The number type samples are cast to before being compared with thresholds.
        scikit-learn's trees and TnT both train on float32, so routing casts to it as well
        and predicts exactly as scikit-learn does near a threshold.
    regression : bool, default=False
        A regression graph: ``value`` has one column, the weighted mean target of the training
        samples at each node, and ``impurity`` is their weighted mean squared error (as in
        scikit-learn's ``DecisionTreeRegressor``).
    missing_go_to_left : array-like of {0, 1}, shape (n_nodes,), default=None
        Where a sample whose tested feature is missing (NaN) goes at each node: 1 to
        ``children_left``, 0 to ``children_right``; 0 at leaves. A node with threshold ``+inf`` and
        0 here tests missingness. ``None`` for a graph that knows nothing about missing values
        (built by hand without it, or loaded from a file written before they were supported):
        routing such a graph refuses NaN.
    missing_in_training : bool, default=False
        Whether the graph was learned from training data with missing values, so that its
        directions were learned rather than set by the default rule (to the child that received
        more training samples). Routing ignores it; drawings and texts say where missing values go
        only when it is True (or at a test of missingness).
    categories : dict of int to array-like, default=None
        The categorical features: per feature index, its categories by name, in the order of their
        codes (a sample holds a category's code, its position here). Every split on such a feature
        tests a subset of its categories; its ``threshold`` is NaN. A graph with categorical splits
        needs ``missing_go_to_left``: missing values and codes outside ``0..len(categories[f])-1``
        (categories unseen in training) go where it says.
    category_left : sequence or ndarray, default=None
        Per node, the codes of the categories a categorical split sends left: a list with one entry
        per node (the codes, or None at other nodes), or the bitsets as a uint64 array of shape
        (n_nodes, n_words) (:func:`tnt.categorical.subset_bits`). Kept as that array, with zero rows
        at other nodes; None when no node splits on a categorical feature.

    Attributes
    ----------
    node_count : int
        Number of nodes.
    n_classes : int
        Number of classes (columns of ``value``).

    Examples
    --------
    >>> import numpy as np
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph(children_left=[1, -1, -1], children_right=[2, -1, -1],
    ...                   feature=[0, -2, -2], threshold=[0.5, -2, -2],
    ...                   value=[[2, 2], [2, 0], [0, 2]])
    >>> g.apply(np.array([[0.0], [1.0]])).tolist()
    [1, 2]
    """

    def __init__(
        self,
        children_left,
        children_right,
        feature,
        threshold,
        value,
        n_node_samples=None,
        impurity=None,
        input_dtype=np.float32,
        regression=False,
        missing_go_to_left=None,
        missing_in_training=False,
        categories=None,
        category_left=None,
    ):
        self.regression = bool(regression)
        self.children_left = np.asarray(children_left, dtype=np.intp)
        self.children_right = np.asarray(children_right, dtype=np.intp)
        self.feature = np.asarray(feature, dtype=np.intp)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.value = np.asarray(value, dtype=np.float64)
        n = self.children_left.shape[0]
        if self.value.ndim != 2:
            raise ValueError(f"value must be 2-dimensional (n_nodes, n_classes), got shape {self.value.shape}.")
        self.n_node_samples = (
            np.zeros(n, dtype=np.intp) if n_node_samples is None else np.asarray(n_node_samples, dtype=np.intp)
        )
        if impurity is None:
            impurity = np.zeros(n) if regression else gini(self.value)
        self.impurity = np.asarray(impurity, dtype=np.float64)
        self.input_dtype = np.dtype(input_dtype)
        self.missing_go_to_left = _directions(missing_go_to_left)
        self.missing_in_training = bool(missing_in_training)
        self.categories = _categories(categories)
        self.category_left = _subsets(category_left, n, self.categories)
        self._validate()

    # ------------------------------------------------------------------ validation
    def _validate(self):
        n = self.node_count
        arrays = {
            "children_right": self.children_right,
            "feature": self.feature,
            "threshold": self.threshold,
            "value": self.value,
            "n_node_samples": self.n_node_samples,
            "impurity": self.impurity,
        }
        if self.missing_go_to_left is not None:
            arrays["missing_go_to_left"] = self.missing_go_to_left
        for name, arr in arrays.items():
            if arr.shape[0] != n:
                raise ValueError(
                    f"{name} has {arr.shape[0]} entries but children_left has {n}; all arrays need one entry per node."
                )
        if n == 0:
            raise ValueError("A decision graph needs at least one node.")
        left, right = self.children_left, self.children_right
        leaf = left == TREE_LEAF
        if np.any(leaf != (right == TREE_LEAF)):
            bad = int(np.flatnonzero(leaf != (right == TREE_LEAF))[0])
            raise ValueError(f"Node {bad} has exactly one child; a node has two children or none.")
        ids = np.arange(n)
        internal = ~leaf
        for name, child in (("left", left), ("right", right)):
            c = child[internal]
            if np.any((c < 0) | (c >= n)):
                bad = int(ids[internal][(c < 0) | (c >= n)][0])
                raise ValueError(f"Node {bad} has a {name} child id out of range (0..{n - 1}).")
            if np.any(c <= ids[internal]):
                bad = int(ids[internal][c <= ids[internal]][0])
                raise ValueError(
                    f"Node {bad} has a {name} child with a smaller or equal id; nodes must be numbered "
                    "in topological order, which also rules out cycles."
                )
        if np.any(self.feature[internal] < 0):
            raise ValueError("An internal node has a negative feature index.")
        missing_test = internal & np.isposinf(self.threshold)
        if self.missing_go_to_left is None:
            missing_test[:] = False
        else:
            if np.any(self.missing_go_to_left[leaf] != 0):
                bad = int(ids[leaf & (self.missing_go_to_left != 0)][0])
                raise ValueError(f"Leaf {bad} has missing_go_to_left 1; leaves have 0 there.")
            missing_test &= self.missing_go_to_left == 0
        categorical = self.is_categorical
        if np.any(~np.isfinite(self.threshold[internal & ~missing_test & ~categorical])):
            raise ValueError(
                "An internal node has a threshold that is not a finite number (+inf, a test of "
                "missingness, needs missing_go_to_left = 0 at that node)."
            )
        self._validate_categorical(categorical)

    def _validate_categorical(self, categorical):
        if self.category_left is None:
            if np.any(categorical):
                bad = int(np.flatnonzero(categorical)[0])
                raise ValueError(
                    f"Node {bad} splits on the categorical feature {int(self.feature[bad])} but the graph has "
                    "no category_left; give the codes each categorical split sends left."
                )
            return
        if self.category_left.shape[0] != self.node_count:
            raise ValueError(
                f"category_left has {self.category_left.shape[0]} entries but children_left has "
                f"{self.node_count}; all arrays need one entry per node."
            )
        if np.any(self.category_left[~categorical] != 0):
            bad = int(np.flatnonzero(np.any(self.category_left != 0, axis=1) & ~categorical)[0])
            raise ValueError(f"Node {bad} has categories in category_left but does not split on a categorical feature.")
        if np.any(categorical) and self.missing_go_to_left is None:
            raise ValueError(
                "A graph with categorical splits needs missing_go_to_left: missing values and categories "
                "unseen in training go where it says."
            )
        nodes = np.flatnonzero(categorical)
        if nodes.size == 0:
            return
        # Per categorical split, one past its largest code (0 for an empty subset), all at once.
        flags = np.unpackbits(
            np.ascontiguousarray(self.category_left[nodes], dtype="<u8").view(np.uint8), axis=1, bitorder="little"
        )
        past_largest = np.where(flags.any(axis=1), flags.shape[1] - np.argmax(flags[:, ::-1], axis=1), 0)
        sizes = {f: c.shape[0] for f, c in self.categories.items() if c is not None}
        n_categories = np.array([sizes[int(f)] for f in self.feature[nodes]], dtype=np.int64)
        wrong = (past_largest > n_categories) | ~np.isnan(self.threshold[nodes])
        for i in np.flatnonzero(wrong)[:1].tolist():  # the first node that is wrong, as a check node by node finds it
            node, past, n = int(nodes[i]), int(past_largest[i]), int(n_categories[i])
            if past > n:
                raise ValueError(
                    f"Node {node} sends the category code {past - 1} left, but feature "
                    f"{int(self.feature[node])} has {n} categories (codes 0..{n - 1})."
                )
            if not np.isnan(self.threshold[node]):
                raise ValueError(
                    f"Node {node} splits on the categorical feature {int(self.feature[node])} and has a "
                    "threshold; a categorical split has threshold NaN (it tests category_left)."
                )

    # ------------------------------------------------------------------ structure
    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.value.shape[1])

    @property
    def is_leaf(self) -> np.ndarray:
        """Boolean mask of the leaves."""
        return self.children_left == TREE_LEAF

    @property
    def is_categorical(self) -> np.ndarray:
        """Whether each node splits on a categorical feature (tests a subset of its categories)."""
        if not self.categories:
            return np.zeros(self.node_count, dtype=bool)
        internal = ~self.is_leaf
        return internal & np.isin(self.feature, np.fromiter(self.categories, dtype=np.intp))

    def tests_categories(self, node: int) -> bool:
        """Whether ``node`` splits on a categorical feature (:attr:`is_categorical` of one node)."""
        return bool(
            self.categories is not None
            and self.children_left[node] != TREE_LEAF
            and int(self.feature[node]) in self.categories
        )

    def left_categories(self, node: int) -> np.ndarray:
        """The codes of the categories the categorical split ``node`` sends left (in increasing order)."""
        if not self.tests_categories(node):
            raise ValueError(f"Node {int(node)} does not split on a categorical feature.")
        return subset_codes(self.category_left[node])

    @property
    def is_missing_test(self) -> np.ndarray:
        """Boolean mask of the nodes that test whether their feature is missing (present values
        go left, missing ones right): threshold ``+inf``, ``missing_go_to_left`` 0."""
        return ~self.is_leaf & np.isposinf(self.threshold)

    @property
    def n_splits(self) -> int:
        """Number of internal nodes (the paper's measure of complexity)."""
        return int(np.count_nonzero(~self.is_leaf))

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.is_leaf))

    @property
    def n_parents(self) -> np.ndarray:
        """Number of parent edges into each node (an edge counts once even if both branches use it)."""
        internal = np.flatnonzero(~self.is_leaf)
        left, right = self.children_left[internal], self.children_right[internal]
        counts = np.bincount(left, minlength=self.node_count)
        counts += np.bincount(right[right != left], minlength=self.node_count)
        return counts

    @property
    def shared_nodes(self) -> np.ndarray:
        """Ids of the nodes with more than one parent."""
        return np.flatnonzero(self.n_parents > 1)

    def parents(self, node: int) -> list[int]:
        """Ids of the parents of ``node``, in increasing order."""
        return np.flatnonzero((self.children_left == node) | (self.children_right == node)).tolist()

    # ------------------------------------------------------------------ walks (tnt.learn.walks)
    def parent_lists(self) -> list[list[int]]:
        """The parents of every node, in increasing order, computed in one pass."""
        return parent_lists(self.children_left, self.children_right)

    def descendants(self, nodes) -> np.ndarray:
        """Boolean mask of the nodes reachable from ``nodes`` (one id or several), themselves included.

        Examples
        --------
        >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
        ...                   [0.5, 0.5, 1.5, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
        >>> g.descendants(2).tolist()
        [False, False, True, True, True]
        """
        return descendants(self.children_left, self.children_right, nodes)

    def ancestors(self, nodes) -> np.ndarray:
        """Boolean mask of the nodes from which one of ``nodes`` (one id or several) can be reached,
        themselves included.

        Examples
        --------
        >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
        ...                   [0.5, 0.5, 1.5, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
        >>> g.ancestors(3).tolist()
        [True, True, True, True, False]
        """
        return ancestors(self.children_left, self.children_right, nodes)

    def reachable(self) -> np.ndarray:
        """Boolean mask of the nodes the root reaches (a graph built by hand may hold others)."""
        return self.descendants(0)

    def topological_order(self) -> np.ndarray:
        """The nodes the root reaches, breadth first, each after all of its parents (the order in
        which training numbers a graph: a fitted graph's is ``0, 1, ..., node_count - 1``)."""
        return topological_order(self.children_left, self.children_right)

    def path_counts(self) -> list[int]:
        """The number of paths from the root into each node, as exact Python integers.

        Examples
        --------
        >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
        ...                   [0.5, 0.5, 1.5, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
        >>> g.path_counts()
        [1, 1, 1, 2, 2]
        """
        return path_counts(self.children_left, self.children_right)

    def paths_below(self) -> list[int]:
        """The number of paths from each node down to a leaf (1 at a leaf), as exact Python
        integers: the leaves of the tree the node's subgraph unfolds to.

        Examples
        --------
        >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
        ...                   [0.5, 0.5, 1.5, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
        >>> g.paths_below()
        [4, 2, 2, 1, 1]
        """
        return paths_below(self.children_left, self.children_right)

    def leaf_class(self) -> np.ndarray:
        """Class index predicted at each node: the weighted majority of its training samples."""
        return np.argmax(self.value, axis=1)

    def dominant_class(self) -> np.ndarray:
        """Class index holding more than half of the weighted samples at each node, ``MIXED`` (-1) if none."""
        totals = self.value.sum(axis=1)
        best = np.argmax(self.value, axis=1)
        share = self.value[np.arange(self.node_count), best]
        return np.where(share > 0.5 * totals, best, MIXED)

    def proba(self) -> np.ndarray:
        """Class distribution at each node (uniform where no weight reached the node)."""
        totals = self.value.sum(axis=1, keepdims=True)
        uniform = np.full_like(self.value, 1.0 / max(self.n_classes, 1))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(totals > 0, self.value / np.where(totals > 0, totals, 1.0), uniform)

    # ------------------------------------------------------------------ routing
    def _as_input(self, X) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {X.shape}.")
        if self.input_dtype == np.float32 and X.dtype.type in (*EXACT_IN_FLOAT32, np.float64):
            # Routed as they are, without a copy, against thresholds that send each value where
            # its float32 cast would go (for pixels, reading a quarter of the memory).
            return np.ascontiguousarray(X)
        return np.ascontiguousarray(X, dtype=self.input_dtype)

    def _routable(self, X) -> np.ndarray:
        """``X`` as :meth:`_as_input` gives it, refused when it holds NaN and the graph has no
        direction for missing values; with the columns of :meth:`_with_category_tests` for a graph
        with categorical splits."""
        X = self._as_input(X)
        if self.missing_go_to_left is None and X.dtype.kind == "f" and X.size and np.isnan(np.min(X)):
            raise ValueError(NO_DIRECTIONS)
        return self._with_category_tests(X)

    def _category_tests(self):
        """(categorical nodes, the column of :meth:`_with_category_tests` each reads, the tests as
        (feature, lookup table) pairs, the number of feature columns routing keeps)."""

        def compute(feature, bits):
            nodes = np.flatnonzero(self.is_categorical)
            n_kept = int(feature[~self.is_leaf].max()) + 1 if self.n_splits else 0
            if nodes.size == 0:
                return nodes, nodes, [], n_kept
            keys = np.column_stack([feature[nodes].astype(np.uint64), bits[nodes]])
            unique, column = np.unique(keys, axis=0, return_inverse=True)
            tests = [
                (int(f), subset_table(row, self.categories[int(f)].shape[0]))
                for f, row in zip(unique[:, 0], unique[:, 1:])
            ]
            return nodes, np.asarray(column).ravel(), tests, n_kept

        bits = self.category_left if self.category_left is not None else np.zeros((self.node_count, 1), np.uint64)
        return self._derived("category_tests", compute, self.feature, bits)

    def _with_category_tests(self, X) -> np.ndarray:
        """``X`` (its first columns, those the splits read) and one column per distinct categorical
        test: 0 when the sample's category goes left, 1 when it goes right, NaN when it is missing or
        unseen in training (then routed as missing). The routing kernels then read a categorical split
        as the threshold 0.5 on its column (:meth:`_arrays`), so every walk honours the subsets."""
        nodes, _, tests, n_kept = self._category_tests()
        if nodes.size == 0:
            return X
        dtype = X.dtype if X.dtype.kind == "f" else self.input_dtype
        out = np.empty((X.shape[0], n_kept + len(tests)), dtype=dtype)
        out[:, :n_kept] = X[:, :n_kept]
        codes = {}  # per feature, its codes (read once however many tests it has), -1 looking up NaN
        for k, (f, table) in enumerate(tests):
            if f not in codes:
                codes[f] = read_codes(X[:, f], table.shape[0])
            side = np.empty(table.shape[0] + 1, dtype=dtype)
            side[:-1] = ~table  # 0 where the code goes left, 1 where it goes right
            side[-1] = np.nan
            out[:, n_kept + k] = side[codes[f]]
        return out

    def _arrays(self):
        """The arrays the routing kernels take: children, features, thresholds (those of
        :func:`float32_routing_thresholds` for a float32 graph) and the missing directions
        (all right for a graph without them, which :meth:`_routable` never gives a NaN)."""
        missing_left = self.missing_go_to_left
        if missing_left is None:
            missing_left = self._derived(
                "all_right", lambda left: np.zeros(left.shape[0], np.uint8), self.children_left
            )
        return (
            self.children_left,
            self.children_right,
            self._routing_features(),
            self._routing_thresholds(),
            missing_left,
        )

    def _routing_features(self) -> np.ndarray:
        """``feature``, a categorical split reading its column of :meth:`_with_category_tests`."""
        nodes, column, _, n_kept = self._category_tests()
        if nodes.size == 0:
            return self.feature
        feature = self.feature.copy()
        feature[nodes] = n_kept + column
        return feature

    def _routing_thresholds(self) -> np.ndarray:
        threshold = self.threshold
        if self.category_left is not None:
            threshold = np.where(self.is_categorical, 0.5, threshold)
        if self.input_dtype == np.float32:
            return self._derived("routing_thresholds", float32_routing_thresholds, threshold)
        return threshold

    def predicted_class(self) -> np.ndarray:
        """Class index a sample reaching each node is given: the largest of :meth:`proba`."""
        return self._derived("predicted_class", lambda value: np.argmax(self.proba(), axis=1), self.value)

    def _derived(self, name, compute, *sources):
        """``compute(*sources)``, kept until one of the source arrays changes (prediction calls these
        for every batch; recomputing them would cost more than routing a small batch)."""
        cache = self.__dict__.setdefault("_derived_cache", {})
        kept = cache.get(name)
        if kept is None or not all(np.array_equal(old, new) for old, new in zip(kept[0], sources)):
            kept = cache[name] = ([np.copy(a) for a in sources], compute(*sources))
        return kept[1]

    def _edge_statistics(self, X, y, sample_weight):
        """(class weights each node sends left and right, class weights reaching each node,
        samples reaching each node) for the training samples ``(X, y, sample_weight)``."""
        y = np.ascontiguousarray(y, dtype=np.intp)
        w = np.ones(y.shape[0]) if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
        return edge_statistics(self._routable(X), y, w, self.n_classes, *self._arrays())

    def apply(self, X) -> np.ndarray:
        """Id of the leaf each sample reaches.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        leaves : ndarray of shape (n_samples,)
        """
        X = self._as_input(X)
        leaves = self._leaves_within_float32(X)
        if leaves is not None:
            return leaves
        return self._walk_to_leaves(X)

    def _walk_to_leaves(self, X) -> np.ndarray:
        """Leaves of ``X`` (as :meth:`_as_input` gives it) by the walk that takes every value,
        missing ones included."""
        return route_to_leaves(self._routable(X), np.arange(X.shape[0]), 0, *self._arrays())

    def _leaves_within_float32(self, X) -> np.ndarray | None:
        """Leaves of ``X`` (as :meth:`_as_input` gives it) for a graph that compares in float32,
        or None when it compares in another type or a value of ``X`` is not finite or beyond
        float32's range (a NaN among them: routed by :meth:`apply`). The values are checked in the same
        pass that routes them."""
        if self.input_dtype != np.float32:
            return None
        X = self._with_category_tests(X)
        children, feature, is_leaf = self._derived(
            "walk_tables", walk_tables, self.children_left, self.children_right, self._routing_features()
        )
        leaves, fine = route_float32_cast(X, children, feature, is_leaf, self._routing_thresholds())
        return leaves if fine else None

    def decision_path(self, X) -> sparse.csr_matrix:
        """Sparse indicator of the nodes each sample passes through, like scikit-learn's.

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            ``indicator[i, j]`` is 1 when sample ``i`` goes through node ``j``.
        """
        X = self._routable(X)
        indptr, nodes = decision_paths(X, *self._arrays())
        data = np.ones(nodes.shape[0], dtype=np.int64)
        indicator = sparse.csr_matrix((data, nodes, indptr), shape=(X.shape[0], self.node_count))
        indicator.sort_indices()
        return indicator

    def decision_depth(self, X) -> np.ndarray:
        """Number of splits each sample passes on its way to a leaf."""
        indptr, _ = decision_paths(self._routable(X), *self._arrays())
        return np.diff(indptr) - 1

    def predict_proba(self, X) -> np.ndarray:
        """Class distribution of the training samples in the leaf each sample reaches."""
        return self.proba()[self.apply(X)]

    # ------------------------------------------------------------------ path statistics
    def path_length_distribution(self) -> tuple[np.ndarray, np.ndarray]:
        """Distribution of the lengths (number of splits) of all structural root-to-leaf paths.

        Computed by dynamic programming over the topological order; the number of paths can be
        exponential in the number of nodes, so they are never enumerated. Each node keeps the
        path counts for lengths between its shortest and its longest distance from the root
        only, so a chain of 50,000 splits takes linear time and memory. The counting runs compiled,
        in 64-bit integers; a graph with more paths of one length than those hold is counted again
        in Python integers, so counts are always exact. Nodes no path from the root reaches are
        left out.

        Returns
        -------
        lengths : ndarray of int
            The path lengths that occur, ascending.
        counts : ndarray of object (Python int)
            How many root-to-leaf paths have each length.
        """
        shortest, longest = distance_ranges(self.children_left, self.children_right)
        reached = shortest <= longest
        widths = np.where(reached, longest - shortest + 1, 0)
        offset = np.cumsum(widths) - widths
        counts = np.zeros(int(widths.sum()), dtype=np.int64)
        per_length = np.zeros(int(longest[reached].max()) + 1, dtype=np.int64)
        left, right = self.children_left, self.children_right
        if count_paths_by_length(left, right, shortest, longest, offset, counts, per_length):
            per_length = per_length.astype(object)  # Python ints, as in the exact case below
        else:
            per_length = exact_paths_by_length(left, right, shortest, longest, self.is_leaf)
        present = np.flatnonzero(per_length != 0)
        return present, per_length[present]

    def mean_path_length(self) -> float:
        """Mean length of the structural root-to-leaf paths (each path counted once)."""
        lengths, counts = self.path_length_distribution()
        total = sum(counts)
        return float(sum(int(length) * c for length, c in zip(lengths, counts)) / total)

    def depth_range(self) -> tuple[int, int]:
        """Shortest and longest root-to-leaf path, in splits (linear in the number of nodes)."""
        shortest, longest = distance_ranges(self.children_left, self.children_right)
        leaves = self.is_leaf & (shortest <= longest)
        return int(shortest[leaves].min()), int(longest[leaves].max())

    def node_depth(self) -> np.ndarray:
        """Longest distance (in edges) from the root to each node: the layer used for drawing."""
        return longest_distances(self.children_left, self.children_right)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_sklearn(cls, tree, missing_in_training=None) -> DecisionGraph:
        """Build a graph from a fitted ``DecisionTreeClassifier`` (or its ``tree_``), or from a fitted
        ``DecisionTreeRegressor`` (a regression graph of its mean targets).

        The class counts are scikit-learn's weighted counts, so both models predict identically.
        Only single-output classifiers are supported.

        Parameters
        ----------
        tree : fitted DecisionTreeClassifier or DecisionTreeRegressor, or its ``tree_``
        missing_in_training : bool, default=None
            Whether the tree was trained on data with missing values (the graph's
            ``missing_in_training``). scikit-learn does not record it; when omitted it is True
            only for a tree that tests missingness at a split (threshold ``+inf``), which
            scikit-learn learns from missing values alone.
        """
        t = getattr(tree, "tree_", tree)
        if t.n_outputs != 1:
            raise ValueError("Only single-output trees can be converted to a decision graph.")
        # Every fitted scikit-learn tree stores a direction for missing values at each split (those
        # trained without NaN send them to the child that received more samples).
        missing = np.where(t.children_left == TREE_LEAF, 0, np.asarray(t.missing_go_to_left))
        if missing_in_training is None:
            missing_in_training = bool(np.any((t.children_left != TREE_LEAF) & np.isposinf(t.threshold)))
        if hasattr(tree, "tree_") and is_regressor(tree):
            return cls(
                children_left=t.children_left,
                children_right=t.children_right,
                feature=np.where(t.children_left == TREE_LEAF, TREE_UNDEFINED, t.feature),
                threshold=np.where(t.children_left == TREE_LEAF, TREE_UNDEFINED, t.threshold),
                value=np.asarray(t.value[:, 0, :], dtype=np.float64),
                n_node_samples=t.n_node_samples,
                impurity=t.impurity,
                input_dtype=np.float32,
                regression=True,
                missing_go_to_left=missing,
                missing_in_training=missing_in_training,
            )
        value = np.asarray(t.value[:, 0, :], dtype=np.float64)
        # scikit-learn >= 1.4 stores class fractions; scale back to weighted counts.
        totals = np.asarray(t.weighted_n_node_samples, dtype=np.float64)
        row_sums = value.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(row_sums[:, None] > 0, value / row_sums[:, None] * totals[:, None], value)
        # scikit-learn numbers nodes depth-first: a child always has a larger id than its parent.
        return cls(
            children_left=t.children_left,
            children_right=t.children_right,
            feature=np.where(t.children_left == TREE_LEAF, TREE_UNDEFINED, t.feature),
            threshold=np.where(t.children_left == TREE_LEAF, TREE_UNDEFINED, t.threshold),
            value=value,
            n_node_samples=t.n_node_samples,
            impurity=t.impurity,
            input_dtype=np.float32,
            missing_go_to_left=missing,
            missing_in_training=missing_in_training,
        )

    def with_training_stats(self, X, y, sample_weight=None) -> DecisionGraph:
        """A copy whose ``value``, ``n_node_samples`` and ``impurity`` come from routing (X, y).

        ``y`` holds class indices in ``0..n_classes-1``.
        """
        _, value, counts = self._edge_statistics(X, y, sample_weight)
        return self._with_stats(value, counts)

    def with_training_stats_and_importances(self, X, y, sample_weight=None, n_features=None):
        """:meth:`with_training_stats` and :meth:`feature_importances` (of either graph: they have
        the same splits) from one routing of the samples: ``(graph, importances)``."""
        X = self._as_input(X)
        edge_value, value, counts = self._edge_statistics(X, y, sample_weight)
        n_features = X.shape[1] if n_features is None else n_features
        return self._with_stats(value, counts), self._importances(edge_value, value, n_features)

    def _with_stats(self, value, counts) -> DecisionGraph:
        return DecisionGraph(
            self.children_left,
            self.children_right,
            self.feature,
            self.threshold,
            value,
            n_node_samples=counts,
            input_dtype=self.input_dtype,
            missing_go_to_left=self.missing_go_to_left,
            missing_in_training=self.missing_in_training,
            categories=self.categories,
            category_left=self.category_left,
        )

    def edge_samples(self, X) -> np.ndarray:
        """Number of the samples ``X`` that each node sends along its left ("yes") and its right
        ("no") branch, routing every sample from the root.

        Returns
        -------
        counts : ndarray of shape (n_nodes, 2)
            ``counts[i, 0]`` went left out of node ``i``, ``counts[i, 1]`` right; zero for leaves.

        Examples
        --------
        >>> from tnt import DecisionGraph
        >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
        ...                   [[2, 2], [2, 0], [0, 2]])
        >>> g.edge_samples([[0.1], [0.2], [0.9]]).tolist()
        [[2, 1], [0, 0], [0, 0]]
        """
        X = self._as_input(X)
        sent, _, _ = self._edge_statistics(X, np.zeros(X.shape[0], dtype=np.intp), None)
        return sent.sum(axis=2).round().astype(np.int64)

    def feature_importances(self, X, y, sample_weight=None, n_features=None) -> np.ndarray:
        """Normalised total weighted Gini decrease brought by each feature.

        In a graph a child also receives samples from other parents, so the decrease at a split is
        measured on the samples that split actually sends each way.
        """
        X = self._as_input(X)
        n_features = X.shape[1] if n_features is None else n_features
        if self.n_splits == 0 or X.shape[0] == 0:  # nothing to route
            return np.zeros(n_features)
        edge_value, node_value, _ = self._edge_statistics(X, y, sample_weight)
        return self._importances(edge_value, node_value, n_features)

    def _importances(self, edge_value, node_value, n_features: int) -> np.ndarray:
        """:meth:`feature_importances` from the statistics of :meth:`_edge_statistics`."""
        importances = np.zeros(n_features)
        decrease = _weighted_gini(node_value) - _weighted_gini(edge_value[:, 0]) - _weighted_gini(edge_value[:, 1])
        internal = ~self.is_leaf
        np.add.at(importances, self.feature[internal], decrease[internal])
        s = importances.sum()
        return importances / s if s > 0 else importances

    def copy(self) -> DecisionGraph:
        return DecisionGraph(
            self.children_left.copy(),
            self.children_right.copy(),
            self.feature.copy(),
            self.threshold.copy(),
            self.value.copy(),
            n_node_samples=self.n_node_samples.copy(),
            impurity=self.impurity.copy(),
            input_dtype=self.input_dtype,
            regression=self.regression,
            missing_go_to_left=None if self.missing_go_to_left is None else self.missing_go_to_left.copy(),
            missing_in_training=self.missing_in_training,
            categories=self.categories,
            category_left=None if self.category_left is None else self.category_left.copy(),
        )

    def __eq__(self, other):
        if not isinstance(other, DecisionGraph):
            return NotImplemented
        return (
            all(
                np.array_equal(getattr(self, name), getattr(other, name), equal_nan=name == "threshold")
                for name in ("children_left", "children_right", "feature", "threshold", "value")
            )
            and self.regression == other.regression
            and _same_directions(self.missing_go_to_left, other.missing_go_to_left)
            and self.missing_in_training == other.missing_in_training
            and _same_categories(self, other)
        )

    __hash__ = None

    def __getstate__(self):
        # What :meth:`_derived` keeps is recomputed on demand, in the layout of the running version.
        return {key: value for key, value in self.__dict__.items() if key != "_derived_cache"}

    def __setstate__(self, state):
        state = dict(state)
        state.pop("_derived_cache", None)  # kept by a pickle of an earlier version
        state.setdefault("missing_go_to_left", None)  # a pickle from before missing values
        state.setdefault("missing_in_training", False)
        state.setdefault("categories", None)  # a pickle from before categorical features
        state.setdefault("category_left", None)
        self.__dict__.update(state)

    # ------------------------------------------------------------------ regression
    def predict_value(self, X) -> np.ndarray:
        """Mean training target of the leaf each sample reaches (regression graphs)."""
        return self.value[self.apply(X), 0]

    def _regression_statistics(self, X, y, sample_weight):
        """Per node: weight, weighted target sum and weighted squared-target sum of the training
        samples reaching it (``[..., 0]``), sending left (``sent[:, 0]``) and right (``sent[:, 1]``),
        and the number of samples reaching it."""
        X = self._routable(X)
        y = np.asarray(y, dtype=np.float64)
        w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        index = np.zeros(y.shape[0], dtype=np.intp)
        moments = [
            edge_statistics(X, index, np.ascontiguousarray(m), 1, *self._arrays()) for m in (w, w * y, w * y * y)
        ]
        sent = np.concatenate([m[0] for m in moments], axis=-1)  # (n_nodes, 2, 3)
        node = np.concatenate([m[1] for m in moments], axis=-1)  # (n_nodes, 3)
        return sent, node, moments[0][2]

    def with_regression_stats(self, X, y, sample_weight=None) -> DecisionGraph:
        """A regression copy whose ``value`` (mean target), ``impurity`` (weighted mean squared error)
        and ``n_node_samples`` come from routing the training samples ``(X, y)``."""
        _, node, counts = self._regression_statistics(X, y, sample_weight)
        mean, mse = _mean_and_mse(node)
        return DecisionGraph(
            self.children_left,
            self.children_right,
            self.feature,
            self.threshold,
            mean[:, None],
            n_node_samples=counts,
            impurity=mse,
            input_dtype=self.input_dtype,
            regression=True,
            missing_go_to_left=self.missing_go_to_left,
            missing_in_training=self.missing_in_training,
            categories=self.categories,
            category_left=self.category_left,
        )

    def regression_feature_importances(self, X, y, sample_weight=None, n_features=None) -> np.ndarray:
        """Normalised total weighted squared-error decrease brought by each feature (regression
        graphs), measured, as in :meth:`feature_importances`, on the samples each split sends each way."""
        X = self._as_input(X)
        n_features = X.shape[1] if n_features is None else n_features
        importances = np.zeros(n_features)
        if self.n_splits == 0 or X.shape[0] == 0:
            return importances
        sent, node, _ = self._regression_statistics(X, y, sample_weight)
        decrease = _squared_error(node) - _squared_error(sent[:, 0]) - _squared_error(sent[:, 1])
        internal = ~self.is_leaf
        np.add.at(importances, self.feature[internal], np.maximum(decrease[internal], 0.0))
        s = importances.sum()
        return importances / s if s > 0 else importances

    def __repr__(self):
        if self.regression:
            return (
                f"DecisionGraph(n_splits={self.n_splits}, n_leaves={self.n_leaves}, "
                f"shared_nodes={self.shared_nodes.size}, regression=True)"
            )
        return (
            f"DecisionGraph(n_splits={self.n_splits}, n_leaves={self.n_leaves}, "
            f"shared_nodes={self.shared_nodes.size}, n_classes={self.n_classes})"
        )


def _directions(missing_go_to_left) -> np.ndarray | None:
    """``missing_go_to_left`` as a uint8 array of 0 and 1 (or None), refusing anything else."""
    if missing_go_to_left is None:
        return None
    given = np.asarray(missing_go_to_left)
    if given.ndim != 1 or not np.all((given == 0) | (given == 1)):
        raise ValueError("missing_go_to_left must be one 0 (missing values go right) or 1 (left) per node.")
    return given.astype(np.uint8)


def _categories(categories) -> dict | None:
    """``categories`` as a dict of feature index to an object array of names (None when empty)."""
    if categories is None or len(categories) == 0:
        return None
    out = {}
    for feature, names in dict(categories).items():
        if int(feature) < 0:
            raise ValueError(f"categories names the feature {int(feature)}; feature indices are non-negative.")
        names = np.asarray(list(names), dtype=object)
        if names.ndim != 1 or names.size == 0:
            raise ValueError(f"Categorical feature {int(feature)} needs a list of one or more categories.")
        if len({(type(v).__name__ == "str", v) for v in names.tolist()}) != names.size:
            raise ValueError(f"Categorical feature {int(feature)} lists a category twice.")
        out[int(feature)] = names
    return dict(sorted(out.items()))


def _subsets(category_left, n: int, categories) -> np.ndarray | None:
    """``category_left`` as a uint64 array of bitsets (one row per node), or None."""
    if category_left is None:
        return None
    if categories is None:
        raise ValueError("category_left needs categories: the categorical features and their categories.")
    if isinstance(category_left, np.ndarray) and category_left.dtype == np.uint64:
        if category_left.ndim != 2:
            raise ValueError("category_left as bitsets must be a 2-dimensional uint64 array (n_nodes, n_words).")
        return np.ascontiguousarray(category_left)
    entries = list(category_left)
    if len(entries) != n:
        raise ValueError(
            f"category_left has {len(entries)} entries but children_left has {n}; all arrays need one entry per node."
        )
    n_words = max(1, -(-max(c.shape[0] for c in categories.values()) // 64))
    bits = np.zeros((n, n_words), dtype=np.uint64)
    for node, codes in enumerate(entries):
        if codes is not None:
            bits[node] = subset_bits(codes, n_words)
    return bits


def _same_categories(a: DecisionGraph, b: DecisionGraph) -> bool:
    if (a.categories is None) != (b.categories is None):
        return False
    if a.categories is not None and (
        a.categories.keys() != b.categories.keys()
        or any(a.categories[f].tolist() != b.categories[f].tolist() for f in a.categories)
    ):
        return False
    if a.category_left is None or b.category_left is None:
        return (a.category_left is None or not a.category_left.any()) and (
            b.category_left is None or not b.category_left.any()
        )
    words = max(a.category_left.shape[1], b.category_left.shape[1])
    pad = [np.pad(g.category_left, ((0, 0), (0, words - g.category_left.shape[1]))) for g in (a, b)]
    return np.array_equal(pad[0], pad[1])


def _same_directions(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def gini(value: np.ndarray) -> np.ndarray:
    """Gini impurity of each row of class counts (0 for empty rows)."""
    value = np.asarray(value, dtype=np.float64)
    total = value.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = value / total[..., None]
        g = 1.0 - np.sum(p * p, axis=-1)
    return np.where(total > 0, g, 0.0)


def _mean_and_mse(moments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean and mean squared error from rows of (weight, weighted sum, weighted sum of squares);
    0 for rows without weight."""
    w, s, q = moments[..., 0], moments[..., 1], moments[..., 2]
    safe = np.where(w > 0, w, 1.0)
    mean = np.where(w > 0, s / safe, 0.0)
    return mean, np.where(w > 0, np.maximum(q / safe - mean * mean, 0.0), 0.0)


def _squared_error(moments: np.ndarray) -> np.ndarray:
    """Weighted sum of squared deviations from the mean, from rows of moments as in :func:`_mean_and_mse`."""
    return moments[..., 0] * _mean_and_mse(moments)[1]


def _weighted_gini(value: np.ndarray) -> np.ndarray:
    return value.sum(axis=-1) * gini(value)
