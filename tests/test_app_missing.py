"""The app with a table that has empty cells (AppTest, no browser): they are used as they are, counted per
column on the Data page, dropped only on request, and every page that trains learns from them."""

from pathlib import Path

import numpy as np
import pytest
from app_helpers import button, go, metric, upload

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
    assert len(counts) == 1 and counts[0].to_dict("index") == {"b": {"missing": 1, "share": 1 / 40}}
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
    go(app, "train")
    assert not app.error and int(metric(app, "Splits")) >= 1


def test_the_train_page_learns_from_missing_values(app):
    upload(app, HOLES)
    button(app, "Use this data").click().run()
    go(app, "train")
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
