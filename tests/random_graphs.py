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
