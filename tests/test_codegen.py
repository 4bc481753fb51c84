"""Models exported as code (tnt.codegen): the Python module imported, the C file compiled with gcc and
the SQL query run in SQLite each predict every row exactly as ``model.predict`` does, at the thresholds
and one unit in the last place around them too, whatever the names of the features and classes."""

import importlib.util
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from tnt import CARTClassifier, DecisionGraph, TnTClassifier, TnTRegressor
from tnt.baselines import CARTRegressor
from tnt.codegen import export_code, to_c, to_python, to_sql
from tnt.codegen.sql import sql_identifier
from tnt.model_io import LoadedGraphModel, from_sklearn, model_from_json, model_to_json

BUNDLED = Path(__file__).resolve().parent.parent / "tnt" / "data" / "bundled"

# Reads rows of TNT_N_FEATURES doubles; writes the feature names and class names (each ending in a
# NUL), then per row the prediction as a double and, for a classifier, its class probabilities.
C_DRIVER = r"""
#include <stdio.h>
#include "model.c"

int main(int argc, char **argv)
{
    FILE *in, *out;
    double x[TNT_N_FEATURES];
    int i;
    if (argc != 3 || !(in = fopen(argv[1], "rb")) || !(out = fopen(argv[2], "wb")))
        return 2;
    for (i = 0; i < TNT_N_FEATURES; i++) {
        fputs(tnt_features[i], out);
        fputc(0, out);
    }
#ifdef TNT_N_CLASSES
    for (i = 0; i < TNT_N_CLASSES; i++) {
        fputs(tnt_classes[i], out);
        fputc(0, out);
    }
#endif
    while (fread(x, sizeof x[0], TNT_N_FEATURES, in) == TNT_N_FEATURES) {
#ifdef TNT_N_CLASSES
        double proba[TNT_N_CLASSES];
        double k = tnt_predict(x);
        tnt_predict_proba(x, proba);
        fwrite(&k, sizeof k, 1, out);
        fwrite(proba, sizeof proba[0], TNT_N_CLASSES, out);
#else
        double value = tnt_predict(x);
        fwrite(&value, sizeof value, 1, out);
#endif
    }
    fclose(in);
    return fclose(out) != 0;
}
"""


# ---------------------------------------------------------------------------------------------- runners
def run_python(source, X, folder):
    """Import the module and predict each row: (predictions, probabilities or None, module)."""
    path = folder / "exported_model.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"exported_{abs(hash(source))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = X.tolist()
    proba = np.array([module.predict_proba(r) for r in rows]) if hasattr(module, "predict_proba") else None
    return [module.predict(r) for r in rows], proba, module


def run_c(source, X, folder, n_classes):
    """Compile with gcc (warnings are errors) and predict each row: (predictions as class indices or
    values, probabilities or None, feature names, class names)."""
    if shutil.which("gcc") is None:
        pytest.fail("gcc is missing: install it with `apt-get install gcc libc6-dev` (CI's .ci/run does).")
    (folder / "model.c").write_text(source, encoding="utf-8")
    (folder / "driver.c").write_text(C_DRIVER)
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror"]
    build = subprocess.run(["gcc", *flags, "-o", "driver", "driver.c"], cwd=folder, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    np.ascontiguousarray(X, dtype=np.float64).tofile(folder / "rows.bin")
    subprocess.run(["./driver", "rows.bin", "out.bin"], cwd=folder, check=True)
    data = (folder / "out.bin").read_bytes()
    names = []
    for _ in range(X.shape[1] + n_classes):
        end = data.index(b"\0")
        names.append(data[:end].decode("utf-8"))
        data = data[end + 1 :]
    out = np.frombuffer(data, dtype=np.float64).reshape(X.shape[0], 1 + n_classes)
    return out[:, 0], (out[:, 1:] if n_classes else None), names[: X.shape[1]], names[X.shape[1] :]


def run_sql(source, X, names, table="data", key="id"):
    """Run the query in SQLite over a table of the rows, keyed 7, 10, 13, ... and inserted last row
    first: the predictions in row order (the query orders them by key)."""
    db = sqlite3.connect(":memory:")
    columns = ", ".join(sql_identifier(n) for n in [key, *names])
    db.execute(f"CREATE TABLE {sql_identifier(table)} ({columns})")
    marks = ", ".join("?" * (len(names) + 1))
    rows = [(7 + 3 * i, *row) for i, row in enumerate(X.tolist())]
    db.executemany(f"INSERT INTO {sql_identifier(table)} VALUES ({marks})", rows[::-1])
    result = db.execute(source).fetchall()
    assert [k for k, _ in result] == [k for k, *_ in rows]
    return [p for _, p in result]


def assert_exports_predict_as_the_model(model, X, folder, reference=None, feature_names=None):
    """Every export predicts each row of ``X`` exactly as ``reference`` (``model.predict(X)`` unless
    given); the classifiers' probabilities equal ``model.predict_proba``'s."""
    expected = model.predict(X) if reference is None else reference
    regression = model.graph_.regression
    n_classes = 0 if regression else len(model.classes_)
    X64 = np.asarray(X, dtype=np.float64)
    names = list(feature_names or getattr(model, "feature_names_in_", [f"x{i}" for i in range(X.shape[1])]))

    predicted, proba, _ = run_python(to_python(model, feature_names=feature_names), X64, folder)
    assert np.array_equal(np.asarray(predicted, dtype=expected.dtype), expected)
    predicted_c, proba_c, _, _ = run_c(to_c(model, feature_names=feature_names), X64, folder, n_classes)
    if regression:
        assert np.array_equal(predicted_c, expected)
    else:
        assert np.array_equal(model.classes_[predicted_c.astype(int)], expected)
    predicted_sql = run_sql(to_sql(model, feature_names=feature_names), X64, names)
    assert np.array_equal(np.asarray(predicted_sql, dtype=expected.dtype), expected)
    if not regression and reference is None:
        model_proba = model.predict_proba(X)
        np.testing.assert_array_equal(proba, model_proba)
        np.testing.assert_array_equal(proba_c, model_proba)


def boundary_rows(model, X):
    """For each split, a row of ``X`` whose tested feature is set to each number where the answer may
    turn: the threshold and one unit in the last place either side, the float32 numbers either side of
    it and the float64 numbers either side of the midpoint between those two (where float32 rounding
    changes its answer)."""
    graph = model.graph_
    splits = np.flatnonzero(~graph.is_leaf)
    rows = []
    for i, s in enumerate(splits):
        t = graph.threshold[s]
        low32 = np.float32(t)
        low32 = low32 if float(low32) <= t else np.nextafter(low32, np.float32(-np.inf))
        high32 = np.nextafter(low32, np.float32(np.inf))
        middle = (float(low32) + float(high32)) / 2
        values = [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf), float(low32), float(high32)]
        values += [middle, np.nextafter(middle, -np.inf), np.nextafter(middle, np.inf)]
        for v in values:
            row = np.array(X[i % len(X)], dtype=np.float64)
            row[graph.feature[s]] = v
            rows.append(row)
    return np.array(rows)


# ---------------------------------------------------------------------------------------------- models
@pytest.fixture(scope="module")
def pendigits_model(pendigits):
    X, y, X_test, _ = pendigits
    return TnTClassifier(C=3e-4, N2=2, random_state=0).fit(X, y), X_test


@pytest.fixture(scope="module")
def breast_cancer():
    frame = pd.read_csv(BUNDLED / "breast_cancer.csv")
    X, y = frame.drop(columns="diagnosis"), frame["diagnosis"]
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


@pytest.fixture(scope="module")
def breast_cancer_model(breast_cancer):
    X, X_test, y, _ = breast_cancer
    return TnTClassifier(C=1e-3, random_state=0).fit(X, y), X_test


@pytest.fixture(scope="module")
def california_model():
    frame = pd.read_csv(BUNDLED / "california_housing_sample.csv")
    X, y = frame.drop(columns="median_house_value"), frame["median_house_value"]
    X, X_test, y, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    return TnTRegressor(C=3e-4, random_state=0).fit(X, y), X_test


def test_pendigits_every_test_row_and_every_threshold(pendigits_model, tmp_path):
    model, X_test = pendigits_model
    assert model.n_shared_nodes_ > 0  # shared sub-graphs, each written once
    assert_exports_predict_as_the_model(model, X_test, tmp_path)
    assert_exports_predict_as_the_model(model, boundary_rows(model, X_test), tmp_path)


def test_continuous_data_with_fractional_thresholds(breast_cancer_model, tmp_path):
    model, X_test = breast_cancer_model
    graph = model.graph_
    thresholds = graph.threshold[~graph.is_leaf]
    assert np.all(thresholds != np.round(thresholds * 2) / 2)  # not whole numbers nor halves
    assert_exports_predict_as_the_model(model, X_test, tmp_path)
    rows = pd.DataFrame(boundary_rows(model, X_test.to_numpy()), columns=X_test.columns)
    assert_exports_predict_as_the_model(model, rows, tmp_path)
    # The float32 rounding is scikit-learn's: the model's answer is the float32 cast's.
    assert np.array_equal(model.predict(rows), model.predict(rows.astype(np.float32)))


def test_a_regression_predicts_the_same_values(california_model, tmp_path):
    model, X_test = california_model
    assert model.graph_.regression and model.n_splits_ > 20
    assert_exports_predict_as_the_model(model, X_test, tmp_path)
    rows = boundary_rows(model, X_test.to_numpy())
    assert_exports_predict_as_the_model(model, pd.DataFrame(rows, columns=X_test.columns), tmp_path)
    python = to_python(model)
    assert "predict_proba" not in python and "double tnt_predict(const double *x)" in to_c(model)


def test_a_scikit_learn_tree_exports_as_scikit_learn_predicts_at_its_thresholds(breast_cancer, tmp_path):
    X, X_test, y, _ = breast_cancer
    tree = DecisionTreeClassifier(max_leaf_nodes=40, random_state=0).fit(X.to_numpy(), y)
    model = from_sklearn(tree, feature_names=list(X.columns))
    rows = boundary_rows(model, X_test.to_numpy())
    # scikit-learn's own prediction (float32 cast, then <= in float64) is the reference.
    assert_exports_predict_as_the_model(model, rows, tmp_path, reference=tree.predict(rows))


def test_a_model_file_exports_as_the_model_it_holds(pendigits_model, tmp_path):
    model, X_test = pendigits_model
    loaded = model_from_json(model_to_json(model))
    for language in ("python", "c", "sql"):
        assert export_code(loaded, language) == export_code(model, language).replace(
            "TnTClassifier", loaded.estimator_kind_
        )


def test_a_model_comparing_in_float64_keeps_its_thresholds(breast_cancer_model, tmp_path):
    model, X_test = breast_cancer_model
    doc = json.loads(model_to_json(model))
    doc["graph"]["input_dtype"] = "float64"
    loaded = model_from_json(json.dumps(doc))
    rows = pd.DataFrame(boundary_rows(loaded, X_test.to_numpy()), columns=X_test.columns)
    assert not np.array_equal(loaded.predict(rows), model.predict(rows))  # the rounding matters here
    assert_exports_predict_as_the_model(loaded, rows, tmp_path)


def test_a_model_without_directions_sends_nan_and_null_right_at_every_split(pendigits_model, tmp_path):
    model, X_test = pendigits_model
    model = model_from_json(model_to_json(model))
    model.graph_.missing_go_to_left = None  # as a model file written before missing values were supported
    rng = np.random.default_rng(0)
    X = X_test[:400].astype(np.float64)
    X[rng.random(X.shape) < 0.2] = np.nan
    # The graph's routing sends +inf right at every split: the reference for "a NaN goes right".
    graph = model.graph_
    expected = model.classes_[graph.predicted_class()[graph.apply(np.where(np.isnan(X), np.inf, X))]]
    predicted, _, _ = run_python(to_python(model), X, tmp_path)
    assert np.array_equal(predicted, expected)
    predicted_c, _, _, _ = run_c(to_c(model), X, tmp_path, len(model.classes_))
    assert np.array_equal(model.classes_[predicted_c.astype(int)], expected)
    # SQLite stores a NaN as NULL.
    assert np.array_equal(run_sql(to_sql(model), X, [f"x{i}" for i in range(16)]), expected)


def nan_rows(n, seed):
    """Rows with 20 % of their values missing; feature 2's missingness tells the class, so the trees
    learned from them test it (a split at +inf)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + X[:, 1] > 0, "up", "down")
    X[rng.random(X.shape) < 0.2] = np.nan
    X[y == "up", 2] = np.where(rng.random(int((y == "up").sum())) < 0.7, np.nan, X[y == "up", 2])
    return X, y


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_exports_follow_the_stored_direction_of_missing_values(task, tmp_path):
    X, y = nan_rows(600, seed=0)
    if task == "classification":
        model = CARTClassifier(max_leaf_nodes=25, random_state=0).fit(X, y)
    else:
        model = CARTRegressor(max_leaf_nodes=25, random_state=0).fit(X, np.nan_to_num(X[:, 0]) + np.isnan(X[:, 2]))
    graph = model.graph_
    assert graph.is_missing_test.any() and graph.missing_go_to_left[~graph.is_leaf].any()
    X_test, _ = nan_rows(400, seed=1)
    assert_exports_predict_as_the_model(model, X_test, tmp_path)  # SQLite stores each NaN as NULL


def test_the_query_reads_a_view_and_rows_sharing_a_key(pendigits_model):
    model, X_test = pendigits_model
    X = X_test[:50].astype(np.float64)
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE raw (k, {', '.join(f'x{i}' for i in range(16))})")
    db.executemany(f"INSERT INTO raw VALUES ({', '.join('?' * 17)})", [(i // 2, *r) for i, r in enumerate(X.tolist())])
    db.execute("CREATE VIEW readings AS SELECT * FROM raw")
    result = db.execute(to_sql(model, table="readings", key="k")).fetchall()
    assert sorted(result) == sorted((i // 2, p) for i, p in enumerate(model.predict(X).tolist()))


HOSTILE_FEATURES = [
    'a "quoted" name',
    "back\\slash\\",
    "it's",
    "*/ /* -- comment",
    "??/ trigraph ??=",
    "line\nbreak\r",
    "select",
    "ünïcödé €",
    "x[0]",
    "\\0 %s %n",
]
HOSTILE_CLASSES = ['"', "'); DROP TABLE data; --", "\\", "é\n*/", "??'"]


def test_hostile_feature_names_and_class_labels_are_escaped_in_every_language(tmp_path):
    X, y = make_classification(
        n_samples=600, n_features=len(HOSTILE_FEATURES), n_informative=6, n_classes=5, random_state=0
    )
    frame = pd.DataFrame(X, columns=HOSTILE_FEATURES)
    labels = np.array(HOSTILE_CLASSES, dtype=object)[y]
    model = TnTClassifier(C=1e-3, random_state=0).fit(frame, labels)
    expected = model.predict(frame)
    assert len(set(expected)) == len(HOSTILE_CLASSES)  # every label is predicted somewhere

    source = to_python(model)
    assert source.isascii()
    predicted, _, module = run_python(source, X, tmp_path)
    assert module.FEATURES == tuple(HOSTILE_FEATURES) and module.CLASSES == tuple(model.classes_)
    assert predicted == expected.tolist()

    predicted_c, _, features, classes = run_c(to_c(model), X, tmp_path, len(HOSTILE_CLASSES))
    assert features == HOSTILE_FEATURES and classes == list(model.classes_)
    assert np.array_equal(model.classes_[predicted_c.astype(int)], expected)

    table, key = 'my "table"; --', "the 'key' \"column\""
    query = to_sql(model, table=table, key=key)
    assert run_sql(query, X, HOSTILE_FEATURES, table=table, key=key) == expected.tolist()


def test_an_estimator_name_cannot_escape_the_comments(pendigits_model, tmp_path):
    # A model file naming such an estimator is refused on loading (tnt.model_io.ESTIMATOR_KINDS);
    # the exporters escape the name all the same, for a model built in Python.
    model, X_test = pendigits_model
    hostile = 'x"""\nraise SystemExit("injected")\n"""*/ int injected; /*\n-- \\'
    doc = json.loads(model_to_json(model))
    doc["estimator"] = hostile
    with pytest.raises(ValueError, match="which this project never writes"):
        model_from_json(json.dumps(doc))
    loaded = model_from_json(model_to_json(model))
    loaded.estimator_kind_ = hostile
    for language in ("python", "c", "sql"):
        assert "x????raise?SystemExit??injected?????" in export_code(loaded, language)
    assert_exports_predict_as_the_model(loaded, X_test[:100], tmp_path)


def test_shared_nodes_are_written_once_so_code_grows_linearly_with_the_graph(tmp_path):
    # A ladder 250 splits deep: split i goes to splits i + 1 and i + 2, so more than 2**100
    # root-to-leaf paths.
    n = 250
    rng = np.random.default_rng(0)
    graph = DecisionGraph(
        children_left=[i + 1 for i in range(n)] + [-1, -1],
        children_right=[i + 2 for i in range(n)] + [-1, -1],
        feature=[i % 3 for i in range(n)] + [-2, -2],
        threshold=list(rng.uniform(size=n)) + [-2, -2],
        value=[[1, 1]] * n + [[3, 1], [1, 3]],
    )
    lengths, counts = graph.path_length_distribution()
    assert sum(counts) > 2**100
    model = LoadedGraphModel()
    model.graph_, model.classes_, model.n_classes_, model.n_features_in_ = graph, np.array(["no", "yes"]), 2, 3
    X = rng.uniform(size=(300, 3))
    assert_exports_predict_as_the_model(model, X, tmp_path)
    c = to_c(model)
    assert c.count("if (x[") == n and all(c.count(f"\ns{i}:") == 1 for i in range(1, n))
    sql = to_sql(model)
    assert sql.count("AS DOUBLE PRECISION)") == n  # one threshold per split
    for code in (to_python(model), c, sql):
        assert len(code) < 4000 + 200 * n


def test_a_graph_without_splits_predicts_its_one_leaf(tmp_path):
    graph = DecisionGraph([-1], [-1], [-2], [-2.0], [[1.0, 3.0]])
    model = LoadedGraphModel()
    model.graph_, model.classes_, model.n_classes_, model.n_features_in_ = graph, np.array([4, 9]), 2, 2
    assert_exports_predict_as_the_model(model, np.array([[0.0, 1.0], [5.0, -1.0]]), tmp_path)


def test_bad_names_and_options_get_one_sentence(pendigits_model, tmp_path):
    model, X_test = pendigits_model
    with pytest.raises(ValueError, match="the query names its own tables tnt_split"):
        to_sql(model, table="TNT_walk")
    with pytest.raises(ValueError, match="The key column's name is empty"):
        to_sql(model, key="")
    with pytest.raises(ValueError, match="Features 0 and 1 are both called 'f'; SQL needs one column per feature"):
        to_sql(model, feature_names=["f"] * 16)
    with pytest.raises(ValueError, match="Feature 3's name holds a NUL character"):
        to_sql(model, feature_names=[f"f{i}" if i != 3 else "a\0b" for i in range(16)])
    with pytest.raises(ValueError, match="feature_names has 2 names but the model reads 16 features"):
        to_python(model, feature_names=["a", "b"])
    renamed = model_from_json(model_to_json(model))
    renamed.classes_ = np.array([f"c\0{k}" for k in range(10)])
    with pytest.raises(ValueError, match="A class label holds a NUL character"):
        to_sql(renamed)
    with pytest.raises(ValueError, match="holds a NUL character, which a C string cannot carry"):
        to_c(renamed)
    with pytest.raises(ValueError, match="Unknown language 'java': choose one of python, c, sql"):
        export_code(model, "java")
    _, _, module = run_python(to_python(model), X_test[:1], tmp_path)
    with pytest.raises(ValueError, match="row has 3 values; the model reads 16"):
        module.predict([1, 2, 3])


# ---------------------------------------------------------------------------------------------- MNIST
@pytest.fixture(scope="module")
def mnist_model(mnist_path):
    with np.load(mnist_path, allow_pickle=False) as d:
        X, y, X_test = d["X_train"], d["y_train"], d["X_test"]
    return TnTClassifier(C=1e-4, random_state=0, n_jobs=-1).fit(X, y), X_test


@pytest.mark.slow
def test_mnist_at_C_1e_4_every_test_row_and_every_threshold(mnist_model, tmp_path):
    model, X_test = mnist_model
    assert model.n_splits_ > 900 and model.n_shared_nodes_ > 0
    assert_exports_predict_as_the_model(model, X_test, tmp_path)
    assert_exports_predict_as_the_model(model, boundary_rows(model, X_test), tmp_path)
