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
    need_data(bench.data_name(name))
    X, y, names, categorical = bench.load(name)
    assert [names[f] for f in categorical] == bench.SETS[name]
    codes = [X[~np.isnan(X[:, f]), f] for f in categorical]  # a table's missing values are NaN
    assert all(np.all(c == np.floor(c)) and c.min() >= 0 for c in codes)
    assert all(not np.isnan(X[:, f]).any() for f in categorical) or name in bench.TABLES


def test_the_penguins_text_columns_are_coded_by_their_alphabetical_rank_missing_as_nan():
    path = need_data("tables/penguins")
    X, y, names, categorical = bench.load("penguins")
    raw = pd.read_csv(path)
    assert [names[f] for f in categorical] == ["island", "sex"] and "species" not in names
    assert y.tolist() == raw["species"].tolist()
    for f in categorical:
        codes = pd.Categorical(raw[names[f]]).codes  # pandas sorts the categories; -1 is missing
        np.testing.assert_array_equal(np.where(codes < 0, np.nan, codes), X[:, f])
    assert np.isnan(X[:, names.index("sex")]).sum() == 11
    np.testing.assert_array_equal(X[:, names.index("body_mass_g")], raw["body_mass_g"].to_numpy(dtype=float))


def test_lightgbm_one_round_counts_the_splits_of_every_tree():
    pytest.importorskip("lightgbm", reason="lightgbm is not installed: pip install -e '.[bench]' installs it")
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 6, 300), rng.normal(size=300)]).astype(float)
    X[rng.random(300) < 0.1, 0] = np.nan
    for labels, trees in ((np.array(["a", "b"]), 1), (np.array(["a", "b", "c"]), 3)):
        y = labels[rng.integers(0, len(labels), 300)]
        y[np.isin(X[:, 0], [1, 4])] = labels[0]  # a subset of categories the trees can find
        raw = bench.LIGHTGBM_VARIANTS["lightgbm_raw"]  # small groups of categories may be split off
        model, splits, predicted = bench.lightgbm_one_tree(X[:200], y[:200], X[200:], [0], 5, seed=0, **raw)
        table = model.booster_.trees_to_dataframe()
        assert table["tree_index"].nunique() == trees
        assert splits == int(table["split_feature"].notna().sum())  # LightGBM's own table of its nodes
        assert 0 < splits <= 5 * trees
        assert (table.loc[table["split_feature"] == "x0", "decision_type"] == "==").any()  # categorical splits
        np.testing.assert_array_equal(predicted, model.predict(bench_frame(X[200:], X[:200])))


def bench_frame(X, X_train):
    """The benchmark's frame for LightGBM, made here as the reference: column 0 categorical."""
    table = pd.DataFrame(X, columns=["x0", "x1"])
    table["x0"] = pd.Categorical(X[:, 0], categories=np.unique(X_train[~np.isnan(X_train[:, 0]), 0]))
    return table


def test_the_report_says_what_is_missing_and_how_to_get_it():
    row = {"set": "churn", "C": 1e-3, "seed": 0, "classes": 2, "fit_subsets": 1.0, "fit_ordinal": 1.0,
           "fit_one_hot": 1.0, "train_subsets": 1.0, "train_cart_one_hot": 1.0, "cart_subsets": 0.8}  # fmt: skip
    for label in bench.LABELS:
        row.update({f"splits_{label}": 3, f"test_{label}": 0.8, f"cart_one_hot_at_{label}": 0.8})
    text = bench.report(
        pd.DataFrame([row]), command="test", took=1.0, load=1.0, stamp="now", seeds=1, left_out=["penguins.csv x."]
    )
    assert "(d) LightGBM is not installed, so it has no column: `pip install -e '.[bench]'` installs it" in text
    assert "Left out: penguins.csv x." in text
    row.update({"splits_lightgbm": 3, "test_lightgbm": 0.9, "splits_lightgbm_raw": 2, "test_lightgbm_raw": 0.7})
    if bench.lightgbm_available():
        text = bench.report(pd.DataFrame([row]), command="test", took=1.0, load=1.0, stamp="now", seeds=1)
        assert (
            "(its defaults; each tree of at most TnT's splits + 1 leaves): at or above on 0 of 1 pairs, mean -10.00"
            in text
        )
        assert "| 3.0, 0.9000 | 2.0, 0.7000 |" in text


def test_without_the_bench_extra_the_run_leaves_out_the_penguins_and_lightgbm(monkeypatch, tmp_path):
    """No palmerpenguins (the loader finds no package) and no lightgbm: the benchmark still runs on
    the suite's sets and its report says what is missing and how to get it."""
    folder = need_data("benchmark/classification/car_evaluation").parents[2]  # the data folder holding it
    import tnt.data.external as external

    monkeypatch.setattr(external, "package_file", lambda entry: None)
    monkeypatch.setattr(external, "BESIDE_REPOSITORY", tmp_path / "no-shared")
    monkeypatch.setenv("TNT_DATA", str(folder))
    monkeypatch.setattr(bench, "lightgbm_available", lambda: False)
    monkeypatch.setattr(bench, "C_GRID", (1e-2,))
    out = tmp_path / "report.md"
    one_seed = bench.one_seed
    monkeypatch.setattr(bench, "one_seed", lambda name, seed: one_seed(name, seed, Cs=(1e-2,)))
    assert bench.main(["--sets", "penguins", "car_evaluation", "--seeds", "1", "--out", str(out)]) == 0
    text = out.read_text()
    assert "Left out: tables/penguins.csv is missing: install the package palmerpenguins 0.1.6" in text
    assert "(d) LightGBM is not installed, so it has no column: `pip install -e '.[bench]'` installs it" in text
    assert "| car_evaluation | 0.01 |" in text and "| penguins |" not in text
