"""The kernels' on-disk cache (tnt.learn.compiled): processes that compile different signatures of one
kernel at once, or die between writes, never leave an index naming the wrong machine code."""

import importlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from numba.core.caching import IndexDataCacheFile
from numba.core.dispatcher import Dispatcher

import tnt.learn
from tnt.learn.compiled import CheckedCacheFile

ROOT = Path(__file__).resolve().parent.parent
KEY_A = (("int64", "int64"), ("x86_64", "cpu"), ("code", "cells"))
KEY_B = (("float64", "float64"), ("x86_64", "cpu"), ("code", "cells"))


def cache_file(folder, cls=CheckedCacheFile, stamp=(1.0, 100)):
    return cls(cache_path=str(folder), filename_base="module.kernel-10.py311", source_stamp=stamp)


def test_a_saved_signature_loads_back_and_an_unknown_one_is_a_miss(tmp_path):
    cache_file(tmp_path).save(KEY_A, "code for A")
    assert cache_file(tmp_path).load(KEY_A) == "code for A"
    assert cache_file(tmp_path).load(KEY_B) is None


def test_two_writers_saving_different_signatures_at_once_keep_both(tmp_path, monkeypatch):
    # Each writer is slowed inside its write, so that without a lock both would read the index
    # before the other writes it and take the same data file.
    write = CheckedCacheFile._save_data

    def slow_write(self, name, data):
        time.sleep(0.3)
        write(self, name, data)

    monkeypatch.setattr(CheckedCacheFile, "_save_data", slow_write)
    start = threading.Barrier(2)

    def writer(key, data):
        start.wait()
        cache_file(tmp_path).save(key, data)

    threads = [threading.Thread(target=writer, args=args) for args in ((KEY_A, "code for A"), (KEY_B, "code for B"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reader = cache_file(tmp_path)
    assert reader.load(KEY_A) == "code for A"
    assert reader.load(KEY_B) == "code for B"
    assert len(list(tmp_path.glob("*.nbc"))) == 2


def test_an_index_naming_another_signatures_data_is_a_miss_not_that_code(tmp_path):
    # What numba's own writer can leave after a race: the index names A's data file for B.
    checked = cache_file(tmp_path)
    checked.save(KEY_A, "code for A")
    overloads = checked._load_index()
    checked._save_index({**overloads, KEY_B: overloads[KEY_A]})
    assert cache_file(tmp_path).load(KEY_B) is None
    assert cache_file(tmp_path).load(KEY_A) == "code for A"


def test_files_written_by_numbas_own_cache_are_compiled_again(tmp_path):
    cache_file(tmp_path, IndexDataCacheFile).save(KEY_A, "code for A")
    assert cache_file(tmp_path).load(KEY_A) is None
    cache_file(tmp_path).save(KEY_A, "code for A, checked")
    assert cache_file(tmp_path).load(KEY_A) == "code for A, checked"


def test_data_another_numba_wrote_under_the_same_key_is_a_miss(tmp_path, monkeypatch):
    """Two numba versions sharing one __pycache__ each take data file 1 for the same key (each reads
    the other's index as empty): a reader finding the other version's code there compiles again."""
    import tnt.learn.compiled as compiled

    cache_file(tmp_path).save(KEY_A, "code for A")
    index = cache_file(tmp_path)._load_index()
    monkeypatch.setattr(compiled, "_MARK", compiled._MARK.replace("numba-", "numba-0.0."))
    cache_file(tmp_path)._save_data(index[KEY_A], (compiled._MARK, KEY_A, "another numba's code for A"))
    monkeypatch.undo()
    assert cache_file(tmp_path).load(KEY_A) is None


def test_a_writer_dying_between_data_and_index_leaves_the_index_as_it_was(tmp_path, monkeypatch):
    cache_file(tmp_path).save(KEY_A, "code for A")

    def die(self, overloads):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(CheckedCacheFile, "_save_index", die)
        with pytest.raises(KeyboardInterrupt):
            cache_file(tmp_path).save(KEY_B, "code for B")
    assert cache_file(tmp_path).load(KEY_B) is None
    assert cache_file(tmp_path).load(KEY_A) == "code for A"
    cache_file(tmp_path).save(KEY_B, "code for B")
    assert cache_file(tmp_path).load(KEY_B) == "code for B"


@pytest.mark.parametrize("damaged", ["index", "data"])
def test_truncated_or_garbled_files_are_a_miss(tmp_path, damaged):
    cache_file(tmp_path).save(KEY_A, "code for A")
    (path,) = tmp_path.glob("*.nbi" if damaged == "index" else "*.nbc")
    path.write_bytes(path.read_bytes()[:7])
    assert cache_file(tmp_path).load(KEY_A) is None
    cache_file(tmp_path).save(KEY_A, "code for A")
    assert cache_file(tmp_path).load(KEY_A) == "code for A"


def test_a_stale_index_from_an_older_source_is_ignored(tmp_path):
    cache_file(tmp_path, stamp=(1.0, 100)).save(KEY_A, "old code for A")
    assert cache_file(tmp_path, stamp=(2.0, 120)).load(KEY_A) is None
    cache_file(tmp_path, stamp=(2.0, 120)).save(KEY_B, "new code for B")
    assert cache_file(tmp_path, stamp=(2.0, 120)).load(KEY_B) == "new code for B"


def test_tnt_imports_and_runs_a_kernel_with_numba_compilation_disabled():
    # NUMBA_DISABLE_JIT=1 (for debugging kernels in Python) makes njit return the plain function.
    import numpy as np

    from tnt.learn.binning import bin_features

    X = np.arange(12.0).reshape(4, 3) % 5
    code = (
        "import numpy as np, tnt\nfrom tnt.learn.binning import bin_features\n"
        "print(bin_features(np.arange(12.0).reshape(4, 3) % 5).codes.tolist())"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == str(bin_features(X).codes.tolist())


def test_every_cached_kernel_of_tnt_uses_the_checked_cache():
    dispatchers = []
    for info in pkgutil.iter_modules(tnt.learn.__path__):
        module = importlib.import_module(f"tnt.learn.{info.name}")
        dispatchers += [value for value in vars(module).values() if isinstance(value, Dispatcher)]
    assert len(dispatchers) > 40
    unchecked = [d.py_func.__qualname__ for d in dispatchers if not isinstance(d._cache._cache_file, CheckedCacheFile)]
    assert unchecked == []


def _first_of(values, helper):
    return helper(values)


def _first(values):
    return values[0]


def test_a_kernel_compiled_without_reference_counting_calls_none_of_numbas_counters():
    import numpy as np
    from numba.core.caching import NullCache

    from tnt.learn.compiled import kernel

    helper = kernel(inline="always")(_first)
    llvm = {}
    for counts in (True, False):
        dispatcher = kernel(counts_references=counts)(_first_of)
        dispatcher._cache = NullCache()  # compiled here, so that its LLVM code can be read
        assert dispatcher(np.arange(3.0), helper) == 0.0
        llvm[counts] = "".join(dispatcher.inspect_llvm().values())
    # The inlined helper's argument is counted (numba 0.62 prunes the increment, keeps the decrement).
    assert "NRT_incref" in llvm[True] or "NRT_decref" in llvm[True]
    assert "NRT_incref" not in llvm[False] and "NRT_decref" not in llvm[False]


def test_the_split_search_steps_count_no_references():
    # The steps' loops over features are inlined into _feature_work, which counts no references,
    # and so does every kernel they call once per feature.
    from tnt.learn import split_search

    apart = ["_feature_work", "_fill_and_scan", "_scan_stored", "_accumulate", "_second_pass", "_second_pass_of_bits"]
    assert [getattr(split_search, name).targetoptions.get("_nrt") for name in apart] == [False] * len(apart)
    inlined = [
        "_scan_features",
        "_fill_and_scan_features",
        "_scan_stored_features",
        "_subtract_features",
        "_scan_feature",
    ]
    assert [getattr(split_search, name).targetoptions.get("inline") for name in inlined] == ["always"] * len(inlined)


LEARN = ROOT / "tnt" / "learn"


def reference_imports() -> dict[str, set[str]]:
    """Per module of the tnt package (by dotted name), the tnt modules it imports, read with a regular
    expression (the reference for :func:`tnt.learn.compiled.imported_sources`, which reads the syntax
    tree)."""
    package = ROOT / "tnt"

    def dotted(path: Path) -> str:
        return ".".join(path.relative_to(ROOT).with_suffix("").parts)

    def exists(name: str) -> bool:
        return (ROOT / (name.replace(".", "/") + ".py")).exists()

    found = {}
    for path in package.rglob("*.py"):
        text = path.read_text()
        names = set(re.findall(r"from (tnt(?:\.\w+)+) import", text))
        for group in re.findall(r"from tnt\.learn import \(?([\w, \n]+)\)?", text):
            names |= {"tnt.learn." + n.strip() for n in group.replace("\n", ",").split(",") if n.strip()}
        found[dotted(path)] = {n for n in names if exists(n)}
    return found


def reference_closure(module: str, imports: dict) -> set[str]:
    seen, todo = {module}, [module]
    while todo:
        for name in imports[todo.pop()] - seen:
            seen.add(name)
            todo.append(name)
    return seen


def kernel_modules() -> list[str]:
    """The modules of tnt/learn that define a kernel."""
    return sorted(p.stem for p in LEARN.glob("*.py") if "@kernel" in p.read_text() and p.stem != "compiled")


def test_a_kernels_stamp_covers_its_module_and_every_module_it_imports():
    # build_tree's code holds the split search it inlines from split_search.py: a stamp of its own
    # file alone let code compiled against an older split search load (and segfault).
    from tnt.learn import compiled
    from tnt.learn.tree_builder import build_tree

    source = build_tree.py_func.__code__.co_filename
    assert build_tree._cache._cache_file._source_stamp == compiled.kernel_source_stamp(source)
    imports, checked = reference_imports(), 0
    for module in kernel_modules():
        got = {
            ".".join(p.relative_to(ROOT).with_suffix("").parts)
            for p in compiled.imported_sources(LEARN / f"{module}.py")
        }
        assert got == reference_closure(f"tnt.learn.{module}", imports), module
        checked += 1
    assert checked >= 10
    assert "split_search" in {p.stem for p in compiled.imported_sources(source)}


def test_an_edit_changes_the_stamps_of_the_edited_module_and_its_importers_only(tmp_path, monkeypatch):
    from tnt.learn import compiled

    shutil.copytree(ROOT / "tnt", tmp_path / "tnt", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(compiled, "_PACKAGE_ROOT", tmp_path / "tnt")

    def stamps():
        compiled.kernel_source_stamp.cache_clear()
        return {m: compiled.kernel_source_stamp(str(tmp_path / "tnt" / "learn" / f"{m}.py")) for m in kernel_modules()}

    imports, before = reference_imports(), stamps()
    try:
        for edited in ("split_search", "wave_routing", "walks"):
            with open(tmp_path / "tnt" / "learn" / f"{edited}.py", "a") as source:
                source.write("# an edit\n")
            after = stamps()
            changed = {m for m in before if after[m] != before[m]}
            importers = {m for m in before if f"tnt.learn.{edited}" in reference_closure(f"tnt.learn.{m}", imports)}
            assert changed == importers, edited
            assert edited in changed and len(changed) < len(before)
            before = after
        (tmp_path / "tnt" / "learn" / "growth.py").write_text("# the growth loop has no kernel\n")
        assert stamps() == before  # a module no kernel module imports changes no stamp
    finally:
        compiled.kernel_source_stamp.cache_clear()


EDITED_FIT = """
import importlib, pkgutil, sys
from numba.core.registry import CPUDispatcher
from sklearn.datasets import load_digits
import tnt, tnt.learn
X, y = load_digits(return_X_y=True)
tnt.TnTClassifier(C=1e-2, random_state=0).fit(X, y).predict(X)
for info in pkgutil.iter_modules(tnt.learn.__path__):
    for f in vars(importlib.import_module(f"tnt.learn.{info.name}")).values():
        if isinstance(f, CPUDispatcher) and f.__module__ == f"tnt.learn.{info.name}":
            misses, hits = sum(f.stats.cache_misses.values()), sum(f.stats.cache_hits.values())
            if misses or hits:
                print(info.name, f.__name__, misses, hits)
"""


def test_after_an_edit_a_fit_compiles_the_edited_modules_kernels_and_loads_every_other(tmp_path):
    # A copy of the package with its cache: a first fit there loads (or compiles) what it uses;
    # after an edit of wave_routing.py, which no other kernel module imports, a second fit compiles
    # wave_routing's kernels (their cached code is stale: never loaded) and loads all the others.
    shutil.copytree(ROOT / "tnt", tmp_path / "tnt", ignore=shutil.ignore_patterns("*.pyc", "*.lock"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["PYTHONPATH"] = str(tmp_path)

    def fit() -> list[tuple[str, str, int, int]]:
        done = subprocess.run([sys.executable, "-c", EDITED_FIT], capture_output=True, text=True, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        return [(m, f, int(a), int(b)) for m, f, a, b in (line.split() for line in done.stdout.split("\n") if line)]

    fit()
    with open(tmp_path / "tnt" / "learn" / "wave_routing.py", "a") as source:
        source.write("# an edit\n")
    used = fit()
    compiled = {(m, f) for m, f, misses, hits in used if misses}
    loaded = {(m, f) for m, f, misses, hits in used if hits and not misses}
    assert compiled and {m for m, _ in compiled} == {"wave_routing"}
    assert {m for m, _ in loaded} >= {"tree_builder", "routing", "walks"} and len(loaded) >= 10


WRITER = """
import sys, time
import numpy as np
import numba.core.caching as caching

# Widen numba's window: each writer sleeps after reading the index and after writing it.
load_sleep, index_sleep = float(sys.argv[2]), float(sys.argv[3])
load_index, save_index = caching.IndexDataCacheFile._load_index, caching.IndexDataCacheFile._save_index


def slow_load(self):
    found = load_index(self)
    time.sleep(load_sleep)
    return found


def slow_save(self, overloads):
    save_index(self, overloads)
    time.sleep(index_sleep)


caching.IndexDataCacheFile._load_index = slow_load
caching.IndexDataCacheFile._save_index = slow_save
import kernels_here

time.sleep(float(sys.argv[4]))
print(kernels_here.twice_plus_one(3 if sys.argv[1] == "int" else np.arange(3.0)))
"""

READER = """
import numpy as np
import kernels_here

f = kernels_here.twice_plus_one
print(f(3), f(np.arange(3.0)).tolist(), sum(f.stats.cache_hits.values()))
"""


def test_two_processes_compiling_two_signatures_at_once_leave_a_cache_a_third_loads(tmp_path):
    """The real pipeline and the race numba's own cache loses: process A (int) reads the index, B
    (array) reads it too, A writes it, B writes it and its data, A writes its data last. With
    numba's writer both take data file 1 and the index names A's int code for B's arrays."""
    (tmp_path / "kernels_here.py").write_text(
        "from tnt.learn.compiled import kernel\n\n\n@kernel\ndef twice_plus_one(a):\n    return a * 2 + 1\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}

    def start(*args):
        return subprocess.Popen(
            [sys.executable, "-c", *args],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    writers = [start(WRITER, "int", "1", "2", "0"), start(WRITER, "array", "1", "0", "0.3")]
    outputs = [writer.communicate(timeout=120) for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0], outputs
    reader = subprocess.run(
        [sys.executable, "-c", READER], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert reader.returncode == 0, reader.stderr
    assert reader.stdout.split(maxsplit=1) == ["7", "[1.0, 3.0, 5.0] 2\n"]


UNWRITABLE_PACKAGE = """
from numba.core import caching

# What numba's locator does when the package's __pycache__ cannot be written to: decline, so that
# the user's own cache folder is used.
caching.InTreeCacheLocator.from_function = classmethod(lambda cls, py_func, py_file: None)
from sklearn.datasets import load_digits
from tnt import TnTClassifier
from tnt.learn.tree_builder import build_tree

X, y = load_digits(return_X_y=True)
TnTClassifier(C=1e-2, random_state=0).fit(X, y)
stats = build_tree.stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), stats.cache_path)
"""


def test_a_package_whose_compiled_code_cannot_be_rewritten_still_loads_it(tmp_path):
    # The suite's warm-up (conftest.py) left the kernels' code in tnt's own __pycache__, as
    # `pip install` does; a user who cannot write there still loads it, from there, and compiles nothing.
    env = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
    env["XDG_CACHE_HOME"] = str(tmp_path)  # the user's cache folder, empty
    result = subprocess.run(
        [sys.executable, "-c", UNWRITABLE_PACKAGE], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    hits, misses, cache_path = result.stdout.split()
    assert cache_path.startswith(str(tmp_path))  # numba chose the user's folder
    assert int(hits) >= 1 and int(misses) == 0
