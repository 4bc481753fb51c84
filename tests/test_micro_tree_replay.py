"""``benchmarks/micro_tree_replay.py``: the replayed micro-tree fits are the fits TnT made."""

import numpy as np
from benchmark_helpers import load_benchmark
from sklearn.datasets import make_classification


def test_replaying_the_recorded_fits_grows_the_same_trees(tmp_path):
    replay = load_benchmark("micro_tree_replay")
    # Continuous columns (sorted runs: more than 1,024 distinct values) with NaN, four classes.
    X, y = make_classification(
        n_samples=1500, n_features=5, n_informative=4, n_redundant=0, n_classes=4, random_state=0
    )
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    path = tmp_path / "calls.npz"
    recorded = replay.record(path, X, y)
    data, calls = replay.load(path)
    assert {int(arguments[5]) for _, arguments in calls} == {2, 4}  # the first phase's trees and the nodes'
    seconds, replayed = replay.replay_once(data, calls, {})
    assert replayed == recorded
    assert {classes for classes, _ in seconds} == {2, 4}
