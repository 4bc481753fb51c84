"""Random reachable DAG skeletons for the tests that compare a search on random graphs with brute force."""

import numpy as np


def random_dag(rng, n_internal):
    """``(children_left, children_right)`` of a random DAG of ``n_internal`` splits and a random number
    of leaves, numbered topologically, every node reached from the root; None when a draw leaves a
    node without a parent."""
    n_leaves = int(rng.integers(2, n_internal + 2))
    n = n_internal + n_leaves
    left, right = np.full(n, -1), np.full(n, -1)
    has_parent = np.zeros(n, dtype=bool)
    for node in range(n_internal):
        unreached = [c for c in range(max(node + 1, 1), n) if not has_parent[c]]
        first = unreached[0] if unreached else int(rng.integers(node + 1, n))
        second = int(rng.integers(node + 1, n))
        while second == first:
            second = int(rng.integers(node + 1, n))
        left[node], right[node] = first, second
        has_parent[[first, second]] = True
    if not has_parent[1:].all():
        return None
    return left, right


def random_categorical_tests(rng, internal, n_categories, n_thresholds):
    """Random tests for the splits ``internal`` marks: ``(feature, threshold, subsets)``. Features
    ``0..len(n_categories)-1`` are categorical (``n_categories[f]`` categories; a split sends a random
    proper subset left, its threshold NaN), the next one is numeric (a threshold ``k + 0.5`` for a
    random ``k`` below ``n_thresholds``); leaves get -2."""
    n, n_categorical = internal.shape[0], len(n_categories)
    feature = np.where(internal, rng.integers(0, n_categorical + 1, n), -2)
    threshold = np.where(internal & (feature == n_categorical), rng.integers(0, n_thresholds, n) + 0.5, np.nan)
    threshold[~internal] = -2.0
    subsets = [
        sorted(rng.choice(n_categories[f], size=int(rng.integers(1, n_categories[f])), replace=False))
        if inner and f < n_categorical
        else None
        for f, inner in zip(feature.tolist(), internal)
    ]
    return feature, threshold, subsets
