"""TnT Explorer: Tree in Tree decision graphs (Zhu & Shoaran, NeurIPS 2021) for scikit-learn."""

from tnt.learn.growth import GrowthEvent
from tnt.baselines import CARTClassifier, TAOClassifier
from tnt.estimator import TnTClassifier
from tnt.graph import MIXED, DecisionGraph
from tnt.ndg import NDGClassifier

__all__ = ["CARTClassifier", "DecisionGraph", "GrowthEvent", "MIXED", "NDGClassifier", "TAOClassifier", "TnTClassifier"]
__version__ = "0.1.0"

from tnt.learn.warmup import load_compiled_code as _load_compiled_code  # noqa: E402

_load_compiled_code()
