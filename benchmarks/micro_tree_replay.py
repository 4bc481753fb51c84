"""The micro trees of one TnT fit, recorded once and replayed: an A/B of the micro-tree learner's kernels.

Run from the repository root:

    .venv/bin/python benchmarks/micro_tree_replay.py record [--file PATH]
    .venv/bin/python benchmarks/micro_tree_replay.py replay [--file PATH] [--rounds N]

``record`` fits ``TnTClassifier(ccp_alpha=0.0, C=1e-4, n_jobs=1)`` on the benchmark's continuous set with 20 % NaN
in half of its columns (``benchmarks/run.py``'s row) and saves every call of
:func:`tnt.learn.tree_builder.build_tree` with its arguments. ``replay`` runs the saved calls again
in this process, ``--rounds`` times after one untimed round, and prints per round the CPU seconds
of the fits by number of classes and by samples per fit, and a digest of every fitted tree's
arrays. Replaying the same file with two versions of the code, each with its own
``NUMBA_CACHE_DIR``, in alternating processes, compares their kernels on the same fits without
the rest of TnT's fit; equal digests mean that both grew the same trees.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tnt.learn.growth as growth  # noqa: E402
import tnt.learn.micro_tree as micro_tree  # noqa: E402
from tnt import TnTClassifier  # noqa: E402
from tnt.learn.split_search import make_buffers  # noqa: E402
from tnt.learn.tree_builder import build_tree  # noqa: E402

DEFAULT_FILE = Path("/tmp/tnt_micro_tree_calls.npz")
# The arguments of build_tree that are the fit's data, the same object in every call: saved once.
DATA_ARGUMENTS = (0, 6, 7, 8, 9)  # codes, n_bins, bin_min, bin_max, missing_code
WORKSPACE = 12  # the buffers argument, made again per number of classes by replay


def row_data() -> tuple[np.ndarray, np.ndarray]:
    """The continuous row's training data with 20 % NaN in half of its columns, as ``run.py`` makes it."""
    from run import continuous_data, with_missing

    X, y, _, _ = continuous_data()
    return with_missing(X, 0.2, np.arange(0, X.shape[1], 2), 0).astype(np.float64), y


def _digest_update(digest, tree) -> None:
    for array in tree[:6]:
        digest.update(np.ascontiguousarray(array).tobytes())


def record(path: Path, X: np.ndarray, y: np.ndarray) -> str:
    """Fit ``TnTClassifier(ccp_alpha=0.0, C=1e-4, n_jobs=1)`` on ``X, y`` and save every ``build_tree`` call to
    ``path``; returns the digest of the trees those calls grew (:func:`replay_once` gives it again)."""
    fitted = micro_tree.build_tree
    data, calls = {}, []
    digest = hashlib.sha1()

    def recorded(*arguments):
        key = id(arguments[0])
        data.setdefault(key, tuple(arguments[i] for i in DATA_ARGUMENTS))
        # The fit's data and the workspace are not saved with each call (replay fills them in).
        rest = [
            None if i in DATA_ARGUMENTS or i == WORKSPACE else a.copy() if isinstance(a, np.ndarray) else a
            for i, a in enumerate(arguments)
        ]
        calls.append((key, rest))
        tree = fitted(*arguments)
        _digest_update(digest, tree)
        return tree

    micro_tree.build_tree = recorded
    try:
        # One call per micro tree: a wave's batch calls build_tree compiled, where no wrapper sees it.
        with growth.one_call_per_micro_tree():
            model = TnTClassifier(ccp_alpha=0.0, C=1e-4, n_jobs=1, random_state=0).fit(X, y)
    finally:
        micro_tree.build_tree = fitted
    _save(path, data, calls)
    print(f"{len(calls)} micro-tree fits of a TnT fit with {model.n_splits_} splits saved to {path}")
    return digest.hexdigest()[:12]


def _size_class(n: int) -> int:
    """The power of ten at or below ``n`` (1 for 0)."""
    return 10 ** int(np.log10(max(n, 1)))


def _save(path: Path, data: dict, calls: list) -> None:
    """``data`` and ``calls`` in one ``.npz`` file (no pickle): an array argument as it is, a
    number as a 0-d array named apart, None left out."""
    keys = {key: k for k, key in enumerate(data)}
    arrays = {f"data_{keys[key]}_{j}": a for key, values in data.items() for j, a in enumerate(values)}
    arrays["call_data"] = np.array([keys[key] for key, _ in calls], dtype=np.int64)
    arrays["call_length"] = np.array([len(rest) for _, rest in calls], dtype=np.int64)
    for c, (_, rest) in enumerate(calls):
        for a, value in enumerate(rest):
            if value is not None:
                arrays[f"{'array' if isinstance(value, np.ndarray) else 'number'}_{c}_{a}"] = np.asarray(value)
    np.savez(path, **arrays)


def load(path: Path) -> tuple[dict, list]:
    """The fit's data and the calls saved by :func:`record`."""
    with np.load(path, allow_pickle=False) as saved:
        stored = {name: saved[name] for name in saved.files}
    data: dict = {}
    for name in sorted(n for n in stored if n.startswith("data_")):
        _, key, j = name.split("_")
        data.setdefault(int(key), {})[int(j)] = stored[name]
    data = {key: tuple(values[j] for j in sorted(values)) for key, values in data.items()}
    calls = []
    for c, (key, length) in enumerate(zip(stored["call_data"], stored["call_length"])):
        rest = [None] * int(length)
        for a in range(int(length)):
            if f"array_{c}_{a}" in stored:
                rest[a] = stored[f"array_{c}_{a}"]
            elif f"number_{c}_{a}" in stored:
                rest[a] = stored[f"number_{c}_{a}"].item()
        calls.append((int(key), rest))
    return data, calls


def replay_once(data: dict, calls: list, buffers: dict) -> tuple[dict, str]:
    """CPU seconds of the saved fits by (classes, size class), and the digest of their trees;
    ``buffers`` keeps the workspaces from one replay to the next."""
    seconds: dict = {}
    digest = hashlib.sha1()
    for key, arguments in calls:
        arguments = list(arguments)
        for i, value in zip(DATA_ARGUMENTS, data[key]):
            arguments[i] = value
        n_classes = int(arguments[5])
        if n_classes not in buffers:
            buffers[n_classes] = make_buffers(arguments[6], max(n_classes, 2), 1)
        arguments[WORKSPACE] = buffers[n_classes]
        start = time.process_time()
        tree = build_tree(*arguments)
        spent = time.process_time() - start
        group = (n_classes, _size_class(arguments[2].shape[0]))
        seconds[group] = seconds.get(group, 0.0) + spent
        _digest_update(digest, tree)
    return seconds, digest.hexdigest()[:12]


def replay(path: Path, rounds: int) -> None:
    """Replay the fits saved in ``path``: one untimed round, then ``rounds`` timed ones."""
    data, calls = load(path)
    buffers: dict = {}
    replay_once(data, calls, buffers)
    for _ in range(rounds):
        seconds, digest = replay_once(data, calls, buffers)
        by_classes: dict = {}
        for (n_classes, _), spent in seconds.items():
            by_classes[n_classes] = by_classes.get(n_classes, 0.0) + spent
        classes = ", ".join(f"{k} classes {v:.2f} s" for k, v in sorted(by_classes.items()))
        print(f"{len(calls)} fits: {sum(seconds.values()):.2f} s CPU; {classes}; digest {digest}")
        for (n_classes, size), spent in sorted(seconds.items()):
            print(f"    {n_classes} classes, {size:>7} to {10 * size - 1:>7} samples: {spent:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["record", "replay"])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="where the calls are saved")
    parser.add_argument("--rounds", type=int, default=2, help="timed replays after an untimed one")
    options = parser.parse_args()
    if options.step == "record":
        record(options.file, *row_data())
    else:
        replay(options.file, options.rounds)


if __name__ == "__main__":
    main()
