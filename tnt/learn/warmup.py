"""Load the compiled kernels when ``tnt`` is imported.

numba compiles each kernel once per machine and caches the machine code on disk; what remains in
a fresh process is loading it, about a fifth of a second. Doing that here, on tiny inputs that
reach every kernel and both code widths, keeps it out of the first ``fit``: a user's first
training takes as long as the next one.
"""

import numpy as np

from tnt.learn.binning import bin_features
from tnt.learn.micro_tree import fit_micro_tree, fit_stump, make_workspace
from tnt.learn.regression_tree import fit_regression_tree
from tnt.learn.routing import count_directions, decision_paths, edge_statistics, route_past, route_to_leaves


def load_compiled_code() -> None:
    for n_values in (4, 300):  # uint8 and uint16 feature codes
        X = np.tile(np.arange(n_values, dtype=np.float32)[:, None], (1, 2))
        y = np.arange(n_values) % 2
        binned = bin_features(X)
        rows = np.arange(n_values)
        order = np.arange(2)
        w = np.ones(n_values)
        workspace = make_workspace(binned, 2)
        fit_micro_tree(binned, order, rows, y, w, 1e-3, 2, workspace)
        fit_stump(binned, order, rows, y, w, workspace)
        fit_regression_tree(binned, order, rows, y.astype(np.float64), w, 1e-3)
    left = np.array([1, -1, -1])
    right = np.array([2, -1, -1])
    feature = np.array([0, -2, -2])
    threshold = np.array([0.5, -2.0, -2.0])
    for dtype in (np.float32, np.uint8):  # predict routes pixels without converting them
        route_to_leaves(X.astype(dtype), rows, 0, left, right, feature, threshold)
    route_past(X, rows, 0, 1, left, right, feature, threshold)
    count_directions(X, 3, left, right, feature, threshold)
    decision_paths(X, left, right, feature, threshold)
    edge_statistics(X, y, w, 2, left, right, feature, threshold)
