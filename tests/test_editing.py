"""Editing a graph by hand (tnt.editing): collapse, redirect, unreachable nodes removed and the rest
renumbered, statistics recomputed, undo/redo, forbidding a feature, and the edited model's file."""

import json

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_friedman1

from tnt import DecisionGraph, TnTClassifier, TnTRegressor
from tnt.editing import Edit, GraphEditor, collapse, legal_targets, redirect, remove_unreachable
from tnt.model_io import model_from_json, model_to_json

# 0: x0 <= .5 ? 1 : 2 ; 1: x1 <= .5 ? 3 : 4 ; 2: x1 <= .5 ? 5 : 4 (4 shared) ; leaves 3, 4, 5
SMALL = DecisionGraph(
    children_left=[1, 3, 5, -1, -1, -1],
    children_right=[2, 4, 4, -1, -1, -1],
    feature=[0, 1, 1, -2, -2, -2],
    threshold=[0.5, 0.5, 0.5, -2, -2, -2],
    value=np.zeros((6, 2)),
)
X_SMALL = np.array([[0.1, 0.1], [0.2, 0.9], [0.9, 0.2], [0.8, 0.8], [0.3, 0.2], [0.7, 0.1]])
Y_SMALL = np.array([0, 1, 0, 1, 0, 1])


def is_topological(graph: DecisionGraph) -> bool:
    internal = ~graph.is_leaf
    ids = np.arange(graph.node_count)[internal]
    return bool(np.all(graph.children_left[internal] > ids) and np.all(graph.children_right[internal] > ids))


def route(left, right, feature, threshold, x) -> int:
    """A sample's leaf by walking the arrays in Python: the reference the graph's routing must match."""
    node = 0
    while left[node] >= 0:
        node = left[node] if np.float32(x[feature[node]]) <= threshold[node] else right[node]
    return node


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.fixture(scope="module")
def iris_tnt(iris):
    X, y = iris
    return TnTClassifier(C=1e-2, random_state=0).fit(X, y)


# ---------------------------------------------------------------------------------------- collapse
def test_collapse_makes_the_split_a_leaf_and_removes_what_only_it_reached():
    g = SMALL.with_training_stats(X_SMALL, Y_SMALL)
    change = collapse(g, 2)
    assert change.graph.node_count == 5  # leaf 5 was reached only through node 2
    assert change.new_id.tolist() == [0, 1, 2, 3, 4, -1]
    assert change.graph.is_leaf[2] and change.edited.tolist() == [2]
    assert change.graph.value[2].tolist() == g.value[2].tolist()  # the samples reaching it did not change
    assert change.stale.tolist() == [False, False, False, False, True]  # shared leaf 4 lost node 2's samples
    assert is_topological(change.graph)


def test_collapsing_the_root_leaves_one_leaf():
    change = collapse(SMALL.with_training_stats(X_SMALL, Y_SMALL), 0)
    assert change.graph.node_count == 1 and change.graph.n_splits == 0
    assert change.graph.value[0].tolist() == [3.0, 3.0]


def test_a_leaf_or_a_missing_node_cannot_be_collapsed():
    with pytest.raises(ValueError, match=r"^Node 3 is a leaf already; only a split can be collapsed"):
        collapse(SMALL, 3)
    with pytest.raises(ValueError, match=r"^There is no node 6: the graph's nodes are 0 to 5\.$"):
        collapse(SMALL, 6)


# ---------------------------------------------------------------------------------------- redirect
def test_legal_targets_leave_out_cycles_the_present_end_and_the_other_child():
    assert legal_targets(SMALL, 1, "yes").tolist() == [2, 5]  # not 0 (ancestor), 1 (itself), 3, 4 (children)
    assert legal_targets(SMALL, 2, "no").tolist() == [1, 3]
    assert legal_targets(SMALL, 0, "yes").tolist() == [3, 4, 5]


@pytest.mark.parametrize(
    ("node", "branch", "target", "message"),
    [
        (1, "yes", 0, r"^Node 0 is an ancestor of node 1: an edge from 1 to it would make a cycle\.$"),
        (1, "yes", 1, r"^Node 1 cannot lead to itself: that would make a cycle\.$"),
        (1, "yes", 3, r"^The yes edge of node 1 already leads to node 3\.$"),
        (
            1,
            "yes",
            4,
            r"^Node 4 is already node 1's other child: the split would decide nothing; collapse it instead\.$",
        ),
        (1, "maybe", 2, r"^branch must be 'yes' \(the left edge, where the test holds\) or 'no'; got 'maybe'\.$"),
        (3, "no", 5, r"^Node 3 is a leaf already"),
        (1, "no", 9, r"^There is no target node 9: the graph's nodes are 0 to 5\.$"),
    ],
)
def test_an_illegal_redirect_is_refused_in_one_sentence(node, branch, target, message):
    with pytest.raises(ValueError, match=message):
        redirect(SMALL, node, branch, target)


def test_a_redirect_to_a_smaller_id_is_renumbered_and_routes_as_the_edited_arrays():
    # Node 2's yes edge to node 1 (id smaller than 2's, not an ancestor): 1 must now come after 2.
    change = redirect(SMALL, 2, "yes", 1)
    g = change.graph
    assert is_topological(g)
    assert change.new_id.tolist() == [0, 2, 1, 3, 4, -1]  # leaf 5 unreachable: removed
    left, right = SMALL.children_left.copy(), SMALL.children_right.copy()
    left[2] = 1
    rng = np.random.default_rng(0)
    for x in rng.random((200, 2)):
        expected = route(left, right, SMALL.feature, SMALL.threshold, x)
        assert g.apply(x[None, :])[0] == change.new_id[expected]
    assert sorted(change.edited.tolist()) == [1, 2]


def test_every_legal_target_gives_a_valid_graph_and_every_other_node_is_refused(iris, iris_tnt):
    X, _ = iris
    g = iris_tnt.graph_
    assert g.shared_nodes.size > 0
    splits = np.flatnonzero(~g.is_leaf)
    for node in splits[:: max(1, splits.size // 6)]:
        for branch in ("yes", "no"):
            legal = set(legal_targets(g, node, branch).tolist())
            assert not legal & set(np.flatnonzero(g.ancestors(node)).tolist())
            for target in range(g.node_count):
                if target in legal:
                    edited = redirect(g, node, branch, target).graph
                    assert is_topological(edited) and edited.apply(X).shape == (X.shape[0],)
                else:
                    with pytest.raises(ValueError):
                        redirect(g, node, branch, target)


def test_remove_unreachable_keeps_the_order_of_a_graph_already_clean(iris_tnt):
    g = iris_tnt.graph_
    kept, new_id = remove_unreachable(g)
    assert kept == g and new_id.tolist() == list(range(g.node_count))


# ---------------------------------------------------------------------------------------- statistics
def test_statistics_after_edits_equal_a_fresh_computation(iris, iris_tnt):
    X, y = iris
    editor = GraphEditor(iris_tnt, X, y)
    g = iris_tnt.graph_
    node = int(g.shared_nodes[0])
    parent = g.parents(node)[0]
    branch = "yes" if g.children_left[parent] == node else "no"
    target = int(legal_targets(g, parent, branch)[-1])
    editor.redirect(parent, branch, target)
    editor.collapse(int(np.flatnonzero(~editor.model.graph_.is_leaf)[-1]))
    edited = editor.model.graph_
    fresh = edited.with_training_stats(X, y)
    reached = fresh.n_node_samples > 0
    assert np.array_equal(edited.n_node_samples, fresh.n_node_samples)
    assert np.allclose(edited.value[reached], fresh.value[reached])
    assert np.allclose(edited.impurity[reached], fresh.impurity[reached])
    # leaf predictions come from the samples reaching each leaf
    leaves = editor.model.apply(X)
    for leaf in np.unique(leaves):
        assert (
            editor.model.classes_[np.argmax(np.bincount(y[leaves == leaf], minlength=3))]
            == editor.model.predict(X[leaves == leaf][:1])[0]
        )
    assert editor.unknown_nodes.size == 0


def test_with_other_data_than_the_model_learned_from_only_the_nodes_the_edit_changes_are_listed(iris):
    """A model opened from a file learned its statistics from other data: nodes the edit leaves alone
    (the root, the collapsed split's ancestors) are not listed as changed."""
    X, y = iris
    model = TnTClassifier(C=1e-2, random_state=0).fit(X[::2], y[::2])
    editor = GraphEditor(model, X[1::2], y[1::2])
    g = model.graph_
    deepest = int(np.flatnonzero(~g.is_leaf)[-1])
    editor.collapse(deepest)
    changed = set(editor.step.changed.tolist())
    assert 0 not in changed
    assert len(changed) < editor.model.graph_.node_count // 2


def test_without_data_the_editor_says_which_statistics_are_unknown(iris_tnt):
    editor = GraphEditor(iris_tnt)  # no training data
    g = iris_tnt.graph_
    node = int(g.parents(int(g.shared_nodes[0]))[-1])
    editor.collapse(node)
    change = collapse(g, node)
    assert np.array_equal(editor.unknown_nodes, np.flatnonzero(change.stale))
    assert editor.unknown_nodes.size > 0
    new = change.new_id[node]
    assert editor.model.graph_.value[new].tolist() == g.value[node].tolist()  # the collapsed node's own stays
    assert set(editor.unknown_nodes.tolist()) <= set(editor.step.changed.tolist())
    with pytest.raises(
        ValueError, match=r"^Forbidding a feature trains the model again, which needs its training data\.$"
    ):
        editor.forbid(0)


def test_an_edited_regression_graph_predicts_the_mean_target_of_its_leaves():
    X, y = make_friedman1(n_samples=300, random_state=0)
    reg = TnTRegressor(C=1e-2, random_state=0).fit(X, y)
    editor = GraphEditor(reg, X, y)
    splits = np.flatnonzero(~reg.graph_.is_leaf)
    editor.collapse(int(splits[len(splits) // 2]))
    model = editor.model
    assert model.graph_.regression and model.n_splits_ < reg.n_splits_
    leaves = model.apply(X)
    for leaf in np.unique(leaves):
        assert model.predict(X[leaves == leaf][:1])[0] == pytest.approx(y[leaves == leaf].mean())
    loaded = model_from_json(model_to_json(editor.edited_model()))
    assert loaded.estimator_kind_ == "HandEditedRegressor"
    assert np.array_equal(loaded.predict(X), model.predict(X))


# ---------------------------------------------------------------------------------------- history
def test_undo_redo_and_a_new_edit_after_an_undo(iris, iris_tnt):
    X, y = iris
    editor = GraphEditor(iris_tnt, X, y)
    first = editor.model
    editor.collapse(0)
    assert editor.model.n_splits_ == 0 and editor.history.can_undo
    assert editor.undo().model is first
    assert editor.redo().model.n_splits_ == 0
    editor.undo()
    split = int(np.flatnonzero(~first.graph_.is_leaf)[-1])
    editor.collapse(split)
    assert not editor.history.can_redo
    assert [e.kind for e in editor.step.edits] == ["collapse"] and editor.step.edits[0].node == split
    with pytest.raises(ValueError, match="is a leaf already"):
        editor.collapse(editor.model.graph_.node_count - 1)
    assert editor.step.edits[0].node == split  # a refused edit leaves the history as it was


def test_a_replayed_history_gives_the_same_model(iris, iris_tnt):
    X, y = iris
    editor = GraphEditor(iris_tnt, X, y)
    editor.collapse(int(np.flatnonzero(~iris_tnt.graph_.is_leaf)[-1]))
    editor.forbid(3)
    editor.collapse(int(np.flatnonzero(~editor.model.graph_.is_leaf)[-1]))
    edits = [e.as_dict() for e in editor.step.edits]
    again = GraphEditor.replayed(iris_tnt, json.loads(json.dumps(edits)), X, y)
    assert again.model.graph_ == editor.model.graph_
    back = GraphEditor.replayed(iris_tnt, edits, X, y, position=1)
    assert back.model.graph_ == editor.history.states[1].model.graph_ and back.history.can_redo
    with pytest.raises(ValueError, match=r"^An edit is an object whose kind is one of collapse, redirect, forbid\.$"):
        Edit.from_dict({"kind": "delete"})
    with pytest.raises(ValueError, match=r"^The redirect edit has no valid branch\.$"):
        Edit.from_dict({"kind": "redirect", "node": 1, "branch": "left", "target": 2})


# ---------------------------------------------------------------------------------------- forbid
def test_forbid_trains_again_without_the_feature_with_the_same_settings(iris, iris_tnt):
    X, y = iris
    used = np.bincount(iris_tnt.graph_.feature[~iris_tnt.graph_.is_leaf], minlength=4)
    feature = int(np.argmax(used))
    editor = GraphEditor(iris_tnt, X, y)
    editor.forbid(feature)
    model = editor.model
    assert feature not in model.graph_.feature[~model.graph_.is_leaf]
    assert model.n_features_in_ == 4
    assert model.get_params() == {**iris_tnt.get_params(), "excluded_features": [feature]}
    with pytest.raises(ValueError, match=rf"^Feature {feature} is forbidden already\.$"):
        editor.forbid(feature)
    with pytest.raises(ValueError, match=r"^There is no feature 4: the model's features are 0 to 3\.$"):
        editor.forbid(4)


def test_a_model_file_can_be_trained_again_but_a_hand_edited_one_cannot(iris, iris_tnt):
    X, y = iris
    loaded = model_from_json(model_to_json(iris_tnt))
    editor = GraphEditor(loaded, X, y)
    editor.forbid(2)
    assert 2 not in editor.model.graph_.feature
    edited = model_from_json(model_to_json(editor.edited_model()))
    with pytest.raises(
        ValueError, match=r"^A HandEditedClassifier cannot be trained again \(it has no training settings\)"
    ):
        GraphEditor(edited, X, y).forbid(1)


# ---------------------------------------------------------------------------------------- the model file
def test_the_edited_model_file_records_what_it_was_edited_from(iris, iris_tnt):
    X, y = iris
    editor = GraphEditor(iris_tnt, X, y, name="TnT on iris")
    editor.forbid(3)
    split = int(np.flatnonzero(~editor.model.graph_.is_leaf)[-1])
    editor.collapse(split)
    text = model_to_json(editor.edited_model())
    doc = json.loads(text)
    assert doc["estimator"] == "HandEditedClassifier" and doc["params"] == {}
    assert doc["edited"]["from"]["estimator"] == "TnTClassifier"
    assert doc["edited"]["from"]["name"] == "TnT on iris"
    assert doc["edited"]["from"]["params"]["C"] == 1e-2
    assert doc["edited"]["edits"] == [{"kind": "forbid", "feature": 3}, {"kind": "collapse", "node": split}]
    loaded = model_from_json(text)
    assert np.array_equal(loaded.predict(X), editor.model.predict(X))
    assert loaded.edit_record_ == doc["edited"] == editor.model.edit_record_  # the step's model knows its edits
    assert model_to_json(loaded) == text
    # editing it further continues its record
    more = GraphEditor(loaded, X, y)
    more.collapse(0)
    assert [e["kind"] for e in more.edit_record()["edits"]] == ["forbid", "collapse", "collapse"]


def test_hand_edits_before_a_forbid_are_not_in_the_record(iris, iris_tnt):
    X, y = iris
    editor = GraphEditor(iris_tnt, X, y)
    editor.collapse(int(np.flatnonzero(~iris_tnt.graph_.is_leaf)[-1]))
    editor.forbid(1)
    assert editor.edit_record()["edits"] == [{"kind": "forbid", "feature": 1}]


def test_forbid_on_a_model_fitted_on_a_data_frame_keeps_its_column_names():
    data = load_iris(as_frame=True)
    model = TnTClassifier(C=1e-2, random_state=0, excluded_features=["sepal width (cm)"]).fit(data.data, data.target)
    editor = GraphEditor(model, data.data, data.target)
    editor.forbid(3)
    retrained = editor.model
    assert list(retrained.feature_names_in_) == list(data.data.columns)
    assert retrained.get_params()["excluded_features"] == [3, "sepal width (cm)"]
    assert not {1, 3} & set(retrained.graph_.feature[~retrained.graph_.is_leaf].tolist())


def test_a_saved_history_is_replayed_only_on_the_model_it_was_saved_for(iris, iris_tnt):
    from tnt.services.editing import editor_state, restored_editor

    X, y = iris
    editor = GraphEditor(iris_tnt, X, y)
    editor.collapse(5)
    editor.collapse(2)
    editor.undo()
    key = {"dataset": "iris", "model": "TnT", "graph": "abc"}
    saved = json.loads(json.dumps(editor_state(editor, key)))
    assert saved["edits"] == [{"kind": "collapse", "node": 5}, {"kind": "collapse", "node": 2}]
    again = restored_editor(saved, key, iris_tnt, X, y)
    assert again.history.position == 1 and again.model.graph_ == editor.model.graph_ and again.history.can_redo
    assert restored_editor(saved, {**key, "model": "CART (same splits)"}, iris_tnt, X, y) is None
    assert restored_editor({**saved, "edits": [{"kind": "collapse", "node": 99}]}, key, iris_tnt, X, y) is None
    assert restored_editor({**saved, "position": "1"}, key, iris_tnt, X, y) is None
    assert restored_editor(None, key, iris_tnt, X, y) is None


def test_edits_keep_the_directions_of_missing_values():
    from test_missing_routing import nan_classification

    from tnt import CARTClassifier

    X, y = nan_classification(n=300, seed=1)
    model = CARTClassifier(max_leaf_nodes=8, random_state=0).fit(X, y)
    editor = GraphEditor(model, X, y)
    split = int(np.flatnonzero(model.graph_.children_left > 0)[-1])
    editor.collapse(split)
    edited = editor.edited_model()
    graph = edited.graph_
    assert graph.missing_go_to_left is not None
    kept = [n for n in range(graph.node_count) if graph.children_left[n] >= 0]
    original = {
        (f, t, d) for f, t, d in zip(model.graph_.feature, model.graph_.threshold, model.graph_.missing_go_to_left)
    }
    assert {(graph.feature[n], graph.threshold[n], graph.missing_go_to_left[n]) for n in kept} <= original
    reached = model.graph_.decision_path(X)[:, split].toarray().ravel() == 0
    assert np.array_equal(edited.predict(X[reached]), model.predict(X[reached]))


def test_a_node_the_root_does_not_reach_is_no_target_and_is_removed_by_any_edit():
    # node 3 is a leaf no edge leads to
    g = DecisionGraph([1, -1, -1, -1], [2, -1, -1, -1], [0, -2, -2, -2], [0.5, -2, -2, -2], np.ones((4, 2)))
    assert legal_targets(g, 0, "yes").tolist() == []
    with pytest.raises(
        ValueError, match=r"^Node 3 is not reached from the root; send the edge to a node of the graph\.$"
    ):
        redirect(g, 0, "yes", 3)
    assert collapse(g, 0).new_id.tolist() == [0, -1, -1, -1]


# ---------------------------------------------------------------------------------- sample weights
@pytest.mark.parametrize("regression", [False, True])
def test_edits_of_a_weighted_model_change_only_what_the_edited_split_reaches(regression):
    """A model fitted with 5:1 weights: collapsing its deepest split changes no prediction of a sample
    that never reached that split, and ``changed`` lists every node whose statistics moved (checked
    against a one-sample walk of the edited arrays and weighted statistics computed by hand)."""
    from tnt import CARTClassifier, CARTRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    if regression:
        y = X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.3, size=400)
        model = CARTRegressor(max_leaf_nodes=24, random_state=0)
    else:
        y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=400) > 0).astype(int)
        model = CARTClassifier(max_leaf_nodes=24, random_state=0)
    weight = np.where(rng.random(400) < 0.5, 5.0, 1.0)
    model.fit(X, y, sample_weight=weight)
    g = model.graph_
    depth = np.zeros(g.node_count, dtype=int)
    for node in range(g.node_count):  # topological order: parents first
        if not g.is_leaf[node]:
            depth[[g.children_left[node], g.children_right[node]]] = depth[node] + 1
    deepest = int(np.flatnonzero(~g.is_leaf)[np.argmax(depth[~g.is_leaf])])
    reaches = np.asarray(g.decision_path(X).todense())[:, deepest].astype(bool)
    assert 0 < reaches.sum() < 400

    unweighted = GraphEditor(model, X, y).collapse(deepest).model.predict(X)
    editor = GraphEditor(model, X, y, sample_weight=weight)
    step = editor.collapse(deepest)
    before, after = model.predict(X), step.model.predict(X)
    assert np.array_equal(after[~reaches], before[~reaches])
    # Without the weights, leaves no edit touched predict otherwise: the bug this guards against.
    assert not np.array_equal(unweighted[~reaches], before[~reaches])

    e = step.model.graph_
    leaf = np.array([route(e.children_left, e.children_right, e.feature, e.threshold, x) for x in X])
    for node in np.flatnonzero(e.is_leaf):
        at = leaf == node
        if regression:
            expected = np.average(y[at], weights=weight[at])
            assert e.value[node, 0] == pytest.approx(expected)
        else:
            mass = np.bincount(y[at], weights=weight[at], minlength=2)
            assert np.argmax(e.value[node]) == np.argmax(mass)
    # Only the collapsed node changed: it is now a leaf reached by exactly the samples that reached
    # the split (its ancestors lost no sample, and no other leaf's weighted statistics moved).
    assert step.changed.size == 1
    collapsed = int(step.changed[0])
    assert e.is_leaf[collapsed] and np.array_equal(leaf == collapsed, reaches)


def test_weights_without_training_data_or_of_the_wrong_length_are_refused(iris, iris_tnt):
    X, y = iris
    with pytest.raises(ValueError, match="pass the training data with them"):
        GraphEditor(iris_tnt, sample_weight=np.ones(150))
    with pytest.raises(ValueError, match="sample_weight has shape"):
        GraphEditor(iris_tnt, X, y, sample_weight=np.ones(10))


def test_forbid_on_a_weighted_model_trains_again_with_the_weights(iris):
    X, y = iris
    weight = np.where(y == 2, 5.0, 1.0)
    model = TnTClassifier(C=1e-2, random_state=0).fit(X, y, sample_weight=weight)
    step = GraphEditor(model, X, y, sample_weight=weight).forbid(3)
    expected = TnTClassifier(C=1e-2, random_state=0, excluded_features=[3]).fit(X, y, sample_weight=weight)
    assert np.array_equal(step.model.predict(X), expected.predict(X))
    assert step.model.n_splits_ == expected.n_splits_


# ------------------------------------------------------------------------------ the ids a person saw
def test_every_node_keeps_the_id_it_had_before_the_edits(iris, iris_tnt):
    """After collapses and a redirect (which remove nodes and renumber the rest), ``original_ids`` names
    each node of the edited graph by its id in the first graph: the same test, or the collapsed split."""
    X, y = iris
    editor = GraphEditor(iris_tnt, X, y)
    first = iris_tnt.graph_
    assert editor.step.original_ids.tolist() == list(range(first.node_count))
    splits = np.flatnonzero(~first.is_leaf)
    editor.collapse(int(splits[1]))  # removes what only it reached: later ids move down
    g = editor.model.graph_
    original = editor.step.original_ids
    assert g.node_count < first.node_count and (original >= 0).all() and len(set(original.tolist())) == g.node_count
    assert np.all(np.diff(original) > 0)  # the order of the nodes is kept
    for node in range(g.node_count):
        if not g.is_leaf[node]:  # a split left as it was: the same test under its old id
            assert (g.feature[node], g.threshold[node]) == (
                first.feature[original[node]],
                first.threshold[original[node]],
            )
    collapsed = int(np.flatnonzero(original == splits[1])[0])
    assert g.is_leaf[collapsed]
    # A second edit names nodes by the ids of the graph it was applied to; described with the ids shown.
    node = int(np.flatnonzero(~g.is_leaf)[-1])
    step = editor.collapse(node)
    assert step.edits[-1].describe(node_ids=editor.history.states[1].shown_ids) == (
        f"collapse node {int(original[node])} into a leaf"
    )
    assert int(original[node]) in step.original_ids.tolist()
    # Undo brings back the ids of the step before.
    assert editor.undo().original_ids.tolist() == original.tolist()
    # A forbidden feature trains a new graph: its ids are its own.
    assert editor.forbid(0).original_ids.tolist() == list(range(editor.model.graph_.node_count))
