"""Compile (or load from numba's on-disk cache) every kernel ahead of the first ``fit``.

``import tnt`` compiles nothing: each kernel is compiled on its first call, and numba caches the
machine code on disk (next to the sources), so a later process only loads it, in about a second.
On an empty cache the fit kernels take a minute or more to compile, so there are two ways to pay
that before a user waits for it:

- ``python -m tnt.learn.warmup``, which the README's install commands run once after
  ``pip install``;
- :func:`start_in_background`, which the app calls at start: the Data page needs no compiled code
  and is shown at once while the kernels compile in a separate process (a thread would hold the
  server's interpreter lock through numba's compiler and delay every page), and the first
  training waits for that process, then loads its code from the cache.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import numpy as np

_process: subprocess.Popen | None = None
_lock = threading.Lock()


def load_compiled_code() -> None:
    """Call every kernel once on tiny inputs, for both widths of feature codes and every input type
    prediction routes without converting it, so that each is compiled or loaded from the cache."""
    from tnt.learn.binning import bin_features
    from tnt.learn.micro_tree import fit_micro_tree, fit_stump, make_workspace
    from tnt.learn.regression_tree import fit_regression_tree
    from tnt.learn.routing import (
        count_directions,
        decision_paths,
        edge_statistics,
        route_float32_cast,
        route_past,
        route_to_leaves,
        walk_tables,
    )

    def fit_kernels(n_values):
        X = np.tile(np.arange(n_values, dtype=np.float32)[:, None], (1, 2))
        y = np.arange(n_values) % 2
        binned = bin_features(X)
        rows = np.arange(n_values)
        order = np.arange(2)
        w = np.ones(n_values)
        workspace = make_workspace(binned, 2)
        fit_micro_tree(binned, order, rows, y, w, 1e-3, 2, workspace)
        fit_stump(binned, order, rows, y, w, workspace)
        fit_regression_tree(binned, order, rows, y.astype(np.float64), w, 1e-3)
        return X, y, rows, w

    # uint8 feature codes and routing first: that is all a fit on the default data (the digits) needs, and
    # a training waiting for this thread gets it before the uint16 codes are compiled.
    X, y, rows, w = fit_kernels(4)
    left = np.array([1, -1, -1])
    right = np.array([2, -1, -1])
    feature = np.array([0, -2, -2])
    threshold = np.array([0.5, -2.0, -2.0])
    children, walk_feature = walk_tables(left, right, feature)
    for dtype in (np.float32, np.float64, np.uint8):  # predict routes these without converting them
        route_float32_cast(X.astype(dtype), children, walk_feature, threshold)
        decision_paths(X.astype(dtype), left, right, feature, threshold)
    route_to_leaves(X, rows, 0, left, right, feature, threshold)
    route_past(X, rows, 0, 1, left, right, feature, threshold)
    count_directions(X, 3, left, right, feature, threshold)
    edge_statistics(X, y, w, 2, left, right, feature, threshold)
    fit_kernels(300)  # uint16 feature codes


def start_in_background() -> subprocess.Popen:
    """Run ``python -m tnt.learn.warmup`` in a separate process, once per process.

    Returns
    -------
    process : subprocess.Popen
        The same process on every call; :func:`ready` says whether it has finished.
    """
    global _process
    with _lock:
        if _process is None:
            _process = subprocess.Popen(
                [sys.executable, "-m", "tnt.learn.warmup"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        return _process


def ready() -> bool:
    """True once :func:`start_in_background`'s process has finished (False if it was never started)."""
    return _process is not None and _process.poll() is not None


def wait() -> None:
    """Wait for :func:`start_in_background`'s process, if one was started."""
    if _process is not None:
        _process.wait()


def main() -> None:
    start = time.perf_counter()
    load_compiled_code()
    print(f"TnT's compiled code is ready ({time.perf_counter() - start:.0f} s).")


if __name__ == "__main__":
    main()
