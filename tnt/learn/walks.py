"""The one home of walks over a graph's structure alone (no samples): which nodes a node reaches and
which reach it, the order in which to visit them, distances from the root, and path counts.

A graph is given as parallel child arrays (``left < 0`` at leaves, ``right`` beside it), the arrays of
a :class:`~tnt.graph.DecisionGraph` (whose methods call these) or of a graph being grown, edited or
reduced. Where a walk needs the nodes numbered topologically (every node's children have larger ids
than it, so that one pass in id order sees each node after all its parents), its docstring says so;
a fitted graph always is, a graph being grown or edited is not, and takes :func:`topological_order`
first. Graphs of 100,000 nodes or chains of 50,000 splits take milliseconds.

Every other module walks a graph through these (``tests/test_walks.py`` looks for copies). The
module imports only numpy and the kernel decorator: it sits below :mod:`tnt.graph` and the rest of
:mod:`tnt.learn`, and lives in this package with every other compiled kernel of tnt.
"""

from __future__ import annotations

import numpy as np

from tnt.learn.compiled import kernel

__all__ = [
    "ancestors",
    "count_paths_by_length",
    "descendants",
    "disjoint_reaches",
    "distance_ranges",
    "exact_paths_by_length",
    "longest_distances",
    "parent_lists",
    "path_counts",
    "paths_below",
    "topological_order",
]


def _starts(nodes) -> np.ndarray:
    return np.atleast_1d(np.asarray(nodes, dtype=np.intp))


def descendants(left, right, nodes) -> np.ndarray:
    """Boolean mask of the nodes reachable from any of ``nodes`` (one id or several), themselves
    included. Any numbering.

    Examples
    --------
    >>> left, right = np.array([1, 3, 3, -1, -1]), np.array([2, 4, 4, -1, -1])
    >>> descendants(left, right, 2).tolist(), descendants(left, right, [3, 4]).tolist()
    ([False, False, True, True, True], [False, False, False, True, True])
    """
    left, right = np.asarray(left, dtype=np.intp), np.asarray(right, dtype=np.intp)
    return _descendants(left, right, _starts(nodes))


@kernel
def _descendants(left, right, starts):
    marked = np.zeros(left.shape[0], dtype=np.bool_)
    stack = np.empty(left.shape[0] + starts.shape[0], dtype=np.intp)
    top = 0
    for node in starts:
        if not marked[node]:
            marked[node] = True
            stack[top] = node
            top += 1
    while top > 0:
        top -= 1
        node = stack[top]
        if left[node] < 0:
            continue
        for child in (left[node], right[node]):
            if not marked[child]:
                marked[child] = True
                stack[top] = child
                top += 1
    return marked


def ancestors(left, right, nodes, order=None) -> np.ndarray:
    """Boolean mask of the nodes from which one of ``nodes`` (one id or several) can be reached,
    themselves included.

    Parameters
    ----------
    left, right : ndarray of int
    nodes : int or array-like of int
    order : ndarray of int, default=None
        The nodes to consider, each after all of its parents (:func:`topological_order`); by
        default every node in id order, for a graph numbered topologically.

    Examples
    --------
    >>> left, right = np.array([1, 3, 3, -1, -1]), np.array([2, 4, 4, -1, -1])
    >>> ancestors(left, right, 3).tolist(), ancestors(left, right, [1, 2]).tolist()
    ([True, True, True, True, False], [True, True, True, False, False])
    """
    left, right = np.asarray(left, dtype=np.intp), np.asarray(right, dtype=np.intp)
    marked = np.zeros(left.shape[0], dtype=np.bool_)
    marked[_starts(nodes)] = True
    order = np.arange(left.shape[0]) if order is None else np.asarray(order, dtype=np.intp)
    _mark_ancestors(left, right, order, marked)
    return marked


@kernel
def _mark_ancestors(left, right, order, marked):
    for i in range(order.shape[0] - 1, -1, -1):
        node = order[i]
        if not marked[node] and left[node] >= 0 and (marked[left[node]] or marked[right[node]]):
            marked[node] = True


def topological_order(left, right, root: int = 0) -> np.ndarray:
    """The nodes reachable from ``root`` in the breadth-first order in which Algorithm 2 visits
    them: each after all of its parents, left before right (Kahn's algorithm, first in first out).
    Any numbering.

    Examples
    --------
    >>> topological_order(np.array([2, -1, 1, -1]), np.array([3, -1, 3, -1])).tolist()
    [0, 2, 1, 3]
    """
    return _topological_order(np.asarray(left, dtype=np.intp), np.asarray(right, dtype=np.intp), int(root))


@kernel
def _topological_order(left, right, root):
    n = left.shape[0]
    indegree = np.full(n, -1, dtype=np.int64)  # -1: not reached
    indegree[root] = 0
    frontier = np.empty(n, dtype=np.int64)
    frontier[0] = root
    top = 1
    while top > 0:
        top -= 1
        node = frontier[top]
        if left[node] < 0:
            continue
        for child in (left[node], right[node]):
            if indegree[child] >= 0:
                indegree[child] += 1
            else:
                indegree[child] = 1
                frontier[top] = child
                top += 1
    order = np.empty(n, dtype=np.int64)
    order[0] = root
    count = 1
    head = 0
    while head < count:
        node = order[head]
        head += 1
        if left[node] < 0:
            continue
        for child in (left[node], right[node]):
            indegree[child] -= 1
            if indegree[child] == 0:
                order[count] = child
                count += 1
    return order[:count]


def parent_lists(left, right) -> list[list[int]]:
    """The parents of every node, in increasing order (a split whose two edges lead to one node
    counted once). Any numbering.

    Examples
    --------
    >>> parent_lists(np.array([1, 3, 3, -1, -1]), np.array([2, 4, 3, -1, -1]))
    [[], [0], [0], [1, 2], [1]]
    """
    result: list[list[int]] = [[] for _ in range(len(left))]
    for parent in np.flatnonzero(np.asarray(left) >= 0).tolist():
        a, b = int(left[parent]), int(right[parent])
        result[a].append(parent)
        if b != a:
            result[b].append(parent)
    return result


def path_counts(left, right) -> list[int]:
    """The number of paths from node 0 into each node, as exact Python integers (a graph's path
    counts can pass the 64-bit range). Numbered topologically.

    Examples
    --------
    >>> path_counts(np.array([1, 3, 3, -1, -1]), np.array([2, 4, 4, -1, -1]))
    [1, 1, 1, 2, 2]
    """
    left, right = np.asarray(left).tolist(), np.asarray(right).tolist()
    counts = [0] * len(left)
    counts[0] = 1
    for node in range(len(left)):
        if left[node] >= 0 and counts[node]:
            counts[left[node]] += counts[node]
            counts[right[node]] += counts[node]
    return counts


def paths_below(left, right) -> list[int]:
    """The number of paths from each node down to a leaf (a leaf: 1), as exact Python integers: the
    leaves of the tree the node's subgraph unfolds to. Numbered topologically.

    Examples
    --------
    >>> paths_below(np.array([1, 3, 3, -1, -1]), np.array([2, 4, 4, -1, -1]))
    [4, 2, 2, 1, 1]
    """
    left, right = np.asarray(left).tolist(), np.asarray(right).tolist()
    below = [1] * len(left)
    for node in range(len(left) - 1, -1, -1):
        if left[node] >= 0:
            below[node] = below[left[node]] + below[right[node]]
    return below


@kernel
def longest_distances(left, right):
    """Longest distance (in edges) from node 0 to each node (0 for nodes node 0 does not reach)."""
    depth = np.zeros(left.shape[0], dtype=np.intp)
    for node in range(left.shape[0]):
        if left[node] >= 0:
            below = depth[node] + 1
            if below > depth[left[node]]:
                depth[left[node]] = below
            if below > depth[right[node]]:
                depth[right[node]] = below
    return depth


@kernel
def distance_ranges(left, right):
    """Shortest and longest distance (in edges) from node 0 to each node; for a node node 0 does not
    reach, shortest is the number of nodes and longest ``-1``."""
    n = left.shape[0]
    shortest = np.full(n, n, dtype=np.intp)
    longest = np.full(n, -1, dtype=np.intp)
    shortest[0] = 0
    longest[0] = 0
    for node in range(n):
        if left[node] < 0 or longest[node] < 0:
            continue
        near = shortest[node] + 1
        far = longest[node] + 1
        for child in (left[node], right[node]):
            if near < shortest[child]:
                shortest[child] = near
            if far > longest[child]:
                longest[child] = far
    return shortest, longest


@kernel
def count_paths_by_length(left, right, shortest, longest, offset, counts, per_length):
    """Root-to-leaf paths by length, in 64-bit integers: ``per_length[k] += `` the paths of ``k`` splits.

    ``counts`` is zero, with ``counts[offset[i] + k]`` the paths of length ``shortest[i] + k`` into
    node ``i`` (the caller allocates it, so that its size shows in the caller's memory accounting).
    Returns False as soon as a count would pass the 64-bit range: the arrays are then incomplete.
    """
    counts[offset[0]] = 1
    for node in range(left.shape[0]):
        if longest[node] < 0:  # node 0 does not reach it
            continue
        here = offset[node]
        width = longest[node] - shortest[node] + 1
        if left[node] < 0:
            for k in range(width):
                total = per_length[shortest[node] + k] + counts[here + k]
                if total < 0:  # wrapped around: both terms are non-negative
                    return False
                per_length[shortest[node] + k] = total
            continue
        for child in (left[node], right[node]):
            start = offset[child] + shortest[node] + 1 - shortest[child]
            for k in range(width):
                total = counts[start + k] + counts[here + k]
                if total < 0:
                    return False
                counts[start + k] = total
    return True


def exact_paths_by_length(left, right, shortest, longest, is_leaf) -> np.ndarray:
    """Root-to-leaf paths by length as Python integers (``per_length[k]``: the paths of ``k``
    splits), for graphs whose path counts pass the 64-bit range of :func:`count_paths_by_length`;
    ``shortest`` and ``longest`` as :func:`distance_ranges` gives them. Numbered topologically."""
    counts = [None] * left.shape[0]  # counts[i][k]: paths of length shortest[i] + k into node i
    reached = shortest <= longest
    for node in np.flatnonzero(reached):
        counts[node] = np.zeros(longest[node] - shortest[node] + 1, dtype=object)
    counts[0][0] = 1
    for node in np.flatnonzero(reached & ~is_leaf):
        here = counts[node]
        for child in (left[node], right[node]):
            start = shortest[node] + 1 - shortest[child]
            counts[child][start : start + here.shape[0]] += here
    per_length = np.zeros(int(longest[reached].max()) + 1, dtype=object)
    for node in np.flatnonzero(reached & is_leaf):
        per_length[shortest[node] : longest[node] + 1] += counts[node]
    return per_length


@kernel
def disjoint_reaches(left, right, nodes):
    """Whether each of ``nodes``, taken in order, reaches (itself included) no node that an
    earlier one taken reaches."""
    n = left.shape[0]
    marked = np.zeros(n, dtype=np.bool_)
    seen = np.zeros(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    visited = np.empty(n, dtype=np.int64)
    taken = np.zeros(nodes.shape[0], dtype=np.bool_)
    for i in range(nodes.shape[0]):
        stamp = i + 1
        stack[0] = nodes[i]
        top = 1
        count = 0
        clash = False
        while top > 0:
            top -= 1
            node = stack[top]
            if seen[node] == stamp:
                continue
            if marked[node]:
                clash = True
                break
            seen[node] = stamp
            visited[count] = node
            count += 1
            if left[node] >= 0:
                stack[top] = left[node]
                stack[top + 1] = right[node]
                top += 2
        if not clash:
            taken[i] = True
            for j in range(count):
                marked[visited[j]] = True
    return taken
