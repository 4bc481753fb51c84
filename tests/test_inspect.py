"""The inspection library: samples per node and parent, node distributions and their figures, test
errors per node and leaf, the confusion matrix, what-if paths and rules per leaf."""

import numpy as np
import pytest
from conftest import toy_shared_graph
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from tnt import TnTClassifier
from tnt.inspect.distributions import node_distribution
from tnt.inspect.errors import confusion, error_leaves, node_scores
from tnt.inspect.reach import class_indices, routes
from tnt.inspect.rules import leaf_rules
from tnt.inspect.what_if import what_if
from tnt.viz.figure_image import figure_image
from tnt.viz.inspection import MAX_SMALL_MULTIPLES, graph_small_multiples, node_figure

# Toy graph: 0: x0 <= 0.5 -> 1 | 2;  1: x1 <= 1.5 -> 3 | 4;  2: x1 <= 2.5 -> 4 | 6;  4: x0 <= 0.25 -> 5 | 6.
TOY_X = np.array([[0.1, 2.0], [0.9, 2.0], [0.9, 3.0], [0.1, 1.0], [0.2, 2.0]])
TOY_Y = np.array([0, 1, 1, 0, 1])
TOY_PATHS = [[0, 1, 4, 5], [0, 2, 4, 6], [0, 2, 6], [0, 1, 3], [0, 1, 4, 5]]


@pytest.fixture(scope="module")
def digits_model():
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    model = TnTClassifier(C=1e-2, random_state=0).fit(X_train, y_train)
    return model, X_train, class_indices(model.classes_, y_train), X_test, class_indices(model.classes_, y_test)


def test_each_sample_reaches_a_shared_node_through_one_parent():
    g = toy_shared_graph()
    r = routes(g, TOY_X)
    assert [r.path(i) for i in range(len(TOY_X))] == TOY_PATHS
    samples, parents = r.reaching(4)
    assert samples.tolist() == [0, 1, 4] and parents.tolist() == [1, 2, 1]
    samples, parents = r.reaching(6)
    assert samples.tolist() == [1, 2] and parents.tolist() == [4, 2]
    assert r.counts(g.node_count).tolist() == [5, 3, 2, 1, 3, 2, 2]


def test_a_shared_split_is_drawn_once_per_parent_with_its_threshold():
    g = toy_shared_graph()
    d = node_distribution(g, routes(g, TOY_X), TOY_X, TOY_Y, 4)
    assert d.feature == 0 and d.threshold == 0.25 and d.values.tolist() == [0.1, 0.9, 0.2]
    assert d.parent_ids == [1, 2] and d.class_counts().tolist() == [1, 2]
    fig = node_figure(d, ["a", "b"], ["no", "yes"], part="test")
    assert [a.text for a in fig.layout.annotations][:2] == ["through #1", "through #2"]
    assert len(fig.layout.shapes) == 2 and {s.x0 for s in fig.layout.shapes} == {0.25}  # a threshold per panel
    assert fig.layout.title.text == "Node #4: a <= 0.25, 3 test samples"
    # Stacked by class: the bars of each class in each panel add up to its samples from that parent.
    assert sum(sum(t.y) for t in fig.data) == 3


def test_a_leaf_marks_its_prediction_and_an_unreached_node_says_so():
    g = toy_shared_graph()
    r = routes(g, TOY_X)
    leaf = node_figure(node_distribution(g, r, TOY_X, TOY_Y, 6), class_names=["no", "yes"])
    assert list(leaf.data[0].x) == ["no", "yes"] and list(leaf.data[0].y) == [0, 2]
    assert leaf.data[0].marker.line.color[1] != leaf.data[0].marker.line.color[0]  # the predicted class outlined
    assert "predicts yes" in leaf.layout.title.text
    empty = node_figure(node_distribution(g, routes(g, TOY_X[:1]), TOY_X[:1], TOY_Y[:1], 6))
    assert any("No training samples reach" in a.text for a in empty.layout.annotations)


def test_a_regression_split_plots_target_against_feature_and_a_leaf_its_targets():
    from tnt import DecisionGraph

    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2.0], [1.0], [3.0]], regression=True)
    X, y = np.array([[0.1], [0.4], [0.8]]), np.array([1.0, 1.2, 3.0])
    split = node_figure(node_distribution(g, routes(g, X), X, y, 0), ["x"], target_name="price")
    assert list(split.data[0].x) == [0.1, 0.4, 0.8] and list(split.data[0].y) == [1.0, 1.2, 3.0]
    assert split.layout.yaxis.title.text == "price"
    leaf = node_figure(node_distribution(g, routes(g, X), X, y, 1), target_name="price")
    assert sum(leaf.data[0].y) == 2 and leaf.layout.shapes[0].x0 == 1.0


def test_small_multiples_draw_every_node_layer_by_layer_and_refuse_big_graphs(big_random_graph):
    g = toy_shared_graph()
    fig = graph_small_multiples(g, routes(g, TOY_X), TOY_X, TOY_Y, ["a", "b"], ["no", "yes"])
    titles = [a.text for a in fig.layout.annotations if a.text]
    assert len(titles) == g.node_count and titles[0] == "#0 a <= 0.5"
    assert fig.layout.height == 190 * (int(g.node_depth().max()) + 1) + 80
    X = np.random.default_rng(0).random((10, 5))
    with pytest.raises(ValueError, match=f"small multiples are drawn for at most {MAX_SMALL_MULTIPLES}"):
        graph_small_multiples(big_random_graph, routes(big_random_graph, X), X, np.zeros(10, dtype=int))


def test_a_node_figure_exports_as_svg_and_png():
    g = toy_shared_graph()
    fig = node_figure(node_distribution(g, routes(g, TOY_X), TOY_X, TOY_Y, 0), ["a", "b"], ["no", "yes"])
    assert figure_image(fig, "svg", width=500, height=300).lstrip().startswith(b"<svg")
    assert figure_image(fig, "png", width=500, height=300)[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="fmt must be 'svg' or 'png'"):
        figure_image(fig, "gif")


def test_node_scores_and_error_leaves_on_the_toy_graph():
    g = toy_shared_graph()  # predicts 0 at 3 and 5, 1 at 6
    y = np.array([0, 1, 1, 1, 1])
    r = routes(g, TOY_X)
    scores = node_scores(g, r, y)
    # wrong: sample 3 (leaf 3 predicts 0) and sample 4 (leaf 5 predicts 0); right: 0, 1, 2
    assert scores["test_errors"].tolist() == [2, 2, 0, 1, 1, 1, 0]
    assert scores.loc[4, "test_accuracy"] == pytest.approx(2 / 3)
    assert scores["train_samples"].tolist() == g.n_node_samples.tolist()
    leaves = error_leaves(g, r, y, ["a", "b"])
    assert leaves["leaf"].tolist() == [3, 5]
    assert leaves.loc[1, "path"] == "0 → 1 → 4 → 5" and leaves.loc[1, "rule"] == "a <= 0.25 and b > 1.5"


def test_test_view_and_confusion_agree_with_the_model(digits_model):
    model, _, _, X_test, y_test = digits_model
    g = model.graph_
    r = routes(g, X_test)
    scores = node_scores(g, r, y_test)
    accuracy = model.score(X_test, model.classes_[y_test])
    assert scores.loc[0, "test_samples"] == len(y_test)
    assert scores.loc[0, "test_accuracy"] == pytest.approx(accuracy)
    leaf_counts = scores.loc[g.is_leaf, "test_samples"].sum()
    assert leaf_counts == len(y_test)
    c = confusion(g, r, y_test)
    assert c.counts.sum() == len(y_test) and np.trace(c.counts) / len(y_test) == pytest.approx(accuracy)
    true, predicted = np.unravel_index(np.argmax(c.counts - np.diag(np.diag(c.counts))), c.counts.shape)
    cell = c.samples(true, predicted)
    assert cell.size == c.counts[true, predicted] > 0
    assert (model.predict(X_test[cell]) == model.classes_[predicted]).all()
    assert c.frame([str(k) for k in model.classes_]).shape == (10, 10)
    errors = error_leaves(g, r, y_test)
    assert errors["test_errors"].is_monotonic_decreasing
    assert errors["test_errors"].sum() <= len(y_test) - np.trace(c.counts)


def test_confusion_is_refused_for_a_regression():
    from tnt import DecisionGraph

    g = DecisionGraph([-1], [-1], [-2], [-2], [[1.0]], regression=True)
    with pytest.raises(ValueError, match="A regression has no confusion matrix"):
        confusion(g, routes(g, [[0.0]]), [1.0])


def test_what_if_marks_the_tests_that_changed_outcome():
    g = toy_shared_graph()
    w = what_if(g, [0.1, 2.0], [0.9, 2.0], ["a", "b"])  # a crosses 0.5: root and node 4 change outcome
    assert w.original_path == [0, 1, 4, 5] and w.path == [0, 2, 4, 6]
    assert w.changed_tests == [0, 4] and not w.same_leaf
    assert w.table["changed"].tolist() == [True, False, True, False]
    assert w.table.loc[0, "before"] == "0.1" and w.table.loc[0, "value"] == "0.9"
    same = what_if(g, [0.1, 2.0], [0.2, 2.0])
    assert same.changed_tests == [] and same.same_leaf
    with pytest.raises(ValueError, match="The edited sample has 1 values and the original 2"):
        what_if(g, [0.1, 2.0], [0.1])


def test_rules_merge_each_paths_tests_and_count_paths_by_dynamic_programming():
    g = toy_shared_graph()
    assert g.path_counts() == [1, 1, 1, 1, 2, 2, 3]
    rules = leaf_rules(g, routes(g, TOY_X), TOY_Y, feature_names=["a", "b"], class_names=["no", "yes"], top=1)
    leaf6 = rules.leaves.set_index("leaf").loc[6]
    assert leaf6["paths"] == 3 and leaf6["rules_shown"] == 1
    assert leaf6["other_paths"] == 2 and leaf6["other_train_samples"] == 1
    shown = rules.rules.set_index("leaf")
    assert shown.loc[5, "rule"] == "a <= 0.25 and b > 1.5" and shown.loc[5, "train_samples"] == 2
    assert shown.loc[5, "train_precision"] == 0.5
    text = rules.to_text()
    assert "IF a <= 0.25 and b > 1.5 THEN class = no" in text and "2 other paths covering 1 training samples" in text
    assert rules.to_csv().splitlines()[0].startswith("leaf,prediction,rule,paths,train_samples")


def test_rules_cover_every_sample_once_on_a_trained_graph(digits_model):
    model, X_train, y_train, X_test, y_test = digits_model
    g = model.graph_
    rules = leaf_rules(g, routes(g, X_train), y_train, routes(g, X_test), y_test, top=10_000)
    assert rules.rules["train_samples"].sum() == len(y_train)
    assert rules.rules["test_samples"].sum() == len(y_test)
    assert (rules.leaves["other_paths"] >= 0).all()
    counts = g.path_counts()
    assert all(rules.leaves["paths"] == [counts[leaf] for leaf in rules.leaves["leaf"]])
    right = (rules.rules["train_precision"] * rules.rules["train_samples"]).sum()
    assert right / len(y_train) == pytest.approx(model.score(X_train, model.classes_[y_train]))
    # Sorted by class, then by training coverage.
    for _, group in rules.rules.groupby("prediction", sort=False):
        assert group["train_samples"].is_monotonic_decreasing


def test_a_node_of_many_parents_draws_the_busiest_ones_apart_and_the_rest_together():
    from tnt import DecisionGraph
    from tnt.viz.inspection import MAX_PARENT_PANELS

    # Splits 0..7 each send x0 <= i + 0.5 to the shared split 9, the rest on to i + 1 (8 is a leaf).
    left = [9] * 8 + [-1, 10, -1, -1]
    right = [1, 2, 3, 4, 5, 6, 7, 8, -1, 11, -1, -1]
    g = DecisionGraph(left, right, [0] * 8 + [-2, 1, -2, -2], [i + 0.5 for i in range(8)] + [-2, 0.5, -2, -2],
                      np.ones((12, 2)))  # fmt: skip
    X = np.array([[v, 0.0] for v in range(8) for _ in range(1 + (v == 3))])  # parent 3 sends two samples
    dist = node_distribution(g, routes(g, X), X, np.zeros(len(X), dtype=int), 9)
    assert dist.parent_ids == list(range(8))
    fig = node_figure(dist)
    labels = [a.text for a in fig.layout.annotations]
    assert len(labels) == MAX_PARENT_PANELS == 6
    assert labels[0] == "through #0" and "through #3" in labels and labels[-1] == "through the 3 other parents"


def test_paths_are_grouped_exactly_as_numpy_groups_equal_rows():
    from tnt.inspect.rules import _distinct_rows

    rows = np.random.default_rng(0).integers(-1, 4, (500, 6))
    distinct, which = _distinct_rows(rows)
    assert np.array_equal(distinct[which], rows)
    assert len(distinct) == len(np.unique(rows, axis=0)) == len({tuple(r) for r in rows.tolist()})
