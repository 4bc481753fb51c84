"""The Graph page's explorer (``ui/explorer.py``): a large graph opened from the root down, summary
nodes, and every control: depth, expand all, the default view, open / close, find, and the inspected
node and the sample's path brought into view."""

import re

import numpy as np
import pytest
from app_helpers import explorer_drawing, go, plotly_click
from test_app import downloads  # noqa: F401 (the fixture reading what a download button serves)

from tnt.viz import focus
from ui.drawing import COMPARE_FRAME_PX, EDITOR_FRAME_PX, fingerprint

EXPLORER = "Explorer (focus and context)"


@pytest.fixture
def explorer_app(open_app):
    app = go(open_app(60), "graph")
    app.radio(key="graph/view/server").set_value(EXPLORER).run()
    assert not app.exception, app.exception
    graph = next(iter(app.session_state["train/models"].values())).tnt.graph_
    return app, graph, f"explorer/opened/{fingerprint(graph)}"


def frame(app) -> str:
    return explorer_drawing(app)["svg"]


def centred(app) -> int:
    return explorer_drawing(app)["focus"]


def shown(app, graph, key):
    return focus.graph_view(graph, app.session_state[key]).shown


def press(app, label_start: str):
    (match,) = [b for b in app.button if b.label.startswith(label_start)]
    match.click().run()
    assert not app.exception, app.exception


def test_the_explorer_opens_on_the_root_with_summaries_and_the_sample_path(explorer_app):
    app, graph, key = explorer_app
    assert graph.node_count > 60  # a graph the app calls large
    page = frame(app)
    assert "splits below" in page and 'stroke="#c00000"' in page  # summaries, and the sample's path in red
    view = focus.graph_view(graph, app.session_state[key])
    assert 1 < view.size < graph.node_count
    path = graph.decision_path(app.session_state["data/dataset"].X_test[:1]).indices
    assert view.shown[path].all()  # the sample's path is opened
    assert any(c.value.startswith(f"{view.size:,} of {graph.node_count:,} nodes shown") for c in app.caption)
    assert not [s for s in app.slider if s.label.startswith("Depth window")]  # no window in the explorer


def test_expand_to_depth_expand_all_and_the_default_view(explorer_app):
    app, graph, key = explorer_app
    first = app.session_state[key]
    app.number_input(key="explorer/depth").set_value(2).run()
    press(app, "Expand to depth")
    assert app.session_state[key] == focus.expand_to_depth(graph, 2)
    press(app, "Expand all (")
    assert app.session_state[key] == focus.expand_all(graph)
    assert frame(app).count('class="node"') == graph.node_count and "splits below" not in frame(app)
    press(app, "Default view")
    assert app.session_state[key] == first  # the view it opened on: the default, the sample's path opened


def test_open_and_close_a_split(explorer_app):
    app, graph, key = explorer_app
    view = focus.graph_view(graph, app.session_state[key])
    deep = int(next(n for n in range(graph.node_count) if not graph.is_leaf[n] and not view.shown[n]))
    app.number_input(key="explorer/toggle").set_value(deep).run()
    press(app, "Open / close")
    assert deep in app.session_state[key] and shown(app, graph, key)[deep]
    assert f'id="node{deep}"' in frame(app) and centred(app) == deep
    press(app, "Open / close")
    assert deep not in app.session_state[key] and shown(app, graph, key)[deep]  # closed: a summary


def test_find_opens_the_way_down_to_a_node_a_feature_or_a_class(explorer_app):
    app, graph, key = explorer_app
    data = app.session_state["data/dataset"]
    deep = int(graph.node_count - 1)
    app.text_input(key="explorer/find").set_value(f"#{deep}").run()
    assert shown(app, graph, key)[deep] and centred(app) == deep
    assert any(c.value == f"1 found: #{deep}." for c in app.caption)
    name = str(data.feature_names[int(graph.feature[0])])
    app.text_input(key="explorer/find").set_value(name).run()
    hits = focus.find_nodes(graph, name, list(data.feature_names))
    assert 0 in hits and shown(app, graph, key)[hits[:20]].all()
    app.text_input(key="explorer/find").set_value("class 3").run()
    assert all(graph.is_leaf[n] for n in app.session_state[f"{key}/hits"])
    app.text_input(key="explorer/find").set_value("no such thing").run()
    assert any(c.value.startswith("Nothing found for “no such thing”") for c in app.caption)
    # The same search again after the box was emptied and the view reset: found and opened again.
    app.text_input(key="explorer/find").set_value(f"#{deep}").run()
    app.text_input(key="explorer/find").set_value("").run()
    press(app, "Default view")
    assert not shown(app, graph, key)[deep]
    app.text_input(key="explorer/find").set_value(f"#{deep}").run()
    assert shown(app, graph, key)[deep] and centred(app) == deep


def test_the_inspected_node_and_a_new_sample_come_into_view(explorer_app):
    app, graph, key = explorer_app
    view = focus.graph_view(graph, app.session_state[key])
    hidden = int(next(n for n in range(graph.node_count - 1, 0, -1) if not view.shown[n]))
    app.number_input(key="graph/node").set_value(hidden).run()
    assert shown(app, graph, key)[hidden] and centred(app) == hidden
    app.number_input(key="graph/sample").set_value(7).run()
    path = graph.decision_path(app.session_state["data/dataset"].X_test[7:8]).indices
    assert shown(app, graph, key)[path].all()


def test_the_editor_draws_a_large_graph_with_the_changed_nodes_opened(open_app):
    from app_helpers import button

    from tnt.services.training import TrainParams

    app = open_app(120)
    app.selectbox[0].set_value("pendigits")
    button(app, "Load data set").click().run()
    app.session_state["train/params"] = TrainParams(C=1e-4)
    go(app, "graph")
    graph = next(iter(app.session_state["train/models"].values())).tnt.graph_
    assert graph.node_count > 300  # a graph the Graph page draws in the interactive view
    app.toggle(key="edit/open").set_value(True).run()
    # Before any edit: the default view in the editor's frame (measured in chromium), every layer that fits.
    assert_opens_the_layers_that_fit(app, graph, "('edit'", ("edit", fingerprint(graph)), EDITOR_FRAME_PX)
    split = int(next(n for n in range(graph.node_count - 1, 0, -1) if not graph.is_leaf[n]))
    (picker,) = [s for s in app.selectbox if s.label == "Split to make a leaf"]
    picker.set_value(split).run()
    button(app, "Collapse").click().run()
    assert not app.exception and not app.error
    assert not [i for i in app.info if "too many to draw" in i.value]
    changed = app.session_state["edit/editors"].latest().step.changed.tolist()
    panel = panel_drawing(app, "('edit'")
    assert changed and "splits below" in panel["svg"] and f'id="node{changed[0]}"' in panel["svg"]
    assert panel["focus"] == changed[0]  # the frame centred on the first change
    # The editor's frame follows its drawing's height (the Graph page's explorer keeps its own: a column's).
    assert panel["fit_height"] is True and explorer_drawing(app)["fit_height"] is False

    # A click on a summary node of the editor's drawing opens it, as in the Graph page's explorer.
    edited = app.session_state["edit/editors"].latest().step.model.graph_
    model_key = ("edit", fingerprint(edited))
    key = f"explorer/opened/panel/{model_key!r}"
    summary = int(np.flatnonzero(focus.graph_view(edited, app.session_state[key]).summary)[0])
    app.session_state[f"explorer/click/panel/{model_key!r}"] = {"node": summary, "stub": False, "at": 1}
    app.run()
    assert summary in app.session_state[key] and panel_drawing(app, "('edit'")["focus"] == summary
    assert f'id="node{int(edited.children_left[summary])}"' in panel_drawing(app, "('edit'")["svg"]


def test_a_large_model_for_other_data_opens_in_the_explorer_without_a_sample(open_app):
    """A model file whose columns are not the data's: the explorer draws it, with no sample's path."""
    from sklearn.datasets import make_classification

    import tnt
    from tnt.model_io import model_to_json

    X, y = make_classification(n_samples=600, n_features=12, n_informative=6, n_classes=4, random_state=0)
    model = tnt.TnTClassifier(C=1e-4, random_state=0).fit(X, y)
    assert model.graph_.node_count > 60  # a graph the page opens in the explorer (LARGE_GRAPH_NODES)
    app = go(open_app(60), "graph")
    app.file_uploader(key="graph/model_file").set_value(("big.json", model_to_json(model).encode(), "application/json"))
    app.run()
    assert not app.exception, app.exception
    assert "The model needs 12 feature columns" in app.info[0].value
    drawn = explorer_drawing(app)
    assert drawn is not None and "splits below" in drawn["svg"]
    assert drawn["svg"].count('stroke="#c00000"') == 1  # the inspected node's border: no sample's path


def panel_drawing(app, starting: str) -> dict:
    """The arguments of the focus panel's drawing whose key names a graph starting with ``starting``."""
    import json

    (element,) = [e for e in app.get("component_instance") if f"explorer/click/panel/{starting}" in e.proto.id]
    return json.loads(element.proto.json_args)


def test_a_counterfactual_opens_and_marks_the_tests_it_changes(explorer_app):
    from tnt.inspect.what_if import what_if

    app, graph, key = explorer_app
    app.radio(key="graph/inspect/view").set_value("Counterfactual").run()
    assert not app.exception, app.exception
    (model_key, sample, x1, tests) = app.session_state["graph/inspect/cf/followed"]
    data = app.session_state["data/dataset"]
    x0 = data.X_test[sample].astype(float)
    names = list(data.feature_names)
    assert sample == 0 and list(tests) == what_if(graph, x0, x1, names).changed_tests and tests
    shown = focus.graph_view(graph, app.session_state[key]).shown
    new_path = graph.decision_path(x1.reshape(1, -1)).indices
    assert shown[list(tests)].all() and shown[new_path].all()  # opened: the tests and the new path
    svg = frame(app)
    for node in tests:  # each drawn with the bold border of a marked node
        start = svg.index(f'id="node{node}"')
        assert 'stroke-width="3"' in svg[start : svg.index("</g>", start)]
    assert any("as the counterfactual below changes it" in c.value for c in app.caption)
    app.radio(key="graph/inspect/view").set_value("Rules").run()
    assert 'stroke="#c00000"' in frame(app) and not any("counterfactual below" in c.value for c in app.caption)


def test_the_image_downloads_draw_what_the_explorer_shows(downloads, explorer_app):  # noqa: F811
    app, graph, key = explorer_app
    (svg,) = [downloads(b) for b in app.get("download_button") if b.key.endswith("/svg") and "/tnt_" in b.key]
    (dot,) = [downloads(b) for b in app.get("download_button") if b.key.endswith("/dot") and "/tnt_" in b.key]
    view = focus.graph_view(graph, app.session_state[key])
    assert b"splits below" in svg and dot.decode().count("id=node") == view.size
    (cart,) = [downloads(b) for b in app.get("download_button") if b.key.endswith("/dot") and "/cart_" in b.key]
    assert b"splits below" not in cart  # the other model's files are whole


def test_the_downloads_draw_what_the_explorer_shows_when_clicked(downloads, explorer_app):  # noqa: F811
    """The explorer is a fragment: a click in it reruns it alone, and the download buttons, drawn by the
    page's last run, stay. Their files are made on click from the explorer's state then
    (``ui.explorer.live_view``, which every run of the explorer updates in place): a view opened after the
    page's run, as a fragment's run opens it, is what they draw."""
    from ui.explorer import live_view  # noqa: F401 (the state the downloads read: its key below)

    app, graph, key = explorer_app
    buttons = {b.key.rsplit("/", 1)[1]: b for b in app.get("download_button") if "/tnt_" in b.key}
    before = focus.graph_view(graph, app.session_state[key])
    assert downloads(buttons["dot"]).decode().count("id=node") == before.size
    later = focus.expand_to_depth(graph, 5)  # as a click in the fragment would open it, the page not rerun
    app.session_state[f"{key}/live"]["opened"] = later
    after = focus.graph_view(graph, later)
    assert after.size > before.size
    assert downloads(buttons["dot"]).decode().count("id=node") == after.size
    assert downloads(buttons["svg"]).decode().count('class="node"') == after.size + downloads(
        buttons["dot"]
    ).decode().count("id=stub")


def test_the_drawing_sent_is_graphvizs_svg_with_the_same_nodes_texts_and_shapes(explorer_app):
    """The explorer sends a compacted SVG (``ui.drawing.compact_svg``: no comments, titles or font family,
    one decimal): read as XML, it has Graphviz's own drawing of the view's elements (ids and classes), the
    same texts, and every coordinate within a tenth of a point of Graphviz's."""
    import xml.etree.ElementTree as ET

    from tnt.viz.export_dot import to_dot
    from tnt.viz.render import render

    app, graph, key = explorer_app
    names = list(app.session_state["data/dataset"].feature_names)
    sample = app.session_state["data/dataset"].X_test[0]
    full = render(to_dot(graph, feature_names=names, class_names=app.session_state["data/dataset"].class_names,
                         show_ids=True, view=focus.graph_view(graph, app.session_state[key]), highlight_sample=sample,
                         highlight_nodes=[0]), "svg").decode()  # fmt: skip
    sent = frame(app)
    assert len(sent) < 0.85 * len(full[full.find("<svg") :])
    trees = [ET.fromstring(text[text.find("<svg") :]) for text in (full, sent)]
    ns = "{http://www.w3.org/2000/svg}"
    groups = [[(g.get("id"), g.get("class")) for g in tree.iter(f"{ns}g")] for tree in trees]
    texts = [[t.text for t in tree.iter(f"{ns}text")] for tree in trees]
    assert groups[0] == groups[1] and texts[0] == texts[1] and len(texts[0]) > 50
    numbers = [[float(v) for e in tree.iter() for a in ("x", "y") if (v := e.get(a))] for tree in trees]
    assert len(numbers[0]) == len(numbers[1]) > 50
    assert max(abs(a - b) for a, b in zip(*numbers)) < 0.1


def test_a_view_too_large_for_graphviz_is_not_laid_out(explorer_app, monkeypatch):
    app, graph, key = explorer_app
    monkeypatch.setattr("ui.explorer.MAX_DRAWN_NODES", 100)  # the digits graph has more nodes
    app.run()
    (everything,) = [b for b in app.button if b.label.startswith("Expand all (")]
    assert everything.disabled
    app.number_input(key="explorer/depth").set_value(int(graph.node_depth().max())).run()
    press(app, "Expand to depth")
    assert any("more than Graphviz lays out quickly (100)" in i.value for i in app.info)
    assert explorer_drawing(app) is None  # nothing laid out
    press(app, "Default view")
    assert not [i for i in app.info if "lays out quickly" in i.value]


def test_a_click_on_a_summary_opens_it_and_a_second_closes_it(explorer_app):
    app, graph, key = explorer_app
    view = focus.graph_view(graph, app.session_state[key])
    summary = int(next(n for n in range(graph.node_count) if view.summary[n]))
    app.session_state["explorer/click"] = {"node": summary, "stub": False, "at": 1}
    app.run()
    assert summary in app.session_state[key] and centred(app) == summary
    app.run()  # the same click is applied once
    assert summary in app.session_state[key]
    app.session_state["explorer/click"] = {"node": summary, "stub": False, "at": 2}
    app.run()
    assert summary not in app.session_state[key]


INTERACTIVE = "Interactive (plotly)"


def plotly_nodes(app) -> list:
    """The ids of the nodes the Graph page's plotly figure draws (its nodes trace's customdata)."""
    import json

    (chart,) = [c for c in app.get("plotly_chart") if "graph/plotly/" in c.proto.id]
    (nodes,) = [t for t in json.loads(chart.proto.spec)["data"] if t.get("name") == "nodes"]
    return sorted(nodes["customdata"])


def test_the_interactive_view_draws_what_the_explorer_opened_and_a_click_opens_a_summary(explorer_app):
    app, graph, key = explorer_app
    app.radio(key="graph/view/server").set_value(INTERACTIVE).run()
    assert not app.exception, app.exception
    opened = app.session_state[key]
    assert (
        plotly_nodes(app)
        == np.flatnonzero(focus.graph_view(graph, opened).shown).tolist()
        != list(range(graph.node_count))
    )
    assert not [s for s in app.slider if s.label.startswith("Depth window")]  # the explorer's controls instead
    # A click on a summary node opens it and picks it for the inspector, once per click.
    summary = int(np.flatnonzero(focus.graph_view(graph, opened).summary)[0])
    plotly_click(app, summary)
    assert app.session_state[key] == opened | {summary} and app.session_state["graph/node"] == summary
    children = [int(graph.children_left[summary]), int(graph.children_right[summary])]
    assert set(children) <= set(plotly_nodes(app))
    app.run()  # a rerun is not a second click
    assert summary in app.session_state[key]
    plotly_click(app, summary)  # a second click on the same node closes it
    assert app.session_state[key] == opened
    plotly_click(app, summary)
    assert app.session_state[key] == opened | {summary}
    # The controls and the state are the explorer's: depth, then the SVG explorer shows the same nodes.
    app.number_input(key="explorer/depth").set_value(2).run()
    press(app, "Expand to depth")
    assert plotly_nodes(app) == np.flatnonzero(focus.graph_view(graph, focus.expand_to_depth(graph, 2)).shown).tolist()
    app.radio(key="graph/view/server").set_value(EXPLORER).run()
    drawn = sorted(int(n) for n in re.findall(r'id="node(\d+)"', frame(app)))
    assert drawn == np.flatnonzero(focus.graph_view(graph, focus.expand_to_depth(graph, 2)).shown).tolist()


def test_find_and_the_sample_path_open_the_interactive_view(explorer_app):
    app, graph, key = explorer_app
    app.radio(key="graph/view/server").set_value(INTERACTIVE).run()
    deep = int(graph.node_count - 1)
    app.text_input(key="explorer/find").set_value(f"#{deep}").run()
    assert deep in plotly_nodes(app)
    app.number_input(key="graph/sample").set_value(7).run()
    path = graph.decision_path(app.session_state["data/dataset"].X_test[7:8]).indices.tolist()
    assert set(path) <= set(plotly_nodes(app))


def test_expand_all_says_its_size_and_is_disabled_above_2000_nodes_saying_why(open_app):
    """A model file of 2,199 nodes (a scikit-learn tree of 1,100 leaves): "Expand all" is greyed out and
    its help says why in one sentence; the digits graph's is not."""
    from sklearn.tree import DecisionTreeClassifier

    from tnt.model_io import from_sklearn, model_to_json

    app = go(open_app(60), "graph")
    app.radio(key="graph/view/server").set_value(EXPLORER).run()
    (small,) = [b for b in app.button if b.label.startswith("Expand all (")]
    graph = next(iter(app.session_state["train/models"].values())).tnt.graph_
    assert small.label == f"Expand all ({int(graph.reachable().sum()):,} nodes)" and not small.disabled
    assert not small.help
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(6000, 12)), rng.integers(0, 3, 6000)
    tree = DecisionTreeClassifier(max_leaf_nodes=1100, random_state=0).fit(X, y)
    assert tree.tree_.node_count == 2199
    content = model_to_json(from_sklearn(tree)).encode()
    app.file_uploader(key="graph/model_file").set_value(("big tree.json", content, "application/json")).run()
    assert not app.exception, app.exception
    for view in (EXPLORER, INTERACTIVE):
        app.radio(key="graph/view/interactive").set_value(view).run()
        (big,) = [b for b in app.button if b.label.startswith("Expand all (")]
        assert big.label == "Expand all (2,199 nodes)" and big.disabled
        assert big.help == (
            "The whole graph has 2,199 nodes, more than the 2,000 one drawing here holds: open splits by a click, "
            "a depth or Find."
        )


def test_the_image_downloads_draw_what_the_interactive_view_shows(downloads, explorer_app):  # noqa: F811
    app, graph, key = explorer_app
    app.radio(key="graph/view/server").set_value(INTERACTIVE).run()
    app.number_input(key="explorer/depth").set_value(2).run()
    press(app, "Expand to depth")
    (dot,) = [downloads(b) for b in app.get("download_button") if b.key.endswith("/dot") and "/tnt_" in b.key]
    drawn = sorted(int(n) for n in re.findall(r"id=node(\d+)", dot.decode()))
    assert drawn == np.flatnonzero(focus.graph_view(graph, focus.expand_to_depth(graph, 2)).shown).tolist()
    assert drawn == plotly_nodes(app)


def plotly_spec(app) -> tuple[str, dict]:
    """The Graph page's plotly chart: its element id (Streamlit keeps the reader's zoom while it stays)
    and its figure."""
    import json

    (chart,) = [c for c in app.get("plotly_chart") if "graph/plotly/" in c.proto.id]
    return chart.proto.id, json.loads(chart.proto.spec)


def in_view(spec, node: int) -> bool:
    """Whether ``node`` is drawn inside the figure's axis ranges."""
    (nodes,) = [t for t in spec["data"] if t.get("name") == "nodes"]
    i = nodes["customdata"].index(node)
    (x0, x1), (y0, y1) = spec["layout"]["xaxis"]["range"], spec["layout"]["yaxis"]["range"]
    return x0 <= nodes["x"][i] <= x1 and y0 <= nodes["y"][i] <= y1


def test_the_interactive_view_opens_zoomed_on_what_was_picked_and_keeps_the_readers_zoom(explorer_app):
    """A search hit, the inspected node and a sample's leaf each become the target: the figure opens with
    it inside its axis ranges, narrower than the whole view, and a new ``uirevision``; a rerun that changes
    nothing draws the same chart (same element, same revision), so the reader's zoom and pan stay."""
    app, graph, key = explorer_app
    app.radio(key="graph/view/server").set_value(INTERACTIVE).run()
    deep = int(graph.node_count - 1)
    app.text_input(key="explorer/find").set_value(f"#{deep}").run()
    chart, spec = plotly_spec(app)
    revisions = [spec["layout"]["uirevision"]]
    assert in_view(spec, deep)
    (nodes,) = [t for t in spec["data"] if t.get("name") == "nodes"]
    x0, x1 = spec["layout"]["xaxis"]["range"]
    assert x1 - x0 < max(nodes["x"]) - min(nodes["x"])  # zoomed in: the whole view does not fit readably
    assert not all(in_view(spec, n) for n in nodes["customdata"])
    app.run()
    assert plotly_spec(app) == (chart, spec)  # nothing changed: the same chart, the reader's zoom kept
    view = focus.graph_view(graph, app.session_state[key])
    hidden = int(next(n for n in range(graph.node_count - 2, 0, -1) if not view.shown[n]))
    app.number_input(key="graph/node").set_value(hidden).run()
    _, spec = plotly_spec(app)
    assert in_view(spec, hidden) and spec["layout"]["uirevision"] not in revisions
    revisions.append(spec["layout"]["uirevision"])
    app.number_input(key="graph/sample").set_value(7).run()
    leaf = int(graph.decision_path(app.session_state["data/dataset"].X_test[7:8]).indices[-1])
    _, spec = plotly_spec(app)
    assert in_view(spec, leaf) and spec["layout"]["uirevision"] not in revisions


def svg_size_px(svg: str) -> tuple[float, float]:
    """A Graphviz SVG's natural width and height in px (its ``pt`` size, 1 pt = 4/3 px)."""
    width, height = (float(v) for v in re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    return width * 4 / 3, height * 4 / 3


def readable_in(svg: str, frame_px) -> bool:
    """Whether a drawing shown in ``frame_px`` (shrunk to its width when wider) keeps its 11 pt labels at least
    11 px high (a zoom of 3/4 at least) and is no taller than the frame."""
    width, height = svg_size_px(svg)
    zoom = min(1.0, frame_px[0] / width)
    return zoom >= 0.75 and height * zoom <= frame_px[1]


def test_each_compare_graph_opens_the_layers_that_fit_its_frame(open_app):
    """Compare draws its five models two a row: each drawing (the SVG Graphviz made of it) fits the frame
    measured there (ui.drawing.COMPARE_FRAME_PX) at 11 px labels, and holds every layer whose drawing still
    fits: the drawing of one more whole layer does not."""
    app = go(open_app(120), "compare")
    results = app.session_state["analysis/compare"].latest()
    checked = 0
    for i, (model, _) in enumerate(results.values()):
        graph = model.graph_
        model_key = (f"compare/graph/{i}", fingerprint(graph))
        checked += assert_opens_the_layers_that_fit(app, graph, f"('compare/graph/{i}'", model_key, COMPARE_FRAME_PX)
    assert checked >= 3
    # The frame was 446 px high: the digits' TnT graph opened on 4 nodes there (docs/app.md), on 8 now.
    data = app.session_state["data/dataset"]
    graph = results["TnT"][0].graph_
    low = focus.default_expansion(graph, list(data.feature_names), data.class_names, 482, 446, show_ids=True)
    opened = app.session_state[f"explorer/opened/panel/{('compare/graph/0', fingerprint(graph))!r}"]
    assert (focus.graph_view(graph, low).size, focus.graph_view(graph, opened).size) == (4, 8)


def assert_opens_the_layers_that_fit(app, graph, starting: str, model_key, frame_px) -> bool:
    """The focus panel of ``graph`` (its drawing's key starting with ``starting``) fits ``frame_px`` at 11 px
    labels, and holds every whole layer whose drawing fits: the drawing of one more layer (made here with
    to_dot and Graphviz) does not fit (unless it has more nodes than a default view holds: False then)."""
    from tnt.viz.export_dot import to_dot
    from ui.drawing import image

    panel = panel_drawing(app, starting)
    assert readable_in(panel["svg"], frame_px)
    assert panel["height"] == frame_px[1] + 34  # the frame and the zoom buttons' bar
    opened = app.session_state[f"explorer/opened/panel/{model_key!r}"]
    depth = max(d for d in range(int(graph.node_depth().max()) + 1) if focus.expand_to_depth(graph, d) <= opened)
    deeper = focus.graph_view(graph, focus.expand_to_depth(graph, depth + 1))
    if deeper.size > focus.MAX_DEFAULT_NODES:
        return False
    data = app.session_state["data/dataset"]
    dot = to_dot(
        graph, feature_names=list(data.feature_names), class_names=data.class_names, show_ids=True, view=deeper
    )
    assert not readable_in(image(dot, "svg").decode(), frame_px)
    return True


def test_the_interactive_view_keeps_the_top_margin_for_the_mode_bar(explorer_app):
    """The Graph page hides the figure's legend (its own is above) but keeps the top margin in which plotly
    draws its mode bar, so that the tool buttons cover no label of the top layer in view."""
    from tnt.viz.plotly_view import TOP_PX

    app, _, _ = explorer_app
    app.radio(key="graph/view/server").set_value(INTERACTIVE).run()
    _, spec = plotly_spec(app)
    assert spec["layout"]["showlegend"] is False and spec["layout"]["margin"]["t"] == TOP_PX


def test_the_explorer_controls_show_what_they_hold_to_a_browser_that_mounts_them_afresh(explorer_app, state_warnings):
    app, graph, _ = explorer_app
    assert app.number_input(key="explorer/depth").proto.default == min(3, int(graph.node_depth().max()))
    app.number_input(key="explorer/depth").set_value(2).run()
    app.text_input(key="explorer/find").set_value("#1").run()
    app.run()
    assert not app.exception
    assert app.number_input(key="explorer/depth").proto.default == 2
    assert app.text_input(key="explorer/find").proto.default == "#1"
    assert state_warnings == []
