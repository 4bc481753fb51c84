"""The speed figures in README.md come from benchmarks/run.py alone (no hand-written figure can drift)."""

import re

from benchmark_helpers import ROOT, load_benchmark


def _run_module():
    return load_benchmark("run")


def _rows(run):
    return [
        run.row("fit mnist as uint8, C=1e-4, `n_jobs=1`", 1.0, "CART: 10.0 s", "TnT 8.0 s", 0.8),
        run.row("first start", 10, "CART: 1.0 s", "12.0 s", 12.0, value=12.0, unit=" s"),
    ]


def test_the_speed_block_is_replaced_whole_and_the_rest_kept(tmp_path):
    run = _run_module()
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nbefore\n{run.SPEED_START}\nold figure 0.89x\n{run.SPEED_END}\nafter\n")
    run.write_speed_summary(_rows(run), "2026-01-01 00:00 UTC", 1.5, readme)
    text = readme.read_text()
    assert text.startswith("# Title\n\nbefore\n") and text.endswith("after\n")
    assert "0.89x" not in text
    assert "| fit mnist as uint8, C=1e-4, `n_jobs=1` | TnT 8.0 s | 0.80 | 1 | yes |" in text
    assert "| first start | 12.0 s | 12.00 | 10 s | no |" in text
    assert "load average 1.5" in text


def test_the_readme_speed_block_agrees_with_the_benchmark_file():
    readme = (ROOT / "README.md").read_text()
    run = _run_module()
    block = readme[readme.index(run.SPEED_START) : readme.index(run.SPEED_END)]
    bench = (ROOT / "benchmarks" / "README.md").read_text()
    for line in block.splitlines():
        match = re.match(r"\| (.+?) \| (.+?) \| ([\d.]+) \| (.+?) \| (yes|no|-) \|$", line)
        if match:
            name, measured, ratio, target, met = match.groups()
            assert f"| {name}" in bench and f"| {measured} | {ratio} | {target} | {met} |" in bench, line
    # Outside the block the README quotes no speed ratio of its own.
    outside = readme.replace(block, "")
    speed = outside[outside.index("### Speed") : outside.index("## Data")]
    assert not re.search(r"\d(\.\d+)?x\b", speed), "a speed ratio written by hand outside the generated block"


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


def test_the_warm_ups_of_an_empty_cache_server_are_stopped_before_the_next_start(tmp_path):
    import os
    import subprocess
    import sys

    run = _run_module()
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)", "tnt.learn.warmup"]
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
