"""Timings at the limits: a CSV upload of 200,000 rows and about 50 MB, and extreme model files.

Run from the repository root:

    .venv/bin/python benchmarks/limits.py [--browser]

``--browser`` also uploads the CSV through the app's real uploader in headless chromium and times
choosing the file to the Data page saying it is in use. Prints one line per step with its wall time (and the process's peak resident memory so far).
The tests check that these inputs work (``tests/test_large_uploads.py``,
``tests/test_extreme_models.py``); the times are measured here, never asserted.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt.data.csv_loader import Limits, read_csv_bytes  # noqa: E402
from tnt.data.datasets import make_dataset  # noqa: E402
from tnt.services.training import TrainParams, train  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def step(label: str, function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    print(f"{label:<55} {time.perf_counter() - start:8.2f} s   peak RSS {peak_mb():6.0f} MB", flush=True)
    return result


def csv_at_the_limits(rows: int = 200_000, columns: int = 21) -> bytes:
    """Numbers with 8 significant digits in ``columns`` features and a class of 10 values."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, columns))
    y = (X[:, :3].sum(axis=1) * 2).round().clip(-4, 5).astype(int) + 4
    lines = [",".join([f"f{i}" for i in range(columns)] + ["label"])]
    body = np.char.mod("%.8g", X)
    lines += [",".join(row) + f",c{label}" for row, label in zip(body, y)]
    return ("\n".join(lines) + "\n").encode()


def upload_in_the_browser(raw: bytes) -> None:
    """The CSV chosen in the Data page's uploader of ``streamlit run app.py``, until it is in use."""
    from browser_helpers import launch_chromium, running_server
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        path = Path(folder) / "large.csv"
        path.write_bytes(raw)
        os.environ["TNT_WORKSPACE_DIR"] = str(Path(folder) / "workspaces")  # for the server
        browser = launch_chromium(p)
        with running_server("limits_upload.log") as (url, _):
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(url)
            page.get_by_text("In use:").wait_for(timeout=300_000)
            start = time.perf_counter()
            page.locator('input[type="file"]').set_input_files(str(path))
            page.get_by_role("button", name="Use this data").click(timeout=300_000)
            page.get_by_text("In use: large.csv").wait_for(timeout=300_000)
            label = "app: choose the file in the uploader to 'In use: large.csv'"
            print(f"{label:<55} {time.perf_counter() - start:8.2f} s   (browser and server)", flush=True)
        browser.close()


def main() -> None:
    raw = step("write a CSV of 200,000 rows x 22 columns", csv_at_the_limits)
    print(f"  {len(raw) / 1e6:.1f} MB (the limit is {Limits().max_bytes / 1e6:.0f} MB)")
    if "--browser" in sys.argv[1:]:
        upload_in_the_browser(raw)
    table = step("read_csv_bytes (the upload is read)", read_csv_bytes, raw, "large.csv")
    columns = list(table.frame.columns)
    data = step("make_dataset (checks and split)", make_dataset, table.frame, target="label",
                features=columns[:-1], name="large.csv", source_key="upload:large")  # fmt: skip
    for C in (1e-3,):
        result = step(f"train TnT and CART at C={C:g}", train, data, TrainParams(C=C))
        print(f"  {result.tnt.n_splits_} splits, test accuracy {result.tnt_metrics['test_accuracy']:.3f}")
        nbytes = sum(a.nbytes for m in (result.tnt, result.cart) for a in vars(m.graph_).values()
                     if isinstance(a, np.ndarray))  # fmt: skip
        print(f"  the kept result's graphs: {nbytes / 1e6:.2f} MB")

    from tests_extreme import EXTREME, as_model_file  # noqa: E402  (tests/test_extreme_models.py)

    from tnt.model_io import model_from_json
    from tnt.viz.plotly_view import graph_figure

    for name, make in EXTREME.items():
        text = as_model_file(make())
        model = step(f"{name}: read the model file ({len(text) / 1e6:.1f} MB)", model_from_json, text)
        X = np.random.default_rng(0).normal(size=(10_000, model.n_features_in_))
        step(f"{name}: predict 10,000 samples", model.predict, X)
        step(f"{name}: path length distribution", model.graph_.path_length_distribution)
        step(f"{name}: interactive figure", graph_figure, model.graph_)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    import importlib

    sys.modules["tests_extreme"] = importlib.import_module("test_extreme_models")
    main()
