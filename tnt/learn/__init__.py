"""The learner: feature binning, the compiled micro-tree kernels (split search, tree building,
pruning), routing of samples through a graph, and the growth loop that grows micro trees inside
the graph's nodes and merges them back (the paper's Algorithms 2 and A.1).

Nothing here is public API; the estimators in :mod:`tnt.estimator` and :mod:`tnt.baselines` use it.
"""
