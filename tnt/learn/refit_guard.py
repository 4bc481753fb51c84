"""The guards on internal nodes' refits: an internal node takes the micro tree fitted on its
sensitive samples (a regressor's reduced problem) only when the tree misroutes less of their weight
than the split the node had at the start of the phase (``internal_refit="improving"``), or less by
more than ``C`` per split the tree adds (``internal_refit="cost_complexity"``).

Once the graph classifies its training samples right, the sensitive samples of a node are a subset
of its samples that its split already routes right, and any split that routes them as well is as
good on the training data; the refit then re-chooses the split on fewer samples than the split was
chosen on, which over-fits (``docs/where_tnt_loses.md``). With the guard a node changes only for a
lower training loss, as a fine-tuning round's refit does.

The misrouted weight of a node's reduced problem is the graph's training loss that the node's
choice of child adds (the rest of the graph fixed): ``sum w_i |L_i(left) - L_i(right)|`` over the
samples sent to the worse child. Training minimises that loss over the total weight ``W`` plus ``C``
per split, and a refit of ``k`` splits replaces one: with ``"cost_complexity"`` it must lower the
misrouted weight by more than ``C * W * (k - 1)``, the price a leaf's micro tree pays for its splits
(its pruning level ``C * W / W_i``). A regression graph's refits are chosen by a Gini tree on noisy
per-sample gains: without that price they add splits that lower the training loss less than they
cost, which lowered test R² against CART at equal splits (``docs/learner_options.md``).
"""

from __future__ import annotations

import numpy as np

from tnt.learn.micro_tree import MicroTree
from tnt.learn.routing import route_to_leaves

__all__ = ["INTERNAL_REFITS", "PRICED", "guards_refits", "improves_on_split", "refit_rule"]

#: The rule whose refits pay ``C`` per split they add.
PRICED = "cost_complexity"
#: The values of the estimators' ``internal_refit``: every refit taken, only those that improve,
#: only those that pay ``C`` per added split, or the rule :func:`refit_rule` chooses.
INTERNAL_REFITS = ("auto", "always", "improving", PRICED)


def refit_rule(internal_refit: str, missing_values: bool) -> str:
    """The rule an estimator's internal nodes take refits by: ``"always"``, ``"improving"`` or
    ``"cost_complexity"``; ``"auto"`` is :func:`guards_refits`' choice (a regressor at the default
    size chooses between it and ``"cost_complexity"`` on held-out data:
    :mod:`tnt.learn.refit_choice`).

    >>> refit_rule("auto", False), refit_rule("auto", True), refit_rule("cost_complexity", False)
    ('always', 'improving', 'cost_complexity')
    """
    if internal_refit != "auto":
        return internal_refit
    return "improving" if guards_refits(internal_refit, missing_values) else "always"


def guards_refits(internal_refit: str, missing_values: bool) -> bool:
    """Whether the internal nodes' refits are guarded: always with ``"improving"``, never with
    ``"always"``, and with ``"auto"`` when some training value is missing (``missing_values``); a
    classifier's ``"auto"`` (:func:`refit_rule`).

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
    split_price: float = 0.0,
) -> bool:
    """Whether ``tree`` sends less weight of ``X[rows]`` to the wrong side than the split
    ``x[feature] <= threshold`` does, a missing value going left when ``missing_left`` is 1
    (``targets``: 0 where left is right, 1 where right is; ``weights``: one per row), by more than
    ``split_price`` for each split it has beyond one (a tree of no split gains ``split_price``).

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
    >>> improves_on_split(stump, 0, 0.5, 0, X, rows, targets, weights, split_price=5.0)  # one split: no price
    True
    """
    x = X[rows, feature].astype(np.float64)
    old_side = np.where(np.isnan(x), missing_left == 0, x > threshold).astype(np.intp)
    old_error = float(weights[old_side != targets].sum())
    price = split_price * (tree.n_splits - 1) if split_price else 0.0
    if tree.misclassified is not None and _sums_exactly(weights):
        # The tree's own count of the weight its leaves misclassify: the same sum, in another order.
        return tree.misclassified + price < old_error
    arrays = (tree.children_left, tree.children_right, tree.feature, tree.threshold, tree.missing_left)
    new_side = tree.label[route_to_leaves(X, rows, 0, *arrays)]
    return float(weights[new_side != targets].sum()) + price < old_error


def _sums_exactly(weights: np.ndarray) -> bool:
    """Whether every sum of some of ``weights`` is exact in floating point, whatever the order of the
    additions: whole numbers whose total is below 2**53 (unit weights, counts)."""
    return bool(np.all(weights == np.floor(weights))) and float(np.abs(weights).sum()) < 2.0**53
