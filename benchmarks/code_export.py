"""Models exported as code (``tnt.codegen``): the size of the code in each language and the speed of
the C function against ``model.predict``, measured in the same run.

Run from the repository root (MNIST is read from ``../shared/data`` unless ``--data`` says otherwise,
and left out when absent):

    .venv/bin/python benchmarks/code_export.py [--data ../shared/data]

It rewrites ``benchmarks/code_export.md`` whole. The C function is compiled with ``gcc -O2`` into a
loop over the test rows (passes over them until two million rows are predicted, timed with the
monotonic clock; the median of seven such measurements). ``model.predict`` is timed on all the
test rows at once (the median of 21 calls) and on one row at a time (the median over 300 rows); the
Python module over the test rows (the median of five passes) and the SQL query (in SQLite, in memory;
the median of three runs). Every export's predictions are checked
against ``model.predict`` on the same rows before its time is reported.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from run import machine  # noqa: E402  (benchmarks/run.py: one description of the machine)

from tnt import TnTClassifier, TnTRegressor  # noqa: E402
from tnt.codegen import LANGUAGES, export_code  # noqa: E402
from tnt.codegen.sql import sql_identifier  # noqa: E402
from tnt.data.external import find_data, missing_data  # noqa: E402

REPORT = Path(__file__).resolve().parent / "code_export.md"
BUNDLED = ROOT / "tnt" / "data" / "bundled"
C = 1e-4
ROWS_PER_MEASUREMENT = 2_000_000

TIMER = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "model.c"

/* rows.bin n_rows out.bin: prints ns per row of seven measurements, writes the last predictions. */
int main(int argc, char **argv)
{
    long n, i, pass, passes;
    int m;
    double *X, *predicted;
    FILE *in, *out;
    if (argc != 4 || !(in = fopen(argv[1], "rb")) || !(out = fopen(argv[3], "wb")))
        return 2;
    n = atol(argv[2]);
    X = malloc(sizeof(double) * n * TNT_N_FEATURES);
    predicted = malloc(sizeof(double) * n);
    if (!X || !predicted || fread(X, sizeof(double), n * TNT_N_FEATURES, in) != (size_t)(n * TNT_N_FEATURES))
        return 3;
    passes = ROWS_PER_MEASUREMENT / n + 1;
    for (m = 0; m < 7; m++) {
        struct timespec start, stop;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (pass = 0; pass < passes; pass++)
            for (i = 0; i < n; i++)
                predicted[i] = tnt_predict(X + i * TNT_N_FEATURES);
        clock_gettime(CLOCK_MONOTONIC, &stop);
        printf("%.3f\n", ((stop.tv_sec - start.tv_sec) * 1e9 + (stop.tv_nsec - start.tv_nsec)) / (passes * (double)n));
    }
    fwrite(predicted, sizeof(double), n, out);
    fclose(in);
    return fclose(out) != 0;
}
"""


def models(data_dir: Path | None):
    """(name, fitted model, test rows as float64) for each data set present (MNIST where the loader
    finds it, in ``data_dir`` only when given)."""
    with np.load(BUNDLED / "pendigits.npz", allow_pickle=False) as d:
        X, y, X_test = d["X_train"], d["y_train"], d["X_test"]
    yield "pendigits", TnTClassifier(ccp_alpha=0.0, C=C, random_state=0).fit(X, y), X_test.astype(np.float64)
    if missing_data(["mnist"], data_dir) is None:
        with np.load(find_data("mnist", data_dir), allow_pickle=False) as d:
            X, y, X_test = d["X_train"], d["y_train"], d["X_test"]
        yield "MNIST", TnTClassifier(ccp_alpha=0.0, C=C, random_state=0, n_jobs=-1).fit(X, y), X_test.astype(np.float64)
    frame = pd.read_csv(BUNDLED / "california_housing_sample.csv")
    X, y = frame.drop(columns="median_house_value").to_numpy(), frame["median_house_value"].to_numpy()
    X, X_test, y, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    yield (
        "California housing (2,000-row sample), regression",
        TnTRegressor(ccp_alpha=0.0, C=C, random_state=0).fit(X, y),
        X_test,
    )


def c_speed(source: str, X: np.ndarray, folder: Path) -> tuple[float, np.ndarray]:
    """Median ns per row of the compiled C loop, and its predictions."""
    (folder / "model.c").write_text(source)
    (folder / "timer.c").write_text(TIMER)
    define = f"-DROWS_PER_MEASUREMENT={ROWS_PER_MEASUREMENT}L"
    subprocess.run(["gcc", "-std=c99", "-O2", define, "-o", "timer", "timer.c"], cwd=folder, check=True)
    X.tofile(folder / "rows.bin")
    out = subprocess.run(["./timer", "rows.bin", str(len(X)), "out.bin"], cwd=folder, check=True, capture_output=True)
    times = [float(t) for t in out.stdout.split()]
    return float(np.median(times)), np.fromfile(folder / "out.bin", dtype=np.float64)


def python_module(source: str, folder: Path):
    path = folder / "exported.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("exported", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sqlite_run(source: str, X: np.ndarray, n_features: int, repeat: int = 3) -> tuple[list[float], list]:
    """Seconds of each of ``repeat`` runs of the query over the rows ``X``, and its predictions."""
    db = sqlite3.connect(":memory:")
    names = [f"x{i}" for i in range(n_features)]
    db.execute(f"CREATE TABLE data (id INTEGER PRIMARY KEY, {', '.join(map(sql_identifier, names))})")
    db.executemany(
        f"INSERT INTO data VALUES ({', '.join('?' * (n_features + 1))})", [(i, *r) for i, r in enumerate(X.tolist())]
    )
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = db.execute(source).fetchall()
        times.append(time.perf_counter() - start)
    return times, [p for _, p in result]


def measure(name: str, model, X: np.ndarray, folder: Path) -> dict:
    n = len(X)
    expected = model.predict(X)
    sources = {language: export_code(model, language) for language in LANGUAGES}
    c_ns, c_predicted = c_speed(sources["c"], X, folder)
    decoded = c_predicted if model.graph_.regression else model.classes_[c_predicted.astype(int)]
    batch = []
    for _ in range(21):
        start = time.perf_counter()
        model.predict(X)
        batch.append(time.perf_counter() - start)
    single = []
    for i in range(min(n, 300)):
        start = time.perf_counter()
        model.predict(X[i : i + 1])
        single.append(time.perf_counter() - start)
    module = python_module(sources["python"], folder)
    rows = X.tolist()
    python_times = []
    for _ in range(5):
        start = time.perf_counter()
        python_predicted = [module.predict(r) for r in rows]
        python_times.append(time.perf_counter() - start)
    sql_times, sql_predicted = sqlite_run(sources["sql"], X, X.shape[1])
    equal = {
        "c": np.array_equal(decoded, expected),
        "python": np.array_equal(np.asarray(python_predicted, dtype=expected.dtype), expected),
        "sql": np.array_equal(np.asarray(sql_predicted, dtype=expected.dtype), expected),
    }
    return {
        "name": name,
        "model": f"{type(model).__name__}(C={C:g}): {model.n_splits_:,} splits, {model.n_shared_nodes_:,} shared nodes",
        "rows": n,
        "sizes": {lang: (len(src.encode("utf-8")), src.count("\n")) for lang, src in sources.items()},
        "c_ns": c_ns,
        "batch_ns": float(np.median(batch)) / n * 1e9,
        "single_us": float(np.median(single)) * 1e6,
        "python_us": float(np.median(python_times)) / n * 1e6,
        "sql_us": float(np.median(sql_times)) / n * 1e6,
        "equal": equal,
    }


def report(results: list[dict], stamp: str) -> str:
    def equal(r, lang):
        return "yes" if r["equal"][lang] else "**no**"

    lines = [
        "# Models as code: size and speed",
        "",
        "This file is written by `benchmarks/code_export.py`, whole; edit the script, not this file. From the",
        "repository root: `.venv/bin/python benchmarks/code_export.py --data ../shared/data`.",
        "",
        f"Run {stamp} on {machine()}, {_gcc()}. The machine is shared: the timings are medians, and the C",
        "function and `model.predict` are measured in the same run.",
        "",
        "## Code size",
        "",
        "| data | model | Python module | C file | SQL query |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        sizes = " | ".join(
            f"{b / 1000:,.1f} kB, {n:,} lines" for b, n in (r["sizes"][k] for k in ("python", "c", "sql"))
        )
        lines.append(f"| {r['name']} | {r['model']} | {sizes} |")
    lines += [
        "",
        "## Prediction speed",
        "",
        "Per test row. C: `tnt_predict` in a loop compiled with `gcc -O2` (the median of seven passes",
        "over two million rows). `model.predict`: all test rows in one call (per row; the median of 21",
        "calls), and one row per call (the median over 300 rows). Python: the exported module's `predict`,",
        "one row per call (the median of five passes). SQL: the query over all test rows in SQLite, in",
        "memory (the median of three runs). *Equal*: each export's predictions equal `model.predict`'s on",
        "every test row.",
        "",
        "| data | test rows | C | `model.predict`, all rows | C's speed-up | `model.predict`, one row | "
        "Python module | SQLite | equal (C, Python, SQL) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['name']} | {r['rows']:,} | {r['c_ns']:.0f} ns | {r['batch_ns']:.0f} ns | "
            f"{r['batch_ns'] / r['c_ns']:.1f}x | {r['single_us']:.0f} µs | {r['python_us']:.1f} µs | "
            f"{r['sql_us']:.1f} µs | {equal(r, 'c')}, {equal(r, 'python')}, {equal(r, 'sql')} |"
        )
    return "\n".join(lines) + "\n"


def _gcc() -> str:
    out = subprocess.run(["gcc", "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="folder of mnist.npz (default: where tnt.data.external looks)")
    args = parser.parse_args(argv)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for name, model, X in models(args.data):
            results.append(measure(name, model, np.ascontiguousarray(X, dtype=np.float64), Path(folder)))
            r = results[-1]
            print(f"{name}: C {r['c_ns']:.0f} ns/row, predict {r['batch_ns']:.0f} ns/row, equal {r['equal']}")
    REPORT.write_text(report(results, stamp))
    print(f"wrote {REPORT}")


if __name__ == "__main__":
    main()
