"""benchmarks/missing_values.py: the values it removes, the comparison of the two runs on hand-computable
inputs, and one small run end to end (TnT and CART learning from NaN themselves)."""

import numpy as np
import pandas as pd
import pytest
from benchmark_helpers import load_benchmark


@pytest.fixture(scope="module")
def missing():
    return load_benchmark("missing_values")


@pytest.fixture(scope="module")
def accuracy():
    return load_benchmark("accuracy")


def test_values_are_removed_at_random_in_the_share_asked_and_by_the_seed(accuracy):
    X = np.arange(40_000, dtype=np.int64).reshape(10_000, 4)
    removed = accuracy.remove_values(X, 0.15, seed=3)
    assert removed.dtype == np.float64 and X.dtype == np.int64  # the input is left as it was
    share = np.isnan(removed).mean()
    assert 0.14 < share < 0.16
    assert np.all(np.isnan(removed).mean(axis=0) > 0.13)  # every column loses values, not a few columns
    kept = ~np.isnan(removed)
    assert np.array_equal(removed[kept], X[kept])
    assert np.array_equal(np.isnan(accuracy.remove_values(X, 0.15, seed=3)), np.isnan(removed))
    assert not np.array_equal(np.isnan(accuracy.remove_values(X, 0.15, seed=4)), np.isnan(removed))


def _runs(rows):
    keys = ("task", "set", "C", "seed", "tnt_splits", "cart_splits", "tnt_test", "cart_test")
    frame = pd.DataFrame([dict(zip(keys, r)) for r in rows])
    return frame.assign(tnt_train=1.0, cart_train=1.0, tnt_fit_s=0.1)


def test_the_pairs_compared_are_those_counted_without_nan(missing):
    plain = _runs(
        [
            ("classification", "a", 1e-3, 0, 20, 20, 0.80, 0.70),  # counted, a win
            ("classification", "b", 1e-2, 0, 5, 5, 0.90, 0.50),  # not counted without NaN
            ("classification", "c", 1e-4, 0, 40, 40, 0.50, 0.60),  # counted, a loss
        ]
    )
    with_nan = _runs(
        [
            ("classification", "a", 1e-3, 0, 8, 8, 0.60, 0.65),  # below 10 splits with NaN: still compared, a loss
            ("classification", "b", 1e-2, 0, 30, 30, 0.90, 0.50),  # counted only with NaN: left out
            ("classification", "c", 1e-4, 0, 40, 40, 0.61, 0.60),  # a win with NaN
        ]
    )
    pairs = missing.compare(plain, with_nan)
    assert list(pairs["set"]) == ["a", "c"]
    summ = missing.summary(pairs).iloc[0]
    assert (summ["pairs"], summ["wins"], summ["wins_nan"]) == (2, 1, 1)
    assert summ["mean_gain"] == pytest.approx((10.0 - 10.0) / 2)
    assert summ["mean_gain_nan"] == pytest.approx((-5.0 + 1.0) / 2)
    assert summ["worst_gain_nan"] == pytest.approx(-5.0)
    text = missing.summary_markdown(missing.summary(pairs), 0.15)
    assert "| classification (pp) | 2 | 1 | 1 | yes |" in text


def test_a_share_outside_zero_to_one_stops_with_one_sentence(missing):
    with pytest.raises(SystemExit, match="--share takes a share between 0 and 1, got 1.5"):
        missing.main(["--share", "1.5"])


def test_the_speed_rows_remove_values_only_in_the_columns_named():
    """benchmarks/run.py's missing-value rows: 20 % of half of the columns of the continuous set."""
    run = load_benchmark("run")
    X = np.ones((20_000, 6), dtype=np.float64)
    removed = run.with_missing(X, 0.2, np.arange(0, 6, 2), seed=0)
    assert removed.dtype == np.float32
    share = np.isnan(removed).mean(axis=0)
    assert np.all((share[::2] > 0.18) & (share[::2] < 0.22)) and np.all(share[1::2] == 0)
    assert not np.isnan(X).any()


def test_a_small_run_compares_the_two_runs_and_writes_its_report(missing, tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64)
    path = tmp_path / "tiny.npz"
    np.savez(path, X=X, y=y)
    monkeypatch.setattr(missing, "suite", lambda names: [("classification", "tiny", path)])
    out = tmp_path / "accuracy_missing.md"
    assert missing.main(["--sets", "tiny", "--seeds", "1", "--n-jobs", "1", "--out", str(out)]) == 0
    runs = pd.read_csv(tmp_path / "accuracy_missing_runs.csv")
    # Without NaN the defaults and the first phase; with NaN the defaults and each variant: 3 values of C each.
    assert sorted(set(runs["missing_share"])) == [0.0, 0.15] and len(runs) == 3 * (3 + len(missing.PHASES))
    assert sorted(set(runs["variant"])) == sorted(["defaults", *(name for name, _ in missing.PHASES)])
    first = runs[runs["variant"] == missing.FIRST_PHASE[0]]
    assert sorted(set(first["missing_share"])) == [0.0, 0.15]  # the first phase alone runs without NaN too
    assert (runs["tnt_splits"] == runs["cart_splits"]).all()  # CART grown to TnT's splits, with NaN too
    assert set(runs["seed"]) == {0}
    text = out.read_text()
    assert "## Summary" in text and "| tiny |" in text and "## The second phase with missing values" in text
    assert "## Which phase wins the pairs" in text and "seeds 0, CART" in text
    assert "## The default's own score with missing values" in text


def test_the_defaults_own_score_is_told_against_c_alone_pair_by_pair(missing):
    defaults = _runs(
        [
            ("regression", "a", 1e-3, 0, 10, 10, 0.60, 0.70),
            ("regression", "a", 1e-3, 1, 12, 12, 0.70, 0.70),  # pair a: mean 0.65
            ("regression", "c", 1e-4, 0, 20, 20, 0.40, 0.50),  # pair c: 0.40
            ("regression", "d", 1e-4, 0, 30, 30, 0.90, 0.10),  # not counted
        ]
    )
    alone = _runs(
        [
            ("regression", "a", 1e-3, 0, 100, 100, 0.50, 0.70),
            ("regression", "a", 1e-3, 1, 300, 300, 0.40, 0.70),  # pair a: 0.45, 200 splits
            ("regression", "c", 1e-4, 0, 50, 50, 0.45, 0.50),  # pair c: 0.45
            ("regression", "d", 1e-4, 0, 60, 60, 0.10, 0.10),
        ]
    )
    counted = pd.DataFrame({"task": ["regression"] * 2, "set": ["a", "c"], "C": [1e-3, 1e-4]})
    own = missing.own_score_table(defaults, alone, counted).iloc[0]
    assert (own["pairs"], own["below"]) == (2, 1)  # c: 5 points below
    assert (own["mean"], own["worst"]) == (pytest.approx((20.0 - 5.0) / 2), pytest.approx(-5.0))
    assert (own["splits"], own["splits_alone"]) == (pytest.approx((11 + 20) / 2), pytest.approx((200 + 50) / 2))
    text = missing.own_score_markdown(missing.own_score_table(defaults, alone, counted), 0.15)
    assert "| regression (R^2 x100) | 2 | +7.50 | -5.00 | 1 | 15.5 / 125.0 |" in text


def test_first_seed_runs_the_seeds_from_it(missing, tmp_path, monkeypatch):
    calls = []

    def fake_suite(entries, seeds, n_jobs, first_seed, missing_share=0.0, params=None):
        calls.append((seeds, first_seed))
        return _runs([("classification", "a", C, s, 20, 20, 0.8, 0.7) for C in (1e-2, 1e-3) for s in range(5, 7)])

    monkeypatch.setattr(missing, "suite", lambda names: [("classification", "a", tmp_path / "a.npz")])
    monkeypatch.setattr(missing, "run_suite", fake_suite)
    out = tmp_path / "more_seeds.md"
    assert missing.main(["--seeds", "2", "--first-seed", "5", "--n-jobs", "1", "--out", str(out)]) == 0
    assert set(calls) == {(2, 5)}
    assert "seeds 5, 6, CART" in out.read_text()


def test_the_wins_of_each_phase_are_counted_over_the_pairs_counted_without_nan(missing):
    first = _runs(
        [
            ("regression", "a", 1e-3, 0, 20, 20, 0.40, 0.50),  # a loss
            ("regression", "c", 1e-4, 0, 40, 40, 0.50, 0.50),  # a tie: a win
            ("regression", "d", 1e-4, 0, 40, 40, 0.90, 0.10),  # not counted
        ]
    )
    final = _runs(
        [
            ("regression", "a", 1e-3, 0, 25, 25, 0.52, 0.50),  # +2
            ("regression", "c", 1e-4, 0, 44, 44, 0.60, 0.50),  # +10
            ("regression", "d", 1e-4, 0, 44, 44, 0.10, 0.90),
        ]
    )
    counted = pd.DataFrame({"task": ["regression"] * 2, "set": ["a", "c"], "C": [1e-3, 1e-4]})
    wins = missing.wins_table({("first", True): first, ("final", False): final}, counted)
    assert list(wins["graph"]) == ["final", "first"]  # without NaN first
    assert list(wins["wins"]) == [2, 1] and list(wins["pairs"]) == [2, 2]
    assert wins["mean_gain"].tolist() == pytest.approx([6.0, -5.0])
    text = missing.wins_markdown(wins, 0.15)
    assert "| regression (R^2 x100) | final | none | 2 | 2 | +6.00 |" in text
    assert "| regression (R^2 x100) | first | 15 % | 2 | 1 | -5.00 |" in text


def test_the_second_phase_is_compared_with_the_first_pair_by_pair(missing):
    first = _runs(
        [
            ("classification", "a", 1e-3, 0, 20, 20, 0.80, 0.70),  # gain +10
            ("classification", "c", 1e-4, 0, 40, 40, 0.50, 0.60),  # gain -10
            ("classification", "d", 1e-4, 0, 4, 4, 0.50, 0.60),  # not counted without NaN
        ]
    )
    final = _runs(
        [
            ("classification", "a", 1e-3, 0, 25, 25, 0.75, 0.70),  # gain +5: below the first phase's
            ("classification", "c", 1e-4, 0, 44, 44, 0.62, 0.60),  # gain +2: above
            ("classification", "d", 1e-4, 0, 12, 12, 0.50, 0.60),
        ]
    )
    counted = pd.DataFrame({"task": ["classification"] * 2, "set": ["a", "c"], "C": [1e-3, 1e-4]})
    phases = missing.phase_table(first, {"final": final}, counted).iloc[0]
    assert (phases["graph"], phases["pairs"], phases["worse"]) == ("final", 2, 1)
    assert phases["mean_change"] == pytest.approx((-5.0 + 12.0) / 2)
    assert "| classification (pp) | final | 2 | 1 | +3.50 |" in missing.phase_markdown(
        missing.phase_table(first, {"final": final}, counted), 0.15
    )


def test_the_suite_runs_the_seeds_from_the_first_seed(accuracy, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 2)).astype(np.float32)
    path = tmp_path / "tiny.npz"
    np.savez(path, X=X, y=(X[:, 0] > 0).astype(np.int64))
    runs = accuracy.run_suite([("classification", "tiny", path)], seeds=2, Cs=(1e-2,), n_jobs=1, first_seed=3)
    assert runs["seed"].tolist() == [3, 4]
