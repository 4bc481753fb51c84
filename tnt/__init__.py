"""TnT Explorer: Tree in Tree decision graphs (Zhu & Shoaran, NeurIPS 2021) for scikit-learn."""

from ._growth import GrowthEvent
from .baselines import CARTClassifier, TAOClassifier
from .estimator import TnTClassifier
from .graph import MIXED, DecisionGraph

__all__ = ["CARTClassifier", "DecisionGraph", "GrowthEvent", "MIXED", "TAOClassifier", "TnTClassifier"]
__version__ = "0.1.0"

from ._warmup import load_compiled_code as _load_compiled_code  # noqa: E402

_load_compiled_code()
