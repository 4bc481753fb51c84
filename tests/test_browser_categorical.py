"""End to end, in Debian's chromium: a CSV with a text column (``colour``, with empty cells) through the
real uploader. The Data page makes it categorical; TnT trains with N1=2 (the default); the Graph page
writes the split ``colour in {...}`` in the drawing, the sample's path and the rules, draws a bar per
category in the node inspector and offers the categories by name in What if?; Compare draws its five
models with subset splits. Screenshots at 1,440 px (test-artifacts/categorical_*.png)."""

import re
from pathlib import Path

import pytest
from browser_helpers import nav, running_server, shot, wait_idle, wait_trained

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
COLOURS = ROOT / "tests" / "colours.csv"  # colour (blue, green, purple, red; 12 empty cells), size, doors, label
SPLIT = re.compile(r"colour (not )?in \{[a-z, ]+\}")
CELLS = "() => [...document.querySelectorAll('[role=gridcell]')].map(c => c.innerText.trim())"


def cells(page) -> list[str]:
    return page.evaluate(CELLS)


def test_a_text_column_is_split_by_subsets_and_shown_by_name(browser):
    with running_server("streamlit_categorical.log") as (url, _):
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        page.get_by_text("In use:").wait_for(timeout=60_000)
        page.locator('input[type="file"]').set_input_files(str(COLOURS))
        page.get_by_text("Categorical columns (split by subsets").wait_for(timeout=30_000)
        page.get_by_role("button", name="Use this data").click()
        page.get_by_text("In use: colours.csv").wait_for(timeout=30_000)
        page.get_by_text("Column 'colour' is categorical: a split sends a subset").wait_for()
        wait_idle(page)
        shot(page, "categorical_1_data")

        nav(page, "Train")
        page.get_by_role("button", name="Train").click()
        wait_trained(page, "TnT at C=1e-03, N1=2, N2=5")
        shot(page, "categorical_2_train")

        nav(page, "Graph")
        chart = '[data-testid="stGraphVizChart"] svg'
        page.locator(f"{chart} g.node").first.wait_for(timeout=120_000)
        wait_idle(page)
        drawn = page.locator(chart).first.text_content()
        assert SPLIT.search(drawn), drawn
        path = cells(page)
        assert any(SPLIT.search(c) for c in path), path
        shot(page, "categorical_3_graph")  # the drawing, the path, the inspector (node #0: a bar per category)
        inspector = page.locator('[data-testid="stPlotlyChart"]').first
        inspector.scroll_into_view_if_needed()
        assert "Node #0" in inspector.inner_text()
        page.screenshot(path=str(ROOT / "test-artifacts" / "categorical_4_inspector.png"))

        page.get_by_text("What if?", exact=True).first.click()
        wait_idle(page)
        page.get_by_text("Predicted:").first.wait_for()
        page.get_by_text("Predicted:").first.scroll_into_view_if_needed()
        assert any(SPLIT.search(c) for c in cells(page))
        page.screenshot(path=str(ROOT / "test-artifacts" / "categorical_5_what_if.png"))

        page.get_by_text("Rules", exact=True).first.click()
        wait_idle(page)
        page.get_by_text("Read a rule whole").first.scroll_into_view_if_needed()
        rules = cells(page)
        assert any(SPLIT.search(c) for c in rules), rules
        page.screenshot(path=str(ROOT / "test-artifacts" / "categorical_6_rules.png"))
        shot(page, "categorical_7_graph_rules_full")

        # Compare: the five models split colour by subsets (it refused categorical data before).
        nav(page, "Compare")
        page.get_by_text("Highest test accuracy").wait_for(timeout=180_000)
        page.get_by_text("Every model splits them by subsets of their categories").wait_for()
        wait_idle(page)
        drawn = " ".join(page.locator('[data-testid="stGraphVizChart"] svg').all_text_contents())
        assert len(SPLIT.findall(drawn)) >= 5, drawn  # a subset split in each model's drawing
        shot(page, "categorical_8_compare")
