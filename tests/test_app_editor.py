"""The Graph page's editor in AppTest: collapse, redirect (legal targets only), forbid a feature, undo,
redo, save as into History, reopen from History, and the history brought back by a reload."""

import numpy as np
import pytest
from app_helpers import button, go, new_session

from tnt.editing import collapse, legal_targets
from tnt.viz.colors import HIGHLIGHT_COLOR
from ui.display import counted


def labelled(elements, label):
    (match,) = [e for e in elements if e.label == label]
    return match


def measure(at, label) -> str:
    return labelled(at.metric, label).value


def edited_dot(at) -> str:
    return at.get("graphviz_chart")[-1].proto.spec  # the editor's drawing comes after the page's


def editor(at):
    """The editor the page used last (the one on screen)."""
    return at.session_state["edit/editors"].latest()


@pytest.fixture
def iris_graph(open_app):
    at = open_app(120)
    at.selectbox[0].set_value("iris")
    button(at, "Load data set").click().run()
    return open_editor(go(at, "graph"))


def open_editor(at):
    at.toggle(key="edit/open").set_value(True).run()
    assert not at.exception
    return at


def test_collapse_undo_redo_and_the_changed_node_drawn(iris_graph):
    at = iris_graph
    start = int(measure(at, "Splits"))
    labelled(at.selectbox, "Split to make a leaf").set_value(2).run()
    button(at, "Collapse").click().run()
    assert not at.exception and not at.error
    after = int(measure(at, "Splits"))
    assert after < start
    assert "1. collapse node 2 into a leaf" in " ".join(m.value for m in at.markdown)
    (line,) = [line for line in edited_dot(at).splitlines() if line.startswith("\tn2 [")]
    assert f'color="{HIGHLIGHT_COLOR}"' in line and "penwidth=3" in line
    model = editor(at).model
    data = at.session_state["data/dataset"]
    assert measure(at, "Test accuracy") == f"{model.score(data.X_test, data.y_test):.3f}"
    button(at, "Undo").click().run()
    assert int(measure(at, "Splits")) == start and "*(undone)*" in " ".join(m.value for m in at.markdown)
    button(at, "Redo").click().run()
    assert int(measure(at, "Splits")) == after
    assert button(at, "Redo").disabled


def test_nodes_keep_the_ids_the_user_saw_and_the_box_does_not_jump_back(iris_graph):
    at = iris_graph
    first = editor(at).model.graph_
    splits = np.flatnonzero(~first.is_leaf).tolist()
    # A split whose collapse removes nodes (the graph is renumbered) and leaves a later split.
    chosen = next(
        s for s in splits
        if collapse(first, s).graph.node_count < first.node_count
        and any(t > s and collapse(first, s).new_id[t] >= 0 for t in splits)
    )  # fmt: skip
    labelled(at.selectbox, "Split to make a leaf").set_value(chosen).run()
    button(at, "Collapse").click().run()
    assert not at.exception and not at.error
    step = editor(at).step
    assert step.model.graph_.node_count < first.node_count  # nodes went: the graph was renumbered inside
    # The box moved on to the next split the user saw, not back to #0; every option is an id seen before.
    box = labelled(at.selectbox, "Split to make a leaf")
    assert box.value == min(s for s in splits if s > chosen and s in step.original_ids.tolist())
    assert all(int(o.split(":")[0][1:]) in splits for o in box.options)
    # The drawing and the history name nodes by those ids.
    dot = edited_dot(at)
    for original in step.original_ids.tolist():
        assert f'"#{original}\\n' in dot
    assert f"1. collapse node {chosen} into a leaf" in " ".join(m.value for m in at.markdown)
    assert any(f"#{chosen}" in c.value for c in at.caption if c.value.startswith("Changed by the last edit"))


def test_redirect_offers_only_legal_targets_and_forbid_trains_without_the_feature(iris_graph):
    at = iris_graph
    graph = editor(at).model.graph_
    split = labelled(at.selectbox, "Split")
    split.set_value(2).run()
    at.radio(key=[r.key for r in at.radio if r.label == "Edge"][0]).set_value("no").run()
    target = labelled(at.selectbox, "New end (only nodes that keep the graph acyclic)")
    offered = [int(o.split(":")[0][1:]) for o in target.options]
    assert offered == legal_targets(graph, 2, "no").tolist() and 0 not in offered
    target.set_value(offered[-1]).run()
    button(at, "Redirect").click().run()
    assert not at.exception and not at.error
    assert f"send the no edge of node 2 to node {offered[-1]}" in " ".join(m.value for m in at.markdown)

    labelled(at.selectbox, "Feature the model must not split on").set_value(3).run()
    button(at, "Forbid and train again").click().run()
    model = editor(at).model
    assert 3 not in model.graph_.feature[~model.graph_.is_leaf] and model.n_features_in_ == 4
    assert "forbid petal width (cm) (trained again without it)" in " ".join(m.value for m in at.markdown)


def test_save_as_puts_the_edited_model_in_history_and_it_reopens_on_every_page(iris_graph, state_warnings):
    at = iris_graph
    labelled(at.selectbox, "Split to make a leaf").set_value(2).run()
    button(at, "Collapse").click().run()
    splits = editor(at).model.n_splits_
    at.text_input(key="edit/name").set_value("no second split").run()
    button(at, "Save as").click().run()
    (saved,) = [s.value for s in at.success if "Saved as run" in s.value]
    assert "“no second split”, in History" in saved
    go(at, "history")
    chosen = at.selectbox(key="history/run")
    (label,) = [o for o in chosen.options if "edited by hand: no second split" in o]
    table = at.dataframe[0].value
    row = table[table["edited by hand"] == "no second split"].iloc[0]
    assert row["splits"] == splits
    chosen.select(label).run()
    assert [b.label for b in at.get("download_button")] == ["Edited model (JSON)"]
    button(at, "Open on Graph").click().run()
    assert not at.exception
    assert at.radio(key="graph/model").value.endswith("no second split")
    assert state_warnings == []  # the History page chose the Graph page's model for its next run
    caption = at.main.caption[0].value
    assert caption.startswith("HandEditedClassifier from run") and counted(splits, "split") in caption
    go(at, "compare")
    assert not at.exception and not at.error
    assert any(str(label).endswith("no second split") for frame in at.dataframe for label in frame.value.index)
    assert any(f"no second split**: {counted(splits, 'split')}" in m.value for m in at.markdown)
    go(at, "paths")
    assert not at.exception and not at.error


def test_a_reload_brings_the_edits_back(iris_graph):
    at = iris_graph
    labelled(at.selectbox, "Split to make a leaf").set_value(2).run()
    button(at, "Collapse").click().run()
    button(at, "Undo").click().run()
    ws = at.query_params["ws"][0] if isinstance(at.query_params["ws"], list) else at.query_params["ws"]
    again = go(new_session(120, ws=ws), "graph")
    restored = editor(again)
    assert [e.as_dict() for e in restored.history.states[-1].edits] == [{"kind": "collapse", "node": 2}]
    assert restored.history.position == 0 and not button(again, "Redo").disabled
    button(again, "Redo").click().run()
    assert "1. collapse node 2 into a leaf" in " ".join(m.value for m in again.markdown)


def test_without_data_the_editor_says_which_statistics_are_unknown(open_app, tmp_path):
    from sklearn.datasets import load_iris

    from tnt import TnTClassifier
    from tnt.model_io import model_to_json

    X, y = load_iris(return_X_y=True)
    model = TnTClassifier(C=1e-2, random_state=0).fit(X, y)  # shared node 7 under splits 3 and 5
    at = go(open_app(120), "graph")  # the digits are loaded: 64 columns, not the model's 4
    at.file_uploader(key="graph/model_file").set_value(
        ("iris.json", model_to_json(model).encode(), "application/json")
    ).run()
    assert at.radio(key="graph/model").value == "Opened: iris.json"
    open_editor(at)
    labelled(at.selectbox, "Split to make a leaf").set_value(5).run()
    button(at, "Collapse").click().run()
    (warning,) = [w.value for w in at.warning if w.value.startswith("Statistics unknown")]
    shared = int(collapse(model.graph_, 5).new_id[7])  # node 7, renumbered once node 6 is gone
    assert "nodes #7." in warning  # named by the id the user saw before the edit
    assert button(at, "Forbid and train again").disabled
    assert np.array_equal(editor(at).unknown_nodes, [shared])


def test_a_regression_graph_is_edited_and_measured_by_r2(open_app):
    at = open_app(180)
    at.selectbox[0].set_value("california_housing")
    button(at, "Load data set").click().run()
    at = open_editor(go(at, "graph"))
    assert [m.label for m in at.metric] == ["Splits", "Nodes with several parents", "Train R²", "Test R²"]
    before = float(measure(at, "Train R²"))
    node = int(np.flatnonzero(~editor(at).model.graph_.is_leaf)[1])
    labelled(at.selectbox, "Split to make a leaf").set_value(node).run()
    button(at, "Collapse").click().run()
    assert not at.exception and not at.error
    model = editor(at).model
    data = at.session_state["data/dataset"]
    assert model.graph_.regression and float(measure(at, "Train R²")) < before
    leaves = model.apply(data.X_train)
    leaf = leaves[0]
    assert model.predict(data.X_train[:1])[0] == pytest.approx(data.y_train[leaves == leaf].mean())


def test_the_changed_nodes_sentence_says_how_many_and_mentions_the_border_only_when_drawn():
    from ui.editor import changed_caption

    assert changed_caption([2, 5], drawn=True) == "Changed by the last edit (bold red border): #2, #5."
    long = changed_caption(list(range(40)), drawn=False)
    assert "border" not in long
    assert long.endswith("#29, ... (40 in all).")


def test_the_editor_boxes_show_what_they_hold_and_move_on_past_a_collapsed_split(iris_graph, state_warnings):
    at = iris_graph
    box = labelled(at.selectbox, "Split to make a leaf")
    splits = list(box.options)
    box.set_value(int(splits[1].split(":")[0][1:])).run()
    at.run()
    assert labelled(at.selectbox, "Split to make a leaf").proto.default == 1  # a fresh browser shows it too
    button(at, "Collapse").click().run()  # the split is gone: the box moves on, through the session state
    assert not at.exception and not at.error
    at.run()
    box = labelled(at.selectbox, "Split to make a leaf")
    assert box.proto.default == box.index  # the split it moved on to
    assert at.toggle(key="edit/open").proto.default is True
    assert state_warnings == []
