"""The Graph page's editor (:mod:`tnt.editing`): collapse a split, redirect an edge, forbid a feature;
undo and redo; the edited graph drawn with the changed nodes highlighted; "save as" into the
workspace's History. The history is saved in the workspace, so a reload brings it back."""

from __future__ import annotations

import numpy as np
import streamlit as st

from tnt.editing import GraphEditor, legal_targets, trainable_estimator
from tnt.model_io import model_to_json
from tnt.services.editing import edit_measures, editor_state, restored_editor
from tnt.viz.explain import drawing_mode
from tnt.viz.export_dot import to_dot
from tnt.viz.exporter import GraphText
from ui import drawing, state
from ui.display import LABELS, format_measure
from ui.explorer import focus_panel
from ui.lru import LRUStore

_EDITORS = "edit/editors"  # LRUStore: editor key (a tuple) -> GraphEditor
_MESSAGE = "edit/message"  # (kind, text) of the last action: "error" or "success"


def _key(data, data_fits: bool, label: str, graph) -> dict:
    return {"dataset": data.key if data_fits else None, "model": label, "graph": drawing.fingerprint(graph)}


def _editor(key: dict, label: str, model, data, data_fits: bool) -> GraphEditor:
    """This session's editor of ``model``; on the session's first look, the one the workspace saved."""
    store = st.session_state.setdefault(_EDITORS, LRUStore(4))
    found = store.get(tuple(key.values()))
    if found is None:
        X, y = (data.model_input(data.X_train, model), data.y_train) if data_fits else (None, None)
        name = f"{label} on {data.name}" if data_fits else label
        found = restored_editor(state.saved_editor(), key, model, X, y, name=name) or GraphEditor(
            model, X, y, name=name
        )
        store.put(tuple(key.values()), found)
    return found


def _act(editor: GraphEditor, key: dict, action, *args) -> None:
    """Run an edit, undo or redo (``action(*args)``); keep a refusal's sentence for the page, and save the history."""
    try:
        action(*args)
        st.session_state.pop(_MESSAGE, None)
    except ValueError as error:
        st.session_state[_MESSAGE] = ("error", str(error))
    state.save_editor(editor_state(editor, key))


def _save(editor: GraphEditor, data, data_fits: bool, base_params) -> None:
    model = editor.edited_model()
    name = st.session_state.get("edit/name") or editor.name
    run = state.save_edited(model, name, edit_measures(model, data if data_fits else None), base_params)
    st.session_state[_MESSAGE] = (
        ("success", f"Saved as run #{run.id}, “{name}”, in History: open it there on any page.")
        if run is not None
        else ("error", "Work is not being saved in this session (see the sidebar); download the model instead.")
    )


def editor_section(label: str, model, names, classes, data, data_fits: bool, base_params) -> None:
    """The editor of ``model`` (named ``label`` in the page's model picker), with the training data of
    ``data`` when it fits the model; ``base_params``, the training settings when the app trained it."""
    key = _key(data, data_fits, label, model.graph_)
    editor = _editor(key, label, model, data, data_fits)
    step = editor.step
    graph = step.model.graph_
    st.subheader("Edit by hand")
    # A toggle, not an expander: an expander is drawn afresh, closed, whenever the page above it changes.
    if not st.toggle(
        "Edit this model: collapse a split, redirect an edge, forbid a feature",
        **state.keyed("edit/open", len(editor.history.states) > 1),  # open when there are edits to undo or redo
    ):
        return
    with st.container(border=True):
        st.caption(
            f"Edits apply to {label}; the model above stays as it is. After each edit the node statistics and "
            "leaf predictions come from the training samples that now reach them"
            + ("." if data_fits else " once data with the model's columns is loaded on the Data page.")
        )
        _measures(editor, data if data_fits else None)
        if not data_fits and editor.unknown_nodes.size:
            st.warning(
                f"Statistics unknown (their training samples changed, and no data is loaded): nodes "
                f"{', '.join(f'#{editor.step.shown_ids[n]}' for n in editor.unknown_nodes[:30])}"
                + (" ..." if editor.unknown_nodes.size > 30 else "")
                + ". They keep their earlier values and predictions."
            )
        message = st.session_state.get(_MESSAGE)
        if message is not None:
            (st.error if message[0] == "error" else st.success)(message[1])

        controls, picture = st.columns([2, 3], gap="medium")
        with controls:
            _edit_controls(editor, key, graph, names, classes, data_fits)
            _history(editor, key, names)
        with picture:
            _drawing(step, names, classes)
        _save_row(editor, label, data, data_fits, base_params)


def _measures(editor: GraphEditor, data) -> None:
    before, after = edit_measures(editor.base, data), edit_measures(editor.model, data)
    keys = ["splits", "shared_nodes"] + [k for k in after if k.endswith(("accuracy", "_r2"))]
    for column, k in zip(st.columns(len(keys)), keys):
        delta = after[k] - before[k]
        column.metric(
            LABELS[k][0].upper() + LABELS[k][1:],  # "Train R²", not capitalize()'s "Train r²"
            format_measure(k, after[k]) if isinstance(after[k], float) else after[k],
            delta=None if delta == 0 else (f"{delta:+.3f}" if isinstance(delta, float) else f"{delta:+d}"),
            delta_color="off" if k in ("splits", "shared_nodes") else "normal",
        )


def _edit_controls(editor: GraphEditor, key: dict, graph, names, classes, data_fits: bool) -> None:
    """The edit tabs. Nodes are named and picked by the ids the user saw before editing
    (``EditStep.original_ids``): an edit renumbers the graph, not what the user sees, and a box keeps
    its node across edits while that node is still there."""
    text = GraphText(graph, names, classes)
    shown = editor.step.shown_ids
    internal = {int(shown[n]): n for n in range(graph.node_count)}  # shown id -> node of this graph
    splits = [int(shown[n]) for n in np.flatnonzero(~graph.is_leaf)]

    def described(shown_id: int) -> str:
        node = internal[shown_id]
        return f"#{shown_id}: {text.rule(node)}" + (" (leaf)" if graph.is_leaf[node] else "")

    def keep(widget_key: str, options: list) -> dict:
        """The keyword arguments of the box of nodes keyed ``widget_key`` (:func:`ui.state.keyed`): one whose
        node is gone (the split just collapsed) moves on to the next node, not to the first."""

        def moved(value):
            later = [o for o in options if o > value]
            return value if value in options else later[0] if later else options[-1]

        return state.keyed(widget_key, options[0], fit=moved, options=options)

    collapse_tab, redirect_tab, forbid_tab = st.tabs(["Collapse a split", "Redirect an edge", "Forbid a feature"])
    with collapse_tab:
        if not splits:
            st.caption("The graph is a single leaf: nothing to collapse.")
        else:
            picked = st.selectbox(
                "Split to make a leaf", splits, format_func=described, **keep("edit/collapse", splits)
            )
            st.button("Collapse", key="edit/do_collapse", on_click=_act,
                      args=(editor, key, editor.collapse, internal[picked]))  # fmt: skip
    with redirect_tab:
        if not splits:
            st.caption("The graph is a single leaf: it has no edges.")
        else:
            picked = st.selectbox("Split", splits, format_func=described, **keep("edit/redirect_node", splits))
            branches = ["yes", "no"]
            branch = st.radio(
                "Edge", branches, horizontal=True, **state.keyed("edit/branch", branches[0], options=branches)
            )
            targets = [int(shown[t]) for t in legal_targets(graph, internal[picked], branch)]
            if not targets:
                st.caption("No node can take this edge: every other node is an ancestor or already a child.")
            else:
                target_key = f"edit/target/{picked}/{branch}"
                target = st.selectbox(
                    "New end (only nodes that keep the graph acyclic)",
                    targets,
                    format_func=described,
                    **keep(target_key, targets),
                )
                st.button(
                    "Redirect",
                    key="edit/do_redirect",
                    on_click=_act,
                    args=(editor, key, editor.redirect, internal[picked], branch, internal[target]),
                )
    with forbid_tab:
        _forbid_controls(editor, key, names, data_fits)


def _forbid_controls(editor: GraphEditor, key: dict, names, data_fits: bool) -> None:
    forbidden = {e.feature for e in editor.step.edits if e.kind == "forbid"}
    features = [f for f in range(int(editor.base.n_features_in_)) if f not in forbidden]
    try:
        trainable_estimator(editor.base)
        problem = None if data_fits else "Forbidding a feature trains the model again: load its training data first."
    except ValueError as error:
        problem = str(error)
    feature = st.selectbox(
        "Feature the model must not split on",
        features,
        format_func=lambda f: str(names[f]) if names is not None else f"feature {f}",
        **state.keyed("edit/feature", features[0] if features else None, options=features),
    )
    st.button(
        "Forbid and train again",
        key="edit/do_forbid",
        disabled=problem is not None or feature is None,
        on_click=_act,
        args=(editor, key, editor.forbid, feature),
        help="Trains the model again with the same settings, never splitting on this feature (its "
        "`excluded_features`); hand edits made before are not in the new graph (undo brings them back).",
    )
    if problem is not None:
        st.caption(problem)


def _history(editor: GraphEditor, key: dict, names) -> None:
    left, right = st.columns(2)
    left.button("Undo", key="edit/undo", disabled=not editor.history.can_undo, on_click=_act,
                args=(editor, key, editor.undo), width="stretch")  # fmt: skip
    right.button("Redo", key="edit/redo", disabled=not editor.history.can_redo, on_click=_act,
                 args=(editor, key, editor.redo), width="stretch")  # fmt: skip
    every = editor.history.states[-1].edits
    if every:
        done = len(editor.step.edits)
        states = editor.history.states  # edit i was made to states[i]'s graph: named by the ids shown there
        lines = [
            f"{i + 1}. {edit.describe(names, node_ids=states[i].shown_ids)}" + ("" if i < done else " *(undone)*")
            for i, edit in enumerate(every)
        ]
        st.markdown("**Edits**  \n" + "  \n".join(lines))


def changed_caption(changed: list[int], drawn: bool, shown: int = 30) -> str:
    """The sentence naming the nodes the last edit changed: the first ``shown`` ids, and how many in all."""
    ids = ", ".join(f"#{n}" for n in changed[:shown])
    more = f", ... ({len(changed):,} in all)" if len(changed) > shown else ""
    return f"Changed by the last edit{' (bold red border)' if drawn else ''}: {ids}{more}."


def _drawing(step, names, classes) -> None:
    graph = step.model.graph_
    changed = step.changed.tolist()
    shown = step.shown_ids
    mode = drawing_mode(graph)
    if step.edits and step.edits[-1].kind == "forbid":
        st.caption(
            "Trained again with the same settings, never splitting on the forbidden features; hand edits made "
            "before are not in this graph (undo brings them back)."
        )
    elif changed:
        st.caption(changed_caption([int(shown[n]) for n in changed], drawn=True))
    if mode == "interactive":  # the explorer's view, the changed nodes opened
        focus_panel(("edit", drawing.fingerprint(graph)), graph, names, classes, changed, drawing.EDITOR_FRAME_PX)
        return
    dot = to_dot(graph, feature_names=names, class_names=classes, show_ids=shown, highlight_nodes=changed)
    if mode == "browser":
        st.graphviz_chart(dot, width="content")
    else:
        try:
            drawing.svg_panel(drawing.image(dot, "svg"))
        except Exception as err:  # never a stack trace on screen
            st.error(f"The edited graph could not be drawn on the server ({err}).")


def _save_row(editor: GraphEditor, label: str, data, data_fits: bool, base_params) -> None:
    name_col, save_col, download_col = st.columns([3, 1, 1], vertical_alignment="bottom")
    name_col.text_input("Name of the edited model", max_chars=80, **state.keyed("edit/name", f"{label} edited"))
    save_col.button(
        "Save as",
        key="edit/save",
        disabled=not editor.step.edits,
        on_click=_save,
        args=(editor, data, data_fits, base_params),
        width="stretch",
        help="Saves the edited model as a run of this workspace's History, as a model file that records what "
        "it was edited from; it opens on every page.",
    )
    if editor.step.edits:
        download_col.download_button(
            "Model (JSON)",
            data=model_to_json(editor.edited_model()),
            file_name="edited_model.json",
            mime="application/json",
            key="edit/download",
            on_click="ignore",
            width="stretch",
        )
