"""A layered (Sugiyama-style) layout of a decision graph, in numpy.

Each node sits on the layer of its longest distance from the root (``graph.node_depth()``), so
every edge points downwards. Within a layer, nodes are ordered by a few barycenter sweeps: each
node moves to the mean position of its neighbours in the layers already placed, alternately
from the top and from the bottom, which removes most edge crossings. Paths are never enumerated.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SWEPT_NODES", "count_crossings", "edge_list", "layered_layout"]

#: Graphs with more nodes than this keep each layer in id order (no barycenter sweeps), so that
#: laying out 100,000 nodes stays linear.
SWEPT_NODES = 5_000


def edge_list(graph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every branch of the graph as (parent, child, is_left) arrays, left branches first.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.layout import edge_list
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> [a.tolist() for a in edge_list(g)]
    [[0, 0], [1, 2], [True, False]]
    """
    internal = np.flatnonzero(~graph.is_leaf)
    parent = np.concatenate([internal, internal])
    child = np.concatenate([graph.children_left[internal], graph.children_right[internal]])
    is_left = np.arange(parent.size) < internal.size
    return parent, child, is_left


def layered_layout(graph, sweeps: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates of every node: layers top-down, crossings reduced by barycenter sweeps.

    Parameters
    ----------
    graph : DecisionGraph
    sweeps : int, default=4
        Number of down-and-up barycenter sweeps (0 keeps nodes of a layer in id order); none for
        graphs of more than :data:`SWEPT_NODES` nodes.

    Returns
    -------
    x, y : ndarray of float, shape (n_nodes,)
        ``x`` spreads each layer evenly over the width of the widest layer (one unit a node
        there), centred on 0; ``y`` is minus the node's layer, so the root is at the top.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.layout import layered_layout
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> x, y = layered_layout(g)
    >>> x.tolist(), y.tolist()
    ([0.0, -0.5, 0.5], [0.0, -1.0, -1.0])
    """
    layer = graph.node_depth()
    n = graph.node_count
    parent, child, is_left = edge_list(graph)
    n_layers = int(layer.max()) + 1
    layers = _group_by_layer(layer, n_layers)  # node ids of each layer, ascending
    if n > SWEPT_NODES:  # each sweep costs a pass over every layer: too long for huge graphs
        sweeps = 0
    # Positions are fractions of each layer's width, so that layers of different sizes compare.
    pos = np.zeros(n)
    width = np.zeros(n)
    for nodes in layers:
        pos[nodes] = _fractions(nodes.size)
        width[nodes] = nodes.size
    # Seen from a child, a left branch sits a little left of its parent: "yes" stays on the left.
    side = np.where(is_left, -0.25, 0.25) / width[parent]
    into = _group_by_layer(layer[child], len(layers))
    out_of = _group_by_layer(layer[parent], len(layers))
    y = np.where(layer > 0, -layer, 0).astype(np.float64)
    # Barycenter sweeps remove crossings in general, but where ids already follow a good order
    # (TnT numbers nodes breadth-first) they can add some: leaves have no children to follow on
    # the way up. So the ordering with the fewest crossings seen is kept, the initial one included.
    if sweeps == 0:
        return (pos - 0.5) * max(nodes.size for nodes in layers), y
    best_pos, best = pos.copy(), count_crossings(graph, pos, y)
    for _ in range(sweeps):
        for moved, pull, groups, levels in (
            (child, lambda: pos[parent] + side, into, range(1, len(layers))),
            (parent, lambda: pos[child] - side, out_of, range(len(layers) - 2, -1, -1)),
        ):
            for level in levels:
                _reorder(pos, layers[level], moved, pull(), groups[level], n)
            crossings = count_crossings(graph, pos, y)
            if crossings < best:
                best_pos, best = pos.copy(), crossings
    widest = max(nodes.size for nodes in layers)
    return (best_pos - 0.5) * widest, y


def count_crossings(graph, x, y) -> int:
    """Number of crossings between the graph's edges drawn as straight segments.

    Two segments between layers cross at most once, in the gap between two consecutive layers
    where their left-to-right order flips; so crossings are counted gap by gap.

    Examples
    --------
    >>> import numpy as np
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.layout import count_crossings
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 0, 0, -2, -2],
    ...                   [0.5, 0.2, 0.8, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [0, 1]])
    >>> y = np.array([0.0, -1, -1, -2, -2])
    >>> count_crossings(g, np.array([0.0, -0.5, 0.5, -0.5, 0.5]), y)
    1
    """
    parent, child, _ = edge_list(graph)
    top, bottom = -y[parent], -y[child]
    total = 0
    for gap in range(int(bottom.max(initial=0))):
        spans = np.flatnonzero((top <= gap) & (bottom >= gap + 1))
        if spans.size < 2:
            continue
        t = (gap - top[spans]) / (bottom[spans] - top[spans])
        upper = x[parent[spans]] + (x[child[spans]] - x[parent[spans]]) * t
        t = (gap + 1 - top[spans]) / (bottom[spans] - top[spans])
        lower = x[parent[spans]] + (x[child[spans]] - x[parent[spans]]) * t
        # Pairs strictly in opposite order at the two ends of the gap cross inside it.
        order_up = np.sign(upper[:, None] - upper[None, :])
        order_down = np.sign(lower[:, None] - lower[None, :])
        total += int(np.count_nonzero(order_up * order_down < 0)) // 2
    return total


def _fractions(count: int) -> np.ndarray:
    return (np.arange(count, dtype=np.float64) + 0.5) / count


def _group_by_layer(edge_layer: np.ndarray, n_layers: int) -> list[np.ndarray]:
    order = np.argsort(edge_layer, kind="stable")
    bounds = np.searchsorted(edge_layer[order], np.arange(n_layers + 1))
    return [order[bounds[i] : bounds[i + 1]] for i in range(n_layers)]


def _reorder(pos, nodes, moved, neighbour_pos, edges, n) -> None:
    """Sort one layer's ``nodes`` by the mean position of their neighbours across ``edges``.

    ``neighbour_pos[e]`` is where edge ``e``'s far end pulls node ``moved[e]``.
    """
    if nodes.size < 2 or edges.size == 0:
        return
    total = np.bincount(moved[edges], weights=neighbour_pos[edges], minlength=n)[nodes]
    count = np.bincount(moved[edges], minlength=n)[nodes]
    barycenter = np.where(count > 0, total / np.maximum(count, 1), pos[nodes])
    # Ties (and nodes with no neighbour there) keep their current relative order.
    order = np.lexsort((pos[nodes], barycenter))
    pos[nodes[order]] = _fractions(nodes.size)
