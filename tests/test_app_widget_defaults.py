"""The keyed widgets of the Data, Ensembles, Sweep, Graph and History pages show the value they hold to a browser that
mounts them afresh (``ui.state.held``), through Streamlit's AppTest.

A browser shows a widget's own default until it holds a value of its own, and learns a value kept
only in the session state from the script run that set it: one that missed that run showed the
literal default (test share 0.3, 5 base estimators), and submitted it at the next press. Each test
sets values other than the defaults, reruns, and reads the widgets' own defaults; Streamlit's warning
about a widget given a default and a value through the session state in one run never appears."""

import ast

from app_helpers import ROOT, button, go, train, upload
from sklearn.tree import DecisionTreeClassifier

from tnt.model_io import from_sklearn, model_to_json
from ui.display import C_GRID


def slider_default(at, key):
    (value,) = at.slider(key=key).proto.default
    return value


def test_the_bundled_split_widgets_show_the_split_they_hold(open_app, state_warnings):
    app = open_app(60)
    app.slider(key="data/bundled_test").set_value(0.4)
    app.number_input(key="data/bundled_seed").set_value(7)
    button(app, "Load data set").click().run()
    assert not app.exception
    assert slider_default(app, "data/bundled_test") == 0.4
    assert app.number_input(key="data/bundled_seed").proto.default == 7
    # An upload with another split is now in use: the bundled form still holds (and shows) its own split;
    # its defaults were the data in use's (0.25 and 3), which a browser mounting the form afresh showed.
    upload(app, ROOT / "tests" / "good_text_feature.csv")
    app.slider(key="data/upload_test").set_value(0.25)
    app.number_input(key="data/upload_seed").set_value(3)
    button(app, "Use this data").click().run()
    assert app.session_state["data/source"]["test_size"] == 0.25
    app.run()
    assert app.slider(key="data/bundled_test").value == 0.4 and slider_default(app, "data/bundled_test") == 0.4
    assert app.number_input(key="data/bundled_seed").proto.default == 7
    go(go(app, "train"), "data")  # made afresh: from the data set in use
    assert slider_default(app, "data/bundled_test") == 0.25 and app.slider(key="data/bundled_test").value == 0.25
    assert state_warnings == []


def test_the_upload_form_shows_the_task_and_split_chosen(open_app, state_warnings):
    app = upload(open_app(60), ROOT / "tests" / "good_text_feature.csv")
    assert slider_default(app, "data/upload_test") == 0.3
    assert app.radio(key="data/upload_task").proto.default == 0
    app.radio(key="data/upload_task").set_value("classification")
    app.slider(key="data/upload_test").set_value(0.25)
    app.number_input(key="data/upload_seed").set_value(3)
    button(app, "Use this data").click().run()
    assert not app.exception and not app.error
    source = app.session_state["data/source"]
    assert (source["task"], source["test_size"], source["seed"]) == ("classification", 0.25, 3)
    app.run()
    assert app.radio(key="data/upload_task").proto.default == 1  # classification
    assert slider_default(app, "data/upload_test") == 0.25
    assert app.number_input(key="data/upload_seed").proto.default == 3
    assert state_warnings == []


def small_data(at):
    """Wine loaded: the forms below train on it (a form sends its values when it is submitted)."""
    at.selectbox[0].set_value("wine")
    button(at, "Load data set").click().run()
    assert not at.exception
    return at


def test_the_ensembles_form_shows_its_settings(open_app, state_warnings):
    app = go(small_data(open_app(60)), "ensembles")
    assert (slider_default(app, "ensembles/n"), slider_default(app, "ensembles/seeds")) == (5, 1)
    app.slider(key="ensembles/n").set_value(2)
    app.slider(key="ensembles/seeds").set_value(2)
    app.slider(key="ensembles/jobs").set_value(1)
    app.select_slider(key="ensembles/C_bag").set_value(1e-2)
    button(app, "Train the ensembles").click().run()
    assert not app.exception and not app.error
    app.run()
    assert (slider_default(app, "ensembles/n"), slider_default(app, "ensembles/seeds")) == (2, 2)
    assert slider_default(app, "ensembles/jobs") == 1
    assert [C_GRID[int(i)] for i in app.select_slider(key="ensembles/C_bag").proto.default] == [1e-2]
    assert state_warnings == []


def test_the_sweep_form_shows_its_settings(open_app, state_warnings):
    app = go(small_data(open_app(60)), "sweep")
    app.slider(key="sweep/n").set_value(2)
    app.slider(key="sweep/seeds").set_value(1)
    app.slider(key="sweep/jobs").set_value(1)
    app.checkbox(key="sweep/ndg").check()
    app.select_slider(key="sweep/range").set_value((1e-3, 1e-2))
    button(app, "Run sweep").click().run()
    assert not app.exception and not app.error
    app.run()
    assert (slider_default(app, "sweep/n"), slider_default(app, "sweep/seeds")) == (2, 1)
    assert app.checkbox(key="sweep/ndg").proto.default is True
    assert [C_GRID[int(i)] for i in app.select_slider(key="sweep/range").proto.default] == [1e-3, 1e-2]
    assert state_warnings == []


def test_the_graph_page_choices_show_what_they_hold(open_app, state_warnings):
    app = go(open_app(60), "graph")
    (view_key,) = [r.key for r in app.radio if r.key.startswith("graph/view/")]
    views = app.radio(key=view_key).options
    other = next(v for v in views if v != app.radio(key=view_key).value)
    app.radio(key=view_key).set_value(other).run()
    app.toggle(key="graph/highlight").set_value(False).run()
    app.run()
    assert not app.exception
    assert views[app.radio(key=view_key).proto.default] == other
    assert app.toggle(key="graph/highlight").proto.default is False
    # A model file just opened is shown at once (given through the session state in that run), and is
    # the model picker's own default at the next run.
    data = app.session_state["data/dataset"]
    tree = DecisionTreeClassifier(max_leaf_nodes=8, random_state=0).fit(data.X_train, data.y_train)
    content = model_to_json(from_sklearn(tree, feature_names=data.feature_names)).encode()
    app.file_uploader(key="graph/model_file").set_value(("tree.json", content, "application/json")).run()
    assert not app.exception and app.radio(key="graph/model").value == "Opened: tree.json"
    app.run()
    picker = app.radio(key="graph/model")
    assert picker.options[picker.proto.default] == "Opened: tree.json"
    assert state_warnings == []


def test_the_history_page_shows_the_run_chosen(open_app, state_warnings):
    app = train(small_data(open_app(60)))
    app.select_slider(key="train/C").set_value(1e-2)
    button(app, "Train").click().run()
    go(app, "history")
    assert app.selectbox(key="history/run").proto.default == 0
    app.selectbox(key="history/run").select_index(1).run()
    app.checkbox(key="history/forget_sure").check().run()
    app.run()
    assert not app.exception
    assert app.selectbox(key="history/run").proto.default == 1
    assert app.checkbox(key="history/forget_sure").proto.default is True
    assert state_warnings == []


def _held_script():
    import streamlit as st

    from ui import state

    if st.session_state.pop("ask", None) is not None:
        state.ask("n", 12)  # out of the slider's range: held's fit moves it
    value, kwargs = state.held("n", 4, fit=lambda v: min(max(v, 0), 10))
    st.session_state["seen"] = (value, kwargs)
    st.slider("n", 0, 10, key="n", **kwargs)


def test_held_gives_the_value_held_as_default_and_none_where_the_page_sets_it(state_warnings):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_held_script).run()
    assert at.session_state["seen"] == (4, {"value": 4}) and at.slider(key="n").value == 4  # made afresh
    at.slider(key="n").set_value(7).run()
    assert at.session_state["seen"] == (7, {"value": 7}) and at.slider(key="n").proto.default == [7]
    at.session_state["ask"] = True
    at.run()  # asked for in this run: set through the session state, no default of its own
    assert at.session_state["seen"] == (10, {}) and at.slider(key="n").value == 10
    at.run()
    assert at.session_state["seen"] == (10, {"value": 10}) and at.slider(key="n").proto.default == [10]
    assert not at.exception and state_warnings == []


def _keyed_script():
    import streamlit as st

    from ui import state

    if st.session_state.pop("ask", None) is not None:
        state.ask("pick", "z")  # not an option: held's options move it to the default
    st.session_state["seen"] = state.keyed("pick", "b", options=["a", "b", "c"])
    st.radio("pick", ["a", "b", "c"], **st.session_state["seen"])
    st.slider("n", 0, 10, **state.keyed("n", 4, fit=lambda v: min(max(v, 0), 10)))


def test_keyed_gives_the_key_and_helds_keyword_arguments(state_warnings):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_keyed_script).run()
    assert at.session_state["seen"] == {"key": "pick", "index": 1} and at.radio(key="pick").value == "b"
    assert at.slider(key="n").value == 4 and at.slider(key="n").proto.default == [4]
    at.radio(key="pick").set_value("c").run()
    at.slider(key="n").set_value(7).run()
    assert at.session_state["seen"] == {"key": "pick", "index": 2} and at.slider(key="n").proto.default == [7]
    at.session_state["ask"] = True
    at.run()  # asked for in this run: the key alone, the value through the session state
    assert at.session_state["seen"] == {"key": "pick"} and at.radio(key="pick").value == "b"
    at.run()
    assert at.session_state["seen"] == {"key": "pick", "index": 1}
    assert not at.exception and state_warnings == []


def _calls_of(name, tree):
    """The calls in ``tree`` whose function is ``name`` or an attribute ``name`` (``state.keyed``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)) == name:
                yield node


def test_every_keyed_widget_writes_its_key_once():
    """A widget given ``key=K`` and ``**state.held(K2, ...)[1]`` (or ``clamp``'s) reads K2's default and writes K, silently
    when K2 drifts from K: every such widget goes through ``state.keyed(K, ...)``, which writes the key once."""
    both, keyed = [], 0
    for path in sorted([ROOT / "app.py", *(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").glob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        keyed += sum(1 for _ in _calls_of("keyed", tree))
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call) or not any(k.arg == "key" for k in call.keywords):
                continue
            for spread in (k.value for k in call.keywords if k.arg is None):
                if isinstance(spread, ast.Subscript) and any(
                    True for f in ("held", "clamp") for _ in _calls_of(f, spread)
                ):
                    both.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    assert both == []
    assert keyed > 30  # the scan found the widgets (it cannot pass on files it did not read)
