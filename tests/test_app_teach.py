"""The Teach page through Streamlit's AppTest: the gallery and its measured sentences, drawing data by
clicks on the board (selection events), the step-through on every problem, and the page's state kept
in the workspace."""

import json
import os

import pytest
from app_helpers import go, new_session

from tnt import TnTClassifier
from tnt.experiments.gallery import PROBLEMS, make_problem
from tnt.services.split_counts import measure_splits, splits_sentence
from tnt.workspace import WorkspaceStore
from ui.display import C_GRID


@pytest.fixture
def app(open_app):
    return go(open_app(90), "teach")


def click(at, label):
    (button,) = [b for b in at.button if b.label == label]
    button.click().run()
    assert not at.exception, at.exception


def texts(at):
    return [m.value for m in at.markdown]


def board(at):
    (chart,) = [c for c in at.get("plotly_chart") if "teach/board/" in (c.proto.id or "")]
    return chart


def click_board(at, *points):
    """What a click (or shift-clicks) on the board sends: a plotly selection of grid points.

    AppTest has no API for a chart's selection, so the event is added to the widget states of the
    next run, as the browser sends it (a JSON string under the chart's widget id)."""
    states = at._tree.get_widget_states()
    event = states.widgets.add()
    event.id = board(at).proto.id
    selected = [{"x": x, "y": y, "curve_number": 0, "point_index": i} for i, (x, y) in enumerate(points)]
    event.string_value = json.dumps(
        {"selection": {"points": selected, "point_indices": list(range(len(points))), "box": [], "lasso": []}}
    )
    at._run(states)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def draw(at, cls, *points):
    at.radio(key="teach/draw_class").set_value(cls).run()
    for point in points:
        click_board(at, point)


def test_the_gallery_shows_every_problem_with_its_measured_splits(app):
    shown = texts(app)
    for problem_id, problem in PROBLEMS.items():
        X, y = make_problem(problem_id, seed=0)
        sentence = splits_sentence(measure_splits(X, y, C=1e-2, seed=0))
        at = shown.index(f"**{problem.name}**")
        assert shown[at + 1] == sentence, problem_id
        assert problem.shows in [c.value for c in app.caption]
    assert [c.key for c in app.get("plotly_chart")][:6] == [f"teach/thumb/{p}" for p in PROBLEMS]
    assert app.radio(key="teach/problem").options == [p.name for p in PROBLEMS.values()]


def test_the_noisy_copies_and_another_c_are_measured_again(app):
    app.toggle(key="teach/noisy").set_value(True).run()
    X, y = make_problem("moons", seed=0, noisy=True)
    assert splits_sentence(measure_splits(X, y, C=1e-2, seed=0)) in texts(app)
    app.toggle(key="teach/noisy").set_value(False).run()
    app.select_slider(key="teach/C").set_value(0.1).run()
    assert not app.exception
    xor = texts(app)[texts(app).index("**XOR**") + 1]
    assert xor.startswith("Measured at C=0.1: TnT finds nothing: it keeps no split")
    assert TnTClassifier(C=0.1, random_state=0).fit(*make_problem("xor", seed=0)).n_splits_ == 0


def test_the_step_slider_shows_its_step_to_a_browser_that_mounts_it_afresh(app):
    # A browser shows a widget's own default until it holds a value of its own: the slider's default
    # was its minimum while the page drew the last step (the value was set through the session state).
    steps = app.slider(key="teach/step")
    last = int(steps.max)
    assert last > 1 and steps.value == last and steps.proto.default == [last]
    steps.set_value(2).run()
    assert not app.exception
    assert app.slider(key="teach/step").proto.default == [2]
    assert any(t.startswith(f"**Step 2 of {last}: ") for t in texts(app))


def choice_defaults(at):
    """What the page's choices show to a browser that mounts them afresh: their own defaults."""
    return {
        "C": C_GRID[int(at.select_slider(key="teach/C").proto.default[0])],
        "seed": int(at.number_input(key="teach/seed").proto.default),
        "source": at.radio(key="teach/source").options[at.radio(key="teach/source").proto.default],
        "noisy": at.toggle(key="teach/noisy").proto.default,
        "problem": list(PROBLEMS)[at.radio(key="teach/problem").proto.default],
    }


def test_the_choices_show_what_they_hold_to_a_browser_that_mounts_them_afresh(app, state_warnings):
    # ui.teaching restores them through the session state: their own defaults were C=1e-05, seed 0.
    chosen = {"C": 2e-3, "seed": 5, "source": "Gallery of problems", "noisy": True, "problem": "xor"}
    app.select_slider(key="teach/C").set_value(2e-3)
    app.number_input(key="teach/seed").set_value(5)
    app.toggle(key="teach/noisy").set_value(True)
    app.radio(key="teach/problem").set_value("xor").run()
    assert not app.exception
    assert choice_defaults(app) == chosen
    # A reload restores them from the workspace, through the session state: no defaults of their own in
    # that run (Streamlit warns of both at once), the restored values at the next.
    again = go(new_session(90, workspace_of(app)), "teach")
    assert again.select_slider(key="teach/C").value == 2e-3 and again.number_input(key="teach/seed").value == 5
    again.run()
    assert not again.exception
    assert choice_defaults(again) == chosen
    assert state_warnings == []


@pytest.mark.parametrize("problem_id", list(PROBLEMS))
def test_the_step_through_works_on_every_problem(app, problem_id):
    app.radio(key="teach/problem").set_value(problem_id).run()
    assert not app.exception and not app.error
    X, y = make_problem(problem_id, seed=0)
    tnt = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    metrics = [m.value for m in app.metric if m.label == "Splits"]
    assert metrics[1] == str(tnt.n_splits_)
    assert len(metrics) == (4 if problem_id == "corners" else 3)  # the paper's graph only for the corners
    steps = app.slider(key="teach/step")
    last = int(steps.max)
    assert any(t.startswith(f"**Step {last} of {last}: ") and f"{tnt.n_splits_} splits" in t for t in texts(app))
    steps.set_value(1).run()
    assert not app.exception
    assert any(t.startswith(f"**Step 1 of {last}: phase 1, grow pass 1 of 5") for t in texts(app))


def test_clicks_on_the_board_add_points_of_the_chosen_class_and_undo_and_clear_remove_them(app):
    app.radio(key="teach/source").set_value("draw").run()
    assert any("Add points of at least two classes" in i.value for i in app.info)
    first = board(app).proto.id
    draw(app, 0, (0.1, 0.2))
    assert app.session_state["teach/points"] == [[0.1, 0.2, 0]]
    assert board(app).proto.id != first  # a fresh board: the next click on the same spot counts again
    draw(app, 2, (0.1, 0.2), (0.9, 0.8))
    click_board(app, (0.3, 0.3), (0.4, 0.4))  # shift-click: two points at once
    assert app.session_state["teach/points"] == [
        [0.1, 0.2, 0],
        [0.1, 0.2, 2],
        [0.9, 0.8, 2],
        [0.3, 0.3, 2],
        [0.4, 0.4, 2],
    ]
    assert [m.value for m in app.metric if m.label == "Points drawn"] == ["5"]
    click(app, "Undo")
    assert app.session_state["teach/points"][-1] == [0.3, 0.3, 2]
    click(app, "Clear")
    assert app.session_state["teach/points"] == []
    assert [b.disabled for b in app.button if b.label in ("Undo", "Clear")] == [True, True]


def test_drawn_data_that_cannot_be_trained_on_gets_one_sentence(app):
    app.radio(key="teach/source").set_value("draw").run()
    assert app.radio(key="teach/draw_class").value == 0  # the first class first
    draw(app, 1, (0.1, 0.1), (0.2, 0.2))
    click(app, "Train on these points")
    assert [w.value for w in app.warning] == [
        "Draw at least 6 points to train on (there are 2): click on the plot to add some."
    ]
    draw(app, 1, (0.3, 0.3), (0.4, 0.4), (0.5, 0.5), (0.6, 0.6))
    click(app, "Train on these points")
    assert [w.value for w in app.warning] == ["All 6 points are of class 1: add points of another class, then train."]
    assert not app.metric or [m.label for m in app.metric] == ["Points drawn"]


def test_drawn_data_trains_the_three_models_and_steps_through(app):
    app.radio(key="teach/source").set_value("draw").run()
    low = [(0.1, 0.1), (0.2, 0.3), (0.3, 0.2), (0.15, 0.4)]
    high = [(0.7, 0.8), (0.8, 0.6), (0.9, 0.9), (0.6, 0.7)]
    draw(app, 0, *low)
    draw(app, 1, *high)
    click(app, "Train on these points")
    assert not app.warning
    X = [list(p) for p in low + high]
    y = [0] * 4 + [1] * 4
    tnt = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    assert [m.value for m in app.metric if m.label == "Splits"] == [str(tnt.n_splits_)] * 3
    assert [m.value for m in app.metric if m.label == "Training accuracy"] == ["1.0000"] * 3
    assert splits_sentence(measure_splits(X, y, C=1e-2, seed=0)) in texts(app)
    assert [t for t in texts(app) if t.startswith("**") and "**" in t[2:]][:3] == [
        "**CART**",
        "**TnT**",
        "**TnT after graph reduction**",
    ]
    app.slider(key="teach/step").set_value(1).run()
    assert any(t.startswith("**Step 1 of ") for t in texts(app))
    # A point added after training: the results stay those of the trained points, and the page says so.
    draw(app, 0, (0.5, 0.1))
    assert any("The points changed since the last training" in c.value for c in app.caption)
    assert [m.value for m in app.metric if m.label == "Training accuracy"] == ["1.0000"] * 3


def workspace_of(at):
    ws = at.query_params["ws"]
    return ws[0] if isinstance(ws, list) else ws


def test_a_reload_brings_back_the_drawn_points_and_the_choices(app):
    app.radio(key="teach/source").set_value("draw").run()
    draw(app, 0, (0.1, 0.1), (0.2, 0.2), (0.3, 0.1))
    draw(app, 1, (0.8, 0.8), (0.9, 0.7), (0.7, 0.9))
    click(app, "Train on these points")
    app.select_slider(key="teach/C").set_value(2e-3).run()
    points = app.session_state["teach/points"]
    again = go(new_session(90, workspace_of(app)), "teach")  # a reload: the same address
    assert again.radio(key="teach/source").value == "draw"
    assert again.select_slider(key="teach/C").value == 2e-3
    assert again.radio(key="teach/draw_class").value == 1
    assert again.session_state["teach/points"] == points == again.session_state["teach/trained"]
    assert [m.value for m in again.metric if m.label == "Training accuracy"] == ["1.0000"] * 3
    go(again, "data")
    go(again, "teach")  # and so does leaving the page and coming back
    assert again.radio(key="teach/source").value == "draw" and again.session_state["teach/points"] == points


def test_a_damaged_saved_state_falls_back_to_the_defaults(app):
    store = WorkspaceStore(os.environ["TNT_WORKSPACE_DIR"])  # the app's store in tests (conftest)
    ws = workspace_of(app)
    saved = store.state(ws)
    saved["teach"] = {"source": "nowhere", "problem": "spiral", "C": 7, "seed": -1, "points": [[2, 2, 9]], "noisy": 1}
    store.set_state(ws, saved)
    again = go(new_session(90, ws), "teach")
    assert not again.exception and not again.error
    assert again.radio(key="teach/source").value == "gallery" and again.radio(key="teach/problem").value == "corners"
    assert again.select_slider(key="teach/C").value == 1e-2 and again.number_input(key="teach/seed").value == 0
    assert again.session_state["teach/points"] == [] and again.toggle(key="teach/noisy").value is False
