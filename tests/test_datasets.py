"""The bundled catalog, the CSV reader and the checks every data set goes through."""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from tnt.data.csv_loader import Limits, read_csv_bytes
from tnt.data.datasets import DataError, catalog, default_dataset_id, load_bundled, make_dataset, prepare_table, split

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
        frame = pd.read_csv(
            Path(__file__).resolve().parent.parent / "tnt" / "data" / "bundled" / entry["file"], nrows=2
        )
        assert entry["target"] in frame.columns and entry["description"]


def test_corners_is_the_papers_toy_problem():
    frame = pd.read_csv(Path(__file__).resolve().parent.parent / "tnt" / "data" / "bundled" / "corners.csv")
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


def test_text_feature_is_categorical_with_a_note():
    table = read_csv_bytes((BAD.parent / "good_text_feature.csv").read_bytes())
    ds = prepare(table)
    assert ds.feature_names == ("a", "colour") and ds.categorical == ("colour",)
    assert set(np.unique(np.concatenate([ds.X_train[:, 1], ds.X_test[:, 1]]))) == {0.0, 1.0, 2.0}
    assert ds.notes == ("Column 'colour' is categorical: a split sends a subset of the categories one way.",)


def test_a_text_feature_not_marked_categorical_is_encoded_in_alphabetical_order_with_a_note():
    frame = read_csv_bytes((BAD.parent / "good_text_feature.csv").read_bytes()).frame
    ds = make_dataset(frame, target="class", features=["a", "colour"], name="t", categorical=[])
    assert ds.categorical == () and ds.categories == {"colour": ("blue", "green", "red")}
    codes = np.concatenate([ds.X_train[:, 1], ds.X_test[:, 1]])
    assert sorted(codes.tolist()) == sorted(["blue", "green", "red"].index(c) for c in frame["colour"])
    assert ds.notes == (
        "Column 'colour' holds text; it is encoded as numbers in alphabetical order (blue=0, green=1, red=2).",
    )


def test_a_numeric_feature_marked_categorical_is_coded_by_its_values():
    frame = pd.DataFrame({"doors": [4, 2, None, 5] * 5, "y": ["p", "q"] * 10})
    ds = make_dataset(frame, target="y", features=["doors"], name="t", categorical=["doors"], test_size=0.5)
    assert ds.categorical == ("doors",) and ds.categories == {"doors": (2, 4, 5)}
    X = np.concatenate([ds.X_train[:, 0], ds.X_test[:, 0]])
    assert sorted(X[~np.isnan(X)].tolist()) == sorted({2: 0.0, 4: 1.0, 5: 2.0}[v] for v in [4, 2, 5] * 5)
    assert np.isnan(X).sum() == 5
    # The data set's key says which columns are categorical; without any it is the key saved before.
    plain = make_dataset(frame, target="y", features=["doors"], name="t", test_size=0.5)
    assert plain.categorical == () and plain.key != ds.key


def test_more_values_than_a_categorical_feature_may_have_is_one_sentence():
    frame = pd.DataFrame({"code": np.arange(300) * 1.0, "y": ["p", "q"] * 150})
    with pytest.raises(DataError, match=r"^Column 'code' holds numbers with 300 different values, more than the 255 "
                       r"categories a feature may have; leave it out, or treat it as numeric\.$"):  # fmt: skip
        make_dataset(frame, target="y", features=["code"], name="t", categorical=["code"])


def test_missing_values_can_be_dropped_on_request():
    table = read_csv_bytes((BAD / "missing_values.csv").read_bytes())
    frame = table.frame
    ds = make_dataset(frame, target="class", features=["a", "b"], name="t", drop_missing=True)
    assert len(ds.y_train) + len(ds.y_test) == len(frame) - 1
    assert ds.notes == ("Dropped 1 rows with missing values.",)


def test_missing_values_are_kept_as_nan_and_counted_per_column():
    frame = pd.read_csv(BAD / "missing_values.csv")
    ds = make_dataset(frame, target="class", features=["a", "b"], name="t")
    assert len(ds.y_train) + len(ds.y_test) == len(frame)
    assert int(np.isnan(ds.X_train).sum() + np.isnan(ds.X_test).sum()) == 1
    assert ds.missing_counts().index.tolist() == ["b"] and ds.missing_counts()["share"].iloc[0] == 1 / len(frame)
    assert ds.notes == (
        "1 feature values are missing, in 1 of the columns; they are kept as missing values, not filled in.",
    )


def test_an_empty_text_cell_is_missing_not_a_category():
    frame = pd.DataFrame({"colour": ["red", None, "blue", "red", "", "blue"] * 3, "y": ["u", "v", "w"] * 6})
    ds = make_dataset(frame, target="y", features=["colour"], name="t", seed=1)
    assert ds.categories == {"colour": ("", "blue", "red")}  # an empty string is a value, None is missing
    codes = np.concatenate([ds.X_train[:, 0], ds.X_test[:, 0]])
    assert np.isnan(codes).sum() == 3 and set(codes[~np.isnan(codes)]) == {0.0, 1.0, 2.0}


def test_an_empty_text_cell_read_from_a_file_is_missing():
    table = read_csv_bytes(b"colour,n,y\nred,1,u\n,2,v\nblue,3,u\nred,4,v\n,5,u\nblue,6,v\n")
    X, _, _, _ = prepare_table(table.frame, target="y", features=["colour", "n"])
    assert np.isnan(X[:, 0]).tolist() == [False, True, False, False, True, False]
    assert X[~np.isnan(X[:, 0]), 0].tolist() == [1.0, 0.0, 1.0, 0.0]  # blue=0, red=1: no category for ""


def test_rows_without_a_target_are_dropped_and_an_empty_column_is_refused():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "e": [np.nan] * 5, "y": ["u", None, "v", "u", "v"]})
    X, y, notes, rows = prepare_table(frame, target="y", features=["a"])
    assert rows.tolist() == [0, 2, 3, 4] and notes == [
        "Dropped 1 rows whose 'y' is missing (nothing to learn or test)."
    ]
    with pytest.raises(DataError, match=r"^Column 'e' is empty \(every value is missing\); leave it out"):
        prepare_table(frame, target="y", features=["a", "e"])
    with pytest.raises(DataError, match="The column 'e' is empty in every row"):
        prepare_table(frame, target="e", features=["a"])


def test_missing_per_column_counts_the_empty_cells_of_a_table():
    from tnt.data.datasets import missing_per_column

    table = read_csv_bytes((BAD / "missing_values.csv").read_bytes())
    counts = missing_per_column(table.frame)
    assert counts.to_dict("index") == {"b": {"missing": 1, "share": 1 / len(table.frame)}}
    assert missing_per_column(table.frame.dropna()).empty


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
    with pytest.raises(DataError, match="The file has 11 rows; TnT Explorer takes at most 10"):
        read_csv_bytes(data, limits=Limits(max_rows=10))
    with pytest.raises(DataError, match="TnT Explorer reads at most"):
        read_csv_bytes(data, limits=Limits(max_bytes=10))


def test_prepare_table_is_the_one_set_of_checks_for_app_and_command_line():
    from tnt.data.datasets import prepare_table

    frame = pd.DataFrame({"a": [1.0, 2.0, None, 4.0], "colour": ["red", "blue", "red", "red"], "y": ["u", "v"] * 2})
    X, _, notes, _ = prepare_table(frame, target="y", features=["a", "colour"])
    assert np.isnan(X[2, 0]) and notes[0].startswith("1 feature values are missing, in 1 of the columns")
    X, y, notes, rows = prepare_table(frame, target="y", features=["a", "colour"], drop_missing=True)
    assert X.tolist() == [[1.0, 1.0], [2.0, 0.0], [4.0, 1.0]] and y.tolist() == ["u", "v", "v"]
    assert rows.tolist() == [0, 1, 3] and notes[0] == "Dropped 1 rows with missing values."
    with pytest.raises(
        DataError, match=r"Column 'colour' holds text \(such as 'red'\) where numbers are expected; to learn from its"
    ):
        prepare_table(frame, target="y", features=["colour"], encode_text=False)
    X, y, _, _ = prepare_table(frame, target=None, features=["colour"])  # features only, for prediction
    assert y is None and X.ravel().tolist() == [1.0, 0.0, 1.0, 1.0]


def test_a_data_set_keeps_the_categories_its_text_codes_stand_for():
    frame = pd.DataFrame(
        {"a": [0.5, 1.5, 2.5, 3.5] * 5, "colour": ["red", "blue", "green", "blue"] * 5, "flag": [True, False] * 10,
         "y": ["u", "v"] * 10}
    )  # fmt: skip
    data = make_dataset(frame, target="y", features=["a", "colour", "flag"], name="t", test_size=0.25, seed=0)
    assert data.categories == {"colour": ("blue", "green", "red")}  # booleans are numbers, not text
    X = np.vstack([data.X_train, data.X_test])
    assert sorted({data.categories["colour"][int(code)] for code in X[:, 1]}) == ["blue", "green", "red"]
    assert load_bundled(default_dataset_id()).categories == {}


def test_the_command_line_reads_files_through_the_same_loader(tmp_path):
    from tnt.data.csv_loader import read_csv_table

    for name, (stage, message) in sorted(CASES.items()):
        target = "class" if stage == "read" else str(read_csv_bytes((BAD / name).read_bytes()).frame.columns[-1])
        if name == "free_text_column.csv":  # the app codes up to 255 text values; tnt train reads numbers
            message = "Column 'comment' holds text (such as 'note number 0') where numbers are expected; to learn"
        if name == "singleton_class.csv":  # reads fine; the stratified split of tnt train refuses it
            X, y = read_csv_table(BAD / name, target=target, reject_constant=True)
            with pytest.raises(DataError, match=message):
                split(X, y, test_size=0.25, seed=0)
            continue
        with pytest.raises(DataError) as info:
            read_csv_table(BAD / name, target=target, reject_constant=True)
        assert str(info.value).startswith(f"{BAD / name}: ") and message in str(info.value)
    path = tmp_path / "semicolons.csv"
    path.write_text("a;b;y\n1;2;u\n3;4;v\n")
    X, y = read_csv_table(path, target="y")
    assert X.columns.tolist() == ["a", "b"] and y.tolist() == ["u", "v"]
    path.write_text("a;b;y\n" + "1;2;u\n" * 400_000)
    with pytest.raises(DataError, match="semicolons.csv: The file is 2 MB; TnT Explorer reads at most 1 MB"):
        read_csv_table(path, target="y", limits=Limits(max_bytes=1_000_000))


def test_a_first_row_of_data_is_not_taken_for_a_header_but_whole_number_names_are_fine():
    with pytest.raises(DataError, match=r"holds numbers such as '1\.5' where column names belong, so the file"):
        read_csv_bytes(b"1.5,2,x\n3.5,4,y\n")
    table = read_csv_bytes(b"0,1,label\n0.5,1,x\n2.5,3,y\n")  # pixel-style names, as DataFrame(X).to_csv() writes
    assert list(table.frame.columns) == ["0", "1", "label"]


def test_model_input_names_the_columns_for_a_model_fitted_with_names():
    """Rows for a model fitted with feature names (a model file that names its columns) are a table with
    those names; a model fitted on arrays still gets the array: scikit-learn warns of neither."""
    data = load_bundled("iris")
    frame = pd.DataFrame(data.X_train, columns=list(data.feature_names))
    named = DecisionTreeClassifier(max_depth=2, random_state=0).fit(frame, data.y_train)
    plain = DecisionTreeClassifier(max_depth=2, random_state=0).fit(data.X_train, data.y_train)
    rows = data.model_input(data.X_test, named)
    assert list(rows.columns) == list(data.feature_names) and np.array_equal(rows.to_numpy(), data.X_test)
    assert data.model_input(data.X_test, plain) is data.X_test and data.model_input(data.X_test) is data.X_test
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(named.predict(rows), plain.predict(data.model_input(data.X_test, plain)))
