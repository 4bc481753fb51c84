"""End to end, one regression session: the California housing sample on a real ``streamlit run``
server in Debian's chromium, trained, drawn (Graphviz and plotly, with their colour bars) and
compared; screenshots at 1440 px in ``test-artifacts/regression_*.png``."""

import time

import pytest
from browser_helpers import (
    HIGHLIGHT,
    load_bundled,
    nav,
    running_server,
    set_c_and_train,
    shot,
    wait_idle,
    wait_trained,
)

pytestmark = pytest.mark.browser

MAX_SECONDS = 300  # the whole session, on a shared 2-core machine


@pytest.fixture(scope="module")
def server():
    with running_server("streamlit_regression.log") as (url, _):
        yield url


def test_a_regression_session_in_the_browser(server, browser):
    start = time.monotonic()
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    load_bundled(page, "California housing (regression)")
    page.get_by_text("Distribution of median_house_value").wait_for()
    wait_idle(page)
    shot(page, "regression_1_data")

    nav(page, "Train")
    set_c_and_train(page, "1e-02")  # C: 1e-03 -> 2e-03 -> 5e-03 -> 1e-02
    wait_trained(page, "TnT at C=1e-02")
    r2 = page.locator('[data-testid="stMetric"]', has_text="Test R²").locator('[data-testid="stMetricValue"]')
    assert 0.3 < float(r2.inner_text()) < 1.0
    page.get_by_text("DecisionTreeRegressor").first.wait_for()
    shot(page, "regression_2_train")

    # Graph: a small graph laid out in the browser, coloured by mean target, the sample's path in red.
    nav(page, "Graph")
    chart = '[data-testid="stGraphVizChart"] svg'
    page.locator(f"{chart} g.node").nth(10).wait_for(timeout=60_000)
    page.locator(f'{chart} g.node path[stroke="{HIGHLIGHT}"]').nth(1).wait_for()
    page.get_by_text("Node colour: mean").wait_for()
    page.get_by_text("off by").wait_for()
    page.get_by_text("spread (std)").wait_for()
    wait_idle(page)
    shot(page, "regression_3_graph")

    page.get_by_text("Interactive (plotly)").click()
    plot = page.locator(".js-plotly-plot").first
    plot.locator(".scatterlayer .trace .point").first.wait_for(timeout=60_000)
    colors = page.evaluate(
        "() => document.querySelector('.js-plotly-plot').data.find(t => t.name === 'nodes').marker.color"
    )
    assert "#7a0c30" in colors and "#fff5d6" in colors  # the largest and the smallest mean, at the scale's ends
    wait_idle(page)
    shot(page, "regression_4_graph_plotly")

    nav(page, "Compare")
    page.get_by_text("Highest test R²").wait_for(timeout=120_000)
    wait_idle(page)
    shot(page, "regression_5_compare")
    assert not errors, errors
    assert time.monotonic() - start < MAX_SECONDS
