"""benchmarks/accuracy.py: the arithmetic of its table on hand-computable inputs, and one small run end to end."""

import numpy as np
import pandas as pd
import pytest
from benchmark_helpers import load_benchmark


@pytest.fixture(scope="module")
def accuracy():
    return load_benchmark("accuracy")


def _runs(rows):
    keys = ("task", "set", "C", "seed", "tnt_splits", "cart_splits", "tnt_test", "cart_test")
    frame = pd.DataFrame([dict(zip(keys, r)) for r in rows])
    return frame.assign(tnt_train=1.0, cart_train=1.0, tnt_fit_s=0.1)


def test_pairs_count_from_ten_mean_splits_and_win_on_the_mean(accuracy):
    runs = _runs(
        [
            # a: mean splits 10 (counted), TnT mean 0.80 vs CART 0.79: a win although one seed loses
            ("classification", "a", 1e-3, 0, 8, 8, 0.70, 0.75),
            ("classification", "a", 1e-3, 1, 12, 12, 0.90, 0.83),
            # a at 1e-2: mean splits 9.5, not counted, whatever the scores
            ("classification", "a", 1e-2, 0, 9, 9, 0.10, 0.90),
            ("classification", "a", 1e-2, 1, 10, 10, 0.10, 0.90),
            # b: counted, a tie counts as a win
            ("classification", "b", 1e-3, 0, 20, 20, 0.60, 0.60),
            ("classification", "b", 1e-3, 1, 20, 20, 0.60, 0.60),
            # c: counted loss of 3 points
            ("classification", "c", 1e-4, 0, 50, 49, 0.50, 0.53),
            ("classification", "c", 1e-4, 1, 50, 49, 0.50, 0.53),
        ]
    )
    pairs = accuracy.pair_table(runs).set_index(["set", "C"])
    assert pairs.loc[("a", 1e-3), "counted"] and pairs.loc[("a", 1e-3), "win"]
    assert pairs.loc[("a", 1e-3), "seeds_won"] == 1
    assert pairs.loc[("a", 1e-3), "gain"] == pytest.approx(1.0)
    assert not pairs.loc[("a", 1e-2), "counted"]
    assert pairs.loc[("b", 1e-3), "win"] and pairs.loc[("b", 1e-3), "gain"] == pytest.approx(0.0)
    assert not pairs.loc[("c", 1e-4), "win"] and pairs.loc[("c", 1e-4), "gain"] == pytest.approx(-3.0)
    assert pairs.loc[("c", 1e-4), "cart_splits"] == 49

    summ = accuracy.summary(accuracy.pair_table(runs)).set_index("C")
    everything = summ.loc["all"]
    assert (everything["wins"], everything["pairs"]) == (2, 3)  # the uncounted pair left out
    assert everything["mean_gain"] == pytest.approx((1.0 + 0.0 - 3.0) / 3)
    assert everything["worst_gain"] == pytest.approx(-3.0) and everything["best_gain"] == pytest.approx(1.0)
    assert (summ.loc[1e-3, "wins"], summ.loc[1e-3, "pairs"]) == (2, 2)
    assert summ.loc[1e-3, "mean_gain"] == pytest.approx(0.5)
    assert 1e-2 not in summ.index  # no counted pair at C=1e-2


def test_paper_table_compares_with_the_table1_run_within_its_spread(accuracy):
    trials = pd.DataFrame(
        {
            "data": ["x"] * 3 + ["y"] * 3,
            "trial": [0, 1, 2] * 2,
            "C": [1e-3] * 6,
            "splits": [10, 12, 14, 5, 5, 5],
            "tnt_test": [0.80, 0.82, 0.84, 0.50, 0.50, 0.50],
            "cart_test": [0.80, 0.80, 0.80, 0.40, 0.40, 0.40],
            "tnt_fit_s": [0.1] * 6,
        }
    )
    settings = pd.DataFrame(
        {"C": [1e-3, 1e-3], "table1_mean": [0.83, 0.60], "table1_std": [0.0, 0.01]},
        index=pd.Index(["x", "y"], name="data"),
    )
    table = accuracy.paper_table(trials, settings).set_index("data")
    assert table.loc["x", "splits"] == 12
    assert table.loc["x", "change"] == pytest.approx(-1.0)
    assert table.loc["x", "within_spread"]  # 1 point off, spread over trials 2 points
    assert not table.loc["y", "within_spread"]  # 10 points off, spreads 0 and 1 point
    assert table.loc["y", "gain_over_cart"] == pytest.approx(10.0)


def test_a_small_run_writes_its_report_and_runs(accuracy, tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64)
    path = tmp_path / "tiny.npz"
    np.savez(path, X=X, y=y)
    monkeypatch.setattr(accuracy, "suite", lambda names: [("classification", "tiny", path)])
    out = tmp_path / "accuracy.md"
    assert accuracy.main(["--sets", "tiny", "--seeds", "1", "--n-jobs", "1", "--out", str(out)]) == 0
    text = out.read_text()
    runs = pd.read_csv(tmp_path / "accuracy_runs.csv")
    assert len(runs) == 3 and set(runs["C"]) == set(accuracy.C_GRID)
    assert (runs["tnt_splits"] == runs["cart_splits"]).all()
    first = runs.iloc[0]
    assert f"| tiny | {first['C']:g} | {first['tnt_splits']:.1f} |" in text
    assert "## Regression" not in text and "Table 1" not in text


def test_missing_data_and_unknown_sets_stop_with_one_sentence(accuracy, tmp_path, monkeypatch, capsys):
    from tnt.data import external

    monkeypatch.delenv("TNT_DATA", raising=False)
    monkeypatch.setattr(external, "BESIDE_REPOSITORY", tmp_path / "no-shared" / "data")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(SystemExit) as stop:
        accuracy.main(["--sets", "yeast"])
    assert stop.value.code == 1
    assert capsys.readouterr().err == external.external_set("benchmark/classification/yeast").missing_message() + "\n"
    with pytest.raises(SystemExit, match="No set of the suite is called tiny"):
        accuracy.main(["--sets", "tiny"])


def test_timing_adds_up_the_parts(accuracy):
    text = accuracy.timing({"the suite": (60.0, 50.0, 360), "the paper's sets": (120.0, 100.0, 30)}, 1.3)
    assert text.startswith("Took 3.0 minutes of wall time: the suite 1.0 minutes (50 s in 360 TnT fits);")
    assert "the paper's sets 2.0 minutes (100 s in 30 TnT fits)" in text and text.endswith("start 1.3.")


def test_parameters_given_on_the_command_line(accuracy):
    assert accuracy.parse_params(["validation_fraction=0.2", "internal_refit='improving'"]) == {
        "validation_fraction": 0.2,
        "internal_refit": "improving",
    }
    with pytest.raises(SystemExit, match="NAME=VALUE"):
        accuracy.parse_params(["validation_fraction"])
    with pytest.raises(SystemExit, match="quote texts"):
        accuracy.parse_params(["internal_refit=improving"])


def test_a_variant_may_set_its_parameters_as_a_function_of_C(accuracy):
    grown_smaller = accuracy.tnt_params(1e-3, 2, lambda C: {"C": C / 10, "ccp_alpha": C})
    assert grown_smaller == {"C": pytest.approx(1e-4), "random_state": 2, "ccp_alpha": 1e-3}
    assert accuracy.tnt_params(1e-3, 0, None) == {"C": 1e-3, "random_state": 0}
    assert accuracy.tnt_params(1e-2, 1, {"validation_fraction": 0.2}) == {
        "C": 1e-2,
        "random_state": 1,
        "validation_fraction": 0.2,
    }


def test_options_are_judged_on_the_pairs_the_defaults_count():
    """benchmarks/learner_options.py: a variant that shrinks a counted pair below 10 splits keeps it,
    and a pair the defaults do not count stays out, whatever the variant's size."""
    options = load_benchmark("learner_options")
    default = _runs(
        [
            ("classification", "a", 1e-3, 0, 20, 20, 0.60, 0.62),  # counted, a loss
            ("classification", "b", 1e-2, 0, 5, 5, 0.60, 0.50),  # not counted
        ]
    )
    variant = _runs(
        [
            ("classification", "a", 1e-3, 0, 4, 4, 0.63, 0.62),  # below 10 splits now: a win still counted
            ("classification", "b", 1e-2, 0, 30, 30, 0.40, 0.50),
        ]
    )
    table = options.compare(options.counted_pairs(default), variant)
    assert list(table["set"]) == ["a"]
    row = options.summary_row("v", table, "classification", "gain_variant", "win_variant")
    assert (row["wins"], row["pairs"]) == (1, 1)
    assert row["mean_gain"] == pytest.approx(1.0)
    before = options.summary_row("default", table, "classification", "gain", "win")
    assert (before["wins"], before["below_half"]) == (0, 1) and before["worst_gain"] == pytest.approx(-2.0)


def test_only_the_variants_without_a_kept_timing_are_timed_on_mnist():
    """benchmarks/learner_options.py --keep: kept MNIST ratios stay, the missing variants are timed."""
    options = load_benchmark("learner_options")
    kept = pd.DataFrame({"variant": ["guard", "default", "_s", "_turns"], "value": [0.9, 1.0, 40.0, 1.0]})
    asked = []

    def measure(variants, repeat):
        asked.append((list(variants), repeat))
        return {"held_out": 2.0, "default": 1.0, "_s": 50.0, "_turns": repeat}

    timed, untimed = options.mnist_timings(kept, ["guard", "held_out"], 2, measure)
    assert asked == [(["held_out"], 2)] and untimed == ["held_out"]
    assert dict(zip(timed["variant"], timed["value"], strict=True)) == {
        "guard": 0.9,
        "held_out": 2.0,
        "default": 1.0,
        "_s": 50.0,
        "_turns": 2,
    }
    # nothing to time, or no turns: the kept rows as they are
    assert options.mnist_timings(kept, ["guard"], 2, measure)[0] is kept
    assert options.mnist_timings(kept, ["held_out"], 0, measure)[0] is kept
    assert len(asked) == 1


def test_a_variants_tnt_is_compared_with_the_defaults_tnt_at_the_same_C():
    """benchmarks/learner_options.py: the change of TnT's own test score, whatever the sizes."""
    options = load_benchmark("learner_options")
    default = _runs(
        [
            ("classification", "a", 1e-3, 0, 20, 20, 0.60, 0.62),
            ("classification", "b", 1e-3, 0, 30, 30, 0.80, 0.70),
        ]
    )
    variant = _runs(
        [
            ("classification", "a", 1e-3, 0, 12, 12, 0.64, 0.62),  # +4 points
            ("classification", "b", 1e-3, 0, 15, 15, 0.79, 0.70),  # -1 point
        ]
    )
    table = options.compare(options.counted_pairs(default), variant)
    lines = options.against_defaults({"v": table})
    assert lines[-1].startswith("| v | 1 / 2 | +1.50 | 0 / 0 |")


def test_a_report_rewritten_from_kept_rows_says_that_nothing_was_measured():
    """benchmarks/learner_options.py --keep with every row kept: no "Took 0.0 minutes" as if it had run."""
    options = load_benchmark("learner_options")
    kept_only = options.run_sentence(["guard's suite rows"], measured=False, minutes=0.0)
    assert kept_only.startswith("Nothing was measured in this run") and "Took" not in kept_only
    ran = options.run_sentence(["guard's suite rows"], measured=True, minutes=12.34)
    assert "Took 12.3 minutes" in ran and "guard's suite rows" in ran


def test_a_run_stopped_half_way_keeps_the_rows_it_has_not_reached():
    """benchmarks/learner_options.py writes its CSV files after each variant: the kept rows of the later
    variants must be in every write, or a run stopped half-way would lose them."""
    options = load_benchmark("learner_options")
    kept = pd.DataFrame({"variant": ["guard", "guard", "held_out", "pruned"], "gain": [1.0, 1.5, 2.0, 3.0]})
    first = pd.DataFrame({"variant": ["guard"], "gain": [9.0]})
    saved = options.rows_to_save([first], kept)
    assert saved["variant"].tolist() == ["guard", "held_out", "pruned"] and saved["gain"].tolist() == [9.0, 2.0, 3.0]
    assert options.rows_to_save([first], pd.DataFrame({"variant": []}))["variant"].tolist() == ["guard"]
