"""The decorator of every compiled kernel: numba's ``njit`` with an on-disk cache that several
processes can share safely.

numba keeps a kernel's machine code beside its source (``__pycache__``): an index file naming one
data file per compiled signature. Its writer (``numba.core.caching.IndexDataCacheFile.save``) reads
the index, takes the first data file number the index does not use, writes the index, then the data
file, with no lock. So

- two processes compiling different signatures of one kernel at the same time (the app's
  background warm-up and a training, joblib's workers, a test suite after an edit of a kernel's
  source) can both take number 1, and the index can end up naming one signature's code for another;
- a process killed between the two writes leaves the index naming a data file that still holds
  code compiled from an older source, possibly for other argument types.

A later process then loads machine code for other argument types and crashes with a segfault
(``build_tree``'s one-byte, two-byte and threaded copies share one index).
:func:`kernel` gives each kernel a cache that writes the data file before the index, under an
exclusive lock on a file beside the index (re-reading the index inside the lock), and that stores
the index key inside the data file and checks it on loading: a data file holding anything else,
or unreadable, is a cache miss (the kernel is compiled again), never a crash.

numba also stamps a kernel's cached code with the time and size of its own source file only, yet
that code holds the kernels it calls from other modules (``build_tree`` inlines the split search
of ``split_search.py``): after an edit or a ``git pull`` that changes only the callee, the caller's
stale code would still load, and crash when a shared layout changed. So a kernel's stamp is a
digest of its module's source and of every tnt module that module imports, directly or through
others (:func:`kernel_source_stamp`, :func:`imported_sources`): numba resolves the kernels and
constants a kernel uses from its module's globals, which name nothing else of tnt's. An edit
compiles again the kernels of the edited module and of the modules that import it, and no others.

``pip install`` writes the compiled code into the installed package's ``__pycache__`` folders
(the repository's ``setup.py``). Where a user cannot write there (a package installed by another
user, a read-only image), numba caches in a folder of the user's instead
(``UserWideCacheLocator``) and would never look at the package's own code: :func:`kernel`'s cache
then also reads the package's ``__pycache__``, after the user's folder and before compiling.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import itertools
import os
from pathlib import Path

import numba
import numpy as np
from numba import njit, types
from numba.core.caching import FunctionCache, IndexDataCacheFile, UserWideCacheLocator
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic, overload

try:
    import fcntl
except ImportError:  # Windows: no lock; the key check on loading still applies
    fcntl = None

__all__ = [
    "CheckedCacheFile",
    "fetch_add",
    "is_cached",
    "kernel",
    "files_digest",
    "imported_sources",
    "kernel_source_stamp",
    "load_when_ready",
    "store_eight_bytes",
]

# Marks a data file written by CheckedCacheFile (numba's own files hold other tuples) under this
# numba: two numba versions sharing a __pycache__ (two environments on one checkout) each read an
# index written by the other as empty and take data file 1 for the same key, so a reader can find the
# other version's machine code under its key; the version in the mark makes that a miss.
_MARK = f"tnt-checked-cache-1 numba-{numba.__version__}"


class CheckedCacheFile(IndexDataCacheFile):
    """numba's index and data files, written under a lock, data first, each data file naming its key."""

    def save(self, key, data):
        with self._locked():
            overloads = self._load_index()
            name = overloads.get(key)
            if name is None:
                used = set(overloads.values())
                name = next(n for n in map(self._data_name, itertools.count(1)) if n not in used)
            self._save_data(name, (_MARK, key, data))
            overloads[key] = name
            self._save_index(overloads)

    def load(self, key):
        try:
            found = super().load(key)
        except Exception:  # a truncated or foreign file: compile again rather than fail
            return None
        if isinstance(found, tuple) and len(found) == 3 and found[0] == _MARK and found[1] == key:
            return found[2]
        return None

    def _load_index(self):
        try:
            return super()._load_index()
        except Exception:  # an unreadable index: as if empty (the next save rewrites it)
            return {}

    @contextlib.contextmanager
    def _locked(self):
        if fcntl is None:
            yield
            return
        with open(self._index_path + ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


#: The folder of the ``tnt`` package, whose modules a kernel's stamp follows.
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def _module_file(name: str) -> Path | None:
    """The source file of tnt's module ``name`` (a package's ``__init__.py``), or None."""
    if name != "tnt" and not name.startswith("tnt."):
        return None
    base = _PACKAGE_ROOT.parent.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _direct_imports(path: Path) -> set[Path]:
    """The tnt modules that the source at ``path`` imports, in any import statement at any depth
    (absolute or relative; ``from a import b`` counts ``a`` and, where it is a module, ``a.b``)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return set()
    parts = path.resolve().relative_to(_PACKAGE_ROOT.parent).with_suffix("").parts
    package = parts[:-1]  # a module's package, or a package's own for its __init__.py
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package[: len(package) - node.level + 1]
                base = ".".join([*kept, *([base] if base else [])])
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return {f for f in map(_module_file, names) if f is not None}


def imported_sources(path) -> list[Path]:
    """The source at ``path`` and every tnt module it imports, directly or through other tnt modules,
    sorted: what a kernel defined in ``path`` may have compiled into its code."""
    path = Path(path).resolve()
    seen, todo = {path}, [path]
    while todo:
        for found in _direct_imports(todo.pop()) - seen:
            seen.add(found)
            todo.append(found)
    return sorted(seen)


def files_digest(paths) -> str:
    """A digest of the names (relative to the folder above ``tnt``) and contents of ``paths``."""
    digest = hashlib.sha256()
    for path in paths:
        path = Path(path)
        try:
            name = path.resolve().relative_to(_PACKAGE_ROOT.parent).as_posix()
        except ValueError:  # a kernel outside the package (a test's): its own name
            name = path.name
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def kernel_source_stamp(source_file: str) -> str:
    """The stamp of the cached code of the kernels defined in ``source_file``:
    :func:`files_digest` of :func:`imported_sources`. A file that cannot be read (a kernel made by
    ``exec``) is stamped with its name; numba's own key of the kernel's bytecode still applies."""
    path = Path(source_file)
    if not path.is_file():
        return hashlib.sha256(str(source_file).encode()).hexdigest()
    return files_digest(imported_sources(path))


class _CheckedFunctionCache(FunctionCache):
    def __init__(self, py_func):
        super().__init__(py_func)
        stamp = kernel_source_stamp(py_func.__code__.co_filename)
        self._cache_file = CheckedCacheFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=stamp,
        )
        # The installed package's own code, when numba chose the user's folder because the
        # package's __pycache__ is not writable (not when NUMBA_CACHE_DIR names a folder).
        self._installed = None
        if isinstance(self._impl.locator, UserWideCacheLocator):
            beside = os.path.join(os.path.dirname(self._impl.locator._py_file), "__pycache__")
            installed = CheckedCacheFile(
                cache_path=beside,
                filename_base=self._impl.filename_base,
                source_stamp=stamp,
            )
            if os.path.isfile(installed._index_path):
                self._installed = installed

    def _load_overload(self, sig, target_context):
        ready = _compiled_elsewhere.get(self._py_func)
        if ready is not None:
            ready.wait(COMPILED_ELSEWHERE_TIMEOUT)
        found = super()._load_overload(sig, target_context)
        if found is None and self._enabled and self._installed is not None:
            data = self._installed.load(self._index_key(sig, target_context.codegen()))
            if data is not None:
                found = self._impl.rebuild(target_context, data)
        return found


# Kernels that another process is compiling, each with an event set once that process has cached
# it (tnt.warmup): this process waits for it rather than compiling the kernel a second time.
_compiled_elsewhere: dict = {}
# A process that has not cached its kernel by then has failed or hangs: compile it here after all.
COMPILED_ELSEWHERE_TIMEOUT = 120.0  # seconds


def load_when_ready(dispatcher, ready) -> None:
    """Make every later load of ``dispatcher``'s code from the cache (numba tries one before each
    compile, including when a calling kernel is being compiled) wait for ``ready``, a
    :class:`threading.Event` set once another process has compiled and cached that code, for at
    most ``COMPILED_ELSEWHERE_TIMEOUT`` seconds.

    Parameters
    ----------
    dispatcher : a kernel made by :func:`kernel`
    ready : threading.Event
    """
    _compiled_elsewhere[dispatcher.py_func] = ready


def is_cached(dispatcher, argument_types) -> bool:
    """Whether the on-disk cache holds ``dispatcher``'s code for ``argument_types`` (numba types),
    which it then loads; True for the plain function ``NUMBA_DISABLE_JIT=1`` gives (nothing to
    compile).

    Parameters
    ----------
    dispatcher : a kernel made by :func:`kernel`
    argument_types : tuple of numba types
    """
    if not isinstance(dispatcher, Dispatcher):
        return True
    return dispatcher._cache.load_overload(tuple(argument_types), dispatcher.targetctx) is not None


def kernel(function=None, *, inline: str = "never", parallel: bool = False, counts_references: bool = True):
    """``numba.njit(cache=True, nogil=True)`` with the checked on-disk cache of this module.

    Use as ``@kernel`` or ``@kernel(inline="always")`` / ``@kernel(parallel=True)``.

    Parameters
    ----------
    function : callable, optional
    inline : {"never", "always"}, default="never"
        numba's ``inline`` option.
    parallel : bool, default=False
        numba's ``parallel`` option (``prange`` loops on numba's threads).
    counts_references : bool, default=True
        False compiles the kernel without numba's reference counting (its ``_nrt`` option), for a
        hot kernel that only reads and writes the arrays its caller holds: numba counts a reference
        with an atomic increment whenever an array is bound to a new name (an inlined call's
        arguments, a named tuple's fields), up to several per loop turn. Such a kernel cannot
        allocate an array.

    Returns
    -------
    dispatcher : numba's CPU dispatcher, or a decorator making one
    """

    def decorate(f):
        options = {} if counts_references else {"_nrt": False}
        dispatcher = njit(nogil=True, inline=inline, parallel=parallel, **options)(f)
        if isinstance(dispatcher, Dispatcher):  # not the plain function NUMBA_DISABLE_JIT=1 gives
            # What njit(cache=True) does (Dispatcher.enable_caching), with the checked cache: numba
            # has no public hook for a cache class.
            dispatcher._cache = _CheckedFunctionCache(dispatcher.py_func)
        return dispatcher

    return decorate if function is None else decorate(function)


def fetch_add(counter, value):
    """``counter[0] += value``, returning the value before: atomically in compiled code, so that
    threads taking work from one counter each get a part of their own (``counter``: int64 array)."""
    old = counter[0]
    counter[0] += value
    return old


@intrinsic
def _atomic_fetch_add(typingctx, counter, value):
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.atomic_rmw("add", array.data, args[1], "monotonic")

    return types.int64(counter, types.int64), codegen


@overload(fetch_add)
def _fetch_add(counter, value):
    return lambda counter, value: _atomic_fetch_add(counter, np.int64(value))


def store_eight_bytes(array, row, column, value):
    """The eight bytes of the uint64 ``value``, lowest first, stored from ``array[row, column]`` on: one
    store in compiled code, wherever the row starts (``array``: C-contiguous, items of one byte, or
    of two: then four items ``array[row, column:column + 4]``)."""
    items = np.frombuffer(np.uint64(value).astype("<u8").tobytes(), dtype=array.dtype.newbyteorder("<"))
    array[row, column : column + items.size] = items


@intrinsic
def _unaligned_store(typingctx, array, row, column, value):
    from llvmlite import ir
    from numba.core import cgutils

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        made = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer2(
            context,
            builder,
            data=made.data,
            shape=cgutils.unpack_tuple(builder, made.shape),
            strides=cgutils.unpack_tuple(builder, made.strides),
            layout=array_type.layout,
            inds=[args[1], args[2]],
            wraparound=False,
        )
        store = builder.store(args[3], builder.bitcast(pointer, ir.IntType(64).as_pointer()))
        store.align = 1
        return context.get_dummy_value()

    return types.void(array, types.intp, types.intp, types.uint64), codegen


@overload(store_eight_bytes)
def _store_eight_bytes(array, row, column, value):
    return lambda array, row, column, value: _unaligned_store(array, np.intp(row), np.intp(column), np.uint64(value))
