"""Editing a fitted graph model by hand, with undo and redo: collapse a split into a leaf, send an
edge to another node, forbid a feature (train again without it, with the same settings).

After a structural edit with the training data given, every node's statistics and every leaf's
prediction come from the training samples that now reach it; without data they are kept, and the
nodes whose samples changed are listed as unknown. The edited model is a
``HandEditedClassifier`` (or ``HandEditedRegressor``) whose model file records the model it was
edited from and the edits (:mod:`tnt.model_io`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import is_regressor
from sklearn.utils.validation import check_is_fitted

from tnt.editing.graph_edits import BRANCHES, GraphChange, collapse, redirect
from tnt.editing.history import History
from tnt.editing.statistics import class_indices, refreshed
from tnt.model_io import HAND_EDITED, LoadedGraphModel, LoadedGraphRegressor, _kind_and_params

__all__ = ["KINDS", "Edit", "EditStep", "GraphEditor", "edit_summary", "trainable_estimator"]

#: The kinds of edit.
KINDS = ("collapse", "redirect", "forbid")
_FIELDS = {"collapse": ("node",), "redirect": ("node", "branch", "target"), "forbid": ("feature",)}


@dataclass(frozen=True)
class Edit:
    """One edit. Node ids are those of the graph the edit was applied to.

    Parameters
    ----------
    kind : {"collapse", "redirect", "forbid"}
    node : int, default=None
        The split collapsed, or whose edge is redirected.
    branch : {"yes", "no"}, default=None
        The redirected edge: "yes" (left, the test holds) or "no".
    target : int, default=None
        The node the redirected edge leads to.
    feature : int, default=None
        The column forbidden.

    Examples
    --------
    >>> from tnt.editing import Edit
    >>> Edit("redirect", node=3, branch="no", target=9).describe()
    'send the no edge of node 3 to node 9'
    >>> Edit.from_dict({"kind": "forbid", "feature": 2}).describe(["a", "b", "c"])
    'forbid c (trained again without it)'
    """

    kind: str
    node: int | None = None
    branch: str | None = None
    target: int | None = None
    feature: int | None = None

    def as_dict(self) -> dict:
        """The edit as a small JSON-able dict (its kind and its fields)."""
        return {"kind": self.kind, **{name: getattr(self, name) for name in _FIELDS[self.kind]}}

    @classmethod
    def from_dict(cls, value) -> Edit:
        """The edit of :meth:`as_dict`, checked.

        Raises
        ------
        ValueError
            When ``value`` is not an edit.
        """
        if not isinstance(value, dict) or value.get("kind") not in KINDS:
            raise ValueError(f"An edit is an object whose kind is one of {', '.join(KINDS)}.")
        fields = {name: value.get(name) for name in _FIELDS[value["kind"]]}
        for name, v in fields.items():
            good = v in BRANCHES if name == "branch" else isinstance(v, int) and not isinstance(v, bool) and v >= 0
            if not good:
                raise ValueError(f"The {value['kind']} edit has no valid {name}.")
        return cls(value["kind"], **fields)

    def describe(self, feature_names=None, node_ids=None) -> str:
        """The edit in words; with ``node_ids`` (the id to show for each node of the graph the edit
        was applied to, :attr:`EditStep.original_ids`), nodes are named by those ids."""
        shown = (lambda n: n) if node_ids is None else (lambda n: int(node_ids[n]))
        if self.kind == "collapse":
            return f"collapse node {shown(self.node)} into a leaf"
        if self.kind == "redirect":
            return f"send the {self.branch} edge of node {shown(self.node)} to node {shown(self.target)}"
        name = f"feature {self.feature}" if feature_names is None else str(feature_names[self.feature])
        return f"forbid {name} (trained again without it)"


@dataclass(frozen=True, eq=False)
class EditStep:
    """A state of the editor.

    Attributes
    ----------
    model : fitted estimator
        The model at this step.
    edits : tuple of Edit
        Every edit from the first model to this one, in order.
    changed : ndarray of int
        Nodes of ``model.graph_`` the last edit changed: the nodes it edited and those whose
        statistics changed (empty for the first model and after a feature was forbidden, which
        trains a new graph).
    unknown : ndarray of bool
        Nodes whose statistics are unknown: their training samples changed and no data was given.
    original_ids : ndarray of int or None
        For each node of ``model.graph_``, its id in the editor's first graph: edits remove nodes and
        renumber the rest (the graph keeps its topological numbering), and these are the ids a person
        saw before editing. After a feature is forbidden the graph is new, and these are its own ids.
        None means the graph's own ids.
    """

    model: object
    edits: tuple = ()
    changed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    unknown: np.ndarray | None = None
    original_ids: np.ndarray | None = None

    @property
    def shown_ids(self) -> np.ndarray:
        """:attr:`original_ids`, or the graph's own ids where there are none."""
        if self.original_ids is not None:
            return self.original_ids
        return np.arange(self.model.graph_.node_count, dtype=np.intp)


class GraphEditor:
    """Edits of a fitted graph model, with undo and redo.

    Parameters
    ----------
    model : fitted graph classifier or regressor
        A model of the project (``TnTClassifier``, ``CARTClassifier``..., or a model file read by
        :func:`tnt.model_io.model_from_json`).
    X, y : array-like, default=None
        The training data (``y`` the model's labels, or targets). With it, statistics and leaf
        predictions are recomputed after each edit, and a feature can be forbidden.
    name : str, default=None
        What the edited model is called in its record (``"TnT on Digits"``).
    sample_weight : array-like of shape (n_samples,), default=None
        The weights the model was trained with: every statistic recomputed after an edit (class
        counts, leaf predictions, impurities) weights the samples so, and forbidding a feature
        trains again with them. Without them, a model trained with weights would change the
        predictions of leaves that no edit touched.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import TnTClassifier
    >>> from tnt.editing import GraphEditor
    >>> X, y = load_iris(return_X_y=True)
    >>> editor = GraphEditor(TnTClassifier(C=1e-2, random_state=0).fit(X, y), X, y)
    >>> split = int((~editor.model.graph_.is_leaf).nonzero()[0][-1])
    >>> step = editor.collapse(split)
    >>> editor.model.n_splits_ == editor.history.states[0].model.n_splits_ - 1
    True
    >>> editor.undo().model is editor.history.states[0].model
    True
    """

    def __init__(self, model, X=None, y=None, *, name: str | None = None, sample_weight=None):
        check_is_fitted(model, "graph_")
        self.base = model
        self.regression = bool(model.graph_.regression)
        kind, params = _kind_and_params(model)
        self.name = kind if name is None else str(name)
        self._origin = getattr(model, "edit_record_", None)  # a model edited before: its record continues
        if self._origin is None:
            self._origin = {"from": {"estimator": kind, "params": params, "name": self.name}, "edits": []}
        self.X = self.y = self._y_index = self.sample_weight = None
        if sample_weight is not None and X is None:
            raise ValueError("Sample weights are the training samples' weights: pass the training data with them.")
        if X is not None:
            self.X = model._validate_X_predict(X)
            self.y = np.asarray(y)
            if self.y.shape[0] != self.X.shape[0]:
                raise ValueError(f"X has {self.X.shape[0]} rows but y has {self.y.shape[0]} labels.")
            self._y_index = self.y if self.regression else class_indices(model.classes_, self.y)
            if sample_weight is not None:
                self.sample_weight = np.asarray(sample_weight, dtype=np.float64)
                if self.sample_weight.shape != (self.X.shape[0],):
                    raise ValueError(
                        f"X has {self.X.shape[0]} rows but sample_weight has shape {self.sample_weight.shape}."
                    )
        n = model.graph_.node_count
        first = EditStep(model, unknown=np.zeros(n, dtype=bool), original_ids=np.arange(n, dtype=np.intp))
        self.history: History[EditStep] = History(first)

    # ------------------------------------------------------------------ state
    @property
    def has_data(self) -> bool:
        return self.X is not None

    @property
    def step(self) -> EditStep:
        return self.history.current

    @property
    def model(self):
        """The model as edited so far."""
        return self.step.model

    @property
    def unknown_nodes(self) -> np.ndarray:
        """Ids of the nodes whose statistics are unknown (none when the training data was given)."""
        return np.flatnonzero(self.step.unknown)

    # ------------------------------------------------------------------ edits
    def collapse(self, node: int) -> EditStep:
        """Collapse the split ``node`` into a leaf (:func:`tnt.editing.collapse`)."""
        return self.apply(Edit("collapse", node=int(node)))

    def redirect(self, node: int, branch: str, target: int) -> EditStep:
        """Send the ``branch`` edge of split ``node`` to ``target`` (:func:`tnt.editing.redirect`)."""
        return self.apply(Edit("redirect", node=int(node), branch=branch, target=int(target)))

    def forbid(self, feature: int) -> EditStep:
        """Train the first model's estimator again, with its settings and the training data, never
        splitting on ``feature`` (nor on the features forbidden before). The graph is new: hand
        edits made before are not in it (undo brings them back)."""
        return self.apply(Edit("forbid", feature=int(feature)))

    def apply(self, edit: Edit) -> EditStep:
        """Apply ``edit`` to the current model and make the result the current step.

        Raises
        ------
        ValueError
            One sentence saying why the edit cannot be made; the current step stays.
        """
        step = self._forbidden(edit) if edit.kind == "forbid" else self._structural(edit)
        self.history.push(step)
        return step

    def undo(self) -> EditStep:
        return self.history.undo()

    def redo(self) -> EditStep:
        return self.history.redo()

    def edit_record(self, edits=None) -> dict:
        """What a model file records of the current model (of the model ``edits`` made, when given):
        the model edited and the edits that made it."""
        edits = self.step.edits if edits is None else edits
        return {"from": dict(self._origin["from"]), "edits": [*self._origin["edits"], *_defining(edits)]}

    def edited_model(self):
        """The current model as a hand-edited model (``HandEditedClassifier`` or ``HandEditedRegressor``)
        with its record, to save with :func:`tnt.model_io.model_to_json`."""
        return self._hand_edited(self.model.graph_, self.step.edits)

    @classmethod
    def replayed(
        cls, model, edits, X=None, y=None, *, position: int | None = None, name: str | None = None, sample_weight=None
    ):
        """An editor on ``model`` with ``edits`` (dicts of :meth:`Edit.as_dict`) applied in order,
        then undone back to ``position`` edits (all of them by default): the editor a saved history
        describes.

        Raises
        ------
        ValueError
            When an edit does not apply.
        """
        editor = cls(model, X, y, name=name, sample_weight=sample_weight)
        for edit in edits:
            editor.apply(Edit.from_dict(edit))
        applied = len(editor.history.states) - 1
        for _ in range(applied - (applied if position is None else min(max(int(position), 0), applied))):
            editor.undo()
        return editor

    # ------------------------------------------------------------------ internals
    def _structural(self, edit: Edit) -> EditStep:
        before = self.model.graph_
        if edit.kind == "collapse":
            change = collapse(before, edit.node)
        else:
            change = redirect(before, edit.node, edit.branch, edit.target)
        graph, unknown = change.graph, self._carried_unknown(change)
        if self.has_data:
            graph = refreshed(graph, self.X, self._y_index, self.sample_weight)
            # Against ``before``'s statistics on the same data: a model opened from a file learned
            # them from other data, and would otherwise show every node as changed.
            reference = refreshed(before, self.X, self._y_index, self.sample_weight)
            changed = np.union1d(change.edited, _statistics_changed(reference, graph, change))
        else:
            changed = np.union1d(change.edited, np.flatnonzero(unknown))
        edits = (*self.step.edits, edit)
        original = np.full(graph.node_count, -1, dtype=np.intp)
        kept = change.new_id >= 0
        original[change.new_id[kept]] = self.step.shown_ids[kept]
        return EditStep(self._hand_edited(graph, edits), edits, changed.astype(np.intp), unknown, original)

    def _carried_unknown(self, change: GraphChange) -> np.ndarray:
        if self.has_data:
            return np.zeros(change.graph.node_count, dtype=bool)
        unknown = change.stale.copy()
        kept = change.new_id >= 0
        unknown[change.new_id[kept]] |= self.step.unknown[kept]
        return unknown

    def _forbidden(self, edit: Edit) -> EditStep:
        if not self.has_data:
            raise ValueError("Forbidding a feature trains the model again, which needs its training data.")
        n_features = int(self.base.n_features_in_)
        if not 0 <= edit.feature < n_features:
            raise ValueError(f"There is no feature {edit.feature}: the model's features are 0 to {n_features - 1}.")
        estimator = trainable_estimator(self.base)
        earlier = [e.feature for e in self.step.edits if e.kind == "forbid"]
        already = list(estimator.get_params().get("excluded_features") or [])
        if edit.feature in earlier:
            raise ValueError(f"Feature {edit.feature} is forbidden already.")
        estimator.set_params(excluded_features=sorted({*already, *earlier, edit.feature}, key=str))
        X = _as_trained(self.X, self.base)
        model = estimator.fit(X, self.y, sample_weight=self.sample_weight)
        n = model.graph_.node_count
        return EditStep(
            model, (*self.step.edits, edit), np.zeros(0, dtype=np.intp), np.zeros(n, dtype=bool), np.arange(n)
        )

    def _hand_edited(self, graph, edits):
        model = self.base
        holder = LoadedGraphRegressor if self.regression else LoadedGraphModel
        edited = holder._holding(
            graph,
            int(model.n_features_in_),
            getattr(model, "feature_names_in_", None),
            HAND_EDITED["regression" if self.regression else "classification"],
            {},
            None if self.regression else model.classes_,
        )
        edited.edit_record_ = self.edit_record(edits)
        return edited


def _as_trained(X: np.ndarray, model):
    """The rows ``X`` (as ``model`` routes them: category codes) as ``model`` was trained on them: a
    table of its columns' names, which ``excluded_features`` may use, and each categorical column as
    pandas categories of its names, in the model's order (so ``categorical_features`` finds it by
    name, index or dtype), a missing value or unseen code as a missing one."""
    names = getattr(model, "feature_names_in_", None)
    categories = model.graph_.categories or {}
    if names is None and not categories:
        return X
    frame = pd.DataFrame(X, columns=None if names is None else list(names))
    for f, found in categories.items():
        codes = np.where(np.isnan(X[:, f]), -1, X[:, f]).astype(np.int64)
        frame[frame.columns[f]] = pd.Categorical.from_codes(np.where(codes < found.shape[0], codes, -1), found)
    return frame


def edit_summary(record: dict) -> str:
    """A model file's edit record in words.

    Examples
    --------
    >>> edit_summary({"from": {"estimator": "TnTClassifier", "params": {}, "name": "TnT on Iris"},
    ...               "edits": [{"kind": "collapse", "node": 4}, {"kind": "forbid", "feature": 2}]})
    'by hand from TnT on Iris (a TnTClassifier): collapse node 4 into a leaf; forbid feature 2 (trained again without it)'
    """
    origin = record["from"]
    name = origin.get("name") or origin["estimator"]
    source = name if name == origin["estimator"] else f"{name} (a {origin['estimator']})"
    edits = []
    for edit in record["edits"]:
        try:
            edits.append(Edit.from_dict(edit).describe())
        except ValueError:
            edits.append("an edit of another version")
    return f"by hand from {source}: {'; '.join(edits) or 'no edits'}"


def _defining(edits) -> list[dict]:
    """The edits that made the model of a step: every forbid (the training settings), then the hand
    edits after the last forbid (those before it were made to a graph trained again since)."""
    last = max((i for i, e in enumerate(edits) if e.kind == "forbid"), default=-1)
    kept = [e for e in edits[: last + 1] if e.kind == "forbid"] + list(edits[last + 1 :])
    return [e.as_dict() for e in kept]


def _statistics_changed(before, after, change: GraphChange) -> np.ndarray:
    """Nodes of ``after`` whose statistics differ from those of the same node ``before`` the edit."""
    old_of = np.full(after.node_count, -1, dtype=np.intp)
    kept = np.flatnonzero(change.new_id >= 0)
    old_of[change.new_id[kept]] = kept
    differs = (after.n_node_samples != before.n_node_samples[old_of]) | np.any(
        ~np.isclose(after.value, before.value[old_of]), axis=1
    )
    return np.flatnonzero(differs)


def trainable_estimator(model):
    """An unfitted estimator with ``model``'s class and settings, to train again.

    ``model`` is an estimator of the project, or a model file holding one (its kind and saved
    parameters are used).

    Raises
    ------
    ValueError
        When the model cannot be trained again here (a scikit-learn tree, a model edited by hand).
    """
    from tnt.baselines import CARTClassifier, CARTRegressor, TAOClassifier
    from tnt.estimator import TnTClassifier
    from tnt.ndg import NDGClassifier
    from tnt.regressor import TnTRegressor

    learners = (TnTClassifier, TnTRegressor, NDGClassifier, CARTClassifier, CARTRegressor, TAOClassifier)
    classes = {c.__name__: c for c in learners}
    kind, params = _kind_and_params(model)
    if kind not in classes:
        why = "it has no training settings" if kind in HAND_EDITED.values() else "it is not a learner of this project"
        raise ValueError(f"A {kind} cannot be trained again ({why}); forbid the feature in the model it came from.")
    estimator = classes[kind]()
    own = estimator.get_params()
    estimator.set_params(**{k: v for k, v in params.items() if k in own})
    if is_regressor(estimator) != bool(model.graph_.regression):  # pragma: no cover - a model file's kinds match tasks
        raise ValueError(f"The model's kind, {kind}, does not match its graph.")
    return estimator
