"""TnT Explorer: Tree in Tree decision graphs (Zhu & Shoaran, NeurIPS 2021) for scikit-learn."""

from tnt.baselines import CARTClassifier, CARTRegressor, TAOClassifier
from tnt.estimator import TnTClassifier
from tnt.graph import MIXED, DecisionGraph
from tnt.learn.growth import GrowthEvent
from tnt.ndg import NDGClassifier
from tnt.regressor import TnTRegressor
from tnt.viz.notebook import plot_graph

__all__ = [
    "CARTClassifier",
    "CARTRegressor",
    "DecisionGraph",
    "GrowthEvent",
    "MIXED",
    "NDGClassifier",
    "TAOClassifier",
    "TnTClassifier",
    "TnTRegressor",
    "plot_graph",
]
__version__ = "0.1.0"
