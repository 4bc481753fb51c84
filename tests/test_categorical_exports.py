"""A model with categorical splits exported as code reads categories by name and predicts every row
as ``model.predict`` does: rows with known categories, missing values and categories never seen in
training (routed as missing) in Python (lists and dicts of names), SQL (text columns, ``IN`` lists,
quotes doubled) and C (codes from the category table and its name-to-code helper)."""

import subprocess

import numpy as np
import pandas as pd
import pytest
from test_codegen import run_c, run_python, run_sql

from tnt import DecisionGraph
from tnt.categorical import CategoryCoding
from tnt.codegen import to_c, to_python, to_sql
from tnt.codegen.walker import code_graph
from tnt.model_io import LoadedGraphModel, LoadedGraphRegressor

SHADES = ["it's", 'say "hi"', "é-blue", "back\\slash", "red"]
SIZES = [3, 7, 11, 20]
FEATURES = ["shade", "weight", "size code"]


def random_model(seed: int, regression: bool = False):
    """A random graph (shared nodes, every kind of split) over a text feature, a numeric one and one
    of integer codes."""
    rng = np.random.default_rng(seed)
    n_splits = 9
    n = 2 * n_splits + 1
    left, right, feature, threshold, subsets = [], [], [], [], []
    for node in range(n_splits):
        a, b = rng.choice(np.arange(node + 1, min(node + 5, n)), size=2, replace=False)  # most splits reachable
        left.append(int(a))
        right.append(int(b))
        f = int(rng.integers(3))
        feature.append(f)
        if f == 1:
            threshold.append(float(rng.normal()))
            subsets.append(None)
        else:
            k = len(SHADES) if f == 0 else len(SIZES)
            threshold.append(np.nan)
            subsets.append(sorted(rng.choice(k, size=int(rng.integers(1, k)), replace=False).tolist()))
    leaves = n - n_splits
    graph = DecisionGraph(
        left + [-1] * leaves, right + [-1] * leaves, feature + [-2] * leaves, threshold + [-2.0] * leaves,
        rng.random((n, 1)) * 100 if regression else rng.integers(0, 5, size=(n, 3)),
        missing_go_to_left=rng.integers(0, 2, size=n_splits).tolist() + [0] * leaves,
        categories={0: SHADES, 2: SIZES}, category_left=subsets + [None] * leaves, regression=regression,
    )  # fmt: skip
    if regression:
        return LoadedGraphRegressor._holding(graph, 3, FEATURES, "CARTRegressor", {})
    return LoadedGraphModel._holding(graph, 3, FEATURES, "CARTClassifier", {}, np.array(["a", "b", "c"]))


def rows(seed: int) -> pd.DataFrame:
    """Known categories, missing values, and categories never seen in training."""
    rng = np.random.default_rng(100 + seed)
    m = 60
    shade = rng.choice(SHADES + ["purple", None], size=m).tolist()
    weight = np.where(rng.random(m) < 0.15, np.nan, rng.normal(size=m))
    size = rng.choice(SIZES + [5, None], size=m).tolist()
    return pd.DataFrame({"shade": shade, "weight": weight, "size code": pd.Series(size, dtype=object)})


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("regression", [False, True], ids=["classifier", "regressor"])
def test_every_language_predicts_as_the_model(seed, regression, tmp_path):
    model = random_model(seed, regression)
    assert code_graph(model).categorical.sum() >= 2  # categorical splits a row can reach
    table = rows(seed)
    expected = model.predict(table)
    values = table.astype(object).where(table.notna(), None).to_numpy(dtype=object)

    predicted, _, module = run_python(to_python(model), values, tmp_path)
    assert np.array_equal(np.asarray(predicted, dtype=expected.dtype), expected)
    by_name = [module.predict(dict(zip(FEATURES, row))) for row in values.tolist()]
    assert np.array_equal(np.asarray(by_name, dtype=expected.dtype), expected)

    assert np.array_equal(np.asarray(run_sql(to_sql(model), values, FEATURES), dtype=expected.dtype), expected)

    codes = CategoryCoding(model.graph_.categories).codes(table)
    n_classes = 0 if regression else 3
    predicted_c, _, _, _ = run_c(to_c(model), codes, tmp_path, n_classes)
    if regression:
        assert np.array_equal(predicted_c, expected)
    else:
        assert np.array_equal(model.classes_[predicted_c.astype(int)], expected)


NAME_DRIVER = r"""
#include <stdio.h>
#include "model.c"

int main(int argc, char **argv)
{
    int i;
    for (i = 2; i < argc; i++)
        printf("%d\n", tnt_category_code(atoi(argv[1]), argv[i]));
    return 0;
}
"""


def test_the_c_helper_maps_a_name_to_its_code(tmp_path):
    (tmp_path / "model.c").write_text(to_c(random_model(0)), encoding="utf-8")
    (tmp_path / "names.c").write_text("#include <stdlib.h>\n" + NAME_DRIVER)
    flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]
    build = subprocess.run(["gcc", *flags, "-o", "names", "names.c"], cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run(["./names", "0", *SHADES, "purple", "re"], cwd=tmp_path, capture_output=True, check=True)
    assert run.stdout.decode().split() == ["0", "1", "2", "3", "4", "-1", "-1"]
    run = subprocess.run(["./names", "2", "11", "5", "x"], cwd=tmp_path, capture_output=True, check=True)
    assert run.stdout.decode().split() == ["2", "-1", "-1"]
    run = subprocess.run(["./names", "1", "red"], cwd=tmp_path, capture_output=True, check=True)
    assert run.stdout.decode().split() == ["-1"]


def test_sql_lists_the_categories_quoted():
    graph = DecisionGraph(
        [1, -1, -1], [2, -1, -1], [0, -2, -2], [np.nan, -2, -2], [[2, 2], [2, 0], [0, 2]], missing_go_to_left=[0, 0, 0],
        categories={0: SHADES}, category_left=[[0, 1], None, None],
    )  # fmt: skip
    query = to_sql(LoadedGraphModel._holding(graph, 1, ["shade"], "CARTClassifier", {}, np.array([0, 1])))
    assert (
        """WHEN "tnt_row"."shade" IN ('it''s', 'say "hi"') THEN s."yes" """
        """WHEN "tnt_row"."shade" IN ('é-blue', 'back\\slash', 'red') THEN s."no" """
        """ELSE CASE WHEN s."missing_yes" = 1 THEN s."yes" ELSE s."no" END END"""
    ) in query


def test_a_model_without_categories_exports_as_before():
    graph = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    model = LoadedGraphModel._holding(graph, 1, None, "CARTClassifier", {}, np.array([0, 1]))
    for source in (to_python(model), to_c(model), to_sql(model)):
        assert "categor" not in source.lower() and "CATEGOR" not in source
