"""The analysis pages (Compare, Sweep, Paths, Ensembles, Teach) through Streamlit's AppTest."""

import json

import numpy as np
import pytest

from tnt import CARTClassifier, NDGClassifier, TnTClassifier, TnTRegressor
from tnt.data.datasets import load_bundled
from tnt.experiments.toy import corners
from tnt.reduction import reduce_model


@pytest.fixture
def app(open_app):
    return open_app(60)


def go(at, page):
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def load(at, dataset_id):
    at.selectbox[0].set_value(dataset_id)
    (button,) = [b for b in at.button if b.label == "Load data set"]
    button.click().run()
    assert not at.exception


def metric(at, label):
    return [m.value for m in at.metric if m.label == label]


def click(at, label):
    (button,) = [b for b in at.button if b.label == label]
    button.click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_compare_table_rows_equal_the_estimators(app):
    load(app, "wine")
    go(app, "compare")
    table = app.dataframe[0].value
    assert list(table.index) == ["TnT", "TnT fine-tuned", "CART (best-first)", "TAO", "NDG"]
    data = load_bundled("wine")
    tnt = TnTClassifier(C=1e-3, random_state=0).fit(data.X_train, data.y_train)
    assert table.loc["TnT", "splits"] == tnt.n_splits_
    assert table.loc["TnT", "leaves"] == tnt.n_leaves_
    assert table.loc["TnT", "test accuracy"] == round(tnt.score(data.X_test, data.y_test), 3)
    assert table.loc["TnT", "mean decision depth (test)"] == round(np.mean(tnt.decision_depth(data.X_test)), 2)
    tuned = TnTClassifier(C=1e-3, fine_tune=5, random_state=0).fit(data.X_train, data.y_train)
    assert table.loc["TnT fine-tuned", "train accuracy"] == round(tuned.score(data.X_train, data.y_train), 3)
    cart = CARTClassifier(max_leaf_nodes=tnt.n_splits_ + 1, random_state=0).fit(data.X_train, data.y_train)
    assert table.loc["CART (best-first)", "splits"] == cart.n_splits_
    assert table.loc["CART (best-first)", "test accuracy"] == round(cart.score(data.X_test, data.y_test), 3)
    assert table.loc["TAO", "splits"] <= tnt.n_splits_
    ndg = NDGClassifier(C=3e-4, max_splits=tnt.n_splits_, random_state=0).fit(data.X_train, data.y_train)
    assert table.loc["NDG", "splits"] == ndg.n_splits_ <= tnt.n_splits_
    assert table.loc["NDG", "test accuracy"] == round(ndg.score(data.X_test, data.y_test), 3)
    assert len(app.get("graphviz_chart")) == 5  # five small graphs, two by two
    # Shown as the app writes measures: 0.840 rather than 0.84, counts with separators.
    columns = json.loads(app.dataframe[0].proto.columns)
    shown = {name: c["type_config"].get("format") for name, c in columns.items() if name != "_index"}
    assert shown["test accuracy"] == shown["train accuracy"] == "%.3f" and shown["fit time (s)"] == "%.2f"
    assert shown["splits"] == shown["leaves"] == "localized"


def test_sweep_split_counts_fall_as_C_rises_and_reduction_is_reported(app):
    load(app, "wine")
    go(app, "sweep")
    assert any("Run sweep" in i.value for i in app.info)
    app.select_slider(key="sweep/range").set_value((1e-3, 1e-1))
    app.slider(key="sweep/n").set_value(3)
    app.slider(key="sweep/seeds").set_value(2)
    app.slider(key="sweep/jobs").set_value(1)
    click(app, "Run sweep")
    summary = app.dataframe[0].value
    assert list(summary.index) == [1e-3, 1e-2, 1e-1]
    splits = summary["TnT splits"].tolist()
    assert splits == sorted(splits, reverse=True) and splits[0] > splits[-1]
    assert metric(app, "Models trained") == ["6"]
    table = app.session_state["analysis/sweep"]
    (result,) = table.values()
    saved = int((result["tnt_splits"] - result["reduced_splits"]).sum())
    assert metric(app, "Splits saved by graph reduction") == [f"{saved} of {int(result['tnt_splits'].sum())}"]
    data = load_bundled("wine")
    tnt = TnTClassifier(C=1e-1, random_state=1).fit(data.X_train, data.y_train)
    assert result.iloc[-1]["tnt_splits"] == tnt.n_splits_
    assert result.iloc[-1]["reduced_splits"] == reduce_model(tnt, data.X_train, data.y_train).n_splits_
    assert len(app.get("plotly_chart")) == 3
    (csv,) = [d for d in app.get("download_button")]
    assert csv.proto.label == "Download the table (CSV)"
    # The Paths page now draws mean depth against splits from this sweep.
    go(app, "paths")
    assert not [i for i in app.info if "Run a sweep" in i.value]
    assert len(app.get("plotly_chart")) == 2


def test_sweep_trains_with_the_thresholds_chosen_on_the_train_page(app):
    load(app, "california_housing")  # up to 1,279 distinct values per feature: 255 bins change TnT
    go(app, "train")
    app.selectbox(key="train/max_bins").set_value(255)
    click(app, "Train")
    go(app, "sweep")
    assert any("thresholds: 255 bins, as on the Train page" in c.value for c in app.main.caption)
    app.select_slider(key="sweep/range").set_value((1e-3, 1e-2))
    app.slider(key="sweep/n").set_value(2)
    app.slider(key="sweep/seeds").set_value(1)
    app.slider(key="sweep/jobs").set_value(1)
    click(app, "Run sweep")
    (result,) = app.session_state["analysis/sweep"].values()
    data = load_bundled("california_housing")
    binned = TnTRegressor(C=1e-3, ccp_alpha=0.0, random_state=0, max_bins=255).fit(data.X_train, data.y_train)
    exact = TnTRegressor(C=1e-3, ccp_alpha=0.0, random_state=0).fit(data.X_train, data.y_train)
    assert binned.n_splits_ != exact.n_splits_
    assert result.iloc[0]["tnt_splits"] == binned.n_splits_
    assert result.iloc[0]["tnt_test_r2"] == pytest.approx(binned.score(data.X_test, data.y_test))


def test_sweep_adds_the_ndg_curve_on_request(app):
    load(app, "wine")
    go(app, "sweep")
    app.slider(key="sweep/n").set_value(2)
    app.slider(key="sweep/seeds").set_value(1)
    app.slider(key="sweep/jobs").set_value(1)
    app.checkbox(key="sweep/ndg").check()
    click(app, "Run sweep")
    (result,) = app.session_state["analysis/sweep"].values()
    assert (result["ndg_splits"] <= result["tnt_splits"]).all()
    data = load_bundled("wine")
    row = result.iloc[0]
    ndg = NDGClassifier(C=3e-4, max_splits=int(row["tnt_splits"]), random_state=0).fit(data.X_train, data.y_train)
    assert row["ndg_test_acc"] == ndg.score(data.X_test, data.y_test)
    charts = app.get("plotly_chart")
    assert '"name":"NDG"' in charts[0].proto.spec.replace(" ", "")
    assert "NDG splits" in app.dataframe[0].value.columns


def test_paths_page_shows_depths_of_tnt_and_cart(app):
    load(app, "wine")
    go(app, "paths")
    table = app.dataframe[0].value
    data = load_bundled("wine")
    tnt = TnTClassifier(C=1e-3, random_state=0).fit(data.X_train, data.y_train)
    cart = CARTClassifier(max_leaf_nodes=tnt.n_splits_ + 1, random_state=0).fit(data.X_train, data.y_train)
    assert table.loc["TnT", "splits"] == tnt.n_splits_ and table.loc["CART", "splits"] == cart.n_splits_
    assert table.loc["TnT", "mean depth (test samples)"] == round(np.mean(tnt.decision_depth(data.X_test)), 2)
    assert table.loc["CART", "deepest decision (test)"] == cart.decision_depth(data.X_test).max()
    assert table.loc["CART", "root-to-leaf paths"] == str(cart.n_leaves_)  # a tree: one path per leaf
    assert table.loc["TnT", "mean path length"] == round(tnt.graph_.mean_path_length(), 2)
    assert any("Run a sweep" in i.value for i in app.info)


def test_ensembles_page_table(app):
    load(app, "wine")
    go(app, "ensembles")
    app.slider(key="ensembles/n").set_value(3)
    app.slider(key="ensembles/jobs").set_value(1)
    click(app, "Train the ensembles")
    table = app.table[0].value
    assert list(table.index) == ["TnT-bagging", "Random Forest", "TnT-AdaBoost", "AdaBoost"]
    assert float(table.loc["TnT-bagging", "estimators"]) == 3.0
    rows = app.session_state["analysis/ensembles"]
    (result,) = rows.values()
    bag = result[result["ensemble"] == "TnT-bagging"].iloc[0]
    assert float(table.loc["TnT-bagging", "total splits"]) == bag["total_splits"]
    assert table.loc["TnT-bagging", "test accuracy"] == f"{bag['test_accuracy']:.3f}"  # one seed: no spread


def test_teach_page_corners_by_default(app):
    go(app, "teach")
    splits = metric(app, "Splits")
    accuracy = metric(app, "Training accuracy")
    assert splits == ["6", "6", "4", "4"]  # CART, TnT, the paper's graph, TnT reduced
    assert accuracy[2] == "1.0000" and accuracy[1] == accuracy[3]
    X, y = corners(seed=0)
    tnt = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    assert accuracy[1] == f"{tnt.score(X, y):.4f}"
    assert len(app.get("plotly_chart")) == 11  # six gallery pictures, four region plots and the step's
    # The four graphs two per row, each as wide as half the page: readable labels.
    drawn = [c for c in app.columns if c.get("graphviz_chart") and c.markdown]
    assert [c.markdown[0].value for c in drawn] == [
        "**CART**",
        "**TnT**",
        "**The paper's graph (Fig. 2c)**",
        "**TnT after graph reduction**",
    ]
    assert all(c.weight == 0.5 for c in drawn), [c.weight for c in drawn]
    # Step through: the first step is the first grow pass, the last the final graph.
    steps = app.slider(key="teach/step")
    assert steps.max == 12 and steps.value == 12
    assert any("phase 2, merge: 6 splits" in m.value for m in app.markdown)
    steps.set_value(1).run()
    assert not app.exception
    assert any(m.value.startswith("**Step 1 of 12: phase 1, grow pass 1 of 5") for m in app.markdown)


def test_teach_page_on_the_loaded_two_feature_data(app):
    load(app, "corners")
    go(app, "teach")
    app.radio(key="teach/source").set_value("data").run()
    assert not app.exception and not app.error
    data = app.session_state["data/dataset"]
    tnt = TnTClassifier(C=1e-2, random_state=0).fit(data.X_train, data.y_train)
    splits = metric(app, "Splits")
    assert len(splits) == 3  # CART, TnT, TnT reduced: the hand-built graph belongs to the generated data
    assert splits[1] == str(tnt.n_splits_)
    assert metric(app, "Training accuracy")[1] == f"{tnt.score(data.X_train, data.y_train):.4f}"


def test_a_finished_sweep_is_kept_for_the_session(app):
    load(app, "iris")
    go(app, "sweep")
    app.slider(key="sweep/n").set_value(2)
    app.slider(key="sweep/seeds").set_value(1)
    app.slider(key="sweep/jobs").set_value(1)
    click(app, "Run sweep")
    (first,) = app.session_state["analysis/sweep"].values()
    click(app, "Run sweep")
    (again,) = app.session_state["analysis/sweep"].values()
    assert again is first  # not trained again
    go(app, "data")
    go(app, "sweep")  # without pressing the button, the last sweep is shown
    assert any("The last sweep of this session" in c.value for c in app.caption)
    assert metric(app, "Models trained") == ["2"]


def test_teach_page_falls_back_to_corners_when_the_data_has_more_features(app):
    load(app, "corners")
    go(app, "teach")
    app.radio(key="teach/source").set_value("data").run()
    go(app, "data")
    load(app, "wine")
    go(app, "teach")
    assert app.radio(key="teach/source").value == "gallery"
    assert app.radio(key="teach/problem").value == "corners"
    assert metric(app, "Splits") == ["6", "6", "4", "4"]
