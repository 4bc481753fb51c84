"""The Graph page's inspection views through Streamlit's AppTest: distributions at a node, the
test-data view with its clickable confusion matrix, the what-if form, a counterfactual and rules."""

import re

import numpy as np
import pandas as pd
import pytest
from app_helpers import ROOT, button, go, upload

from tnt.inspect.reach import class_indices, routes
from ui.inspection import CELL_SAMPLES, CONFUSION, PART, VIEWS


@pytest.fixture
def graph_page(open_app):
    at = go(open_app(60), "graph")
    assert not at.error
    return at


def model_and_data(at):
    data = at.session_state["data/dataset"]
    model = at.session_state["train/models"][next(iter(at.session_state["train/models"]))].tnt
    return model, data


def view(at, name):
    at.radio(key="graph/inspect/view").set_value(name).run()
    assert not at.exception, at.exception
    return at


def chart_titles(at):
    return [c.proto.spec for c in at.get("plotly_chart")]


def test_the_node_distribution_follows_the_node_and_the_training_or_test_toggle(graph_page):
    at = graph_page
    model, data = model_and_data(at)
    assert "Inspect" in [s.value for s in at.subheader]
    assert at.radio(key="graph/inspect/view").value == VIEWS[0]
    spec = [s for s in chart_titles(at) if "Node #0:" in s]
    (chart,) = [c for c in at.get("plotly_chart") if "Node #0:" in c.proto.spec]
    assert '"format": "svg"' in chart.proto.config  # the toolbar's camera saves SVG
    assert len(spec) == 1 and f"{len(data.y_train):,} training samples" in spec[0]
    at.radio(key=PART).set_value("test").run()
    assert any("Node #0:" in s and f"{len(data.y_test):,} test samples" in s for s in chart_titles(at))
    # A split with several parents that training samples reach through more than one: a panel per parent.
    g = model.graph_
    train = routes(g, data.X_train)
    shared = next(n for n in g.shared_nodes if not g.is_leaf[n] and 1 < len(set(train.reaching(n)[1])) <= 6)
    at.radio(key=PART).set_value("training").run()
    at.number_input(key="graph/node").set_value(int(shared)).run()
    (spec,) = [s for s in chart_titles(at) if f"Node #{shared}:" in s]
    assert all(f"through #{p}" in spec for p in set(train.reaching(shared)[1].tolist()))
    keys = [b.proto.id for b in at.get("download_button")]
    assert any("graph/inspect/download/svg" in k for k in keys) and any("graph/inspect/download/png" in k for k in keys)


def frame_with(at, column):
    """The first table on the page with this column."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_the_test_data_view_lists_error_leaves_and_a_confusion_cell_picks_the_sample(graph_page, state_warnings):
    at = view(graph_page, VIEWS[1])
    model, data = model_and_data(at)
    g = model.graph_
    y = class_indices(model.classes_, data.y_test)
    wrong = int((model.predict(data.X_test) != data.y_test).sum())
    assert any(f"**{len(data.y_test):,} test samples.**" in m.value for m in at.main.markdown)
    # The graph coloured by test accuracy: the root's hover text holds every test sample.
    assert len([c for c in at.get("plotly_chart") if f"test: {len(y):,} samples, accuracy" in c.proto.spec]) == 1
    leaves = frame_with(at, "test errors")
    assert leaves["test errors"].sum() == wrong and leaves["test errors"].is_monotonic_decreasing
    scores = frame_with(at, "test accuracy")
    assert scores.set_index("node").loc[0, "test samples"] == len(y)
    matrix = at.dataframe(key=CONFUSION).value
    assert int(np.trace(matrix.to_numpy())) == len(y) - wrong
    # Click the largest off-diagonal cell, then its first sample.
    off = matrix.to_numpy() - np.diag(np.diag(matrix.to_numpy()))
    true, predicted = np.unravel_index(np.argmax(off), off.shape)
    column = matrix.columns[predicted]
    at.session_state[CONFUSION] = {"selection": {"rows": [], "columns": [], "cells": [(int(true), column)]}}
    at.run()
    listing = frame_with(at, "test sample")
    assert len(listing) == off[true, predicted]
    first = int(listing["test sample"].iloc[0])
    assert str(model.predict(data.X_test[first : first + 1])[0]) == str(column)
    at.session_state[CELL_SAMPLES] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert at.number_input(key="graph/sample").value == first
    path = at.dataframe[0].value  # the page's path table now shows the chosen sample's path
    assert path["node"].tolist() == routes(g, data.X_test[first : first + 1]).path(0)
    # The sample and the highlight were given through the session state: no default of their own in that run.
    assert at.toggle(key="graph/highlight").value is True and state_warnings == []


def test_the_what_if_form_moves_the_path_and_marks_changed_tests(graph_page, monkeypatch):
    import ui.explorer

    drawn = []  # the sample whose path each drawing of the graph (the explorer, for the digits' graph) shows
    original = ui.explorer.explorer

    def recording(model_key, graph, fp, names, classes, sample=None, *args, **kwargs):
        drawn.append(None if sample is None else np.array(sample, dtype=float))
        return original(model_key, graph, fp, names, classes, sample, *args, **kwargs)

    monkeypatch.setattr(ui.explorer, "explorer", recording)
    at = view(graph_page, VIEWS[2])
    model, data = model_and_data(at)
    g = model.graph_
    x = np.asarray(data.X_test[0], dtype=float)
    root_feature = int(g.feature[0])
    name = data.feature_names[root_feature]
    assert name in at.multiselect(key="graph/inspect/whatif/features/0").value
    assert any("no test changed outcome" in m.value for m in at.main.markdown)
    # Each input spans the feature's training range; pixels stay whole numbers.
    field = at.number_input(key=f"graph/inspect/whatif/0/{root_feature}")
    column = data.X_train[:, root_feature]
    assert (field.min, field.max, field.step) == (int(column.min()), int(column.max()), 1)
    # Push the root's feature across its threshold.
    other = data.X_train[:, root_feature]
    new = other.max() if x[root_feature] <= g.threshold[0] else other.min()
    at.number_input(key=f"graph/inspect/whatif/0/{root_feature}").set_value(int(new)).run()
    assert not at.exception
    text = " ".join(m.value for m in at.main.markdown)
    assert "tests on the new path that go the other way (highlighted below): #0" in text
    table = frame_with(at, "changed")
    assert table["changed"].iloc[0] == "yes" and table["node"].iloc[0] == 0
    edited = x.copy()
    edited[root_feature] = new
    assert table["node"].tolist() == routes(g, edited.reshape(1, -1)).path(0)
    # Every test the message names on the new path is a row of the table, marked changed.
    named = re.search(r"highlighted below\): ([#\d, ]+)", text).group(1)
    for node in (int(n) for n in re.findall(r"#(\d+)", named)):
        assert table.set_index("node").loc[node, "changed"] == "yes"
    # The drawing above follows the edited sample's path, and says so.
    assert np.array_equal(drawn[-1], edited)
    assert any("as edited in What if?" in c.value for c in at.main.caption)
    # Back to the sample's own value: the drawing follows the sample again.
    at.number_input(key=f"graph/inspect/whatif/0/{root_feature}").set_value(int(x[root_feature])).run()
    assert np.array_equal(drawn[-1], x)
    assert not any("as edited in What if?" in c.value for c in at.main.caption)


def test_the_what_if_form_offers_the_categories_of_a_text_column(open_app):
    at = upload(open_app(60), ROOT / "tests" / "good_text_feature.csv")
    button(at, "Use this data").click().run()
    at = view(go(go(at, "train"), "graph"), VIEWS[2])
    model, data = model_and_data(at)
    assert data.categories == {"colour": ("blue", "green", "red")}
    at.multiselect(key="graph/inspect/whatif/features/0").set_value(["a", "colour"]).run()
    # A number with more than two decimals is shown whole (0.942, not 0.94).
    assert at.number_input(key="graph/inspect/whatif/0/0").proto.format == "%g"
    field = at.selectbox(key="graph/inspect/whatif/0/1")  # the text column: its categories, not codes
    x = np.asarray(data.X_test[0], dtype=float)
    assert field.options == ["blue", "green", "red"] and field.value == data.categories["colour"][int(x[1])]
    for colour, code in (("blue", 0), ("red", 2)):
        at.selectbox(key="graph/inspect/whatif/0/1").set_value(colour).run()
        assert not at.exception, at.exception
        edited = x.copy()
        edited[1] = code
        text = " ".join(m.value for m in at.main.markdown)
        by_name = pd.DataFrame({"a": [x[0]], "colour": [colour]})  # a categorical column: the model reads names
        assert f"Predicted: **{model.predict(by_name)[0]}**" in text
        assert frame_with(at, "changed")["node"].tolist() == routes(model.graph_, edited.reshape(1, -1)).path(0)


def test_a_counterfactual_says_what_to_change_and_whether_it_is_proven(graph_page):
    at = view(graph_page, VIEWS[3])
    model, data = model_and_data(at)
    text = " ".join(m.value for m in at.main.markdown)
    assert "Test sample **#0** is predicted" in text and "To get class" in text
    assert "change `" in text
    captions = " ".join(c.value for c in at.main.caption)
    assert "The smallest change" in captions or "not proven smallest" in captions
    changes = frame_with(at, "any value with")
    x = np.asarray(data.X_test[0], dtype=float)
    names = list(data.feature_names)
    for row in changes.itertuples():
        x[names.index(row.feature)] = np.nan if row.to == "missing" else float(row.to)
    wanted = at.selectbox(key="graph/inspect/cf/class/0").value
    assert str(model.predict(x.reshape(1, -1))[0]) == wanted


def test_rules_list_each_leafs_top_rules_with_coverage_and_offer_csv_and_text(graph_page):
    at = view(graph_page, VIEWS[4])
    model, data = model_and_data(at)
    table = frame_with(at, "precision")
    # Measured on the training rows first; the test rows' measures replace them on request.
    assert list(table.columns) == ["leaf", "prediction", "rule", "paths", "samples", "coverage", "precision"]
    assert table["leaf"].isin(np.flatnonzero(model.graph_.is_leaf)).all()
    total = sum(model.graph_.path_counts()[leaf] for leaf in np.flatnonzero(model.graph_.is_leaf))
    assert f"reached by {total:,} paths" in " ".join(m.value for m in at.main.markdown)
    at.radio(key="graph/inspect/rules/part").set_value("test rows").run()
    tested = frame_with(at, "precision")
    assert list(tested.columns) == ["leaf", "prediction", "rule", "paths", "samples", "precision"]
    assert tested["samples"].sum() <= len(data.y_test) and not tested["samples"].equals(table["samples"])
    at.radio(key="graph/inspect/rules/part").set_value("training rows").run()
    labels = [b.label for b in at.get("download_button")]
    assert "Rules (CSV)" in labels and "Rules (text)" in labels
    at.selectbox(key="graph/inspect/rules/class").set_value(str(model.classes_[3])).run()
    only = frame_with(at, "precision")
    assert set(only["prediction"]) == {str(model.classes_[3])}
    # Any rule of the table can be read whole below it, however long.
    at.selectbox(key="graph/inspect/rules/whole").set_value(1).run()
    assert only["rule"].iloc[1] in [c.value for c in at.code]


def test_every_view_works_on_a_regression(open_app):
    at = open_app(60)
    go(at, "data")
    at.selectbox[0].set_value("california_housing")
    at.button[[b.label for b in at.button].index("Load data set")].click().run()
    go(at, "graph")
    model, data = model_and_data(at)
    assert model.graph_.regression
    (spec,) = [s for s in chart_titles(at) if "Node #0:" in s]
    assert '"mode":"markers"' in spec.replace(" ", "")  # each sample a point: target against feature
    at = view(at, VIEWS[1])
    scores = frame_with(at, "test RMSE")
    assert scores.set_index("node").loc[0, "test samples"] == len(data.y_test)
    assert not [d for d in at.dataframe if "true class" in str(d.value.index.name)]  # no confusion matrix
    at = view(at, VIEWS[3])
    low, high = at.slider(key="graph/inspect/cf/range").value
    text = " ".join(m.value for m in at.main.markdown)
    assert f"To get a {data.target_name} between" in text
    assert "change `" in text or "already gets the wanted prediction" in text
    if "change `" in text:
        changes = frame_with(at, "any value with")
        x = np.asarray(data.X_test[0], dtype=float)
        for row in changes.itertuples():
            x[list(data.feature_names).index(row.feature)] = np.nan if row.to == "missing" else float(row.to)
        assert low <= model.predict(x.reshape(1, -1))[0] <= high
    at = view(at, VIEWS[4])
    rules = frame_with(at, "RMSE")
    assert {"mean", "RMSE", "samples", "coverage"} <= set(rules.columns)


def test_a_model_the_counterfactual_search_refuses_says_so_before_any_control(graph_page, monkeypatch):
    import ui.inspection

    def refused(*args):
        raise ValueError("The counterfactual search does not handle categorical splits yet; this model has some.")

    monkeypatch.setattr(ui.inspection, "counterfactual_space", refused)
    at = view(graph_page, VIEWS[3])
    assert [i.value for i in at.info] == [
        "The counterfactual search does not handle categorical splits yet; this model has some."
    ]
    assert not [s for s in at.selectbox if s.label == "Wanted class"]  # no picker for a search that cannot run


def test_a_model_that_tests_missingness_gets_counterfactuals_in_the_app(open_app, tmp_path):
    """The issue's case: every test row of such a model was refused; now each gets a change."""
    import pandas as pd
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=500, n_features=5, n_informative=3, random_state=0)
    rng = np.random.default_rng(0)
    X[(y == 1) & (rng.random(500) < 0.6), 0] = np.nan  # missingness that tells the class
    path = tmp_path / "missingness.csv"
    frame = pd.DataFrame(X.round(3), columns=list("abcde"))
    frame["label"] = np.where(y == 1, "yes", "no")
    frame.to_csv(path, index=False)
    at = upload(open_app(90), path)
    button(at, "Use this data").click().run()
    at = view(go(at, "graph"), VIEWS[3])
    model, data = model_and_data(at)
    assert model.graph_.is_missing_test.any()
    assert not at.info and any("To get class" in m.value for m in at.main.markdown)
    assert at.checkbox(key="graph/inspect/cf/missing").value


def test_the_inspector_choices_show_what_they_hold_to_a_browser_that_mounts_them_afresh(graph_page, state_warnings):
    at = graph_page
    at.radio(key=PART).set_value("test").run()
    at.run()
    assert at.radio(key=PART).proto.default == 1  # test
    view(at, VIEWS[-1])
    at.radio(key="graph/inspect/rules/part").set_value("test rows").run()
    at.run()
    assert not at.exception
    assert VIEWS[at.radio(key="graph/inspect/view").proto.default] == VIEWS[-1]
    assert at.radio(key="graph/inspect/rules/part").proto.default == 1  # test rows
    assert state_warnings == []
