"""TnTRegressor: the algorithm's defining properties, and its place among scikit-learn's regressors."""

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.tree import DecisionTreeRegressor

from tnt import DecisionGraph, TnTRegressor
from tnt.learn.regression_growth import RegressionProblem, _LeafValues, _reduced_problem
from tnt.learn.working_graph import FlatGraph, WorkingGraph


@pytest.fixture(scope="module")
def friedman():
    X, y = make_friedman1(n_samples=1500, n_features=6, noise=1.0, random_state=0)
    return X, y


def _splits(tree) -> int:
    return tree.tree_.node_count - tree.get_n_leaves()


@pytest.mark.parametrize("C", [1e-4, 1e-3, 1e-2])
def test_one_phase_is_cost_complexity_pruned_cart(friedman, C):
    # N1=1 grows one micro tree on all the data: DecisionTreeRegressor pruned at ccp_alpha = C * var(y).
    X, y = friedman
    tnt = TnTRegressor(C=C, N1=1, ccp_alpha=0.0, random_state=0).fit(X, y)
    cart = DecisionTreeRegressor(ccp_alpha=C * y.var(), random_state=0).fit(X, y)
    assert tnt.n_splits_ == _splits(cart)
    np.testing.assert_allclose(tnt.predict(X), cart.predict(X), rtol=1e-9, atol=1e-9 * np.abs(y).max())


@pytest.mark.parametrize("C", [3e-4, 3e-3])
def test_one_phase_is_cart_with_weights_in_any_units(friedman, C):
    # Weights are honoured, and C is relative to the weighted variance: rescaling y changes nothing.
    X, y = friedman
    w = np.random.default_rng(0).uniform(0.1, 3.0, size=y.shape[0])
    variance = np.average((y - np.average(y, weights=w)) ** 2, weights=w)
    cart = DecisionTreeRegressor(ccp_alpha=C * variance, random_state=0).fit(X, y, sample_weight=w)
    for scale in (1.0, 1e-3, 1e4):
        tnt = TnTRegressor(C=C, N1=1, random_state=0).fit(X, scale * y + 7.0, sample_weight=w)
        assert tnt.n_splits_ == _splits(cart)
        np.testing.assert_allclose((tnt.predict(X) - 7.0) / scale, cart.predict(X), rtol=1e-6, atol=1e-6)


def test_graph_values_are_leaf_means_and_root_statistics(friedman):
    X, y = friedman
    tnt = TnTRegressor(C=1e-3, random_state=0).fit(X, y)
    g = tnt.graph_
    assert g.regression and g.value.shape == (g.node_count, 1)
    assert g.value[0, 0] == pytest.approx(y.mean())
    assert g.impurity[0] == pytest.approx(y.var())
    assert g.n_node_samples[0] == y.shape[0]
    leaves = tnt.apply(X)
    for leaf in np.unique(leaves)[:20]:
        assert g.value[leaf, 0] == pytest.approx(y[leaves == leaf].mean())
    assert np.array_equal(tnt.predict(X), g.value[leaves, 0])


def test_more_phases_fit_the_training_data_at_least_as_well_per_split(friedman):
    # The second phase refits every node of the first phase's tree: a graph, not a tree, results.
    X, y = friedman
    one = TnTRegressor(C=1e-3, N1=1, random_state=0).fit(X, y)
    two = TnTRegressor(C=1e-3, N1=2, random_state=0).fit(X, y)
    assert two.n_shared_nodes_ > 0
    assert two.score(X, y) > 0.8
    assert one.n_splits_ > 0 and two.n_splits_ > 0


def test_fine_tuning_never_raises_training_error(friedman):
    X, y = friedman
    plain = TnTRegressor(C=1e-3, random_state=0).fit(X, y)
    tuned = TnTRegressor(C=1e-3, fine_tune=2, random_state=0).fit(X, y)
    assert tuned.score(X, y) >= plain.score(X, y) - 1e-12


def test_reduced_problem_targets_the_better_child_weighted_by_the_loss_gap():
    # A stump at x <= 0.5 whose children predict 0 and 1 (standardised targets).
    X = np.array([[0.0], [0.2], [0.8], [1.0]], dtype=np.float32)
    y = np.array([0.1, 0.9, 0.2, 0.5])
    w = np.array([1.0, 2.0, 1.0, 3.0])
    problem = RegressionProblem(X=X, y=y, w=w, n_classes=2, seed=0)
    values = _LeafValues(0.0)
    values.add(np.array([1.0]))
    start = FlatGraph(
        np.array([1, -1, -1]),
        np.array([2, -1, -1]),
        np.array([0, -2, -2]),
        np.array([0.5, -2.0, -2.0]),
        np.array([-1, 0, 1]),
    )
    rows, targets, weights = _reduced_problem(WorkingGraph(start), 0, problem, np.arange(4), values)
    gap = y**2 - (y - 1.0) ** 2  # loss through the left child (0) minus loss through the right (1)
    # Sample 3 (y = 0.5) is as well served by either child: it is left out.
    assert rows.tolist() == [0, 1, 2]
    assert targets.tolist() == [0, 1, 0]
    np.testing.assert_allclose(weights, (w * np.abs(gap))[:3])


def test_constant_target_gives_a_single_leaf():
    X = np.random.default_rng(0).normal(size=(50, 3))
    reg = TnTRegressor(random_state=0).fit(X, np.full(50, 2.5))
    assert reg.n_splits_ == 0
    assert np.all(reg.predict(X) == 2.5)


def test_zero_weights_act_as_absent_samples(friedman):
    X, y = friedman
    w = np.ones(y.shape[0])
    w[::3] = 0
    a = TnTRegressor(C=1e-3, random_state=0).fit(X, y, sample_weight=w)
    b = TnTRegressor(C=1e-3, random_state=0).fit(X[w > 0], y[w > 0])
    assert a.graph_ == b.graph_


def test_feature_importances_point_at_the_informative_features(friedman):
    X, y = friedman  # Friedman #1: features 0-4 matter, 5 is noise
    reg = TnTRegressor(C=1e-3, random_state=0).fit(X, y)
    imp = reg.feature_importances_
    assert imp.sum() == pytest.approx(1.0)
    assert imp[5] < min(imp[:5])


def test_regression_graph_from_sklearn_predicts_as_the_tree(friedman):
    X, y = friedman
    cart = DecisionTreeRegressor(max_leaf_nodes=30, random_state=0).fit(X, y)
    g = DecisionGraph.from_sklearn(cart)
    assert g.regression
    np.testing.assert_array_equal(g.predict_value(X), cart.predict(X))


# ---------------------------------------------------------------------- model files and export
def test_model_file_round_trip(friedman):
    import json

    from tnt.model_io import LoadedGraphRegressor, model_from_json, model_to_json

    X, y = friedman
    reg = TnTRegressor(C=1e-3, random_state=0).fit(X, y)
    text = model_to_json(reg)
    assert json.loads(text)["task"] == "regression" and json.loads(text)["classes"] is None
    loaded = model_from_json(text)
    assert isinstance(loaded, LoadedGraphRegressor) and loaded.graph_ == reg.graph_
    np.testing.assert_array_equal(loaded.predict(X), reg.predict(X))
    assert loaded.score(X, y) == reg.score(X, y)
    cart = DecisionTreeRegressor(max_leaf_nodes=20, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model_from_json(model_to_json(cart)).predict(X), cart.predict(X))


def test_broken_regression_model_files_get_one_sentence(friedman):
    import json

    from tnt.model_io import model_from_json, model_to_json

    X, y = friedman
    doc = json.loads(model_to_json(TnTRegressor(C=1e-2, random_state=0).fit(X, y)))
    for change, message in [
        (lambda d: d.update(classes=[0, 1]), 'has "classes": null'),
        (lambda d: d.update(task="ranking"), '"task" must be'),
        (lambda d: d["graph"].update(value=[[v[0], 1.0] for v in d["graph"]["value"]]), "one finite mean target"),
    ]:
        broken = json.loads(json.dumps(doc))
        change(broken)
        with pytest.raises(ValueError, match=message):
            model_from_json(json.dumps(broken))


def test_exports_show_predicted_values_and_value_colours(friedman):
    from tnt.viz.colors import VALUE_SCALE, node_colors
    from tnt.viz.export_dot import to_dot
    from tnt.viz.export_networkx import to_networkx
    from tnt.viz.export_text import export_text

    X, y = friedman
    g = TnTRegressor(C=1e-2, random_state=0).fit(X, y).graph_
    leaf = int(np.flatnonzero(g.is_leaf)[0])
    text = export_text(g, precision=2)
    assert f"value: {g.value[leaf, 0]:.2f}".rstrip("0").rstrip(".") in text and "class:" not in text
    dot = to_dot(g, show_shares=True)
    assert "mean " in dot and ", sd " in dot
    nxg = to_networkx(g)
    assert nxg.nodes[leaf]["predicted_value"] == g.value[leaf, 0] and nxg.nodes[leaf]["predicted_class"] is None
    colors = node_colors(g)
    assert colors[int(np.argmin(g.value[:, 0]))] == VALUE_SCALE[0][1]
    assert colors[int(np.argmax(g.value[:, 0]))] == VALUE_SCALE[-1][1]
    with pytest.raises(ValueError, match="no classes"):
        export_text(g, class_names=["a"])


def test_bundled_california_sample_reads_as_a_regression_table():
    from tnt.data.csv_loader import read_csv_table
    from tnt.data.datasets import SAMPLE_DATA, target_task

    X, y = read_csv_table(SAMPLE_DATA / "california_housing_sample.csv", target="median_house_value", task="auto")
    assert X.shape == (2000, 8) and target_task(y) == "regression" and y.dtype == np.float64
    assert TnTRegressor(C=1e-2, random_state=0).fit(X, y).score(X, y) > 0.5


def test_exporter_names_of_a_regressor_have_no_classes(friedman):
    from tnt.viz.exporter import names_of

    X, y = friedman
    assert names_of(TnTRegressor(C=1e-2, random_state=0).fit(X, y)) == (None, None)


@pytest.mark.parametrize("fine_tune", [0, 2])
def test_threads_do_not_change_the_regression_graph(friedman, fine_tune, monkeypatch):
    # Binning in parts and nodes grown at the same time (every wave on threads here) give the graph
    # of one thread, fine-tuned or not.
    import tnt.learn.growth
    import tnt.learn.regression_growth

    monkeypatch.setattr(tnt.learn.growth, "THREADED_WORK", 0)
    monkeypatch.setattr(tnt.learn.regression_growth, "THREADED_WORK", 0)
    X, y = friedman
    one = TnTRegressor(C=1e-3, fine_tune=fine_tune, random_state=0, n_jobs=1).fit(X, y)
    two = TnTRegressor(C=1e-3, fine_tune=fine_tune, random_state=0, n_jobs=2).fit(X, y)
    assert one.n_splits_ > 20
    assert one.graph_ == two.graph_
    assert np.array_equal(one.feature_importances_, two.feature_importances_)
