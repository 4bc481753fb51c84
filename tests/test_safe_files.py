"""Safe files: no code in the repository can run code hidden in a file (pickle and friends, eval,
exec), and CSV files written for users cannot carry spreadsheet formulas."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run_tnt

from tnt.data.safe_csv import neutralize_formulas, neutralize_text

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_FOLDERS = {".venv", ".git", "build", ".hypothesis", ".pytest_cache", "__pycache__", "test-artifacts"}

# Calls that execute code or rebuild arbitrary objects from data (canonical dotted names).
UNSAFE_CALLS = {
    "pickle.load",
    "pickle.loads",
    "pickle.Unpickler",
    "_pickle.load",
    "_pickle.loads",
    "cloudpickle.load",
    "cloudpickle.loads",
    "dill.load",
    "dill.loads",
    "joblib.load",
    "marshal.load",
    "marshal.loads",
    "shelve.open",
    "pandas.read_pickle",
    "torch.load",
    "yaml.unsafe_load",
    "yaml.full_load",
    "eval",
    "exec",
    "builtins.eval",
    "builtins.exec",
}

# Each allowed use, with why it cannot reach a user's file. A use that disappears must leave this
# list too, so the list stays true.
ALLOWED = {
    ("tests/test_sklearn_compat.py", "pickle.loads"): "round trip of an estimator the test has just fitted",
    ("tests/test_app.py", "exec"): "runs the Python module the app's download just wrote for a model",
    ("tests/test_cli.py", "exec"): "runs the Python module `tnt export` just wrote for a model",
    ("tests/test_docs.py", "exec"): "runs the documentation's own code blocks, as printed",
    ("tests/test_missing_shown.py", "exec"): "runs the Python module `to_python` just wrote for a model",
    ("tests/test_missing_shown.py", "pickle.loads"): "round trip of a graph the test has just fitted",
    ("tests/test_categorical_graph.py", "pickle.loads"): "round trip of a graph the test has just built",
}


def unsafe_calls(source: str) -> list[tuple[str, int]]:
    """(canonical name, line) of every unsafe call in Python ``source``.

    ``numpy.load`` counts when its ``allow_pickle`` is anything but the constant ``False``
    (its default is ``False``); aliases from ``import x as y`` and ``from x import y`` are resolved.
    """
    tree = ast.parse(source)
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for name in node.names:
                aliases[name.asname or name.name.split(".")[0]] = name.name if name.asname else name.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for name in node.names:
                aliases[name.asname or name.name] = f"{node.module}.{name.name}"
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        dotted = _dotted(node.func)
        if dotted is None:
            continue
        head, _, rest = dotted.partition(".")
        name = aliases.get(head, head) + ("." + rest if rest else "")
        if name in UNSAFE_CALLS:
            found.append((name, node.lineno))
        elif name == "numpy.load":
            flag = next((k.value for k in node.keywords if k.arg == "allow_pickle"), ast.Constant(False))
            if not (isinstance(flag, ast.Constant) and flag.value is False):
                found.append(("numpy.load(allow_pickle=...)", node.lineno))
    return found


def _dotted(func):
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        return ".".join([func.id, *reversed(parts)])
    return None


def python_files():
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if not SKIPPED_FOLDERS.intersection(relative.parts) and not any(
            p.endswith(".egg-info") for p in relative.parts
        ):
            yield relative


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import pickle\npickle.load(open('m.pkl', 'rb'))", "pickle.load"),
        ("from pickle import loads as l\nl(data)", "pickle.loads"),
        ("import joblib\njoblib.load(path)", "joblib.load"),
        ("import pandas as pd\npd.read_pickle(path)", "pandas.read_pickle"),
        ("import numpy as np\nnp.load(path, allow_pickle=True)", "numpy.load(allow_pickle=...)"),
        ("import numpy\nnumpy.load(path, allow_pickle=flag)", "numpy.load(allow_pickle=...)"),
        ("eval(text)", "eval"),
        ("exec(code)", "exec"),
    ],
)
def test_the_scanner_finds_each_unsafe_call(source, expected):
    assert [name for name, _ in unsafe_calls(source)] == [expected]


def test_the_scanner_lets_safe_calls_pass():
    source = "import numpy as np\nimport json\nnp.load(p)\nnp.load(p, allow_pickle=False)\njson.loads(t)\nmodel.eval()"
    assert unsafe_calls(source) == []


def test_no_python_file_loads_pickles_or_evaluates_code():
    files = list(python_files())
    assert Path("tnt/model_io.py") in files and Path("tnt/cli.py") in files
    used = {}
    for relative in files:
        for name, line in unsafe_calls((ROOT / relative).read_text()):
            used.setdefault((relative.as_posix(), name), []).append(line)
    unexpected = {key: lines for key, lines in used.items() if key not in ALLOWED}
    assert unexpected == {}, "unsafe calls (file, call): lines"
    assert set(ALLOWED) <= set(used), "an allowed use is gone: remove it from ALLOWED"


# ---------------------------------------------------------------------- formula injection
@pytest.mark.parametrize("cell", ["=1+1", "+A1", "-2+3", "@SUM(A1:A9)", "\t=cmd", "\r=cmd", '=HYPERLINK("x")'])
def test_formula_cells_get_an_apostrophe(cell):
    assert neutralize_text(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["cat", "a=b", "", "-1.5", "+3", "1e-3", "-.5E+2", "'=already", " =x"])
def test_other_text_is_untouched(cell):
    assert neutralize_text(cell) == cell


def test_numbers_and_their_columns_are_untouched():
    frame = pd.DataFrame(
        {
            "label": ["=cmd", "-x", "ok"],
            "count": [-1, 2, 3],
            "score": [-0.5, np.nan, 1.0],
            "flag": [True, False, True],
            "mixed": ["@me", -7, 2.5],
        }
    )
    safe = neutralize_formulas(frame)
    assert safe["label"].tolist() == ["'=cmd", "'-x", "ok"]
    assert safe["mixed"].tolist() == ["'@me", -7, 2.5]
    for column in ("count", "score", "flag"):
        pd.testing.assert_series_equal(safe[column], frame[column])
    assert frame["label"].tolist() == ["=cmd", "-x", "ok"]  # the input is not modified


def test_column_names_and_string_dtypes_are_protected():
    frame = pd.DataFrame({"=name": pd.Series(["+1+1", "b"], dtype="string"), "c": pd.Categorical(["@x", "y"])})
    safe = neutralize_formulas(frame)
    assert safe.columns.tolist() == ["'=name", "c"]
    assert safe.iloc[:, 0].tolist() == ["'+1+1", "b"]
    assert safe["c"].tolist() == ["'@x", "y"]
    written = safe.to_csv(index=False).splitlines()
    assert written == ["'=name,c", "'+1+1,'@x", "b,y"]


def test_cli_predictions_cannot_carry_formulas(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    labels = np.array(['=HYPERLINK("http://x","y")', "@SUM(1)", "-cmd"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0)]
    frame = pd.DataFrame(X, columns=["a", "b"]).assign(label=labels)
    frame.to_csv(tmp_path / "train.csv", index=False)

    def run(*args):  # in this process, as a `tnt` process would run (see cli_helpers; test_cli starts real ones)
        return run_tnt(*args, cwd=tmp_path)

    assert run("train", "train.csv", "--target", "label", "--test-size", "0", "-o", "m.json").returncode == 0
    frame[["a", "b"]].to_csv(tmp_path / "X.csv", index=False)
    written = run("predict", "m.json", "X.csv", "-o", "out.csv")
    printed = run("predict", "m.json", "X.csv")
    assert written.returncode == printed.returncode == 0, written.stderr + printed.stderr
    text = (tmp_path / "out.csv").read_text()
    assert text == printed.stdout
    cells = pd.read_csv(tmp_path / "out.csv")["prediction"]
    assert set(cells) == {"'" + label for label in set(labels)}
    assert not any(line.startswith(("=", "+", "-", "@", '"=', '"@', '"-')) for line in text.splitlines())
