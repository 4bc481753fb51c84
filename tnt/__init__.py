"""TnT Explorer: Tree in Tree decision graphs (Zhu & Shoaran, NeurIPS 2021) for scikit-learn.

The names below are imported on first use (PEP 562), so that importing a submodule, such as the
app's warm-up (:mod:`tnt.warmup`), which starts compiling in a separate process before the
app imports anything else, does not import scikit-learn and every estimator first.
"""

import importlib
import os

# Threads of a fit wait for work at every node that several of them scan. OpenMP (numba's threading
# layer here) makes waiting threads spin by default; on a machine whose cores are busy with other
# processes the spinning takes the time the working thread needs, and a fit on all cores can run
# several times slower than on one. Waiting threads sleep instead, unless the user chose
# otherwise. OpenMP reads this when it starts, at the first parallel kernel.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# Each public name and the module that defines it.
_HOMES = {
    "CARTClassifier": "tnt.baselines",
    "CARTRegressor": "tnt.baselines",
    "DecisionGraph": "tnt.graph",
    "GrowthEvent": "tnt.learn.growth",
    "MIXED": "tnt.graph",
    "NDGClassifier": "tnt.ndg",
    "TAOClassifier": "tnt.baselines",
    "TnTClassifier": "tnt.estimator",
    "TnTRegressor": "tnt.regressor",
    "plot_graph": "tnt.viz.notebook",
}

__all__ = sorted(_HOMES)
__version__ = "0.1.0"


def __getattr__(name):
    if name not in _HOMES:
        raise AttributeError(f"module 'tnt' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *_HOMES})  # a name used once is in both
