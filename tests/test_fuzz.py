"""Fuzzing every surface that reads outside input: model files, CSV files and their table checks, the
command line's arguments and the app's upload path.

The property, for any bytes and for structured mutations of valid files: the result is a valid model
or data set, or the project's own error (a ``ValueError``, ``DataError`` included) whose message is
one plain sentence; never another exception, never a hang (each case runs under a 30 s alarm, and
inputs are bounded in size), never more memory than a small multiple of the input (measured with
``tracemalloc``). Examples the fuzzers found are replayed from ``tests/fuzz_regressions/``.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import signal
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tnt.data.csv_loader import read_csv_bytes
from tnt.data.datasets import DataError, make_dataset, prepare_table
from tnt.model_io import LoadedGraphModel, model_from_json, model_to_json

REGRESSIONS = Path(__file__).resolve().parent / "fuzz_regressions"
HANG_SECONDS = 30  # a case still running after this is a hang, not a slow machine (cases take milliseconds)


def fuzz(examples: int):
    """Hypothesis settings of a fuzz test running ``examples`` generated cases."""
    return settings(
        max_examples=examples,
        derandomize=True,  # the same cases on every run, so that CI never fails at random
        deadline=None,  # timing is the alarm's job: a deadline would fail on a loaded machine
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )


# ---------------------------------------------------------------------- the property
@contextlib.contextmanager
def bounded(seconds: int = HANG_SECONDS):
    """Fail with TimeoutError when the block runs longer than ``seconds`` (a hang)."""

    def alarm(signum, frame):
        raise TimeoutError(f"a single fuzz case ran for more than {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def assert_plain_sentence(message: str) -> None:
    """One line of printable text ending with a full stop, short enough to read."""
    assert message and message.isprintable(), repr(message)
    assert message.endswith("."), message
    assert len(message) <= 500, f"{len(message)} characters: {message[:200]}..."
    assert "Traceback" not in message and "Errno" not in message, message


def outcome(function, *args, input_size: int, **kwargs):
    """``function(*args, **kwargs)``'s result, or its ValueError: any other exception fails the test,
    and so does a peak of Python memory above 40 times the input (plus 16 MB for the libraries)."""
    tracemalloc.start()
    try:
        with bounded():
            result = function(*args, **kwargs)
    except ValueError as error:
        assert type(error) in (ValueError, DataError), f"{type(error).__name__}: {error}"
        assert_plain_sentence(str(error))
        result = error
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak <= 40 * input_size + 16e6, f"peak {peak / 1e6:.0f} MB for {input_size} bytes of input"
    return result


# ---------------------------------------------------------------------- model files
def model_text(graph) -> str:
    """A valid model file around ``graph`` (two features, string classes "a" and "b", feature names)."""
    model = LoadedGraphModel()
    model.graph_, model.classes_, model.n_features_in_ = graph, np.array(["a", "b"]), 2
    model.feature_names_in_ = np.array(["x0", "x1"], dtype=object)
    model.estimator_kind_, model.estimator_params_ = "TnTClassifier", {"C": 0.001, "N1": 2}
    return model_to_json(model)


NASTY_VALUES = st.sampled_from(
    [None, True, False, 0, -1, -(2**63), 2**63, 2**200, 1e308, -1e308, 5e-324, 0.5, "", "a\x00b", "x" * 10_000,
     "é\udcff"[:1], "\u202e\u0007\x1b[2J", [], {}, [[]], [None], {"": None}, [0.5, "a"], [-1, -1], [1e999]]
)  # fmt: skip


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def paths_of(value, prefix=()):
    """Every path (keys and indices) into a JSON document, the document itself first."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths_of(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths_of(item, (*prefix, index))


def at(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def mutate(data, doc: dict) -> dict:
    """One structured mutation of a model document, drawn by hypothesis."""
    kind = data.draw(st.sampled_from(["delete", "replace", "nest", "cycle", "outside", "resize", "swap"]))
    paths = [p for p in paths_of(doc) if p]
    if not paths:
        return doc
    path = data.draw(st.sampled_from(paths))
    parent, key = at(doc, path[:-1]), path[-1]
    graph = doc.get("graph") if isinstance(doc.get("graph"), dict) else {}
    left = graph.get("children_left")
    if kind in ("cycle", "outside") and not (
        isinstance(left, list) and left and all(isinstance(c, int) for c in left)
        and isinstance(graph.get("children_right"), list) and len(graph["children_right"]) == len(left)
    ):  # fmt: skip
        kind = "replace"  # an earlier mutation broke the edges already
    n = len(left) if isinstance(left, list) else 0
    if kind == "delete":
        del parent[key]
    elif kind == "replace":
        parent[key] = copy.deepcopy(data.draw(NASTY_VALUES))  # later mutations must not change the pool
    elif kind == "nest":  # deep but within the JSON parser's limit, where it fits
        parent[key] = json.loads(nested(data.draw(st.integers(1, 200))))
    elif kind == "cycle":  # an edge back to an ancestor (or the node itself)
        node = data.draw(st.sampled_from([i for i in range(n) if left[i] >= 0] or [0]))
        graph[data.draw(st.sampled_from(["children_left", "children_right"]))][node] = data.draw(st.integers(0, node))
    elif kind == "outside":
        node = data.draw(st.integers(0, n - 1))
        graph["children_left"][node] = data.draw(st.sampled_from([n, n + 1, -2, -5, 2**62, 10**30]))
    elif kind == "resize" and isinstance(at(doc, path), list):
        items = at(doc, path)
        if items and data.draw(st.booleans()):
            items.pop(data.draw(st.integers(0, len(items) - 1)))
        else:
            items.extend(items[:1] * data.draw(st.integers(1, 1000)))
    elif kind == "swap":
        other = data.draw(st.sampled_from(paths))
        parent[key] = json.loads(json.dumps(at(doc, other)))
    return doc


def serialise(data, doc) -> bytes:
    """The document as bytes, sometimes damaged the way files are: NaN, a NUL byte, Latin-1, truncation."""
    text = json.dumps(doc, allow_nan=True)
    damage = data.draw(st.sampled_from(["none", "nan", "nul", "latin1", "truncate", "utf16", "bom"]))
    if damage == "nan":
        text = text.replace("0.5", data.draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "9" * 5000])), 1)
    raw = text.encode("utf-8")
    cut = data.draw(st.integers(0, len(raw)))
    if damage == "nul":
        raw = raw[:cut] + b"\x00" + raw[cut:]
    elif damage == "latin1":
        raw = raw[:cut] + "é".encode("latin-1") + raw[cut:]
    elif damage == "truncate":
        raw = raw[:cut]
    elif damage == "utf16":
        raw = text.encode("utf-16")
    elif damage == "bom":
        raw = b"\xef\xbb\xbf" + raw
    return raw


def check_model_file(raw: bytes) -> None:
    """The model-file property, then predicting and describing any model it accepts."""
    model = outcome(model_from_json, raw, input_size=len(raw))
    if isinstance(model, LoadedGraphModel):
        X = np.random.default_rng(0).normal(size=(20, model.n_features_in_)) * 3
        if hasattr(model, "feature_names_in_"):  # a model fitted with names is given its columns by name
            X = pd.DataFrame(X, columns=model.feature_names_in_)
        with bounded():
            assert model.predict(X).shape == (20,)
            shortest, longest = model.graph_.depth_range()
            assert 0 <= shortest <= longest < model.graph_.node_count
            assert model_from_json(model_to_json(model)).graph_ == model.graph_


@fuzz(200)
@given(raw=st.one_of(st.binary(max_size=3000), st.text(max_size=3000).map(str.encode)))
def test_fuzz_model_file_any_bytes(raw):
    check_model_file(raw)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=40,
)


@fuzz(100)
@given(doc=JSON_VALUES)
def test_fuzz_model_file_any_json(doc):
    check_model_file(json.dumps(doc).encode())


@fuzz(400)
@given(data=st.data())
def test_fuzz_model_file_mutations(toy_graph, data):
    doc = json.loads(model_text(toy_graph))  # conftest's graph of 7 nodes, two of them shared
    for _ in range(data.draw(st.integers(1, 3))):
        doc = mutate(data, doc)
    check_model_file(serialise(data, doc))


@pytest.mark.parametrize("depth", [1_000, 100_000, 10_000_000])
def test_deeply_nested_brackets_are_one_sentence_not_a_recursion_error(depth):
    for text in (nested(depth), '{"format": "tnt-explorer-model", "params": ' + nested(depth) + "}"):
        error = outcome(model_from_json, text, input_size=len(text))
        assert str(error) == "The model file nests brackets too deeply to be a model file."


# ---------------------------------------------------------------------- CSV files and table checks
CELLS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", " ", "nan", "NA", "inf", "-inf", "1e999", "9" * 400, "True", "false", '"', '""', "a,b",
                     "=cmd()", "\x00", "é", "\ufeff", "1,5", "0x1F", "  3  "]),
    st.text(max_size=12),
)  # fmt: skip
NAMES = st.one_of(st.text(max_size=12), st.sampled_from(["", "0.5", "1e3", "a\nb", '"q"', "x" * 5000, "label", "a"]))


@st.composite
def csv_files(draw) -> bytes:
    """A table written as CSV with a drawn delimiter, line ending, encoding and damage."""
    n_columns = draw(st.integers(1, 6))
    header = draw(st.lists(NAMES, min_size=n_columns, max_size=n_columns))
    n_rows = draw(st.integers(0, 25))
    # Most columns hold numbers of one kind, so that many tables get past the reader to the checks.
    columns = []
    for _ in range(n_columns):
        kind = draw(st.sampled_from(["int", "float", "cells", "class"]))
        if kind == "int":
            columns.append([str(v) for v in draw(st.lists(st.integers(-5, 5), min_size=n_rows, max_size=n_rows))])
        elif kind == "float":
            values = draw(st.lists(st.floats(-1e40, 1e40), min_size=n_rows, max_size=n_rows))
            columns.append([repr(v) for v in values])
        elif kind == "class":
            columns.append(draw(st.lists(st.sampled_from(["u", "v", "w"]), min_size=n_rows, max_size=n_rows)))
        else:
            columns.append(draw(st.lists(CELLS, min_size=n_rows, max_size=n_rows)))
    rows = [list(row) for row in zip(*columns)] if n_rows else []
    if rows and draw(st.booleans()):  # a ragged row
        rows[draw(st.integers(0, len(rows) - 1))].append("extra")
    delimiter = draw(st.sampled_from([",", ";", "\t", "|", " "]))
    buffer = io.StringIO()
    import csv

    csv.writer(buffer, delimiter=delimiter, lineterminator=draw(st.sampled_from(["\n", "\r\n", "\r"]))).writerows(
        [header, *rows]
    )
    text = buffer.getvalue()
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "latin-1", "utf-16"]))
    raw = text.encode(encoding, errors="replace")
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(raw)))
        raw = raw[:cut] + draw(st.sampled_from([b"\x00", b"\xff", "é".encode("latin-1"), b"\r", b'"'])) + raw[cut:]
    return raw


def check_csv_file(data, raw: bytes) -> None:
    """Reading, then the table checks with a drawn class column and options, then the data set."""
    table = outcome(read_csv_bytes, raw, input_size=len(raw))
    if isinstance(table, ValueError):
        return
    columns = [str(c) for c in table.frame.columns]
    target = data.draw(st.sampled_from(columns))
    features = [c for c in columns if c != target]
    options = dict(drop_missing=data.draw(st.booleans()), reject_constant=data.draw(st.booleans()))
    prepared = outcome(prepare_table, table.frame, target=target, features=features, input_size=len(raw),
                       encode_text=data.draw(st.booleans()), **options)  # fmt: skip
    if not isinstance(prepared, ValueError):
        X, y, notes, rows = prepared
        assert X.shape == (len(rows), len(features)) and not np.isinf(X).any() and len(np.unique(y)) >= 2
        assert not (options["drop_missing"] and np.isnan(X).any())  # missing values kept unless dropped
        for note in notes:
            assert_plain_sentence(note)
    dataset = outcome(make_dataset, table.frame, target=target, features=features, name=table.name,
                      test_size=data.draw(st.sampled_from([0.1, 0.3, 0.5])), input_size=len(raw), **options)  # fmt: skip
    if not isinstance(dataset, ValueError):
        assert len(dataset.y_train) > 0 and len(dataset.y_test) > 0
        if dataset.is_regression:  # a numeric target of many values: numbers to predict
            assert dataset.y_train.dtype == np.float64 and dataset.classes.size == 0
        else:
            assert set(np.unique(dataset.y_train)) == set(dataset.classes)  # stratified: every class in training


@fuzz(100)
@given(raw=st.binary(max_size=3000), data=st.data())
def test_fuzz_csv_any_bytes(raw, data):
    check_csv_file(data, raw)


@fuzz(250)
@given(raw=csv_files(), data=st.data())
def test_fuzz_csv_tables(raw, data):
    check_csv_file(data, raw)


# ---------------------------------------------------------------------- the command line
@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    """A folder with a small valid CSV, a model trained on it, and a broken model file."""
    from tnt import TnTClassifier

    folder = tmp_path_factory.mktemp("fuzz_cli")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    lines = ["a,b,c,label", *(f"{r[0]:.3f},{r[1]:.3f},{r[2]:.3f},{label}" for r, label in zip(X, y))]
    (folder / "data.csv").write_text("\n".join(lines) + "\n")
    (folder / "features.csv").write_text("\n".join(line.rsplit(",", 1)[0] for line in lines) + "\n")
    import pandas as pd

    model = TnTClassifier(C=1e-2, random_state=0).fit(pd.DataFrame(X, columns=list("abc")), y)
    (folder / "model.json").write_text(model_to_json(model))
    (folder / "nested.json").write_text(nested(100_000))
    (folder / "folder").mkdir()
    return folder


@st.composite
def cli_arguments(draw, folder: Path):
    """A command with its required arguments and some options, each from a pool of good and bad values;
    sometimes with one token dropped or one token of anything inserted."""
    files = [str(folder / name) for name in ("data.csv", "features.csv", "model.json", "nested.json", "folder", "none")]
    outputs = [str(folder / f"out.{ext}") for ext in ("json", "csv", "svg", "dot", "txt", "png", "pdf", "xyz")]
    numbers = ["0", "1", "2", "3", "-1", "0.5", "1e-3", "nan", "inf", "-inf", "1e308", "9" * 40, "", "a", "x\x00y"]
    values = st.one_of(st.sampled_from(numbers), st.text(max_size=6))
    command = draw(st.sampled_from(["train", "predict", "export", "info"]))
    argv = [command]
    if command == "train":
        argv += [draw(st.sampled_from(files)), "--target", draw(st.sampled_from(["label", "a", "none", ""])),
                 "-o", draw(st.sampled_from(outputs + files))]  # fmt: skip
        options = {"--C": values, "--N1": values, "--N2": values, "--fine-tune": values, "--seed": values,
                   "--test-size": values, "--drop-missing": None}  # fmt: skip
    elif command == "predict":
        argv += [draw(st.sampled_from(files)), draw(st.sampled_from(files))]
        options = {"-o": st.sampled_from(outputs + files)}
    elif command == "export":
        argv += [draw(st.sampled_from(files)), "-o", draw(st.sampled_from(outputs + files))]
        options = {"--format": st.sampled_from(["svg", "dot", "json", "txt", "png", "gif", ""]), "--show-ids": None,
                   "--show-shares": None, "--rankdir": st.sampled_from(["TB", "LR", "XX"]),
                   "--depth-window": st.tuples(values, values)}  # fmt: skip
    else:
        argv += [draw(st.sampled_from(files))]
        options = {}
    if command in ("train", "predict"):
        options.update({"--max-mb": values, "--max-rows": values, "--max-columns": values})
    for option in draw(st.lists(st.sampled_from(sorted(options)), max_size=4, unique=True)) if options else []:
        drawn = () if options[option] is None else draw(options[option])
        argv += [option, *(drawn if isinstance(drawn, tuple) else (drawn,))]
    damage = draw(st.sampled_from(["none", "none", "drop", "insert"]))
    if damage == "drop" and len(argv) > 1:
        del argv[draw(st.integers(0, len(argv) - 1))]
    elif damage == "insert":
        argv.insert(draw(st.integers(0, len(argv))), draw(st.one_of(values, st.sampled_from(["--help", "--C", "-o"]))))
    return argv


def run_cli(argv, capsys) -> tuple[int, str]:
    from tnt.cli import main

    try:
        with bounded():
            status = main(argv)
    except SystemExit as stop:  # argparse: --help (0) and usage errors (2)
        status = stop.code
    return status, capsys.readouterr().err


def check_cli(argv, capsys) -> None:
    tracemalloc.start()
    try:
        status, err = run_cli(argv, capsys)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak <= 64e6, f"peak {peak / 1e6:.0f} MB for {argv}"
    assert status in (0, 1, 2), (argv, status, err)
    lines = [line for line in err.splitlines() if not line.startswith("Fontconfig")]
    if status == 0:
        assert not lines, (argv, err)
    else:
        assert len(lines) == 1, (argv, err)
        prefix = "tnt: error: " if status == 1 else ""
        assert lines[0].startswith(prefix or "tnt") and "Traceback" not in err, (argv, err)
        if status == 1:
            message = lines[0][len(prefix) :]
            # the paths in a message are the user's own arguments, not counted against its length
            for path in argv:
                message = message.replace(path, "PATH") if "/" in path else message
            assert_plain_sentence(message)


@fuzz(150)
@given(data=st.data())
def test_fuzz_command_line_arguments(cli_files, capsys, data):
    argv = data.draw(cli_arguments(cli_files))
    check_cli(argv, capsys)


@fuzz(40)
@given(data=st.data())
def test_fuzz_command_line_with_mutated_model_files(cli_files, toy_graph, capsys, data, tmp_path_factory):
    doc = json.loads(model_text(toy_graph))
    for _ in range(data.draw(st.integers(1, 2))):
        doc = mutate(data, doc)
    path = tmp_path_factory.mktemp("mutated") / "model.json"
    path.write_bytes(serialise(data, doc))
    command = data.draw(st.sampled_from([["info"], ["predict"], ["export"]]))
    tail = {
        "info": [],
        "predict": [str(cli_files / "features.csv")],
        "export": ["-o", str(path.with_suffix(data.draw(st.sampled_from([".txt", ".dot", ".json", ".svg"]))))],
    }
    check_cli([*command, str(path), *tail[command[0]]], capsys)


# ---------------------------------------------------------------------- regression files
def regression_files(kind: str) -> list[Path]:
    return sorted((REGRESSIONS / kind).iterdir())


@pytest.mark.parametrize("path", regression_files("model"), ids=lambda p: p.name)
def test_model_file_regressions(path, capsys):
    check_model_file(path.read_bytes())
    check_cli(["info", str(path)], capsys)


@pytest.mark.parametrize("path", regression_files("csv"), ids=lambda p: p.name)
def test_csv_regressions(path):
    raw = path.read_bytes()
    table = outcome(read_csv_bytes, raw, input_size=len(raw))
    if not isinstance(table, ValueError):
        columns = [str(c) for c in table.frame.columns]
        outcome(make_dataset, table.frame, target=columns[-1], features=columns[:-1], name=path.name,
                input_size=len(raw))  # fmt: skip


@pytest.mark.parametrize("path", regression_files("cli"), ids=lambda p: p.name)
def test_command_line_regressions(path, cli_files, capsys):
    argv = [a.replace("{folder}", str(cli_files)) for a in json.loads(path.read_text())]
    check_cli(argv, capsys)


# ---------------------------------------------------------------------- the app's upload path
def upload_and_use(at, name: str, raw: bytes) -> None:
    """Upload ``raw`` on the Data page and, when the form appears, use it with its default columns:
    the app shows either the data set or one plain sentence, and keeps its previous data otherwise."""
    before = at.session_state["data/dataset"]
    at.file_uploader(key="data/upload").set_value((name, raw, "text/csv")).run()
    assert not at.exception, at.exception
    used = [b for b in at.button if b.label == "Use this data"]
    if used:
        used[0].click().run()
        assert not at.exception, at.exception
    for error in at.error:
        assert_plain_sentence(error.value)
    data = at.session_state["data/dataset"]
    if at.error:
        assert data is before  # a refused file changes nothing
    else:
        assert data.name == name and len(data.y_train) > 0


@pytest.fixture(scope="module")
def upload_session():
    """One app session on the Data page, reused by the upload cases (each case uploads a new file)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("path", regression_files("csv"), ids=lambda p: p.name)
def test_upload_regressions_in_the_app(upload_session, path):
    upload_and_use(upload_session, path.name, path.read_bytes())


@fuzz(8)
@given(raw=csv_files())
def test_fuzz_uploads_in_the_app(upload_session, raw):
    upload_and_use(upload_session, "fuzzed.csv", raw)
