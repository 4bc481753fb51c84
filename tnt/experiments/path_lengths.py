"""Root-to-leaf decision depth (the paper's Fig. 3a): over test samples and over structural paths."""

from __future__ import annotations

import numpy as np

__all__ = ["depth_distributions", "sample_depths", "structural_depths"]


def sample_depths(graph, X) -> tuple[np.ndarray, np.ndarray]:
    """Share of the samples of ``X`` whose decision takes each number of splits.

    Returns
    -------
    lengths : ndarray of int
        The depths that occur, ascending.
    shares : ndarray of float
        Fraction of the samples at each depth (sums to 1).

    Examples
    --------
    >>> import numpy as np
    >>> from tnt.experiments.path_lengths import sample_depths
    >>> from tnt.experiments.toy import corners, four_split_graph
    >>> X, y = corners(seed=0)
    >>> lengths, shares = sample_depths(four_split_graph(X, y), X)
    >>> lengths.tolist(), bool(np.isclose(shares.sum(), 1.0))
    ([2, 3, 4], True)
    """
    depth = graph.decision_depth(X)
    lengths, counts = np.unique(depth, return_counts=True)
    return lengths, counts / counts.sum()


def structural_depths(graph) -> tuple[np.ndarray, np.ndarray]:
    """Share of the graph's root-to-leaf paths (each path counted once) of each length.

    Counted exactly by dynamic programming (:meth:`tnt.DecisionGraph.path_length_distribution`),
    so graphs with more paths than can be listed are fine.

    Examples
    --------
    >>> from tnt.experiments.path_lengths import structural_depths
    >>> from tnt.experiments.toy import four_split_graph
    >>> lengths, shares = structural_depths(four_split_graph())
    >>> lengths.tolist(), [round(float(s) * 7) for s in shares]  # 7 paths: 2, 3 and 2 of them
    ([2, 3, 4], [2, 3, 2])
    """
    lengths, counts = graph.path_length_distribution()
    total = sum(counts)
    return np.asarray(lengths), np.array([float(c / total) for c in counts])


def depth_distributions(models: dict, X_test) -> dict:
    """Sample and structural depth distributions of several fitted models, keyed for plotting.

    Parameters
    ----------
    models : dict
        ``{name: fitted model with graph_}``.
    X_test : array-like

    Returns
    -------
    distributions : dict
        ``{"<name> (test samples)": (lengths, shares), "<name> (paths)": (lengths, shares), ...}``.

    Examples
    --------
    >>> from tnt import CARTClassifier
    >>> from tnt.experiments.path_lengths import depth_distributions
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(seed=0)
    >>> d = depth_distributions({"CART": CARTClassifier(max_leaf_nodes=7).fit(X, y)}, X)
    >>> sorted(d)
    ['CART (paths)', 'CART (test samples)']
    """
    out = {}
    for name, model in models.items():
        X = model._validate_X_predict(X_test)
        out[f"{name} (test samples)"] = sample_depths(model.graph_, X)
        out[f"{name} (paths)"] = structural_depths(model.graph_)
    return out
