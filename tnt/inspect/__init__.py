"""Inspection of a fitted decision graph: which samples reach each node and through which parent
(:mod:`~tnt.inspect.reach`), the distributions at a node (:mod:`~tnt.inspect.distributions`), where
the model is wrong on test data (:mod:`~tnt.inspect.errors`), one sample's path
(:mod:`~tnt.inspect.path`), what-if paths (:mod:`~tnt.inspect.what_if`), counterfactuals
(:mod:`~tnt.inspect.counterfactual`) and rules per leaf (:mod:`~tnt.inspect.rules`). The drawings
(:mod:`tnt.viz`) import these, never the other way.

Every function takes the neutral :class:`~tnt.graph.DecisionGraph`, so TnT graphs and CART trees are
inspected alike. Class targets are passed as class indices (:func:`~tnt.inspect.reach.class_indices`
turns labels into them).
"""
