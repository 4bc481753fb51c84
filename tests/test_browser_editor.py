"""End to end, the Graph page's editor in headless chromium at 1440 px: collapse a split, undo, redo,
save as, a reload that brings the edits back, and the saved model reopened from History.
Screenshots in ``test-artifacts/editor_*.png``; ``editor_2_saved.png`` is the app tour's
``docs/images/app/graph-editor.png``."""

import pytest
from browser_helpers import ARTIFACTS, load_bundled, nav, running_server, shot, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
VIEWPORT = {"width": 1440, "height": 900}
TOGGLE = "Edit this model: collapse a split, redirect an edge, forbid a feature"
LAYOUT = '[data-testid="stLayoutWrapper"]'
# A rerun that redraws the graph can take over 30 s on a loaded two-core machine.
RERUN = 90_000


def editor_box(page):
    """The editor's bordered container: the innermost block holding its Undo button and its measures."""
    undo, measures = page.get_by_role("button", name="Undo"), page.locator('[data-testid="stMetric"]')
    return page.locator(LAYOUT).filter(has=undo).filter(has=measures).last


def metric(page, label) -> str:
    box = editor_box(page)
    return box.locator('[data-testid="stMetric"]', has_text=label).locator('[data-testid="stMetricValue"]').inner_text()


def choose(page, label, option_prefix):
    page.locator('[data-testid="stSelectbox"]', has_text=label).click()
    page.get_by_role("option").filter(has_text=option_prefix).first.click()
    wait_idle(page)


def test_edit_undo_save_and_reopen(browser, tmp_path):
    page = browser.new_page(viewport=VIEWPORT)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    with running_server("streamlit_editor.log", ("--workspace-dir", str(tmp_path / "store"))) as (url, _):
        page.goto(url)
        load_bundled(page, "Iris")
        nav(page, "Graph")
        page.get_by_text(TOGGLE).click()
        wait_idle(page)
        editor = editor_box(page)
        editor.get_by_role("button", name="Collapse", exact=True).wait_for(timeout=60_000)
        before = int(metric(page, "Splits"))

        choose(page, "Split to make a leaf", "#5:")
        editor.get_by_role("button", name="Collapse", exact=True).click()
        wait_idle(page)
        expect(editor.get_by_text("collapse node 5 into a leaf")).to_be_visible(timeout=RERUN)
        after = int(metric(page, "Splits"))
        assert after < before
        # the collapsed node is drawn with the highlight's bold border
        node = editor.locator("svg g.node", has_text="#5")
        expect(node.first).to_be_visible(timeout=RERUN)
        assert node.first.locator('path[stroke="#c00000"], polygon[stroke="#c00000"]').count() >= 1
        editor.scroll_into_view_if_needed()
        editor.screenshot(path=str(ARTIFACTS / "editor_panel.png"))
        shot(page, "editor_1_collapsed")

        editor.get_by_role("button", name="Undo").click()
        wait_idle(page)
        expect(editor.get_by_text("(undone)")).to_be_visible(timeout=RERUN)
        assert int(metric(page, "Splits")) == before
        editor.get_by_role("button", name="Redo").click()
        wait_idle(page)
        assert int(metric(page, "Splits")) == after

        editor.get_by_label("Name of the edited model").fill("without split 5")
        editor.get_by_label("Name of the edited model").press("Enter")
        wait_idle(page)
        editor.get_by_role("button", name="Save as").click()
        expect(editor.get_by_text("Saved as run")).to_be_visible(timeout=RERUN)
        shot(page, "editor_2_saved")

        page.reload()  # the edits come back from the workspace
        page.get_by_text(TOGGLE).wait_for(timeout=60_000)
        wait_idle(page)
        expect(page.get_by_text("collapse node 5 into a leaf")).to_be_visible(timeout=RERUN)
        assert int(metric(page, "Splits")) == after

        nav(page, "History")
        page.locator('[data-testid="stSelectbox"]').first.click()
        page.get_by_role("option").filter(has_text="edited by hand: without split 5").click()
        wait_idle(page)
        page.get_by_role("button", name="Open on Graph").click()
        page.get_by_text("HandEditedClassifier from run").wait_for(timeout=60_000)
        wait_idle(page)
        assert f": {after} splits," in page.get_by_text("HandEditedClassifier from run").first.inner_text()
        shot(page, "editor_3_reopened")
    assert not errors, errors
