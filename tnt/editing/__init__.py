"""Editing a fitted decision graph by hand: collapse a split into a leaf, send an edge to another
node, forbid a feature; with undo and redo, statistics recomputed from the training data, and a
model file that records what was edited (see the guide's "Edit a graph by hand")."""

from tnt.editing.editor import KINDS, Edit, EditStep, GraphEditor, edit_summary, trainable_estimator
from tnt.editing.graph_edits import BRANCHES, GraphChange, collapse, legal_targets, redirect, remove_unreachable
from tnt.editing.statistics import refreshed

__all__ = [
    "BRANCHES",
    "KINDS",
    "Edit",
    "EditStep",
    "GraphChange",
    "GraphEditor",
    "collapse",
    "edit_summary",
    "legal_targets",
    "redirect",
    "refreshed",
    "remove_unreachable",
    "trainable_estimator",
]
