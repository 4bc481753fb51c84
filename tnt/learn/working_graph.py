"""The graph being trained: a phase-start graph with micro trees installed into its nodes.

During a phase of Algorithm 2 the structure of the graph is fixed, while every node receives a new
micro tree on every grow pass. :class:`WorkingGraph` keeps the phase-start graph in slots
``0..n_orig-1`` (slot ``i`` is node ``i``) and appends the nodes of each micro tree after them. A
micro tree installed in node ``i`` takes over slot ``i`` (its root) and its leaves point at the slots
of node ``i``'s children, so later installs in the children are seen through the same ids. The
working graph therefore *is* the merged graph at any moment: merging is only compaction
(:func:`compact`), which also removes dead nodes.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass

import numpy as np

from tnt.learn.category_columns import CategoryColumns
from tnt.learn.compiled import kernel
from tnt.learn.micro_tree import MicroTree
from tnt.learn.refit_guard import improves_on_split
from tnt.learn.routing import count_directions, route_past, route_to_leaves
from tnt.learn.tree_builder import SUBSET_WORDS
from tnt.learn.walks import topological_order

#: A slot's direction for missing values left to :func:`compact`, which decides it from the training
#: samples: that of a split installed while no training sample has a missing value.
UNDECIDED = -1


@dataclass
class FlatGraph:
    """A compact graph in topological order: the start of a phase, or a finished model."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    label: np.ndarray  # class index at leaves, -1 at internal nodes
    # Where a missing value goes at each node (DecisionGraph's missing_go_to_left), None when unknown.
    missing_go_to_left: np.ndarray | None = None
    # Per node, the category codes a categorical split sends left (uint64 bitsets, DecisionGraph's
    # category_left), None when no node splits on a categorical feature.
    category_left: np.ndarray | None = None

    @classmethod
    def single_leaf(cls, label: int) -> FlatGraph:
        return cls(
            np.array([-1], dtype=np.intp),
            np.array([-1], dtype=np.intp),
            np.array([-2], dtype=np.intp),
            np.array([-2.0]),
            np.array([label], dtype=np.intp),
            missing_go_to_left=np.zeros(1, dtype=np.uint8),
        )

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_splits(self) -> int:
        return int(np.count_nonzero(self.children_left >= 0))


class WorkingGraph:
    """Slots of a phase-start graph plus the micro trees installed during the phase.

    Each slot has a direction for missing values (``missing_left``: 1 left, 0 right, or
    ``UNDECIDED``): the phase-start graph's, or that of the micro tree's node written there.
    ``missing_values`` says whether the training samples have missing values. With them the walks
    send a missing value by the slot's direction; without, they never look for one, and a micro
    tree's splits are installed ``UNDECIDED``: :func:`compact` sends missing values where more of the
    graph's training samples go, the rule for a split that saw none (the micro tree saw only some of
    the samples reaching its node).

    A micro tree installed again in the node that holds it (the same object: a grow pass reusing
    the node's last tree) is not written again: its slots still hold it, since only the node's own
    installs, :meth:`reset` and :meth:`restore` write into a node's slot and a tree's other slots
    are its own. The graph is the same; only the slots it takes are fewer.

    With ``categories`` (a :class:`tnt.learn.category_columns.CategoryColumns` of the training
    matrix, for data with categorical features), a categorical split takes its slot as the threshold
    0.5 on its test's column of ``categories.matrix``, which the walks read instead of the training
    matrix they are given; :func:`compact` gives the splits their features and subsets back.
    """

    def __init__(self, start: FlatGraph, missing_values: bool = False, categories: CategoryColumns | None = None):
        n = start.node_count
        self.start = start
        self.categories = categories
        #: The phase-start graph's features and thresholds as the slots hold them.
        self.start_feature, self.start_threshold = start.feature, start.threshold
        if categories is not None:
            self.start_feature, self.start_threshold = categories.to_columns(
                start.feature, start.threshold, start.category_left
            )
        self.n_orig = n
        capacity = max(4 * n, 64)
        self.left = np.full(capacity, -1, dtype=np.intp)
        self.right = np.full(capacity, -1, dtype=np.intp)
        self.feature = np.full(capacity, -2, dtype=np.intp)
        self.threshold = np.full(capacity, -2.0)
        self.label = np.full(capacity, -1, dtype=np.intp)
        self.missing_left = np.full(capacity, UNDECIDED, dtype=np.int8)
        self.missing_values = missing_values
        self.size = n
        # Micro trees may be installed from several threads; installing is short, so one lock.
        self.lock = threading.RLock()
        self._installed: dict[int, MicroTree] = {}  # node -> the micro tree its slot holds
        for node in range(n):
            self.reset(node)

    # ------------------------------------------------------------------ editing
    def reset(self, node: int) -> None:
        """Give node its phase-start content back (its split, or its leaf label)."""
        s = self.start
        with self.lock:
            self._installed.pop(node, None)
            self.left[node] = s.children_left[node]
            self.right[node] = s.children_right[node]
            self.feature[node] = self.start_feature[node]
            self.threshold[node] = self.start_threshold[node]
            self.label[node] = s.label[node]
            self.missing_left[node] = UNDECIDED if s.missing_go_to_left is None else s.missing_go_to_left[node]

    def _reserve(self, count: int) -> int:
        """Make room for ``count`` more slots; returns the first of them."""
        first = self.size
        needed = first + count
        if needed > self.left.shape[0]:
            capacity = max(needed, 2 * self.left.shape[0])
            for name, fill in (
                ("left", -1),
                ("right", -1),
                ("feature", -2),
                ("threshold", -2.0),
                ("label", -1),
                ("missing_left", UNDECIDED),
            ):
                old = getattr(self, name)
                new = np.full(capacity, fill, dtype=old.dtype)
                new[: self.size] = old[: self.size]
                setattr(self, name, new)
        self.size = needed
        return first

    def install_leaf_tree(self, node: int, tree: MicroTree) -> None:
        """Replace leaf ``node`` by a micro tree fitted on class labels."""
        with self.lock:
            if not self.holds(node, tree):
                self._write(node, -1, -1, tree)

    def install_split_tree(self, node: int, tree: MicroTree) -> None:
        """Replace the split of internal ``node`` by a micro tree fitted on 0 (left) / 1 (right) targets.

        Leaves labelled 0 become edges to the node's phase-start left child, leaves labelled 1 edges
        to its right child. A micro tree that is a single leaf sends every sample one way; it is kept
        as a split whose two edges lead to the same child, which compaction bypasses.
        """
        with self.lock:
            if not self.holds(node, tree):
                self._write(node, self.start.children_left[node], self.start.children_right[node], tree)

    def holds(self, node: int, tree: MicroTree) -> bool:
        """Whether slot ``node`` holds ``tree`` (the same object) as its last install wrote it: installing
        it again would change nothing."""
        return self._installed.get(node) is tree

    def _write(self, node: int, to_left: int, to_right: int, tree: MicroTree) -> None:
        """:func:`_write_tree` into slot ``node`` and new slots, as many as it takes (its other nodes
        at most: their count is known once written)."""
        first = self._reserve(tree.node_count - 1)
        t_feature, t_threshold = self._tree_split_arrays(tree)
        self.size = _write_tree(
            self.left,
            self.right,
            self.feature,
            self.threshold,
            self.label,
            self.missing_left,
            node,
            first,
            to_left,
            to_right,
            tree.children_left,
            tree.children_right,
            t_feature,
            t_threshold,
            tree.label,
            tree.missing_left,
            self.missing_values,
        )
        self._installed[node] = tree

    def _tree_split_arrays(self, tree: MicroTree) -> tuple[np.ndarray, np.ndarray]:
        """A micro tree's features and thresholds as the slots hold them (a categorical split on its
        test's column)."""
        if self.categories is None or tree.category_left is None:
            return tree.feature, tree.threshold
        return self.categories.to_columns(tree.feature, tree.threshold, tree.category_left)

    def improves(self, node: int, tree: MicroTree, X: np.ndarray, rows, targets, weights, split_price=0.0) -> bool:
        """:func:`tnt.learn.refit_guard.improves_on_split` of ``tree`` against internal ``node``'s
        phase-start split, on the training samples ``X[rows]``."""
        if self.categories is not None and tree.category_left is not None:
            feature, threshold = self._tree_split_arrays(tree)
            tree = dataclasses.replace(tree, feature=feature, threshold=threshold)
        return improves_on_split(
            tree,
            self.start_feature[node],
            self.start_threshold[node],
            self.start.missing_go_to_left[node],
            self.routed(X),
            rows,
            targets,
            weights,
            split_price,
        )

    def routed(self, X: np.ndarray) -> np.ndarray:
        """The matrix the walks read for the training matrix ``X``: ``X`` itself, or with the
        categorical tests' columns (:class:`tnt.learn.category_columns.CategoryColumns`)."""
        return X if self.categories is None else self.categories.routed(X)

    def _slots(self) -> tuple:
        return self.left, self.right, self.feature, self.threshold, self.label, self.missing_left

    def slot(self, node: int) -> tuple:
        """What slot ``node`` holds (its edges, feature, threshold and direction), for :meth:`restore`."""
        with self.lock:
            return self.left[node], self.right[node], self.feature[node], self.threshold[node], self.missing_left[node]

    def restore(self, node: int, saved: tuple) -> None:
        """Give slot ``node`` what :meth:`slot` saved."""
        with self.lock:
            self._installed.pop(node, None)
            self.left[node], self.right[node], self.feature[node], self.threshold[node], self.missing_left[node] = saved

    # ------------------------------------------------------------------ routing
    def _arrays(self):
        """The arrays the routing kernels take, read together (another thread's install may
        reallocate them): the directions only when samples may have missing values."""
        with self.lock:
            if self.missing_values:
                return self.left, self.right, self.feature, self.threshold, self.missing_left
            return self.left, self.right, self.feature, self.threshold

    def all_arrays(self):
        """(left, right, feature, threshold, label, missing_left), read together."""
        with self.lock:
            return self._slots()

    def predict_from(self, start: int, X: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Leaf labels the graph gives ``X[rows]`` when inference starts at slot ``start``."""
        arrays = self._arrays()
        return self.label[route_to_leaves(self.routed(X), rows, start, *arrays)]

    def goes_left(self, node: int, X: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Mask of the ``rows`` (samples reaching internal ``node``) that the node's split, micro
        tree included, sends to its phase-start left child."""
        arrays = self._arrays()
        reached = route_past(self.routed(X), rows, node, self.n_orig, *arrays)
        return reached == self.start.children_left[node]

    def route_through(self, node: int, X: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows reaching ``node``'s phase-start left and right child, in input order."""
        to_left = self.goes_left(node, X, rows)
        return rows[to_left], rows[~to_left]

    def routing_counts(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How many training samples each slot sends left and right."""
        arrays = self._arrays()
        return count_directions(self.routed(X), self.size, *arrays)


@kernel
def _write_tree(
    left,
    right,
    feature,
    threshold,
    label,
    missing_left,
    node,
    first,
    to_left,
    to_right,
    t_left,
    t_right,
    t_feature,
    t_threshold,
    t_label,
    t_missing_left,
    decided,
):
    """Write a micro tree (arrays ``t_*``, nodes numbered depth-first) into a working graph's slots
    (:meth:`WorkingGraph._slots`): its root into slot ``node``, its other nodes into slots ``first,
    first + 1, ...`` in their order; returns the slot after the last one written.

    With ``to_left < 0`` it is a leaf's micro tree and keeps its leaves (a single leaf: ``node``
    becomes that leaf). Otherwise it is a split's: only its splits take slots, and a leaf labelled
    0 (1) becomes an edge to ``to_left`` (``to_right``); a single leaf becomes a split whose two
    edges lead to the same child.

    Each split keeps its direction for missing values when ``decided``, else (no missing value in
    training) every slot written gets ``UNDECIDED``, which :func:`compact` decides.
    """
    n = t_left.shape[0]
    split_tree = to_left >= 0
    missing_left[node] = 0 if decided else UNDECIDED
    if n == 1 or t_left[0] < 0:
        if split_tree:
            target = to_left if t_label[0] == 0 else to_right
            left[node] = target
            right[node] = target
            feature[node] = 0
            threshold[node] = np.inf
            label[node] = -1
        else:
            left[node] = -1
            right[node] = -1
            feature[node] = -2
            threshold[node] = -2.0
            label[node] = t_label[0]
        return first
    slot_of = np.empty(n, dtype=np.int64)
    next_slot = first
    for j in range(n):
        if j == 0:
            slot_of[j] = node
        elif t_left[j] < 0 and split_tree:
            slot_of[j] = to_left if t_label[j] == 0 else to_right
        else:
            slot_of[j] = next_slot
            next_slot += 1
    for j in range(n):
        s = slot_of[j]
        if t_left[j] >= 0:
            left[s] = slot_of[t_left[j]]
            right[s] = slot_of[t_right[j]]
            feature[s] = t_feature[j]
            threshold[s] = t_threshold[j]
            label[s] = -1
            missing_left[s] = t_missing_left[j] if decided else UNDECIDED
        elif not split_tree:
            left[s] = -1
            right[s] = -1
            feature[s] = -2
            threshold[s] = -2.0
            label[s] = t_label[j]
            missing_left[s] = 0 if decided else UNDECIDED
    return next_slot


def compact(graph: WorkingGraph, X: np.ndarray, counts=None) -> FlatGraph:
    """Merge: renumber the working graph topologically and remove its dead nodes.

    A split that sends all its training samples to the same node is bypassed (its parents point
    to that node instead), and nodes no training sample reaches disappear with it. Neither changes
    any training prediction. Nodes are numbered in the breadth-first order in which Algorithm 2
    visits them: a node comes after all its parents, left before right. ``counts`` is
    :meth:`WorkingGraph.routing_counts` when the caller has it already.

    Each split keeps its direction for missing values; an ``UNDECIDED`` one sends them to the side
    more training samples took (ties right), the rule for a split whose training samples had no
    missing value. A graph whose start knew no directions gets none.
    """
    went_left, went_right = graph.routing_counts(X) if counts is None else counts
    root, new_left, new_right = _bypass_dead(graph.left[: graph.size], graph.right[: graph.size], went_left, went_right)
    missing_left = None
    if graph.start.missing_go_to_left is not None:
        missing_left = graph.missing_left[: graph.size].copy()
        undecided = missing_left == UNDECIDED
        missing_left[undecided] = went_left[undecided] > went_right[undecided]
    return _renumber(graph, root, new_left, new_right, missing_left)


@kernel
def _bypass_dead(left, right, went_left, went_right):
    """(new root, new left, new right): every reachable split that sends all its samples one way
    (or whose two edges lead to the same node) bypassed, and each parent pointed past them."""
    n = left.shape[0]
    resolved = np.full(n, -1, dtype=np.int64)
    new_left, new_right = left.copy(), right.copy()
    # Post-order over the reachable slots: children are resolved before their parents.
    stack = np.empty(64, dtype=np.int64)
    done = np.empty(64, dtype=np.bool_)
    stack[0], done[0] = 0, False
    top = 1
    while top > 0:
        top -= 1
        slot, children_done = stack[top], done[top]
        if resolved[slot] >= 0:
            continue
        if left[slot] < 0:
            resolved[slot] = slot
            continue
        if top + 3 > stack.shape[0]:
            stack, done = np.concatenate((stack, stack)), np.concatenate((done, done))
        dead_left = went_left[slot] == 0
        dead_right = went_right[slot] == 0
        if dead_left != dead_right or left[slot] == right[slot]:
            only = right[slot] if dead_left else left[slot]
            if resolved[only] >= 0:
                resolved[slot] = resolved[only]
            else:
                stack[top], done[top] = slot, True
                stack[top + 1], done[top + 1] = only, False
                top += 2
            continue
        if not children_done or resolved[left[slot]] < 0 or resolved[right[slot]] < 0:
            stack[top], done[top] = slot, True
            top += 1
            for child in (right[slot], left[slot]):
                if resolved[child] < 0:
                    stack[top], done[top] = child, False
                    top += 1
            continue
        to_left, to_right = resolved[left[slot]], resolved[right[slot]]
        if to_left == to_right:
            resolved[slot] = to_left
        else:
            new_left[slot], new_right[slot] = to_left, to_right
            resolved[slot] = slot
    return resolved[0], new_left, new_right


def dead_splits(graph: WorkingGraph, X: np.ndarray, counts=None) -> list[tuple[int, float, int, str]]:
    """The splits of the working graph that training samples reach but that send all of them the
    same way: the ones :func:`compact` bypasses. An internal node whose micro tree kept no split
    (its two edges lead to the same child) is not a split and is not listed.

    Returns
    -------
    dead : list of (feature, threshold, samples, side)
        ``side`` is "left" or "right", where all ``samples`` go; in slot order. A categorical split's
        threshold is NaN (as in a graph).
    """
    went_left, went_right = graph.routing_counts(X) if counts is None else counts
    n = graph.size
    left, right = graph.left[:n], graph.right[:n]
    dead = (left >= 0) & (left != right) & ((went_left == 0) != (went_right == 0))
    feature, threshold = graph.feature[:n], graph.threshold[:n]
    if graph.categories is not None:
        feature, threshold, _ = graph.categories.from_columns(feature, threshold, 1)
    return [
        (
            int(feature[s]),
            float(threshold[s]),
            int(went_left[s] + went_right[s]),
            "left" if went_right[s] == 0 else "right",
        )
        for s in np.flatnonzero(dead)
    ]


def _renumber(graph: WorkingGraph, root: int, left: np.ndarray, right: np.ndarray, missing_left) -> FlatGraph:
    order = topological_order(left, right, root)
    new_id = np.full(graph.size, -1, dtype=np.intp)
    new_id[order] = np.arange(order.size)
    is_leaf = left[order] < 0
    feature = np.where(is_leaf, -2, graph.feature[order])
    threshold = np.where(is_leaf, -2.0, graph.threshold[order])
    category_left = None
    if graph.categories is not None:
        feature, threshold, category_left = graph.categories.from_columns(feature, threshold, SUBSET_WORDS)
    return FlatGraph(
        children_left=np.where(is_leaf, -1, new_id[left[order]]),
        children_right=np.where(is_leaf, -1, new_id[right[order]]),
        feature=feature,
        threshold=threshold,
        label=np.where(is_leaf, graph.label[order], -1),
        missing_go_to_left=None if missing_left is None else np.where(is_leaf, 0, missing_left[order]).astype(np.uint8),
        category_left=category_left,
    )
