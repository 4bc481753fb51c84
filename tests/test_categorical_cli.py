"""``tnt predict`` with a model whose graph has categorical features: its categorical columns are
read as text, by name, and the rest checked as numbers. ``tnt train --categorical COL ...`` learns
such a model from a CSV, and says in one sentence what it cannot take."""

from pathlib import Path

import numpy as np
import pandas as pd
from cli_helpers import run_tnt
from test_categorical_graph import colour_graph

from tnt import NDGClassifier, TnTClassifier
from tnt.data.csv_loader import read_csv_table
from tnt.model_io import LoadedGraphModel, model_from_json, model_to_json
from tnt.ndg import PAPER_C

COLOURS = Path(__file__).resolve().parent / "colours.csv"  # colour (text, empty cells), size, doors, label


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


def test_train_learns_categories_by_name_as_the_library_does(tmp_path):
    result = run_tnt("train", COLOURS, "--target", "label", "--categorical", "colour", "doors", "--test-size", "0",
                     "-o", "model.json", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    model = model_from_json((tmp_path / "model.json").read_text())
    frame = pd.read_csv(COLOURS)
    X, y = frame[["colour", "size", "doors"]], frame["label"]
    # The library's TnT with the same settings (N1=2 by default, with categorical columns too).
    reference = TnTClassifier(C=1e-3, N1=2, categorical_features=["colour", "doors"], random_state=0).fit(X, y)
    assert model.graph_.categories[0].tolist() == ["blue", "green", "purple", "red"]
    assert model.graph_.categories[2].tolist() == [2, 4]
    assert np.array_equal(model.predict(X), reference.predict(X))
    assert f"train accuracy {reference.score(X, y):.4f} on 120 rows" in result.stdout.splitlines()
    assert "categorical colour: 4 categories" in result.stdout and "categorical doors: 2 categories" in result.stdout
    predicted = run_tnt("predict", "model.json", COLOURS, cwd=tmp_path)
    assert predicted.stdout.splitlines()[1:] == reference.predict(X).tolist()


def test_ndg_learns_categories_by_name_as_the_library_does(tmp_path):
    result = run_tnt("train", COLOURS, "--target", "label", "--categorical", "colour", "--model", "ndg",
                     "--test-size", "0", "-o", "model.json", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    model = model_from_json((tmp_path / "model.json").read_text())
    frame = pd.read_csv(COLOURS)
    X, y = frame[["colour", "size", "doors"]], frame["label"]
    reference = NDGClassifier(C=PAPER_C, categorical_features=["colour"], random_state=0).fit(X, y)
    assert model.graph_.categories[0].tolist() == ["blue", "green", "purple", "red"]
    assert model.graph_.is_categorical.any()
    assert np.array_equal(model.predict(X), reference.predict(X))


def test_train_to_a_budget_with_categories(tmp_path):
    result = run_tnt("train", COLOURS, "--target", "label", "--categorical", "colour", "--max-splits", "3",
                     "-o", "model.json", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    model = model_from_json((tmp_path / "model.json").read_text())
    assert model.n_splits_ <= 3 and model.graph_.is_categorical.any()
    assert "CART with the same" in result.stdout


def test_train_says_in_one_sentence_what_categorical_columns_it_cannot_take(tmp_path):
    cases = {
        ("--categorical", "nope"): "There is no column named 'nope'; the columns are colour, size, doors, label.",
        ("--categorical", "label"): "--categorical names the target column 'label'; name feature columns only.",
        ("--categorical", "colour", "size"): "Column 'size' holds numbers that are not whole numbers 0 or more",
        (): "Column 'colour' holds text (such as 'purple') where numbers are expected; to learn from its values "
        "by name, train with --categorical 'colour'",
    }
    for options, message in cases.items():
        result = run_tnt("train", COLOURS, "--target", "label", *options, "-o", "model.json", cwd=tmp_path)
        assert result.returncode == 1 and message in result.stderr, (options, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "model.json").exists()


def test_train_pools_rare_categories_as_the_library_does(tmp_path):
    from test_categorical_pooling import table

    X, y = table(0)
    frame = pd.DataFrame({"colour": [f"c{int(c)}" for c in X[:, 0]], "size": X[:, 1], "label": y})
    frame.to_csv(tmp_path / "many.csv", index=False)
    options = (
        "--target",
        "label",
        "--categorical",
        "colour",
        "--test-size",
        "0",
        "--N1",
        "1",
        "--C",
        "0",
        "--size",
        "C",
    )
    result = run_tnt("train", "many.csv", *options, "--min-category-samples", "8", "-o", "model.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    model = model_from_json((tmp_path / "model.json").read_text())
    settings = {"C": 0.0, "N1": 1, "ccp_alpha": 0.0, "categorical_features": ["colour"], "random_state": 0}
    data = frame[["colour", "size"]]
    pooled = TnTClassifier(min_category_samples=8, **settings).fit(data, y)
    breiman = TnTClassifier(**settings).fit(data, y)
    np.testing.assert_array_equal(model.graph_.feature, pooled.graph_.feature)
    np.testing.assert_array_equal(model.graph_.category_left, pooled.graph_.category_left)
    assert np.array_equal(model.predict(data), pooled.predict(data))
    # the option changes the model: Breiman's ordering splits the categories otherwise
    assert not np.array_equal(pooled.graph_.category_left, breiman.graph_.category_left)


def test_min_category_samples_needs_categorical_columns(tmp_path):
    result = run_tnt("train", COLOURS, "--target", "label", "--min-category-samples", "5", "-o", "model.json",
                     cwd=tmp_path)  # fmt: skip
    assert result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "--min-category-samples pools categories of --categorical columns; name them or drop it." in result.stderr
    result = run_tnt("train", COLOURS, "--target", "label", "--categorical", "colour", "--min-category-samples", "0",
                     "-o", "model.json", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 2 and "0 is not between 1 and 255" in result.stderr
