"""The guard on internal nodes' refits (``internal_refit="improving"``): an internal node takes the
micro tree fitted on its sensitive samples (a regressor's reduced problem) only when the tree
misroutes less of their weight than the split the node had at the start of the phase.

Once the graph classifies its training samples right, the sensitive samples of a node are a subset
of its samples that its split already routes right, and any split that routes them as well is as
good on the training data; the refit then re-chooses the split on fewer samples than the split was
chosen on, which over-fits (``docs/where_tnt_loses.md``). With the guard a node changes only for a
lower training loss, as a fine-tuning round's refit does.
"""

from __future__ import annotations

import numpy as np

from tnt.learn.micro_tree import MicroTree
from tnt.learn.routing import route_to_leaves

__all__ = ["INTERNAL_REFITS", "guards_refits", "improves_on_split"]

#: The values of the estimators' ``internal_refit``: every refit taken, only those that improve, or
#: the guard where training values are missing (:func:`guards_refits`).
INTERNAL_REFITS = ("auto", "always", "improving")


def guards_refits(internal_refit: str, missing_values: bool) -> bool:
    """Whether the internal nodes' refits are guarded: always with ``"improving"``, never with
    ``"always"``, and with ``"auto"`` when some training value is missing (``missing_values``).

    With missing values the refits that do not lower the training loss cost more test accuracy than
    without: on the benchmark suite with 15 % of the values removed, TnT was at least as accurate as
    CART on 16 of 33 classification pairs with every refit taken and 23 with the guard, against 20 of
    33 either way without missing values (``docs/accuracy_missing.md``, ``docs/learner_options.md``).

    >>> guards_refits("auto", False), guards_refits("auto", True), guards_refits("always", True)
    (False, True, False)
    """
    return internal_refit == "improving" or (internal_refit == "auto" and missing_values)


def improves_on_split(
    tree: MicroTree,
    feature: int,
    threshold: float,
    missing_left: int,
    X: np.ndarray,
    rows: np.ndarray,
    targets,
    weights,
) -> bool:
    """Whether ``tree`` sends less weight of ``X[rows]`` to the wrong side than the split
    ``x[feature] <= threshold`` does, a missing value going left when ``missing_left`` is 1
    (``targets``: 0 where left is right, 1 where right is; ``weights``: one per row).

    A tree fitted on these rows, targets and weights knows its own error (``tree.misclassified``):
    with whole-number weights it is used rather than routing the rows through the tree again.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0]], dtype=np.float32)
    >>> stump = MicroTree(children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
    ...                   feature=np.array([0, -2, -2]), threshold=np.array([1.5, -2.0, -2.0]),
    ...                   missing_left=np.zeros(3, dtype=np.uint8), label=np.array([-1, 0, 1]))
    >>> rows, targets, weights = np.arange(3), np.array([0, 0, 1]), np.ones(3)
    >>> improves_on_split(stump, 0, 0.5, 0, X, rows, targets, weights)  # the old split misroutes row 1
    True
    >>> improves_on_split(stump, 0, 1.5, 0, X, rows, targets, weights)  # as good: no change
    False
    """
    x = X[rows, feature].astype(np.float64)
    old_side = np.where(np.isnan(x), missing_left == 0, x > threshold).astype(np.intp)
    old_error = float(weights[old_side != targets].sum())
    if tree.misclassified is not None and _sums_exactly(weights):
        # The tree's own count of the weight its leaves misclassify: the same sum, in another order.
        return tree.misclassified < old_error
    arrays = (tree.children_left, tree.children_right, tree.feature, tree.threshold, tree.missing_left)
    new_side = tree.label[route_to_leaves(X, rows, 0, *arrays)]
    return float(weights[new_side != targets].sum()) < old_error


def _sums_exactly(weights: np.ndarray) -> bool:
    """Whether every sum of some of ``weights`` is exact in floating point, whatever the order of the
    additions: whole numbers whose total is below 2**53 (unit weights, counts)."""
    return bool(np.all(weights == np.floor(weights))) and float(np.abs(weights).sum()) < 2.0**53
