"""The parts of numba that are not its public API and that ``tnt.learn.compiled`` relies on.

``pyproject.toml`` bounds numba to the versions these exist in; a numba release that renames or
drops one fails here, naming it, before a kernel fails in a less readable way.
"""

import inspect
import re
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core import caching, cgutils, dispatcher

ROOT = Path(__file__).resolve().parent.parent


def _missing(owner, names) -> list[str]:
    return [name for name in names if not hasattr(owner, name)]


def _parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def _numba_bounds() -> tuple[str, str]:
    text = (ROOT / "pyproject.toml").read_text()
    found = re.findall(r'"numba>=([\d.]+),<([\d.]+)"', text)
    assert len(found) == 2 and found[0] == found[1], "numba's bounds must appear, the same, in both lists"
    return found[0]


def test_the_installed_numba_is_within_the_bounds_the_project_declares():
    low, high = (tuple(int(p) for p in v.split(".")) for v in _numba_bounds())
    installed = tuple(int(p) for p in numba.__version__.split(".")[:2])
    assert low <= installed < high, f"numba {numba.__version__} is outside the tested range {low}..{high}"


def test_the_cache_classes_the_checked_cache_extends_exist():
    names = ("FunctionCache", "IndexDataCacheFile", "UserWideCacheLocator")
    assert _missing(caching, names) == [], f"numba {numba.__version__} lacks numba.core.caching names"


def test_the_cache_file_keeps_the_methods_and_attributes_it_overrides_or_reads(tmp_path):
    cache_file = caching.IndexDataCacheFile
    assert _parameters(cache_file.__init__) == ["self", "cache_path", "filename_base", "source_stamp"]
    methods = ("save", "load", "_load_index", "_save_index", "_save_data", "_data_name")
    assert _missing(cache_file, methods) == [], f"numba {numba.__version__}: IndexDataCacheFile changed"
    made = cache_file(cache_path=str(tmp_path), filename_base="f", source_stamp="s")
    assert _missing(made, ("_index_path",)) == []


def test_the_function_cache_keeps_the_hooks_the_checked_cache_uses():
    function_cache = caching.FunctionCache
    assert _parameters(function_cache.__init__) == ["self", "py_func"]
    assert _parameters(function_cache.load_overload) == ["self", "sig", "target_context"]
    assert _parameters(function_cache._load_overload) == ["self", "sig", "target_context"]
    assert _parameters(function_cache._index_key) == ["self", "sig", "codegen"]

    def plain(x):
        return x

    made = function_cache(plain)
    attributes = ("_cache_path", "_cache_file", "_impl", "_py_func", "_enabled")
    assert _missing(made, attributes) == [], f"numba {numba.__version__}: FunctionCache changed"
    assert _missing(made._impl, ("filename_base", "locator", "rebuild")) == []
    assert _missing(made._impl.locator, ("_py_file",)) == []


def test_a_dispatcher_keeps_its_cache_in_an_attribute_the_project_replaces():
    from tnt.learn.compiled import _CheckedFunctionCache, kernel

    def double(x):
        return 2 * x

    compiled = kernel(double)
    assert isinstance(compiled, dispatcher.Dispatcher)
    assert _missing(compiled, ("_cache", "targetctx", "py_func")) == []
    assert isinstance(compiled._cache, _CheckedFunctionCache)
    # numba itself gives a dispatcher its cache in that attribute:
    assert "self._cache = FunctionCache(self.py_func)" in inspect.getsource(dispatcher.Dispatcher.enable_caching)


def test_the_option_that_turns_reference_counting_off_is_accepted():
    compiled = numba.njit(_nrt=False)(lambda a: a[0] + 1.0)
    assert compiled(np.ones(2)) == 2.0


@pytest.mark.parametrize(
    ("function", "parameters"),
    [
        (cgutils.get_item_pointer2, ["context", "builder", "data", "shape", "strides", "layout", "inds", "wraparound"]),
        (cgutils.unpack_tuple, ["builder", "tup"]),
    ],
)
def test_the_code_generation_helpers_keep_their_parameters(function, parameters):
    assert _parameters(function)[: len(parameters)] == parameters
