"""``tnt predict`` with a model whose graph has categorical features: its categorical columns are
read as text, by name, and the rest checked as numbers."""

import numpy as np
import pandas as pd
from cli_helpers import run_tnt
from test_categorical_graph import colour_graph

from tnt.data.csv_loader import read_csv_table
from tnt.model_io import LoadedGraphModel, model_to_json


def colour_model(names=("colour", "size")):
    graph = colour_graph()
    return LoadedGraphModel._holding(graph, 2, None if names is None else list(names), "CARTClassifier", {},
                                     np.array(["no", "yes"]))  # fmt: skip


ROWS = "colour,size\nblue,0.1\ngreen,0.1\nred,0.9\n,0.9\npurple,0.1\n"


def test_predict_reads_categories_by_name(tmp_path):
    (tmp_path / "model.json").write_text(model_to_json(colour_model()))
    (tmp_path / "rows.csv").write_text(ROWS)
    result = run_tnt("predict", "model.json", "rows.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = colour_model().predict(pd.read_csv(tmp_path / "rows.csv"))
    assert result.stdout.splitlines() == ["prediction", *expected.tolist()]
    assert expected.tolist() == ["no", "no", "yes", "yes", "no"]


def test_the_numeric_columns_are_still_checked(tmp_path):
    (tmp_path / "model.json").write_text(model_to_json(colour_model()))
    (tmp_path / "rows.csv").write_text("colour,size\nblue,small\n")
    result = run_tnt("predict", "model.json", "rows.csv", cwd=tmp_path)
    assert result.returncode != 0 and "Column 'size' holds text" in result.stderr


def test_a_categorical_model_without_feature_names_says_why_it_cannot_read_a_csv(tmp_path):
    (tmp_path / "model.json").write_text(model_to_json(colour_model(names=None)))
    (tmp_path / "rows.csv").write_text(ROWS)
    result = run_tnt("predict", "model.json", "rows.csv", cwd=tmp_path)
    assert result.returncode != 0 and "categorical features but no feature names" in result.stderr


def test_text_columns_come_back_as_read(tmp_path):
    (tmp_path / "rows.csv").write_text("colour,size\nblue,0.1\n,0.2\n")
    X, _ = read_csv_table(tmp_path / "rows.csv", text_features=["colour"])
    assert X.columns.tolist() == ["colour", "size"]
    assert X["colour"].iloc[0] == "blue" and pd.isna(X["colour"].iloc[1]) and X["size"].tolist() == [0.1, 0.2]
    only_text, _ = read_csv_table(tmp_path / "rows.csv", features=["colour"], text_features=["colour"])
    assert only_text["colour"].iloc[0] == "blue" and pd.isna(only_text["colour"].iloc[1])


def test_info_lists_the_categorical_features(tmp_path):
    (tmp_path / "model.json").write_text(model_to_json(colour_model()))
    result = run_tnt("info", "model.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "categorical colour: 3 categories (blue, green, red)" in result.stdout.splitlines()
