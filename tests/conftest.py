import os

# scikit-learn runs its array-API estimator check only with this set (before scipy is imported).
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DATA = ROOT / "sample_data"


def load_npz(name):
    with np.load(SAMPLE_DATA / f"{name}.npz", allow_pickle=False) as d:
        return d["X_train"], d["y_train"], d["X_test"], d["y_test"]


@pytest.fixture(scope="session")
def pendigits():
    return load_npz("pendigits")


@pytest.fixture(scope="session")
def optdigits():
    return load_npz("optdigits")
