"""Which columns are categorical (scikit-learn's HistGradientBoosting conventions) and their codes."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tnt.categorical import MAX_CATEGORIES, CategoryCoding, categorical_mask

FRAME = pd.DataFrame(
    {
        "size": [1.0, 2.0, 3.0, 4.0],
        "colour": pd.Categorical(["red", "blue", None, "red"], categories=["red", "green", "blue"]),
        "shape": ["round", "square", "round", None],
    }
)


@pytest.mark.parametrize(
    "given, expected",
    [
        ("from_dtype", [False, True, False]),
        (None, [False, False, False]),
        ([2], [False, False, True]),
        (np.array([0, 2]), [True, False, True]),
        ([False, True, True], [False, True, True]),
        (["shape", "colour"], [False, True, True]),
        ([], [False, False, False]),
    ],
)
def test_the_conventions_of_hist_gradient_boosting(given, expected):
    assert categorical_mask(given, FRAME, 3, feature_names=FRAME.columns).tolist() == expected


def test_from_dtype_marks_nothing_in_an_array():
    assert categorical_mask("from_dtype", FRAME.to_numpy(), 3).tolist() == [False] * 3


@pytest.mark.parametrize(
    "given, names, message",
    [
        ("all", None, "got the string 'all'"),
        ([3], None, "an index outside 0..2"),
        ([True, False], None, "needs one entry per feature \\(3\\), got 2"),
        (["weight"], FRAME.columns, "names 'weight', which is not a column of X"),
        (["colour"], None, "X has no column names"),
        ([[0]], None, "must be one-dimensional"),
        ([0.5], None, "must be 'from_dtype', None, indices"),
    ],
)
def test_a_wrong_categorical_features_is_refused_in_one_sentence(given, names, message):
    with pytest.raises(ValueError, match=message):
        categorical_mask(given, FRAME, 3, feature_names=names)


def test_pandas_categories_keep_their_order_and_text_is_sorted():
    coding = CategoryCoding.learn(FRAME, np.array([False, True, True]))
    assert coding.categories[1].tolist() == ["red", "green", "blue"]
    assert coding.categories[2].tolist() == ["round", "square"]
    codes = coding.codes(FRAME)
    np.testing.assert_array_equal(codes[:, 1], [0, 2, np.nan, 0])
    np.testing.assert_array_equal(codes[:, 2], [0, 1, 0, np.nan])
    np.testing.assert_array_equal(codes[:, 0], FRAME["size"])
    assert coding.names(2, [1, 0]) == ["square", "round"]


def test_unseen_categories_and_missing_values_get_no_code():
    coding = CategoryCoding.learn(FRAME, np.array([False, True, True]))
    new = pd.DataFrame({"size": [1.0, 1.0], "colour": ["purple", np.nan], "shape": ["oval", pd.NA]})
    assert np.isnan(coding.codes(new)[:, 1:]).all()


def test_integer_codes_are_categories_of_their_own():
    X = np.array([[5, 0.5], [3, 1.5], [5, 2.5], [np.nan, 0.0]])
    coding = CategoryCoding.learn(X, np.array([True, False]))
    assert coding.categories[0].tolist() == [3, 5]
    np.testing.assert_array_equal(coding.codes(np.array([[5.0, 0], [3, 0], [4, 0]]))[:, 0], [1, 0, np.nan])


@settings(max_examples=80, deadline=None)
@given(
    values=st.lists(st.one_of(st.integers(0, 6), st.none(), st.sampled_from(["a", "b"])), min_size=1, max_size=12),
    kind=st.sampled_from(["object", "category", "float"]),
)
def test_codes_are_a_dictionary_lookup_of_each_value(values, kind):
    """Whole numbers in an object column, a pandas category column or a float column, and text among
    them (unseen): each value's code is that of a plain dictionary of the categories by value, a
    missing value or one not among them NaN (the reference, one value at a time)."""
    categories = {0: np.asarray([2, 4, 5], dtype=object)}
    numbers = [v if isinstance(v, int) else None for v in values]
    if kind == "object":
        column = pd.Series(values, dtype=object)
    elif kind == "category":
        column = pd.Series(numbers, dtype=object).astype("category")
    else:
        column = pd.Series([np.nan if v is None else float(v) for v in numbers])
    asked = values if kind == "object" else numbers
    expected = [{2: 0.0, 4: 1.0, 5: 2.0}.get(v, np.nan) if isinstance(v, int) else np.nan for v in asked]
    codes = CategoryCoding(categories).codes(pd.DataFrame({"c": column}))[:, 0]
    np.testing.assert_array_equal(codes, expected)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.integers(-2, 6), st.sampled_from([0.5, 1.5, -0.0, np.nan, np.inf])), min_size=1, max_size=12
    ),
    categories=st.sampled_from([[0, 1, 2], [0, 1, 2, 3, 4, 5], [0, 2, 3], [1, 2, 3]]),
)
def test_a_float_column_of_codes_is_a_dictionary_lookup(values, categories):
    """A float column (as training reads it) against the categories 0..k-1, whose lookup takes a
    shortcut (a code is its own value), and against others: each value's code is that of a plain
    dictionary, anything else (a fraction, a negative number, infinity, NaN) NaN."""
    column = np.array(values, dtype=np.float64)
    table = {float(c): float(i) for i, c in enumerate(categories)}
    expected = [table.get(float(v), np.nan) if np.isfinite(v) else np.nan for v in values]
    coding = CategoryCoding({0: np.asarray(categories, dtype=object)})
    np.testing.assert_array_equal(coding.codes(column[:, None])[:, 0], expected)


@pytest.mark.parametrize(
    "column, message",
    [
        (["a", 1, "b"], "mixes text and numbers"),
        ([0.5, 1.0, 2.0], "not non-negative integer codes"),
        ([-1, 1, 2], "not non-negative integer codes"),
    ],
)
def test_columns_that_are_no_categories_are_refused(column, message):
    with pytest.raises(ValueError, match=message):
        CategoryCoding.learn(pd.DataFrame({"c": pd.Series(column, dtype=object)}), np.array([True]))


def test_at_most_255_categories():
    ok = pd.DataFrame({"c": [f"v{i}" for i in range(MAX_CATEGORIES)]})
    assert CategoryCoding.learn(ok, np.array([True])).categories[0].shape == (255,)
    too_many = pd.DataFrame({"c": [f"v{i}" for i in range(MAX_CATEGORIES + 1)]})
    with pytest.raises(ValueError, match="Categorical column 'c' has 256 categories; at most 255 are supported"):
        CategoryCoding.learn(too_many, np.array([True]))


@pytest.mark.parametrize("given", ["from_dtype", None, [2], [0, 2], [False, True, True], ["shape", "colour"]])
def test_the_mask_is_hist_gradient_boostings(given):
    from sklearn.ensemble import HistGradientBoostingClassifier

    X = FRAME.assign(shape=pd.Categorical(FRAME["shape"]), size=FRAME["size"])
    if given is None or (not isinstance(given, str) and any(isinstance(g, (int, np.integer)) for g in given)):
        # integer codes: what HistGradientBoosting reads by index, and without categorical features
        X = X.assign(colour=X["colour"].cat.codes.astype(float), shape=X["shape"].cat.codes.astype(float))
        X = X.replace(-1.0, np.nan)
    hgb = HistGradientBoostingClassifier(max_iter=1, categorical_features=given).fit(X, [0, 1, 0, 1])
    expected = np.zeros(3, dtype=bool) if hgb.is_categorical_ is None else hgb.is_categorical_
    assert categorical_mask(given, X, 3, feature_names=X.columns).tolist() == expected.tolist()
