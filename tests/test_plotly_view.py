"""The interactive view: a fixed number of traces, contract colours, escaped hover text."""

import html
import re

import numpy as np

from tnt import DecisionGraph
from tnt.viz.colors import HIGHLIGHT_COLOR, MIXED_COLOR, class_palette
from tnt.viz.exporter import GraphText
from tnt.viz.plotly_view import figure_height, graph_figure


def trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_nodes_are_coloured_by_the_contract(toy_graph):
    fig = graph_figure(toy_graph, class_names=["setosa", "other"])
    nodes = trace(fig, "nodes")
    a, b = class_palette(2)
    assert list(nodes.marker.color) == [a, a, b, a, MIXED_COLOR, a, b]
    assert [t.name for t in fig.data[4:]] == ["setosa", "other", "mixed (no class over half)"]


def lines(t) -> list[list[tuple]]:
    """The polylines of a line trace (its points between None separators)."""
    found, current = [], []
    for x, y in zip(t.x, t.y):
        if x is None:
            found.append(current)
            current = []
        else:
            current.append((x, y))
    return found


def test_edges_are_single_traces_with_none_separators_routed_layer_by_layer(toy_graph):
    fig = graph_figure(toy_graph)
    nodes = trace(fig, "nodes")
    at = {(round(x, 9), round(y, 9)): i for i, (x, y) in enumerate(zip(nodes.x, nodes.y))}
    drawn = []
    for name, side in (("yes (<=)", toy_graph.children_left), ("no (>)", toy_graph.children_right)):
        found = lines(trace(fig, name))
        assert len(found) == toy_graph.n_splits and list(trace(fig, name).x).count(None) == toy_graph.n_splits
        for points in found:
            parent, child = (at[round(x, 9), round(y, 9)] for x, y in (points[0], points[-1]))
            assert side[parent] == child
            assert [y for _, y in points] == [points[0][1] - k for k in range(len(points))]  # one layer a step
            drawn.append(len(points))
    # The "no" edge 2 -> 6 spans two layers: it passes layer 2 at a point of its own, beside nodes 3 and 4.
    assert max(drawn) == 3


def test_hover_shows_rule_samples_shares_and_parents(toy_graph):
    hover = trace(graph_figure(toy_graph, feature_names=["w", "l"], class_names=["setosa", "other"]), "nodes").hovertext
    assert hover[4] == (
        "<b>#4</b> split: w &lt;= 0.25<br>samples = 4<br>setosa 50%, other 50%<br>parents: #1, #2<br>shared by 2 parents"
    )
    assert hover[0].endswith("<br>root")


def test_hostile_names_are_escaped_in_hover_text(toy_graph):
    fig = graph_figure(toy_graph, feature_names=["<script>alert(1)</script>", "b&c"], class_names=["<i>x</i>", "y"])
    hover = " ".join(trace(fig, "nodes").hovertext)
    assert "<script>" not in hover and "&lt;script&gt;alert(1)&lt;/script&gt;" in hover
    assert "<i>" not in hover and "&lt;i&gt;x&lt;/i&gt;" in hover and "b&amp;c" in hover


def test_highlighted_path(toy_graph):
    fig = graph_figure(toy_graph, highlight_sample=np.array([0.3, 2.0]))  # 0 -> 1 -> 4 -> 6
    assert len(trace(fig, "path").x) == 3 * 3
    outline = list(trace(fig, "nodes").marker.line.color)
    assert [i for i, c in enumerate(outline) if c == HIGHLIGHT_COLOR] == [0, 1, 4, 6]


def test_fifteen_hundred_nodes_stay_few_traces(big_random_graph):  # its speed: benchmarks/limits.py
    fig = graph_figure(big_random_graph)
    assert len(fig.data) <= 4 + big_random_graph.n_classes + 1
    assert len(trace(fig, "nodes").x) == big_random_graph.node_count == 1501
    assert len(fig.to_json()) < 5_000_000


def expected_shares(counts, top):
    """The shares line written out by hand: classes present, largest first, ties by class."""
    shares = counts / counts.sum()
    present = [k for k in sorted(range(len(shares)), key=lambda k: (-shares[k], k)) if shares[k] > 0]
    parts = [f"{k} {100 * shares[k]:.0f}%" for k in present[:top]]
    hidden = len(present) - len(parts)
    return ", ".join(parts) + (f", +{hidden} more" if hidden > 0 else "")


def test_hover_shares_list_the_largest_classes_then_how_many_more(toy_graph):
    # Seven classes with ties and absent ones: the hover lists the five largest, then "+k more".
    value = np.random.default_rng(0).integers(0, 3, size=(toy_graph.node_count, 7)).astype(float)
    value[:, 0] += 1  # no node without samples
    graph = DecisionGraph(
        toy_graph.children_left, toy_graph.children_right, toy_graph.feature, toy_graph.threshold, value
    )
    hover = trace(graph_figure(graph, precision=2), "nodes").hovertext
    assert [h.split("<br>")[2] for h in hover] == [expected_shares(row, 5) for row in value]
    assert any(", +" in h for h in hover)
    text = GraphText(graph, precision=2)
    for top in (None, 0, 1, 7):
        wanted = [expected_shares(row, top) for row in value]
        assert text.all_shares_text(top) == wanted
        assert [text.shares_text(node, top) for node in range(graph.node_count)] == wanted


def chain_graph(n_layers):
    """A graph of ``n_layers`` layers: a chain of splits, each with a leaf on its left."""
    n_splits = n_layers - 1
    n = 2 * n_splits + 1
    left, right = np.full(n, -1), np.full(n, -1)
    for i in range(n_splits):  # split i is node 2i: its leaf 2i+1, the next split 2i+2 (or the last leaf)
        left[2 * i], right[2 * i] = 2 * i + 1, 2 * i + 2
    feature = np.where(left >= 0, 0, -2)
    threshold = np.where(left >= 0, 0.5, -2.0)
    value = np.tile([[1.0, 1.0]], (n, 1))
    return DecisionGraph(left, right, feature, threshold, value)


def test_a_graph_of_many_layers_gets_a_taller_figure_within_bounds():
    # A 1,000-split TnT model has 60-70 layers: no longer squeezed into 800 px (12 px a layer), but
    # 30 px a layer up to 1,400 px; small graphs keep 450 px, and the depth window sets the layers counted.
    heights = {n: graph_figure(chain_graph(n)).layout.height for n in (3, 20, 40, 64, 200)}
    assert heights == {3: 450, 20: 600, 40: 1200, 64: 1400, 200: 1400}
    assert graph_figure(chain_graph(64), layers=(10, 29)).layout.height == 600
    assert graph_figure(chain_graph(64), layers=(0, 5)).layout.height == 450
    assert figure_height(64, layers=(60, 99)) == 450  # a window past the last layer counts the layers there


def test_the_node_figure_is_tall_enough_for_the_legend_of_ten_classes():
    """With ten classes the legend is not cut: its class groups are drawn without the 10 px gap plotly
    puts between legend groups (rows of 19 px then, 29 px before: measured on rendered PNGs, where the
    old 240 px plot showed seven classes), and the plot is tall enough for ten rows and the title."""
    from sklearn.datasets import load_digits

    from tnt import TnTClassifier
    from tnt.inspect.distributions import node_distribution
    from tnt.inspect.reach import routes
    from tnt.viz.inspection import node_figure

    X, y = load_digits(return_X_y=True)
    g = TnTClassifier(C=1e-2, random_state=0).fit(X, y).graph_
    dist = node_distribution(g, routes(g, X), X, y, 0)
    figure = node_figure(dist, None, [str(k) for k in range(10)])
    plot_height = figure.layout.height - figure.layout.margin.t - figure.layout.margin.b
    assert figure.layout.legend.tracegroupgap == 0
    assert plot_height >= 10 * 20 + 30


def brute_view(graph, opened):
    """What a drawing of ``graph`` with the splits ``opened`` shows, walked here one node at a time (not by
    tnt.viz.focus): the nodes shown, the summaries, the edges between shown nodes, and each shown node's
    hidden parents."""
    left, right = graph.children_left.tolist(), graph.children_right.tolist()
    shown, todo = {0}, [0]
    while todo:
        node = todo.pop()
        if left[node] >= 0 and node in opened:
            for child in (left[node], right[node]):
                if child not in shown:
                    shown.add(child)
                    todo.append(child)
    summaries = {n for n in shown if left[n] >= 0 and n not in opened}
    edges = {
        (p, c, side) for p in shown if left[p] >= 0 for side, c in (("yes", left[p]), ("no", right[p])) if c in shown
    }
    hidden = {}
    for p in range(graph.node_count):
        if left[p] >= 0 and p not in shown:
            for c in {left[p], right[p]} & shown:
                hidden.setdefault(c, []).append(p)
    return shown, summaries, edges, hidden


def drawn_parts(fig):
    """From the figure alone: the node ids drawn with their positions, the diamonds, the edges (each
    polyline's ends mapped back to nodes), and the stubs (customdata, and the node each stub's line enters)."""
    nodes = trace(fig, "nodes")
    at = {(round(x, 9), round(y, 9)): int(i) for x, y, i in zip(nodes.x, nodes.y, nodes.customdata)}
    diamonds = {int(i) for i, s in zip(nodes.customdata, nodes.marker.symbol) if s == "diamond"}
    edges = set()
    for name, side in (("yes (<=)", "yes"), ("no (>)", "no")):
        for points in lines(trace(fig, name)):
            (x0, y0), (x1, y1) = points[0], points[-1]
            edges.add((at[round(x0, 9), round(y0, 9)], at[round(x1, 9), round(y1, 9)], side))
    entered = [at[round(p[-1][0], 9), round(p[-1][1], 9)] for p in lines(trace(fig, "stub edges"))]
    return set(at.values()), diamonds, edges, list(trace(fig, "stubs").customdata), entered


def test_a_view_draws_what_it_shows_with_summaries_and_stubs(big_random_graph):
    from tnt.viz import focus

    g = big_random_graph
    rng = np.random.default_rng(3)
    checked_stubs = 0
    for opened in (focus.expand_to_depth(g, 3), focus.expand_to_depth(g, 5), {0}):
        opened = set(opened) | {int(n) for n in rng.choice(np.flatnonzero(~g.is_leaf), 30)}
        view = focus.graph_view(g, opened)
        shown, summaries, edges, hidden = brute_view(g, opened)
        nodes, diamonds, drawn_edges, stub_ids, entered = drawn_parts(graph_figure(g, view=view))
        assert nodes == shown and diamonds == summaries and drawn_edges == edges
        # Each shown node with hidden parents gets a stub for each, or names the first two and folds the
        # others into one "+n more parents" stub (customdata -1).
        expected_ids, expected_entered = [], []
        for child in sorted(hidden):
            parents = sorted(hidden[child])
            named = parents if len(parents) <= 3 else parents[:2] + [-1]
            expected_ids += named
            expected_entered += [child] * len(named)
        assert stub_ids == expected_ids and entered == expected_entered
        checked_stubs += len(stub_ids)
    assert checked_stubs > 20


def test_a_summary_says_what_it_hides_and_shows_its_class_mix_as_a_bar(toy_graph):
    from tnt.viz import focus
    from tnt.viz.plotly_view import _BAR_WIDTH

    # Opened at the root, splits 1 and 2 are summaries, each hiding split 4; opened down to 4, it hides leaves 5, 6.
    labels = dict(zip(*(lambda t: (t.customdata, t.text))(trace(graph_figure(toy_graph, view=focus.graph_view(
        toy_graph, [0]), feature_names=["a", "b"]), "nodes"))))  # fmt: skip
    assert labels == {0: "a &lt;= 0.5", 1: "b &lt;= 1.5<br>+ 1 split below<br>samples = 5",
                      2: "b &lt;= 2.5<br>+ 1 split below<br>samples = 5"}  # fmt: skip
    view = focus.graph_view(toy_graph, [0, 1, 2])
    fig = graph_figure(toy_graph, view=view, feature_names=["a", "b"], class_names=["setosa", "other"])
    nodes = trace(fig, "nodes")
    assert dict(zip(nodes.customdata, nodes.text))[4] == "a &lt;= 0.25<br>+ 2 leaves below<br>samples = 4"
    (x4,) = [x for x, n in zip(nodes.x, nodes.customdata) if n == 4]
    # Node 4 holds 2 of each class: two halves of the bar, setosa on the left.
    (setosa,) = lines(trace(fig, "mix setosa"))
    (other,) = lines(trace(fig, "mix other"))
    assert setosa[0][0] == x4 - _BAR_WIDTH / 2 and setosa[1][0] == other[0][0] == x4
    assert other[1][0] == x4 + _BAR_WIDTH / 2
    regression = graph_figure(toy_regression(), view=focus.graph_view(toy_regression(), [0]))
    assert "values 1 to 3" in dict(zip(*(lambda t: (t.customdata, t.text))(trace(regression, "nodes"))))[1]
    assert not [t for t in regression.data if (t.name or "").startswith("mix ")]


def toy_regression():
    """0 -> (1, 2); 1 -> (3, 4): node 1's leaves hold 1 and 3."""
    return DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 0, -2, -2, -2], [0.5, 0.2, -2, -2, -2],
                         [[2.0], [2.0], [5.0], [1.0], [3.0]], regression=True)  # fmt: skip


FRAME = (597, 686)  # the Graph page's frame at 1,440 px (ui.drawing.EXPLORER_FRAME_PX)


def label_boxes_px(fig, width_px):
    """Each node label inside the axes' ranges, as the figure draws it: its node id, layer, centre x (px
    from the plot's left edge) and its width in px measured in DejaVu Sans (chromium's sans-serif here) at
    the figure's text size: an independent measure of the text, not the module's per-character estimate."""
    from PIL import ImageFont

    nodes = trace(fig, "nodes")
    size = nodes.textfont.size
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", size)
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    scale = (width_px - fig.layout.margin.l - fig.layout.margin.r) / (x1 - x0)
    boxes = []
    for node, x, y, text in zip(nodes.customdata, nodes.x, nodes.y, nodes.text):
        if x0 <= x <= x1 and y0 <= y <= y1:
            lines = [html.unescape(line) for line in text.split("<br>")]
            boxes.append((node, y, (x - x0) * scale, max(font.getlength(line) for line in lines)))
    return size, boxes


def test_a_view_opens_zoomed_on_its_target_with_labels_apart(big_random_graph):
    """The figure of a view opens on its target node (a deep node found), at a zoom where the labels around
    it, measured in px at the frame's width, do not overlap; the whole drawing would not fit the frame so
    readably. A new target moves the ranges to it; ``uirevision`` is the caller's."""
    from tnt.viz import focus

    g = big_random_graph
    reached = g.reachable()
    deep, other = (int(np.flatnonzero(reached & kind)[-1]) for kind in (g.is_leaf, ~g.is_leaf))
    view = focus.graph_view(g, focus.expand_to(g, focus.expand_to_depth(g, 5), [deep, other]))
    names = [f"feature {k}" for k in range(5)]
    whole = graph_figure(g, view=view, feature_names=names)
    checked = 0
    for target in (deep, other, 0):
        fig = graph_figure(g, view=view, feature_names=names, focus_node=target, frame_px=FRAME, uirevision=target)
        nodes = trace(fig, "nodes")
        (tx,), (ty,) = ([v for v, n in zip(vs, nodes.customdata) if n == target] for vs in (nodes.x, nodes.y))
        (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
        assert x0 <= tx <= x1 and y0 <= ty <= y1 and fig.layout.uirevision == target
        assert [a.text for a in fig.layout.annotations if a.name == "target"] == [f"#{target}"]
        assert x1 - x0 < whole.layout.xaxis.range[1] - whole.layout.xaxis.range[0]  # zoomed in
        size, boxes = label_boxes_px(fig, FRAME[0])
        assert size >= 11
        by_layer = {}
        for node, y, centre, width in boxes:
            by_layer.setdefault(y, []).append((centre, width, node))
        for row in by_layer.values():
            row.sort()
            for (c0, w0, _), (c1, w1, _) in zip(row, row[1:]):
                assert c1 - c0 >= (w0 + w1) / 2, (c0, w0, c1, w1)  # side by side labels apart
                checked += 1
        # Layers far enough apart for a summary's three lines and its marker.
        px_per_layer = (fig.layout.height - fig.layout.margin.t - fig.layout.margin.b) / (y1 - y0)
        assert px_per_layer >= 3 * 1.3 * size + 16
    assert checked >= 10
    assert trace(whole, "nodes").textfont.shadow.count("white") == 8  # a halo: edges pass under, not over, labels


def focused_figures(graph, n_targets: int = 12):
    """Figures of one view of ``graph`` (five layers and the way down to a few deep nodes opened) opened on
    each of ``n_targets`` of its nodes spread over the view, in the Graph page's frame; the target is also
    the inspected node in every third, so both arrows are drawn in the others only when they differ."""
    from tnt.viz import focus

    reached = graph.reachable()
    deep = [int(n) for n in np.flatnonzero(reached)[-40::8]]
    view = focus.graph_view(graph, focus.expand_to(graph, focus.expand_to_depth(graph, 5), deep))
    shown = np.flatnonzero(view.shown)
    names = [f"feature {k}" for k in range(5)]
    for target in shown[np.linspace(0, shown.size - 1, n_targets).astype(int)].tolist():
        selected = target if target % 3 == 0 else int(shown[1])
        yield target, graph_figure(graph, view=view, feature_names=names, focus_node=target, frame_px=FRAME,
                                   selected_node=selected)  # fmt: skip


def plot_area_px(fig, width_px):
    """The plot area's width and height in px, and a function from figure coordinates to px in it."""
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    m = fig.layout.margin
    width, height = width_px - m.l - m.r, fig.layout.height - m.t - m.b
    return width, height, lambda x, y: ((x - x0) * width / (x1 - x0), (y1 - y) * height / (y1 - y0))


def test_the_mode_bar_has_the_top_margin_to_itself():
    """plotly draws its mode bar (about 30 px of tool buttons) at the figure's top right: the top margin
    holds it, so that it lies over no label of the top layer in view."""
    from tnt.viz.plotly_view import TOP_PX

    fig = graph_figure(DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[1, 1], [1, 0], [0, 1]]))
    assert fig.layout.margin.t == TOP_PX >= 30


def test_no_node_is_cut_at_the_edges_of_the_window_it_opens_on(big_random_graph):
    """In the window a figure opens on, each node's label (measured in DejaVu Sans, as drawn below its marker)
    is whole or out of it, across; and each layer in view is whole, down: its labels' lines below the
    lowest nodes and its stubs' ``#id`` above the highest end inside the plot area."""
    from PIL import ImageFont

    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 11)
    checked = cut_across = 0
    for target, fig in focused_figures(big_random_graph):
        width, height, to_px = plot_area_px(fig, FRAME[0])
        nodes = trace(fig, "nodes")
        for x, y, text, size in zip(nodes.x, nodes.y, nodes.text, nodes.marker.size):
            lines = [html.unescape(line) for line in text.split("<br>")]
            half = max(font.getlength(line) for line in lines) / 2 + 1
            px, py = to_px(x, y)
            top, bottom = py - size / 2, py + size / 2 + 1.3 * 11 * len(lines)
            if bottom <= 0 or top >= height:
                continue  # a layer out of view
            assert top >= 0 and bottom <= height, (target, text, top, bottom, height)  # a whole layer
            assert px + half <= 0 or px - half >= width or (px - half >= 0 and px + half <= width), (target, text)
            cut_across += px + half > 0 and px - half < 0 or px + half > width and px - half < width
            checked += 1
        stubs = trace(fig, "stubs")
        for x, y in zip(stubs.x, stubs.y):
            px, py = to_px(x, y)
            if 0 <= px <= width and py - 2.5 - 1.3 * 11 < height and py > 0:
                assert py - 2.5 - 1.3 * 11 >= 0, (target, py)  # the #id of a stub of the top layer in view
    assert checked >= 100 and cut_across == 0


def near_segment(points, p, q, within: float) -> np.ndarray:
    """Which ``points`` (n, 2) are within ``within`` px of the segment p-q."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    d = q - p
    t = np.clip(((points - p) @ d) / max(float(d @ d), 1e-12), 0, 1)
    return np.hypot(*(points - (p + t[:, None] * d)).T) <= within


def test_the_arrows_to_the_target_and_the_inspected_node_sit_clear_of_every_edge(big_random_graph):
    """The blue ``#id`` arrow to the target and the black one to the inspected node, as the figure draws them
    (the node's position, the annotation's px offset, its text measured in DejaVu Sans Bold at plotly's 12 px
    with its padding): every edge of the figure, walked in 1 px steps, keeps out of the label's box and
    more than 1 px from the arrow, except where the edge leaves or enters the node pointed at."""
    from PIL import ImageFont

    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 12)
    arrows = 0
    for target, fig in focused_figures(big_random_graph):
        width, height, to_px = plot_area_px(fig, FRAME[0])
        points = []
        for t in fig.data:
            if t.mode != "lines" or t.x is None:
                continue
            xs = [np.nan if v is None else v for v in t.x]
            ys = [np.nan if v is None else v for v in t.y]
            for (xa, ya), (xb, yb) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
                if np.isnan([xa, ya, xb, yb]).any():
                    continue
                (pa, qa), (pb, qb) = to_px(xa, ya), to_px(xb, yb)
                steps = int(np.hypot(pb - pa, qb - qa)) + 2
                points.append(np.column_stack([np.linspace(pa, pb, steps), np.linspace(qa, qb, steps)]))
        points = np.concatenate(points)
        for note in fig.layout.annotations:
            hx, hy = to_px(note.x, note.y)
            if not (0 <= hx <= width and 0 <= hy <= height):
                continue  # the inspected node out of the window (the target never is)
            tx, ty = hx + note.ax, hy + note.ay
            text = re.sub("<[^>]+>", "", note.text)
            w, h = font.getlength(text) + 6, 12 * 1.3 + 4  # plotly's border padding: 1 px and 2 px a side
            away = np.hypot(points[:, 0] - hx, points[:, 1] - hy) > 9  # beyond the node's own marker
            in_box = (np.abs(points[:, 0] - tx) <= w / 2) & (np.abs(points[:, 1] - ty) <= h / 2)
            assert not in_box.any(), (target, note.text, note.ax, note.ay)
            assert not (near_segment(points, (hx, hy), (tx, ty), 1.0) & away).any(), (target, note.text)
            assert 0 <= tx - w / 2 and tx + w / 2 <= width and 0 <= ty - h / 2 and ty + h / 2 <= height
            arrows += 1
    assert arrows >= 12
