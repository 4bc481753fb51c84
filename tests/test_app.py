"""The app, page by page, through Streamlit's AppTest (no browser)."""

import json
import re
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import streamlit.testing.v1.app_test as app_test_module
from app_helpers import button, explorer_drawing, go, metric, new_session, train, upload
from streamlit.runtime.media_file_manager import MediaFileManager

from tnt.codegen.sql import sql_identifier
from tnt.estimator import TnTClassifier
from tnt.services.training import SIZE_CHOICES, TrainParams
from tnt.viz import focus
from ui.display import BIN_CHOICES, C_GRID
from ui.drawing import EDGE_LEGEND, EXPLORER_FRAME_PX, fingerprint

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "bad_csv"
CASES = json.loads((BAD / "cases.json").read_text())


@pytest.fixture
def app(open_app):
    return open_app(30)


def test_the_data_page_loads_one_of_the_papers_sets_with_its_own_split(open_app):
    """optdigits (bundled with the package: always found) through the Data page, as its arrays hold it."""
    from tnt.data.sources import paper_source
    from tnt.experiments.paper import load_paper_data

    app = open_app(120)
    (box,) = [s for s in app.selectbox if s.key == "data/paper"]
    assert "optdigits" in box.options
    box.set_value("optdigits").run()
    app.button(key="data/paper_load").click().run()
    assert not app.exception and not app.error
    data = app.session_state["data/dataset"]
    X_train, y_train, X_test, y_test = load_paper_data("optdigits")
    assert np.array_equal(data.X_train, X_train) and np.array_equal(data.X_test, X_test)
    assert [data.class_names[k] for k in data.y_test] == [str(v) for v in y_test]
    assert list(data.feature_names[:2]) == ["x0", "x1"] and data.n_features == X_train.shape[1]
    assert app.session_state["data/source"] == paper_source("optdigits")
    assert metric(app, "Training rows") == f"{len(y_train):,}" and metric(app, "Test rows") == f"{len(y_test):,}"


def test_data_page_works_with_no_interaction(app):
    assert not app.error
    assert app.header[0].value == "Data"
    assert metric(app, "Training rows") == "1,257" and metric(app, "Test rows") == "540"
    assert metric(app, "Features") == "64" and metric(app, "Classes") == "10"
    assert app.session_state["data/dataset"].name == "Handwritten digits (8x8)"
    assert len(app.get("vega_lite_chart")) == 1  # the class balance chart
    # The shared sidebar.
    assert "**Data:** Handwritten digits (8x8)" in [m.value for m in app.sidebar.markdown]
    assert "Not trained yet with these settings: press Train on the Train page." in [
        c.value for c in app.sidebar.caption
    ]


def test_the_train_page_trains_only_when_train_is_pressed(app):
    go(app, "train")
    assert not app.error and not app.metric
    assert not list(app.session_state["train/models"].values())
    (intro,) = [i.value for i in app.info]
    assert intro.startswith("Press **Train** to grow TnT with these settings on **Handwritten digits (8x8)**")
    button(app, "Train").click().run()
    assert not app.error
    splits = int(metric(app, "Splits"))
    assert 80 < splits < 200
    assert int(metric(app, "Nodes with several parents")) > 0
    assert float(metric(app, "Test accuracy")) > 0.8
    table = app.table[0].value
    assert list(table.columns) == ["TnT", "CART (same splits)"]
    assert table.loc["splits", "CART (same splits)"] == str(splits)
    assert any(c.value.startswith("Trained in ") for c in app.main.caption)
    # The shared sidebar is drawn after the page ran, so it already shows the model just trained.
    assert "**Data:** Handwritten digits (8x8)" in [m.value for m in app.sidebar.markdown]
    assert any(c.value.startswith(f"TnT: {splits:,} splits") for c in app.sidebar.caption)
    # Pressing Train again with the same settings says that nothing was trained.
    button(app, "Train").click().run()
    assert [i.value for i in app.info] == [
        "These are the settings of the model shown: nothing new to train. Change a setting, then press Train."
    ]
    # Leaving and coming back shows the model in use, without training it again.
    go(app, "data")
    go(app, "train")
    assert int(metric(app, "Splits")) == splits and not app.info


def test_the_headline_arrow_follows_the_gain_over_cart(app):
    from streamlit.proto.Metric_pb2 import Metric

    train(app)
    (accuracy,) = [m for m in app.metric if m.label == "Test accuracy"]
    delta = accuracy.proto.delta
    expected = Metric.NONE if delta == "same as CART" else Metric.DOWN if delta.startswith("-") else Metric.UP
    assert accuracy.proto.direction == expected


def test_binned_thresholds_reach_the_model_the_history_and_compare(app):
    train(app)
    exact = app.session_state["train/params"]
    assert exact.max_bins == 65535
    assert app.subheader[0].value == "TnT at C=1e-03, N1=2, N2=5"  # exact thresholds go unsaid
    app.selectbox(key="train/max_bins").set_value(255)
    button(app, "Train").click().run()
    assert not app.error
    params = app.session_state["train/params"]
    assert params.max_bins == 255 and params.C == exact.C
    result = app.session_state["train/models"].get((app.session_state["data/dataset"].key, params))
    assert result.tnt.max_bins == 255
    # The digits have at most 17 values per pixel: 255 bins split them exactly, as before.
    history = app.dataframe[0].value
    assert list(history["thresholds"]) == ["exact", "255 bins"]
    assert history["splits"].iloc[0] == history["splits"].iloc[1]
    assert any("thresholds: 255 bins" in m.value for m in app.sidebar.markdown)
    assert app.subheader[0].value == "TnT at C=1e-03, N1=2, N2=5, thresholds between 255 bins"
    go(app, "compare")
    assert not app.error
    assert any("thresholds: 255 bins" in c.value for c in app.main.caption)


def test_the_held_out_size_reaches_the_model_the_history_the_sidebar_and_compare(app):
    from ui.display import format_C

    train(app)
    default = app.session_state["train/params"]
    assert default.ccp_alpha == "auto"  # the library's default: C is the lower bound of the size
    splits_default = int(metric(app, "Splits"))
    shown = app.session_state["train/models"].get((app.session_state["data/dataset"].key, default))
    caption = " ".join(c.value for c in app.main.caption)
    if shown.tnt.pruning_level_ > 0:
        assert f"pruning level {format_C(shown.tnt.pruning_level_)} per split" in caption
    else:
        assert "no smaller graph was clearly better there" in caption
    app.selectbox(key="train/ccp_alpha").set_value("held_out_regrown")
    button(app, "Train").click().run()
    assert not app.error
    params = app.session_state["train/params"]
    assert params.ccp_alpha == "held_out_regrown" and params.C == default.C
    result = app.session_state["train/models"].get((app.session_state["data/dataset"].key, params))
    assert result.tnt.ccp_alpha == "held_out_regrown"
    level = result.tnt.pruning_level_
    assert level > 0 and int(metric(app, "Splits")) == result.tnt.n_splits_ == result.cart.n_splits_
    caption = " ".join(c.value for c in app.main.caption)
    assert f"pruning level {format_C(level)} per split" in caption
    assert f"grown at C={format_C(max(default.C, level))}" in caption
    assert app.subheader[0].value == "TnT at C=1e-03, N1=2, N2=5, size: held-out graph"
    history = app.dataframe[0].value
    assert list(history["size"]) == ["held-out choice", "held-out graph"]
    assert list(history["splits"]) == [splits_default, result.tnt.n_splits_]
    assert any(m.value.endswith("size: held-out graph") for m in app.sidebar.markdown)
    go(app, "compare")
    assert not app.error
    assert any("size: held-out graph" in c.value for c in app.main.caption)
    # Compare shows the Train page's model (same class and parameters, ccp_alpha included), not a new fit.
    assert any("the models the Train page trained with these settings" in c.value for c in app.main.caption)
    table = app.dataframe[0].value
    assert table.loc["TnT", "splits"] == result.tnt.n_splits_ == table.loc["CART (best-first)", "splits"]
    go(app, "paths")
    assert not app.error
    paths = f"TnT at C=1e-03, size: held-out graph ({result.tnt.n_splits_} splits)"
    assert any(c.value.startswith(paths) for c in app.main.caption)
    # C alone: the graph C grows, the paper's; no level said.
    go(app, "train")
    app.selectbox(key="train/ccp_alpha").set_value(0.0)
    button(app, "Train").click().run()
    assert not app.error
    alone = app.session_state["train/params"]
    assert alone.ccp_alpha == 0.0 and int(metric(app, "Splits")) >= splits_default
    assert not any("pruning level" in c.value or "held-out data" in c.value for c in app.main.caption)
    assert any(m.value.endswith("size: C alone") for m in app.sidebar.markdown)
    # Back to the default: the model trained first, from this session's cache.
    app.selectbox(key="train/ccp_alpha").set_value("auto")
    button(app, "Train").click().run()
    assert app.session_state["train/params"] == default and int(metric(app, "Splits")) == splits_default
    assert [i.value for i in app.info] == [
        "A model with these settings was trained earlier in this workspace: shown again, without training."
    ]
    assert any(c.value.startswith("Trained earlier, in ") for c in app.main.caption)
    assert not any(m.value.endswith("size: C alone") for m in app.sidebar.markdown)


def test_a_budget_search_says_what_it_tried_and_how_long_it_took(app):
    from ui.display import format_C, nearest_C

    go(app, "train")
    app.toggle(key="train/budget_on").set_value(True)
    app.number_input(key="train/budget").set_value(40)
    button(app, "Train").click().run()
    assert not app.error
    note = " ".join(i.value for i in app.info)
    params = app.session_state["train/params"]
    found = re.search(r"found with (\d+) new fits in (\d+\.\d) s\. C tried \(splits\): (.*?)\.( |$)", note)
    assert found is not None, note
    tried = found.group(3).split(", ")
    assert len(tried) >= int(found.group(1)) >= 1
    # Each C as the rest of the app writes it, with its split count.
    assert all(re.fullmatch(r"\d(\.\d\d)?e-\d\d \(\d+\)", t) for t in tried), tried
    assert f"C={format_C(params.C)} gives" in note and f"{format_C(params.C)} (" in found.group(3)
    assert "Size: C alone, as a budget sets the size." in note and params.ccp_alpha == 0.0
    slider_said = "The C slider keeps the value the search started from" in note
    assert slider_said == (nearest_C(params.C) != params.C)
    caption = " ".join(c.value for c in app.main.caption)
    assert "Trained in " in caption


def test_changing_c_changes_the_split_count_and_going_back_is_instant(app):
    train(app)
    before = int(metric(app, "Splits"))
    app.select_slider[0].set_value(1e-2)
    button(app, "Train").click().run()
    after = int(metric(app, "Splits"))
    assert after < before
    app.select_slider[0].set_value(1e-3)
    button(app, "Train").click().run()
    assert int(metric(app, "Splits")) == before
    assert any(i.value.startswith("A model with these settings was trained earlier") for i in app.info)
    history = app.dataframe[0].value
    assert list(history["C"]) == ["1e-03", "1e-02"] and history["splits"].iloc[1] == after


def _form_defaults(at):
    """What the Train form's widgets show when a browser mounts them afresh: their elements' defaults."""
    return {
        "C": C_GRID[int(at.select_slider(key="train/C").proto.default[0])],
        **{name: int(at.slider(key=f"train/{name}").proto.default[0]) for name in ("N1", "N2", "fine_tune")},
        "seed": int(at.number_input(key="train/seed").proto.default),
        "max_bins": BIN_CHOICES[at.selectbox(key="train/max_bins").proto.default],
        "ccp_alpha": SIZE_CHOICES[at.selectbox(key="train/ccp_alpha").proto.default],
    }


def test_the_train_form_shows_the_session_settings_to_a_browser_that_mounts_it_afresh(app):
    """A browser shows a widget's element default until it holds a value of its own: after a script run
    it never saw (a busy server, two tabs), it showed C=1e-05, N1=1, N2=1 (the widgets' minimums) while
    the session trained with 1e-03, 2, 5, and Train then submitted the minimums. The defaults are the
    session's settings, before the first training and after another one."""
    go(app, "train")
    defaults = TrainParams()
    expected = {
        name: getattr(defaults, name) for name in ("C", "N1", "N2", "fine_tune", "seed", "max_bins", "ccp_alpha")
    }
    assert _form_defaults(app) == expected
    chosen = {"C": 2e-3, "N1": 1, "N2": 2, "fine_tune": 1, "seed": 7, "max_bins": BIN_CHOICES[1], "ccp_alpha": 0.0}
    assert all(chosen[name] != expected[name] for name in chosen)
    app.select_slider(key="train/C").set_value(chosen["C"])
    for name in ("N1", "N2", "fine_tune"):
        app.slider(key=f"train/{name}").set_value(chosen[name])
    app.number_input(key="train/seed").set_value(chosen["seed"])
    for name in ("max_bins", "ccp_alpha"):
        app.selectbox(key=f"train/{name}").set_value(chosen[name])
    button(app, "Train").click().run()
    assert not app.exception and not app.error
    params = app.session_state["train/params"]
    assert {name: getattr(params, name) for name in chosen} == chosen
    assert _form_defaults(app) == chosen
    go(go(app, "data"), "train")  # the form made afresh from the session's settings
    assert _form_defaults(app) == chosen
    assert app.select_slider(key="train/C").value == chosen["C"] and app.slider(key="train/N1").value == 1


def test_the_budget_controls_show_what_they_hold_to_a_browser_that_mounts_them_afresh(app):
    """As the form's settings above: with the toggle's element default off, a browser mounting the form
    afresh would show it off, and Train would train at C instead of searching."""

    def defaults():
        return app.toggle(key="train/budget_on").proto.default, app.number_input(key="train/budget").proto.default

    go(app, "train")
    assert defaults() == (False, 100)
    app.toggle(key="train/budget_on").set_value(True)
    app.number_input(key="train/budget").set_value(40)
    button(app, "Train").click().run()
    assert not app.exception and not app.error
    assert app.session_state["train/params"].C != 1e-3  # the search moved C
    assert defaults() == (True, 40)


def test_loading_another_bundled_data_set(app):
    app.selectbox[0].set_value("iris")
    button(app, "Load data set").click().run()
    assert metric(app, "Classes") == "3" and metric(app, "Training rows") == "105"
    train(app)
    assert int(metric(app, "Splits")) < 20


def test_uploading_a_valid_csv_trains(app):
    upload(app, ROOT / "tests" / "good_text_feature.csv")
    assert not app.error
    button(app, "Use this data").click().run()
    assert not app.error
    assert any("Column 'colour' is categorical" in i.value for i in app.info)  # a text column, by default
    data = app.session_state["data/dataset"]
    assert data.name == "good_text_feature.csv" and data.feature_names == ("a", "colour")
    assert data.categorical == ("colour",)
    train(app)
    assert not app.error and int(metric(app, "Splits")) >= 1
    assert app.session_state["data/dataset"].name == "good_text_feature.csv"


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_bad_upload_shows_its_message_and_keeps_the_previous_state(app, name):
    stage, message = CASES[name]
    train(app)  # a model trained on the default data
    model = app.session_state["train/models"].copy()
    data = app.session_state["data/dataset"]
    go(app, "data")
    upload(app, BAD / name)
    if stage == "prepare":
        assert not app.error
        button(app, "Use this data").click().run()
    assert len(app.error) == 1 and message in app.error[0].value
    assert app.session_state["data/dataset"] is data
    assert app.session_state["train/models"] == model
    assert metric(app, "Training rows") == "1,257"


# ---------------------------------------------------------------------------------------------- graph page
class RecordingMediaFileManager(MediaFileManager):
    """AppTest's media manager, remembered so that tests can read what download buttons serve."""

    last = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        RecordingMediaFileManager.last = self


@pytest.fixture
def downloads(monkeypatch):
    monkeypatch.setattr(app_test_module, "MediaFileManager", RecordingMediaFileManager)

    def read(button):
        manager = RecordingMediaFileManager.last
        proto = button.proto
        if proto.deferred_file_id:  # rendered on click: run the generator as the server would
            url = manager.execute_deferred(proto.deferred_file_id)
        else:
            url = proto.url
        return manager._storage.get_file(url.rsplit("/", 1)[-1]).content

    return read


def test_graph_page_draws_the_default_model_with_a_legend_and_a_sample_path(app):
    go(app, "graph")
    assert not app.error
    caption = app.main.caption[0].value
    assert caption.startswith("TnT on Handwritten digits (8x8)") and "nodes with several parents" in caption
    legend = app.get("html")[0].value
    assert all(f">{k}</span>" in legend for k in range(10)) and "#2563eb" in legend
    assert "mixed (no class over half)" in legend  # as in the plotly view and the DOT legend
    # A large graph (hundreds of nodes): the explorer, from the root down, the rest in summary nodes.
    assert app.radio(key="graph/view/server").value.startswith("Explorer")
    svg = explorer_drawing(app)["svg"]
    assert svg.startswith("<svg") and 'stroke="#c00000"' in svg and "splits below" in svg  # the sample's path
    assert "Sample **#0**" in app.main.markdown[0].value


def test_graph_page_sample_and_node_details(app):
    go(app, "graph")
    app.number_input(key="graph/sample").set_value(3).run()
    data = app.session_state["data/dataset"]
    assert f"class **{data.y_test[3]}**" in [m.value for m in app.main.markdown if "Sample **#3**" in m.value][0]
    path = app.dataframe[0].value
    assert path["node"].iloc[0] == 0 and path["test"].iloc[-1] == "leaf"
    graph = app.session_state["train/models"][next(iter(app.session_state["train/models"]))].tnt.graph_
    shared = int(graph.shared_nodes[0])
    app.number_input(key="graph/node").set_value(shared).run()
    text = " ".join(m.value for m in app.main.markdown)
    parents = ", ".join(f"#{q}" for q in graph.parents(shared))
    assert f"Node #{shared}" in text and f"parents: {parents}" in text
    # What a browser mounting the numbers afresh shows (their own defaults): the numbers chosen, not 0.
    assert app.number_input(key="graph/sample").proto.default == 3
    assert app.number_input(key="graph/node").proto.default == shared


def test_small_graphs_are_laid_out_in_the_browser_and_cart_can_be_shown(app):
    app.selectbox[0].set_value("iris")
    button(app, "Load data set").click().run()
    go(app, "graph")
    assert app.radio(key="graph/view/browser").value.startswith("Graphviz")
    dot = app.get("graphviz_chart")[0].proto.spec
    assert "digraph" in dot and "petal" in dot and 'color="#c00000"' in dot
    app.radio(key="graph/model").set_value("CART (same splits)").run()
    assert app.main.caption[0].value.startswith("CART (same splits) on Iris")


def test_a_thousand_split_graph_opens_in_the_explorer_whole_in_plotly_or_windowed_on_the_server(app, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(4000, 4))
    y = ((X[:, 0] * 7).astype(int) + (X[:, 1] * 5).astype(int) + rng.integers(0, 3, 4000)) % 4
    path = tmp_path / "noisy.csv"
    pd.DataFrame({**{f"f{i}": X[:, i].round(5) for i in range(4)}, "label": y}).to_csv(path, index=False)
    upload(app, path)
    button(app, "Use this data").click().run()
    app.session_state["train/params"] = TrainParams(C=1e-5, ccp_alpha=0.0)
    go(app, "graph")
    assert not app.error
    graph = app.session_state["train/models"][next(reversed(app.session_state["train/models"]))].tnt.graph_
    assert graph.n_splits >= 1000
    # The explorer first (tests/test_app_explorer.py). Graphviz in the browser would shrink it to the
    # page's width: not offered. The interactive view: what the explorer opened (tests/test_app_explorer.py),
    # zoom and pan in the browser.
    assert app.radio(key="graph/view/interactive").value.startswith("Explorer")
    assert app.radio(key="graph/view/interactive").options == [
        "SVG (rendered on the server)",
        "Interactive (plotly)",
        "Explorer (focus and context)",
    ]
    app.radio(key="graph/view/interactive").set_value("Interactive (plotly)").run()
    chart = app.get("plotly_chart")[0].proto
    spec = json.loads(chart.spec)
    shown = focus.graph_view(graph, app.session_state[f"explorer/opened/{fingerprint(graph)}"])
    assert [t["customdata"] for t in spec["data"] if t.get("name") == "nodes"] == [np.flatnonzero(shown.shown).tolist()]
    # As tall as the explorer's frame, opened on its target: whole layers (a layer's stubs above its nodes and
    # its labels below them inside the window), at least 90 px apart (a view's labels: 200 nodes at most; 30
    # px without), five of them at least when the view has five; the scroll wheel zooming it.
    n_layers = int(shown.layers()[shown.shown].max()) + 1
    assert spec["layout"]["height"] == EXPLORER_FRAME_PX[1]
    y0, y1 = spec["layout"]["yaxis"]["range"]
    px_a_layer = 90 if shown.size <= 200 else 30
    assert (EXPLORER_FRAME_PX[1] - 50) / (y1 - y0) >= px_a_layer
    in_view = [k for k in range(n_layers) if y0 <= -k <= y1]
    assert len(in_view) >= min(5, n_layers) and in_view == list(range(in_view[0], in_view[-1] + 1))
    assert 0.3 < y1 + in_view[0] < 0.8 and 0.3 < -in_view[-1] - y0 < 0.8  # room for stubs above, labels below
    assert json.loads(chart.config)["scrollZoom"] is True
    # The server's SVG starts with the first layers.
    app.radio(key="graph/view/interactive").set_value("SVG (rendered on the server)").run()
    (window,) = [s for s in app.slider if s.label.startswith("Depth window")]
    assert window.value == (0, 7)
    srcdoc = app.get("iframe")[0].proto.srcdoc
    assert 20 < srcdoc.count('class="node"') < 400  # the window, not thousands of nodes


MAGIC = {
    "svg": lambda b: b"<svg" in b[:400],
    "png": lambda b: b.startswith(b"\x89PNG\r\n\x1a\n"),
    "pdf": lambda b: b.startswith(b"%PDF-"),
    "dot": lambda b: b.lstrip().startswith(b"digraph"),
    "json": lambda b: isinstance(json.loads(b), dict),
    "txt": lambda b: b"<=" in b,
    "html": lambda b: b"Plotly.newPlot" in b and re.findall(rb"<script[^>]*>", b) == [b"<script>"] * 3,
    "py": lambda b: b"\ndef predict(row):" in b and compile(b, "model.py", "exec") is not None,
    "c": lambda b: b"\nint tnt_predict(const double *x)" in b,
    "sql": lambda b: b"WITH RECURSIVE" in b,
}


def test_every_download_button_yields_a_file_of_its_type(app, downloads):
    app.selectbox[0].set_value("wine")
    button(app, "Load data set").click().run()
    go(app, "graph")
    buttons = [b for b in app.get("download_button") if b.key.startswith("graph/download/")]  # the models'
    assert len(buttons) == 20
    seen = set()
    for b in buttons:
        _, _, stem, fmt = b.key.split("/")  # graph/download/<model>_C<C>/<format>
        data = downloads(b)
        assert data and MAGIC[fmt](data), b.key
        seen.add((stem.split("_")[0], fmt))
    assert seen == {(m, f) for m in ("tnt", "cart") for f in MAGIC}
    (tnt_json,) = [downloads(b) for b in buttons if b.key == "graph/download/tnt_C1e-03/json"]
    assert "children_left" in tnt_json.decode()


def test_the_code_downloads_predict_the_test_set_as_the_model(app, downloads):
    app.selectbox[0].set_value("wine")
    button(app, "Load data set").click().run()
    go(app, "graph")
    data = app.session_state["data/dataset"]
    model = next(iter(app.session_state["train/models"].values())).tnt
    expected = model.predict(data.X_test).tolist()
    (python,) = [downloads(b) for b in app.get("download_button") if b.key == "graph/download/tnt_C1e-03/py"]
    namespace = {}
    exec(python.decode("utf-8"), namespace)
    assert namespace["FEATURES"] == tuple(data.feature_names)
    assert [namespace["predict"](row) for row in data.X_test.tolist()] == expected
    (sql,) = [downloads(b) for b in app.get("download_button") if b.key == "graph/download/tnt_C1e-03/sql"]
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE data (id, {', '.join(map(sql_identifier, data.feature_names))})")
    db.executemany(
        f"INSERT INTO data VALUES ({', '.join('?' * (len(data.feature_names) + 1))})",
        [(i, *row) for i, row in enumerate(data.X_test.tolist())],
    )
    assert [p for _, p in db.execute(sql.decode("utf-8"))] == expected


def test_the_node_picker_follows_a_smaller_graph(app):
    go(app, "graph")
    result = next(iter(app.session_state["train/models"].values()))
    assert result.cart.graph_.node_count > result.tnt.graph_.node_count  # shared nodes: fewer leaves
    app.radio(key="graph/model").set_value("CART (same splits)").run()
    app.number_input(key="graph/node").set_value(result.cart.graph_.node_count - 1).run()
    app.radio(key="graph/model").set_value("TnT").run()
    assert not app.exception and not app.error
    assert app.number_input(key="graph/node").value == result.tnt.graph_.node_count - 1


def test_a_failure_during_training_is_one_message_and_the_previous_model_stays(app, monkeypatch):
    train(app)
    before = dict(app.session_state["train/models"])
    splits = metric(app, "Splits")

    def boom(*args, **kwargs):
        raise MemoryError("out of memory")

    monkeypatch.setattr(sys.modules["ui.views"], "train", boom)  # the module the pages imported
    app.select_slider[0].set_value(1e-4)
    button(app, "Train").click().run()
    assert not app.exception
    assert [e.value for e in app.error] == [
        "Training failed (MemoryError: out of memory); try other settings or another data set."
    ]
    assert dict(app.session_state["train/models"]) == before
    assert app.session_state["train/params"].C == 1e-3 and metric(app, "Splits") == splits  # still shown


def test_the_progress_bar_moves_with_every_grow_pass_and_merge(app, monkeypatch):
    from streamlit.elements.progress import ProgressMixin

    seen = []
    original = ProgressMixin.progress

    def recording(self, value, text=None):
        seen.append((value, text))
        return original(self, value, text=text)

    monkeypatch.setattr(ProgressMixin, "progress", recording)
    train(app)
    # N1=2 phases of N2=5 grow passes and a merge: the bar moves 12 times, to the end.
    assert [v for v, _ in seen] == [k / 12 for k in range(1, 13)]
    assert "merge 6 of 12" in seen[5][1] and "grow pass 7 of 12" in seen[6][1]


def test_names_from_an_upload_are_shown_as_text_not_markup(app, tmp_path):
    rng = np.random.default_rng(1)
    hostile = "<img src=x onerror=alert(1)>"
    path = tmp_path / "hostile.csv"
    pd.DataFrame({"<b>width</b>": rng.uniform(size=60).round(3), "label": [hostile, "plain"] * 30}).to_csv(
        path, index=False
    )
    upload(app, path)
    button(app, "Use this data").click().run()
    assert not app.error
    go(app, "graph")
    assert not app.exception and not app.error
    legend = app.get("html")[0].value
    assert "&lt;img src=x onerror=alert(1)&gt;" in legend and "<img" not in legend
    dot = app.get("graphviz_chart")[0].proto.spec
    assert "\\n<b>width</b> <=" in dot and "label=<" not in dot  # quoted labels: Graphviz shows them as text


def test_a_graph_without_a_single_split_shows_on_every_page(app):
    app.selectbox[0].set_value("corners")
    button(app, "Load data set").click().run()
    app.session_state["train/params"] = TrainParams(C=0.1)  # prunes everything: one leaf
    train(app)
    assert metric(app, "Splits") == "0"
    assert any("max_leaf_nodes = 2." in c.value for c in app.main.caption)
    go(app, "graph")
    assert not app.error and app.main.caption[0].value.startswith("TnT on Corners")
    assert app.dataframe[0].value["test"].tolist() == ["leaf"]


# ---------------------------------------------------------------------- sessions and faults
def _use_upload(at, path):
    upload(at, path)
    button(at, "Use this data").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]


def _train(at, C):
    go(at, "train")
    at.select_slider[0].set_value(C)
    button(at, "Train").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]


def test_two_sessions_see_only_their_own_data_and_models(app, tmp_path):
    """Two sessions of one app process, each training on its own data in turn.

    Trainings at the same moment are the real server's tests' to check
    (``test_browser_workspace.py::test_two_sessions_training_at_once_keep_their_own_workspaces``,
    ``test_browser.py::test_four_users_at_once``): ``AppTest`` runs one session at a time. Run in two
    threads, its runs race on what it swaps process-wide around each run (``config.get_option``,
    a new script cache whose parsing Python 3.11 does not make thread-safe), and about one run in
    five on a loaded machine lost a "Train" click with no error at all.
    """
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 2))
    path = tmp_path / "stripes.csv"
    pd.DataFrame({"u": X[:, 0], "v": X[:, 1], "kind": np.where(X[:, 0] > 0.5, "east", "west")}).to_csv(
        path, index=False
    )
    alice, bob = app, new_session(timeout=60)  # both start on the default data set
    alice.default_timeout = 60
    _use_upload(bob, path)
    train(alice)
    train(bob)  # each trains its default model
    _train(alice, 1e-2)
    _train(bob, 1e-4)
    a_data, b_data = alice.session_state["data/dataset"], bob.session_state["data/dataset"]
    assert a_data.name == "Handwritten digits (8x8)" and b_data.name == "stripes.csv"
    a_models, b_models = alice.session_state["train/models"], bob.session_state["train/models"]
    assert {key[0] for key in a_models} == {a_data.key} and {key[0] for key in b_models} == {b_data.key}
    assert {key[1].C for key in a_models} == {1e-3, 1e-2} and {key[1].C for key in b_models} == {1e-3, 1e-4}
    a_params, b_params = alice.session_state["train/params"], bob.session_state["train/params"]
    assert a_params.C == 1e-2 and b_params.C == 1e-4
    a_result, b_result = a_models[(a_data.key, a_params)], b_models[(b_data.key, b_params)]
    assert a_result.tnt.n_features_in_ == 64 and b_result.tnt.n_features_in_ == 2
    assert set(b_result.tnt.classes_) == {"east", "west"}
    assert metric(alice, "Splits") == str(a_result.tnt.n_splits_)
    assert metric(bob, "Splits") == str(b_result.tnt.n_splits_)


def test_sessions_get_their_own_copy_of_cached_data(app):
    other = new_session()
    mine, theirs = app.session_state["data/dataset"], other.session_state["data/dataset"]
    assert mine is not theirs and mine.X_train is not theirs.X_train
    before = theirs.X_train.copy()
    mine.X_train[:] = -1  # a careless page in one session...
    assert np.array_equal(theirs.X_train, before)  # ...cannot reach another
    assert np.array_equal(new_session().session_state["data/dataset"].X_train, before)  # nor the cache


def test_a_failing_fit_shows_a_message_and_keeps_the_previous_model_and_data(app, monkeypatch):
    train(app)
    data = app.session_state["data/dataset"]
    models = dict(app.session_state["train/models"])
    splits = metric(app, "Splits")

    def failing_fit(self, *args, **kwargs):
        raise RuntimeError("simulated crash in the middle of training")

    monkeypatch.setattr(TnTClassifier, "fit", failing_fit)
    app.select_slider[0].set_value(1e-4)
    button(app, "Train").click().run()
    assert not app.exception
    assert [e.value for e in app.error] == [
        "Training failed (RuntimeError: simulated crash in the middle of training); try other settings or another "
        "data set."
    ]
    assert app.session_state["data/dataset"] is data
    assert dict(app.session_state["train/models"]) == models
    assert app.session_state["train/params"].C == 1e-3 and metric(app, "Splits") == splits
    monkeypatch.undo()  # once the fault is gone, the same click trains
    button(app, "Train").click().run()
    assert not app.error and app.session_state["train/params"].C == 1e-4


def test_compare_shows_one_class_legend_for_all_its_graphs(app):
    go(app, "compare")
    assert not app.error
    # TnT, TnT fine-tuned, CART, TAO (NDG) on the default data: the explorer's view, summaries below the top
    frames = [
        json.loads(e.proto.json_args)["svg"]
        for e in app.get("component_instance")
        if "explorer/click/panel/" in e.proto.id
    ]
    assert len(frames) >= 4 and all("<svg" in f and "splits below" in f for f in frames)
    assert sum("mixed (no class over half)" in h.proto.body for h in app.get("html")) == 1
    assert any(c.value == EDGE_LEGEND for c in app.main.caption)
