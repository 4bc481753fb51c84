"""Focus and context (``tnt.viz.focus``): the part of a graph a drawing shows, summary nodes, stubs,
the ways to expand it, search, the default view's readability, and the drawings of a view."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

import tnt
from tnt import DecisionGraph
from tnt.viz import focus
from tnt.viz.export_dot import to_dot


@pytest.fixture(scope="module")
def digits_model():
    X, y = load_digits(return_X_y=True)
    return tnt.TnTClassifier(C=1e-4, random_state=0).fit(X, y), X


def shared_graph() -> DecisionGraph:
    # 0 -> (1, 2), 1 -> (3, 7), 2 -> (4, 5), 4 -> (7, 6): node 7 has parents 1 and 4.
    return DecisionGraph(
        [1, 3, 4, -1, 7, -1, -1, -1],
        [2, 7, 5, -1, 6, -1, -1, -1],
        [0, 1, 1, -2, 0, -2, -2, -2],
        [0.5, 0.5, 1.5, -2, 0.2, -2, -2, -2],
        [[4, 4], [3, 1], [1, 3], [3, 0], [1, 3], [0, 0], [1, 0], [0, 1]],
        n_node_samples=[8, 4, 4, 3, 4, 0, 1, 1],
    )


def test_a_view_shows_the_opened_splits_children_once_and_summarises_the_rest():
    g = shared_graph()
    view = focus.graph_view(g, [0, 1])
    assert np.flatnonzero(view.shown).tolist() == [0, 1, 2, 3, 7]
    assert np.flatnonzero(view.summary).tolist() == [2]
    assert view.stubs == {7: [4]}  # node 7's other parent is hidden: a stub names it
    assert view.splits_below(2) == 1 and view.size == 5
    assert focus.graph_view(g).size == 1  # the root alone
    assert focus.graph_view(g, focus.expand_all(g)).size == g.node_count
    assert focus.graph_view(g, [4]).expanded == frozenset()  # a split not shown opens nothing


def test_expanding_a_leaf_or_a_missing_node_is_refused():
    g = shared_graph()
    with pytest.raises(ValueError, match="Node 3 is a leaf: only splits expand"):
        focus.graph_view(g, [3])
    with pytest.raises(ValueError, match=r"Cannot expand nodes outside 0..7: \[9\]"):
        focus.graph_view(g, [9])
    with pytest.raises(ValueError, match="depth must be 0 or more"):
        focus.expand_to_depth(g, -1)


def test_the_dot_drawing_of_a_view_draws_summaries_and_stubs():
    g = shared_graph()
    source = to_dot(g, view=focus.graph_view(g, [0, 1]), class_names=["a", "b"])
    assert (
        '+ 1 split below</TD></TR><TR><TD COLSPAN="2">samples = 4' in source
        and 'style="rounded,filled,dashed"' in source
    )
    assert 'n4 [label="#4"' in source and "id=stub4" in source and "n4 -> n7" in source
    assert "n5" not in source and "n6" not in source  # below the summary, not drawn
    with pytest.raises(ValueError, match="Give a view, or a depth window and nodes, not both"):
        to_dot(g, view=focus.graph_view(g), depth_window=(0, 1))


def test_a_node_with_many_hidden_parents_names_a_few_and_folds_the_others():
    # A chain of six splits, each sending "no" to leaf 6: opened at the root, leaf 6 has four hidden parents.
    g = DecisionGraph([1, 2, 3, 4, 5, 6, -1], [6] * 6 + [-1], [0] * 6 + [-2], [0.5] * 6 + [-2], np.ones((7, 2)))
    view = focus.graph_view(g, [0])
    assert view.stubs == {6: [2, 3, 4, 5]} and focus.MAX_STUBS == 3
    source = to_dot(g, view=view)
    assert "id=stub2" in source and "id=stub3" in source and "stub4" not in source and "stub5" not in source
    assert 'm6 [label="+2 more parents"' in source and "m6 -> n6" in source
    assert "n2 -> n6" in source and "n4 -> n6" not in source
    three = focus.graph_view(g, [0, 1])  # three hidden parents: each named
    assert "more parents" not in to_dot(g, view=three) and all(
        f"id=stub{p}" in to_dot(g, view=three) for p in (3, 4, 5)
    )


def test_a_regression_summary_gives_the_range_of_its_leaves_values():
    g = DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 1, -2, -2, -2], [0.5, 0.5, -2, -2, -2],
                      [[2.0], [1.5], [3.0], [1.0], [2000.0]], regression=True)  # fmt: skip
    assert "values 1 to 2,000" in to_dot(g, view=focus.graph_view(g, [0]))


def test_depths_sizes_and_expanding_down_to_any_node(digits_model):
    model, X = digits_model
    g = model.graph_
    sizes = [focus.graph_view(g, focus.expand_to_depth(g, k)).size for k in range(6)]
    assert sizes[0] == 1 and sizes[1] == 3 and sizes == sorted(sizes)
    opened = focus.expand_to_depth(g, 2)
    for node in range(0, g.node_count, 7):
        wider = focus.expand_to(g, opened, [node])
        assert opened <= wider and focus.graph_view(g, wider).shown[node]
    path = g.decision_path(X[:1]).indices
    assert focus.graph_view(g, focus.expand_to(g, [], path)).shown[path].all()
    assert focus.graph_view(g, focus.expand_all(g)).size == int(g.reachable().sum())


def test_search_finds_ids_features_and_classes(digits_model):
    model, _ = digits_model
    g = model.graph_
    names = [f"pixel {i}" for i in range(64)]
    assert focus.find_nodes(g, "#12") == [12] and focus.find_nodes(g, " 12 ") == [12]
    assert focus.find_nodes(g, str(g.node_count)) == [] and focus.find_nodes(g, "  ") == []
    tested = focus.find_nodes(g, "PIXEL 21", names)
    assert tested and all(g.feature[n] == 21 for n in tested)
    assert focus.find_nodes(g, "ixel 21", names) == tested  # part of a name when none is whole
    assert all(g.feature[n] == 2 for n in focus.find_nodes(g, "pixel 2", names))  # a whole name first
    assert focus.find_nodes(g, "7", names, [str(c) for c in model.classes_]) == [7]  # an id first
    leaves = focus.find_nodes(g, "Class 7", names, [str(c) for c in model.classes_])
    assert leaves and all(g.is_leaf[n] and g.predicted_class()[n] == 7 for n in leaves)
    assert focus.find_nodes(g, "nothing like it", names, ["a"] * 10) == []


@pytest.mark.parametrize("frame", [(1440, None), (597, 686)])  # 1,440 px; the app explorer's frame
def test_the_default_view_fits_whole_layers_then_the_busiest_summaries(digits_model, frame):
    model, _ = digits_model
    g = model.graph_
    names = [f"pixel {i}" for i in range(64)]
    width, height = frame
    opened = focus.default_expansion(g, names, width=width, height=height)
    view = focus.graph_view(g, opened)
    boxes, drawn_width, drawn_height = focus.drawing_extent(view, names)
    named = {p for first, _ in view.drawn_stubs().values() for p in first}
    folded = sum(1 for _, more in view.drawn_stubs().values() if more)
    assert len(boxes) == view.size + len(named) + folded
    assert focus.label_px(drawn_width, width) >= 11 and not focus.overlapping(boxes)
    if height is not None:
        assert drawn_height * 4 / 3 * min(1.0, width / (drawn_width * 4 / 3)) <= height
    # Whole layers first: the deepest that fits is inside the view, one more layer does not fit.
    depth = max(k for k in range(int(g.node_depth().max()) + 1) if focus.expand_to_depth(g, k) <= opened)
    assert depth >= 1  # the root's first layer fits
    deeper = focus.graph_view(g, focus.expand_to_depth(g, depth + 1))
    assert deeper.size > focus.MAX_DEFAULT_NODES or not focus.drawing_fits(deeper, names, width=width, height=height)
    # Then summaries opened one at a time while the drawing fits (the busiest first): more than whole layers.
    extra = opened - focus.expand_to_depth(g, depth)
    assert extra, "the view opens more than whole layers"
    assert all(not g.is_leaf[n] for n in extra)


def svg_nodes(svg: bytes):
    """Each drawn node's box (x0, y0, x1, y1) and the sizes of its texts, read from Graphviz's SVG, and the
    drawing's width in points."""
    import re
    import xml.etree.ElementTree as ET

    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.fromstring(svg)
    nodes = []
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if g.get("class") != "node":
            continue
        points = []
        for shape in g.findall("s:path", ns) + g.findall("s:polygon", ns):
            numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", shape.get("d") or shape.get("points"))]
            points += list(zip(numbers[::2], numbers[1::2]))
        if not points:  # a stub: text only
            texts = g.findall("s:text", ns)
            points = [(float(t.get("x")), float(t.get("y"))) for t in texts]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        sizes = [float(t.get("font-size")) for t in g.findall("s:text", ns)]
        nodes.append(((min(xs), min(ys), max(xs), max(ys)), sizes, g.get("id")))
    return nodes, float(root.get("width").removesuffix("pt"))


@pytest.fixture(scope="module")
def optdigits_model(optdigits):
    X, y, _, _ = optdigits
    return tnt.TnTClassifier(C=1e-4, random_state=0).fit(X, y)


@pytest.mark.parametrize("which", ["digits", "optdigits"])
def test_at_the_default_view_every_label_is_11_px_and_no_nodes_overlap_in_the_svg(which, request):
    """Read from the SVG the explorer shows (not from the layout the default view was chosen with), in
    the explorer's frame at 1,440 px (ui.drawing.EXPLORER_FRAME_PX, measured by test_browser_explorer)."""
    from tnt.viz.render import render

    model = (
        request.getfixturevalue("digits_model")[0] if which == "digits" else request.getfixturevalue("optdigits_model")
    )
    g = model.graph_
    names = [f"pixel {i}" for i in range(model.n_features_in_)]
    width, height = 597, 686
    view = focus.graph_view(g, focus.default_expansion(g, names, width=width, height=height, show_ids=True))
    assert view.size >= 3  # the root and its first layer at least
    nodes, width_pt = svg_nodes(render(to_dot(g, feature_names=names, show_ids=True, view=view), "svg"))
    shown_px = min(1.0, width / (width_pt * 4 / 3))  # px a pt in the frame, shrunk if wider
    sizes = [size for _, texts, node_id in nodes for size in texts if node_id.startswith("node")]
    assert sizes and min(sizes) * 4 / 3 * shown_px >= 11
    boxes = [box for box, _, _ in nodes]
    assert len(boxes) >= view.size and not focus.overlapping(boxes)
    top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
    assert (bottom - top) * 4 / 3 * shown_px <= height  # every node in the frame's height too


def test_readability_measures():
    assert focus.label_px(1080) == pytest.approx(11 * 4 / 3)  # 1,440 px at natural size: 11 pt is 14.7 px
    assert focus.label_px(1440) == pytest.approx(11)  # 1,920 px shrunk to 1,440
    assert focus.label_px(2880) == pytest.approx(5.5)
    assert focus.overlapping([(0, 0, 10, 10), (5, 5, 20, 20)])
    assert not focus.overlapping([(0, 0, 10, 10), (10, 0, 20, 10), (0, 10, 10, 20)])


def test_plot_graph_draws_what_is_expanded(digits_model, tmp_path):
    model, X = digits_model
    whole = tnt.plot_graph(model).source
    top = tnt.plot_graph(model, expand=1).source
    assert "splits below" not in whole and top.count("splits below") == 2
    with_path = tnt.plot_graph(model, expand="auto", highlight=X[5])
    path = model.graph_.decision_path(X[5:6]).indices
    assert all(f"id=node{n}" in with_path.source for n in path)
    assert "splits below" in tnt.plot_graph(model, expand=[0]).source
    assert tnt.plot_graph(model, expand="all").source.count("id=node") == model.graph_.node_count
    assert with_path.save(tmp_path / "top.png").stat().st_size > 0
    with pytest.raises(ValueError, match='expand must be "auto", "all", a depth or split ids'):
        tnt.plot_graph(model, expand="most")


def test_the_default_view_with_a_samples_path_kept_fits_the_frames_first_screen(digits_model):
    """A sample's path opened on the default view can make its first screen (the top 686 px of the explorer's
    frame, 597 px wide at 11 px labels) wider than the frame: nodes cut at its sides. The default view chosen
    with the path kept fits it, more than the root's first layer. Read from the SVG the explorer shows."""
    from tnt.viz.render import render

    model, X = digits_model
    g = model.graph_
    names = [f"pixel {i}" for i in range(64)]
    width, height = 597, 686

    def first_screen_px(opened) -> float:  # the nodes' span across in the frame's top 686 px at 75 %
        nodes, _ = svg_nodes(
            render(to_dot(g, feature_names=names, show_ids=True, view=focus.graph_view(g, opened)), "svg")
        )
        top = min(b[1] for b, _, _ in nodes)  # SVG: y grows down
        seen = [b for b, _, _ in nodes if b[1] < top + height / (4 / 3 * 0.75)]
        return (max(b[2] for b in seen) - min(b[0] for b in seen)) * 4 / 3 * 0.75

    default = focus.default_expansion(g, names, width=width, height=height, show_ids=True)
    paths = dict.fromkeys(tuple(g.decision_path(x.reshape(1, -1)).indices.tolist()) for x in X[:60])
    wider = [p for p in paths if first_screen_px(focus.expand_to(g, default, p)) > width]
    assert len(wider) >= 2  # the path widens the default view's first screen beyond the frame
    for path in wider[:3]:
        kept = focus.default_expansion(g, names, width=width, height=height, show_ids=True, keep=path)
        assert first_screen_px(focus.expand_to(g, kept, path)) <= width, path
        assert focus.expand_to_depth(g, 1) <= kept  # more than the root
