"""First start: ``import tnt`` and the app's Data page need no compiled code; the warm-up step
compiles what training and prediction use."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Prints the tnt.learn kernels that hold compiled (or cache-loaded) code in this process.
LOADED_KERNELS = """
import importlib, pkgutil, tnt.learn
from numba.core.registry import CPUDispatcher
loaded = []
for info in pkgutil.iter_modules(tnt.learn.__path__):
    module = importlib.import_module("tnt.learn." + info.name)
    loaded += [f"{info.name}.{n}" for n, f in vars(module).items() if isinstance(f, CPUDispatcher) and f.overloads]
print(sorted(set(loaded)))
"""

# After the warm-up: the number of compiled (or cache-loaded) copies of every tnt.learn kernel...
WARMED_UP = """
import numpy as np
from tnt import warmup
warmup.load_compiled_code()
import importlib, pkgutil, tnt.learn
modules = [importlib.import_module("tnt.learn." + info.name) for info in pkgutil.iter_modules(tnt.learn.__path__)]
before = {d: len(d.overloads) for m in modules for d in vars(m).values() if hasattr(d, "overloads")}
"""
# ...and, after the code that follows it, the kernels that got a copy more since then (``added``).
ADDED_SINCE_WARM_UP = """
added = [d.py_func.__name__ for d in before if len(d.overloads) != before[d]]
"""


def run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_importing_tnt_compiles_nothing():
    code = "import tnt, tnt.cli, tnt.reduction, tnt.model_io, tnt.services.training, tnt.viz.figures\n"
    assert run(code + LOADED_KERNELS) == "[]"


def test_the_data_page_shows_its_table_without_compiled_code():
    # The app as a user opens it, the background warm-up left out: the Data page runs no kernel.
    code = (
        f"""
import tnt.warmup
tnt.warmup.start_in_background = lambda: None
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({str(ROOT / "app.py")!r}, default_timeout=60)
at.run()
assert not at.exception, at.exception
assert at.header[0].value == "Data" and len(at.dataframe) >= 1
"""
        + LOADED_KERNELS
    )
    assert run(code) == "[]"


def test_warm_up_reaches_every_kernel_fit_and_predict_use():
    code = """
from sklearn.datasets import load_digits
from tnt import TnTClassifier
X, y = load_digits(return_X_y=True)
model = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
TnTClassifier(C=1e-3, random_state=0).fit(X, y, progress_callback=lambda event: event.snapshot())  # as the app
for X_in in (X, X.astype(np.float32), X.astype(np.uint8)):
    model.predict(X_in)
    model.decision_depth(X_in)
X_missing = X.copy()
X_missing[::5, 20:40] = np.nan  # missing values in training and at prediction
from tnt import TnTRegressor
TnTClassifier(C=1e-3, random_state=0).fit(X_missing, y).predict(X_missing)
TnTRegressor(C=1e-3, random_state=0).fit(X_missing, y.astype(float)).predict(X_missing.astype(np.float32))
"""
    assert run(WARMED_UP + code + ADDED_SINCE_WARM_UP + "print(added)") == "[]"


def test_the_warm_up_compiles_the_batches_of_micro_trees_a_classification_pass_takes():
    # A pass fits a wave's micro trees in one call only where the batch kernel is compiled for the
    # data's types (batches_ready), else one call each, silently: a fit that compiles nothing more
    # after the warm-up proves nothing here. The types each pass asks about must be among those the
    # warm-up's calls of the batch kernel compile (or load), for every code width a classifier meets.
    code = """
import numpy as np
from sklearn.datasets import load_digits
from tnt.learn import growth, micro_tree
kernel, warmed = micro_tree._fit_trees, set()
def recording(*arguments):
    warmed.add(tuple(kernel.typeof_pyval(a) for a in arguments))
    return kernel(*arguments)
micro_tree._fit_trees = recording
from tnt import warmup
with growth.one_call_per_micro_tree():  # the warm-up's own passes take the batches the cache holds
    warmup.load_compiled_code()
micro_tree._fit_trees = kernel
asked, ready = [], growth.batches_ready
def asking(data, workspace):
    asked.append((data.codes.dtype.name, micro_tree._batch_types(data, workspace) in warmed))
    return ready(data, workspace)
growth.batches_ready = asking
from tnt import TnTClassifier
X, y = load_digits(return_X_y=True)
TnTClassifier(C=1e-3, random_state=0, n_jobs=1).fit(X, y)  # one-byte codes
X_wide = np.random.default_rng(0).integers(0, 1100, (500, 3))
TnTClassifier(C=1e-3, random_state=0, n_jobs=1).fit(X_wide, X_wide[:, 0] % 2)  # two-byte codes
print(asked)
"""
    import ast

    assert ast.literal_eval(run(code)) == [("uint8", True), ("uint16", True)]


def test_start_in_background_runs_one_process():
    from tnt import warmup

    first = warmup.start_in_background()
    assert warmup.start_in_background() is first
    warmup.wait()
    assert warmup.ready() and first.returncode == 0


def test_the_warm_up_says_when_the_default_data_can_train():
    from tnt.warmup import NARROW_READY

    result = subprocess.run([sys.executable, "-m", "tnt.warmup"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == NARROW_READY


def test_two_byte_codes_are_told_apart():
    import numpy as np

    from tnt.warmup import needs_wide_codes

    X = np.tile(np.arange(300.0)[:, None], (1, 2))
    assert needs_wide_codes(X)
    assert not needs_wide_codes(X % 256)
    assert not needs_wide_codes(X, max_bins=255) and needs_wide_codes(X, max_bins=257)


def test_warm_up_reaches_the_copies_for_wide_codes_and_threads():
    # Each copy of the fit kernel (two-byte codes with and without sorted runs, with threads) and
    # the growth loop's walks on two-byte codes are compiled by the warm-up: fits that need them
    # compile nothing more.
    code = """
import numpy as np
from tnt import warmup
warmup.load_compiled_code()
from tnt.learn import tree_builder, split_search, sorted_runs, wave_routing
before = {d: len(d.overloads) for m in (tree_builder, split_search, sorted_runs, wave_routing)
          for d in vars(m).values() if hasattr(d, "overloads")}
from tnt import TnTClassifier
rng = np.random.default_rng(0)
y = rng.integers(0, 3, 5000)
for X in (rng.integers(0, 300, (5000, 50)), rng.normal(size=(5000, 50)), rng.integers(0, 9, (5000, 50))):
    X[:, 0] += y
    for n_jobs in (1, 2):
        TnTClassifier(C=1e-2, random_state=0, n_jobs=n_jobs).fit(X, y)
after = {d: len(d.overloads) for d in before}
print([d.py_func.__name__ for d in before if after[d] != before[d]])
"""
    assert run(code) == "[]"


def test_warm_up_reaches_the_walks_through_cut_bins_of_binned_features():
    # A feature of more distinct values than max_bins (any column of more than 65,535 with the
    # default) is cut into quantile bins, and a micro tree's threshold may cut a bin: the growth
    # loop's walks then read the values of that bin's samples besides the codes (one-byte codes
    # here, max_bins=255; two-byte codes, max_bins=1000, always take that copy), with and without
    # missing values, for both learners. The warm-up compiles those walks: such fits compile nothing more.
    code = """
from tnt import TnTClassifier, TnTRegressor
from tnt.learn import growth
walked, sensitive_samples = set(), growth.sensitive_samples
def recording(X, *arguments):
    walked.add((X.dtype.name, arguments[7] is not None))  # the codes and whether cut bins are read
    return sensitive_samples(X, *arguments)
growth.sensitive_samples = recording
rng = np.random.default_rng(0)
X = rng.normal(size=(3000, 6))
y = (X[:, 0] + X[:, 1] > 0).astype(int) ^ (X[:, 2] > 0)
X_missing = X.copy()
X_missing[rng.random(X.shape) < 0.1] = np.nan
for X_in in (X, X_missing):
    for max_bins in (255, 1000):
        TnTClassifier(C=1e-3, random_state=0, n_jobs=1, max_bins=max_bins).fit(X_in, y)
        TnTRegressor(C=1e-3, random_state=0, n_jobs=1, max_bins=max_bins).fit(X_in, y.astype(float))
"""
    import ast

    walked, added = ast.literal_eval(run(WARMED_UP + code + ADDED_SINCE_WARM_UP + "print((sorted(walked), added))"))
    assert {("uint8", True), ("uint16", True)} <= set(walked) and ("uint16", False) not in walked, walked
    assert added == []


def test_warm_up_reaches_the_kernels_of_categorical_features():
    # Categorical features beside one-byte and two-byte numeric ones (a text column and a continuous
    # one), for both learners, with the app's progress callback: the warm-up compiles what they use,
    # the classifier's batches of micro trees included (a pass fits in batches only once they are
    # compiled), so that such fits compile nothing more, and fit in batches.
    code = """
from tnt import TnTClassifier, TnTRegressor
from tnt.learn import growth
rng = np.random.default_rng(1)
batched = []
fit_in_batches = growth._fit_in_batches
growth._fit_in_batches = lambda *args: batched.append(1) or fit_in_batches(*args)
for numeric in (rng.integers(0, 9, 3000), rng.normal(size=3000)):
    X = np.column_stack([rng.integers(0, 12, 3000), numeric, rng.integers(0, 3, 3000)]).astype(float)
    y = ((X[:, 0] % 3 == 0) ^ (X[:, 1] > np.median(X[:, 1]))).astype(int)
    for categorical in ([0], [0, 2]):
        options = dict(C=1e-3, random_state=0, n_jobs=1, categorical_features=categorical)
        TnTClassifier(**options).fit(X, y, progress_callback=lambda event: event.snapshot()).predict(X)
        TnTRegressor(**options).fit(X, y.astype(float)).predict(X)
"""
    assert run(WARMED_UP + code + ADDED_SINCE_WARM_UP + "print(len(batched) > 0, added)") == "True []"


def test_the_app_hears_each_stage_the_warm_up_process_prints(monkeypatch):
    import threading

    from tnt import warmup

    stages = {stage: threading.Event() for stage in warmup.READY_LINES}
    monkeypatch.setattr(warmup, "_stage_ready", stages)
    seen = []  # the stages set before each line is read, and once the output has ended

    class Process:
        def __init__(self, lines):
            self.lines = lines

        @property
        def stdout(self):
            for line in self.lines:
                seen.append([stage for stage, event in stages.items() if event.is_set()])
                yield line + "\n"
            seen.append([stage for stage, event in stages.items() if event.is_set()])

        def wait(self):
            return 0

    lines = warmup.READY_LINES
    warmup._watch(Process(["compiling", lines[warmup.NARROW], "more", lines[warmup.CATEGORICAL]]))
    narrow, wide, categorical = warmup.NARROW, warmup.WIDE, warmup.CATEGORICAL
    assert seen == [[], [], [narrow], [narrow], [narrow, categorical]]
    assert all(event.is_set() for event in stages.values())  # the process ended: every stage
    # ready() and wait() of a stage, the process still running.
    monkeypatch.setattr(warmup, "_process", type("Running", (), {"poll": lambda self: None})())
    for event in stages.values():
        event.clear()
    stages[narrow].set()
    assert warmup.ready(stage=narrow)
    assert not warmup.ready(stage=wide) and not warmup.ready()
    warmup.wait(stage=narrow)  # returns at once


def test_the_train_page_waits_for_the_warm_up_stage_its_data_needs(monkeypatch):
    # Classification on one-byte codes waits for the first stage only; regression and data of more
    # than 256 values per feature for the stage of any one-thread fit (not for the threaded copies),
    # unless 255 bins give that data one-byte codes; data with categorical features for theirs.
    import dataclasses

    import numpy as np

    from tnt import warmup
    from tnt.data.datasets import load_bundled
    from tnt.services.training import TrainParams
    from ui import views

    waited = []
    monkeypatch.setattr(warmup, "ready", lambda stage=None: False)
    monkeypatch.setattr(warmup, "wait", lambda stage=None: waited.append(stage))
    exact, binned = TrainParams(), TrainParams(max_bins=255)
    digits = load_bundled("digits")
    views._wait_for_compiled_code(digits, exact)
    housing = load_bundled("california_housing")
    narrow_housing = dataclasses.replace(housing, X_train=np.floor(housing.X_train) % 7)
    views._wait_for_compiled_code(narrow_housing, exact)
    wide = dataclasses.replace(
        digits, X_train=np.arange(digits.X_train.size, dtype=np.float64).reshape(digits.X_train.shape)
    )
    views._wait_for_compiled_code(wide, exact)
    views._wait_for_compiled_code(wide, binned)
    views._wait_for_compiled_code(housing, binned)
    views._wait_for_compiled_code(dataclasses.replace(digits, categorical=("pixel_0_2",)), exact)
    narrow, wide, categorical = warmup.NARROW, warmup.WIDE, warmup.CATEGORICAL
    assert waited == [narrow, wide, wide, narrow, wide, categorical]
    # Once the whole warm-up has finished, a training neither waits nor reads its data's values.
    monkeypatch.setattr(warmup, "ready", lambda stage=None: stage is None)
    monkeypatch.setattr(warmup, "needs_wide_codes", lambda *args: pytest.fail("the data's values were read"))
    views._wait_for_compiled_code(housing, exact)
    assert len(waited) == 6


def test_the_background_warm_up_compiles_the_tnt_that_started_it(tmp_path, monkeypatch):
    # From a folder holding another `tnt/` (a repository beside a non-editable install), the
    # process must still import the same tnt as the app; this decoy fails on import.
    from tnt import warmup

    (tmp_path / "tnt").mkdir()
    (tmp_path / "tnt" / "__init__.py").write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(warmup, "_process", None)
    process = warmup.start_in_background()
    process.wait(timeout=600)
    assert process.returncode == 0


def test_the_app_says_it_is_starting_before_importing_its_libraries():
    # A first start spends seconds importing tnt, scikit-learn and the pages' helpers; the browser
    # shows the message meanwhile instead of a blank page (benchmarks/run.py times the first words).
    import ast

    calls_before_imports = []
    for statement in ast.parse((ROOT / "app.py").read_text()).body:
        if isinstance(statement, ast.ImportFrom) and statement.module.split(".")[0] in ("tnt", "ui"):
            break
        calls_before_imports += [ast.unparse(node.func) for node in ast.walk(statement) if isinstance(node, ast.Call)]
    assert "st.set_page_config" in calls_before_imports
    assert "starting.info" in calls_before_imports


def test_the_starting_message_stays_until_the_page_is_drawn():
    # The page imports its own libraries before drawing anything: clearing the message before the
    # page runs left the browser blank meanwhile.
    import ast

    calls = [
        ast.unparse(node) for node in ast.walk(ast.parse((ROOT / "app.py").read_text())) if isinstance(node, ast.Call)
    ]
    assert calls.count("starting.empty()") == 1
    assert calls.index("starting.empty()") > calls.index("pages.run()")


def _warm_up_on_two_cores_and_an_empty_cache(monkeypatch, record) -> list:
    """:func:`tnt.warmup.main` with ``record`` instead of ``load_compiled_code`` and second processes
    that end at once, on two cores and an empty cache: the list of those processes' arguments."""
    from tnt import warmup
    from tnt.learn import compiled

    started = []
    monkeypatch.setattr(warmup, "load_compiled_code", record)
    real_popen = subprocess.Popen

    def popen(args, **kwargs):
        started.append(args[1:])
        return real_popen([sys.executable, "-c", "raise SystemExit(0)"], **kwargs)

    monkeypatch.setattr(warmup.subprocess, "Popen", popen)
    monkeypatch.setattr("tnt._parallel.usable_cores", lambda: 2)
    monkeypatch.setattr(compiled, "is_cached", lambda dispatcher, types: False)
    return started


def test_the_warm_up_compiles_on_two_processes_where_there_are_two_cores(monkeypatch, capsys):
    from tnt import warmup
    from tnt.learn import compiled

    shares = []
    started = _warm_up_on_two_cores_and_an_empty_cache(
        monkeypatch, lambda report=None, share="all", threads=True, wait=None: shares.append(share)
    )
    warmup.main([])
    assert shares == ["first"] and started == [["-m", "tnt.warmup", "--second"]]
    monkeypatch.setattr("tnt._parallel.usable_cores", lambda: 1)
    warmup.main([])
    assert shares == ["first", "all"] and len(started) == 1
    monkeypatch.setattr("tnt._parallel.usable_cores", lambda: 2)
    monkeypatch.setattr(compiled, "is_cached", lambda dispatcher, types: True)  # only loads: one process
    monkeypatch.setattr(warmup, "_cache_index_found", lambda: False)
    warmup.main([])
    # Where no index of the cache was found, the second process is started before the cache is
    # read, and stopped again.
    assert shares == ["first", "all", "all"] and len(started) == 2
    monkeypatch.setattr(warmup, "_cache_index_found", lambda: True)
    warmup.main([])  # a cached start starts no second process
    assert shares[-1] == "all" and len(started) == 2
    monkeypatch.setattr(compiled, "is_cached", lambda dispatcher, types: False)  # an index of older sources
    warmup.main([])
    assert shares[-1] == "first" and len(started) == 3
    warmup.main(["--second"])
    assert shares[-1] == "second"
    assert "compiled code is ready" in capsys.readouterr().out


def test_the_warm_up_looks_for_the_cache_index_where_numba_cache_dir_says(tmp_path, monkeypatch):
    from tnt import warmup

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not warmup._cache_index_found()
    (tmp_path / "learn_0123").mkdir()
    (tmp_path / "learn_0123" / "split_search._on_features-12.py311.1.nbc").touch()
    assert not warmup._cache_index_found()  # code without its index is not found by numba either
    (tmp_path / "learn_0123" / "split_search._on_features-12.py311.nbi").touch()
    assert warmup._cache_index_found()


def test_a_failing_second_process_fails_the_warm_up(monkeypatch):
    from tnt import warmup
    from tnt.learn import compiled

    with pytest.raises(ValueError, match="share must be"):
        warmup.load_compiled_code(share="half")
    monkeypatch.setattr(warmup, "load_compiled_code", lambda report=None, share="all", threads=True, wait=None: None)
    real_popen = subprocess.Popen
    monkeypatch.setattr(
        warmup.subprocess,
        "Popen",
        lambda args, **kwargs: real_popen([sys.executable, "-c", "raise SystemExit(5)"], **kwargs),
    )
    monkeypatch.setattr("tnt._parallel.usable_cores", lambda: 2)
    monkeypatch.setattr(compiled, "is_cached", lambda dispatcher, types: False)
    with pytest.raises(SystemExit, match="second process failed"):
        warmup.main([])


def test_the_warm_up_hears_each_stage_its_second_process_prints():
    import threading

    from tnt.warmup import NARROW, SPLIT_SEARCH, _read_stages

    said = {SPLIT_SEARCH: threading.Event(), NARROW: threading.Event()}
    seen = []

    def output():
        yield "compiling\n"
        seen.append(said[SPLIT_SEARCH].is_set())
        yield SPLIT_SEARCH + "\n"
        seen.append(said[SPLIT_SEARCH].is_set() and not said[NARROW].is_set())

    _read_stages(output(), said)
    assert seen == [False, True]
    assert said[NARROW].is_set()  # the helper ended: what it did not compile, the first process does


def test_a_kernel_compiled_elsewhere_is_loaded_once_that_process_has_cached_it(monkeypatch):
    # The warm-up's first process waits for the second's split search instead of compiling it too.
    from numba import types

    from tnt.learn import compiled
    from tnt.learn.split_search import _on_features

    waited = []

    class Ready:
        def wait(self, timeout=None):
            waited.append(timeout)
            return True

    monkeypatch.setattr(compiled, "_compiled_elsewhere", {})
    compiled.load_when_ready(_on_features, Ready())
    cache = _on_features._cache
    cache.load_overload((types.int64,), _on_features.targetctx)  # numba's try before a compile
    assert waited == [compiled.COMPILED_ELSEWHERE_TIMEOUT]


def test_the_app_starts_its_warm_up_before_importing_scikit_learn_or_numba():
    # app.py starts the warm-up before its other imports: importing the warm-up must stay light.
    code = "import sys, tnt.warmup\nprint(sorted({'sklearn', 'numba', 'scipy'} & set(sys.modules)))"
    assert run(code) == "[]"


def test_tnt_gives_every_public_name_on_first_use():
    code = """
import sys, tnt
assert "tnt.estimator" not in sys.modules
from tnt import *
from tnt.estimator import TnTClassifier as defined
assert tnt.TnTClassifier is defined and set(tnt.__all__) <= set(dir(tnt))
assert len(dir(tnt)) == len(set(dir(tnt))), dir(tnt)  # a name used once is listed once
try:
    tnt.TnTClasifier
except AttributeError as error:
    print(error)
"""
    assert run(code) == "module 'tnt' has no attribute 'TnTClasifier'"


def test_without_the_compiler_the_warm_up_has_nothing_to_compile():
    # NUMBA_DISABLE_JIT=1 (debugging) makes every kernel a plain function: the warm-up runs in one
    # process rather than ask numba to compile the split search in a second.
    code = """
from tnt.learn.compiled import is_cached
from tnt.learn.split_search import _on_features
from tnt.learn.tree_builder import split_search_types
print(is_cached(_on_features, split_search_types()))
"""
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_the_app_s_warm_up_gives_way_to_the_server(monkeypatch):
    from tnt import warmup

    niced, shares = [], []
    monkeypatch.setattr(warmup.os, "nice", niced.append, raising=False)
    monkeypatch.setattr(
        warmup, "load_compiled_code", lambda report=None, share="all", threads=True, wait=None: shares.append(share)
    )
    warmup.main(["--background", "--second"])  # the helper inherits the priority; it is lowered once
    assert niced == [10] and shares == ["second"]
    warmup.main(["--second"])  # `python -m tnt.warmup` as pip install runs it
    assert niced == [10] and shares == ["second", "second"]


def test_the_warm_up_process_collects_garbage_less_often(monkeypatch):
    import gc

    from tnt import warmup

    seen = []
    monkeypatch.setattr(warmup, "main", lambda: seen.append(gc.get_threshold()))
    before = gc.get_threshold()
    try:
        warmup.run_as_process()
    finally:
        gc.set_threshold(*before)
    assert seen == [warmup.COLLECTOR_THRESHOLDS] and seen[0][0] > before[0]
    # Importing the module (the app, a test) leaves the importing process's collector alone.
    code = "import gc; before = gc.get_threshold(); import tnt.warmup; print(gc.get_threshold() == before)"
    assert run(code) == "True"


def test_each_share_of_the_warm_up_reports_its_stages_in_order(monkeypatch):
    from tnt import warmup
    from tnt.learn import split_search

    done = []

    class SplitSearch:
        def compile(self, types):
            done.append("split search compiled")

    monkeypatch.setattr(split_search, "_on_features", SplitSearch())
    steps = ("_growth_kernels", "_load_prediction_code", "_load_statistics_code", "_small_fit", "_regression_kernels")
    steps += ("_categorical_fits",)
    for name in steps:
        monkeypatch.setattr(warmup, name, lambda *args, name=name, **kwargs: done.append(name))
    for name in ("_fit_kernels", "_threaded_fit_kernels", "_class_batches"):
        monkeypatch.setattr(warmup, name, lambda n_values, *args, name=name: done.append(f"{name}({n_values})"))
    warmup.load_compiled_code(report=lambda stage: done.append(f"report {stage}"), share="second")
    assert done == [
        "split search compiled",
        "report split search",
        "_growth_kernels",
        "report narrow",
        "_threaded_fit_kernels(4)",
        "_threaded_fit_kernels(1100)",
    ]
    done.clear()
    warmup.load_compiled_code(report=lambda stage: done.append(f"report {stage}"), share="first")
    # What the second share compiles meanwhile (the split search, the growth loop's kernels) is
    # asked for only after the fit kernel: prediction's and the statistics' kernels come first.
    assert done[: done.index("report narrow") + 1] == [
        "_load_prediction_code",
        "_load_statistics_code",
        "_fit_kernels(4)",
        "_small_fit",
        "report narrow",
    ]
    assert "_threaded_fit_kernels(4)" not in done and "_regression_kernels" in done
    # The classifier's batches on one-byte codes right after (the first training does without them).
    assert done[done.index("report narrow") + 1] == "_class_batches(4)"
    # Then what one-thread fits of any data need (report wide), then the categorical features' kernels.
    later = done[done.index("report narrow") + 1 :]
    assert later[-4:] == ["report wide", "_categorical_fits", "_categorical_fits", "report categorical"]
    done.clear()
    warmup.load_compiled_code(report=lambda stage: done.append(f"report {stage}"), share="second", threads=False)
    assert "_class_batches(4)" in done  # the install's second share compiles them instead


# Records the tnt.learn kernels compiled (not loaded from the cache), outermost calls only.
COMPILE_EVENTS = """
from numba.core import event
compiled, depth, nested = [], [0], []
class Listener(event.Listener):
    def on_start(self, ev):
        depth[0] += 1
        nested.append(ev.data["dispatcher"].py_func.__name__)  # at any depth
        if depth[0] == 1:
            compiled.append(ev.data["dispatcher"].py_func.__name__)
    def on_end(self, ev):
        depth[0] -= 1
event.register("numba:compile", Listener())
"""

SECOND_SHARE_NARROW = (
    COMPILE_EVENTS
    + """
from tnt import warmup
class Narrow(Exception):
    pass
def report(stage):
    if stage == warmup.NARROW:
        raise Narrow
from tnt.learn.split_search import _on_features
from tnt.learn.tree_builder import split_search_types
from tnt.learn.compiled import is_cached
assert not is_cached(_on_features, split_search_types())
try:
    warmup.load_compiled_code(report=report, share="second")
except Narrow:
    pass
assert compiled[0] == "_on_features", compiled
assert is_cached(_on_features, split_search_types())
# The second passes over missing values are kernels of their own, compiled once for the criterion:
# inlined into the scans, they had doubled the split search's compile time.
from tnt.learn.split_search import _second_pass, _second_pass_of_bits
assert len(_second_pass.overloads) == len(_second_pass_of_bits.overloads) == 1, compiled
# So are the scans of the nodes that keep their histograms and the fill of large nodes' histograms,
# each compiled once, for the Gini impurity only (the criterion's last argument, ``squared``, None:
# no squared error's branch). The small nodes' scan and the steps' loops over features are inlined
# into _feature_work, not compiled apart.
from numba import types
from tnt.learn import split_search
for scan in (split_search._fill_and_scan, split_search._scan_stored, split_search._accumulate):
    (signature,) = scan.signatures
    assert signature[-1] == types.none, (scan, signature)
inlined = ("_scan_feature", "_scan_features", "_fill_and_scan_features", "_scan_stored_features", "_subtract_features")
assert not [name for name in inlined if getattr(split_search, name).overloads], compiled
growth_start = compiled.index("_on_features") + 1
print(sorted(set(compiled[growth_start:])))
"""
)

FIRST_SHARE_NARROW = (
    COMPILE_EVENTS
    + """
from tnt import warmup
from tnt.learn import compiled as cache, tree_builder
asked_early = []
class Ready:
    def __init__(self, name):
        self.name = name
    def wait(self, timeout=None):
        if not tree_builder.build_tree.overloads:
            asked_early.append(self.name)
        return True
for kernel in warmup.growth_kernels():
    cache.load_when_ready(kernel, Ready(kernel.py_func.__name__))
class Narrow(Exception):
    pass
def report(stage):
    raise Narrow
try:
    warmup.load_compiled_code(report=report, share="first")
except Narrow:
    pass
first_share = sorted(set(compiled))
scans = ("_on_features", "_feature_work", "_fill_and_scan", "_scan_stored", "_accumulate")
first_share_scans = [name for name in nested if name in scans]
del compiled[:]
from tnt.data.datasets import default_dataset_id, load_bundled
from tnt.services.training import TrainParams, train
train(load_bundled(default_dataset_id()), TrainParams(), progress_callback=lambda event: event.snapshot())
print((first_share, asked_early, compiled, first_share_scans))
"""
)


def test_the_warm_up_s_two_shares_compile_what_the_first_training_needs_each_kernel_once(tmp_path):
    # From an empty cache, as the warm-up's two processes: the second share's part of the first
    # stage (the split search, then the growth loop's kernels without the fit kernel), then the
    # first share's part in a new process. The first share compiles none of the second's kernels
    # (it loads them), asks for the growth loop's only once it has compiled the fit kernel (before,
    # it would wait while the second process compiles them), and the app's first training on the
    # default data (the Train page, with a progress callback's snapshots) compiles nothing more.
    # The second share's split search (compiled with split_search_types) is the one the fit kernel
    # calls: the first share compiles no other copy of it nor of its scans (SECOND_SHARE_NARROW
    # checks which scans are kernels of their own).
    import ast

    from tnt.warmup import growth_kernels

    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)

    def run_share(code):
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
        assert result.returncode == 0, result.stderr
        return ast.literal_eval(result.stdout.strip().splitlines()[-1])

    growth = {kernel.py_func.__name__ for kernel in growth_kernels()}
    binning = {"_column_summary", "_mark_whole_numbers", "_code_whole_numbers"}
    second = set(run_share(SECOND_SHARE_NARROW))
    assert second == growth | binning, second ^ (growth | binning)
    first, asked_early, by_training, scans = run_share(FIRST_SHARE_NARROW)
    assert not set(first) & second and scans == [], (first, scans)
    assert {"build_tree", "route_float32_cast", "distance_ranges"} <= set(first), first
    assert asked_early == [] and by_training == []


def test_pip_install_compiles_all_but_the_threaded_copies_in_two_even_shares(monkeypatch):
    # The two shares of `--install` together compile every stage of the full warm-up but the
    # threaded copies of the fit kernel, each stage once (what one process leaves out, the other takes).
    from tnt import warmup

    stages = []
    for name in ("_fit_kernels", "_threaded_fit_kernels", "_class_batches"):
        monkeypatch.setattr(warmup, name, lambda *args, name=name, **kwargs: stages.append((name, args, kwargs)))

    def small_fit(n_values=4, missing=False, max_bins=None, size="auto", models="both"):
        fitted = [models] if models != "both" else ["classifier"] + ["regressor"] * (missing or max_bins is not None)
        stages.extend(("_small_fit", (n_values, missing, max_bins, size, model), {}) for model in fitted)

    monkeypatch.setattr(warmup, "_small_fit", small_fit)
    monkeypatch.setattr(
        warmup,
        "_regression_kernels",
        lambda values=warmup.WIDE_VALUES, criteria=("squared", "class"): stages.extend(
            ("_regression_kernels", (v, criterion), {}) for v in values for criterion in criteria
        ),
    )
    for name in ("_load_prediction_code", "_load_statistics_code", "_growth_kernels"):
        monkeypatch.setattr(warmup, name, lambda name=name: stages.append((name, (), {})))
    monkeypatch.setattr(warmup, "_categorical_fits", lambda *args: stages.append(("_categorical_fits", args, {})))
    monkeypatch.setattr("tnt.learn.split_search._on_features.compile", lambda types: stages.append(("split", (), {})))

    def run(**options):
        stages.clear()
        warmup.load_compiled_code(
            report=lambda stage: stages.append(("report", (stage,), {})),
            wait=lambda stage: stages.append(("wait", (stage,), {})),
            **options,
        )
        return [stage for stage in stages if stage[0] not in ("report", "wait")], list(stages)

    everything, _ = run()
    (first, first_said), (second, second_heard) = run(share="first", threads=False), run(share="second", threads=False)
    threaded = [stage for stage in everything if stage[0] == "_threaded_fit_kernels"]
    assert len(threaded) == 2 and run(share="threads")[0] == threaded
    # The categorical features' kernels are left out too (the app's background warm-up compiles them).
    assert [stage[1] for stage in everything if stage[0] == "_categorical_fits"] == [(4,), (1100,)]
    without = [stage for stage in everything if stage[0] not in ("_threaded_fit_kernels", "_categorical_fits")]
    both = first + [stage for stage in second if stage[0] not in ("split", "_growth_kernels")]
    assert sorted(map(repr, both)) == sorted(map(repr, without))  # each stage once, none left out
    # Regression trees on two-byte codes only: the second share compiles their squared-error
    # kernels, the first their batches of class targets (with the fit kernel of two-byte codes,
    # which the second's walks through cut bins wait for); the growth loop's kernels are the first's.
    assert [stage for stage in second if stage[0] == "_regression_kernels"] == [
        ("_regression_kernels", (1100, "squared"), {})
    ]
    assert [stage for stage in first if stage[0] == "_regression_kernels"] == [
        ("_regression_kernels", (1100, "class"), {})
    ]
    assert ("_growth_kernels", (), {}) not in second
    # The classifier's batches on one-byte codes: the second's, before it waits, from the fit
    # kernel the first cached long before (which the second's fits with missing values load).
    assert ("_class_batches", (4,), {}) in second and ("_class_batches", (4,), {}) not in first
    said = first_said.index(("report", (warmup.WIDE,), {}))
    assert first_said.index(("_fit_kernels", (1100,), {})) < said
    assert first_said.index(("_regression_kernels", (1100, "class"), {})) < said
    waited = second_heard.index(("wait", (warmup.WIDE,), {}))
    assert second_heard.index(("_class_batches", (4,), {})) < waited
    float_walks = [i for i, stage in enumerate(second_heard) if stage[0] == "_small_fit" and stage[1][2] is not None]
    assert len(float_walks) == 4 and min(float_walks) > waited  # classifier and regressor, with and without NaN
    assert run(threads=False)[0] == without  # one process (one core) compiles the same


def test_without_the_threaded_copies_the_second_process_waits_for_the_first_s_wide_stage(monkeypatch, tmp_path):
    # `--install`: the first process writes "wide" on the second's input once the fit kernels of
    # two-byte codes are cached; the second's wait returns then, or once its input ends (the first
    # failed), and never hangs.
    import io

    from tnt import warmup

    heard = tmp_path / "heard.txt"
    real_popen = subprocess.Popen
    _warm_up_on_two_cores_and_an_empty_cache(monkeypatch, lambda report=None, **options: report(warmup.WIDE))
    started = []  # a second process that writes what it reads on its input

    def popen(args, **kwargs):
        started.append(args[1:])
        reader = f"import sys; open({str(heard)!r}, 'w').write(sys.stdin.readline())"
        return real_popen([sys.executable, "-c", reader], **kwargs)

    monkeypatch.setattr(warmup.subprocess, "Popen", popen)
    warmup.main(["--install"])
    assert started == [["-m", "tnt.warmup", "--second", "--install"]] and heard.read_text() == "wide\n"
    for given in ("wide\n", "", "narrow\n"):
        waited = []
        monkeypatch.setattr(sys, "stdin", io.StringIO(given))
        monkeypatch.setattr(
            warmup,
            "load_compiled_code",
            lambda report=None, share="all", threads=True, wait=None, waited=waited: waited.append(wait(warmup.WIDE)),
        )
        warmup.main(["--second", "--install"])
        assert waited == [True], given


def test_the_warm_up_reads_the_install_and_threads_flags(monkeypatch):
    from tnt import warmup

    calls = []
    started = _warm_up_on_two_cores_and_an_empty_cache(
        monkeypatch, lambda report=None, share="all", threads=True, wait=None: calls.append((share, threads))
    )
    warmup.main(["--install"])
    assert calls == [("first", False)] and started == [["-m", "tnt.warmup", "--second", "--install"]]
    warmup.main(["--second", "--install"])
    warmup.main(["--threads"])
    assert calls[1:] == [("second", False), ("threads", True)]
    with pytest.raises(SystemExit, match="takes --background, --install, --threads or nothing"):
        warmup.main(["--fast"])
