"""Micro trees: the small cost-complexity-pruned CART trees TnT grows inside nodes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.tree import DecisionTreeClassifier


@dataclass(frozen=True)
class MicroTree:
    """A fitted micro tree as flat arrays, nodes numbered depth-first from the root (id 0).

    ``label`` holds the predicted target (an index into the targets the tree was fitted on) at the
    leaves and -1 at internal nodes.
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    label: np.ndarray

    @property
    def is_single_leaf(self) -> bool:
        return self.children_left[0] == -1

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])


def fit_micro_tree(X, y, sample_weight, alpha: float, n_targets: int, random_state: int) -> MicroTree:
    """Fit a Gini CART on (X, y) and prune it with minimal cost-complexity pruning at ``alpha``.

    Parameters
    ----------
    X : ndarray of shape (n, n_features), float32
    y : ndarray of shape (n,) of int in ``0..n_targets-1``
    sample_weight : ndarray of shape (n,)
    alpha : float
        scikit-learn's ``ccp_alpha``: a split survives when it lowers the weighted Gini impurity,
        measured as a share of this tree's total weight, by more than ``alpha``.
    n_targets : int
        Number of possible targets (labels are returned as indices into ``range(n_targets)``).
    random_state : int
        Seed of scikit-learn's feature permutation, which breaks ties between equal splits.
    """
    return _fit(DecisionTreeClassifier(ccp_alpha=alpha, random_state=random_state), X, y, sample_weight)


def _fit(tree: DecisionTreeClassifier, X, y, sample_weight) -> MicroTree:
    tree.fit(X, y, sample_weight=sample_weight)
    t = tree.tree_
    leaf = t.children_left == -1
    label = np.where(leaf, tree.classes_.take(np.argmax(t.value[:, 0, :], axis=1)), -1).astype(np.intp)
    return MicroTree(
        children_left=t.children_left.astype(np.intp),
        children_right=t.children_right.astype(np.intp),
        feature=np.where(leaf, -2, t.feature).astype(np.intp),
        threshold=np.where(leaf, -2.0, t.threshold),
        label=label,
    )


def fit_stump(X, y, sample_weight, random_state: int) -> MicroTree:
    """Fit the single best Gini split of (X, y), as fine-tuning (Algorithm A.1) refits a node."""
    return _fit(DecisionTreeClassifier(max_depth=1, random_state=random_state), X, y, sample_weight)
