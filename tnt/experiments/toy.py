"""The paper's toy problem (Fig. 2): one class in the four corners of the unit square.

A tree needs six splits for it; the graph of Fig. 2(c) needs four, because the two outer bands
share one sub-graph that tests the other feature. :func:`four_split_graph` builds that graph by
hand.
"""

from __future__ import annotations

import numpy as np

from tnt.graph import DecisionGraph

__all__ = ["corners", "four_split_graph"]


def corners(n: int = 2000, width: float = 0.25, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Uniform points in the unit square, class 1 in the four corner squares of side ``width``.

    Parameters
    ----------
    n : int, default=2000
        Number of points.
    width : float, default=0.25
        Side of each corner square.
    seed : int, default=0
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of int, shape (n,)
        1 in a corner, 0 elsewhere.

    Examples
    --------
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(n=1000, seed=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 2), [0, 1])
    >>> bool(0.2 < y.mean() < 0.3)
    True
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, 2))

    def near_edge(v):
        return (v < width) | (v > 1.0 - width)

    return X, (near_edge(X[:, 0]) & near_edge(X[:, 1])).astype(int)


def four_split_graph(X=None, y=None, low: float = 0.25, high: float = 0.75) -> DecisionGraph:
    """The four-split decision graph of the paper's Fig. 2(c), built by hand.

    ``x1 <= low`` and ``x1 > high`` (the outer bands) both lead to one shared test of ``x2``
    (``x2 <= low`` or ``x2 > high``: a corner, class 1); the middle band is class 0.

    Parameters
    ----------
    X, y : array-like, default=None
        Training data; when given, the graph carries their statistics (class counts per node).
    low, high : float
        The thresholds ``t1 = t3`` and ``t2 = t4`` of the figure.

    Returns
    -------
    graph : DecisionGraph
        Four splits, three leaves; node 3 (the shared ``x2`` test) and leaf 6 (class 1) have two parents each.

    Examples
    --------
    >>> from tnt.experiments.toy import corners, four_split_graph
    >>> X, y = corners(seed=0)
    >>> g = four_split_graph(X, y)
    >>> g.n_splits, g.shared_nodes.tolist()
    (4, [3, 6])
    >>> float((g.predict_proba(X).argmax(1) == y).mean())
    1.0
    """
    # 0: x1 <= low -> 3 | 1;  1: x1 <= high -> 2 (middle band) | 3;  3: x2 <= low -> 6 | 4;
    # 4: x2 <= high -> 5 | 6.  Leaves: 2 and 5 class 0, 6 class 1.
    graph = DecisionGraph(
        children_left=[3, 2, -1, 6, 5, -1, -1],
        children_right=[1, 3, -1, 4, 6, -1, -1],
        feature=[0, 0, -2, 1, 1, -2, -2],
        threshold=[low, high, -2, low, high, -2, -2],
        value=[[0, 0], [0, 0], [1, 0], [0, 0], [0, 0], [1, 0], [0, 1]],
    )
    if X is not None:
        graph = graph.with_training_stats(X, y)
    return graph
