"""Compile (or load from numba's on-disk cache) every kernel ahead of the first ``fit``.

``import tnt`` compiles nothing: each kernel is compiled on its first call, and numba caches the
machine code on disk (next to the sources), so a later process only loads it, in about a second.
On an empty cache the fit kernels take a minute or more to compile, so there are two ways to pay
that before a user waits for it:

- ``python -m tnt.warmup``, which ``pip install`` runs on the package it builds (the
  repository's ``setup.py``), so that an installed package starts with its compiled code;
- :func:`start_in_background`, which the app calls at start: the Data page needs no compiled code
  and is shown at once while the kernels compile in a separate process (a thread would hold the
  server's interpreter lock through numba's compiler and delay every page). The process compiles
  first what the app's default data needs (one-byte codes, one thread), and says so; a training
  on such data waits only for that, then loads its code from the cache.

numba compiles on one core, so with two cores :func:`main` compiles in two processes, and shares
the first stage between them: the second process compiles the fit kernel's split search, then the
growth loop's kernels (with micro trees grown in NumPy, :func:`_growth_kernels`), while the first
compiles prediction's kernels and the rest of the fit kernel, which loads the split search from the
cache once the second process has written it (:func:`tnt.learn.compiled.load_when_ready`).
"""

from __future__ import annotations

import contextlib
import dataclasses
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
NARROW, SPLIT_SEARCH, WIDE, CATEGORICAL = "narrow", "split search", "wide", "categorical"
# Printed by the warm-up process once a stage's kernels are compiled, for the app (:func:`ready`):
# one-thread fits of data with one-byte codes; of any data but categorical features (two-byte
# codes, regression); of categorical features too. The threaded copies come last.
READY_LINES = {
    NARROW: NARROW_READY,
    WIDE: "TnT's compiled code for one-thread fits of any data but categorical features is ready.",
    CATEGORICAL: "TnT's compiled code for fits of categorical features is ready.",
}
# A column with more distinct values than this is coded on 16 bits (tnt.learn.binning), which
# needs the kernels of the warm-up's later stages.
NARROW_VALUES = 256

_stage_ready = {stage: threading.Event() for stage in READY_LINES}

# `-m` puts the working folder first on the path: processes are started from the folder that holds
# this very `tnt`, so that they compile this copy, not a `tnt/` the user stands in.
_PACKAGE_PARENT = Path(__file__).resolve().parent.parent


def load_compiled_code(report=None, share: str = "all", threads: bool = True, wait=None) -> None:
    """Call every kernel once on tiny inputs, so that each is compiled or loaded from the cache.

    First what a fit with one thread on data of at most 256 values per feature (one-byte codes:
    the app's default data) and prediction need, every input type prediction routes without
    converting it included; then ``report(NARROW)`` is called, if given. Then the rest: two-byte
    codes, the walks of fits on data with missing values and on the values of binned features,
    regression trees, and the copies of the fit kernels with their parallel kernels
    (:func:`tnt.learn.tree_builder.threaded`), which only fits on several threads use.

    Parameters
    ----------
    report : callable, optional
        Called with the name of each stage done: ``NARROW``; in the second share ``SPLIT_SEARCH``
        before it; in the first share with ``threads`` False, ``WIDE`` after it.
    share : {"all", "first", "second", "threads"}, default="all"
        :func:`main` runs the two shares in two processes at once, as numba compiles on one core.
        The first stage is split between them:

        - "first": prediction's kernels and the path statistics', then the fit on one thread and
          one-byte codes, whose split search, pruning and growth loop's kernels it loads from the
          cache (``report(NARROW)``); then the classifier's batches of micro trees on one-byte
          codes (:func:`_class_batches`; with ``threads`` False, the second share's), the fit
          kernels of two-byte codes, the walks and the regression trees. With ``threads`` False,
          the growth loop's kernels are compiled here; after the fit kernels of two-byte codes, the
          regression trees' batches of class targets (``report(WIDE)``), then the walks, but those
          of one-byte codes through cut bins;
        - "second": that split search (``report(SPLIT_SEARCH)``), a large share of the fit
          kernel's compile time (``docs/speed_history.md``), then the growth loop's kernels and
          the pruning (:func:`_growth_kernels`, ``report(NARROW)``); then the threaded copies. With
          ``threads`` False, the split search, then the regression trees' squared-error kernels,
          the classifier's walks that look for missing values and its batches on one-byte codes,
          then, after ``wait(WIDE)``, the walks of one-byte codes through cut bins (the two shares
          end within a few seconds of each other: ``docs/speed_history.md``);
        - "threads": the threaded copies alone (:mod:`tnt.learn.threaded_copies`).
    threads : bool, default=True
        Whether the copies of the fit kernel that scan a node on several threads are compiled:
        ``pip install`` leaves them out (``python -m tnt.warmup --install``), as the first fit that
        would take them starts their compile in the background and runs on one thread meanwhile.
        The kernels of fits with categorical features (:func:`_categorical_fits`, last in the first
        share) go with them: the install leaves them out, the app's background warm-up compiles them
        (``report(CATEGORICAL)``, after ``report(WIDE)``: both only with ``threads``).
    wait : callable, optional
        Called by the second share with ``threads`` False with ``WIDE``: returns once the first
        share has reported it (or failed), so that the kernels it compiled are loaded, not compiled
        again.
    """
    if share not in ("all", "first", "second", "threads"):
        raise ValueError(f"share must be 'all', 'first', 'second' or 'threads', got {share!r}.")
    report = report or (lambda stage: None)
    wait = wait or (lambda stage: None)
    if share == "threads":
        _threaded_fit_kernels(4)
        _threaded_fit_kernels(1100)
        return
    if share == "second":
        from tnt.learn.split_search import _on_features
        from tnt.learn.tree_builder import split_search_types

        _on_features.compile(split_search_types(np.uint8))
        report(SPLIT_SEARCH)
        if threads:  # without the threaded copies, the first share compiles them (no one waits)
            _growth_kernels()
        report(NARROW)
        if threads:
            _threaded_fit_kernels(4)
            _threaded_fit_kernels(1100)
            return
        # Without the threaded copies (the install), the balance of the two shares: the regression
        # trees' squared-error kernels (the first share's fits with the regressor load them), then,
        # once the first share has cached the fit kernels of two-byte codes, the walks through cut
        # bins, whose fits take both.
        _regression_kernels(criteria=("squared",))
        _small_fit(missing=True, models="classifier")  # the walks that look for missing values
        _class_batches(4)  # their fit kernel of one-byte codes loaded by the fit above
        wait(WIDE)
        _cut_bin_walks()
        return
    import tnt.estimator  # noqa: F401 (scikit-learn)

    # Before the fit kernel: in the first share, the second process compiles its split search
    # meanwhile, then the growth loop's kernels and the pruning of micro trees, which this share
    # loads last.
    _load_prediction_code()
    _load_statistics_code()
    _fit_kernels(4)  # one-byte feature codes, one thread
    _small_fit()  # the growth loop's own kernels (waves, installs, compaction), a callback's too
    report(NARROW)
    install_share = share == "first" and not threads
    if not install_share:  # else the second share compiles them, once it has loaded their fit kernel
        # A classification pass on one-byte codes (MNIST, pendigits, the app's default data) fits a
        # wave's micro trees in one call only once these are compiled; the first training does without.
        _class_batches(4)
    # Two-byte codes (one copy, with sorted runs or not: tnt.learn.tree_builder.with_runs), which
    # the classifier's and the regressor's fits on two-byte codes all call.
    _fit_kernels(WIDE_VALUES[0])
    if install_share:  # the second share's walks through cut bins wait for these
        _regression_kernels(criteria=("class",))
        report(WIDE)
    _small_fit(300)  # the growth loop's walks on two-byte codes
    # The walks that look for missing values: one-byte codes (the classifier), two-byte codes (the
    # regressor); with the threaded copies left out, the second share fits the classifier.
    _small_fit(missing=True, models="regressor" if install_share else "both")
    if not install_share:  # else the second share compiles them
        _cut_bin_walks()
        _regression_kernels()
        report(WIDE)  # what a one-thread fit of any data without categorical features needs
    if threads:  # as the threaded copies, left out of the install: categorical features' kernels
        _categorical_fits(4)
        _categorical_fits(WIDE_VALUES[0])
        report(CATEGORICAL)
    if share == "all" and threads:
        _threaded_fit_kernels(4)
        _threaded_fit_kernels(1100)


def growth_kernels() -> tuple:
    """The kernels :func:`_growth_kernels` compiles besides the binning's (which the first share
    compiles first, for its tiny fits): the first share loads them once the second has cached them.
    They include the routings of the statistics (``edge_statistics``, ``count_directions``) and the
    layers (``longest_distances``) of a callback's snapshots and of the fitted graph."""
    from tnt.learn import routing, tree_builder, walks, wave_routing, working_graph

    return (
        tree_builder.pruned_tree,
        wave_routing.bucket_rows,
        wave_routing.update_code_thresholds,
        wave_routing.sensitive_samples,
        wave_routing.move_samples,
        working_graph._write_tree,
        working_graph._bypass_dead,
        walks._topological_order,
        walks.longest_distances,
        routing.count_directions,
        routing.edge_statistics,
    )


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


def _class_batches(n_values) -> None:
    """The batch kernel of class targets (:func:`tnt.learn.micro_tree.fit_trees`) on codes of
    ``n_values`` values: a classification pass takes it only once compiled
    (:func:`tnt.learn.micro_tree.batches_ready`), and else fits each micro tree in a call of its own."""
    from tnt.learn.micro_tree import fit_trees, make_workspace

    _, y, binned, rows, w = _tiny(n_values)
    fit_trees(binned, np.arange(2), rows, y, w, [0], [rows.size], [1e-3], [float(w.sum())], make_workspace(binned, 2))


def _threaded_fit_kernels(n_values) -> None:
    # The copies of the fit kernel with their parallel kernels, for both criteria: compiled whole,
    # though a tiny fit never takes its parallel branches.
    from tnt.learn.micro_tree import NO_DEPTH_LIMIT, make_workspace
    from tnt.learn.tree_builder import build_tree

    _, y, binned, rows, w = _tiny(n_values)
    workspace = make_workspace(binned, 2, 2)
    for targets, squared in ((y, None), (y.astype(np.float64), True)):
        args = (binned.codes, np.arange(2), rows, targets, w, 2, binned.n_bins, binned.bin_min, binned.bin_max)
        args += (binned.missing_code,)
        build_tree(*args, 1e-3, NO_DEPTH_LIMIT, workspace, True, True, squared, None)


# The tiny fits' numbers of values for two-byte codes: a feature in sorted runs (the copy of
# two-byte codes, which also fits those without: tnt.learn.tree_builder.with_runs).
WIDE_VALUES = (1100,)


def _regression_kernels(values=WIDE_VALUES, criteria=("squared", "class")) -> None:
    # A regression grow pass fits most micro trees in batches, both criteria (its leaves' and its
    # internal nodes' reduced problems), on two-byte codes only (RegressionProblem.two_byte_codes).
    from tnt.learn.micro_tree import fit_regression_tree, fit_trees, make_workspace

    for n_values in values:
        _, y, binned, rows, w = _tiny(n_values)
        if "squared" in criteria:
            fit_regression_tree(binned, np.arange(2), rows, y.astype(np.float64), w, 1e-3)
        for targets in [y.astype(np.float64)] * ("squared" in criteria) + [y] * ("class" in criteria):
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


def _cut_bin_walks() -> None:
    """The growth loop's walks on one-byte codes where a split cuts a quantile bin (``max_bins`` set),
    which read the values of the cut bins' samples (:func:`tnt.learn.wave_routing.cut_routing`), with
    and without missing values; those of two-byte codes always read them, and come with their fits."""
    for missing in (False, True):
        _small_fit(300, missing, max_bins=16)


def _categorical_fits(n_values: int = 4) -> None:
    """A fit and predictions with a categorical feature (split by subsets of its categories) beside a
    numeric one of ``n_values`` values (more than 256: two-byte codes, a feature in sorted runs),
    for the classifier and the regressor: their fit kernels of categorical codes, and the
    classifier's batches of class targets, which a classification pass takes only once compiled
    (:func:`tnt.learn.micro_tree.batches_ready`); with a progress callback taking snapshots, as the
    app's fits have."""
    from tnt.estimator import TnTClassifier
    from tnt.learn.binning import bin_features
    from tnt.learn.micro_tree import fit_trees, make_workspace
    from tnt.regressor import TnTRegressor

    n = max(200, 2 * n_values)
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 5, n), np.arange(n) % n_values]).astype(np.float64)
    y = ((X[:, 0] % 2 == 0) ^ (X[:, 1] > n_values // 2)).astype(np.intp)
    options = dict(C=1e-3, random_state=0, n_jobs=1, categorical_features=[0])
    model = TnTClassifier(**options).fit(X, y, progress_callback=lambda event: event.snapshot())
    model.predict(X), model.decision_depth(X)
    TnTRegressor(**options).fit(X, y.astype(np.float64)).predict(X)
    # The batches of a classification pass (the fits above ran one call per micro tree).
    binned = dataclasses.replace(bin_features(X.astype(np.float32)), categorical=np.array([1, 0], dtype=np.uint8))
    rows = np.arange(n)
    fit_trees(binned, np.arange(2), rows, y[rows], np.ones(n), [0], [n], [1e-3], [float(n)], make_workspace(binned, 2))


def _tiny_graph():
    """A one-split graph's arrays for prediction's kernels: a feature matrix, targets, weights, rows,
    then the children, features, thresholds and directions of missing values."""
    X = np.tile(np.arange(4, dtype=np.float32)[:, None], (1, 2))
    left = np.array([1, -1, -1])
    right = np.array([2, -1, -1])
    feature = np.array([0, -2, -2])
    threshold = np.array([0.5, -2.0, -2.0])
    missing_left = np.zeros(3, dtype=np.uint8)  # a fitted graph's directions for missing values
    return X, np.arange(4) % 2, np.ones(4), np.arange(4), left, right, feature, threshold, missing_left


def _load_prediction_code() -> None:
    """Prediction's kernels, for every input type it routes without converting it."""
    from tnt.learn.routing import decision_paths, route_float32_cast, route_to_leaves, walk_tables

    X, _, _, rows, left, right, feature, threshold, missing_left = _tiny_graph()
    children, walk_feature, is_leaf = walk_tables(left, right, feature)
    for dtype in (np.float32, np.float64, np.uint8):  # predict routes these without converting them
        route_float32_cast(X.astype(dtype), children, walk_feature, is_leaf, threshold)
        decision_paths(X.astype(dtype), left, right, feature, threshold, missing_left)
    for dtype in (np.float32, np.float64):  # the walk that takes missing values
        route_to_leaves(X.astype(dtype), rows, 0, left, right, feature, threshold, missing_left)
    route_to_leaves(X, rows, 0, left, right, feature, threshold)


def _load_statistics_code() -> None:
    """The routings of the fitted graph's statistics, the path statistics and the walks to a node's
    descendants and ancestors, but those a fit with a progress callback also runs (:func:`growth_kernels`)."""
    from tnt.learn.routing import decision_paths, route_past
    from tnt.learn.walks import ancestors, count_paths_by_length, descendants, distance_ranges

    X, _, _, rows, left, right, feature, threshold, _ = _tiny_graph()
    route_past(X, rows, 0, 1, left, right, feature, threshold)
    decision_paths(X, left, right, feature, threshold)  # graph reduction
    shortest, longest = distance_ranges(left, right)  # path statistics
    count_paths_by_length(left, right, shortest, longest, np.arange(3), np.zeros(3, np.int64), np.zeros(2, np.int64))
    descendants(left, right, 0), ancestors(left, right, 2)  # the graph's walks (the explorer, edits)


def _small_fit(
    n_values: int = 4, missing: bool = False, max_bins: int | None = None, size="auto", models: str = "both"
) -> None:
    """A one-thread TnT fit on a few samples of ``n_values`` values per feature (all of them present:
    more than 256 make two-byte codes), with a progress callback taking snapshots; with ``missing``,
    on values some of which are missing (NaN), for the classifier and the regressor (the walks that
    look for missing values). With fewer ``max_bins`` than values (default: the estimators'), the
    features are cut into quantile bins and some micro trees' thresholds cut one, so the growth
    loop's walks read the values of those bins' samples besides the codes; the regressor is fitted
    too. ``size`` is their ``ccp_alpha`` (the default's walks besides the growth's); ``models``
    "classifier" or "regressor" fits that one only."""
    from tnt.estimator import TnTClassifier
    from tnt.regressor import TnTRegressor

    rng = np.random.default_rng(0)
    X = rng.integers(0, n_values, size=(max(200, 2 * n_values), 3)).astype(np.float64)
    X[:n_values] = np.arange(n_values)[:, None]
    y = (X[:, 0] + X[:, 1] > n_values - 1).astype(np.intp) ^ (X[:, 2] > n_values // 2 - 1)
    if missing:
        X[n_values::7, 1] = np.nan
    options = dict(C=1e-3, random_state=0, n_jobs=1, ccp_alpha=size) | (
        {} if max_bins is None else {"max_bins": max_bins}
    )
    if models != "regressor":
        TnTClassifier(**options).fit(X, y, progress_callback=lambda event: event.snapshot())
    if models == "regressor" or (models == "both" and (missing or max_bins is not None)):
        TnTRegressor(**options).fit(X, y.astype(np.float64))


def _growth_kernels() -> None:
    """The growth loop's own kernels (waves, installs, compaction), the pruning of micro trees, the
    binning's and those of a callback's snapshots, without the fit kernel: :func:`_small_fit` with
    every micro tree grown by :func:`_numpy_stump` instead of
    :func:`tnt.learn.tree_builder.build_tree`, so that the warm-up's second process compiles them
    while the first compiles the fit kernel. They are compiled for the argument types a real fit
    passes them, whatever trees it installs."""
    from tnt.learn import growth, micro_tree

    fit_kernel = micro_tree.build_tree
    micro_tree.build_tree = _numpy_stump
    try:
        # The growth alone (C's size): the default size's walk of held-out rows (route_to_leaves) is
        # the first share's, which routes samples to leaves anyway. Each micro tree by its own call,
        # whatever the cache holds: a wave's batch (tnt.learn.micro_tree.fit_trees) is compiled code
        # that calls the real fit kernel.
        with growth.one_call_per_micro_tree():
            _small_fit(size=0.0)
    finally:
        micro_tree.build_tree = fit_kernel


def _numpy_stump(codes, feature_order, rows, y, w, n_classes, n_bins, bin_min, bin_max, *unused) -> tuple:
    """A stand-in for :func:`tnt.learn.tree_builder.build_tree` (Gini, no missing values) in NumPy:
    its arrays, of the same types, for a split of the first feature of ``feature_order`` at its
    samples' median code (a leaf if they all share one), nodes numbered root, left, right."""
    f = int(feature_order[0])
    column = codes[rows, f]
    cut = int(np.median(column))
    goes_left = column <= cut
    everyone = np.ones(rows.size, dtype=bool)
    if goes_left.all():
        sides, left, right, feature, threshold = [everyone], [-1], [-1], [-2], [-2.0]
    else:
        sides, left, right, feature = [everyone, goes_left, ~goes_left], [1, -1, -1], [2, -1, -1], [f, -2, -2]
        threshold = [float(bin_max[f, cut]) / 2 + float(bin_min[f, cut + 1]) / 2, -2.0, -2.0]
    value = np.array([np.bincount(y[side], w[side], minlength=n_classes) for side in sides], dtype=np.float64)
    left, right, feature = (np.array(a, dtype=np.int64) for a in (left, right, feature))
    from tnt.learn.tree_builder import SUBSET_WORDS

    subsets = np.zeros((0, SUBSET_WORDS), dtype=np.uint64)
    return (
        left,
        right,
        feature,
        np.array(threshold),
        np.zeros(len(sides), dtype=np.uint8),
        value,
        float(w.sum()),
        subsets,
    )


def start_in_background() -> subprocess.Popen:
    """Run ``python -m tnt.warmup`` in a separate process, once per process.

    Returns
    -------
    process : subprocess.Popen
        The same process on every call; :func:`ready` says whether it has finished.
    """
    global _process
    with _lock:
        if _process is None:
            # It compiles the threaded copies too: the server's fits start no second compile of them.
            os.environ["TNT_COMPILE_IN_BACKGROUND"] = "0"
            _process = subprocess.Popen(
                [sys.executable, "-m", "tnt.warmup", "--background"],
                cwd=_PACKAGE_PARENT,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            threading.Thread(target=_watch, args=(_process,), daemon=True).start()
        return _process


def _watch(process: subprocess.Popen) -> None:
    """Read the warm-up process's output: it says when each stage of :data:`READY_LINES` is done."""
    stage_of = {line: stage for stage, line in READY_LINES.items()}
    for line in process.stdout:
        stage = stage_of.get(line.strip())
        if stage is not None:
            _stage_ready[stage].set()
    process.wait()
    for event in _stage_ready.values():
        event.set()


def ready(stage: str | None = None) -> bool:
    """True once :func:`start_in_background`'s process has finished (False if it was never started);
    with a ``stage`` of :data:`READY_LINES`, once it has compiled that stage's kernels (``NARROW``:
    what data of at most 256 values per feature needs)."""
    if _process is None:
        return False
    return _process.poll() is not None if stage is None else _stage_ready[stage].is_set()


def wait(stage: str | None = None) -> None:
    """Wait for :func:`start_in_background`'s process, if one was started; with a ``stage``, only
    until it has compiled what :func:`ready` says."""
    if _process is None:
        return
    if stage is None:
        _process.wait()
    else:
        _stage_ready[stage].wait()


def needs_wide_codes(X, max_bins: int | None = None) -> bool:
    """Whether a fit gives some column of ``X`` two-byte feature codes: more than 256 distinct values,
    unless the fit's ``max_bins`` (:class:`tnt.TnTClassifier`'s; None: the default) is at most 256."""
    X = np.asarray(X)
    if (max_bins is not None and max_bins <= NARROW_VALUES) or X.ndim != 2 or X.shape[0] <= NARROW_VALUES:
        return False
    return any(np.unique(X[:, j]).size > NARROW_VALUES for j in range(X.shape[1]))


def main(argv=None) -> None:
    """``python -m tnt.warmup``: compile every kernel, on two processes where there are two
    cores and the code is not cached yet.

    The second process (``--second``), started first on an empty cache, says on its output when it has compiled the split search and
    when its part of the first stage (then the growth loop's kernels) is done. This process
    compiles prediction's kernels meanwhile, then the fit kernel; it waits for the first word
    before it loads the split search from the cache (:func:`tnt.learn.compiled.load_when_ready`),
    and for the second before it loads the growth loop's kernels (:func:`growth_kernels`), rather
    than compiling them too, and before it says that the first stage is done. The
    kernels' cache (:mod:`tnt.learn.compiled`) is safe for processes that compile different
    signatures of one kernel at once.

    ``--background`` (first), as :func:`start_in_background` passes it, lowers the priority of both
    processes (``nice`` 10), so that the app's server, busy importing and drawing its first page
    while they compile, goes first (measured in ``docs/speed_history.md``).

    ``--install`` (what ``pip install`` runs, ``setup.py``) leaves out the copies of the fit kernel
    that scan a node on several threads, nearly half of the compile time, and shares the rest
    evenly between the two processes; ``--threads`` compiles those copies alone (what the first fit
    that would take them starts in the background: :mod:`tnt.learn.threaded_copies`).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--background"]:
        argv = argv[1:]
        if hasattr(os, "nice"):
            os.nice(10)
    threads = "--install" not in argv
    argv = [arg for arg in argv if arg != "--install"]
    if argv == ["--threads"]:
        load_compiled_code(share="threads")
        return
    if argv == ["--second"]:  # the helper process of a warm-up
        wait = None
        if not threads:  # the first process says on this one's input when its stage WIDE is done
            from tnt.learn.compiled import COMPILED_ELSEWHERE_TIMEOUT

            said = {WIDE: threading.Event()}
            threading.Thread(target=_read_stages, args=(sys.stdin, said), daemon=True).start()
            wait = lambda stage: said[stage].wait(COMPILED_ELSEWHERE_TIMEOUT)  # noqa: E731
        report = lambda stage: print(stage, flush=True)  # noqa: E731
        load_compiled_code(report=report, share="second", threads=threads, wait=wait)
        return
    if argv:
        raise SystemExit(f"TnT's warm-up takes --background, --install, --threads or nothing, not {' '.join(argv)}.")
    start = time.perf_counter()
    from tnt._parallel import usable_cores

    # The second process has the longer way (the split search, then the growth loop's kernels): on
    # an empty cache it starts before this one imports numba to see whether the code is cached.
    two_cores = usable_cores() >= 2
    helper = _start_second_process(threads) if two_cores and not _cache_index_found() else None
    try:
        from tnt.learn.compiled import is_cached, load_when_ready
        from tnt.learn.split_search import _on_features
        from tnt.learn.tree_builder import split_search_types

        # One process where there is one core, or where the code is cached already (it only loads).
        if not two_cores or is_cached(_on_features, split_search_types(np.uint8)):
            if helper is not None:
                helper.kill()
                helper.communicate()
                helper = None
            load_compiled_code(report=_say, threads=threads)
        else:
            helper = helper or _start_second_process(threads)
            said = {SPLIT_SEARCH: threading.Event(), NARROW: threading.Event()}
            threading.Thread(target=_read_stages, args=(helper.stdout, said), daemon=True).start()
            load_when_ready(_on_features, said[SPLIT_SEARCH])
            if threads:  # else this process compiles them (the first share without the threaded copies)
                for compiled_there in growth_kernels():
                    load_when_ready(compiled_there, said[NARROW])

            def report(stage):
                if stage == WIDE and not threads:  # the second process waits for it
                    _tell(helper, stage)
                    return
                said[NARROW].wait()  # the second process's part of the first stage
                _say(stage)

            load_compiled_code(report=report, share="first", threads=threads)
            if helper.wait() != 0:
                raise SystemExit(f"TnT's warm-up: its second process failed (exit code {helper.returncode}).")
    finally:
        if helper is not None and helper.poll() is None:
            helper.kill()
    print(f"TnT's compiled code is ready ({time.perf_counter() - start:.0f} s).")


def _say(stage: str) -> None:
    """Print the line of :data:`READY_LINES` that says ``stage`` is done (the app reads it)."""
    if stage in READY_LINES:
        print(READY_LINES[stage], flush=True)


def _start_second_process(threads: bool = True) -> subprocess.Popen:
    command = [sys.executable, "-m", "tnt.warmup", "--second"] + ([] if threads else ["--install"])
    return subprocess.Popen(command, cwd=_PACKAGE_PARENT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _tell(helper: subprocess.Popen, stage: str) -> None:
    """Write ``stage`` on the second process's input (which it reads in :func:`main`); nothing if it
    has ended."""
    with contextlib.suppress(OSError, ValueError):
        helper.stdin.write(stage + "\n")
        helper.stdin.flush()


def _cache_index_found() -> bool:
    """Whether numba's index of the split search's cached code is in a folder where numba keeps
    this package's cache (``NUMBA_CACHE_DIR``'s, else the package's ``__pycache__`` or the user's
    cache folder), looked for without importing numba. If so, the warm-up reads the cache before it
    starts a second process, which a cached start does not need (starting and stopping it delayed
    the app's first training by about a second); an index of older sources only costs the second
    process that head start."""
    pattern = "split_search._on_features-*.nbi"
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if folder:
        return any(Path(folder).glob(f"*/{pattern}"))
    users = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba"
    return any(Path(__file__).parent.joinpath("__pycache__").glob(pattern)) or any(users.glob(f"*/{pattern}"))


def _read_stages(output, said: dict) -> None:
    """Set ``said[stage]`` for each stage the other process writes on ``output``, and all of them once
    it ends (what a failed process did not compile, this one compiles)."""
    with contextlib.closing(output), contextlib.suppress(OSError, ValueError):  # an input not to read
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
    """``python -m tnt.warmup``: :func:`main`, the collector's thresholds raised first (only
    in the warm-up's own processes, never in a process that imports this module)."""
    import gc

    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    main()


if __name__ == "__main__":
    run_as_process()
