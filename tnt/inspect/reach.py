"""Which samples reach each node of a decision graph, and through which parent.

In a graph a node can have several parents; a sample reaches it through exactly one of them (the
node just before it on the sample's path), so the samples at a shared node split by parent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnt.graph import DecisionGraph

__all__ = ["Routes", "class_indices", "routes"]


def class_indices(classes, y) -> np.ndarray:
    """The index of each label of ``y`` in ``classes`` (a model's ``classes_``), ``-1`` for a label
    the model does not know (it then counts as an error everywhere).

    Examples
    --------
    >>> class_indices(["a", "b"], ["b", "a", "c"]).tolist()
    [1, 0, -1]
    """
    lookup = {str(c): i for i, c in enumerate(classes)}
    return np.array([lookup.get(str(v), -1) for v in np.asarray(y).tolist()], dtype=np.intp)


@dataclass(frozen=True, eq=False)
class Routes:
    """The paths of a set of samples through a graph.

    Attributes
    ----------
    indptr, nodes : ndarray of int
        Sample ``i`` passes the nodes ``nodes[indptr[i]:indptr[i + 1]]``, root first (node ids grow
        along a path, so they are sorted).
    leaves : ndarray of int, shape (n_samples,)
        The leaf each sample reaches.
    """

    indptr: np.ndarray
    nodes: np.ndarray
    leaves: np.ndarray

    @property
    def n_samples(self) -> int:
        return int(self.indptr.shape[0] - 1)

    def counts(self, node_count: int) -> np.ndarray:
        """Number of samples reaching each node."""
        return np.bincount(self.nodes, minlength=node_count)

    def sums(self, node_count: int, per_sample) -> np.ndarray:
        """The sum of ``per_sample`` over the samples reaching each node."""
        repeated = np.repeat(np.asarray(per_sample, dtype=np.float64), np.diff(self.indptr))
        return np.bincount(self.nodes, weights=repeated, minlength=node_count)

    def reaching(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        """``(samples, parents)``: the samples that reach ``node`` and the parent each came through
        (``-1`` at the root)."""
        at = np.flatnonzero(self.nodes == node)
        samples = np.searchsorted(self.indptr, at, side="right") - 1
        first = at == self.indptr[samples]
        parents = np.where(first, -1, self.nodes[np.maximum(at - 1, 0)])
        return samples, parents

    def path(self, sample: int) -> list[int]:
        """The nodes of one sample's path, root first."""
        return self.nodes[self.indptr[sample] : self.indptr[sample + 1]].tolist()


def routes(graph: DecisionGraph, X) -> Routes:
    """The paths of the samples ``X`` through ``graph``.

    Examples
    --------
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2], [0.5, 0.5, 1.5, -2, -2],
    ...                   [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
    >>> r = routes(g, [[0.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> r.path(1), r.leaves.tolist()
    ([0, 2, 3], [3, 3, 4])
    >>> [a.tolist() for a in r.reaching(3)]
    [[0, 1], [1, 2]]
    """
    indicator = graph.decision_path(np.asarray(X))
    nodes = indicator.indices.astype(np.intp)
    indptr = indicator.indptr.astype(np.intp)
    return Routes(indptr=indptr, nodes=nodes, leaves=nodes[indptr[1:] - 1])
