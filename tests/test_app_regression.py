"""A regression session through every page of the app (AppTest): the bundled California housing
sample, trained, drawn, compared, swept, its paths, the other pages, the history and a reload."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from app_helpers import button, go, metric, new_session, train, upload

from tnt.regressor import TnTRegressor

ROOT = Path(__file__).resolve().parent.parent
CONTINUOUS = ROOT / "tests" / "bad_csv" / "continuous_target.csv"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A workspace store of its own (the History page and the reload read it)."""
    monkeypatch.setenv("TNT_WORKSPACE_DIR", str(tmp_path / "store"))
    return tmp_path / "store"


def no_problem(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def load_california(at):
    go(at, "data")
    at.selectbox[0].set_value("california_housing")
    button(at, "Load data set").click().run()
    return no_problem(at)


def texts(at) -> str:
    return "\n".join(m.value for m in (*at.markdown, *at.caption, *at.info))


def test_a_regression_session_through_every_page(folder, monkeypatch):
    at = load_california(new_session(90))
    data = at.session_state["data/dataset"]
    assert data.task == "regression" and data.target_name == "median_house_value"
    assert metric(at, "Task") == "regression" and metric(at, "Training rows") == "1,400"
    assert "Pace & Barry" in texts(at) and "MIT licence" in texts(at)  # the catalog's note on the source
    assert any("regression of median_house_value" in c.value for c in at.sidebar.caption)

    # Train: R² and RMSE instead of accuracy, CART for regression with as many splits.
    go(at, "train")
    at.select_slider[0].set_value(1e-2)
    button(at, "Train").click().run()
    no_problem(at)
    r2 = float(metric(at, "Test R²"))
    assert 0.3 < r2 < 1.0
    table = at.table[0].value
    assert {"test R²", "train R²", "test RMSE", "train RMSE"} <= set(table.index)
    assert "test accuracy" not in table.index
    splits = int(metric(at, "Splits"))
    assert table.loc["splits", "CART (same splits)"] == str(splits)
    assert any("DecisionTreeRegressor" in c.value for c in at.caption)
    model = at.session_state["train/models"].latest().tnt
    assert type(model).__name__ == "TnTRegressor"
    # The default size also chose the refit rule on held-out data: the caption says which.
    words = {"always": "every refit taken", "cost_complexity": "by more than C per split they add"}
    assert any(
        "Refits chosen on the same held-out data" in c.value and words[model.refit_rule_] in c.value for c in at.caption
    )

    # Graph: the colour bar, the predicted value of the sample, the node's mean, spread and count.
    go(at, "graph")
    no_problem(at)
    shown = texts(at)
    assert "predicted" in shown and "off by" in shown
    path = at.dataframe[0].value  # the sample's path ends in the leaf's predicted value
    assert path["test"].iloc[-1].startswith("leaf, predicts ")
    assert "spread (std)" in shown and "training samples" in shown
    assert any("Node colour: mean" in h.proto.body for h in at.get("html"))
    at.radio(key="graph/view/browser").set_value("Interactive (plotly)").run()
    no_problem(at)
    figure = at.get("plotly_chart")[0].proto.spec
    assert "mean median_house_value" in figure and '"showscale":false' in figure  # the page's colour bar is above
    assert "#7a0c30" in figure  # the node of the largest mean, at the dark end of the scale
    at.number_input(key="graph/node").set_value(3).run()
    assert "Node #3" in texts(no_problem(at))

    # Compare: TnT, TnT fine-tuned and CART; TAO and NDG are classifiers.
    go(at, "compare")
    no_problem(at)
    compared = at.dataframe[0].value
    assert list(compared.index) == ["TnT", "TnT fine-tuned", "CART (best-first)"]
    assert "test R²" in compared.columns and "test accuracy" not in compared.columns
    assert any("Highest test R²" in c.value for c in at.caption)
    assert sum("Node colour: mean" in h.proto.body for h in at.get("html")) == 3  # a colour bar per graph

    # Sweep: two values of C, one seed; R² tabs.
    go(at, "sweep")
    at.slider(key="sweep/n").set_value(2)
    at.slider(key="sweep/seeds").set_value(1)
    at.select_slider(key="sweep/range").set_value((1e-3, 1e-2))
    button(at, "Run sweep").click().run()
    no_problem(at)
    assert [t.label for t in at.tabs][:2] == ["Test R²", "Train R²"]
    assert "tnt_test_r2" in at.session_state["analysis/sweep"].latest().columns

    # Paths, Shared nodes, Ensembles (one sentence), Teach: no traceback, no error.
    go(at, "paths")
    assert list(no_problem(at).dataframe[0].value.index) == ["TnT", "CART"]
    go(at, "sharing")
    no_problem(at)
    go(at, "ensembles")
    assert any("is a regression" in i.value for i in no_problem(at).info)
    go(at, "teach")
    no_problem(at)

    # History: the regression run with R², reopened after a reload without training again.
    go(at, "history")
    history = no_problem(at).dataframe[0].value
    assert "California housing (regression)" in set(history["data set"])
    # Its R² under "TnT test R²", or under "TnT test" when classification runs share the table.
    score = "TnT test R²" if "TnT test R²" in history.columns else "TnT test"
    regression_rows = history[history["data set"] == "California housing (regression)"]
    assert regression_rows[score].between(-1, 1).all() and regression_rows[score].notna().all()
    ws = at.query_params["ws"]
    ws = ws[0] if isinstance(ws, list) else ws

    def no_fit(self, *args, **kwargs):
        raise AssertionError("the regression run should come from the workspace")

    monkeypatch.setattr(TnTRegressor, "fit", no_fit)
    later = new_session(90, ws)  # a reload of the same address
    assert later.session_state["data/dataset"].task == "regression"
    go(later, "history")
    button(later, "Open on Graph").click().run()
    no_problem(later)
    assert later.header[0].value == "Graph" and later.session_state["train/params"].C == 1e-2
    assert "spread (std)" in texts(later)


def test_an_uploaded_numeric_target_is_offered_as_regression_and_can_be_overridden(folder, tmp_path):
    at = go(new_session(90), "data")
    upload(at, CONTINUOUS)
    button(at, "Use this data").click().run()  # the task decided from the column: many numbers
    data = no_problem(at).session_state["data/dataset"]
    assert data.task == "regression" and any("as a regression of 'price'" in s.value for s in at.success)
    at.radio(key="data/upload_task").set_value("classification")  # submitted with the form
    button(at, "Use this data").click().run()  # class labels after all: each price is a class
    assert len(at.error) == 1 and "leaves a part without every class" in at.error[0].value
    assert at.session_state["data/dataset"] is data  # the data in use stays
    rng = np.random.default_rng(0)  # a score of 0 to 4 stars: whole numbers, classes unless told
    X = rng.uniform(size=(120, 2))
    stars = pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "stars": np.round(4 * X.mean(axis=1)).astype(int)})
    (tmp_path / "stars.csv").write_text(stars.to_csv(index=False))
    upload(at, tmp_path / "stars.csv")
    button(at, "Use this data").click().run()
    assert no_problem(at).session_state["data/dataset"].task == "classification"
    at.radio(key="data/upload_task").set_value("regression")
    button(at, "Use this data").click().run()
    assert no_problem(at).session_state["data/dataset"].task == "regression"
    train(at)
    assert float(metric(no_problem(at), "Test R²")) <= 1.0


def test_a_regression_model_file_opens_on_the_graph_page_against_regression_data(folder):
    from sklearn.tree import DecisionTreeRegressor

    from tnt.model_io import from_sklearn, model_to_json

    at = load_california(new_session(90))
    data = at.session_state["data/dataset"]
    tree = DecisionTreeRegressor(max_leaf_nodes=12, random_state=0).fit(data.X_train, data.y_train)
    content = model_to_json(from_sklearn(tree, feature_names=data.feature_names)).encode()
    go(at, "train")
    at.select_slider[0].set_value(1e-2)
    button(at, "Train").click().run()
    go(at, "graph")
    at.file_uploader(key="graph/model_file").set_value(("prices.json", content, "application/json")).run()
    no_problem(at)
    assert at.radio(key="graph/model").value == "Opened: prices.json"
    caption = at.main.caption[0].value
    assert f"test R² {tree.score(data.X_test, data.y_test):.3f}" in caption and "test RMSE" in caption
    assert "spread (std)" in texts(at) and "off by" in texts(at)
    go(at, "data")  # a classification data set: the file does not fit it, and the page says why
    at.selectbox[0].set_value("iris")
    button(at, "Load data set").click().run()
    go(at, "graph")
    at.radio(key="graph/model").set_value("Opened: prices.json").run()
    assert "needs 8 feature columns" in texts(no_problem(at))
