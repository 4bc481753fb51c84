"""Process-wide thread settings that ``import tnt`` makes (see ``tnt/__init__.py``)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("preset", [None, "ACTIVE"])
def test_importing_tnt_makes_waiting_openmp_threads_sleep_unless_the_user_chose(preset):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if preset is not None:
        env["OMP_WAIT_POLICY"] = preset
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); import os, tnt; print(os.environ['OMP_WAIT_POLICY'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == (preset or "PASSIVE")
