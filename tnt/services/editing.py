"""The app's editor as data: its measures after each edit, and its history as a small JSON-able dict
that a workspace keeps, so that a reload brings the edits back (replayed on the same model)."""

from __future__ import annotations

from tnt.data.datasets import Dataset
from tnt.editing import GraphEditor
from tnt.services.tasks import scores

__all__ = ["edit_measures", "editor_state", "restored_editor"]


def edit_measures(model, data: Dataset | None) -> dict:
    """Splits, leaves and shared nodes of a model, with its train and test accuracy (R² and RMSE for
    a regressor) on ``data`` when given (``data`` must fit the model).

    Examples
    --------
    >>> from tnt.data.datasets import load_bundled
    >>> from tnt import CARTClassifier
    >>> iris = load_bundled("iris")
    >>> m = edit_measures(CARTClassifier(max_leaf_nodes=3).fit(iris.X_train, iris.y_train), iris)
    >>> sorted(m)
    ['leaves', 'shared_nodes', 'splits', 'test_accuracy', 'train_accuracy']
    """
    graph = model.graph_
    measures = {"splits": graph.n_splits, "leaves": graph.n_leaves, "shared_nodes": int(graph.shared_nodes.size)}
    if data is not None:
        measures.update(scores(model, data.model_input(data.X_train, model), data.y_train, "train"))
        measures.update(scores(model, data.model_input(data.X_test, model), data.y_test, "test"))
    return measures


def editor_state(editor: GraphEditor, key: dict) -> dict:
    """What to save of ``editor``: ``key`` (which model, on which data), every edit made (the redo
    steps too) and how many of them are in use."""
    return {**key, "edits": [e.as_dict() for e in editor.history.states[-1].edits], "position": editor.history.position}


def restored_editor(saved, key: dict, model, X=None, y=None, *, name=None) -> GraphEditor | None:
    """The editor of a saved state (:func:`editor_state`) when it was saved for ``key``, or None
    (another model, or edits that no longer apply)."""
    if not isinstance(saved, dict) or any(saved.get(k) != v for k, v in key.items()):
        return None
    edits, position = saved.get("edits"), saved.get("position")
    if not isinstance(edits, list) or not isinstance(position, int):
        return None
    try:
        return GraphEditor.replayed(model, edits, X, y, position=position, name=name)
    except ValueError:
        return None
