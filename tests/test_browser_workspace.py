"""End to end, the workspace: a reload and a server restart (after ``kill -9``) bring back the data,
the models and the history; two sessions train at once into their own workspaces.

The server gets its store folder with ``-- --workspace-dir`` (a temporary folder, never the home).
"""

import signal
import sqlite3
from urllib.parse import parse_qs, urlparse

import pytest
from browser_helpers import ROOT, nav, running_server, set_c_and_train, shot, wait_idle, wait_trained
from playwright.sync_api import expect

from tnt.workspace import WorkspaceStore

pytestmark = pytest.mark.browser
CSV = ROOT / "tests" / "good_text_feature.csv"
VIEW = {"width": 1440, "height": 900}


def metric(page, label) -> str:
    return (
        page.locator('[data-testid="stMetric"]', has_text=label).locator('[data-testid="stMetricValue"]').inner_text()
    )


def workspace_in(url) -> str:
    (ws,) = parse_qs(urlparse(url).query)["ws"]
    return ws


def picker_options(page) -> list[str]:
    """The labels of the History page's run picker."""
    page.locator('[data-testid="stSelectbox"]').first.click()
    page.get_by_role("option").first.wait_for(timeout=30_000)
    options = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    return options


def test_reload_and_restart_after_kill_bring_back_data_models_and_history(browser, tmp_path):
    folder = tmp_path / "store"
    args = ("--workspace-dir", str(folder))
    page = browser.new_page(viewport=VIEW)
    with running_server("streamlit_workspace_1.log", args) as (url, proc):
        page.goto(url)
        page.get_by_text("In use:").wait_for(timeout=60_000)
        page.locator('input[type="file"]').set_input_files(str(CSV))
        page.get_by_role("button", name="Use this data").click()
        page.get_by_text("In use: good_text_feature.csv").wait_for(timeout=30_000)
        nav(page, "Train")
        page.get_by_role("button", name="Train").click()
        wait_trained(page, "TnT at C=1e-03")
        splits, accuracy = metric(page, "Splits"), metric(page, "Test accuracy")
        ws = workspace_in(page.url)

        page.reload()  # the same data set and model, not the bundled digits
        page.get_by_text("TnT at C=1e-03").wait_for(timeout=60_000)
        wait_idle(page)
        assert workspace_in(page.url) == ws
        expect(page.locator('[data-testid="stSidebar"]').get_by_text("good_text_feature.csv")).to_be_visible(
            timeout=30_000
        )
        assert (metric(page, "Splits"), metric(page, "Test accuracy")) == (splits, accuracy)
        expect(page.get_by_text("Trained earlier, in")).to_be_visible(timeout=30_000)  # not trained again
        shot(page, "ws_1_train_after_reload")

        set_c_and_train(page, "2e-03")
        wait_trained(page, "TnT at C=2e-03")  # shown after it was saved
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    with sqlite3.connect(folder / "workspaces.sqlite3") as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with running_server("streamlit_workspace_2.log", args) as (url, _):
        page.goto(f"{url}/history?ws={ws}")
        page.get_by_text("Forget this workspace").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert [o.split(",")[:2] for o in picker_options(page)] == [
            ["#2 good_text_feature.csv", " C=2e-03"], ["#1 good_text_feature.csv", " C=1e-03"]
        ]  # fmt: skip
        wait_idle(page)
        shot(page, "ws_2_history_after_restart")
        page.get_by_role("button", name="Open on Graph").click()
        page.get_by_text("TnT on good_text_feature.csv at C=2e-03").wait_for(timeout=60_000)
        page.locator('[data-testid="stGraphVizChart"] svg g.node').first.wait_for(timeout=60_000)
        wait_idle(page)
        assert workspace_in(page.url) == ws
        shot(page, "ws_3_graph_of_a_reopened_run")


def test_two_sessions_training_at_once_keep_their_own_workspaces(browser, tmp_path):
    folder = tmp_path / "store"
    with running_server("streamlit_workspace_3.log", ("--workspace-dir", str(folder))) as (url, _):
        pages = [browser.new_page(viewport=VIEW) for _ in range(2)]
        for page in pages:  # both train the default model, once the page's first run is over
            page.goto(f"{url}/train")
            page.get_by_role("button", name="Train").wait_for(timeout=120_000)
            wait_idle(page)
            # the second page opens while the first trains: it once showed the slider's minimum (1e-05)
            expect(page.get_by_role("slider").first).to_have_attribute("aria-valuetext", "1e-03")
            page.get_by_role("button", name="Train").click()
        for page in pages:
            wait_trained(page, "TnT at C=1e-03")
        set_c_and_train(pages[0], "2e-03")  # both train at once
        set_c_and_train(pages[1], "5e-04")
        wait_trained(pages[0], "TnT at C=2e-03")
        wait_trained(pages[1], "TnT at C=5e-04")
        mine, theirs = (workspace_in(page.url) for page in pages)
        assert mine != theirs
        store = WorkspaceStore(folder)
        assert sorted(r.params["C"] for r in store.runs(mine)) == [1e-3, 2e-3]
        assert sorted(r.params["C"] for r in store.runs(theirs)) == [5e-4, 1e-3]
        nav(pages[1], "History")
        pages[1].get_by_text("Forget this workspace").first.wait_for(timeout=60_000)
        wait_idle(pages[1])
        assert [o.split(",")[1] for o in picker_options(pages[1])] == [" C=5e-04", " C=1e-03"]
        wait_idle(pages[1])
        shot(pages[1], "ws_4_history_second_session")
    with sqlite3.connect(folder / "workspaces.sqlite3") as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
