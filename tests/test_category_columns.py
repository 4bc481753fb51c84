"""The routing of categorical splits through test columns (:mod:`tnt.learn.category_columns`),
against a one-sample walker that reads each subset's bits directly."""

import numpy as np
import pytest

from tnt.learn.category_columns import routable
from tnt.learn.routing import route_to_leaves


def walk(x, left, right, feature, threshold, category_left, missing_left):
    """The leaf one sample reaches: a subset split sends code c left when bit c of its row is set."""
    node = 0
    while left[node] >= 0:
        value = x[feature[node]]
        if np.isnan(value):
            goes_left = missing_left[node]
        elif np.isnan(threshold[node]):
            code = int(value)
            goes_left = bool((int(category_left[node, code // 64]) >> (code % 64)) & 1)
        else:
            goes_left = value <= threshold[node]
        node = left[node] if goes_left else right[node]
    return node


@pytest.mark.parametrize("seed", range(5))
def test_routable_sends_each_row_as_its_subsets_say(seed):
    rng = np.random.default_rng(seed)
    n = 400
    X = np.column_stack([rng.integers(0, 70, n), rng.normal(size=n), rng.integers(0, 5, n)]).astype(np.float32)
    X[rng.random((n, 3)) < 0.1] = np.nan
    # Node 0 splits feature 0 by a subset (codes up to 69: two words), node 1 feature 1 by a
    # threshold, node 2 feature 2 by another subset; nodes 3 to 6 are leaves.
    left = np.array([1, 3, 5, -1, -1, -1, -1])
    right = np.array([2, 4, 6, -1, -1, -1, -1])
    feature = np.array([0, 1, 2, -2, -2, -2, -2])
    threshold = np.array([np.nan, 0.1, np.nan, -2, -2, -2, -2])
    missing_left = np.array([bool(b) for b in rng.integers(0, 2, 7)])
    category_left = np.zeros((7, 2), dtype=np.uint64)
    for node, n_codes in ((0, 70), (2, 5)):
        for code in rng.permutation(n_codes)[: n_codes // 2]:  # some codes go left, some right
            category_left[node, code // 64] |= np.uint64(1) << np.uint64(code % 64)
    matrix, feature_on_columns, threshold_on_columns = routable(X, None, feature, threshold, category_left)
    assert feature_on_columns[:3].tolist() == [3, 1, 4]  # each subset split reads a column of its own
    leaves = route_to_leaves(
        matrix, np.arange(n), 0, left, right, feature_on_columns, threshold_on_columns, missing_left
    )
    expected = [walk(x, left, right, feature, threshold, category_left, missing_left) for x in X]
    np.testing.assert_array_equal(leaves, expected)
    assert len(set(expected)) == 4  # every leaf reached: each kind of split sent rows both ways


def test_routable_without_subsets_gives_its_arguments_back():
    X = np.zeros((3, 2), dtype=np.float32)
    feature, threshold = np.array([0, -2, -2]), np.array([0.5, -2, -2])
    out = routable(X, None, feature, threshold, None)
    assert out[0] is X and out[1] is feature and out[2] is threshold
