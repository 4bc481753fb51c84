"""The conventions a scikit-learn user checks first: ``n_jobs`` and ``sample_weight`` read as
scikit-learn reads them, by every estimator and helper of the project, and doctests that pass with
every NumPy the project allows."""

import ast
import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.utils._param_validation import InvalidParameterError

from tnt import CARTClassifier, NDGClassifier, TAOClassifier, TnTClassifier, TnTRegressor
from tnt._parallel import check_n_jobs, effective_n_jobs, usable_cores
from tnt.baselines import CARTRegressor
from tnt.experiments.ensembles import compare_ensembles
from tnt.experiments.paper import select_by_cv, table1
from tnt.experiments.sweep import sweep

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Every estimator of the project with a ``fit(X, y, sample_weight)``.
ESTIMATORS = [
    TnTClassifier(C=1e-2, random_state=0),
    TnTRegressor(C=1e-2, random_state=0),
    NDGClassifier(random_state=0),
    CARTClassifier(random_state=0),
    CARTRegressor(random_state=0),
    TAOClassifier(max_leaf_nodes=4, random_state=0),
]
THREADED = [TnTClassifier, TnTRegressor]


# ---------------------------------------------------------------------- n_jobs
def test_none_is_one_worker_and_positive_numbers_are_capped_at_the_usable_cores():
    assert effective_n_jobs(None) == 1
    assert effective_n_jobs(1) == 1
    assert effective_n_jobs(10_000) == usable_cores()


@pytest.mark.parametrize(("n_jobs", "cores", "expected"), [(-1, 8, 8), (-2, 8, 7), (-8, 8, 1), (-20, 8, 1), (3, 8, 3)])
def test_negative_n_jobs_count_back_from_the_usable_cores(monkeypatch, n_jobs, cores, expected):
    monkeypatch.setattr("joblib.cpu_count", lambda: cores)
    assert effective_n_jobs(n_jobs) == expected


def test_minus_one_respects_cpu_affinity():
    """A process allowed one core (``os.sched_setaffinity``) gets one worker for ``n_jobs=-1``, however
    many cores the machine has."""
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("this platform has no CPU affinity (os.sched_setaffinity)")
    code = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from tnt._parallel import effective_n_jobs, usable_cores; "
        "print(effective_n_jobs(-1), effective_n_jobs(-2), usable_cores(), os.cpu_count())"
    )
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop("LOKY_MAX_CPU_COUNT", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    minus_one, minus_two, cores, machine = map(int, out.stdout.split())
    assert (minus_one, minus_two, cores) == (1, 1, 1)
    assert machine >= 1


def test_counting_cores_imports_no_scikit_learn():
    """The app's warm-up counts the cores before anything heavy is imported."""
    code = (
        "import sys; from tnt._parallel import usable_cores; usable_cores(); "
        "print(sorted({'sklearn', 'scipy', 'numba'} & set(sys.modules)))"
    )
    env = {**os.environ, "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]"


def test_usable_cores_respect_a_containers_cpu_quota(monkeypatch):
    """joblib's count, which reads cgroups' CPU quota (``cpu.max``), is the one used."""
    import joblib.externals.loky.backend.context as loky_context

    monkeypatch.setattr(loky_context, "_cpu_count_cgroup", lambda os_cpu_count: 1)
    assert usable_cores() == 1
    assert effective_n_jobs(-1) == 1


@pytest.mark.parametrize("model", THREADED, ids=lambda c: c.__name__)
def test_estimators_refuse_n_jobs_zero(model):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(InvalidParameterError, match=r"'n_jobs' parameter of .* must be .*\[1, inf\) or None. Got 0"):
        model(n_jobs=0).fit(X, y)


@pytest.mark.parametrize("model", THREADED, ids=lambda c: c.__name__)
def test_estimators_accept_negative_n_jobs_and_give_the_same_graph(model):
    X, y = load_iris(return_X_y=True)
    one = model(C=1e-2, random_state=0, n_jobs=None).fit(X, y)
    all_cores = model(C=1e-2, random_state=0, n_jobs=-1).fit(X, y)
    np.testing.assert_array_equal(one.graph_.threshold, all_cores.graph_.threshold)


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_helpers_refuse_n_jobs_that_mean_nothing(bad):
    with pytest.raises(ValueError, match=r"n_jobs"):
        check_n_jobs(bad)


def test_every_helper_with_n_jobs_refuses_zero_before_any_work():
    X, y = load_iris(return_X_y=True)
    message = "n_jobs=0 asks for no worker at all"
    with pytest.raises(ValueError, match=message):
        sweep(X, y, X, y, Cs=[1e-2], seeds=[0], n_jobs=0)
    with pytest.raises(ValueError, match=message):
        compare_ensembles(X, y, X, y, n_jobs=0)
    with pytest.raises(ValueError, match=message):
        select_by_cv(CARTClassifier(), "max_leaf_nodes", [2, 3], X, y, n_jobs=0)
    with pytest.raises(ValueError, match=message):
        table1(X, y, X, y, Cs=[1e-2], leaf_counts=[2], n_jobs=0)


def test_n_jobs_is_resolved_in_one_place():
    """No module but ``tnt._parallel`` counts cores or resolves ``n_jobs`` itself."""
    offenders = []
    for folder in ("tnt", "ui", "app_pages"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                path = os.path.join(dirpath, name)
                if name.endswith(".py") and not path.endswith(os.path.join("tnt", "_parallel.py")):
                    text = open(path, encoding="utf-8").read()
                    if "cpu_count(" in text or "sched_getaffinity" in text:
                        offenders.append(os.path.relpath(path, ROOT))
    assert offenders == []


# ---------------------------------------------------------------------- sample_weight
def _data_for(estimator):
    X, y = load_iris(return_X_y=True)
    return (X, y.astype(float)) if type(estimator).__name__.endswith("Regressor") else (X, y)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_all_zero_sample_weight_is_refused(estimator):
    X, y = _data_for(estimator)
    with pytest.raises(ValueError, match=r"^Every sample has weight zero: there is nothing to learn from; give some"):
        estimator.fit(X, y, sample_weight=np.zeros(len(y)))


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_some_zero_weights_act_as_absent_samples(estimator):
    X, y = _data_for(estimator)
    w = np.where(np.arange(len(y)) % 3 == 0, 0.0, 1.0)
    weighted = estimator.fit(X, y, sample_weight=w).predict(X)
    kept = np.flatnonzero(w)
    without = type(estimator)(**estimator.get_params()).fit(X[kept], y[kept]).predict(X)
    np.testing.assert_array_equal(weighted, without)


def test_fine_tuned_refuses_all_zero_weights_too():
    X, y = load_iris(return_X_y=True)
    model = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^Every sample has weight zero"):
        model.fine_tuned(X, y, rounds=1, sample_weight=np.zeros(len(y)))


# ---------------------------------------------------------------------- doctests on NumPy 1 and 2
#: Reprs only NumPy 2 prints (NEP 51): a NumPy scalar shown as ``np.float64(0.5)``, ``np.True_``...
NUMPY2_REPR = re.compile(
    r"\bnp\.(?:True_|False_|(?:float|int|uint|complex)\d+\(|bool_?\(|str_\(|bytes_\(|(?:c?longdouble|void)\(|"
    r"(?:datetime|timedelta)64\()"
)


def _doctest_outputs():
    """(place, source, expected output) of every doctest example in the project's code and pages."""
    parser = doctest.DocTestParser()
    for folder in ("tnt", "ui", "app_pages", "docs"):
        for path in sorted((Path(ROOT) / folder).rglob("*")):
            if path.suffix == ".py":
                docs = [
                    ast.get_docstring(node, clean=False)
                    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                ]
            elif path.suffix == ".md":
                docs = [path.read_text(encoding="utf-8")]
            else:
                continue
            for doc in filter(None, docs):
                for example in parser.get_examples(doc):
                    yield os.path.relpath(path, ROOT), example.source.strip(), example.want


@pytest.mark.parametrize("shown", ["np.float64(0.912)", "(np.True_, 'x')", "[np.int64(3)]", "np.str_('a')"])
def test_the_scan_recognises_numpy_2_reprs(shown):
    assert NUMPY2_REPR.search(shown)


@pytest.mark.parametrize("shown", ["0.912", "(True, 'x')", "array([1, 2])", "np.float64", "dtype('float64')"])
def test_the_scan_leaves_reprs_both_versions_print(shown):
    assert not NUMPY2_REPR.search(shown)


def test_no_doctest_expects_a_repr_only_numpy_2_prints():
    """pyproject.toml allows numpy>=1.26, whose scalars print as plain numbers: a doctest shows
    ``float(x)``, ``bool(x)`` or ``x.tolist()`` so that it passes with either."""
    outputs = list(_doctest_outputs())
    assert len(outputs) > 100  # the scan reads the project's doctests
    offenders = [f"{place}: {source}" for place, source, want in outputs if NUMPY2_REPR.search(want)]
    assert offenders == []
