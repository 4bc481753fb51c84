"""The categorical learner (issue 52): the micro-tree learner splits a categorical feature into two
subsets of its categories, and TnT with ``N1=1`` is the pure-Python CART of
``tests/categorical_reference.py`` with exact subset splits: the same tree for two classes, for the
squared error, and for more classes with the documented ordering; missing values and categories
never seen in training routed as missing. The estimators read categorical columns by name."""

import dataclasses

import numpy as np
import pytest
from categorical_reference import _best_split, _node_proxy, cart_predict, exact_cart

from tnt.categorical import subset_codes
from tnt.learn.binning import bin_features
from tnt.learn.micro_tree import fit_micro_tree, fit_regression_tree

#: Categories of the columns of :func:`_table` (0: numeric).
N_CATEGORIES = [5, 0, 4]
CATEGORICAL = np.array([True, False, True])


def _table(seed: int, n: int = 60, n_classes=2, missing: float = 0.1):
    """Two categorical columns of codes and a numeric one, a share ``missing`` of values missing;
    classes (``n_classes``) or small whole targets (``n_classes`` None: sums are exact)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 5, n), rng.normal(size=n).round(1), rng.integers(0, 4, n)]).astype(np.float32)
    X[rng.random(X.shape) < missing] = np.nan
    y = rng.integers(0, 7, n).astype(np.float64) if n_classes is None else rng.integers(0, n_classes, n)
    return X, y


def _new_rows(seed: int, n: int = 200):
    """Rows with categories never seen in training (codes 5, 6 and 4 of the third column), missing
    values, and numbers between and beyond the training ones."""
    rng = np.random.default_rng(1000 + seed)
    Z = np.column_stack([rng.integers(0, 7, n), rng.normal(size=n).round(2), rng.integers(0, 6, n)]).astype(np.float64)
    Z[rng.random(Z.shape) < 0.15] = np.nan
    return Z.astype(np.float32).astype(np.float64)  # as the models read numbers: float32


def _walk(tree, Z):
    """The leaf of each row in a fitted micro tree, one sample at a time in Python."""
    leaves = []
    for row in Z:
        i = 0
        while tree.children_left[i] >= 0:
            f, v = tree.feature[i], row[tree.feature[i]]
            if CATEGORICAL[f]:
                unseen = np.isnan(v) or not 0 <= v < N_CATEGORIES[f]
                left = tree.missing_left[i] == 1 if unseen else int(v) in subset_codes(tree.category_left[i])
            else:
                left = tree.missing_left[i] == 1 if np.isnan(v) else v <= tree.threshold[i]
            i = tree.children_left[i] if left else tree.children_right[i]
        leaves.append(i)
    return np.array(leaves)


def _fit(X, y, n_classes, alpha=0.0):
    binned = dataclasses.replace(bin_features(X), categorical=CATEGORICAL.astype(np.uint8))
    rows, w = np.arange(X.shape[0]), np.ones(X.shape[0])
    if n_classes is None:
        return fit_regression_tree(binned, np.arange(3), rows, y, w, alpha)
    return fit_micro_tree(binned, np.arange(3), rows, y, w, alpha, n_classes)


@pytest.mark.parametrize("n_classes", [2, 3, 4, None], ids=["two-classes", "three-classes", "four-classes", "squared"])
@pytest.mark.parametrize("seed", range(6))
# A pruning level no split's improvement equals exactly (with 60 unit weights they are multiples of
# simple fractions of 1/60), so that rounding does not decide between equal costs.
@pytest.mark.parametrize("alpha", [0.0, 0.0107])
def test_the_micro_tree_is_the_reference_cart(n_classes, seed, alpha):
    """The learner's tree equals the pure-Python CART scanning the same ordering, node for node:
    the same splits, subsets, directions of missing values and predictions, on the training rows
    and on rows with missing values and unseen categories."""
    X, y = _table(seed, n_classes=n_classes)
    tree = _fit(X, y, n_classes, alpha)
    reference = exact_cart(X, y, np.ones(len(y)), CATEGORICAL, N_CATEGORIES, n_classes, alpha, search="ordered")
    assert int(np.sum(tree.children_left >= 0)) == sum("left" in node for node in reference)
    # Both number their nodes depth-first, left child first.
    for i, node in enumerate(reference):
        assert (tree.children_left[i] >= 0) == ("left" in node)
        if "left" not in node:
            continue
        assert tree.feature[i] == node["feature"]
        assert bool(tree.missing_left[i]) == node["missing_left"]
        if node["subset"] is None:
            assert tree.threshold[i] == pytest.approx(node["threshold"])
        else:
            assert np.isnan(tree.threshold[i])
            assert set(subset_codes(tree.category_left[i]).tolist()) == set(node["subset"])
    Z = np.vstack([X.astype(np.float64), _new_rows(seed)])
    got = tree.value[_walk(tree, Z)] if n_classes is None else tree.label[_walk(tree, Z)]
    np.testing.assert_allclose(got, cart_predict(reference, Z, N_CATEGORIES))


@pytest.mark.parametrize("n_classes", [2, None], ids=["two-classes", "squared"])
@pytest.mark.parametrize("seed", range(6))
def test_the_ordering_loses_nothing_against_every_subset(n_classes, seed):
    """For two classes and the squared error, at every node of the learner's tree, no subset of
    any categorical feature's categories (searched exhaustively, missing values on either side)
    splits the node's samples better than the split the learner chose (Breiman's ordering is exact)."""
    X, y = _table(seed, n_classes=n_classes)
    tree = _fit(X, y, n_classes)
    leaves_and_paths = {}
    for r, row in enumerate(X.astype(np.float64)):  # the training rows reaching each node
        node = 0
        while True:
            leaves_and_paths.setdefault(node, []).append(r)
            if tree.children_left[node] < 0:
                break
            node = _walk_one(tree, row, node)
    w = np.ones(len(y))
    for node, rows in leaves_and_paths.items():
        if tree.children_left[node] < 0:
            continue
        rows = np.array(rows)
        goes = np.array([_walk_one(tree, X[r].astype(np.float64), node) == tree.children_left[node] for r in rows])
        total = _statistics(y[rows], w[rows], n_classes)
        chosen = _node_proxy(_statistics(y[rows[goes]], w[rows[goes]], n_classes), total, n_classes is None)
        best = _best_split(X[rows], y[rows], w[rows], CATEGORICAL, N_CATEGORIES, n_classes, np.arange(3), "exhaustive")
        assert chosen == pytest.approx(best[0], rel=1e-12)


def _walk_one(tree, row, node):
    """The child of ``node`` that ``row`` goes to in a fitted micro tree."""
    f, v = tree.feature[node], row[tree.feature[node]]
    if np.isnan(v):
        left = tree.missing_left[node] == 1
    elif CATEGORICAL[f]:
        left = int(v) in subset_codes(tree.category_left[node])
    else:
        left = v <= tree.threshold[node]
    return tree.children_left[node] if left else tree.children_right[node]


def _statistics(y, w, n_classes):
    if n_classes is None:
        return np.array([np.sum(w), np.sum(w * y)])
    return np.bincount(y, w, minlength=n_classes).astype(np.float64)
