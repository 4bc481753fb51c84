"""Compile (or load from numba's on-disk cache) every kernel ahead of the first ``fit``.

``import tnt`` compiles nothing: each kernel is compiled on its first call, and numba caches the
machine code on disk (next to the sources), so a later process only loads it, in about a second.
On an empty cache the fit kernels take a minute or more to compile, so there are two ways to pay
that before a user waits for it:

- ``python -m tnt.learn.warmup``, which ``pip install`` runs on the package it builds (the
  repository's ``setup.py``), so that an installed package starts with its compiled code;
- :func:`start_in_background`, which the app calls at start: the Data page needs no compiled code
  and is shown at once while the kernels compile in a separate process (a thread would hold the
  server's interpreter lock through numba's compiler and delay every page). The process compiles
  first what the app's default data needs (one-byte codes, one thread), and says so; a training
  on such data waits only for that, then loads its code from the cache.

numba compiles on one core, so with two cores :func:`main` compiles in two processes, and shares
the first stage between them: the second process compiles the fit kernel's split search while the
first compiles the rest of that kernel, which loads the split search from the cache once the second
process has written it (:func:`tnt.learn.compiled.load_when_ready`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

_process: subprocess.Popen | None = None
_lock = threading.Lock()


# Printed by the warm-up process once the kernels of the first stage are compiled.
NARROW_READY = "TnT's compiled code for data with up to 256 values per feature is ready."
# The stages :func:`load_compiled_code` reports.
NARROW, SPLIT_SEARCH = "narrow", "split search"
# A column with more distinct values than this is coded on 16 bits (tnt.learn.binning), which
# needs the kernels of the warm-up's later stages.
NARROW_VALUES = 256

_narrow_ready = threading.Event()

# `-m` puts the working folder first on the path: processes are started from the folder that holds
# this very `tnt`, so that they compile this copy, not a `tnt/` the user stands in.
_PACKAGE_PARENT = Path(__file__).resolve().parent.parent.parent


def load_compiled_code(report=None, share: str = "all") -> None:
    """Call every kernel once on tiny inputs, so that each is compiled or loaded from the cache.

    First what a fit with one thread on data of at most 256 values per feature (one-byte codes:
    the app's default data) and prediction need, every input type prediction routes without
    converting it included; then ``report(NARROW)`` is called, if given. Then the rest: two-byte
    codes, the walks of fits on data with missing values, regression trees, and the copies of the fit kernels with their parallel kernels
    (:func:`tnt.learn.tree_builder.threaded`), which only fits on several threads use.

    Parameters
    ----------
    report : callable, optional
        Called with the name of each stage done: ``NARROW``, and in the second share
        ``SPLIT_SEARCH`` first.
    share : {"all", "first", "second"}, default="all"
        :func:`main` runs the two shares in two processes at once, as numba compiles on one core.
        The first stage is split between them:

        - "first": the fit on one thread and one-byte codes (``report(NARROW)``), without its
          split search, which it loads from the cache; then the fit kernels of two-byte codes and
          the regression trees;
        - "second": that split search (``report(SPLIT_SEARCH)``), a large share of the fit kernel's
          compile time (``docs/speed_history.md``), and prediction's kernels (``report(NARROW)``); then the threaded copies.
    """
    if share not in ("all", "first", "second"):
        raise ValueError(f"share must be 'all', 'first' or 'second', got {share!r}.")
    report = report or (lambda stage: None)
    if share == "second":
        from tnt.learn.split_search import _on_features
        from tnt.learn.tree_builder import split_search_types

        _on_features.compile(split_search_types(np.uint8))
        report(SPLIT_SEARCH)
        _load_prediction_code()
        report(NARROW)
        _threaded_fit_kernels(4)
        _threaded_fit_kernels(1100)
        return
    if share == "all":
        _load_prediction_code()
    import tnt.estimator  # noqa: F401 (scikit-learn: imported while the second share compiles)

    _fit_kernels(4)  # one-byte feature codes
    _small_fit()  # the growth loop's own kernels (waves, installs, compaction), a callback's too
    report(NARROW)
    _fit_kernels(300)  # two-byte feature codes
    _small_fit(300)  # the growth loop's walks on two-byte codes
    _small_fit(missing=True)  # the walks that look for missing values
    _fit_kernels(1100)  # two-byte codes, a feature in sorted runs
    _regression_kernels()
    if share == "all":
        _threaded_fit_kernels(4)
        _threaded_fit_kernels(1100)


def _tiny(n_values):
    from tnt.learn.binning import bin_features

    X = np.tile(np.arange(n_values, dtype=np.float32)[:, None], (1, 2))
    y = np.arange(n_values) % 2
    return X, y, bin_features(X), np.arange(n_values), np.ones(n_values)


def _fit_kernels(n_values) -> None:
    from tnt.learn.micro_tree import fit_micro_tree, fit_stump, make_workspace

    _, y, binned, rows, w = _tiny(n_values)
    order = np.arange(2)
    workspace = make_workspace(binned, 2)
    fit_micro_tree(binned, order, rows, y, w, 1e-3, 2, workspace)
    fit_stump(binned, order, rows, y, w, workspace)


def _threaded_fit_kernels(n_values) -> None:
    # The copies of the fit kernel with their parallel kernels, for both criteria: compiled whole,
    # though a tiny fit never takes its parallel branches.
    from tnt.learn.micro_tree import make_workspace
    from tnt.learn.tree_builder import build_tree

    _, y, binned, rows, w = _tiny(n_values)
    workspace = make_workspace(binned, 2, 2)
    for targets, squared in ((y, None), (y.astype(np.float64), True)):
        args = (binned.codes, np.arange(2), rows, targets, w, 2, binned.n_bins, binned.bin_min, binned.bin_max)
        args += (binned.missing_code,)
        build_tree(*args, 1e-3, np.iinfo(np.int64).max, workspace, True, True, squared)


def _regression_kernels() -> None:
    # A regression grow pass fits most micro trees in batches, both criteria (its leaves' and its
    # internal nodes' reduced problems).
    from tnt.learn.micro_tree import fit_regression_tree, fit_trees, make_workspace

    for n_values in (4, 300, 1100):
        _, y, binned, rows, w = _tiny(n_values)
        fit_regression_tree(binned, np.arange(2), rows, y.astype(np.float64), w, 1e-3)
        for targets in (y.astype(np.float64), y):
            fit_trees(
                binned,
                np.arange(2),
                rows,
                targets,
                w,
                [0],
                [rows.size],
                [1e-3],
                [float(w.sum())],
                make_workspace(binned, 2),
            )


def _load_prediction_code() -> None:
    """Prediction's kernels, for every input type it routes without converting it, the routings
    of the fitted graph's statistics and the path statistics."""
    from tnt.learn.routing import (
        count_directions,
        decision_paths,
        edge_statistics,
        route_float32_cast,
        route_past,
        route_to_leaves,
        walk_tables,
    )
    from tnt.learn.structure import count_paths_by_length, distance_ranges, longest_distances

    X = np.tile(np.arange(4, dtype=np.float32)[:, None], (1, 2))
    y, rows, w = np.arange(4) % 2, np.arange(4), np.ones(4)
    left = np.array([1, -1, -1])
    right = np.array([2, -1, -1])
    feature = np.array([0, -2, -2])
    threshold = np.array([0.5, -2.0, -2.0])
    children, walk_feature, is_leaf = walk_tables(left, right, feature)
    missing_left = np.zeros(3, dtype=np.uint8)  # a fitted graph's directions for missing values
    for dtype in (np.float32, np.float64, np.uint8):  # predict routes these without converting them
        route_float32_cast(X.astype(dtype), children, walk_feature, is_leaf, threshold)
        decision_paths(X.astype(dtype), left, right, feature, threshold, missing_left)
    for dtype in (np.float32, np.float64):  # the walk that takes missing values
        route_to_leaves(X.astype(dtype), rows, 0, left, right, feature, threshold, missing_left)
    route_to_leaves(X, rows, 0, left, right, feature, threshold)
    route_past(X, rows, 0, 1, left, right, feature, threshold)
    count_directions(X, 3, left, right, feature, threshold)
    decision_paths(X, left, right, feature, threshold)  # graph reduction
    edge_statistics(X, y, w, 2, left, right, feature, threshold, missing_left)
    longest_distances(left, right)  # the growth loop's waves, the drawings' layers
    shortest, longest = distance_ranges(left, right)  # path statistics
    count_paths_by_length(left, right, shortest, longest, np.arange(3), np.zeros(3, np.int64), np.zeros(2, np.int64))


def _small_fit(n_values: int = 4, missing: bool = False) -> None:
    """A one-thread TnT fit on a few samples of ``n_values`` values per feature (all of them present:
    more than 256 make two-byte codes), with a progress callback taking snapshots; with ``missing``,
    on values some of which are missing (NaN), for the classifier and the regressor (the walks that
    look for missing values)."""
    from tnt.estimator import TnTClassifier
    from tnt.regressor import TnTRegressor

    rng = np.random.default_rng(0)
    X = rng.integers(0, n_values, size=(max(200, 2 * n_values), 3)).astype(np.float64)
    X[:n_values] = np.arange(n_values)[:, None]
    y = (X[:, 0] + X[:, 1] > n_values - 1).astype(np.intp) ^ (X[:, 2] > n_values // 2 - 1)
    if missing:
        X[n_values::7, 1] = np.nan
    TnTClassifier(C=1e-3, random_state=0, n_jobs=1).fit(X, y, progress_callback=lambda event: event.snapshot())
    if missing:
        TnTRegressor(C=1e-3, random_state=0, n_jobs=1).fit(X, y.astype(np.float64))


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
                [sys.executable, "-m", "tnt.learn.warmup", "--background"],
                cwd=_PACKAGE_PARENT,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            threading.Thread(target=_watch, args=(_process,), daemon=True).start()
        return _process


def _watch(process: subprocess.Popen) -> None:
    """Read the warm-up process's output: it says when its first stage is done."""
    for line in process.stdout:
        if line.strip() == NARROW_READY:
            _narrow_ready.set()
    process.wait()
    _narrow_ready.set()


def ready(narrow: bool = False) -> bool:
    """True once :func:`start_in_background`'s process has finished (False if it was never started);
    with ``narrow``, once it has compiled what data of at most 256 values per feature needs."""
    if _process is None:
        return False
    return _narrow_ready.is_set() if narrow else _process.poll() is not None


def wait(narrow: bool = False) -> None:
    """Wait for :func:`start_in_background`'s process, if one was started; with ``narrow``, only
    until it has compiled what data of at most 256 values per feature needs."""
    if _process is None:
        return
    if narrow:
        _narrow_ready.wait()
    else:
        _process.wait()


def needs_wide_codes(X, max_bins: int | None = None) -> bool:
    """Whether a fit gives some column of ``X`` two-byte feature codes: more than 256 distinct values,
    unless the fit's ``max_bins`` (:class:`tnt.TnTClassifier`'s; None: the default) is at most 256."""
    X = np.asarray(X)
    if (max_bins is not None and max_bins <= NARROW_VALUES) or X.ndim != 2 or X.shape[0] <= NARROW_VALUES:
        return False
    return any(np.unique(X[:, j]).size > NARROW_VALUES for j in range(X.shape[1]))


def main(argv=None) -> None:
    """``python -m tnt.learn.warmup``: compile every kernel, on two processes where there are two
    cores and the code is not cached yet.

    The second process (``--second``) says on its output when it has compiled the split search and
    when its part of the first stage is done. This process waits for the first before it loads the
    split search from the cache (:func:`tnt.learn.compiled.load_when_ready`), rather than
    compiling it too, and for the second before it says that the first stage is done. The
    kernels' cache (:mod:`tnt.learn.compiled`) is safe for processes that compile different
    signatures of one kernel at once.

    ``--background`` (first), as :func:`start_in_background` passes it, lowers the priority of both
    processes (``nice`` 10), so that the app's server, busy importing and drawing its first page
    while they compile, goes first (measured in ``docs/speed_history.md``).
    """
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--background"]:
        argv = argv[1:]
        if hasattr(os, "nice"):
            os.nice(10)
    if argv == ["--second"]:  # the helper process of a warm-up
        load_compiled_code(report=lambda stage: print(stage, flush=True), share="second")
        return
    start = time.perf_counter()
    from tnt._parallel import usable_cores
    from tnt.learn.compiled import is_cached, load_when_ready
    from tnt.learn.split_search import _on_features
    from tnt.learn.tree_builder import split_search_types

    # One process where there is one core, or where the code is cached already (it only loads).
    if usable_cores() < 2 or is_cached(_on_features, split_search_types(np.uint8)):
        load_compiled_code(report=lambda stage: print(NARROW_READY, flush=True))
        print(f"TnT's compiled code is ready ({time.perf_counter() - start:.0f} s).")
        return

    helper = subprocess.Popen(
        [sys.executable, "-m", "tnt.learn.warmup", "--second"], cwd=_PACKAGE_PARENT, stdout=subprocess.PIPE, text=True
    )
    said = {SPLIT_SEARCH: threading.Event(), NARROW: threading.Event()}
    threading.Thread(target=_read_stages, args=(helper.stdout, said), daemon=True).start()
    load_when_ready(_on_features, said[SPLIT_SEARCH])

    def report(stage):
        said[NARROW].wait()  # the second process's part of the first stage
        print(NARROW_READY, flush=True)

    try:
        load_compiled_code(report=report, share="first")
        if helper.wait() != 0:
            raise SystemExit(f"TnT's warm-up: its second process failed (exit code {helper.returncode}).")
    finally:
        if helper.poll() is None:
            helper.kill()
    print(f"TnT's compiled code is ready ({time.perf_counter() - start:.0f} s).")


def _read_stages(output, said: dict) -> None:
    """Set ``said[stage]`` for each stage the helper process prints, and all of them once it ends
    (what a failed helper did not compile, this process compiles)."""
    with contextlib.closing(output):
        for line in output:
            if line.strip() in said:
                said[line.strip()].set()
    for event in said.values():
        event.set()


# Compiling makes numba's intermediate representation by the hundred thousand objects (it copies a
# function's IR at every call it inlines), and with the default thresholds the cyclic garbage
# collector walked them over and over: a sixth of the warm-up's compile time (docs/speed_history.md,
# issue 35). The warm-up's processes collect less often (objects without cycles are freed at once
# as always).
COLLECTOR_THRESHOLDS = (100_000, 50, 100)


def run_as_process() -> None:
    """``python -m tnt.learn.warmup``: :func:`main`, the collector's thresholds raised first (only
    in the warm-up's own processes, never in a process that imports this module)."""
    import gc

    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    main()


if __name__ == "__main__":
    run_as_process()
