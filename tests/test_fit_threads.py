"""Which fits use the threads ``n_jobs`` asks for (``tnt.learn.growth.fit_threads``): small data
whose features all fit histograms is fitted on one thread."""

import numpy as np
import pytest

import tnt.learn.growth as growth
from tnt import TnTClassifier, TnTRegressor
from tnt.learn.growth import THREADED_WORK, _Problem, fit_threads
from tnt.learn.split_search import HISTOGRAM_MAX_BINS


def _problem(X) -> _Problem:
    n = X.shape[0]
    return _Problem(X=np.ascontiguousarray(X, dtype=np.float32), y=np.arange(n) % 2, w=np.ones(n), n_classes=2, seed=0)


def _codes(n_samples: int, n_features: int, n_values: int) -> np.ndarray:
    """Whole numbers ``0 .. n_values - 1``, each present in every column."""
    return np.arange(n_samples * n_features).reshape(n_features, n_samples).T % n_values


@pytest.mark.parametrize("requested", [2, 4])
def test_small_data_scanned_in_histograms_takes_one_thread(requested):
    # pendigits' shape: 7,494 x 16 values of at most 101 codes
    assert fit_threads(_problem(_codes(7494, 16, 101)), requested) == 1


def test_one_value_short_of_the_limit_is_still_small():
    n_features = 10
    n_samples = (THREADED_WORK - 1) // n_features
    assert fit_threads(_problem(_codes(n_samples, n_features, 16)), 2) == 1
    assert fit_threads(_problem(_codes(n_samples + 1, n_features, 16)), 2) == 2


def test_a_feature_in_sorted_runs_keeps_the_threads():
    X = _codes(2000, 4, 16).astype(np.float64)
    X[:, 2] = np.arange(2000) / 7  # 2,000 distinct values: more than histograms take
    assert fit_threads(_problem(X), 2) == 2
    X[:, 2] = np.arange(2000) % HISTOGRAM_MAX_BINS  # exactly as many codes as histograms take
    assert fit_threads(_problem(X), 2) == 1


def test_missing_values_count_as_a_code():
    X = _codes(2000, 4, HISTOGRAM_MAX_BINS).astype(np.float64)
    assert fit_threads(_problem(X), 2) == 1
    X[HISTOGRAM_MAX_BINS::5, 1] = np.nan  # rows 0 .. 1023 keep every value: one code more
    assert fit_threads(_problem(X), 2) == 2


def test_one_thread_asked_is_one_thread():
    X = np.random.default_rng(0).normal(size=(2000, 4))
    assert fit_threads(_problem(X), 1) == 1


def _threads_used(monkeypatch) -> list:
    """The thread counts the growth loop's workers are made with, fit after fit."""
    used, original = [], growth._Workers.__init__

    def record(self, problem, n_threads):
        used.append(n_threads)
        original(self, problem, n_threads)

    monkeypatch.setattr(growth._Workers, "__init__", record)
    return used


def test_the_estimators_fit_small_data_on_one_thread_whatever_n_jobs(monkeypatch):
    used = _threads_used(monkeypatch)
    X = _codes(600, 5, 12)
    y = (X[:, 0] + X[:, 1] > 11).astype(int)
    TnTClassifier(C=1e-3, random_state=0, n_jobs=2).fit(X, y)
    # The regressor's default size grows three graphs: one per refit rule on 80 % of the rows, then the final one.
    TnTRegressor(C=1e-3, random_state=0, n_jobs=2).fit(X, X[:, 0] * 1.5 + X[:, 1])
    assert used == [1, 1, 1, 1]
    continuous = np.random.default_rng(0).normal(size=(1500, 5))  # 1,500 distinct values per feature
    TnTClassifier(C=1e-3, random_state=0, n_jobs=2).fit(continuous, continuous[:, 0] > 0)
    assert used == [1, 1, 1, 1, 2]
