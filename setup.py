"""Build step of ``pip install``: compile TnT's numba kernels for this machine while installing.

Everything else about the package is declared in ``pyproject.toml``. This file adds one thing to
setuptools' ``build_py``: once the sources are in place, it runs ``python -m tnt.warmup --install`` on
them, so that numba's on-disk cache of machine code (``__pycache__/*.nbi``, ``*.nbc`` beside each
kernel's source) is written at install time instead of on a user's first fit. It compiles every
kernel but the copies of the fit kernel that scan a node on several threads (nearly half of the
compile time): the first fit on several threads that would take them runs on one thread and starts
their compile in the background (``tnt.learn.threaded_copies``). ``TNT_COMPILE_AT_INSTALL=all``
compiles them at install too (the README's test command does: the suite fits on several threads).

- ``pip install .`` builds a wheel: the cache is written into the build folder's copy of ``tnt``
  and installed with it. numba keys a cached kernel by a hash of its source file's content, the
  numba version, the Python version and this machine's CPU, all of which the installed copy shares
  with the build's (``build-system.requires`` pins the same numba as the package needs).
- ``pip install -e .`` leaves the sources where they are: the cache is written beside them. A
  later ``pip install .`` of the same folder copies that cache into its build, and the warm-up
  loads it instead of compiling again (:func:`reuse_compiled_code`).

If the compiled code does not match at run time (another numba than the build's, a wheel copied to
another CPU), numba compiles on first use, as without this step. Setting ``TNT_COMPILE_AT_INSTALL=0``
skips the step, e.g. to build a wheel for other machines. A failing compile warns and leaves the
install as it would be without this step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


def reuse_compiled_code(sources: Path, built: Path) -> int:
    """Copy the numba cache beside ``sources`` (an editable install's compile, on this machine) into
    the built package ``built``, so that the warm-up loads it instead of compiling it again; the
    number of files copied.

    numba checks every cached kernel before using it (its sources' stamp, :mod:`tnt.learn.compiled`;
    the CPU; numba's and Python's versions), and compiles afresh any that does not match: a cache
    from other sources is never used, only overwritten. A fresh clone has none to copy.
    """
    copied = 0
    for cached in [*sources.rglob("__pycache__/*.nbi"), *sources.rglob("__pycache__/*.nbc")]:
        target = built / cached.relative_to(sources)
        if target.parent.parent.is_dir():  # a folder of the built package
            target.parent.mkdir(exist_ok=True)
            shutil.copy2(cached, target)
            copied += 1
    return copied


class build_py_and_compile(build_py):  # noqa: N801 - setuptools' command naming
    """setuptools' ``build_py``, then TnT's kernels compiled into the built package's numba cache."""

    def run(self):
        super().run()
        if os.environ.get("TNT_COMPILE_AT_INSTALL", "1") == "0":
            return
        root = Path(__file__).resolve().parent if self.editable_mode else Path(self.build_lib).resolve()
        env = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
        if not self.editable_mode:  # a build folder reused by an earlier build: its code from older sources
            for stale in [*(root / "tnt").rglob("*.nbi"), *(root / "tnt").rglob("*.nbc")]:
                stale.unlink()
            reuse_compiled_code(Path(__file__).resolve().parent / "tnt", root / "tnt")
        print(f"Compiling TnT's kernels for this machine into {root / 'tnt'} (a minute or two)", flush=True)
        every = os.environ.get("TNT_COMPILE_AT_INSTALL") == "all"
        command = [sys.executable, "-m", "tnt.warmup"] + ([] if every else ["--install"])
        done = subprocess.run(command, cwd=root, env=env)
        if not self.editable_mode:  # the cache's write locks, empty files, are not installed
            for lock in (root / "tnt").rglob("*.nbi.lock"):
                lock.unlink()
        if done.returncode != 0:
            print(
                "warning: TnT's kernels could not be compiled at install time; they will be "
                "compiled on first use instead.",
                file=sys.stderr,
            )


if __name__ == "__main__":  # as setuptools' build backend runs it; tests import the command alone
    setup(cmdclass={"build_py": build_py_and_compile})
