"""Micro trees: the small cost-complexity-pruned CART trees TnT grows inside nodes, with the Gini
impurity (class targets, and the two-class reduced problems of internal nodes) or the squared error
(regression leaves), by one learner (:func:`tnt.learn.tree_builder.build_tree`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from tnt.learn.binning import BinnedData
from tnt.learn.tree_builder import buffer_classes, build_tree, make_buffers, pruned_tree, threaded, with_runs

NO_DEPTH_LIMIT = np.iinfo(np.int64).max


@dataclass(frozen=True)
class TreeArrays:
    """The structure of a fitted micro tree as flat arrays, nodes numbered depth-first from the root
    (id 0): children (-1 at leaves), the feature tested and the threshold (-2 at leaves), and where a
    missing value (NaN) of the feature tested goes, ``missing_left`` (uint8: 1 to the left child,
    0 to the right and at leaves; all 0 when not given). A threshold ``+inf`` with ``missing_left``
    0 tests whether the value is missing."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray = field(default=None, kw_only=True)

    def __post_init__(self):
        if self.missing_left is None:
            object.__setattr__(self, "missing_left", np.zeros(self.children_left.shape[0], dtype=np.uint8))

    @property
    def is_single_leaf(self) -> bool:
        return self.children_left[0] == -1

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])


@dataclass(frozen=True)
class MicroTree(TreeArrays):
    """A fitted micro tree whose ``label`` holds the predicted target (an index into the targets the
    tree was fitted on) at the leaves and -1 at internal nodes."""

    label: np.ndarray

    @cached_property
    def n_splits(self) -> int:
        return int(np.count_nonzero(self.children_left >= 0))

    @property
    def arrays(self) -> tuple:
        """(children_left, children_right, feature, threshold, label)."""
        return self.children_left, self.children_right, self.feature, self.threshold, self.label


@dataclass(frozen=True)
class RegressionTree(TreeArrays):
    """A fitted squared-error micro tree; ``value`` holds the weighted mean target of the training
    samples at every node."""

    value: np.ndarray


def make_workspace(data: BinnedData, n_targets: int, n_threads: int = 1):
    """Scratch memory for fitting micro trees with up to ``n_targets`` targets on ``n_threads``
    threads, reused across fits (one workspace per concurrent fit)."""
    return make_buffers(data.n_bins, max(n_targets, 2), n_threads)


def fit_micro_tree(
    data: BinnedData, feature_order, rows, y, sample_weight, alpha: float, n_targets: int, workspace=None
) -> MicroTree:
    """Fit a Gini CART on the samples ``rows`` and prune it with minimal cost-complexity pruning.

    Parameters
    ----------
    data : BinnedData
        The binned training matrix.
    feature_order : ndarray of int
        The order in which features are tried; the first of several equally good splits wins.
    rows : ndarray of int
        The training samples to fit on.
    y : ndarray of int, aligned with ``rows``
        Targets in ``0..n_targets-1``.
    sample_weight : ndarray of float, aligned with ``rows``
    alpha : float
        scikit-learn's ``ccp_alpha``: a split survives when it lowers the weighted Gini impurity,
        measured as a share of this tree's total weight, by more than ``alpha`` per added leaf.
    n_targets : int
        Number of possible targets.
    workspace : tuple, optional
        From :func:`make_workspace`; made for this fit when omitted.
    """
    y = np.ascontiguousarray(y, dtype=np.int64)
    tree = _fit(data, feature_order, rows, y, sample_weight, n_targets, alpha, NO_DEPTH_LIMIT, workspace, None)
    return MicroTree(*tree[:5], missing_left=tree[6])


def fit_stump(data: BinnedData, feature_order, rows, y, sample_weight, workspace=None, n_targets: int = 2) -> MicroTree:
    """Fit the single best Gini split, as fine-tuning (Algorithm A.1) refits a node (targets 0/1 by
    default) and the naive decision graph splits a leaf (targets ``0..n_targets-1``)."""
    y = np.ascontiguousarray(y, dtype=np.int64)
    tree = _fit(data, feature_order, rows, y, sample_weight, n_targets, 0.0, 1, workspace, None)
    return MicroTree(*tree[:5], missing_left=tree[6])


def fit_regression_tree(data: BinnedData, feature_order, rows, y, sample_weight, alpha: float, workspace=None):
    """Fit a squared-error CART on the samples ``rows`` and prune it with minimal cost-complexity pruning.

    Parameters
    ----------
    data, feature_order, rows, sample_weight, workspace :
        As in :func:`fit_micro_tree`.
    y : ndarray of float, aligned with ``rows``
    alpha : float
        scikit-learn's ``ccp_alpha`` in units of ``y`` squared: a split survives when it lowers the
        weighted squared error, divided by this tree's total weight, by more than ``alpha`` per
        added leaf.

    Returns
    -------
    RegressionTree
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    left, right, feature, threshold, _, mean, missing_left = _fit(
        data, feature_order, rows, y, sample_weight, 2, alpha, NO_DEPTH_LIMIT, workspace, True
    )
    return RegressionTree(left, right, feature, threshold, mean, missing_left=missing_left)


def _fit(data, feature_order, rows, y, sample_weight, n_targets, alpha, max_depth, workspace, squared) -> tuple:
    """:func:`tnt.learn.tree_builder.pruned_tree` of a fit; ``squared`` as in :func:`build_tree`."""
    if workspace is None or buffer_classes(workspace) < n_targets:
        workspace = make_workspace(data, n_targets)
    feature_order = np.ascontiguousarray(feature_order, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    threads = threaded(rows.shape[0], feature_order.shape[0], workspace.left.shape[0])
    left, right, feature, threshold, missing_left, value, total_w = build_tree(
        data.codes,
        feature_order,
        rows,
        y,
        _unit_mean(np.asarray(sample_weight, dtype=np.float64)),
        n_targets,
        data.n_bins,
        data.bin_min,
        data.bin_max,
        data.missing_code,
        float(alpha),
        max_depth,
        workspace,
        threads,
        with_runs(data, threads),
        squared,
    )
    return pruned_tree(left, right, feature, threshold, missing_left, value, total_w, float(alpha), squared)


def _unit_mean(w: np.ndarray) -> np.ndarray:
    """Weights rescaled by a power of two to a mean between 0.7 and 1.4.

    Trees and their pruning depend only on weight ratios; this keeps squared weight totals away
    from underflow (weights of 1e-177) and overflow. A power of two scales every value exactly, so
    no comparison between splits changes.
    """
    mean = np.add.reduce(w) / w.size if w.size else 1.0  # w.mean() without its Python wrapper
    if mean == 1.0:  # no sample_weight: nothing to rescale
        return np.ascontiguousarray(w)
    exponent = int(np.round(np.log2(mean))) if mean > 0 else 0
    return np.ascontiguousarray(w if exponent == 0 else np.ldexp(w, -exponent))
