"""A fit on several threads whose threaded copies of the fit kernel are not compiled yet runs each node
on one thread (the same graph) and starts their compile in the background, once."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from tnt import TnTClassifier, TnTRegressor
from tnt.learn import growth, micro_tree, threaded_copies
from tnt.learn.binning import bin_features
from tnt.learn.tree_builder import build_tree


@pytest.fixture
def build_tree_calls(monkeypatch):
    """The argument types of every threaded call of build_tree (its 14th argument True), and how many
    calls there were, threaded or not, with every micro tree fitted alone."""
    calls = {"threaded": [], "all": 0}

    def recording(*args):
        calls["all"] += 1
        if args[13] is True:
            calls["threaded"].append(tuple(build_tree.typeof_pyval(a) for a in args))
        return build_tree(*args)

    monkeypatch.setattr(micro_tree, "build_tree", recording)
    # Every micro tree fitted from Python: a wave's batch of fits calls build_tree compiled, unseen here.
    with growth.one_call_per_micro_tree():
        yield calls


def _large(seed=0):
    # Many distinct values a feature (sorted runs): a fit on two threads shares its large nodes.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(6000, 12))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 0.8)
    return X, y


def test_the_types_asked_about_are_those_of_the_threaded_calls(build_tree_calls):
    # ready() asks numba about copy_types(); a mismatch would send every fit to one thread forever.
    X, y = _large()
    TnTClassifier(C=1e-3, ccp_alpha=0.0, random_state=0, n_jobs=2).fit(X, y)
    TnTRegressor(C=1e-3, ccp_alpha=0.0, random_state=0, n_jobs=2).fit(X, y.astype(float))
    seen = set(build_tree_calls["threaded"])
    binned = bin_features(X.astype(np.float32))
    expected = {threaded_copies.copy_types(binned, squared) for squared in (None, True)}
    assert seen == expected
    assert threaded_copies.ready(binned, (None, True))  # compiled: conftest's warm-up, and these fits


def test_until_they_are_compiled_a_fit_uses_one_thread_a_node_and_the_same_graph(build_tree_calls, monkeypatch):
    X, y = _large(1)
    reference = TnTClassifier(C=1e-3, ccp_alpha=0.0, random_state=0, n_jobs=2).fit(X, y)
    assert build_tree_calls["threaded"], "the reference fit shares some node among threads"
    started = []
    monkeypatch.setattr(threaded_copies, "ready", lambda data, criteria=(None,): False)
    monkeypatch.setattr(threaded_copies, "compile_in_background", lambda: started.append(1))
    build_tree_calls["threaded"].clear()
    calls_before = build_tree_calls["all"]
    model = TnTClassifier(C=1e-3, ccp_alpha=0.0, random_state=0, n_jobs=2).fit(X, y)
    assert build_tree_calls["all"] > calls_before and not build_tree_calls["threaded"]
    assert started == [1]
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    assert model.n_splits_ == reference.n_splits_
    for name in ("children_left", "children_right", "feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(model.graph_, name), getattr(reference.graph_, name))


def test_a_fit_on_one_thread_never_asks(monkeypatch):
    monkeypatch.setattr(threaded_copies, "ready", lambda data, criteria=(None,): pytest.fail("asked"))
    assert threaded_copies.lanes(None, 1) == 1


def test_copies_the_warm_up_never_compiles_are_compiled_on_first_use(monkeypatch):
    # Data with categorical features: the background compile would not make them, so the fit takes
    # its threads and compiles them itself, as before.
    monkeypatch.setattr(threaded_copies, "ready", lambda data, criteria=(None,): pytest.fail("asked"))
    monkeypatch.setattr(threaded_copies, "compile_in_background", lambda: pytest.fail("started"))
    X = np.tile(np.arange(4.0)[:, None], (1, 2))
    data = bin_features(X.astype(np.float32))
    categorical = dataclasses.replace(data, categorical=np.array([1, 0], dtype=np.uint8))
    assert threaded_copies.lanes(categorical, 2) == 2


def test_the_background_compile_starts_once_unless_switched_off(monkeypatch):
    started = []

    class FakeProcess:
        def __init__(self, args, **kwargs):
            started.append((args, kwargs))

    monkeypatch.setattr(threaded_copies.subprocess, "Popen", FakeProcess)
    monkeypatch.setattr(threaded_copies, "_started", [])
    monkeypatch.setenv(threaded_copies.ENVIRONMENT_SWITCH, "0")
    assert threaded_copies.compile_in_background() is None and not started
    monkeypatch.setenv(threaded_copies.ENVIRONMENT_SWITCH, "1")
    first = threaded_copies.compile_in_background()
    assert threaded_copies.compile_in_background() is first and len(started) == 1
    ((args, kwargs),) = started
    assert args == [sys.executable, "-m", "tnt.warmup", "--background", "--threads"]
    assert kwargs["start_new_session"] and kwargs["stdout"] == subprocess.DEVNULL
    data = bin_features(np.tile(np.arange(4, dtype=np.float32)[:, None], (1, 2)))
    monkeypatch.setattr(threaded_copies, "ready", lambda data, criteria=(None,): False)
    assert threaded_copies.lanes(data, 4) == 1 and len(started) == 1
    monkeypatch.setattr(threaded_copies, "ready", lambda data, criteria=(None,): True)
    assert threaded_copies.lanes(data, 4) == 4


def test_the_app_s_warm_up_stops_its_server_from_starting_another(monkeypatch):
    from tnt import warmup

    monkeypatch.setattr(warmup, "_process", None)
    monkeypatch.setattr(warmup.subprocess, "Popen", lambda *args, **kwargs: _Finished())
    monkeypatch.setattr(warmup.threading, "Thread", lambda **kwargs: _Finished())
    monkeypatch.setenv(threaded_copies.ENVIRONMENT_SWITCH, "1")
    warmup.start_in_background()
    import os

    assert os.environ[threaded_copies.ENVIRONMENT_SWITCH] == "0"


class _Finished:
    stdout = ()

    def start(self):
        pass

    def poll(self):
        return 0
