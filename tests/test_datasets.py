"""The bundled catalog, the CSV reader and the checks every data set goes through."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tnt.csv_input import Limits, read_csv_bytes
from tnt.datasets import DataError, catalog, default_dataset_id, load_bundled, make_dataset, split

BAD = Path(__file__).resolve().parent / "bad_csv"
CASES = json.loads((BAD / "cases.json").read_text())


def prepare(table):
    columns = list(table.frame.columns)
    return make_dataset(table.frame, target=columns[-1], features=columns[:-1], name=table.name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_bad_file_gets_its_one_sentence(name):
    stage, message = CASES[name]
    data = (BAD / name).read_bytes()
    if stage == "read":
        with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
            read_csv_bytes(data, name)
    else:
        table = read_csv_bytes(data, name)  # reads fine: the problem is in the chosen columns
        with pytest.raises(DataError, match=message):
            prepare(table)


@pytest.mark.parametrize("name", sorted(CASES))
def test_messages_are_one_sentence_that_says_what_to_do(name):
    data = (BAD / name).read_bytes()
    with pytest.raises(DataError) as info:
        prepare(read_csv_bytes(data, name))
    text = str(info.value)
    assert text.endswith(".") and text.count(". ") == 0 and "\n" not in text
    assert ";" in text  # what is wrong; what to do


def test_catalog_files_exist_and_default_is_listed():
    ids = [e["id"] for e in catalog()]
    assert {"corners", "iris", "wine", "breast_cancer", "digits", "pendigits"} <= set(ids)
    assert default_dataset_id() in ids
    for entry in catalog():
        frame = pd.read_csv(Path(__file__).resolve().parent.parent / "sample_data" / entry["file"], nrows=2)
        assert entry["target"] in frame.columns and entry["description"]


def test_corners_is_the_papers_toy_problem():
    frame = pd.read_csv(Path(__file__).resolve().parent.parent / "sample_data" / "corners.csv")
    near = lambda v: (v < 0.25) | (v > 0.75)  # noqa: E731
    assert len(frame) == 2000
    assert np.array_equal(frame["class"], (near(frame.x1) & near(frame.x2)).astype(int))


def test_bundled_split_is_seeded_and_stratified():
    a = load_bundled("wine", test_size=0.25, seed=3)
    b = load_bundled("wine", test_size=0.25, seed=3)
    c = load_bundled("wine", test_size=0.25, seed=4)
    assert np.array_equal(a.X_test, b.X_test) and a.key == b.key
    assert not np.array_equal(a.X_test, c.X_test) and a.key != c.key
    balance = a.class_balance()
    assert list(balance.index) == ["class_0", "class_1", "class_2"]
    share = balance["test"] / balance.sum(axis=1)
    assert np.allclose(share, 0.25, atol=0.03)


def test_pendigits_keeps_its_official_split():
    ds = load_bundled("pendigits", test_size=0.5)
    assert (len(ds.y_train), len(ds.y_test)) == (7494, 3498)
    assert ds.n_features == 16 and "split" not in ds.feature_names
    assert ds.notes == ("The data keeps its own train/test split (column 'split'); the test share does not apply.",)


def test_digits_keeps_constant_pixels_but_uploads_refuse_them():
    assert load_bundled("digits").n_features == 64
    frame = pd.DataFrame({"a": [0, 1] * 5, "zero": 0, "y": ["p", "q"] * 5})
    with pytest.raises(DataError, match="Column 'zero' has the same value"):
        make_dataset(frame, target="y", features=["a", "zero"], name="t")


def test_text_feature_is_encoded_with_a_note():
    table = read_csv_bytes((BAD.parent / "good_text_feature.csv").read_bytes())
    ds = prepare(table)
    assert ds.feature_names == ("a", "colour")
    assert set(np.unique(np.concatenate([ds.X_train[:, 1], ds.X_test[:, 1]]))) == {0.0, 1.0, 2.0}
    assert ds.notes == ("Column 'colour' holds text; it is encoded as numbers in alphabetical order (blue=0, green=1, red=2).",)


def test_missing_values_can_be_dropped_on_request():
    table = read_csv_bytes((BAD / "missing_values.csv").read_bytes())
    frame = table.frame
    ds = make_dataset(frame, target="class", features=["a", "b"], name="t", drop_missing=True)
    assert len(ds.y_train) + len(ds.y_test) == len(frame) - 1
    assert ds.notes == ("Dropped 1 rows with missing values.",)


def test_string_labels_and_column_errors():
    frame = pd.DataFrame({"a": range(10), "y": ["u", "v"] * 5})
    ds = make_dataset(frame, target="y", features=["a"], name="t")
    assert ds.class_names == ["u", "v"]
    with pytest.raises(DataError, match="There is no column named 'z'"):
        make_dataset(frame, target="z", features=["a"], name="t")
    with pytest.raises(DataError, match="No feature columns are chosen"):
        make_dataset(frame, target="y", features=[], name="t")
    with pytest.raises(DataError, match="cannot also be a feature"):
        make_dataset(frame, target="y", features=["a", "y"], name="t")


def test_split_refuses_shares_that_leave_a_class_out():
    X, y = np.zeros((6, 1)), np.array([0, 0, 1, 1, 2, 2])
    with pytest.raises(DataError, match="leaves a part without every class"):
        split(X, y, test_size=0.1, seed=0)
    with pytest.raises(DataError, match="test share must be between 0 and 1"):
        split(X, y, test_size=1.0, seed=0)


def test_reader_sniffs_delimiters_and_strips_a_bom():
    table = read_csv_bytes("\ufeffa\tb\tlabel\n1\t2\tx\n3\t4\ty\n".encode())
    assert table.delimiter == "\t" and list(table.frame.columns) == ["a", "b", "label"]
    assert read_csv_bytes(b"a|b|c\n1|2|3\n").delimiter == "|"


def test_reader_limits_rows_and_bytes():
    data = b"a,b\n" + b"1,2\n" * 11
    with pytest.raises(DataError, match="The file has 11 rows; the app takes at most 10"):
        read_csv_bytes(data, limits=Limits(max_rows=10))
    with pytest.raises(DataError, match="the app reads at most"):
        read_csv_bytes(data, limits=Limits(max_bytes=10))
