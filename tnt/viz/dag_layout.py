"""A layered layout made for DAGs (Sugiyama's framework), in numpy: layers, dummy nodes for long
edges, crossing reduction, and coordinates that never let two boxes overlap.

1. Each node sits on the layer of its longest distance from the root among the nodes laid out
   (:func:`tnt.learn.walks.longest_distances`, as ``graph.node_depth()``), or on the layers the
   caller gives, so every edge points down.
2. An edge spanning several layers is cut at each layer it passes by a *dummy node*: the edge is
   drawn through them, in the gaps between the boxes of those layers, never over a box.
3. Within each layer, nodes and dummies are ordered by barycenter sweeps (each moves to the mean
   position of its neighbours in the layer just placed, down then up); the order with the fewest
   crossings seen is kept, the first one included (each layer by the mean position of its parents,
   top down, which draws a tree without crossings); sweeping stops once a sweep down and up removes
   none. Crossings are counted exactly, gap by gap, as inversions (``O(e log^2 e)``), never pair by
   pair.
4. Coordinates: each layer keeps its order, and its boxes at least ``gap`` apart; within that, each
   box is pulled to the mean x of its neighbours, alternately above and below. The closest
   placement to those pulls under the order and spacing constraints is an isotonic regression,
   solved exactly by scikit-learn's pool-adjacent-violators.

:mod:`tnt.viz.layout` keeps the older, faster layout (no dummies, layers spread evenly) for graphs of
100,000 nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnt.learn.walks import longest_distances
from tnt.viz.layout import edge_list

__all__ = ["DagLayout", "dag_layout", "inversions", "laid_edges", "layered_edges_layout", "polyline_crossings"]

#: Width of the channel a long edge takes where it passes a layer.
DUMMY_WIDTH = 6.0


@dataclass(frozen=True, eq=False)
class DagLayout:
    """Where each node of a layered drawing sits, and the route of each edge.

    Attributes
    ----------
    x : ndarray of float, shape (n_nodes,)
        Centre of each node's box (NaN for a node not laid out); the drawing spans ``0..width``.
    layer : ndarray of int, shape (n_nodes,)
        Each node's layer (0 at the top; -1 for a node not laid out).
    parent, child : ndarray of int, shape (n_edges,)
        The edges laid out.
    route_start : ndarray of int, shape (n_edges + 1,)
        Edge ``e`` passes the layers between its ends at x ``route_x[route_start[e]:route_start[e + 1]]``
        (one dummy a layer, from top to bottom; none for an edge between consecutive layers).
    route_x : ndarray of float
    widths : ndarray of float, shape (n_nodes,)
        Each node's box width, as given.
    width : float
        Width of the drawing: from the leftmost box's left side to the rightmost's right side.
    crossings : int
        Edge crossings of the drawing (edges drawn through their dummies).
    """

    x: np.ndarray
    layer: np.ndarray
    parent: np.ndarray
    child: np.ndarray
    route_start: np.ndarray
    route_x: np.ndarray
    widths: np.ndarray
    width: float
    crossings: int

    def route(self, edge: int) -> list[tuple[float, int]]:
        """The points ``(x, layer)`` edge ``edge`` passes, from its parent to its child."""
        middle = self.route_x[self.route_start[edge] : self.route_start[edge + 1]]
        top, bottom = int(self.layer[self.parent[edge]]), int(self.layer[self.child[edge]])
        inner = [(float(x), top + 1 + i) for i, x in enumerate(middle)]
        return [(float(self.x[self.parent[edge]]), top), *inner, (float(self.x[self.child[edge]]), bottom)]


def dag_layout(graph, widths=None, gap: float = 12.0, sweeps: int = 6, nodes=None, layers=None) -> DagLayout:
    """Lay out a decision graph's nodes reached from the root (or ``nodes``) in layers, without overlaps.

    Parameters
    ----------
    graph : DecisionGraph
    widths : array-like of float, shape (graph.node_count,), default=None
        Width of each node's box (default: 100 each); the unit of every x.
    gap : float, default=12
        Least space between two boxes (or a box and a passing edge) of a layer.
    sweeps : int, default=6
        Most down-and-up barycenter sweeps (0 keeps the first order: each layer by its parents'
        mean position, top down).
    nodes : array-like of bool, shape (graph.node_count,), default=None
        The nodes to lay out, with the edges between them (default: those the root reaches).
    layers : array-like of int, shape (graph.node_count,), default=None
        The layer of each node (a caller that has ``graph.node_depth()`` passes it); every edge
        between two laid nodes must go down. Default: each laid node's longest distance from the root
        along edges between laid nodes (``graph.node_depth()`` when every node is laid).

    Returns
    -------
    layout : DagLayout
        Its edges are :func:`laid_edges`, in that order.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph([1, 3, 4, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2], [0.5, 0.5, 0.5, -2, -2],
    ...                   np.ones((5, 2)))
    >>> layout = dag_layout(g, widths=[40] * 5, gap=10)
    >>> layout.layer.tolist(), layout.crossings, round(layout.width, 6)
    ([0, 1, 1, 2, 2], 0, 90.0)
    """
    n = graph.node_count
    laid = graph.reachable() if nodes is None else np.asarray(nodes, dtype=bool)
    parent, child, is_left = laid_edges(graph, laid)
    if layers is None:  # the longest distance along edges leaving laid nodes only
        layers = longest_distances(np.where(laid, graph.children_left, -1), np.where(laid, graph.children_right, -1))
    layers = np.asarray(layers, dtype=np.intp)
    if np.any(layers[child] <= layers[parent]):
        raise ValueError("layers must put every laid node below each of its laid parents.")
    # "yes" (left) before "no": a split's yes child starts to the left of its no child.
    side = np.where(is_left, -0.25, 0.25)
    sizes = np.full(n, 100.0) if widths is None else np.asarray(widths, dtype=np.float64)
    return layered_edges_layout(n, parent, child, laid, sizes, layers, side=side, gap=gap, sweeps=sweeps)


def laid_edges(graph, laid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges between the nodes ``laid`` (boolean mask) as (parent, child, is_left) arrays, in
    :func:`tnt.viz.layout.edge_list`'s order (left branches first): the edges :func:`dag_layout` draws.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], np.ones((3, 2)))
    >>> [a.tolist() for a in laid_edges(g, np.array([True, False, True]))]
    [[0], [2], [False]]
    """
    laid = np.asarray(laid, dtype=bool)
    parent, child, is_left = edge_list(graph)
    keep = laid[parent] & laid[child]
    return parent[keep], child[keep], is_left[keep]


def layered_edges_layout(
    n_nodes: int, parent, child, laid, widths, layer, *, side=None, gap: float = 12.0, sweeps: int = 6
) -> DagLayout:
    """:func:`dag_layout` of any DAG given by its edges (``parent[e] -> child[e]``) among the nodes
    ``laid``, each node on the layer ``layer[node]`` (every edge going down: ``layer[child] > layer[parent]``).

    ``side[e]`` (default 0) nudges edge ``e``'s child left (negative) or right of its parent's
    position while ordering, in units of the layer's width.
    """
    parent, child = np.asarray(parent, dtype=np.intp), np.asarray(child, dtype=np.intp)
    laid = np.asarray(laid, dtype=bool)
    side = np.zeros(parent.size) if side is None else np.asarray(side, dtype=np.float64)
    layer = np.where(laid, np.asarray(layer, dtype=np.intp), 0)
    # Vertices: the laid nodes, then one dummy per layer a long edge passes.
    span = layer[child] - layer[parent]
    n_dummies = int(np.sum(span - 1))
    vertex_layer = np.concatenate([layer, np.zeros(n_dummies, dtype=np.intp)])
    vertex_width = np.concatenate([np.where(laid, widths, 0.0), np.full(n_dummies, DUMMY_WIDTH)])
    route_start = np.zeros(parent.size + 1, dtype=np.intp)
    np.cumsum(span - 1, out=route_start[1:])
    edge_of_dummy = np.repeat(np.arange(parent.size), span - 1)
    step = np.arange(n_dummies) - route_start[edge_of_dummy] + 1  # 1 for the dummy just below the parent
    dummy = n_nodes + np.arange(n_dummies)
    vertex_layer[dummy] = layer[parent[edge_of_dummy]] + step
    # Segments between consecutive layers: each edge is its chain of dummies.
    chain_top = np.concatenate([parent, dummy])  # one segment from each edge's top, then from each dummy
    first = route_start[:-1]
    has_dummy = span > 1
    top_next = np.where(has_dummy, n_nodes + first, child)
    last_of_edge = np.zeros(n_dummies, dtype=bool)
    last_of_edge[route_start[1:][has_dummy] - 1] = True
    dummy_next = np.where(last_of_edge, child[edge_of_dummy], dummy + 1)
    seg_top, seg_bottom = chain_top, np.concatenate([top_next, dummy_next])
    seg_side = np.concatenate([side, side[edge_of_dummy]])
    vertices = np.flatnonzero(np.concatenate([laid, np.ones(n_dummies, dtype=bool)]))
    n_layers = int(vertex_layer[vertices].max()) + 1 if vertices.size else 0
    layers = _group(vertex_layer, vertices, n_layers)

    order = _ordered(layers, vertex_layer, seg_top, seg_bottom, seg_side, sweeps, n_nodes + n_dummies)
    x = _coordinates(layers, order, vertex_width, seg_top, seg_bottom, gap, n_nodes)
    left = np.min(x[vertices] - vertex_width[vertices] / 2) if vertices.size else 0.0
    x = x - left
    right = np.max(x[vertices] + vertex_width[vertices] / 2) if vertices.size else 0.0
    node_x = np.where(laid, x[:n_nodes], np.nan)
    return DagLayout(
        x=node_x,
        layer=np.where(laid, layer, -1),
        parent=parent,
        child=child,
        route_start=route_start,
        route_x=x[n_nodes:],
        widths=np.asarray(widths, dtype=np.float64),
        width=float(right),
        crossings=_segment_crossings(order, vertex_layer, seg_top, seg_bottom),
    )


def _group(vertex_layer, vertices, n_layers) -> list[np.ndarray]:
    order = vertices[np.argsort(vertex_layer[vertices], kind="stable")]
    bounds = np.searchsorted(vertex_layer[order], np.arange(n_layers + 1))
    return [order[bounds[i] : bounds[i + 1]] for i in range(n_layers)]


def _ordered(layers, vertex_layer, seg_top, seg_bottom, seg_side, sweeps: int, n_vertices: int) -> np.ndarray:
    """Each vertex's rank in its layer, after barycenter sweeps (the best order seen)."""
    pos = np.zeros(n_vertices)
    rank = np.zeros(n_vertices, dtype=np.intp)
    # The segments arriving at each layer from above, and leaving it downwards.
    from_above = _group(vertex_layer[seg_bottom], np.arange(seg_bottom.size), len(layers))
    to_below = _group(vertex_layer[seg_top], np.arange(seg_top.size), len(layers))
    # The first order: each layer by the barycenter of its parents in the layer above (a tree gets
    # no crossing); ties in id order.
    for level, vertices in enumerate(layers):
        segs = from_above[level]
        local = np.searchsorted(vertices, seg_bottom[segs])  # a layer's vertices are in increasing id order
        _reorder(pos, vertices, local, pos[seg_top[segs]] + seg_side[segs] / max(vertices.size, 1))
    rank = _ranks(layers, pos, rank)
    best_rank, best = rank.copy(), _segment_crossings(rank, vertex_layer, seg_top, seg_bottom)
    local = np.zeros(n_vertices, dtype=np.intp)  # each vertex's index among its layer's, in id order
    for vertices in layers:
        local[vertices] = np.arange(vertices.size)
    for _ in range(sweeps):
        if best == 0:
            break
        before = best
        for moved, far, sign, groups, levels in (
            (seg_bottom, seg_top, 1.0, from_above, range(1, len(layers))),
            (seg_top, seg_bottom, -1.0, to_below, range(len(layers) - 2, -1, -1)),
        ):
            for level in levels:
                segs = groups[level]
                pull = pos[far[segs]] + sign * seg_side[segs] / max(layers[level].size, 1)
                _reorder(pos, layers[level], local[moved[segs]], pull)
            rank = _ranks(layers, pos, rank)
            crossings = _segment_crossings(rank, vertex_layer, seg_top, seg_bottom)
            if crossings < best:
                best_rank, best = rank.copy(), crossings
        if best == before:  # a sweep down and up that removed no crossing: the next would not either
            break
    return best_rank


def _ranks(layers, pos, rank) -> np.ndarray:
    rank = rank.copy()
    for vertices in layers:
        rank[vertices[np.argsort(pos[vertices], kind="stable")]] = np.arange(vertices.size)
    return rank


def _fractions(count: int) -> np.ndarray:
    return (np.arange(count, dtype=np.float64) + 0.5) / max(count, 1)


def _reorder(pos, vertices, local, pull) -> None:
    """Sort one layer's ``vertices`` by the mean ``pull`` of the segments ending at them (``local``:
    the index of each segment's end among ``vertices``)."""
    if vertices.size == 0:
        return
    total = np.bincount(local, weights=pull, minlength=vertices.size)
    count = np.bincount(local, minlength=vertices.size)
    barycenter = np.where(count > 0, total / np.maximum(count, 1), pos[vertices])
    order = np.lexsort((pos[vertices], barycenter))  # ties keep their current order
    pos[vertices[order]] = _fractions(vertices.size)


def _coordinates(layers, rank, vertex_width, seg_top, seg_bottom, gap: float, n_nodes: int) -> np.ndarray:
    """x of every vertex: each layer packed in its order, then pulled towards its neighbours."""
    from sklearn.isotonic import isotonic_regression

    n_vertices = vertex_width.size
    x = np.zeros(n_vertices)
    ordered = [vertices[np.argsort(rank[vertices])] for vertices in layers]
    least = []  # each layer's least offsets between consecutive boxes' centres
    for vertices in ordered:
        w = vertex_width[vertices]
        steps = (w[:-1] + w[1:]) / 2 + gap
        offsets = np.concatenate([[0.0], np.cumsum(steps)])
        least.append(offsets)
        x[vertices] = offsets - offsets[-1] / 2 if offsets.size else offsets
    # Dummies weigh more: a long edge pulled straight reads better than a box centred under it.
    weight = np.where(np.arange(n_vertices) >= n_nodes, 2.0, 1.0)
    # x_i = offsets_i + z_i with z non-decreasing within a layer keeps its order and spacing. Every
    # layer is solved in one isotonic regression: each layer's values are lifted far above the
    # previous layer's, so no block pools across layers.
    every = np.concatenate(ordered)
    offsets = np.concatenate(least)
    level = np.repeat(np.arange(len(ordered)), [v.size for v in ordered])
    for direction in ("down", "up", "down", "up", "down"):
        moved, far = (seg_bottom, seg_top) if direction == "down" else (seg_top, seg_bottom)
        total = np.bincount(moved, weights=x[far], minlength=n_vertices)
        count = np.bincount(moved, minlength=n_vertices)
        wanted = np.where(count > 0, total / np.maximum(count, 1), x)
        free = wanted[every] - offsets
        lift = level * (2 * np.ptp(free) + 1)
        z = isotonic_regression(free + lift, sample_weight=weight[every]) - lift
        x[every] = offsets + z
    return x


def _segment_crossings(rank, vertex_layer, seg_top, seg_bottom) -> int:
    """:func:`polyline_crossings` of the segments drawn between the ranks of their ends."""
    gaps, top, bottom = vertex_layer[seg_top], rank[seg_top], rank[seg_bottom]
    order = np.lexsort((bottom, top, gaps))
    return inversions(gaps[order].astype(np.int64) * (int(rank.max(initial=0)) + 1) + bottom[order])


def polyline_crossings(gap, top_x, bottom_x) -> int:
    """Crossings of segments drawn across the gaps between layers: segment ``s`` goes from
    ``top_x[s]`` on the upper side of gap ``gap[s]`` to ``bottom_x[s]`` on its lower side.

    Two segments of one gap cross when their order flips strictly from one side to the other;
    segments sharing an end (equal x) do not cross there.

    Examples
    --------
    >>> polyline_crossings([0, 0, 0, 1], [0.0, 1.0, 2.0, 0.0], [2.0, 1.0, 0.0, 5.0])
    3
    """
    gap, top_x, bottom_x = (np.asarray(a) for a in (gap, top_x, bottom_x))
    if gap.size < 2:
        return 0
    order = np.lexsort((bottom_x, top_x, gap))
    # One count over every gap: a later gap's values all exceed an earlier one's, so no pair of
    # segments of different gaps is inverted.
    bottom_rank = np.unique(bottom_x[order], return_inverse=True)[1].ravel()
    return inversions(gap[order].astype(np.int64) * (bottom_x.size + 1) + bottom_rank)


def inversions(values) -> int:
    """Number of pairs ``i < j`` with ``values[i] > values[j]`` (equal values are not inverted),
    by a bottom-up merge sort whose passes are numpy operations.

    Examples
    --------
    >>> inversions([3, 1, 2, 2]), inversions([1, 2, 2, 3]), inversions([])
    (3, 0, 0)
    """
    values = np.asarray(values)
    n = values.size
    if n < 2:
        return 0
    if values.dtype.kind in "iu" and values.min() >= 0:  # already ranks, or as good
        ranks = values.astype(np.int64)
    else:
        ranks = np.unique(values, return_inverse=True)[1].astype(np.int64).ravel()
    span = int(ranks.max()) + 1
    total = 0
    width = 1
    index = np.arange(n)
    while width < n:
        pair = index // (2 * width)
        in_right = (index // width) % 2 == 1
        keys = pair * span + ranks  # ranks are sorted within each block of ``width``
        left_keys = keys[~in_right]
        right = np.flatnonzero(in_right)
        # Left elements of the same pair greater than each right element.
        block_end = np.searchsorted(left_keys, pair[right] * span + span, side="left")
        not_greater = np.searchsorted(left_keys, keys[right], side="right")
        total += int(np.sum(block_end - not_greater))
        ranks = np.sort(keys) - pair * span  # merge each pair of blocks
        width *= 2
    return total
