"""Graph reduction: merge nodes that act identically on the training samples reaching them.

A lossless step after training, in the spirit of reducing a binary decision diagram: sub-graphs
that give every training sample reaching them the same prediction are made into one shared
sub-graph, so duplicate sub-trees (such as the two corner tests of the paper's Fig. 2) are kept
once. No training prediction changes; predictions on unseen samples may.

The procedure:

1. remove dead nodes (never reached, or splits sending every training sample the same way) and
   keep one leaf per predicted class (leaves of one class merged);
2. in bottom-up passes until a pass merges nothing: for a split ``b`` and a candidate ``a`` (a leaf, or a split on the
   same feature, sending missing values the same way when the graph learned its directions from them, that is not an ancestor of ``b``), send ``b``'s parents to ``a`` instead, refit the thresholds below ``a`` on
   the samples that now reach them (a threshold moves only if it must, and only within the gap
   that keeps every sample on a path to its class), and keep the change when every training
   prediction is unchanged and the graph has fewer splits. Candidates are tried best first (fewest
   of ``b``'s samples sent to another class before refitting), at most :data:`MAX_CANDIDATES` per
   split, so the result is a good reduction, not a proven minimum.

A graph that learned from missing values keeps each split's direction (``missing_go_to_left``),
and splits sending them different ways are never merged. Training samples with missing values go
where the directions send them, and a refitted threshold never moves them. In a graph trained on
complete data (and reduced on complete data) the directions are only the rule for that case (the
side most training samples take), so they do not keep splits apart, and the reduced graph's splits
follow the same rule again.

A categorical split (:attr:`DecisionGraph.categories`) is the same test as another only when both
split the same feature by the same subset of its categories and send missing values (and categories
unseen in training) the same way. Reduction reads each distinct such test as a column of its own, 0
for a category sent left, 1 for one sent right and missing otherwise (the columns the graph routes
by), so two splits are merge candidates only when they read the same column; a subset is never
refitted, and each categorical split keeps its direction for missing values, learned or not, since
categories unseen in training follow it.
"""

from __future__ import annotations

import copy

import numpy as np

from tnt._base import graph_from_flat
from tnt.categorical import subset_bits
from tnt.graph import DecisionGraph
from tnt.learn.routing import count_directions, decision_paths, route_to_leaves
from tnt.learn.walks import ancestors, topological_order
from tnt.learn.working_graph import UNDECIDED, FlatGraph, WorkingGraph, compact

__all__ = ["reduce_graph", "reduce_model"]

#: Candidates tried per split, best first (fewest samples routed to another class before refitting).
MAX_CANDIDATES = 8
#: A candidate is tried when at most this share of the split's samples would change class before refitting.
MAX_MISMATCH_SHARE = 0.1


def reduce_graph(graph: DecisionGraph, X, y_idx, sample_weight=None) -> DecisionGraph:
    """Merge the nodes of ``graph`` whose sub-graphs act identically on their training samples.

    Parameters
    ----------
    graph : DecisionGraph
        A fitted graph (TnT, CART or hand-built).
    X : array-like of shape (n_samples, n_features)
        The training samples.
    y_idx : array-like of int, shape (n_samples,)
        Their class indices (``0..graph.n_classes-1``).
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    reduced : DecisionGraph
        A graph with at most as many splits, numbered topologically, with the training statistics
        of ``(X, y_idx)``; every training sample gets the class ``graph`` predicts for it. Each
        split keeps its ``missing_go_to_left`` (None when ``graph``'s is None).

    Examples
    --------
    Two copies of the same test under a root become one shared node:

    >>> import numpy as np
    >>> from tnt import DecisionGraph
    >>> from tnt.reduction import reduce_graph
    >>> X = np.array([[0.1, 0.2], [0.2, 0.8], [0.8, 0.3], [0.9, 0.7]])
    >>> y = np.array([0, 1, 0, 1])
    >>> g = DecisionGraph([1, 3, 5, -1, -1, -1, -1], [2, 4, 6, -1, -1, -1, -1],
    ...                   [0, 1, 1, -2, -2, -2, -2], [0.5, 0.5, 0.52, -2, -2, -2, -2],
    ...                   np.zeros((7, 2))).with_training_stats(X, y)
    >>> r = reduce_graph(g, X, y)
    >>> g.n_splits, r.n_splits
    (3, 1)
    >>> bool((r.predict_proba(X).argmax(1) == g.predict_proba(X).argmax(1)).all())
    True
    """
    X = np.ascontiguousarray(np.asarray(X), dtype=graph.input_dtype)
    y_idx = np.asarray(y_idx, dtype=np.intp)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if not graph.is_categorical.any():
        return _reduce(graph, X, y_idx, w)
    columns = _CategoryColumns(graph)
    X_columns = columns.of(X)
    on_columns = _reduce(columns.numeric(graph), X_columns, y_idx, w, fixed=columns.first)
    reduced = columns.categorical(on_columns).with_training_stats(X, y_idx, w)
    if not np.array_equal(reduced.apply(X), on_columns.apply(X_columns)):  # pragma: no cover - a bug if it happens
        raise RuntimeError("Graph reduction changed how a categorical split routes; please report this.")
    return reduced


def _reduce(graph: DecisionGraph, X, y_idx, w, fixed: int | None = None) -> DecisionGraph:
    """:func:`reduce_graph` of a graph without categorical splits; the splits on the features from
    ``fixed`` on (the columns of categorical tests) keep their thresholds and their directions."""
    fixed = X.shape[1] if fixed is None else fixed
    g = graph.with_training_stats(X, y_idx, w)  # refuses NaN for a graph without directions
    target = g.leaf_class()[g.apply(X)]
    learned = g.missing_in_training or (X.dtype.kind == "f" and bool(np.isnan(X).any()))
    g = _finish(_merge_leaves(g, learned, fixed), g.leaf_class(), X, y_idx, w, g, learned, fixed)
    changed = True
    while changed:
        arrays, label, changed = _merge_pass(g, X, y_idx, w, target, learned, fixed)
        if changed:
            g = _finish(arrays, label, X, y_idx, w, g, learned, fixed)
    if not np.array_equal(g.leaf_class()[g.apply(X)], target):  # pragma: no cover - a bug if it happens
        raise RuntimeError("Graph reduction changed a training prediction; please report this.")
    return g


class _CategoryColumns:
    """A graph's categorical tests as columns of their own (those :class:`DecisionGraph` routes by):
    column ``first + k`` holds, for the ``k``-th distinct test, 0 where the sample's category goes
    left, 1 where it goes right, NaN where it is missing or unseen in training. A categorical split
    is then the threshold 0.5 on its column, and back."""

    def __init__(self, graph: DecisionGraph):
        self.graph = graph
        _, _, self.tests, self.first = graph._category_tests()

    def of(self, X) -> np.ndarray:
        """``X`` with the columns of the tests (the columns the splits read, then one per test)."""
        return self.graph._with_category_tests(X)

    def numeric(self, graph: DecisionGraph) -> DecisionGraph:
        """``graph`` reading the columns: each categorical split the threshold 0.5 on its test's."""
        categorical = graph.is_categorical
        return DecisionGraph(graph.children_left, graph.children_right, graph._routing_features(),
                             np.where(categorical, 0.5, graph.threshold), graph.value, input_dtype=graph.input_dtype,
                             missing_go_to_left=graph.missing_go_to_left,
                             missing_in_training=graph.missing_in_training)  # fmt: skip

    def categorical(self, reduced: DecisionGraph) -> DecisionGraph:
        """A graph reduced on the columns as a graph of categorical splits again (no statistics)."""
        tested = ~reduced.is_leaf & (reduced.feature >= self.first)
        feature, threshold = reduced.feature.copy(), reduced.threshold.copy()
        n_words = self.graph.category_left.shape[1]
        bits = np.zeros((reduced.node_count, n_words), dtype=np.uint64)
        for node in np.flatnonzero(tested):
            f, table = self.tests[int(reduced.feature[node]) - self.first]
            feature[node], threshold[node] = f, np.nan
            bits[node] = subset_bits(np.flatnonzero(table), n_words)
        return DecisionGraph(reduced.children_left, reduced.children_right, feature, threshold, reduced.value,
                             input_dtype=reduced.input_dtype, missing_go_to_left=reduced.missing_go_to_left,
                             missing_in_training=self.graph.missing_in_training, categories=self.graph.categories,
                             category_left=bits)  # fmt: skip


def reduce_model(model, X, y):
    """A copy of a fitted TnT, CART or TAO classifier whose graph is reduced on ``(X, y)``.

    Parameters
    ----------
    model : fitted TnTClassifier, CARTClassifier or TAOClassifier
    X : array-like of shape (n_samples, n_features)
        The data the model was trained on.
    y : array-like of shape (n_samples,)
        Their labels (values of ``model.classes_``).

    Returns
    -------
    reduced : the same type as ``model``
        ``graph_``, ``n_splits_``, ``n_leaves_`` and ``feature_importances_`` replaced; ``model``
        itself is unchanged.

    Examples
    --------
    >>> from tnt import CARTClassifier
    >>> from tnt.reduction import reduce_model
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(seed=0)
    >>> cart = CARTClassifier(max_leaf_nodes=7, random_state=0).fit(X, y)
    >>> small = reduce_model(cart, X, y)
    >>> cart.n_splits_, small.n_splits_
    (6, 4)
    >>> bool((small.predict(X) == cart.predict(X)).all())
    True
    """
    Xv = model._validate_X_predict(X)
    y = np.asarray(y)
    y_idx = np.searchsorted(model.classes_, y)
    y_idx = np.clip(y_idx, 0, len(model.classes_) - 1)
    if not np.array_equal(model.classes_[y_idx], y):
        raise ValueError("y holds labels the model was not trained on; pass the training labels.")
    reduced = copy.deepcopy(model)
    reduced.graph_ = reduce_graph(model.graph_, Xv, y_idx)
    reduced.n_splits_ = reduced.graph_.n_splits
    reduced.n_leaves_ = reduced.graph_.n_leaves
    reduced.feature_importances_ = reduced.graph_.feature_importances(Xv, y_idx, n_features=model.n_features_in_)
    return reduced


# ---------------------------------------------------------------------------------------------- steps
def _arrays(g: DecisionGraph, learned: bool, fixed: int):
    """[left, right, feature, threshold, missing_left], copies. ``missing_left`` is 0, so that it
    does not keep splits apart, unless the directions are ``learned`` (from missing values in
    training, or kept because the samples reduced on have some) or the split reads a feature from
    ``fixed`` on (a categorical test); a direction only guessed by the rule for complete data is
    decided again by :func:`_finish`."""
    if g.missing_go_to_left is None:
        missing_left = np.zeros(g.node_count, dtype=np.uint8)
    else:
        missing_left = np.where(learned | (g.feature >= fixed), g.missing_go_to_left, 0).astype(np.uint8)
    return [g.children_left.copy(), g.children_right.copy(), g.feature.copy(), g.threshold.copy(), missing_left.copy()]


def _merge_leaves(g: DecisionGraph, learned: bool, fixed: int):
    """Point every edge into a leaf at the first leaf of the same predicted class."""
    arrays = _arrays(g, learned, fixed)
    left, right = arrays[0], arrays[1]
    label = g.leaf_class()
    leaves = np.flatnonzero(g.is_leaf)
    first = {}
    for leaf in leaves:
        first.setdefault(int(label[leaf]), int(leaf))
    target_of = np.arange(g.node_count)
    target_of[leaves] = [first[int(label[leaf])] for leaf in leaves]
    internal = ~g.is_leaf
    left[internal] = target_of[left[internal]]
    right[internal] = target_of[right[internal]]
    return arrays


def _finish(arrays, label, X, y_idx, w, before: DecisionGraph, learned: bool, fixed: int) -> DecisionGraph:
    """Remove dead nodes, renumber topologically and attach the training statistics (the number
    type, classes, ``missing_in_training`` and whether it has directions those of the graph ``before``)."""
    left, right, feature, threshold, missing_left = arrays
    if before.missing_go_to_left is None:
        directions = None
    elif learned:
        directions = missing_left
    else:  # no split saw a missing value: each sends them where most of its training samples go
        directions = np.where((left >= 0) & (feature >= fixed), missing_left, UNDECIDED).astype(np.int8)
    flat = FlatGraph(left, right, feature, threshold, np.where(left < 0, label, -1), directions)
    working = WorkingGraph(flat, missing_values=learned)
    return graph_from_flat(
        compact(working, X), X, y_idx, w, before.n_classes, before.input_dtype, before.missing_in_training
    )


def _merge_pass(g: DecisionGraph, X, y_idx, w, target, learned: bool, fixed: int):
    """One bottom-up pass over the splits of ``g``, keeping each merge that loses no training
    prediction and leaves fewer live splits. Returns the arrays, leaf labels and whether any merged.

    Merges are applied to the arrays as they are found (ids stay; replaced sub-graphs become
    unreachable), so one pass can make many; the caller compacts.
    """
    arrays = _arrays(g, learned, fixed)
    label = np.where(g.is_leaf, g.leaf_class(), -1)
    live = _Live(arrays, label, X)
    changed = False
    # Bottom-up: small sub-graphs first, so duplicates merge before their parents are compared.
    for b in np.flatnonzero(~g.is_leaf)[::-1]:  # the root too: a descendant may replace it
        rows = live.rows(b)
        if rows.size == 0:
            continue
        wanted = target[rows]
        scored = []
        for a in live.candidates(b):
            got = label[route_to_leaves(X, rows, int(a), *arrays)]
            misses = int(np.count_nonzero(got != wanted))
            if misses <= MAX_MISMATCH_SHARE * rows.size:
                scored.append((misses, int(a)))
        for _, a in sorted(scored)[:MAX_CANDIDATES]:
            merged = _try_replace(arrays, label, b, a, X, y_idx, w, target, live.n_live_splits, fixed)
            if merged is not None:
                arrays, label = merged
                live = _Live(arrays, label, X)
                changed = True
                break
    return arrays, label, changed


class _Live:
    """Which nodes the training samples reach in a graph given as arrays (any numbering)."""

    def __init__(self, arrays, label, X):
        left, right, feature, _, missing_left = arrays
        self.left, self.right, self.feature, self.missing_left, self.label = left, right, feature, missing_left, label
        indptr, nodes = decision_paths(X, *arrays)
        samples = np.repeat(np.arange(X.shape[0], dtype=np.int64), np.diff(indptr))
        order = np.argsort(nodes, kind="stable")
        self._samples = samples[order]
        self._start = np.searchsorted(nodes[order], np.arange(left.shape[0] + 1))
        self.reached = np.diff(self._start) > 0
        self.n_live_splits = _live_splits(arrays, X)
        self.order = topological_order(left, right)

    def rows(self, node: int) -> np.ndarray:
        return self._samples[self._start[node] : self._start[node + 1]]

    def candidates(self, b: int):
        """Reached nodes that could replace ``b``: leaves, and splits on b's feature sending missing
        values the same way that are not ancestors of b (sending b's parents to an ancestor would
        make a cycle)."""
        leaf = self.left < 0
        same = (~leaf) & (self.feature == self.feature[b]) & (self.missing_left == self.missing_left[b])
        above = ancestors(self.left, self.right, b, self.order)
        yield from np.flatnonzero(self.reached & (leaf | same) & ~above)


def _live_splits(arrays, X) -> int:
    """Splits that send training samples both ways (those compaction keeps)."""
    left, right = arrays[0], arrays[1]
    went_left, went_right = count_directions(X, left.shape[0], *arrays)
    return int(np.count_nonzero((left >= 0) & (left != right) & (went_left > 0) & (went_right > 0)))


def _try_replace(arrays, label, b: int, a: int, X, y_idx, w, target, n_live_splits, fixed: int):
    """Arrays and leaf labels with ``b`` replaced by ``a``, or None if a prediction changes or no
    split is saved."""
    arrays = [array.copy() for array in arrays]
    left, right, feature, threshold, missing_left = arrays
    label = label.copy()
    if b == 0:  # the root: node 0 becomes a copy of a, and a (reached only through the old root) dies
        for array in arrays:
            array[0] = array[a]
        label[0] = label[a]
    else:
        internal = left >= 0
        left[internal & (left == b)] = a
        right[internal & (right == b)] = a
    if not _refit_thresholds(arrays, label, X, target, fixed):
        return None
    if _live_splits(arrays, X) >= n_live_splits:
        return None
    leaf_of = route_to_leaves(X, np.arange(X.shape[0], dtype=np.int64), 0, *arrays)
    n, k = left.shape[0], int(label.max()) + 1
    k = max(k, int(y_idx.max()) + 1)
    weights = np.ones(X.shape[0]) if w is None else w
    value = np.bincount(leaf_of * k + y_idx, weights=weights, minlength=n * k).reshape(n, k)
    new_label = np.where(left < 0, value.argmax(axis=1), -1)
    if not np.array_equal(new_label[leaf_of], target):
        return None
    return arrays, new_label


def _refit_thresholds(arrays, label, X, target, fixed: int) -> bool:
    """Move, where needed, each threshold of ``arrays`` (:func:`_arrays`) so that every sample keeps
    a path to a leaf of its class; those of the splits on features from ``fixed`` on (categorical
    tests) never move.

    Nodes are visited in topological order with the samples that now reach them. A threshold that
    already sends each sample to a side from which its class can be reached stays; otherwise it
    moves to the middle of the nearest gap that does. A sample whose value is missing goes by the
    node's direction, which no threshold changes. Returns False when no threshold can.
    """
    left, right, feature, threshold, missing_left = arrays
    order = topological_order(left, right)
    n_classes = int(max(label.max(), target.max())) + 1
    reach = np.zeros((left.shape[0], n_classes), dtype=bool)
    for node in order[::-1]:
        if left[node] < 0:
            reach[node, label[node]] = True
        else:
            reach[node] = reach[left[node]] | reach[right[node]]
    arriving = {0: [np.arange(X.shape[0])]}
    for node in order:
        rows = np.concatenate(arriving.pop(node, [np.empty(0, dtype=np.int64)]))
        if left[node] < 0 or rows.size == 0:
            continue
        x = X[rows, feature[node]].astype(np.float64)
        ok_left, ok_right = reach[left[node], target[rows]], reach[right[node], target[rows]]
        missing = np.isnan(x)
        missing_goes_left = bool(missing_left[node])
        if not np.all(ok_left | ok_right) or not np.all((ok_left if missing_goes_left else ok_right)[missing]):
            return False
        present = ~missing
        goes_left = x <= threshold[node]
        if np.any(present & goes_left & ~ok_left) or np.any(present & ~goes_left & ~ok_right):
            if feature[node] >= fixed:
                return False
            t = _new_threshold(
                x[present], must_left=~ok_right[present], must_right=~ok_left[present], current=threshold[node]
            )
            if t is None:
                return False
            threshold[node] = t
            goes_left = x <= t
        goes_left |= missing & missing_goes_left
        arriving.setdefault(left[node], []).append(rows[goes_left])
        arriving.setdefault(right[node], []).append(rows[~goes_left])
    return True


def _new_threshold(x, must_left, must_right, current) -> float | None:
    lo = x[must_left].max() if must_left.any() else -np.inf
    hi = x[must_right].min() if must_right.any() else np.inf
    if not lo < hi:
        return None
    if current < lo:
        above = x[x > lo]
        return float((lo + above.min()) / 2) if above.size else float(lo + 1.0)
    below = x[x < hi]
    return float((below.max() + hi) / 2) if below.size else float(hi - 1.0)
