"""benchmarks/optimal_trees.py and benchmarks/where_tnt_loses.py: their binarisation, summaries and
learner patches on hand-computable inputs."""

import numpy as np
import pandas as pd
import pytest
from benchmark_helpers import load_benchmark

import tnt.learn.growth as growth
from tnt import TnTClassifier


@pytest.fixture(scope="module")
def optimal():
    return load_benchmark("optimal_trees")


@pytest.fixture(scope="module")
def loses():
    return load_benchmark("where_tnt_loses")


def test_binarise_asks_the_same_questions_of_both_parts(optimal):
    X_train = np.array([[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]], dtype=np.float32)
    X_test = np.array([[0.5, 9], [3.5, 0]], dtype=np.float32)
    B_train, B_test, questions = optimal.binarise(X_train, X_test, thresholds=3)
    # quantiles 1/4, 2/4, 3/4 of 0..4 (lower): 1, 2, 3; the constant column asks nothing
    assert questions == [(0, 1.0), (0, 2.0), (0, 3.0)]
    assert B_train.tolist() == [[1, 1, 1], [1, 1, 1], [0, 1, 1], [0, 0, 1], [0, 0, 0]]
    assert B_test.tolist() == [[1, 1, 1], [0, 0, 0]]
    assert B_train.dtype == np.uint8


def test_binarise_drops_a_column_equal_to_an_earlier_one(optimal):
    X = np.array([[0, 10], [1, 11], [2, 12], [3, 13]], dtype=np.float32)  # the second feature repeats the first
    B, _, questions = optimal.binarise(X, X, thresholds=1)
    assert questions == [(0, 1.0)] and B.shape == (4, 1)


def test_optimal_tree_summary_counts_only_proven_rows(optimal):
    runs = pd.DataFrame(
        {
            "set": ["a", "a", "b", "b", "c"],
            "seed": [0, 1, 0, 1, 0],
            "depth": [3] * 5,
            "budget": [7] * 5,
            "questions": [10] * 5,
            "tree_splits": [7] * 5,
            "tree_train": [0.80, 0.80, 0.90, 0.90, 0.5],
            "tree_test": [0.70, 0.72, 0.85, 0.85, 0.5],
            "tree_optimal": [True, True, True, True, True],
            "tree_s": [1.0] * 5,
            "same_train": [0.80, 0.80, 0.88, 0.88, 0.5],
            "same_test": [0.70, 0.72, 0.86, 0.86, 0.5],
            "same_optimal": [True, True, True, True, True],
            "tnt_splits": [7, 7, 6, 6, 7],
            "tnt_depth": [4, 4, 3, 3, 3],
            "tnt_train": [0.82, 0.84, 0.87, 0.87, 0.6],
            "tnt_test": [0.71, 0.73, 0.84, 0.84, 0.6],
            "tnt_s": [1.0] * 5,
            "cart_train": [0.8] * 5,
            "cart_test": [0.70, 0.70, 0.84, 0.84, 0.5],
        }
    )
    table = optimal.by_set(runs, seeds=2).set_index("set")
    assert table.loc["a", "train_over_same"] == pytest.approx(3.0)
    assert table.loc["b", "test_over_same"] == pytest.approx(-2.0)
    assert table.loc["b", "test_over_tree"] == pytest.approx(-1.0)
    assert table.loc["a", "optimal"] and not table.loc["c", "optimal"]  # c ran one seed of two
    summary = optimal.depth_summary(table.reset_index()).iloc[0]
    assert summary["sets"] == 2 and summary["train_above"] == 1 and summary["test_at_least"] == 1
    assert summary["train_above_both"] == 1 and summary["test_best"] == 1  # a: above tree and CART; b: neither
    assert summary["mean_test_over_cart"] == pytest.approx((2.0 + 0.0) / 2)


def test_gap_summary_relates_train_and_test_advantages(loses):
    rows = []
    for name, C, splits, tnt_train, cart_train, tnt_test, cart_test in [
        ("a", 1e-3, 20, 1.00, 0.998, 0.80, 0.82),  # saturated, a loss
        ("b", 1e-3, 20, 0.95, 0.90, 0.85, 0.80),  # a win
        ("c", 1e-3, 5, 0.50, 0.90, 0.10, 0.90),  # not counted
    ]:
        rows.append(
            {
                "task": "classification",
                "set": name,
                "C": C,
                "seed": 0,
                "tnt_splits": splits,
                "tnt_train": tnt_train,
                "cart_train": cart_train,
                "tnt_test": tnt_test,
                "cart_test": cart_test,
            }
        )
    s = loses.counted_gap_summary(pd.DataFrame(rows))
    assert (s["pairs"], s["train_above"], s["losses"], s["losses_train_ge"]) == (2, 2, 1, 1)
    assert (s["saturated"], s["saturated_losses"], s["unsaturated_losses"]) == (1, 1, 0)
    gaps = loses.gap_table(pd.DataFrame(rows), [("a", 1e-3)])
    assert gaps["test_gain"].tolist() == pytest.approx([-2.0]) and gaps["tnt_gap"].tolist() == pytest.approx([20.0])


def test_internal_node_patches_change_the_fit_and_undo_themselves(loses):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4)).astype(np.float32)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3)).astype(int)
    fit_micro_tree, sensitive_rows = growth.fit_micro_tree, growth._Wave.sensitive_rows
    default = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    with loses._internal_nodes("frozen"):
        frozen = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    # internal nodes keeping their splits: the first phase's tree plus what its leaves grow
    assert frozen.graph_ != default.graph_
    assert growth.fit_micro_tree is fit_micro_tree and growth._Wave.sensitive_rows is sensitive_rows
    with loses._internal_nodes("stump"):
        TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    assert growth.fit_micro_tree is fit_micro_tree and not growth._one_call_each
    # The internal nodes' micro trees pruned ten times harder: a smaller graph (the patch reaches the
    # fits a wave's batch would make too).
    rng = np.random.default_rng(2)
    X3 = rng.normal(size=(600, 4)).astype(np.float32)
    y3 = ((X3[:, 0] > 0) ^ (X3[:, 1] > 0.3) ^ (X3[:, 2] > 0.5)).astype(int)
    with loses._internal_nodes("prune x10"):
        pruned = TnTClassifier(C=1e-3, random_state=0).fit(X3, y3)
    assert pruned.n_splits_ < TnTClassifier(C=1e-3, random_state=0).fit(X3, y3).n_splits_
    assert growth.fit_micro_tree is fit_micro_tree and not growth._one_call_each
    assert TnTClassifier(C=1e-2, random_state=0).fit(X, y).graph_ == default.graph_


def test_phase_split_separates_the_first_phase_from_the_rest(loses):
    runs = pd.DataFrame(
        {
            "task": ["classification"] * 4,
            "set": ["a", "a", "b", "b"],
            "C": [1e-3] * 4,
            "seed": [0, 1, 0, 1],
            "tnt_splits": [20, 20, 4, 4],  # b is not counted
            "tnt_test": [0.80, 0.80, 0.5, 0.5],
            "cart_test": [0.82, 0.82, 0.5, 0.5],
        }
    )
    first = pd.DataFrame(
        {"set": ["a", "a"], "C": [1e-3] * 2, "splits": [18, 18], "tnt_test": [0.81, 0.81], "cart_test": [0.80, 0.80]}
    )
    table = loses.phase_split(runs, first)
    assert table["set"].tolist() == ["a"]
    row = table.iloc[0]
    assert row["final_gain"] == pytest.approx(-2.0) and row["first_gain"] == pytest.approx(1.0)
    assert row["later"] == pytest.approx(-3.0)


def test_guard_table_compares_each_with_cart_at_its_own_splits(loses):
    runs = pd.DataFrame(
        {
            "task": ["classification"] * 2,
            "set": ["a", "a"],
            "C": [1e-4] * 2,
            "seed": [0, 1],
            "tnt_splits": [30, 30],
            "tnt_test": [0.70, 0.70],
            "cart_test": [0.72, 0.72],
        }
    )
    guarded = pd.DataFrame({"set": ["a"], "C": [1e-4], "splits": [28], "tnt_test": [0.73], "cart_test": [0.71]})
    table = loses.guard_table(runs, guarded)
    assert table["default_gain"].tolist() == pytest.approx([-2.0])
    assert table["guard_gain"].tolist() == pytest.approx([2.0])
    summary = loses.guard_summary(table)
    assert "| default | 0 / 1 | -2.00 |" in summary and "| guard | 1 / 1 | +2.00 |" in summary
