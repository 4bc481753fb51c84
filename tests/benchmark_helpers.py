"""Load a script of ``benchmarks/`` as a module (the folder is not a package)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_benchmark(name: str):
    """The module of ``benchmarks/<name>.py``, executed under the name ``benchmarks_<name>``."""
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
