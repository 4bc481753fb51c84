"""Micro trees: the small cost-complexity-pruned CART trees TnT grows inside nodes, with the Gini
impurity (class targets, and the two-class reduced problems of internal nodes) or the squared error
(regression leaves), by one learner (:func:`tnt.learn.tree_builder.build_tree`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from tnt.learn.binning import BinnedData
from tnt.learn.compiled import is_cached, kernel
from tnt.learn.sorted_runs import MAX_SAMPLES
from tnt.learn.tree_builder import (
    SUBSET_WORDS,
    buffer_classes,
    build_tree,
    make_buffers,
    pruned_tree,
    threaded,
    with_runs,
)

NO_DEPTH_LIMIT = np.iinfo(np.int64).max


@dataclass(frozen=True)
class TreeArrays:
    """The structure of a fitted micro tree as flat arrays, nodes numbered depth-first from the root
    (id 0): children (-1 at leaves), the feature tested and the threshold (-2 at leaves), and where a
    missing value (NaN) of the feature tested goes, ``missing_left`` (uint8: 1 to the left child,
    0 to the right and at leaves; all 0 when not given). A threshold ``+inf`` with ``missing_left``
    0 tests whether the value is missing. ``category_left`` holds, when the tree was fitted with
    categorical features (None otherwise), each node's subset of category codes sent left (uint64
    bitsets, :mod:`tnt.categorical`; zeros at other nodes), whose threshold is NaN."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray = field(default=None, kw_only=True)
    category_left: np.ndarray | None = field(default=None, kw_only=True)

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
    tree was fitted on) at the leaves and -1 at internal nodes; ``misclassified``, when known (None
    otherwise), the weight of its training samples whose leaf's label is not their target."""

    label: np.ndarray
    misclassified: float | None = field(default=None, kw_only=True)

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
    return MicroTree(*tree[:5], missing_left=tree[6], misclassified=tree[7], category_left=tree[8])


def fit_stump(data: BinnedData, feature_order, rows, y, sample_weight, workspace=None, n_targets: int = 2) -> MicroTree:
    """Fit the single best Gini split, as fine-tuning (Algorithm A.1) refits a node (targets 0/1 by
    default) and the naive decision graph splits a leaf (targets ``0..n_targets-1``)."""
    y = np.ascontiguousarray(y, dtype=np.int64)
    tree = _fit(data, feature_order, rows, y, sample_weight, n_targets, 0.0, 1, workspace, None)
    return MicroTree(*tree[:5], missing_left=tree[6], misclassified=tree[7], category_left=tree[8])


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
    left, right, feature, threshold, _, mean, missing_left, _, subsets = _fit(
        data, feature_order, rows, y, sample_weight, 2, alpha, NO_DEPTH_LIMIT, workspace, True
    )
    return RegressionTree(left, right, feature, threshold, mean, missing_left=missing_left, category_left=subsets)


def _fit(data, feature_order, rows, y, sample_weight, n_targets, alpha, max_depth, workspace, squared) -> tuple:
    """:func:`tnt.learn.tree_builder.pruned_tree` of a fit, its misclassified weight in the units of
    ``sample_weight``, then its categorical splits' subsets (None without categorical features);
    ``squared`` as in :func:`build_tree`."""
    if workspace is None or buffer_classes(workspace) < n_targets:
        workspace = make_workspace(data, n_targets)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    _check_sample_count(rows.shape[0])
    threads = threaded(rows.shape[0], len(feature_order), workspace.left.shape[0])
    w = np.asarray(sample_weight, dtype=np.float64)
    exponent = weight_exponent(np.add.reduce(w), w.size)  # w.sum() without its Python wrapper
    w = w if exponent == 0 else np.ldexp(w, -exponent)
    arguments = build_tree_arguments(
        data, feature_order, rows, y, w, n_targets, alpha, max_depth, workspace, threads, squared
    )
    left, right, feature, threshold, missing_left, value, total_w, subsets = build_tree(*arguments)
    *tree, misclassified, subsets = pruned_tree(
        left, right, feature, threshold, missing_left, value, total_w, float(alpha), squared, subsets
    )
    return (*tree, math.ldexp(misclassified, exponent), subsets if data.categorical is not None else None)


def build_tree_arguments(
    data: BinnedData, feature_order, rows, y, w, n_targets, alpha, max_depth, workspace, threads, squared
) -> tuple:
    """The arguments of :func:`tnt.learn.tree_builder.build_tree` for a fit on ``rows`` of ``data``
    (targets ``y`` and weights ``w`` aligned with them), ``threads`` as
    :func:`tnt.learn.tree_builder.threaded` says; their types choose the kernel's compiled copy
    (:mod:`tnt.learn.threaded_copies` asks whether a copy is compiled)."""
    return (
        data.codes,
        np.ascontiguousarray(feature_order, dtype=np.int64),
        np.ascontiguousarray(rows, dtype=np.int64),
        y,
        np.ascontiguousarray(w, dtype=np.float64),
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
        data.categorical,
    )


def _check_sample_count(n: int) -> None:
    """Refuse, with one sentence, a fit on more samples than sorted runs number (``MAX_SAMPLES``)."""
    if n > MAX_SAMPLES:
        raise ValueError(
            f"A tree is fitted on at most {MAX_SAMPLES:,} samples, and this one has {n:,}: fit on a sample of the rows."
        )


def weight_exponent(total: float, n: int) -> int:
    """``e`` such that ``n`` weights summing to ``total``, divided by ``2**e``, have a mean between
    0.7 and 1.4.

    Trees and their pruning depend only on weight ratios; this keeps squared weight totals away
    from underflow (weights of 1e-177) and overflow. A power of two scales every value exactly, so
    no comparison between splits changes.
    """
    mean = total / n if n else 1.0
    if mean == 1.0:  # no sample_weight: nothing to rescale
        return 0
    return int(np.round(np.log2(mean))) if mean > 0 else 0


def fit_trees(
    data: BinnedData, feature_order, rows, y, sample_weight, starts, stops, alphas, totals, workspace, n_targets=2
) -> list:
    """Micro trees fitted one after another by one compiled call: fit ``j`` on the samples
    ``rows[starts[j]:stops[j]]`` (their targets and weights aligned with ``rows``; no two fits'
    ranges overlap), pruned at ``alphas[j]``; ``totals[j]`` is the sum of its weights (``np.add.reduce``'s,
    as a fit sums them). A float ``y`` fits squared-error trees (:func:`fit_regression_tree`), an
    integer one Gini trees on ``n_targets`` classes (:func:`fit_micro_tree`, its misclassified weight
    included).

    The same trees as those functions fit one at a time, for a share of their calls' cost, and the
    whole batch runs without Python's interpreter lock. Fits on one thread each: the workspace's
    first (``workspace`` from :func:`make_workspace`).
    """
    squared = _squared(y)
    starts, stops = np.asarray(starts, dtype=np.int64), np.asarray(stops, dtype=np.int64)
    _check_sample_count(int(np.max(stops - starts, initial=0)))
    exponents = np.array([weight_exponent(total, n) for total, n in zip(totals, (stops - starts).tolist())])
    arrays = _fit_trees(
        *_fit_trees_arguments(data, feature_order, rows, y, sample_weight, starts, stops, alphas, exponents, workspace)
        + (np.int64(n_targets),)
    )
    tree_bounds, left, right, feature, threshold, label, mean, missing_left, subsets, misclassified = arrays
    trees = []
    for j, (a, b) in enumerate(zip(tree_bounds[:-1].tolist(), tree_bounds[1:].tolist())):
        structure = (left[a:b], right[a:b], feature[a:b], threshold[a:b])
        sides = {"missing_left": missing_left[a:b], "category_left": subsets[a:b] if subsets.shape[0] else None}
        if squared:
            trees.append(RegressionTree(*structure, mean[a:b], **sides))
        else:
            error = math.ldexp(misclassified[j], int(exponents[j]))
            trees.append(MicroTree(*structure, label[a:b], misclassified=error, **sides))
    return trees


def _squared(y) -> bool | None:
    """:func:`_fit_trees`' ``squared``: True for float targets (squared-error trees), None for class
    indices (Gini)."""
    return True if np.issubdtype(y.dtype, np.floating) else None


def _fit_trees_arguments(data, feature_order, rows, y, sample_weight, starts, stops, alphas, exponents, workspace):
    """:func:`_fit_trees`' arguments but the number of classes."""
    squared = _squared(y)
    return (
        data.codes,
        np.ascontiguousarray(feature_order, dtype=np.int64),
        np.ascontiguousarray(rows, dtype=np.int64),
        np.ascontiguousarray(y, dtype=np.float64 if squared else np.int64),
        np.ascontiguousarray(sample_weight, dtype=np.float64),
        starts,
        stops,
        np.asarray(alphas, dtype=np.float64),
        np.asarray(exponents, dtype=np.int64),
        data.n_bins,
        data.bin_min,
        data.bin_max,
        data.missing_code,
        workspace,
        with_runs(data, None),
        squared,
        data.categorical,
    )


def _batch_types(data: BinnedData, workspace) -> tuple:
    """numba's types of the arguments with which :func:`fit_trees` of class targets on ``data`` calls
    :func:`_fit_trees`."""
    one = np.zeros(1, dtype=np.int64)
    arguments = _fit_trees_arguments(data, one, one, one, np.ones(1), one, one, np.zeros(1), one, workspace)
    return tuple(_fit_trees.typeof_pyval(a) for a in arguments + (np.int64(2),))


_batches_known: set[tuple] = set()  # argument types of class-target batches compiled (this process or the cache)


def batches_ready(data: BinnedData, workspace) -> bool:
    """Whether :func:`fit_trees` of class targets on ``data`` with ``workspace`` is compiled, in this
    process or in numba's cache. A classification pass fits its micro trees in batches only then:
    compiling the batch kernel costs a first fit on an empty cache about 7 s more than the fit
    kernel alone (measured 2026-12-07), and the warm-up compiles it with the regression trees, after
    the stage a first classification waits for (:mod:`tnt.warmup`)."""
    if not hasattr(_fit_trees, "overloads"):  # NUMBA_DISABLE_JIT: nothing to compile
        return True
    types = _batch_types(data, workspace)
    if types in _batches_known:
        return True
    if types not in _fit_trees.overloads and not is_cached(_fit_trees, types):
        return False
    _batches_known.add(types)
    return True


@kernel
def _fit_trees(
    codes,
    feature_order,
    rows,
    y,
    w,
    starts,
    stops,
    alphas,
    exponents,
    n_bins,
    bin_min,
    bin_max,
    missing_code,
    buffers,
    with_runs,
    squared,
    categorical,
    n_targets,
):
    """:func:`fit_trees`' fits: the pruned trees' arrays (:func:`tnt.learn.tree_builder.pruned_tree`)
    one after another, where each tree starts (the last entry: where the last one ends), and each
    tree's misclassified weight (in its rescaled weights); ``categorical`` as
    :func:`tnt.learn.tree_builder.build_tree` takes it."""
    n_fits = alphas.shape[0]
    tree_bounds = np.zeros(n_fits + 1, dtype=np.int64)
    misclassified = np.zeros(n_fits)
    capacity = 0
    for j in range(n_fits):
        capacity += 2 * (stops[j] - starts[j])  # a tree on m samples has at most 2m - 1 nodes
    left = np.empty(capacity, dtype=np.int64)
    right = np.empty(capacity, dtype=np.int64)
    feature = np.empty(capacity, dtype=np.int64)
    threshold = np.empty(capacity)
    label = np.empty(capacity, dtype=np.int64)
    mean = np.empty(capacity if squared is not None else 0)
    missing_left = np.empty(capacity, dtype=np.uint8)
    subsets = np.zeros((capacity if categorical is not None else 0, SUBSET_WORDS), dtype=np.uint64)
    end = 0
    for j in range(n_fits):
        a, b = starts[j], stops[j]
        fit_w = w[a:b].copy()
        if exponents[j] != 0:
            for i in range(fit_w.shape[0]):
                fit_w[i] = math.ldexp(fit_w[i], -exponents[j])
        grown = build_tree(
            codes,
            feature_order,
            rows[a:b].copy(),
            y[a:b].copy(),
            fit_w,
            n_targets,  # int64, not literal, arguments: the copies of build_tree that fits from Python call
            n_bins,
            bin_min,
            bin_max,
            missing_code,
            alphas[j],
            np.int64(NO_DEPTH_LIMIT),
            buffers,
            None,
            with_runs,
            squared,
            categorical,
        )
        tree = pruned_tree(
            grown[0], grown[1], grown[2], grown[3], grown[4], grown[5], grown[6], alphas[j], squared, grown[7]
        )
        start = end
        end += tree[0].shape[0]
        left[start:end] = tree[0]
        right[start:end] = tree[1]
        feature[start:end] = tree[2]
        threshold[start:end] = tree[3]
        label[start:end] = tree[4]
        if squared is not None:
            mean[start:end] = tree[5]
        missing_left[start:end] = tree[6]
        if categorical is not None:
            subsets[start:end] = tree[8]
        misclassified[j] = tree[7]
        tree_bounds[j + 1] = end
    return tree_bounds, left, right, feature, threshold, label, mean, missing_left, subsets, misclassified
