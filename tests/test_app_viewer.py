"""The Graph, Compare and Paths pages with a model file opened, and the Graph page's interactive
view of a big graph, through Streamlit's AppTest."""

import json
import warnings

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from tnt.data.datasets import load_bundled
from tnt.model_io import from_sklearn, model_to_json
from tnt.services.training import TrainParams


def go(at, page):
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception


def click(at, label):
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception, at.exception


@pytest.fixture
def app(open_app):
    return open_app(60)


def open_file(at, page, name, content: bytes):
    at.file_uploader(key=f"{page}/model_file").set_value((name, content, "application/json")).run()
    assert not at.exception, at.exception
    return at


def digits_tree(at, **kwargs):
    data = at.session_state["data/dataset"]
    tree = DecisionTreeClassifier(max_leaf_nodes=40, random_state=0, **kwargs).fit(data.X_train, data.y_train)
    return data, tree, model_to_json(from_sklearn(tree, feature_names=data.feature_names)).encode()


def figure(at, index=0):
    return json.loads(at.get("plotly_chart")[index].proto.spec)


def trace(fig, name):
    return [t for t in fig["data"] if t.get("name") == name]


def test_a_scikit_learn_tree_opened_on_the_graph_page_is_shown_like_a_trained_model(app):
    data, tree, content = digits_tree(app)
    go(app, "graph")
    open_file(app, "graph", "my tree.json", content)
    assert not app.error
    assert app.radio(key="graph/model").value == "Opened: my tree.json"  # shown at once
    caption = app.main.caption[0].value
    test_acc, train_acc = tree.score(data.X_test, data.y_test), tree.score(data.X_train, data.y_train)
    assert caption.startswith("DecisionTreeClassifier from my tree.json: 39 splits, 40 leaves, 0 nodes")
    assert f"test {test_acc:.3f}, train {train_acc:.3f}" in caption
    # The sample path and the node inspector, with the tree's own predictions.
    for i in (0, 5, 17):
        app.number_input(key="graph/sample").set_value(i).run()
        text = next(m.value for m in app.main.markdown if f"Sample **#{i}**" in m.value)
        assert f"predicted **{tree.predict(data.X_test[i : i + 1])[0]}**" in text
        leaf = app.dataframe[0].value["node"].iloc[-1]
        assert leaf == tree.apply(data.X_test[i : i + 1])[0]  # from_sklearn keeps scikit-learn's node ids
    app.number_input(key="graph/node").set_value(0).run()
    feature = data.feature_names[tree.tree_.feature[0]]
    assert any(m.value.startswith(f"**Node #0** ({feature} <=") for m in app.main.markdown)
    # Its downloads, as for the trained models.
    keys = [b.key for b in app.get("download_button")]
    assert "graph/download/opened_my-tree/json" in keys and "graph/download/opened_my-tree/html" in keys


def test_the_opened_model_joins_compare_and_paths(app):
    data, tree, content = digits_tree(app)
    go(app, "compare")
    open_file(app, "compare", "tree.json", content)
    table = app.dataframe[0].value
    assert "Opened: tree.json" in table.index
    assert table.loc["Opened: tree.json", "test accuracy"] == round(tree.score(data.X_test, data.y_test), 3)
    assert table.loc["Opened: tree.json", "splits"] == 39
    go(app, "paths")  # the model stays open from page to page
    paths = app.dataframe[0].value
    depth = np.mean(tree.decision_path(data.X_test).sum(axis=1) - 1)
    assert paths.loc["Opened: tree.json", "mean depth (test samples)"] == round(float(depth), 2)
    assert "Open: **tree.json** (DecisionTreeClassifier, 39 splits)." in [m.value for m in app.expander[0].markdown]


def test_a_model_for_other_data_is_drawn_and_says_what_is_missing(app):
    iris = load_bundled("iris")
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(iris.X_train, iris.y_train)
    go(app, "graph")
    open_file(app, "graph", "iris.json", model_to_json(from_sklearn(tree, feature_names=iris.feature_names)).encode())
    assert not app.error
    (info,) = app.info
    assert info.value.startswith("The model needs 4 feature columns (sepal length")
    assert "the data in use, Handwritten digits (8x8), has 64." in info.value
    assert not [n for n in app.number_input if n.key == "graph/sample"]  # no sample path without data
    dot = app.get("graphviz_chart")[0].proto.spec
    assert "petal" in dot and 'color="#c00000"' not in dot
    app.radio(key="graph/view/browser").set_value("Interactive (plotly)").run()
    (edges,) = [t for t in app.toggle if t.label.startswith("Edge width")]
    assert edges.disabled and edges.value is False  # no training data for this model: no edge widths
    app.number_input(key="graph/node").set_value(1).run()
    assert any(m.value.startswith("**Node #1** (leaf)") for m in app.main.markdown)
    go(app, "compare")
    assert "It is left out of the comparison." in app.info[0].value
    assert "Opened: iris.json" not in app.dataframe[0].value.index


def test_bad_model_files_get_one_sentence_and_the_open_model_stays(app):
    _, _, content = digits_tree(app)
    go(app, "graph")
    open_file(app, "graph", "good.json", content)
    cases = {
        "notes.txt": (b"hello", "notes.txt cannot be opened: The model file is not valid JSON"),
        "other.json": (b'{"format": "keras"}', 'other.json cannot be opened: This is not a TnT Explorer model file'),
        "cut.json": (content[: len(content) // 2], "cut.json cannot be opened: The model file is not valid JSON"),
        "nan.json": (content.replace(b'"threshold": [', b'"threshold": [NaN, ', 1),
                     "nan.json cannot be opened: The model file contains NaN"),
    }  # fmt: skip
    for name, (bad, message) in cases.items():
        open_file(app, "graph", name, bad)
        (error,) = app.error
        assert error.value.startswith(message), error.value
        assert "Traceback" not in error.value and error.value.count("\n") == 0
        assert app.radio(key="graph/model").value == "Opened: good.json"  # still open
    click(app, "Close the model file")
    assert "Opened: good.json" not in app.radio(key="graph/model").options


def test_reduction_shows_what_it_saves_on_an_opened_tree(app):
    _, _, content = digits_tree(app)
    go(app, "graph")
    open_file(app, "graph", "tree.json", content)
    click(app, "Reduce the graph")
    assert not app.error
    (summary,) = [m.value for m in app.main.markdown if "leaves become" in m.value]
    assert summary.startswith("**39 splits and 40 leaves become ") and "Training predictions unchanged" in summary
    reduced = "Opened: tree.json, reduced"
    assert reduced in app.radio(key="graph/model").options
    app.radio(key="graph/model").set_value(reduced).run()
    caption = app.main.caption[0].value
    splits, leaves = (int(w) for w in summary.split("become ")[1].split(" leaves**")[0].split(" splits and "))
    assert splits + leaves < 79
    assert caption.startswith(f"Opened: tree.json after graph reduction: {splits} splits, {leaves} leaves")


@pytest.mark.parametrize("named", [True, False], ids=["with feature names", "without"])
def test_an_opened_model_gets_rows_as_it_was_fitted(app, named):
    """A model file that names its columns is given tables with those names, one that does not arrays:
    scikit-learn warned ("X does not have valid feature names, but LoadedGraphModel was fitted with
    feature names") at each prediction of the Graph page's sample, scores, reduction and Compare."""
    data = app.session_state["data/dataset"]
    tree = DecisionTreeClassifier(max_leaf_nodes=40, random_state=0).fit(data.X_train, data.y_train)
    content = model_to_json(from_sklearn(tree, feature_names=data.feature_names if named else None)).encode()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        go(app, "graph")
        open_file(app, "graph", "tree.json", content)
        assert app.radio(key="graph/model").value == "Opened: tree.json"
        app.number_input(key="graph/sample").set_value(3).run()
        click(app, "Reduce the graph")
        go(app, "compare")
        go(app, "paths")
    assert not app.error
    assert [str(w.message) for w in caught if "feature names" in str(w.message)] == []


@pytest.fixture
def pendigits_app(app):
    app.selectbox[0].set_value("pendigits")
    click(app, "Load data set")
    app.session_state["train/params"] = TrainParams(C=1e-4)
    go(app, "graph")
    assert app.radio(key="graph/view/interactive").value.startswith("Explorer")  # the default
    app.radio(key="graph/view/interactive").set_value("Interactive (plotly)").run()
    return app


def test_a_big_graph_in_the_interactive_view_draws_what_the_explorer_opened_with_the_sample_path(pendigits_app):
    from tnt.viz import focus
    from ui.drawing import fingerprint

    app = pendigits_app
    graph = next(iter(app.session_state["train/models"].values())).tnt.graph_
    assert graph.node_count > 300
    key = f"explorer/opened/{fingerprint(graph)}"
    fig = figure(app)
    (nodes,) = trace(fig, "nodes")
    assert nodes["customdata"] == np.flatnonzero(focus.graph_view(graph, app.session_state[key]).shown).tolist()
    assert 1 < len(nodes["customdata"]) < graph.node_count
    (path,) = trace(fig, "path")
    steps = app.dataframe[0].value
    assert len(path["x"]) == 3 * (len(steps) - 1)  # the path opened: one segment per test on the sample's way
    arrows = fig["layout"]["annotations"]
    assert [a["text"] for a in arrows] == ["<b>#0</b>"]  # the inspected node
    assert not [s for s in app.slider if s.label.startswith("Depth window")]  # the explorer's controls instead
    # The inspector follows the number picker, the arrow too: the node is opened into view.
    node = int(graph.shared_nodes[-1])
    app.number_input(key="graph/node").set_value(node).run()
    assert figure(app)["layout"]["annotations"][0]["text"] == f"<b>#{node}</b>"
    assert node in trace(figure(app), "nodes")[0]["customdata"]


def test_edge_widths_show_where_the_training_samples_go(pendigits_app):
    app = pendigits_app
    app.number_input(key="explorer/depth").set_value(3).run()  # edges enough for widths to tell apart
    next(b for b in app.button if b.label == "Expand to depth").click().run()
    app.toggle(key="graph/edge_width").set_value(True).run()
    data = app.session_state["data/dataset"]
    graph = next(iter(app.session_state["train/models"].values())).tnt.graph_
    fig = figure(app)
    widths = sorted({t["line"]["width"] for t in fig["data"] if t.get("name") in ("yes (<=)", "no (>)")})
    assert widths[-1] == 14.0 and len(widths) >= 5
    counts = graph.edge_samples(data.X_train)
    assert counts[0].sum() == len(data.y_train)
    hover = trace(fig, "nodes")[0]["hovertext"][0]
    assert hover.endswith(f"training samples sent: {counts[0, 0]:,} yes, {counts[0, 1]:,} no")


def test_the_drawing_caches_tell_feature_names_apart(toy_graph):
    """The drawing caches hash a list of names as one string (ui.drawing.NAMES_HASH): lists of names that
    join to the same text (a space, or the unit separator, moved from one name to the next) give each its
    own drawing, the one to_dot makes of those names, for the same graph and key."""
    import streamlit as st

    from tnt.viz.export_dot import to_dot
    from ui import drawing

    st.cache_data.clear()
    drawn = {}
    for names in (["a b", "c"], ["a", "b c"], ["x\x1fy", "z"], ["x", "y\x1fz"]):
        drawn[tuple(names)] = drawing.dot_source("same key", toy_graph, names, ["p", "q"])
        assert drawn[tuple(names)] == to_dot(toy_graph, feature_names=names, class_names=["p", "q"], show_ids=True)
    assert len(set(drawn.values())) == 4
