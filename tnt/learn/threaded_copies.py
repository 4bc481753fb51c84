"""The copies of the fit kernel that scan a node's features on several threads: whether they are
compiled, and compiling them in the background when they are not.

:func:`tnt.learn.tree_builder.build_tree` has a copy for fits that share a large node's features
among threads (:func:`tnt.learn.tree_builder.threaded`), with numba's parallel kernels in it. These
copies are the largest part of the kernels' compile time (about 45 % of it, ``docs/speed.md``), and
only fits on several threads of data large enough to share a node among them take them. So
``pip install`` compiles every kernel but these (``python -m tnt.warmup --install``), and a fit on
several threads whose copies are not compiled yet does not wait for the compiler: it scans each
node on one thread, which gives the same graph (the copies change how a node's features are
scanned, not what is found), while a separate process compiles the copies into numba's cache
(:func:`compile_in_background`, once per process). Fits after it has finished take them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

from tnt.learn.compiled import is_cached
from tnt.learn.micro_tree import NO_DEPTH_LIMIT, build_tree_arguments, make_workspace
from tnt.learn.tree_builder import build_tree

#: Set to "0" to never start the background compile (the fit still runs on one thread meanwhile).
ENVIRONMENT_SWITCH = "TNT_COMPILE_IN_BACKGROUND"

# `-m` puts the working folder first on the path: the process starts in the folder that holds this
# very `tnt`, so that it compiles this copy.
_PACKAGE_PARENT = Path(__file__).resolve().parents[2]

_known: set[tuple] = set()  # argument types whose copy is compiled (in this process or the cache)
_lock = threading.Lock()
_started: list[subprocess.Popen] = []


def copy_types(data, squared: bool | None) -> tuple:
    """numba's types of the arguments with which a fit on ``data`` (:class:`~tnt.learn.binning.BinnedData`)
    calls :func:`tnt.learn.tree_builder.build_tree`'s threaded copy: for class targets (``squared``
    None: the classifier, and a regression's internal nodes) or squared error (True)."""
    rows = np.zeros(1, dtype=np.int64)
    y = np.zeros(1, dtype=np.float64 if squared else np.int64)
    workspace = make_workspace(data, 2, 2)  # two threads' buffers: the types of any number
    arguments = build_tree_arguments(
        data, np.arange(data.codes.shape[1]), rows, y, np.ones(1), 2, 0.0, NO_DEPTH_LIMIT, workspace, True, squared
    )
    return tuple(build_tree.typeof_pyval(a) for a in arguments)


def ready(data, criteria=(None,)) -> bool:
    """Whether the threaded copies a fit on ``data`` with ``criteria`` (``squared`` values, as
    :func:`copy_types` takes them) uses are compiled in this process or in numba's cache."""
    if not hasattr(build_tree, "overloads"):  # NUMBA_DISABLE_JIT: nothing to compile
        return True
    for squared in criteria:
        types = copy_types(data, squared)
        if types in _known:
            continue
        if types not in build_tree.overloads and not is_cached(build_tree, types):
            return False
        _known.add(types)
    return True


def compile_in_background() -> subprocess.Popen | None:
    """Start ``python -m tnt.warmup --background --threads`` (at a lower priority, in a session of
    its own so that it outlives this process), once per process; None where
    :data:`ENVIRONMENT_SWITCH` is "0". Returns the process (the same one on every call)."""
    with _lock:
        if not _started and os.environ.get(ENVIRONMENT_SWITCH, "1") != "0":
            _started.append(
                subprocess.Popen(
                    [sys.executable, "-m", "tnt.warmup", "--background", "--threads"],
                    cwd=_PACKAGE_PARENT,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        return _started[0] if _started else None


def lanes(data, n_threads: int, criteria=(None,)) -> int:
    """The threads a fit on ``n_threads`` shares a large node's features among: ``n_threads`` once
    the threaded copies are compiled, else 1, and their compile is started in the background.
    Copies the warm-up never compiles (those of data with categorical features) are compiled on
    their first call, as every kernel is without a warm-up."""
    if n_threads <= 1 or data.categorical is not None or ready(data, criteria):
        return n_threads
    compile_in_background()
    return 1
