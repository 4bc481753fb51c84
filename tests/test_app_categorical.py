"""Categorical columns in the app (AppTest, no browser): a CSV with a text column (``colour``, with empty
cells) and a numeric column of two values (``doors``). Text columns are categorical by default and the
Data page says so; the user can switch a column between categorical and numeric; Train passes the
choice to TnT and to the CART baseline (with the settings chosen on the Train page); a reload keeps the
choice; the Graph page's what-if reads categories by name, and a model file trained elsewhere reads
the data's values by name."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from app_helpers import button, go, metric, new_session, train, upload

from tnt import TnTClassifier
from tnt.model_io import model_to_json
from ui.inspection import VIEWS

ROOT = Path(__file__).resolve().parent.parent
COLOURS = ROOT / "tests" / "colours.csv"  # 120 rows: colour (12 empty cells), size, doors (2 or 4), label
NAMES = ("blue", "green", "purple", "red")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A workspace store of its own for each test."""
    monkeypatch.setenv("TNT_WORKSPACE_DIR", str(tmp_path / "store"))
    return tmp_path / "store"


@pytest.fixture
def app(folder):
    return new_session(60)


def categorical_field(at):
    (field,) = [m for m in at.multiselect if m.label.startswith("Categorical columns")]
    return field


def use(at, categorical=None):
    """Upload colours.csv and use it, with the categorical columns ``categorical`` (None: as proposed)."""
    upload(at, COLOURS)
    if categorical is not None:
        categorical_field(at).set_value(categorical)
    button(at, "Use this data").click().run()
    assert not at.exception, at.exception
    return at.session_state["data/dataset"]


def by_name(data, X) -> pd.DataFrame:
    """Rows of codes as a table of values by name, each code looked up in the data's categories here."""
    frame = pd.DataFrame(X, columns=list(data.feature_names)).astype(object)
    for name, categories in data.categories.items():
        frame[name] = [
            None if np.isnan(c) else categories[int(c)] for c in np.asarray(X)[:, data.feature_names.index(name)]
        ]
    return frame


def newest(at):
    """The model the session trained last (its TnT and CART)."""
    return at.session_state["train/models"].latest()


def test_text_columns_are_categorical_by_default_and_the_page_says_so(app):
    upload(app, COLOURS)
    field = categorical_field(app)
    # Text and whole numbers of at most 255 values can be marked (not size: 0.18, 0.75, ...); the text
    # column is, the class column (the last, proposed as the class) is not.
    assert field.options == ["colour", "doors", "label"] and field.value == ["colour"]
    assert "Text columns are categorical by default" in field.help
    button(app, "Use this data").click().run()
    data = app.session_state["data/dataset"]
    assert data.categorical == ("colour",) and data.categories == {"colour": NAMES}
    assert "Column 'colour' is categorical: a split sends a subset of the categories one way." in [
        i.value for i in app.info
    ]
    # The test rows are shown by name, empty cells as missing.
    (rows,) = [d.value for d in app.dataframe if "label" in d.value.columns and len(d.value) == len(data.y_test)]
    frame = pd.read_csv(COLOURS)
    assert (
        set(rows["colour"].dropna()) <= set(NAMES) and rows["colour"].isna().sum() == np.isnan(data.X_test[:, 0]).sum()
    )
    assert np.isnan(data.X_train[:, 0]).sum() + np.isnan(data.X_test[:, 0]).sum() == frame["colour"].isna().sum()


def test_a_text_column_switched_to_numeric_is_coded_in_alphabetical_order(app):
    data = use(app, categorical=[])
    assert data.categorical == () and data.categories == {"colour": NAMES}
    assert any("encoded as numbers in alphabetical order (blue=0, green=1" in i.value for i in app.info)
    train(app)
    assert not app.error and not app.info
    assert newest(app).tnt.graph_.categories is None
    assert "TnT at C=1e-03, N1=2, N2=5" in [s.value for s in app.subheader]


def test_a_numeric_column_of_few_values_can_be_marked_categorical(app):
    data = use(app, categorical=["colour", "doors"])
    assert data.categorical == ("colour", "doors") and data.categories["doors"] == (2, 4)
    assert "Columns 'colour', 'doors' are categorical" in " ".join(i.value for i in app.info)
    train(app)
    assert not app.error
    result = newest(app)
    assert [None if c is None else c.tolist() for c in result.tnt.categories_] == [list(NAMES), None, [2, 4]]


def test_train_passes_the_categories_to_tnt_and_cart_with_the_chosen_settings(app):
    data = use(app)
    train(app)  # N1=2 on the slider
    assert not app.error and not app.exception
    assert not [i.value for i in app.info if "N1=1" in i.value]  # trained as chosen, nothing to say
    assert "TnT at C=1e-03, N1=2, N2=5" in [s.value for s in app.subheader]
    result = newest(app)
    assert result.tnt.N1 == 2
    for model in (result.tnt, result.cart):
        assert model.graph_.categories[0].tolist() == list(NAMES)
        assert model.graph_.is_categorical.any()  # colour is split by a subset
    # The accuracies shown are those of the models reading the test rows by name.
    test = by_name(data, data.X_test)
    assert metric(app, "Test accuracy") == f"{np.mean(result.tnt.predict(test) == data.y_test):.3f}"
    cart_row = app.table[0].value.loc["CART (best-first)"] if "CART (best-first)" in app.table[0].value.index else None
    assert (
        cart_row is None or f"{np.mean(result.cart.predict(test) == data.y_test):.3f}" in cart_row.astype(str).tolist()
    )
    # Fine-tuning is trained as chosen too.
    app.slider(key="train/fine_tune").set_value(2)
    button(app, "Train").click().run()
    assert not app.error and not app.exception
    assert newest(app).tnt.fine_tune == 2 and newest(app).tnt.graph_.is_categorical.any()


def test_a_budget_of_splits_on_categorical_data(app):
    use(app)
    go(app, "train")
    app.toggle(key="train/budget_on").set_value(True)
    app.number_input(key="train/budget").set_value(3)
    button(app, "Train").click().run()
    assert not app.error and not app.exception
    assert int(metric(app, "Splits")) <= 3 and "N1=2" in app.subheader[0].value


def test_a_reload_keeps_the_categorical_choice_and_its_model(app, monkeypatch):
    data = use(app, categorical=["colour", "doors"])
    train(app)
    splits, accuracy = metric(app, "Splits"), metric(app, "Test accuracy")
    ws = app.query_params["ws"]
    ws = ws[0] if isinstance(ws, list) else ws
    assert app.session_state["data/source"]["categorical"] == ["colour", "doors"]

    def failing_fit(self, *args, **kwargs):
        raise AssertionError("this model should have come from the workspace, not be trained again")

    monkeypatch.setattr(TnTClassifier, "fit", failing_fit)
    again = new_session(60, ws)  # a reload: a new session with the same address
    restored = again.session_state["data/dataset"]
    assert restored.key == data.key and restored.categorical == ("colour", "doors")
    go(again, "train")
    assert not again.error and (metric(again, "Splits"), metric(again, "Test accuracy")) == (splits, accuracy)
    result = newest(again)
    assert result.tnt.graph_.categories[0].tolist() == list(NAMES)  # the saved model keeps the names
    go(again, "data")  # the file kept in the workspace comes back with the choice made on it
    if [m for m in again.multiselect if m.label.startswith("Categorical columns")]:
        assert categorical_field(again).value == ["colour", "doors"]


def test_more_categories_than_a_feature_may_have_are_refused_in_one_sentence(app, tmp_path):
    path = tmp_path / "ids.csv"
    pd.DataFrame({"id": [f"c{i}" for i in range(300)], "x": np.arange(300) % 7, "y": ["a", "b"] * 150}).to_csv(
        path, index=False
    )
    upload(app, path)
    assert categorical_field(app).options == ["x", "y"]  # 300 values: not offered
    button(app, "Use this data").click().run()
    assert not app.exception
    assert [e.value for e in app.error] == [
        "Column 'id' holds text with 300 different values, more than the 255 categories a feature may have; "
        "leave it out, or convert it to numbers."
    ]


def graph_view(at, name):
    go(at, "graph")
    at.radio(key="graph/inspect/view").set_value(name).run()
    assert not at.exception, at.exception
    return at


def test_the_path_and_the_what_if_read_categories_by_name(app):
    data = use(app)
    train(app)
    at = graph_view(app, VIEWS[2])
    model = newest(at).tnt
    path = [d.value for d in at.dataframe if "test" in d.value.columns and "goes" in d.value.columns][0]
    assert path["test"].str.contains(r"colour (?:not )?in \{").any()
    at.multiselect(key="graph/inspect/whatif/features/0").set_value(["colour"]).run()
    field = at.selectbox(key="graph/inspect/whatif/0/0")
    assert field.options == list(NAMES) and "by name" in field.help
    x = data.X_test[0]
    for colour in NAMES:
        at.selectbox(key="graph/inspect/whatif/0/0").set_value(colour).run()
        assert not at.exception, at.exception
        row = by_name(data, x.reshape(1, -1))
        row["colour"] = colour
        text = " ".join(m.value for m in at.main.markdown)
        assert f"Predicted: **{model.predict(row)[0]}**" in text


def test_a_model_file_trained_elsewhere_reads_the_datas_values_by_name(app):
    frame = pd.read_csv(COLOURS)
    # Trained without green: its categories are blue, purple, red, so its codes are not the data's.
    seen = frame[frame["colour"] != "green"]
    model = TnTClassifier(C=1e-3, N1=1, categorical_features=["colour"], random_state=0)
    model.fit(seen[["colour", "size", "doors"]], seen["label"])
    assert model.categories_[0].tolist() == ["blue", "purple", "red"]
    data = use(app)
    go(app, "graph")
    app.file_uploader(key="graph/model_file").set_value(
        ("colours_model.json", model_to_json(model).encode(), "application/json")
    ).run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    test = by_name(data, data.X_test)
    expected = np.mean(model.predict(test) == data.y_test)
    assert any(f"Accuracy on colours.csv: test {expected:.3f}" in c.value for c in app.caption), [
        c.value for c in app.caption
    ]
    # A sample of the category the model never saw goes where its missing values go.
    green = np.flatnonzero(test["colour"].to_numpy() == "green")
    assert green.size and (model.predict(test.iloc[green]) == model.predict(test.iloc[green].assign(colour=None))).all()


def test_a_model_file_needs_its_categorical_columns_categorical_in_the_data(app):
    frame = pd.read_csv(COLOURS)
    model = TnTClassifier(C=1e-3, N1=1, categorical_features=["colour"], random_state=0)
    model.fit(frame[["colour", "size", "doors"]], frame["label"])
    use(app, categorical=[])
    go(app, "graph")
    app.file_uploader(key="graph/model_file").set_value(
        ("m.json", model_to_json(model).encode(), "application/json")
    ).run()
    assert not app.exception
    said = " ".join(m.value for m in app.main.markdown) + " ".join(i.value for i in [*app.info, *app.warning])
    assert "The model reads 'colour' as categories, by name" in said


def test_compare_and_sweep_split_categorical_columns_by_subsets(app):
    """Compare trains its five models on the categories by name (the Train page's TnT and CART
    reused: their parameters name the same categorical columns), and Sweep runs on them."""
    use(app)
    train(app)
    go(app, "compare")
    assert not app.error and not [i.value for i in app.info if "categor" in i.value]
    captions = " ".join(c.value for c in app.caption)
    assert "Categorical columns: colour. Every model splits them by subsets of their categories." in captions
    assert "TnT and CART are the models the Train page trained with these settings" in captions
    table = app.dataframe[0].value
    assert list(table.index) == ["TnT", "TnT fine-tuned", "CART (best-first)", "TAO", "NDG"]
    results = app.session_state["analysis/compare"].latest()
    for name, (model, _) in results.items():
        assert model.graph_.categories[0].tolist() == list(NAMES), name
    assert all(model.graph_.is_categorical.any() for model, _ in results.values())  # colour split by a subset
    go(app, "sweep")
    button(app, "Run sweep").click().run()
    assert not app.exception and not app.error
    assert int(metric(app, "Models trained")) == 10  # 5 values of C, 2 seeds


def test_the_counterfactual_changes_a_category_by_name(app):
    from tnt.inspect.counterfactual import CounterfactualSpace, counterfactual

    data = use(app)
    train(app)
    at = graph_view(app, VIEWS[3])
    model = newest(at).tnt
    assert not at.info, [i.value for i in at.info]  # no refusal: the search takes categorical splits
    # The test rows whose smallest change (the other class wanted, as the page proposes) is a colour.
    space, graph = CounterfactualSpace(model.graph_, data.X_train), model.graph_
    colour_changes = [
        i for i, x in enumerate(data.X_test)
        if any(c.feature == 0 for c in counterfactual(space, x, 1 - int(graph.predict_proba([x])[0].argmax())).changes)
    ]  # fmt: skip
    assert colour_changes
    for sample in colour_changes[:3]:
        at.number_input(key="graph/sample").set_value(sample).run()
        assert not at.exception, at.exception
        text = " ".join(m.value for m in at.main.markdown)
        assert f"Test sample **#{sample}** is predicted" in text and "change `colour` from " in text
        wanted = at.selectbox(key=f"graph/inspect/cf/class/{sample}").value
        row = by_name(data, data.X_test[sample].reshape(1, -1))
        changes = next(d.value for d in at.dataframe if "any value with" in d.value.columns)
        for change in changes.to_dict("records"):
            if change["feature"] == "colour":  # by name, and the categories that take the same path
                assert change["to"] in (*NAMES, "missing") and change["from"] in (*NAMES, "missing")
                assert change["to"] == "missing" or change["any value with"].startswith("colour ")
                row["colour"] = None if change["to"] == "missing" else change["to"]
            else:
                row[change["feature"]] = np.nan if change["to"] == "missing" else float(change["to"])
        assert str(model.predict(row)[0]) == wanted  # the change, read by name, gets the wanted class


def test_an_opened_categorical_tree_is_reduced(app):
    from tnt import CARTClassifier

    frame = pd.read_csv(COLOURS)
    tree = CARTClassifier(max_leaf_nodes=16, random_state=0, categorical_features=["colour"])
    tree.fit(frame[["colour", "size", "doors"]], frame["label"])
    assert tree.graph_.is_categorical.any()
    use(app)
    go(app, "graph")
    app.file_uploader(key="graph/model_file").set_value(
        ("tree.json", model_to_json(tree).encode(), "application/json")
    ).run()
    button(app, "Reduce the graph").click().run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    (summary,) = [m.value for m in app.main.markdown if "leaves become" in m.value]
    assert summary.startswith(f"**{tree.n_splits_} splits and {tree.n_leaves_} leaves become ")
    assert "Training predictions unchanged" in summary
    app.radio(key="graph/model").set_value("Opened: tree.json, reduced").run()
    assert not app.exception
    reduced = app.session_state["opened/reduced"].latest()  # the one reduced model
    assert reduced.graph_.is_categorical.any() and reduced.graph_.categories[0].tolist() == list(NAMES)


def test_the_inspector_says_what_holds_at_a_categorical_split_and_what_if_starts_from_common_categories(app):
    data = use(app)
    train(app)
    at = graph_view(app, VIEWS[0])
    graph = newest(at).tnt.graph_
    split = int(np.flatnonzero(graph.is_categorical)[0])
    at.number_input(key="graph/node").set_value(split).run()
    assert not at.exception, at.exception
    said = " ".join(c.value for c in at.main.caption)
    assert "the test holds ('yes') for the categories left of the line" in said and "threshold" not in said
    numeric = int(np.flatnonzero(~graph.is_leaf & ~graph.is_categorical)[0])
    at.number_input(key="graph/node").set_value(numeric).run()
    assert "with its threshold (dashed)" in " ".join(c.value for c in at.main.caption)
    # What-if from a blank sample: colour is its most common training category, not its median code.
    at.radio(key="graph/inspect/view").set_value(VIEWS[2]).run()
    at.radio(key="graph/inspect/whatif/start").set_value("blank (training medians, most common categories)").run()
    at.multiselect(key="graph/inspect/whatif/features/blank").set_value(["colour"]).run()
    assert not at.exception, at.exception
    codes = data.X_train[:, 0][~np.isnan(data.X_train[:, 0])].astype(int)
    commonest = NAMES[int(np.argmax(np.bincount(codes)))]
    assert commonest != NAMES[int(np.median(codes))]  # the two starts differ on this data
    assert at.selectbox(key="graph/inspect/whatif/blank/0").value == commonest


def test_the_pooling_of_rare_categories_is_a_train_setting_of_categorical_data(app):
    """The Train page offers ``min_category_samples`` (its help the library's one text) only for data
    with categorical columns, and passes it to TnT and to the CART beside it; its default pools nothing."""
    from tnt.categorical import MIN_CATEGORY_SAMPLES_HELP

    use(app)
    go(app, "train")
    field = app.number_input(key="train/min_category_samples")
    assert field.value == 1 and field.help == MIN_CATEGORY_SAMPLES_HELP
    field.set_value(3)
    button(app, "Train").click().run()
    assert not app.error and not app.exception
    result = newest(app)
    assert result.params.min_category_samples == 3
    assert result.tnt.min_category_samples == 3 and result.cart.min_category_samples == 3
    assert "categories of < 3 rows pooled" in app.subheader[0].value
    assert any("categories of < 3 rows pooled" in m.value for m in app.sidebar.markdown)  # the settings shown
    # Data without categorical columns: no such field, and the setting stays at its default.
    go(app, "data")
    use(app, categorical=[])
    go(app, "train")
    assert not [f for f in app.number_input if f.key == "train/min_category_samples"]
