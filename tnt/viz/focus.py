"""Focus and context: the part of a decision graph a drawing shows, given the splits the reader opened.

A graph of a thousand splits drawn whole is a hairball; drawn from the root down to the layers that
fit at a readable size, with every split whose subgraph is not shown drawn as one *summary node*
(the splits below it, its samples, its class mix or value range), it reads like a table of contents.
A :class:`GraphView` is that part: the splits ``expanded`` show their two children, every other
node reached that way is drawn once, a collapsed split as a summary. An edge into a shown node from a
node not shown (a shared node's other parents) is drawn as a short stub naming that parent, never as
a line across the drawing.

Pure numpy on the graph's arrays (the walks of :mod:`tnt.learn.walks`); the drawings
(:func:`tnt.viz.export_dot.to_dot` with ``view=``, :func:`tnt.plot_graph` with ``expand=``) draw
what a view shows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tnt.learn.walks import descendants, distance_ranges, longest_distances

__all__ = [
    "READABLE_WIDTH",
    "GraphView",
    "default_expansion",
    "drawing_extent",
    "expand_all",
    "expand_to",
    "expand_to_depth",
    "find_nodes",
    "graph_view",
    "toggle",
]

#: The frame width (px) at which a default view's labels must stay readable.
READABLE_WIDTH = 1440
#: Most nodes a default view opens with, whatever fits.
MAX_DEFAULT_NODES = 120
#: Most summary nodes a default view tries to open one at a time, after its whole layers.
MAX_FILL_TRIES = 12
#: Most stubs drawn above one node: a node with more hidden parents names the first
#: ``MAX_STUBS - 1`` and folds the others into one "+n more parents" stub.
MAX_STUBS = 3


@dataclass(frozen=True, eq=False)
class GraphView:
    """What a drawing of ``graph`` shows when the splits ``expanded`` are opened.

    Attributes
    ----------
    graph : DecisionGraph
    expanded : frozenset of int
        The opened splits that are shown (their two children are shown too).
    shown : ndarray of bool, shape (graph.node_count,)
        The nodes drawn, each once: the root, and the children of every shown expanded split.
    summary : ndarray of bool, shape (graph.node_count,)
        The shown splits that are not expanded, drawn as summary nodes.
    stubs : dict of int to list of int
        For each shown node with parents not shown, those parents in increasing order: each edge
        from one is drawn as a stub naming it. (An edge from a summary node to a node shown
        through another path is drawn whole: both its ends are in the drawing.)
    """

    graph: object
    expanded: frozenset
    shown: np.ndarray
    summary: np.ndarray
    stubs: dict

    @property
    def size(self) -> int:
        """Number of nodes drawn (summaries included, stubs not)."""
        return int(np.count_nonzero(self.shown))

    def drawn_stubs(self) -> dict:
        """For each node in :attr:`stubs`, the hidden parents its drawing names (each a stub) and how
        many more it folds into one "+n more parents" stub (0: none folded), at most
        :data:`MAX_STUBS` stubs a node.

        Examples
        --------
        >>> from tnt import DecisionGraph
        >>> g = DecisionGraph([1, 2, 3, 4, 5, 6, -1], [6] * 6 + [-1], [0] * 6 + [-2], [0.5] * 6 + [-2],
        ...                   np.ones((7, 2)))
        >>> v = graph_view(g, [0])
        >>> v.stubs, v.drawn_stubs()
        ({6: [2, 3, 4, 5]}, {6: ([2, 3], 2)})
        """
        return {
            child: (parents, 0)
            if len(parents) <= MAX_STUBS
            else (parents[: MAX_STUBS - 1], len(parents) - MAX_STUBS + 1)
            for child, parents in self.stubs.items()
        }

    def splits_below(self, node: int) -> int:
        """Number of splits strictly below ``node`` (what its summary says is hidden)."""
        g = self.graph
        below = descendants(g.children_left, g.children_right, node)
        below[node] = False
        return int(np.count_nonzero(below & ~g.is_leaf))

    def hidden_text(self, node: int) -> str:
        """What summary node ``node`` hides, as its drawings say it: ``+ 12 splits below``, or, for a
        split whose children are leaves, ``+ 2 leaves below`` (one leaf when both edges reach it).

        Examples
        --------
        >>> from tnt import DecisionGraph
        >>> g = DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 1, -2, -2, -2], [0.5, 0.5, -2, -2, -2],
        ...                   np.ones((5, 2)))
        >>> v = graph_view(g)
        >>> v.hidden_text(0), graph_view(g, [0]).hidden_text(1)
        ('+ 1 split below', '+ 2 leaves below')
        """
        splits = self.splits_below(node)
        if splits:
            return f"+ {splits:,} split{'s' if splits > 1 else ''} below"
        g = self.graph
        leaves = len({int(g.children_left[node]), int(g.children_right[node])})
        return f"+ {leaves} lea{'ves' if leaves > 1 else 'f'} below"

    def layers(self) -> np.ndarray:
        """Each shown node's layer in the drawing: its longest distance from the root along the drawn
        edges (those leaving shown splits); what :func:`tnt.viz.dag_layout.dag_layout` lays the view on."""
        g, shown = self.graph, self.shown
        return longest_distances(np.where(shown, g.children_left, -1), np.where(shown, g.children_right, -1))

    def value_range(self, node: int) -> tuple[float, float]:
        """Smallest and largest leaf value below ``node`` (regression graphs' summaries)."""
        g = self.graph
        leaves = descendants(g.children_left, g.children_right, node) & g.is_leaf
        values = g.value[leaves, 0]
        return float(values.min()), float(values.max())


def graph_view(graph, expanded=()) -> GraphView:
    """The part of ``graph`` shown when the splits ``expanded`` are opened (the root is always shown).

    Parameters
    ----------
    graph : DecisionGraph
    expanded : iterable of int, default=()
        Splits to open; leaves and nodes out of range are refused, splits not shown are kept out
        of the view's ``expanded``.

    Returns
    -------
    view : GraphView

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph([1, 3, 4, -1, 7, -1, -1, -1], [2, 7, 5, -1, 6, -1, -1, -1],
    ...                   [0, 1, 1, -2, 0, -2, -2, -2], [0.5, 0.5, 1.5, -2, 0.2, -2, -2, -2], np.ones((8, 2)))
    >>> v = graph_view(g, [0, 1])
    >>> np.flatnonzero(v.shown).tolist(), np.flatnonzero(v.summary).tolist(), v.stubs, v.splits_below(2)
    ([0, 1, 2, 3, 7], [2], {7: [4]}, 1)
    """
    opened = _checked(graph, expanded)
    left = np.where(opened, graph.children_left, -1)  # a collapsed split shows no child
    shown = descendants(left, graph.children_right, 0)
    summary = shown & ~graph.is_leaf & ~opened
    stubs: dict[int, list[int]] = {}
    for parent in np.flatnonzero(~graph.is_leaf & ~shown).tolist():
        for child in {int(graph.children_left[parent]), int(graph.children_right[parent])}:
            if shown[child]:
                stubs.setdefault(child, []).append(parent)
    return GraphView(
        graph=graph,
        expanded=frozenset(np.flatnonzero(shown & opened).tolist()),
        shown=shown,
        summary=summary,
        stubs={child: sorted(parents) for child, parents in sorted(stubs.items())},
    )


def _checked(graph, expanded) -> np.ndarray:
    nodes = np.asarray(sorted({int(n) for n in expanded}), dtype=np.intp)
    if nodes.size and (nodes[0] < 0 or nodes[-1] >= graph.node_count):
        raise ValueError(f"Cannot expand nodes outside 0..{graph.node_count - 1}: {nodes.tolist()}.")
    if nodes.size and graph.is_leaf[nodes].any():
        raise ValueError(f"Node {int(nodes[graph.is_leaf[nodes]][0])} is a leaf: only splits expand.")
    mask = np.zeros(graph.node_count, dtype=bool)
    mask[nodes] = True
    return mask


def expand_to_depth(graph, depth: int) -> frozenset:
    """The splits to open to show every node at most ``depth`` edges from the root (0: the root alone).

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
    ...                   [0.5, 0.5, 1.5, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
    >>> sorted(expand_to_depth(g, 1)), graph_view(g, expand_to_depth(g, 1)).size
    ([0], 3)
    """
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, got {depth}.")
    shortest, longest = distance_ranges(graph.children_left, graph.children_right)
    return frozenset(np.flatnonzero(~graph.is_leaf & (longest >= 0) & (shortest < depth)).tolist())


def expand_all(graph) -> frozenset:
    """Every split the root reaches: the whole graph (its size: ``graph_view(graph, expand_all(graph)).size``)."""
    return frozenset(np.flatnonzero(graph.reachable() & ~graph.is_leaf).tolist())


def expand_to(graph, expanded, nodes) -> frozenset:
    """``expanded`` with the splits opened that bring each of ``nodes`` into view: for a node not
    shown, the splits of one shortest path down to it from a shown node.

    A sample's path, the node picked in the inspector or an edit's changed nodes come into view
    this way; the splits already open stay open.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
    ...                   [0.5, 0.5, 1.5, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
    >>> sorted(expand_to(g, [], [4])), bool(graph_view(g, expand_to(g, [], [4])).shown[4])
    ([0, 1], True)
    """
    opened = set(graph_view(graph, expanded).expanded)
    shortest, longest = distance_ranges(graph.children_left, graph.children_right)
    parents = graph.parent_lists()
    for node in sorted({int(n) for n in nodes}):
        if not 0 <= node < graph.node_count or longest[node] < 0:
            raise ValueError(f"Node {node} is not reached from the root.")
        shown = graph_view(graph, opened).shown
        while not shown[node]:
            above = min(parents[node], key=lambda p: (not shown[p], shortest[p], p))
            opened.add(above)
            node = above
    return frozenset(opened)


def toggle(graph, expanded, node: int) -> frozenset:
    """``expanded`` with split ``node`` closed when it is open and shown, else opened and brought into
    view (:func:`expand_to`); a leaf is brought into view.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
    ...                   [0.5, 0.5, 1.5, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
    >>> sorted(toggle(g, [0], 1)), sorted(toggle(g, [0, 1], 1)), sorted(toggle(g, [], 4))
    ([0, 1], [0], [0, 1])
    """
    expanded = graph_view(graph, expanded).expanded
    if node in expanded:
        return expanded - {node}
    opened = expand_to(graph, expanded, [node])
    return opened if graph.is_leaf[node] else opened | {node}


def find_nodes(graph, query: str, feature_names=None, class_names=None) -> list[int]:
    """The nodes a search box's ``query`` names, in increasing order: a node id (``17`` or ``#17``),
    else the splits testing a feature whose name matches (whole name first, else part of it, case
    ignored), else the leaves predicting a class whose name matches; ``class 7`` looks for the
    class only (for class names that read as node ids or feature names).

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
    ...                   [0.5, 0.5, 1.5, -2, -2], [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
    >>> find_nodes(g, "#3"), find_nodes(g, "WIDTH", ["length", "width"]), find_nodes(g, "b", None, ["a", "b"])
    ([3], [1, 2], [4])
    >>> find_nodes(g, "class 0")
    [3]
    """
    text = query.strip()
    if not text:
        return []
    reached = graph.reachable()
    only_class = re.fullmatch(r"class\s+(.+)", text, flags=re.IGNORECASE)
    if only_class:
        return _leaves_of(graph, only_class.group(1), class_names, reached)
    number = re.fullmatch(r"#?\s*(\d+)", text)
    if number:
        node = int(number.group(1))
        return [node] if node < graph.node_count and reached[node] else []
    splits = reached & ~graph.is_leaf
    features = [str(n) for n in feature_names] if feature_names is not None else None
    found = _matching(text, features if features is not None else [f"x[{i}]" for i in range(graph.feature.max() + 1)])
    if found:
        return np.flatnonzero(splits & np.isin(graph.feature, found)).tolist()
    return _leaves_of(graph, text, class_names, reached)


def _leaves_of(graph, text: str, class_names, reached) -> list[int]:
    if graph.regression:
        return []
    classes = [str(c) for c in class_names] if class_names is not None else [str(k) for k in range(graph.n_classes)]
    found = _matching(text.strip(), classes)
    return np.flatnonzero(reached & graph.is_leaf & np.isin(graph.predicted_class(), found)).tolist()


def _matching(text: str, names: list[str]) -> list[int]:
    wanted = text.casefold()
    whole = [i for i, name in enumerate(names) if name.casefold() == wanted]
    return whole or [i for i, name in enumerate(names) if wanted in name.casefold()]


def default_expansion(
    graph,
    feature_names=None,
    class_names=None,
    width: int = READABLE_WIDTH,
    height: int | None = None,
    show_ids: bool = False,
    keep=(),
) -> frozenset:
    """The view a large graph opens on: the root and the most whole layers whose drawing fits ``width``
    pixels (and, given a ``height``, no taller than that in px) with every label at least 11 px high
    and no two nodes overlapping (:func:`drawing_fits`),
    then, one at a time, the summary nodes with the most training samples opened while the drawing
    still fits (deeper along the busiest branches; at most :data:`MAX_FILL_TRIES` tried), at most
    :data:`MAX_DEFAULT_NODES` nodes; the root alone when even its first layer does not fit.
    ``show_ids``: the drawing writes each node's id (as the app's explorer does). ``keep``: nodes
    whose way down (:func:`expand_to`) the view opens too (a sample's path): the nodes of the view
    with it in the frame's first screen must span no more than ``width`` as well
    (:func:`first_screen_fits`), so that opening it cuts no node there at the frame's sides.
    """
    keep = tuple(int(n) for n in keep)

    def fits(view: GraphView) -> bool:
        if not drawing_fits(view, feature_names, class_names, width, height, show_ids):
            return False
        if not keep:
            return True
        way = graph_view(graph, expand_to(graph, view.expanded, keep))
        return first_screen_fits(way, width, height, feature_names, class_names, show_ids=show_ids)

    best = expand_to_depth(graph, 0)
    depth = 1
    while True:
        candidate = expand_to_depth(graph, depth)
        view = graph_view(graph, candidate)
        if candidate == best or view.size > MAX_DEFAULT_NODES:
            break
        if not fits(view):
            break
        best, depth = candidate, depth + 1
    samples = np.asarray(graph.n_node_samples)
    tried: set[int] = set()
    for _ in range(MAX_FILL_TRIES):
        untried = [n for n in np.flatnonzero(graph_view(graph, best).summary).tolist() if n not in tried]
        if not untried:
            break
        node = min(untried, key=lambda n: (-samples[n], n))  # the busiest summary, then the lowest id
        tried.add(node)
        view = graph_view(graph, best | {node})
        if view.size <= MAX_DEFAULT_NODES and fits(view):
            best = view.expanded
    return best


def drawing_fits(
    view: GraphView,
    feature_names=None,
    class_names=None,
    width: int = READABLE_WIDTH,
    height: int | None = None,
    show_ids: bool = False,
) -> bool:
    """Whether the Graphviz drawing of ``view`` (:func:`tnt.viz.export_dot.to_dot`), scaled to
    ``width`` pixels, keeps its 11 pt labels at least 11 px high and its nodes apart, and, given a
    ``height`` (px), is no taller than that at this scale (:func:`drawing_extent` measures all three)."""
    boxes, drawing_width, drawing_height = drawing_extent(view, feature_names, class_names, show_ids)
    if label_px(drawing_width, width) < 11 or overlapping(boxes):
        return False
    return height is None or drawing_height * 4 / 3 * shown_scale(drawing_width, width) <= height


def first_screen_fits(view: GraphView, width: int, height: int | None, *names, show_ids: bool = False) -> bool:
    """Whether the nodes of ``view``'s drawing in a frame's first screen (its top ``height`` px; all
    of them without a ``height``) span at most ``width`` px across, the drawing shown shrunk to the
    frame's width down to 75 % (11 pt labels 11 px high, as the explorer's frame opens it): a frame
    ``width`` px wide then holds them all, none cut at its sides. ``names``: the feature and class
    names the drawing writes (:func:`drawing_extent`)."""
    boxes, drawing_width, _ = drawing_extent(view, *names, show_ids=show_ids)
    scale = 4 / 3 * max(shown_scale(drawing_width, width), 0.75)  # px a point
    top = max(b[3] for b in boxes)
    seen = [b for b in boxes if height is None or b[3] > top - height / scale]
    return (max(b[2] for b in seen) - min(b[0] for b in seen)) * scale <= width


def shown_scale(drawing_width_pt: float, width: int = READABLE_WIDTH) -> float:
    """The zoom at which a drawing ``drawing_width_pt`` points wide is shown in a frame ``width`` px
    wide: its natural size (1 pt = 4/3 px), shrunk to the frame's width when wider.

    Examples
    --------
    >>> shown_scale(300, 800), shown_scale(1200, 800)
    (1.0, 0.5)
    """
    natural = drawing_width_pt * 4 / 3
    return min(1.0, width / natural) if natural else 1.0


def label_px(drawing_width_pt: float, width: int = READABLE_WIDTH) -> float:
    """Height in px of an 11 pt label when a drawing ``drawing_width_pt`` points wide is shown at its
    natural size (1 pt = 4/3 px), shrunk to ``width`` px when wider (:func:`shown_scale`)."""
    return 11 * 4 / 3 * shown_scale(drawing_width_pt, width)


def drawing_boxes(view: GraphView, feature_names=None, class_names=None):
    """The Graphviz layout of ``view``'s drawing: each node's box ``(x0, y0, x1, y1)`` in points and
    the drawing's width in points."""
    boxes, width, _ = drawing_extent(view, feature_names, class_names)
    return boxes, width


def drawing_extent(view: GraphView, feature_names=None, class_names=None, show_ids: bool = False):
    """The Graphviz layout of ``view``'s drawing (with each node's id, given ``show_ids``): each node's
    box ``(x0, y0, x1, y1)`` in points, and the drawing's width and height in points."""
    import json

    import pygraphviz

    from tnt.viz.export_dot import to_dot

    source = to_dot(view.graph, feature_names=feature_names, class_names=class_names, view=view, show_ids=show_ids)
    laid = pygraphviz.AGraph(string=source)
    laid.layout(prog="dot")
    layout = json.loads(laid.draw(format="json0").decode("utf-8"))
    boxes = []
    for node in layout.get("objects", []):
        if "pos" not in node:
            continue
        x, y = (float(v) for v in node["pos"].split(","))
        half_w, half_h = float(node["width"]) * 36, float(node["height"]) * 36  # inches to points, halved
        boxes.append((x - half_w, y - half_h, x + half_w, y + half_h))
    x0, y0, x1, y1 = (float(v) for v in layout["bb"].split(","))
    return boxes, x1 - x0, y1 - y0


def overlapping(boxes) -> bool:
    """Whether two of ``boxes`` ``(x0, y0, x1, y1)`` overlap (touching edges do not)."""
    if len(boxes) < 2:
        return False
    b = np.asarray(boxes, dtype=np.float64)
    apart_x = (b[:, None, 2] <= b[None, :, 0]) | (b[None, :, 2] <= b[:, None, 0])
    apart_y = (b[:, None, 3] <= b[None, :, 1]) | (b[None, :, 3] <= b[:, None, 1])
    clash = ~(apart_x | apart_y)
    np.fill_diagonal(clash, False)
    return bool(clash.any())
