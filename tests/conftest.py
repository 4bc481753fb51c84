import contextlib
import logging
import os
import re
import shutil
import tempfile

# scikit-learn runs its array-API estimator check only with this set (before scipy is imported).
os.environ.setdefault("SCIPY_ARRAY_API", "1")
# The app's workspace store goes to a temporary folder, never the user's home (tests that need their
# own store pass a folder or set the variable themselves).
_WORKSPACES = tempfile.mkdtemp(prefix="tnt-test-workspaces-")
os.environ["TNT_WORKSPACE_DIR"] = _WORKSPACES

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # for app_helpers, data_helpers
SAMPLE_DATA = ROOT / "tnt" / "data" / "bundled"


def load_npz(name):
    with np.load(SAMPLE_DATA / f"{name}.npz", allow_pickle=False) as d:
        return d["X_train"], d["y_train"], d["X_test"], d["y_test"]


@pytest.fixture(scope="session")
def pendigits():
    return load_npz("pendigits")


@pytest.fixture(scope="session")
def optdigits():
    return load_npz("optdigits")


@pytest.fixture(scope="session")
def mnist_path():
    """The path of MNIST's ``mnist.npz`` (``tnt.data.external``), or a skip saying how to get it."""
    from data_helpers import need_data

    return need_data("mnist")


def toy_shared_graph():
    """A hand-built graph whose node 4 (a split) and node 6 (a leaf) each have two parents.

    0: x0 <= 0.5 -> 1 | 2;  1: x1 <= 1.5 -> 3 | 4;  2: x1 <= 2.5 -> 4 | 6;  4: x0 <= 0.25 -> 5 | 6.
    Node 4 is mixed (2 vs 2 samples).
    """
    from tnt import DecisionGraph

    return DecisionGraph(
        children_left=[1, 3, 4, -1, 5, -1, -1],
        children_right=[2, 4, 6, -1, 6, -1, -1],
        feature=[0, 1, 1, -2, 0, -2, -2],
        threshold=[0.5, 1.5, 2.5, -2, 0.25, -2, -2],
        value=[[6, 4], [4, 1], [2, 3], [3, 0], [2, 2], [1, 0], [0, 3]],
        n_node_samples=[10, 5, 5, 3, 4, 1, 3],
    )


def _random_dag(rng, n_internal):
    """A random binary DAG in topological order whose every node is reachable from the root."""
    n_leaves = rng.integers(2, n_internal + 2)
    n = n_internal + n_leaves
    left = np.full(n, -1)
    right = np.full(n, -1)
    has_parent = np.zeros(n, dtype=bool)
    for node in range(n_internal):
        # Guarantee reachability: the next unreached node becomes a child when possible.
        unreached = [c for c in range(node + 1, n) if not has_parent[c]]
        first = unreached[0] if unreached else rng.integers(node + 1, n)
        second = rng.integers(node + 1, n)
        while second == first:
            second = rng.integers(node + 1, n)
        left[node], right[node] = first, second
        has_parent[[first, second]] = True
    internal = left >= 0
    if not has_parent[n_internal:].all() or not has_parent[1:].all():
        return None
    from tnt import DecisionGraph

    return DecisionGraph(
        left,
        right,
        np.where(internal, 0, -2),
        np.where(internal, 0.5, -2.0),
        np.ones((n, 2)),
    )


def _fibonacci_ladder(n):
    """Split i goes left to i + 1 and right to i + 2; the two leaves are n and n + 1."""
    left = [i + 1 for i in range(n)] + [-1, -1]
    right = [i + 2 for i in range(n)] + [-1, -1]
    from tnt import DecisionGraph

    return DecisionGraph(left, right, [0] * n + [-2, -2], [0.5] * n + [-2, -2], np.ones((n + 2, 2)))


@pytest.fixture(scope="session")
def random_dag():
    """``random_dag(rng, n_internal)``: a random reachable decision DAG (or None, then draw again)."""
    return _random_dag


@pytest.fixture(scope="session")
def fibonacci_ladder():
    """``fibonacci_ladder(n)``: split i goes to i + 1 and i + 2; paths grow like Fibonacci numbers."""
    return _fibonacci_ladder


@pytest.fixture
def toy_graph():
    return toy_shared_graph()


@pytest.fixture
def no_dot_on_path(monkeypatch, tmp_path):
    """PATH holds only an empty folder, so no Graphviz program can be found."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    import shutil

    assert shutil.which("dot") is None
    return empty


@pytest.fixture(scope="session")
def big_random_graph():
    """A random decision DAG of 1,501 nodes (750 splits, each child id within 40 of its parent's)."""
    from tnt import DecisionGraph

    rng = np.random.default_rng(0)
    n_internal, n = 750, 1501
    left = np.array([rng.integers(i + 1, min(i + 40, n - 1) + 1) for i in range(n_internal)])
    right = np.array([rng.integers(i + 1, min(i + 40, n - 1) + 1) for i in range(n_internal)])
    leaves = n - n_internal
    return DecisionGraph(
        children_left=np.r_[left, np.full(leaves, -1)],
        children_right=np.r_[right, np.full(leaves, -1)],
        feature=np.r_[rng.integers(0, 5, n_internal), np.full(leaves, -2)],
        threshold=np.r_[rng.random(n_internal), np.full(leaves, -2.0)],
        value=rng.integers(0, 20, (n, 4)).astype(float),
    )


@pytest.fixture
def open_app():
    """Start the app in Streamlit's AppTest with empty caches: ``open_app(timeout)`` runs it once."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    def start(timeout=30):
        st.cache_data.clear()
        st.cache_resource.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
        at.run()
        assert not at.exception
        return at

    return start


@pytest.fixture(autouse=True)
def state_warnings(monkeypatch):
    """Streamlit's warnings that a keyed widget was given a default value and a value through the session
    state in one script run (a list, filled as the app runs), for every test: a test that runs the app
    fails when there is one (a browser that mounts such a widget afresh can show the wrong value:
    ``ui.state.held``). Streamlit logs the first one of a process only: the flag is reset for each test.
    A test that asks for the fixture can check the list at a step of its own."""
    from streamlit.elements.lib import policies

    found = []

    class Recorder(logging.Handler):
        def emit(self, record):
            if "set via the Session State API" in record.getMessage():
                found.append(record.getMessage())

    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    handler = Recorder()
    policies._LOGGER.addHandler(handler)
    yield found
    policies._LOGGER.removeHandler(handler)
    assert found == [], f"a widget had a default and a value set through the session state: {found[0]}"


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile (or load from numba's cache) every kernel once, before any test starts processes
    (the command-line tests start a dozen) that would otherwise each compile them on a fresh clone."""
    from tnt.warmup import load_compiled_code

    load_compiled_code()


# Every copy of the fit kernel is compiled above: no fit of the suite (nor of the processes it starts)
# starts a background compile of the threaded copies (tnt.learn.threaded_copies), which would outlive it.
os.environ["TNT_COMPILE_IN_BACKGROUND"] = "0"


#: The test files that take longest, longest first (their tests' seconds summed in a full run on two
#: busy cores, 2026-12-06: 350 s for the walk over every page down to 36 s). They run first, and the
#: others after them in their usual order: with `--dist loadfile --no-loadscope-reorder`
#: (pyproject.toml) a worker takes the next file in this order whenever it is nearly done, so the run
#: ends on short files rather than one worker running a long one alone (xdist's default order, most
#: tests first, left the 3 tests of test_paper.py for last).
LONGEST_FILES = (
    "tests/test_browser_walk.py",
    "tests/test_cold_start.py",
    "tests/test_browser.py",
    "tests/test_extreme_models.py",
    "tests/test_browser_inspect.py",
    "tests/test_browser_workspace.py",
    "tests/test_browser_explorer.py",
    "tests/test_render.py",
    "tests/test_paper.py",
    "tests/test_codegen.py",
    "tests/test_browser_teach.py",
    "tests/test_compiled_cache.py",
    "tests/test_docs.py",
    "tests/test_browser_missing.py",
    "tests/test_fuzz.py",
    "tests/test_app.py",
    "tests/test_workspace_crash.py",
    "tests/test_browser_regression.py",
    "tests/test_browser_editor.py",
    "tests/test_micro_tree.py",
    "tests/test_app_teach.py",
    "tests/test_cli.py",
    "tests/test_browser_categorical.py",
    "tests/test_fidelity.py",
)


def pytest_collection_modifyitems(items):
    """The longest files first (a stable sort: each file's tests keep their order)."""
    rank = {name: i for i, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_WORKSPACES, ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test leaves a picture of each page it had open (``test-artifacts/failed_*.png``):
    a failure on a busy machine (CI) can then be seen, not guessed."""
    report = yield
    if report.failed and call.when == "call" and "browser" in item.fixturenames:
        from browser_helpers import ARTIFACTS

        name = re.sub(r"\W+", "_", item.name).strip("_")
        pages = [page for context in item.funcargs["browser"].contexts for page in context.pages]
        for i, page in enumerate(pages):
            with contextlib.suppress(Exception):  # a page that crashed or closed has no picture
                page.screenshot(path=str(ARTIFACTS / f"failed_{name}_{i}.png"), full_page=True, timeout=10_000)
    return report


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, headless, driven by Playwright (for the browser suites)."""
    from browser_helpers import CHROMIUM, launch_chromium

    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is missing: install it with `apt-get install chromium` (CI's .ci/run does).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()
