"""The size a held-out part of the training data chooses, read off one CART (``ccp_alpha="auto"``).

A CART (TnT's micro-tree learner, pruned at ``C``) is fitted on 80 % of the training samples, and
the held-out 20 % scores it at every level of minimal cost-complexity pruning at least ``C``
(:func:`tnt.learn.held_out_pruning.pruning_levels`). A level is taken only where its held-out loss
is lower than the tree's at ``C`` by more than :data:`Z_NEEDED` standard errors of the paired
per-sample differences (McNemar's statistic for the 0/1 loss); among those levels, the best (the
most pruned of the best). The graph is then grown at that level and pruned there, as
``ccp_alpha="held_out_regrown"`` does with the level its own graph's pruning path chooses.

Why a CART and why the test: the pruning path of a tree is read exactly from its nodes' totals
(no sample is routed again per level), so the choice costs one tree on 80 % of the rows, where
the graph's own path costs a second growth. A tree's best size is not a graph's: TnT's splits are
worth more than CART's at equal size, and held-out parts of a few hundred samples choose noisily,
so a smaller size than ``C`` gives is taken only when the evidence for it is clear.
"""

from __future__ import annotations

import numpy as np

from tnt.learn.category_columns import routable
from tnt.learn.graph_pruning import _leaf_losses, pruning_statistics
from tnt.learn.held_out_pruning import HELD_OUT_SHARE, pruning_levels
from tnt.learn.micro_tree import fit_micro_tree, fit_regression_tree
from tnt.learn.routing import route_to_leaves
from tnt.learn.selection import held_out_rows

__all__ = ["Z_NEEDED", "cart_pruning_level", "chosen_row", "tree_level_losses"]

#: Standard errors of the paired held-out difference a level must win by to be taken.
Z_NEEDED = 1.0


def tree_level_losses(tree_arrays, fit_X, fit_y, fit_w, held_X, held_y, held_w, levels, n_classes):
    """The per-sample held-out losses of a tree at each of ``levels`` of minimal cost-complexity
    pruning: an array of shape ``(len(levels), n_held)``, weighted (``held_w`` times the 0/1 loss for
    a classifier, ``n_classes`` given, or the squared error for a regressor, ``n_classes`` None).

    ``tree_arrays`` is ``(children_left, children_right, feature, threshold, missing_left)`` of a
    tree numbered depth-first; each node predicts what the ``fit`` samples reaching it say
    (first largest class weight, or weighted mean), as a pruned node's label does.
    """
    left, right, feature, threshold, missing_left = tree_arrays
    fit_leaf = route_to_leaves(fit_X, np.arange(fit_X.shape[0]), 0, left, right, feature, threshold, missing_left)
    held_leaf = route_to_leaves(held_X, np.arange(held_X.shape[0]), 0, left, right, feature, threshold, missing_left)
    # Each node's totals, as weakest-link pruning sums them (every node of a fitted tree holds samples).
    per_sample = pruning_statistics(fit_y, fit_w, n_classes)
    flow = np.zeros((left.shape[0], per_sample.shape[1]))
    np.add.at(flow, fit_leaf, per_sample)
    internal = np.flatnonzero(left >= 0)
    for node in internal[::-1]:  # children after their parent: totals gather bottom-up
        flow[node] = flow[left[node]] + flow[right[node]]
    squared = n_classes is None
    impurity = _leaf_losses(flow, squared) / (flow[0, 1] if squared else flow[0, 1:].sum())
    prediction = flow[:, 2] / flow[:, 1] if squared else np.argmax(flow[:, 1:], axis=1)
    levels = np.asarray(levels, dtype=np.float64)
    # Bottom-up, the cheapest cost R + level * splits of each subtree; a node stays split where its
    # subtree costs less than the node as a leaf (ties collapse: the most pruned of the best).
    n_nodes = left.shape[0]
    cost = np.repeat(impurity[:, None], levels.size, axis=1)
    split = np.zeros((n_nodes, levels.size), dtype=bool)
    for node in internal[::-1]:
        below = cost[left[node]] + cost[right[node]] + levels
        split[node] = below < impurity[node]
        cost[node] = np.where(split[node], below, impurity[node])
    # Top-down, the node whose prediction the samples reaching each node take at each level.
    anchor = np.full((n_nodes, levels.size), -1, dtype=np.int64)
    anchor[0] = np.where(split[0], -1, 0)
    for node in internal:
        for child in (left[node], right[node]):
            own = np.where(split[child], -1, child)
            anchor[child] = np.where(anchor[node] >= 0, anchor[node], own)
    predicted = prediction[anchor[held_leaf].T]
    if n_classes is not None:
        return held_w * (predicted != held_y)
    return held_w * (predicted - held_y) ** 2


def cart_pruning_level(problem, classification: bool, C: float, z_needed: float = Z_NEEDED) -> float:
    """The pruning level (at least ``C``, or 0 for ``C`` itself) that the held-out
    :data:`tnt.learn.held_out_pruning.HELD_OUT_SHARE` of ``problem``'s samples chooses for a CART
    pruned at ``C`` on the rest (see the module's description); 0 when too few samples were given
    to hold any out."""
    parts = held_out_rows(problem, HELD_OUT_SHARE, classification)
    if parts is None:
        return 0.0
    fit_rows, held_rows = parts
    binned, order = problem.binned, problem.feature_order
    y, w = problem.y[fit_rows], problem.w[fit_rows]
    if classification:
        tree = fit_micro_tree(binned, order, fit_rows, y, w, C, problem.n_classes)
    else:
        tree = fit_regression_tree(binned, order, fit_rows, y, w, C)
    if tree.children_left.shape[0] == 1:
        return 0.0
    levels = np.concatenate([[C], [level for level in pruning_levels(fit_rows.size) if level > C]])
    # Subset splits read columns of their own, as in training.
    X, feature, threshold = routable(
        problem.X, problem.category_codes, tree.feature, tree.threshold, tree.category_left
    )
    losses = tree_level_losses(
        (tree.children_left, tree.children_right, feature, threshold, tree.missing_left),
        X[fit_rows],
        y,
        w,
        X[held_rows],
        problem.y[held_rows],
        problem.w[held_rows],
        levels,
        problem.n_classes if classification else None,
    )
    best = chosen_row(losses, z_needed)
    return 0.0 if best == 0 else float(levels[best])


def chosen_row(losses: np.ndarray, z_needed: float = Z_NEEDED) -> int:
    """The row of ``losses`` (levels by held-out samples, row 0 the reference) to take: among row 0
    and the rows whose total loss is lower than row 0's by more than ``z_needed`` times the root of
    the summed squared per-sample differences, the one of lowest total (the last of equals).

    >>> chosen_row(np.array([[1.0, 1, 1, 1], [0, 0, 0, 0], [0, 0, 1, 1]]))
    1
    >>> chosen_row(np.array([[1.0, 0, 0, 0], [0, 1, 0, 0]]))  # as good, not better: the reference
    0
    """
    gain = losses[0] - losses  # per held-out sample, what each row saves against row 0
    total = gain.sum(axis=1)
    sure = total > z_needed * np.sqrt((gain**2).sum(axis=1))
    sure[0] = True
    return int(np.flatnonzero(np.where(sure, total, -np.inf) >= total[sure].max())[-1])
