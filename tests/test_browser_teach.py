"""End to end, the Teach page in headless chromium at 1440 px: the gallery, then clicks on the drawing
board that add points of the chosen class, undo, and training on the drawn points. Screenshots in
``test-artifacts/teach_*.png``."""

import pytest
from browser_helpers import click_on_board, points_drawn, running_server, shot, wait_for_points_drawn, wait_idle

from tnt import TnTClassifier
from tnt.experiments.gallery import make_problem
from tnt.services.drawn_data import GRID_STEP
from tnt.services.split_counts import measure_splits, splits_sentence

pytestmark = pytest.mark.browser
VIEWPORT = {"width": 1440, "height": 1100}
LONG = 120_000


@pytest.fixture(scope="module")
def server():
    with running_server("streamlit_teach.log") as (url, _):
        yield url


def choose(page, label):
    page.locator('[data-testid="stRadio"]').get_by_text(label, exact=True).click()
    wait_idle(page)


def test_clicks_on_the_board_add_points_then_training_shows_the_three_models(server, browser):
    page = browser.new_page(viewport=VIEWPORT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/teach")
    page.get_by_text("Step through training").wait_for(timeout=LONG)
    wait_idle(page, timeout=LONG)
    for name in ("XOR", "Checkerboard (4 by 4)", "Diagonal boundary", "Concentric rings", "Two moons"):
        page.get_by_text(name, exact=True).first.wait_for()
    checkerboard = splits_sentence(measure_splits(*make_problem("checkerboard"), C=1e-2, seed=0))
    assert page.get_by_text(checkerboard, exact=True).count() == 1
    page.set_viewport_size({"width": 1440, "height": 2600})
    wait_idle(page)
    shot(page, "teach_1_gallery")
    page.set_viewport_size(VIEWPORT)

    choose(page, "Draw your own data")
    page.get_by_text("Add points of at least two classes").wait_for(timeout=LONG)
    assert points_drawn(page) == 0
    # Exclusive or, three points a quadrant, and one more that Undo takes back.
    lower_left, upper_right = [(0.1, 0.2), (0.25, 0.1), (0.3, 0.35)], [(0.8, 0.9), (0.7, 0.65), (0.9, 0.75)]
    upper_left, lower_right = [(0.15, 0.8), (0.3, 0.7), (0.2, 0.9)], [(0.7, 0.2), (0.85, 0.35), (0.9, 0.1)]
    choose(page, "class 0")
    for x, y in lower_left + upper_right:
        click_on_board(page, x, y)
    choose(page, "class 1")
    for x, y in upper_left + lower_right + [(0.5, 0.5)]:
        click_on_board(page, x, y)
    assert points_drawn(page) == 13
    page.get_by_role("button", name="Undo").click()
    wait_for_points_drawn(page, 12)
    board = page.locator(".js-plotly-plot").first
    # el._fullData: the traces as drawn (el.data keeps plotly.py's packed arrays).
    drawn = board.evaluate(
        "el => el._fullData.filter(t => t.name !== 'grid').map(t => [t.name, Array.from(t.x), Array.from(t.y)])"
    )
    assert [name for name, _, _ in drawn] == ["class 0", "class 1", "class 2"]
    for (_, xs, ys), clicked in zip(drawn, [lower_left + upper_right, upper_left + lower_right, []]):
        # Each click lands on the grid point nearest to it.
        assert len(xs) == len(clicked)
        assert all(abs(x - cx) <= GRID_STEP and abs(y - cy) <= GRID_STEP for x, y, (cx, cy) in zip(xs, ys, clicked))
    shot(page, "teach_2_drawn_points")

    page.get_by_role("button", name="Train on these points").click()
    page.get_by_text("Step through training").wait_for(timeout=LONG)
    wait_idle(page, timeout=LONG)
    for name in ("CART", "TnT", "TnT after graph reduction"):
        page.get_by_text(name, exact=True).first.wait_for()
    X = [[x, y] for _, xs, ys in drawn for x, y in zip(xs, ys)]
    y = [0] * 6 + [1] * 6
    tnt = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    splits = page.locator('[data-testid="stMetric"]', has_text="Splits").locator('[data-testid="stMetricValue"]')
    assert splits.all_inner_texts()[1] == str(tnt.n_splits_)
    assert page.get_by_text(f"Measured at C=0.01: TnT uses {tnt.n_splits_} splits").count() == 1
    page.set_viewport_size({"width": 1440, "height": 2600})
    wait_idle(page)
    page.wait_for_timeout(1_000)  # plotly and graphviz finish drawing
    shot(page, "teach_3_trained_on_drawn_points")
    assert not errors, errors
