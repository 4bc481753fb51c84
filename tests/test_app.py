"""The app, page by page, through Streamlit's AppTest (no browser)."""

import json
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "bad_csv"
CASES = json.loads((BAD / "cases.json").read_text())


@pytest.fixture
def app():
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.run()
    assert not at.exception
    return at


def button(at, label):
    (match,) = [b for b in at.button if b.label == label]
    return match


def metric(at, label):
    (match,) = [m for m in at.metric if m.label == label]
    return match.value


def go(at, page):
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def upload(at, path):
    at.file_uploader(key="data/upload").set_value((path.name, path.read_bytes(), "text/csv")).run()
    assert not at.exception, at.exception
    return at


def test_data_page_works_with_no_interaction(app):
    assert not app.error
    assert app.header[0].value == "Data"
    assert metric(app, "Training rows") == "1,257" and metric(app, "Test rows") == "540"
    assert metric(app, "Features") == "64" and metric(app, "Classes") == "10"
    assert app.session_state["data/dataset"].name == "Handwritten digits (8x8)"
    assert len(app.get("vega_lite_chart")) == 1  # the class balance chart
    # The shared sidebar.
    assert "**Data:** Handwritten digits (8x8)" in [m.value for m in app.sidebar.markdown]
    assert "Not trained yet with these settings: open Train." in [c.value for c in app.sidebar.caption]


def test_train_page_trains_the_default_model_on_first_open(app):
    go(app, "train")
    assert not app.error
    splits = int(metric(app, "Splits"))
    assert 80 < splits < 200
    assert int(metric(app, "Nodes with several parents")) > 0
    assert float(metric(app, "Test accuracy")) > 0.8
    table = app.table[0].value
    assert list(table.columns) == ["TnT", "CART (same splits)"]
    assert table.loc["splits", "CART (same splits)"] == str(splits)
    # The shared sidebar is drawn after the page ran, so it already shows the model just trained.
    assert "**Data:** Handwritten digits (8x8)" in [m.value for m in app.sidebar.markdown]
    assert any(c.value.startswith(f"TnT: {splits} splits") for c in app.sidebar.caption)


def test_changing_c_changes_the_split_count_and_going_back_is_instant(app):
    go(app, "train")
    before = int(metric(app, "Splits"))
    app.select_slider[0].set_value(1e-2)
    button(app, "Train").click().run()
    after = int(metric(app, "Splits"))
    assert after < before
    app.select_slider[0].set_value(1e-3)
    button(app, "Train").click().run()
    assert int(metric(app, "Splits")) == before
    assert any("Taken from this session's cache" in c.value for c in app.main.caption)
    history = app.dataframe[0].value
    assert list(history["C"]) == ["1e-03", "1e-02"] and history["splits"].iloc[1] == after


def test_loading_another_bundled_data_set(app):
    app.selectbox[0].set_value("iris")
    button(app, "Load data set").click().run()
    assert metric(app, "Classes") == "3" and metric(app, "Training rows") == "105"
    go(app, "train")
    assert int(metric(app, "Splits")) < 20


def test_uploading_a_valid_csv_trains(app):
    upload(app, ROOT / "tests" / "good_text_feature.csv")
    assert not app.error
    button(app, "Use this data").click().run()
    assert not app.error
    assert any("encoded as numbers" in i.value for i in app.info)
    data = app.session_state["data/dataset"]
    assert data.name == "good_text_feature.csv" and data.feature_names == ("a", "colour")
    go(app, "train")
    assert not app.error and int(metric(app, "Splits")) >= 1
    assert app.session_state["data/dataset"].name == "good_text_feature.csv"


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_bad_upload_shows_its_message_and_keeps_the_previous_state(app, name):
    stage, message = CASES[name]
    go(app, "train")  # a model trained on the default data
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


def test_the_progress_bar_moves_with_every_grow_pass_and_merge(app, monkeypatch):
    from streamlit.elements.progress import ProgressMixin

    seen = []
    original = ProgressMixin.progress

    def recording(self, value, text=None):
        seen.append((value, text))
        return original(self, value, text=text)

    monkeypatch.setattr(ProgressMixin, "progress", recording)
    go(app, "train")
    # N1=2 phases of N2=5 grow passes and a merge: the bar moves 12 times, to the end.
    assert [v for v, _ in seen] == [k / 12 for k in range(1, 13)]
    assert "merge 6 of 12" in seen[5][1] and "grow pass 7 of 12" in seen[6][1]
