"""The app with a table that has empty cells (AppTest, no browser): they are used as they are, counted per
column on the Data page, dropped only on request, and every page that trains learns from them."""

from pathlib import Path

import numpy as np
import pytest
from app_helpers import button, go, metric, train, upload

from tnt.experiments.ensembles import ADABOOST_TAKES_NO_MISSING

ROOT = Path(__file__).resolve().parent.parent
HOLES = ROOT / "tests" / "bad_csv" / "missing_values.csv"  # 40 rows, one empty cell in column b


@pytest.fixture
def app(open_app):
    return open_app(30)


def frames(at):
    return [d.value for d in at.dataframe]


def test_the_preview_counts_the_empty_cells_of_each_column(app):
    upload(app, HOLES)
    assert not app.error
    counts = [f for f in frames(app) if "missing" in f.columns]
    # The column's name, its empty cells and their share as a percentage (one decimal).
    assert len(counts) == 1 and counts[0].to_dict("index") == {"b": {"missing": 1, "share": 100 / 40}}
    assert "Missing values (empty cells) in 1 of the 3 columns" in [c.value for c in app.caption]


def test_a_table_with_empty_cells_is_used_as_it_is(app):
    upload(app, HOLES)
    button(app, "Use this data").click().run()
    assert not app.error
    data = app.session_state["data/dataset"]
    assert data.name == "missing_values.csv" and len(data.y_train) + len(data.y_test) == 40
    assert int(np.isnan(data.X_train).sum() + np.isnan(data.X_test).sum()) == 1
    assert metric(app, "Training rows") == "28" and metric(app, "Test rows") == "12"
    assert any(i.value.startswith("1 feature values are missing, in 1 of the columns") for i in app.info)
    per_feature = [f for f in frames(app) if "share" in f.columns and "train" in f.columns]
    assert len(per_feature) == 1 and per_feature[0].index.tolist() == ["b"]
    assert int(per_feature[0].loc["b", "train"] + per_feature[0].loc["b", "test"]) == 1
    assert not app.warning


def test_dropping_rows_with_missing_values_stays_an_option(app):
    upload(app, HOLES)
    (drop,) = [c for c in app.checkbox if c.label == "Drop rows with missing values"]
    drop.check()
    button(app, "Use this data").click().run()
    assert not app.error
    data = app.session_state["data/dataset"]
    assert len(data.y_train) + len(data.y_test) == 39 and not np.isnan(data.X_train).any()
    assert "Dropped 1 rows with missing values." in [i.value for i in app.info]
    assert not app.warning
    train(app)
    assert not app.error and int(metric(app, "Splits")) >= 1


def test_the_train_page_learns_from_missing_values(app):
    upload(app, HOLES)
    button(app, "Use this data").click().run()
    train(app)
    assert not app.exception and not app.error and not app.warning
    assert int(metric(app, "Splits")) >= 1


def test_the_sweep_page_learns_from_missing_values(app):
    upload(app, HOLES)
    button(app, "Use this data").click().run()
    go(app, "sweep")
    assert not app.exception and not app.error and not app.warning
    button(app, "Run sweep").click().run(timeout=300)
    assert not app.exception and not app.error


def test_the_ensembles_page_says_that_adaboost_takes_no_missing_values(app):
    upload(app, HOLES)
    button(app, "Use this data").click().run()
    go(app, "ensembles")
    assert not app.exception and not app.error
    assert [i.value for i in app.info] == [ADABOOST_TAKES_NO_MISSING]
    assert not [b for b in app.button if b.label == "Train the ensembles"]


def test_the_chosen_file_is_kept_when_the_user_leaves_the_data_page_and_comes_back(app):
    upload(app, HOLES)
    go(app, "train")
    go(app, "data")
    assert not app.exception and not app.error
    assert any(c.value.startswith("Chosen before: **missing_values.csv**") for c in app.caption)
    assert any(c.value.startswith("Preview of missing_values.csv (40 rows") for c in app.caption)
    # Its form still works, and a second rerun keeps it.
    button(app, "Use this data").click().run()
    assert not app.error and app.session_state["data/dataset"].name == "missing_values.csv"
    assert any(c.value.startswith("Preview of missing_values.csv") for c in app.caption)
    button(app, "Forget this file").click().run()
    assert not any(c.value.startswith("Preview of") for c in app.caption)
    assert app.session_state["data/dataset"].name == "missing_values.csv"  # the data in use stays


def test_a_file_removed_from_the_uploader_is_forgotten(app):
    upload(app, HOLES)
    app.file_uploader(key="data/upload").set_value(None).run()
    assert not app.exception
    assert not any(c.value.startswith("Preview of") or c.value.startswith("Chosen before") for c in app.caption)
