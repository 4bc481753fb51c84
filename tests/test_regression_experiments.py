"""Regression in the library's app-facing parts: the task of a data set (detected, or chosen either
way), CART for regression at the same splits, R² and RMSE in training, compare, sweep and budgets,
the colour scale of node means, the node inspector and model files against the data in use."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.tree import DecisionTreeRegressor

from tnt import DecisionGraph
from tnt.baselines import CARTRegressor
from tnt.data.datasets import DataError, load_bundled, make_dataset, target_task
from tnt.data.sources import bundled_source, check_source, dataset_from_source, upload_source
from tnt.services.tasks import headline_measure, is_regression, model_classes, scores


@pytest.fixture(scope="module")
def housing():
    return load_bundled("california_housing", test_size=0.3, seed=0)


def frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 2))
    return pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "price": 100 * X[:, 0] + X[:, 1], "stars": np.round(4 * X[:, 0])})


# ---------------------------------------------------------------------------------------------- the task
def test_the_task_rule_many_numbers_are_a_regression_few_whole_numbers_classes():
    assert target_task(pd.Series(np.linspace(0, 1, 51))) == "regression"  # more than 50 values
    assert target_task(pd.Series(np.arange(50))) == "classification"  # 50 whole numbers: classes
    assert target_task(pd.Series(np.arange(11) / 2)) == "regression"  # 11 values, not all whole
    assert target_task(pd.Series(["a", "b"] * 40)) == "classification"
    assert target_task(pd.Series([True, False] * 40)) == "classification"


def test_auto_follows_the_rule_and_either_task_can_be_chosen():
    table = frame()
    auto = make_dataset(table, target="price", features=["a", "b"], name="t")
    assert auto.task == "regression" and auto.is_regression and auto.classes.size == 0
    assert auto.y_train.dtype == np.float64 and len(auto.y_test) == 36  # a plain, unstratified split
    stars = make_dataset(table, target="stars", features=["a", "b"], name="t")
    assert stars.task == "classification" and stars.class_names == ["0.0", "1.0", "2.0", "3.0", "4.0"]
    told = make_dataset(table, target="stars", features=["a", "b"], name="t", task="regression")
    assert told.task == "regression" and told.key != stars.key
    # A classification chosen for a continuous column takes it as labels (here, too many to split).
    with pytest.raises(DataError, match="has only one row; a stratified split needs"):
        make_dataset(table, target="price", features=["a", "b"], name="t", task="classification")
    with pytest.raises(DataError, match="The task must be one of auto, classification, regression"):
        make_dataset(table, target="price", features=["a", "b"], name="t", task="ranking")


def test_keys_of_classification_data_sets_are_those_saved_before_regression():
    table = frame()
    auto = make_dataset(table, target="stars", features=["a", "b"], name="t")
    chosen = make_dataset(table, target="stars", features=["a", "b"], name="t", task="classification")
    regression = make_dataset(table, target="stars", features=["a", "b"], name="t", task="regression")
    assert auto.key == chosen.key != regression.key  # the task enters the key of a regression only


def test_the_bundled_housing_sample_is_a_regression_with_its_licence_noted(housing):
    assert housing.task == "regression" and housing.n_features == 8 and len(housing.y_train) == 1400
    from tnt.data.datasets import catalog

    (entry,) = [e for e in catalog() if e["id"] == "california_housing"]
    assert entry["task"] == "regression" and "MIT" in entry["source"] and "StatLib" in entry["source"]
    hist = housing.target_histogram(bins=10)
    assert hist.index.is_monotonic_increasing and hist.to_numpy().sum() == 2000


def test_an_upload_source_keeps_the_chosen_task_and_is_checked():
    from tnt.data.csv_loader import read_csv_bytes

    raw = frame().to_csv(index=False).encode()
    table = read_csv_bytes(raw, "t.csv")
    auto = upload_source(raw, "t.csv", target="stars", features=["a", "b"])
    assert "task" not in auto  # sources saved before regression read the same
    told = upload_source(raw, "t.csv", target="stars", features=["a", "b"], task="regression")
    assert told["task"] == "regression" and dataset_from_source(told, table).task == "regression"
    assert dataset_from_source(auto, table).task == "classification"
    with pytest.raises(DataError, match="no valid 'task'"):
        check_source({**told, "task": "ranking"})
    assert dataset_from_source(bundled_source("california_housing")).task == "regression"


# ---------------------------------------------------------------------------------------------- models and scores
def test_cart_for_regression_is_scikit_learns_tree_grown_best_first(housing):
    ours = CARTRegressor.with_splits(20, random_state=0).fit(housing.X_train, housing.y_train)
    theirs = DecisionTreeRegressor(max_leaf_nodes=21, random_state=0).fit(housing.X_train, housing.y_train)
    assert ours.n_splits_ == 20 and ours.graph_.regression
    np.testing.assert_allclose(ours.predict(housing.X_test), theirs.predict(housing.X_test))
    assert ours.n_shared_nodes_ == 0 and ours.decision_depth(housing.X_test).max() <= 20


def test_scores_are_scikit_learns_r2_and_rmse(housing):
    model = CARTRegressor.with_splits(10).fit(housing.X_train, housing.y_train)
    found = scores(model, housing.X_test, housing.y_test, "test")
    predicted = model.predict(housing.X_test)
    assert found["test_r2"] == pytest.approx(r2_score(housing.y_test, predicted))
    assert found["test_rmse"] == pytest.approx(np.sqrt(mean_squared_error(housing.y_test, predicted)))
    assert is_regression(model) and headline_measure(found) == "test_r2"
    assert [c.__name__ for c in model_classes(False)] == ["TnTClassifier", "CARTClassifier"]


def test_training_compare_sweep_and_budget_measure_a_regression(housing):
    from tnt.experiments.sweep import REGRESSION_COLUMNS, sweep
    from tnt.services.budget import fit_to_budget
    from tnt.services.compare import REGRESSION_MODELS, compare_models
    from tnt.services.training import TrainParams, train

    result = train(housing, TrainParams(C=1e-2))
    assert type(result.tnt).__name__ == "TnTRegressor" and result.cart.n_splits_ == result.tnt.n_splits_
    assert set(result.tnt_metrics) >= {"train_r2", "test_r2", "train_rmse", "test_rmse", "splits", "mean_depth"}
    assert "test_accuracy" not in result.tnt_metrics
    compared = compare_models(housing, C=1e-2)
    assert tuple(compared) == REGRESSION_MODELS
    table = sweep(housing.X_train, housing.y_train, housing.X_test, housing.y_test, [1e-2, 3e-2], [0], regression=True)
    assert list(table.columns) == REGRESSION_COLUMNS and (table["tnt_splits"] == table["cart_splits"]).all()
    found = fit_to_budget(housing.X_train, housing.y_train, 15, C_start=1e-2, regression=True, random_state=0)
    assert found.n_splits <= 15 and found.cart.n_splits_ == found.n_splits and found.model.graph_.regression


# ---------------------------------------------------------------------------------------------- drawing
def test_the_colour_scale_maps_the_mean_target_monotonically():
    from tnt.viz.colors import VALUE_SCALE, node_colors, value_color, value_range, value_ticks

    def lightness(color):
        r, g, b = (int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    shades = [lightness(value_color(f)) for f in np.linspace(0, 1, 41)]
    assert all(a > b for a, b in zip(shades, shades[1:]))  # darker as the value grows
    means = np.array([[5.0], [1.0], [9.0], [3.0], [7.0]])
    g = DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 0, -2, -2, -2], [0.5, 0.2, -2, -2, -2], means,
                      regression=True)  # fmt: skip
    colors = node_colors(g)
    order = np.argsort(means[:, 0])
    assert [lightness(colors[i]) for i in order] == sorted((lightness(c) for c in colors), reverse=True)
    assert colors[1] == VALUE_SCALE[0][1] and colors[2] == VALUE_SCALE[-1][1]
    assert value_range(g) == (1.0, 9.0) and value_ticks(1.0, 9.0, 5)[2] == (0.5, 5.0)


def test_the_node_inspector_and_the_plotly_view_of_a_regression_graph(housing):
    from tnt.viz.explain import node_info
    from tnt.viz.plotly_view import graph_figure

    model = CARTRegressor.with_splits(6).fit(housing.X_train, housing.y_train)
    g = model.graph_
    root = node_info(g, 0, list(housing.feature_names))
    assert root.mean == pytest.approx(housing.y_train.mean()) and root.std == pytest.approx(housing.y_train.std())
    assert root.n_samples == 1400 and root.distribution == {} and root.rule.startswith("median_income")
    figure = graph_figure(g, feature_names=list(housing.feature_names), target_name="median_house_value")
    (bar,) = [t for t in figure.data if t.marker is not None and t.marker.showscale]
    assert bar.marker.cmin == pytest.approx(g.value[:, 0].min()) and bar.marker.cmax == pytest.approx(
        g.value[:, 0].max()
    )
    assert bar.marker.colorbar.title.text == "mean median_house_value"
    assert "mean " in figure.data[-2].hovertext[0] and "sd " in figure.data[-2].hovertext[0]


def test_a_model_file_is_matched_against_data_of_its_own_task(housing):
    from tnt.model_io import model_from_json, model_to_json
    from tnt.services.model_on_data import match_data

    model = model_from_json(model_to_json(CARTRegressor.with_splits(4).fit(housing.X_train, housing.y_train)))
    assert match_data(model, housing).ok
    from tnt.data.datasets import SAMPLE_DATA

    table = pd.read_csv(SAMPLE_DATA / "california_housing_sample.csv")
    table["median_house_value"] = (table["median_house_value"] > table["median_house_value"].median()).astype(int)
    above = make_dataset(table, target="median_house_value", features=list(housing.feature_names), name="above")
    assert above.task == "classification"
    assert "is a regression (it predicts numbers)" in match_data(model, above).problem
    from tnt.baselines import CARTClassifier

    above = housing.y_train > np.median(housing.y_train)  # the same columns, classes "above the median"
    classifier = model_from_json(model_to_json(CARTClassifier.with_splits(2).fit(housing.X_train, above)))
    assert "is a classifier" in match_data(classifier, housing).problem


def test_a_scikit_learn_regression_tree_converts_to_a_model_file(housing):
    from tnt.model_io import from_sklearn, model_from_json, model_to_json

    tree = DecisionTreeRegressor(max_leaf_nodes=9, random_state=0).fit(housing.X_train, housing.y_train)
    model = from_sklearn(tree, feature_names=housing.feature_names)
    assert type(model).__name__ == "LoadedGraphRegressor" and model.estimator_kind_ == "DecisionTreeRegressor"
    named = pd.DataFrame(housing.X_test, columns=housing.feature_names)  # as a model given names reads them
    np.testing.assert_allclose(model.predict(named), tree.predict(housing.X_test))
    again = model_from_json(model_to_json(model))
    assert list(again.feature_names_in_) == list(housing.feature_names)
    with pytest.raises(ValueError, match="has no classes"):
        from_sklearn(tree, class_names=["a"])
