"""benchmarks/categorical.py (issue 52, point 5): its codings against scikit-learn's encoder and
hand-made cases, car_evaluation's attributes read back from the set's own one-hot columns, and the
summary counted from a small table of runs."""

import numpy as np
import pandas as pd
import pytest
from benchmark_helpers import load_benchmark
from data_helpers import need_data
from sklearn.preprocessing import OneHotEncoder

bench = load_benchmark("categorical")


def test_one_hot_is_scikit_learns_encoder_on_the_categorical_columns():
    rng = np.random.default_rng(0)
    train = np.column_stack([rng.integers(0, 4, 50), rng.normal(size=50), rng.integers(0, 3, 50)]).astype(float)
    test = np.column_stack([rng.integers(0, 6, 20), rng.normal(size=20), rng.integers(0, 3, 20)]).astype(float)
    H_train, H_test = bench.one_hot(train, test, [0, 2])
    encoder = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(train[:, [0, 2]])
    np.testing.assert_array_equal(H_train, np.hstack([train[:, [1]], encoder.transform(train[:, [0, 2]])]))
    np.testing.assert_array_equal(H_test, np.hstack([test[:, [1]], encoder.transform(test[:, [0, 2]])]))
    assert (H_test[test[:, 0] >= 4, 1:5] == 0).all()  # codes 4 and 5, never seen: no column set


def test_target_order_ranks_categories_by_their_share_of_the_positive_class():
    X_train = np.array([[0.0], [0.0], [1.0], [1.0], [2.0], [2.0], [2.0]])
    y_train = np.array([1, 1, 0, 0, 1, 0, 0])  # shares of class 1: 1, 0, 1/3
    X_test = np.array([[0.0], [1.0], [2.0], [7.0]])
    T_train, T_test = bench.target_order(X_train, X_test, y_train, [0])
    assert T_train[:, 0].tolist() == [2, 2, 0, 0, 1, 1, 1]
    assert T_test[:3, 0].tolist() == [2, 0, 1] and np.isnan(T_test[3, 0])


def test_car_evaluations_attributes_are_read_back_from_its_one_hot_columns():
    path = need_data("benchmark/classification/car_evaluation")
    X, y, names, categorical = bench.load("car_evaluation")
    assert names == bench.SETS["car_evaluation"] and categorical == list(range(6))
    with np.load(path) as d:
        original, columns = d["X"], [str(n) for n in d["feature_names"]]
    checked = 0
    for a, attribute in enumerate(names):
        group = [i for i, n in enumerate(columns) if n.startswith(attribute + "_")]
        categories = sorted(columns[i][len(attribute) + 1 :] for i in group)
        for i in group:
            code = categories.index(columns[i][len(attribute) + 1 :])
            np.testing.assert_array_equal(X[:, a] == code, original[:, i] == 1)
            checked += 1
    assert checked == 21


def test_the_summary_counts_the_pairs_at_or_above_one_hot_cart():
    rows = []
    for name, gain in (("credit_g", 0.02), ("churn", 0.0), ("nursery", -0.01)):
        row = {"set": name, "C": 1e-3, "seed": 0, "fit_subsets": 1.2, "fit_ordinal": 1.0, "fit_one_hot": 1.0,
               "train_subsets": 1.0, "train_cart_one_hot": 1.0, "cart_subsets": 0.8}  # fmt: skip
        for label in bench.LABELS:
            row[f"splits_{label}"] = 12
            row[f"test_{label}"] = 0.8 + gain
            row[f"cart_one_hot_at_{label}"] = 0.8
        rows.append(row)
    text = bench.report(pd.DataFrame(rows), command="test", took=60.0, load=1.0, stamp="now", seeds=1)
    assert "| subsets | (c) one-hot CART at its splits | 2 of 3 (67 %) | +0.33 |" in text
    assert "fit time" in text.lower() and "1.20x in total" in text
    assert "They lose on: nursery C=0.001 (-1.00)." in text


@pytest.mark.parametrize("name", list(bench.SETS))
def test_every_named_column_is_a_column_of_its_set(name):
    need_data(f"benchmark/classification/{name}")
    X, y, names, categorical = bench.load(name)
    assert [names[f] for f in categorical] == bench.SETS[name]
    assert all(np.all(X[:, f] == np.floor(X[:, f])) and X[:, f].min() >= 0 for f in categorical)
