"""Run the ``tnt`` command line inside the test process, as a real process would see it.

A ``python -m tnt.cli`` process spends about 3 s of CPU importing scikit-learn, numba and the
compiled kernels before it reads its arguments; the command-line suites start dozens of them, so
most of their commands run here instead, through ``tnt.cli.main``, and a few keep a real process
(the happy path, a bad input and a bad argument) to check what only a process shows.

``run_tnt`` returns what ``subprocess.run(..., capture_output=True, text=True)`` returns: the exit
status (``main``'s return value, or ``SystemExit``'s code for argparse's errors and ``--help``),
and stdout and stderr as text. A warning the command raises is written to stderr as Python would
print it in a fresh process (whose default filters ignore only the deprecation, import and
resource warnings), so a test asserting "one line on stderr" still sees it; an exception escaping
``main`` fails the test as a traceback on stderr would.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import warnings
from pathlib import Path

#: The categories a fresh interpreter's default warning filters ignore (outside ``__main__``).
_IGNORED_BY_DEFAULT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def run_tnt(*args, cwd) -> subprocess.CompletedProcess:
    """``tnt ARGS`` run in this process with ``cwd`` as the working directory."""
    from tnt.cli import main

    args = [str(a) for a in args]
    stdout, stderr = io.StringIO(), io.StringIO()
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        with (
            warnings.catch_warnings(record=True) as caught,
            contextlib.redirect_stdout(stdout),
            contextlib.redirect_stderr(stderr),
        ):
            warnings.simplefilter("always")
            for category in _IGNORED_BY_DEFAULT:
                warnings.filterwarnings("ignore", category=category)
            try:
                status = main(args)
            except SystemExit as stop:  # argparse: a usage error (2) or --help (0)
                status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        os.chdir(previous)
    printed = [warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line) for w in caught]
    return subprocess.CompletedProcess(args, status, stdout.getvalue(), stderr.getvalue() + "".join(printed))
