"""The speed figures come from benchmarks/run.py alone, written whole to benchmarks/README.md (no hand-written figure
can drift)."""

import re

from benchmark_helpers import ROOT, load_benchmark


def _run_module():
    return load_benchmark("run")


def _rows(run):
    return [
        run.row("fit mnist as uint8, C=1e-4, `n_jobs=1`", 1.0, "CART: 10.0 s", "TnT 8.0 s", 0.8),
        run.row("first start", 10, "CART: 1.0 s", "12.0 s", 12.0, value=12.0, unit=" s"),
    ]


def test_the_benchmark_file_is_written_whole_from_the_rows(tmp_path, monkeypatch):
    run = _run_module()
    monkeypatch.setattr(run, "README", tmp_path / "README.md")
    (tmp_path / "README.md").write_text("a figure typed by hand: 0.89x\n")
    run.write_readme(_rows(run), quiet="other processes' CPU 0%")
    text = (tmp_path / "README.md").read_text()
    assert "0.89x" not in text and text.startswith(run.INTRO)
    assert "| fit mnist as uint8, C=1e-4, `n_jobs=1` | CART: 10.0 s | TnT 8.0 s | 0.80 | 1 | yes |" in text
    assert "| first start | CART: 1.0 s | 12.0 s | 12.00 | 10 s | no |" in text
    assert "at its start, other processes' CPU 0%." in text


def test_the_project_readme_types_no_speed_figure():
    # Speed figures live in benchmarks/README.md, which the documentation's speed page quotes.
    readme = (ROOT / "README.md").read_text()
    assert not re.search(r"\d(\.\d+)?x\b", readme) and "| fit " not in readme


def test_the_script_defines_everything_before_it_runs():
    # A function defined below `if __name__ == "__main__": main()` does not exist yet when main() runs.
    import ast

    tree = ast.parse((ROOT / "benchmarks" / "run.py").read_text())
    last = tree.body[-1]
    assert isinstance(last, ast.If) and "__main__" in ast.unparse(last.test)
    assert not any(isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) for node in tree.body[:-1])


def test_a_baseline_and_its_measurement_are_timed_in_turns():
    """So that a change of load during the run falls on both sides of a ratio."""
    run = _run_module()
    calls = []
    base_time, measured_time, base, measured = run.timed_pair(
        lambda: calls.append("baseline") or len(calls), lambda: calls.append("measured") or len(calls), repeat=3
    )
    assert calls == ["baseline", "measured"] * 3
    assert (base, measured) == (5, 6)  # the last result of each
    assert base_time >= 0 and measured_time >= 0
    calls.clear()
    times, results = run.timed_in_turns([lambda i=i: calls.append(i) or i for i in range(3)], repeat=2)
    assert calls == [0, 1, 2, 0, 1, 2] and results == [0, 1, 2] and len(times) == 3


def test_a_kernel_compiled_while_a_function_is_timed_is_named_in_the_report(tmp_path, monkeypatch):
    # The timings are of compiled code: a compile inside one (a warm-up that missed a kernel) is
    # counted, and the README says so, with the kernel's name.
    import numba
    import numpy as np

    from tnt.learn.wave_routing import bucket_rows

    run = _run_module()
    monkeypatch.setattr(run, "COMPILED_WHILE_TIMED", [])
    monkeypatch.setattr(run, "README", tmp_path / "README.md")
    run.timed_in_turns([lambda: np.sort(np.arange(5))])  # no kernel
    assert run.compiled_while_timed().startswith("No kernel was compiled")
    uncached = numba.njit(bucket_rows.py_func)  # a new dispatcher: compiled on its first call
    positions, index_of = np.array([1, 0, 1]), np.array([0, 1])
    _, (result,) = run.timed_in_turns([lambda: uncached(positions, index_of, 2)], repeat=2)
    assert [list(part) for part in result] == [[1, 0, 2], [0, 1, 3]]
    assert [name for name, _ in run.COMPILED_WHILE_TIMED] == ["tnt.learn.wave_routing.bucket_rows"]  # once
    run.write_readme(_rows(run))
    assert "timed, in its time: tnt.learn.wave_routing.bucket_rows (" in (tmp_path / "README.md").read_text()


def test_the_warm_ups_of_an_empty_cache_server_are_stopped_before_the_next_start(tmp_path):
    import os
    import subprocess
    import sys

    run = _run_module()
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)", "tnt.warmup"]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    ours = subprocess.Popen(sleeper, env={**env, "NUMBA_CACHE_DIR": str(tmp_path / "empty")})
    other = subprocess.Popen(sleeper, env={**env, "NUMBA_CACHE_DIR": str(tmp_path / "installed")})
    try:
        run._stop_warm_ups(str(tmp_path / "empty"))
        assert ours.wait(timeout=30) == -9
        assert other.poll() is None
    finally:
        for process in (ours, other):
            process.kill()
            process.wait()


def test_other_processes_cpu_is_read_from_two_snapshots_of_proc_stat():
    run = _run_module()
    # cpu user nice system idle iowait irq softirq steal: 100 jiffies between the snapshots, 75 idle
    snapshots = iter(["cpu  100 0 100 700 100 0 0 0\ncpu0 ...", "cpu  110 0 115 770 105 0 0 0\ncpu0 ..."])
    assert abs(run.busy_share(lambda: next(snapshots), interval=0) - 0.25) < 1e-12
    assert run.busy_share(lambda: "", interval=0) == 0.0  # no /proc/stat: nothing known


def test_a_long_fit_row_shows_the_spread_of_its_turns():
    run = _run_module()
    turns = []
    run.timed_pair(lambda: None, lambda: None, repeat=3, turns=turns)
    assert [len(t) for t in turns] == [3, 3]
    assert run.spread([6.1, 6.7, 6.3]) == " (turns 6.1-6.7 s)" and run.spread([6.3]) == ""


def _small_million(run, monkeypatch):
    from sklearn.datasets import make_classification

    def small():
        X, y = make_classification(n_samples=2_500, n_features=6, n_informative=4, n_classes=4, random_state=0)
        return X[:2_000], y[:2_000], X[2_000:], y[2_000:]

    monkeypatch.setattr(run, "million_data", small)
    return small()


def test_the_million_row_times_tnt_against_cart_of_its_splits(monkeypatch):
    import sys

    from tnt import TnTClassifier

    run = _run_module()
    X, y, _, _ = _small_million(run, monkeypatch)
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # as where LightGBM is not installed
    first, missing = run.bench_million()
    splits = TnTClassifier(C=run.C, ccp_alpha=0.0, random_state=0, n_jobs=1, max_bins=255).fit(X, y).n_splits_
    assert first["target"] == "15 s" and f"{splits} splits" in first["measured"]
    seconds = float(re.search(r"TnT ([\d.]+) (m?s)", first["measured"]).group(1))
    assert first["met"] == ("yes" if seconds <= 15 or "ms" in first["measured"] else "no")
    assert "not installed" in missing["baseline"] and "[bench]" in missing["baseline"] and missing["met"] == "-"


def test_the_million_row_counts_lightgbm_trees_of_every_class(monkeypatch):
    import pytest

    pytest.importorskip("lightgbm", reason="LightGBM is the `bench` extra's, not the tests'")
    run = _run_module()
    _small_million(run, monkeypatch)
    first, lgbm = run.bench_million()
    splits = int(re.search(r"(\d+) splits", first["measured"]).group(1))
    counted = int(re.search(r"(\d+) splits in 4 trees", lgbm["baseline"]).group(1))
    assert f"num_leaves={splits + 1}" in lgbm["baseline"] and splits <= counted <= 4 * splits
