"""The `tnt` command line: the happy path and each kind of bad input.

Most commands run in this process through ``tnt.cli.main`` (``cli_helpers.run_tnt``: the same exit
status, stdout and stderr a process would give, about 3 s of CPU less each); the training of the
shared model, predictions piped to stdout, a bad file and a bad argument run as real
``python -m tnt.cli`` processes.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run_tnt

from tnt import CARTClassifier, TnTClassifier
from tnt.data.csv_loader import read_csv_bytes
from tnt.data.datasets import DataError
from tnt.model_io import model_from_json, model_to_json

BAD = Path(__file__).resolve().parent / "bad_csv"
CASES = json.loads((BAD / "cases.json").read_text())
# The app codes a text feature of up to 255 categories; the command line reads a column as text only
# when --categorical names it, and refuses other text columns whatever their number of values.
CLI_MESSAGES = {"free_text_column.csv": "Column 'comment' holds text (such as 'note number 0')"}


def tnt_process(*args, cwd):
    """``tnt ARGS`` as a real process (``python -m tnt.cli``)."""
    return subprocess.run([sys.executable, "-m", "tnt.cli", *map(str, args)], capture_output=True, text=True, cwd=cwd)


def tnt(*args, cwd):
    """``tnt ARGS`` in this process (see ``cli_helpers``)."""
    return run_tnt(*args, cwd=cwd)


def tnt_all(commands, cwd):
    """Run several commands, one after the other, in this process."""
    return [run_tnt(*args, cwd=cwd) for args in commands]


def assert_one_line_error(result, *fragments, status=1):
    assert result.returncode == status
    errors = [line for line in result.stderr.splitlines() if not line.startswith("Fontconfig")]
    assert len(errors) == 1 and "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in errors[0]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, optdigits_frame):
    folder = tmp_path_factory.mktemp("cli")
    frame = optdigits_frame
    frame.to_csv(folder / "digits.csv", index=False)
    frame.drop(columns="digit").head(50).to_csv(folder / "digits_X.csv", index=False)
    return folder


@pytest.fixture(scope="module")
def optdigits_frame(optdigits):
    X, y, _, _ = optdigits
    frame = pd.DataFrame(X[:1500], columns=[f"px{i}" for i in range(X.shape[1])])
    frame["digit"] = np.array(list("0123456789"))[y[:1500]]
    frame["digit"] = "d" + frame["digit"]
    return frame.loc[:, frame.nunique() > 1]  # training refuses constant columns, as the app does


@pytest.fixture(scope="module")
def model_file(workdir):
    result = tnt_process(
        "train", "digits.csv", "--target", "digit", "--C", "3e-3", "--N2", "2", "-o", "model.json", cwd=workdir
    )
    assert result.returncode == 0, result.stderr
    return workdir / "model.json", result.stdout


def test_train_prints_accuracy_size_and_time(model_file):
    path, stdout = model_file
    assert "train accuracy 0." in stdout and "test accuracy  0." in stdout
    assert "splits " in stdout and "leaves " in stdout and "shared nodes " in stdout and "trained in " in stdout
    model = model_from_json(path.read_text())
    assert model.estimator_kind_ == "TnTClassifier" and model.estimator_params_["C"] == 3e-3
    assert model.classes_.tolist() == [f"d{i}" for i in range(10)]


def test_train_the_naive_decision_graph(workdir):
    good, ignored, negative = tnt_all(
        [
            ("train", "digits.csv", "--target", "digit", "--model", "ndg", "--max-splits", "40", "-o", "ndg.json"),
            ("train", "digits.csv", "--target", "digit", "--max-splits", "40", "-o", "tnt_capped.json"),
            ("train", "digits.csv", "--target", "digit", "--model", "ndg", "--C", "-1", "-o", "bad_ndg.json"),
        ],
        workdir,
    )
    assert good.returncode == 0, good.stderr
    model = model_from_json((workdir / "ndg.json").read_text())
    assert model.estimator_kind_ == "NDGClassifier"
    assert model.estimator_params_["C"] == 3e-4 and model.estimator_params_["max_splits"] == 40
    assert 0 < model.graph_.n_splits <= 40 and f"splits {model.graph_.n_splits}," in good.stdout
    # Without --model ndg, --max-splits trains TnT to a budget of splits.
    assert ignored.returncode == 0 and "budget 40 splits" in ignored.stdout, ignored.stderr
    assert model_from_json((workdir / "tnt_capped.json").read_text()).graph_.n_splits <= 40
    assert_one_line_error(negative, "--C must be at least 0, got -1.0.")
    assert not (workdir / "bad_ndg.json").exists()


def test_predict_writes_one_prediction_per_row(workdir, model_file):
    result = tnt("predict", "model.json", "digits_X.csv", "-o", "predictions.csv", cwd=workdir)
    assert result.returncode == 0, result.stderr
    predictions = pd.read_csv(workdir / "predictions.csv")
    model = model_from_json((workdir / "model.json").read_text())
    X = pd.read_csv(workdir / "digits_X.csv")
    assert predictions["prediction"].tolist() == model.predict(X).tolist()
    to_stdout = tnt_process("predict", "model.json", "digits_X.csv", cwd=workdir)  # piped out of a real process
    assert to_stdout.stdout.splitlines()[0] == "prediction" and len(to_stdout.stdout.splitlines()) == 51


def test_export_drawings_without_dot_on_path(workdir, model_file, no_dot_on_path):
    starts = {"svg": b"<?xml", "png": b"\x89PNG", "pdf": b"%PDF", "dot": b"digraph"}
    results = tnt_all([("export", "model.json", "--format", fmt, "-o", f"model.{fmt}") for fmt in starts], workdir)
    for (fmt, start), result in zip(starts.items(), results):
        assert result.returncode == 0, result.stderr
        assert (workdir / f"model.{fmt}").read_bytes().startswith(start)


def test_export_options_reach_the_drawing(workdir, model_file):
    result = tnt(
        "export",
        "model.json",
        "-o",
        "window.dot",
        "--depth-window",
        "1",
        "2",
        "--show-ids",
        "--show-shares",
        cwd=workdir,
    )
    assert result.returncode == 0, result.stderr
    source = (workdir / "window.dot").read_text()
    assert 'n0 [label="#0"' in source and "id=stub0" in source  # the root is outside the window: a stub
    assert 'n1 [label="#1\\npx' in source and "%" in source  # ids and class shares in the labels


def test_export_json_and_text(workdir, model_file):
    assert tnt("export", "model.json", "-o", "copy.json", cwd=workdir).returncode == 0
    original, copy = (json.loads((workdir / name).read_text()) for name in ("model.json", "copy.json"))
    assert copy == original
    assert tnt("export", "model.json", "-o", "rules.txt", cwd=workdir).returncode == 0
    assert (workdir / "rules.txt").read_text().startswith("|--- px")


def test_export_code_that_predicts_as_the_model(workdir, model_file):
    """The Python module, the C file and the SQL query (the suffix or --format names the language);
    tests/test_codegen.py checks the code of each against the model on every row."""
    python, c, sql, bad = tnt_all(
        [
            ("export", "model.json", "-o", "model.py"),
            ("export", "model.json", "--format", "c", "-o", "model_c.txt"),
            ("export", "model.json", "-o", "model.sql", "--table", "digit rows", "--key", "row id"),
            ("export", "model.json", "-o", "bad.sql", "--table", "tnt_walk"),
        ],
        workdir,
    )
    for result, fmt in ((python, "python"), (c, "c"), (sql, "sql")):
        assert result.returncode == 0 and f"({fmt})" in result.stdout, result.stderr
    model = model_from_json((workdir / "model.json").read_text())
    X = pd.read_csv(workdir / "digits_X.csv")
    namespace = {}
    exec((workdir / "model.py").read_text(), namespace)
    assert namespace["FEATURES"] == tuple(X.columns)
    assert [namespace["predict"](row) for row in X.to_numpy().tolist()] == model.predict(X).tolist()
    assert "int tnt_predict(const double *x)" in (workdir / "model_c.txt").read_text()
    query = (workdir / "model.sql").read_text()
    assert 'FROM "digit rows" AS "tnt_row"' in query and '"tnt_row"."row id" AS "row id"' in query
    assert_one_line_error(bad, "The table may not be called 'tnt_walk'")
    assert not (workdir / "bad.sql").exists()


def test_info_describes_the_model(workdir, model_file):
    result = tnt("info", "model.json", cwd=workdir)
    assert result.returncode == 0
    assert "TnTClassifier(C=0.003" in result.stdout and "classes     10: d0, d1" in result.stdout
    assert "features    60: px1, px2" in result.stdout and "splits" in result.stdout


def test_every_command_has_help(workdir):
    commands = ["train", "predict", "export", "info"]
    for command, result in zip(commands, tnt_all([(c, "--help") for c in commands], workdir)):
        assert result.returncode == 0 and "usage: tnt " + command in result.stdout


def write(folder, name, text):
    (folder / name).write_text(text)
    return name


@pytest.mark.slow
def test_bad_training_input_gives_one_clear_line(workdir):
    cases = [
        ("missing.csv", "digit", "missing.csv does not exist"),
        (
            write(workdir, "binary.csv", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
            "digit",
            "binary.csv: This file is binary, not a CSV text file",
        ),
        (write(workdir, "empty.csv", ""), "digit", "empty.csv: The file is empty"),
        ("digits.csv", "label", "There is no column named 'label'; the columns are px1, px2"),
        (write(workdir, "text.csv", "a,b,y\n1,x,0\n2,z,1\n"), "y", "text.csv: Column 'b' holds text (such as 'x')"),
        (write(workdir, "no_y.csv", "a,y\n1,0\n2,\n"), "y", "no_y.csv: The class column 'y' has only one value"),
    ]
    commands = [("train", data, "--target", target, "-o", "bad.json") for data, target, _ in cases]
    # The binary file as a real process too: nothing but the one line reaches its stderr.
    results = [tnt_process(*commands[1], cwd=workdir), *tnt_all(commands, workdir)]
    for (_, _, message), result in zip([cases[1], *cases], results):
        assert_one_line_error(result, message)
    assert not (workdir / "bad.json").exists()


@pytest.mark.slow
def test_bad_model_files_give_one_clear_line(workdir, model_file):
    write(workdir, "garbage.json", "{not json")
    write(workdir, "other.json", json.dumps({"format": "other"}))
    write(workdir, "few.csv", "px1,px2\n1,2\n")
    info, export, predict, few = tnt_all(
        [
            ("info", "garbage.json"),
            ("export", "other.json", "-o", "x.svg"),
            ("predict", "absent.json", "digits_X.csv"),
            ("predict", "model.json", "few.csv"),
        ],
        workdir,
    )
    assert_one_line_error(info, "garbage.json", "not valid JSON")
    assert_one_line_error(export, "not a TnT Explorer model file")
    assert_one_line_error(predict, "absent.json does not exist")
    assert_one_line_error(few, "few.csv: The model's feature column 'px3' is missing")


@pytest.mark.slow
def test_bad_arguments_give_one_line_and_status_two(workdir):
    no_args, bad_choice, bad_suffix, bad_size = tnt_all(
        [
            ("train",),
            ("export", "model.json", "--format", "gif", "-o", "x"),
            ("export", "model.json", "-o", "x.gif"),
            ("train", "digits.csv", "--target", "digit", "--test-size", "1.5", "-o", "m.json"),
        ],
        workdir,
    )
    assert_one_line_error(tnt_process("train", cwd=workdir), "required", status=2)  # argparse's exit, for real
    assert_one_line_error(no_args, "required", status=2)
    assert_one_line_error(bad_choice, "invalid choice", status=2)
    assert_one_line_error(bad_suffix, "Cannot tell the format")
    assert_one_line_error(bad_size, "--test-size")


def test_max_bins_reaches_the_model(workdir):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=np.where(X.sum(axis=1) > 0, "yes", "no"))
    frame.to_csv(workdir / "continuous.csv", index=False)
    command = ("train", "continuous.csv", "--target", "label", "--C", "0")
    exact, binned, too_few = tnt_all(
        [
            (*command, "-o", "exact.json"),
            (*command, "--max-bins", "4", "-o", "binned.json"),
            (*command, "--max-bins", "1", "-o", "never.json"),
        ],
        workdir,
    )
    assert exact.returncode == 0 and binned.returncode == 0, exact.stderr + binned.stderr
    models = {name: model_from_json((workdir / f"{name}.json").read_text()) for name in ("exact", "binned")}
    assert (
        models["exact"].estimator_params_["max_bins"] == 65535 and models["binned"].estimator_params_["max_bins"] == 4
    )
    for name, model in models.items():
        g = model.graph_
        splits = g.children_left >= 0
        most = max(np.unique(g.threshold[splits & (g.feature == f)]).size for f in range(3))
        # A threshold between two of four quantile bins has six places at most; exact splits find more.
        assert (most <= 6) == (name == "binned"), (name, most)
    assert_one_line_error(too_few, "--max-bins", "not between 2 and 65535", status=2)
    assert not (workdir / "never.json").exists()


def test_console_script_is_declared():
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["tnt"] == "tnt.cli:main"


def _class_column(path):
    """The bad file's last column, the class column the corpus is checked with; any name if unreadable."""
    try:
        return str(read_csv_bytes(path.read_bytes(), path.name).frame.columns[-1])
    except DataError:
        return "class"


@pytest.mark.slow
def test_each_file_of_the_bad_csv_corpus_gets_the_apps_sentence(tmp_path):
    names = sorted(CASES)
    commands = [("train", BAD / name, "--target", _class_column(BAD / name), "-o", "bad.json") for name in names]
    for name, result in zip(names, tnt_all(commands, tmp_path)):
        assert_one_line_error(result, f"tnt: error: {BAD / name}: ", CLI_MESSAGES.get(name, CASES[name][1]))
    assert not (tmp_path / "bad.json").exists()


@pytest.mark.slow
def test_missing_values_are_kept_or_dropped_and_limits_are_options(tmp_path):
    rows = "".join(f"{i},{i % 7 if i % 10 else ''},{'ab'[i % 2]}\n" for i in range(40))
    (tmp_path / "holes.csv").write_text("a,b,y\n" + rows)
    dropped, kept, too_many, bad_limit = tnt_all(
        [
            ("train", "holes.csv", "--target", "y", "--drop-missing", "-o", "m.json"),
            ("train", "holes.csv", "--target", "y", "-o", "kept.json"),
            ("train", "holes.csv", "--target", "y", "--max-rows", "39", "-o", "refused.json"),
            ("train", "holes.csv", "--target", "y", "--max-columns", "1", "-o", "refused.json"),
        ],
        tmp_path,
    )
    assert dropped.returncode == 0, dropped.stderr
    assert "on 27 rows" in dropped.stdout and "on 9 rows" in dropped.stdout  # 36 of 40 rows kept
    assert kept.returncode == 0 and "on 30 rows" in kept.stdout, kept.stderr  # TnT learns from missing values
    assert_one_line_error(too_many, "The file has 40 rows; TnT Explorer takes at most 39, so use a sample.")
    assert_one_line_error(bad_limit, "--max-columns at least 2")
    assert not (tmp_path / "refused.json").exists()


@pytest.mark.slow
def test_predict_reads_empty_cells_as_missing_values(tmp_path):
    """A model that learned from missing values (CART) predicts a file with empty cells as it predicts NaN."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.where(X[:, 0] > 0, "up", "down")
    X[rng.random(X.shape) < 0.2] = np.nan
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = CARTClassifier(max_leaf_nodes=8, random_state=0).fit(frame, y)
    (tmp_path / "m.json").write_text(model_to_json(model))
    frame.to_csv(tmp_path / "rows.csv", index=False)  # NaN written as empty cells
    assert ",," in (tmp_path / "rows.csv").read_text()
    (result,) = tnt_all([("predict", "m.json", "rows.csv", "-o", "out.csv")], tmp_path)
    assert result.returncode == 0, result.stderr
    assert pd.read_csv(tmp_path / "out.csv")["prediction"].tolist() == model.predict(frame).tolist()


def test_info_escapes_control_characters_from_the_model_file(tmp_path):
    # A model file is user input: an escape sequence in a class or feature name must not reach the
    # terminal (here: clear the screen, move the cursor home, rewrite the line).
    from tnt.model_io import model_to_json

    X = pd.DataFrame({"size\x1b[2J": [0.0, 1.0, 2.0, 3.0], "b\rfake": [1.0, 1.0, 0.0, 0.0]})
    model = TnTClassifier(random_state=0).fit(X, ["ok", "ok", "\x1b[H\x07bell", "ok"])
    (tmp_path / "hostile.json").write_text(model_to_json(model))
    result = tnt("info", "hostile.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\r" not in result.stdout and "\x07" not in result.stdout
    assert r"classes     2: \x1b[H\x07bell, ok" in result.stdout
    assert r"features    2: size\x1b[2J, b\rfake" in result.stdout


@pytest.mark.parametrize("command", [("info",), ("predict", "rows.csv"), ("export", "-o", "out.txt")])
def test_every_command_refuses_a_model_file_of_a_kind_the_project_never_writes(tmp_path, command):
    from tnt import CARTClassifier
    from tnt.model_io import model_to_json

    doc = json.loads(model_to_json(CARTClassifier().fit([[0.0], [1.0]], ["a", "b"])))
    doc["estimator"] = "EvilClassifier"
    (tmp_path / "foreign.json").write_text(json.dumps(doc))
    pd.DataFrame({"x0": [0.0, 1.0]}).to_csv(tmp_path / "rows.csv", index=False)
    name, *rest = command
    result = tnt(name, "foreign.json", *rest, cwd=tmp_path)
    assert_one_line_error(
        result, "foreign.json: The model file's \"estimator\" is 'EvilClassifier', which this project never writes"
    )
    assert not (tmp_path / "out.txt").exists()


def test_train_to_a_budget(workdir):
    result = tnt(
        "train", "digits.csv", "--target", "digit", "--max-splits", "30", "--N2", "2", "-o", "budget.json", cwd=workdir
    )
    assert result.returncode == 0, result.stderr
    assert "budget 30 splits: C=" in result.stdout and "(size: C)" in result.stdout  # a budget sets the size
    model = model_from_json((workdir / "budget.json").read_text())
    assert model.n_splits_ <= 30
    assert f"splits {model.n_splits_}," in result.stdout
    assert f"CART with the same {model.n_splits_} splits: test accuracy" in result.stdout
    assert_one_line_error(
        tnt("train", "digits.csv", "--target", "digit", "--max-splits", "-3", "-o", "x.json", cwd=workdir),
        "--max-splits must be 0 or more",
    )


@pytest.mark.slow
def test_a_continuous_target_trains_a_regression_and_every_command_handles_it(tmp_path):
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(n_samples=400, n_features=5, random_state=0)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)]).assign(price=y)
    frame.to_csv(tmp_path / "prices.csv", index=False)
    frame.drop(columns="price").to_csv(tmp_path / "prices_X.csv", index=False)
    # Small whole-number targets read as classes unless told otherwise.
    frame.assign(price=(y > y.mean()).astype(int)).to_csv(tmp_path / "labels.csv", index=False)
    auto, told, classes = tnt_all(
        [
            ("train", "prices.csv", "--target", "price", "--C", "3e-3", "-o", "reg.json"),
            ("train", "labels.csv", "--target", "price", "--task", "regression", "-o", "told.json"),
            ("train", "labels.csv", "--target", "price", "-o", "clf.json"),
        ],
        tmp_path,
    )
    assert auto.returncode == 0, auto.stderr
    assert "train R2" in auto.stdout and "test R2" in auto.stdout and "RMSE" in auto.stdout
    model = model_from_json((tmp_path / "reg.json").read_text())
    assert model.estimator_kind_ == "TnTRegressor" and model.graph_.regression
    assert model_from_json((tmp_path / "told.json").read_text()).estimator_kind_ == "TnTRegressor"
    assert model_from_json((tmp_path / "clf.json").read_text()).estimator_kind_ == "TnTClassifier"
    predict, text, info = tnt_all(
        [
            ("predict", "reg.json", "prices_X.csv", "-o", "p.csv"),
            ("export", "reg.json", "-o", "rules.txt"),
            ("info", "reg.json"),
        ],
        tmp_path,
    )
    assert predict.returncode == 0 and text.returncode == 0 and info.returncode == 0
    np.testing.assert_allclose(
        pd.read_csv(tmp_path / "p.csv")["prediction"], model.predict(frame.drop(columns="price"))
    )
    assert "value: " in (tmp_path / "rules.txt").read_text()
    assert "target      regression" in info.stdout


def test_a_hand_edited_model_file_works_with_info_and_predict(tmp_path):
    from sklearn.datasets import load_iris

    from tnt.editing import GraphEditor
    from tnt.model_io import model_to_json

    X, y = load_iris(return_X_y=True)
    editor = GraphEditor(TnTClassifier(C=1e-2, random_state=0).fit(X, y), X, y, name="TnT on Iris")
    editor.collapse(int(np.flatnonzero(~editor.model.graph_.is_leaf)[-1]))
    (tmp_path / "edited.json").write_text(model_to_json(editor.edited_model()))
    pd.DataFrame(X[:5]).to_csv(tmp_path / "rows.csv", index=False)
    info = tnt("info", "edited.json", cwd=tmp_path)
    assert info.returncode == 0 and "model       HandEditedClassifier()" in info.stdout
    assert "edited      by hand from TnT on Iris (a TnTClassifier): collapse node" in info.stdout
    predicted = tnt("predict", "edited.json", "rows.csv", cwd=tmp_path)
    assert predicted.returncode == 0, predicted.stderr


def test_the_size_chosen_on_held_out_data_reaches_the_model(workdir):
    command = ("train", "digits.csv", "--target", "digit", "--N2", "2")
    chosen, as_set, with_budget, with_ndg = tnt_all(
        [
            (*command, "--size", "held-out", "-o", "held_out.json"),
            (*command, "--size", "C", "-o", "as_set.json"),
            (*command, "--size", "held-out", "--max-splits", "20", "-o", "budgeted.json"),
            (*command, "--size", "held-out", "--model", "ndg", "-o", "never.json"),
        ],
        workdir,
    )
    assert chosen.returncode == 0 and as_set.returncode == 0, chosen.stderr + as_set.stderr
    models = {name: model_from_json((workdir / f"{name}.json").read_text()) for name in ("held_out", "as_set")}
    assert models["held_out"].estimator_params_["ccp_alpha"] == "held_out_regrown"
    assert models["as_set"].estimator_params_["ccp_alpha"] == 0.0
    assert "size chosen on held-out data: pruning level" in chosen.stdout
    assert "size chosen" not in as_set.stdout
    default = tnt_all([(*command, "-o", "default.json")], workdir)[0]
    assert default.returncode == 0, default.stderr
    assert model_from_json((workdir / "default.json").read_text()).estimator_params_["ccp_alpha"] == "auto"
    assert "size chosen on held-out data:" in default.stdout
    # as the Train page's budget search: C searched with the held-out size kept, the budget an upper bound
    assert with_budget.returncode == 0, with_budget.stderr
    budgeted = model_from_json((workdir / "budgeted.json").read_text())
    assert budgeted.estimator_params_["ccp_alpha"] == "held_out_regrown" and budgeted.n_splits_ <= 20
    assert "budget 20 splits: C=" in with_budget.stdout and "size chosen on held-out data" in with_budget.stdout
    assert_one_line_error(with_ndg, "--size held-out is an option of TnT")
    assert not (workdir / "never.json").exists()
