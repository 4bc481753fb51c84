"""End to end: ``streamlit run`` on a free local port, driven by Playwright in Debian's chromium.

Screenshots go to ``test-artifacts/``. Without chromium this test fails (it never skips): CI
installs it (``.ci/run``), and so should a developer (``apt-get install chromium``).
"""

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HIGHLIGHT = "#c00000"  # tnt.viz.export_dot.HIGHLIGHT_COLOR

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "streamlit.log", "w")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
        ],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            assert proc.poll() is None, "streamlit exited; see test-artifacts/streamlit.log"
            assert time.monotonic() < deadline, "streamlit did not answer its health check within 60 s"
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.fail("Debian's chromium is missing: install it with `apt-get install chromium` (CI's .ci/run does).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield b
        b.close()


def wait_idle(page, timeout=60_000):
    """Wait until the script run is over (Streamlit shows a status widget while running)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"], [data-stale=\"true\"]')",
        timeout=timeout,
    )


def nav(page, title):
    page.locator('[data-testid="stSidebarNav"] a', has_text=title).click()
    page.wait_for_function(f"() => [...document.querySelectorAll('h2')].some(h => h.innerText.includes('{title}'))")
    wait_idle(page)


def shot(page, name):
    """Save a screenshot, after checking that the page shows no exception box."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0, f"an exception is on screen: {name}.png"


def test_open_train_and_see_the_graph(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    page.get_by_text("In use: Handwritten digits").wait_for(timeout=60_000)
    wait_idle(page)
    shot(page, "1_data")

    # Train: move C one step up the log scale with the keyboard, then one click trains once.
    nav(page, "Train")
    page.get_by_text("Test accuracy").first.wait_for()
    splits_before = page.locator('[data-testid="stMetric"]', has_text="Splits").locator(
        '[data-testid="stMetricValue"]').inner_text()  # fmt: skip
    page.get_by_role("slider").first.focus()  # the thumb of C, at 1e-03
    page.keyboard.press("ArrowRight")
    page.get_by_role("button", name="Train").click()
    page.get_by_text("TnT at C=2e-03").wait_for()
    splits = page.locator('[data-testid="stMetric"]', has_text="Splits").locator('[data-testid="stMetricValue"]')
    expect(splits).not_to_have_text(splits_before, timeout=60_000)  # the new model's metric is drawn
    splits_after = splits.inner_text()
    assert int(splits_after) < int(splits_before)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text(f"TnT: {splits_after} splits").wait_for()  # filled after the page trained
    wait_idle(page)
    shot(page, "2_train")

    # Graph: drawn on the server at natural size (80 splits), with a sample's path highlighted.
    nav(page, "Graph")
    frame = page.frame_locator('iframe[title="Decision graph"]')
    frame.locator("svg g.node").nth(15).wait_for(timeout=60_000)  # the first layers of the depth window
    highlighted = f'svg g.node path[stroke="{HIGHLIGHT}"], svg g.node polygon[stroke="{HIGHLIGHT}"]'
    frame.locator(highlighted).nth(2).wait_for()  # the root and the path's first splits
    sample = page.get_by_role("spinbutton", name="Test sample", exact=True)
    sample.fill("7")
    sample.press("Enter")
    page.get_by_text("Sample #7").wait_for()
    wait_idle(page)
    frame = page.frame_locator('iframe[title="Decision graph"]')
    frame.locator(highlighted).nth(2).wait_for()
    shot(page, "3_graph_path")
    assert not errors, errors


def test_a_page_opened_directly_has_the_whole_app_around_it(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{server}/graph")
    page.frame_locator('iframe[title="Decision graph"]').locator("svg g.node").first.wait_for(timeout=60_000)
    nav_links = page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
    assert [t.split()[-1] for t in nav_links] == [  # after the icon names
        "Data", "Train", "Graph", "Compare", "Sweep", "Paths", "Ensembles", "Teach"
    ]  # fmt: skip
    page.locator('[data-testid="stSidebar"]').get_by_text("TnT Explorer").wait_for()


def test_upload_a_csv_through_the_real_uploader(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(server)
    page.get_by_text("In use:").wait_for(timeout=60_000)
    page.locator('input[type="file"]').set_input_files(str(ROOT / "tests" / "good_text_feature.csv"))
    page.get_by_role("button", name="Use this data").wait_for(timeout=30_000)
    page.get_by_role("button", name="Use this data").click()
    page.get_by_text("In use: good_text_feature.csv").wait_for(timeout=30_000)
    page.get_by_text("encoded as numbers in alphabetical order").first.wait_for()
    page.locator('input[type="file"]').set_input_files(str(ROOT / "tests" / "bad_csv" / "latin1.csv"))
    page.get_by_text("The file is not UTF-8 text").wait_for(timeout=30_000)
    wait_idle(page)
    page.get_by_text("In use: good_text_feature.csv").wait_for()  # the data in use stays
    wait_idle(page)
    shot(page, "4_upload_error")
    nav(page, "Graph")  # a small model: laid out in the browser (d3-graphviz), path highlighted
    chart = '[data-testid="stGraphVizChart"] svg'
    page.locator(f"{chart} g.node").first.wait_for(timeout=60_000)
    page.locator(f'{chart} g.node path[stroke="{HIGHLIGHT}"]').nth(1).wait_for()  # the root and a leaf at least
    shot(page, "5_graph_small")


def test_a_large_model_on_the_server(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(server)
    page.get_by_text("In use:").wait_for(timeout=60_000)
    page.locator('[data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="Pen digits").click()
    page.get_by_role("button", name="Load data set").click()
    page.get_by_text("In use: Pen digits").wait_for(timeout=60_000)
    nav(page, "Train")
    page.get_by_role("slider").first.focus()
    for _ in range(3):  # 1e-3 -> 1e-4
        page.keyboard.press("ArrowLeft")
    page.get_by_role("button", name="Train").click()
    page.get_by_text("TnT at C=1e-04").wait_for(timeout=120_000)
    wait_idle(page)
    assert int(page.locator('[data-testid="stMetric"]', has_text="Splits").locator(
        '[data-testid="stMetricValue"]').inner_text()) > 150  # fmt: skip
    shot(page, "6_train_large")
    nav(page, "Graph")
    frame = page.frame_locator('iframe[title="Decision graph"]')
    frame.locator("svg g.node").nth(20).wait_for(timeout=120_000)
    shot(page, "7_graph_large")


def drawn(page, selector, n):
    """How many ``selector`` elements the page shows, once at least ``n`` of them are drawn."""
    page.locator(selector).nth(n - 1).wait_for(timeout=60_000)
    return page.locator(selector).count()


def test_the_analysis_pages(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/compare")
    page.get_by_text("Highest test accuracy").wait_for(timeout=120_000)
    wait_idle(page)
    assert drawn(page, ".js-plotly-plot", 4) == 4  # four graphs of 100+ splits
    shot(page, "8_compare")

    nav(page, "Sweep")
    page.get_by_role("button", name="Run sweep").click()
    page.get_by_text("Splits saved by graph reduction").wait_for(timeout=180_000)
    wait_idle(page, timeout=180_000)
    assert drawn(page, ".js-plotly-plot", 1) >= 1
    shot(page, "9_sweep")

    nav(page, "Paths")  # the sweep just run gives the depth-against-splits plot
    page.get_by_text("Root-to-leaf decision depth").first.wait_for(timeout=60_000)
    wait_idle(page)
    assert drawn(page, ".js-plotly-plot", 2) == 2
    shot(page, "10_paths")

    nav(page, "Ensembles")
    page.get_by_role("button", name="Train the ensembles").click()
    page.get_by_text("mean ± std over").wait_for(timeout=180_000)
    # The table is drawn after the caption that says what it holds: wait for the table itself.
    page.locator('[data-testid="stTable"]').get_by_text("Random Forest").wait_for(timeout=60_000)
    wait_idle(page, timeout=180_000)
    shot(page, "11_ensembles")

    nav(page, "Teach")
    page.get_by_text("Step through training").wait_for(timeout=60_000)
    wait_idle(page)
    assert drawn(page, ".js-plotly-plot", 5) == 5  # four region plots and the step's
    assert drawn(page, '[data-testid="stGraphVizChart"] svg', 5) == 5
    shot(page, "12_teach")
    assert not errors, errors


# ---------------------------------------------------------------------- many users at once
#: What each page shows once it has run: (page, a locator of its content, given the session's data name).
PAGE_CONTENT = {
    "Data": lambda page, name: page.get_by_text(f"In use: {name}"),
    "Train": lambda page, name: page.locator('[data-testid="stMetric"]', has_text="Splits"),
    "Graph": lambda page, name: page.locator('[data-testid="stGraphVizChart"] svg g.node').first,
    "Compare": lambda page, name: page.get_by_text("Highest test accuracy"),
    "Sweep": lambda page, name: page.get_by_role("button", name="Run sweep"),
    "Paths": lambda page, name: page.get_by_text("Root-to-leaf decision depth").first,
    "Ensembles": lambda page, name: page.get_by_role("button", name="Train the ensembles"),
    "Teach": lambda page, name: page.get_by_text("Step through training"),
}


def user_csv(folder: Path, user: str) -> Path:
    """A small data set of one user: its file name and class names are this user's alone."""
    import numpy as np

    rng = np.random.default_rng(len(user))
    X = rng.normal(size=(90, 3))
    labels = np.where(X[:, 0] + X[:, 1] > 0, f"{user}_yes", f"{user}_no")
    path = folder / f"{user}.csv"
    rows = [f"{a:.4f},{b:.4f},{c:.4f},{label}" for (a, b, c), label in zip(X, labels)]
    path.write_text("a,b,c,label\n" + "\n".join(rows) + "\n")
    return path


def open_session(browser, server):
    page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
    page.goto(server)
    page.get_by_text("In use:").wait_for(timeout=120_000)
    return page


def test_four_users_at_once(server, browser, tmp_path):
    """One user runs a 30-value sweep, one trains on the largest bundled data, two move between every
    page with data of their own: every page shows its content, and nobody sees another's data."""
    sweeper, trainer, *browsing = (open_session(browser, server) for _ in range(4))
    users = ["user_c", "user_d"]
    for page, user in zip(browsing, users):
        page.locator('input[type="file"]').set_input_files(str(user_csv(tmp_path, user)))
        page.get_by_role("button", name="Use this data").click()
        page.get_by_text(f"In use: {user}.csv").wait_for(timeout=60_000)

    nav(sweeper, "Sweep")  # 30 values of C, one seed, on the default digits
    sweeper.locator('[data-testid="stSlider"]', has_text="Values of C").get_by_role("slider").press("End")
    sweeper.locator('[data-testid="stSlider"]', has_text="Seeds").get_by_role("slider").press("Home")
    expect(sweeper.locator('[data-testid="stSlider"]', has_text="Values of C")).to_contain_text("30")
    sweeper.get_by_role("button", name="Run sweep").click()
    sweeper.get_by_text("Training:").first.wait_for(timeout=60_000)  # the sweep is running

    trainer.locator('[data-testid="stSelectbox"]').first.click()
    trainer.get_by_role("option", name="Pen digits").click()
    trainer.get_by_role("button", name="Load data set").click()
    trainer.get_by_text("In use: Pen digits").wait_for(timeout=120_000)
    trainer.locator('[data-testid="stSidebarNav"] a', has_text="Train").click()  # trains on opening
    trainer.get_by_text("Training TnT").first.wait_for(timeout=60_000)

    seconds = {user: {} for user in users}
    for page, user in zip(browsing, users):
        others = [u for u in users if u != user]  # its file name and class names
        for title, content in PAGE_CONTENT.items():
            start = time.monotonic()
            page.locator('[data-testid="stSidebarNav"] a', has_text=title).click()
            page.wait_for_function(f"() => [...document.querySelectorAll('h2')].some(h => h.innerText.includes('{title}'))")
            content(page, f"{user}.csv").wait_for(timeout=120_000)
            seconds[user][title] = round(time.monotonic() - start, 2)
            sidebar = page.locator('[data-testid="stSidebar"]')
            sidebar.get_by_text(f"Data: {user}.csv").wait_for()
            text = page.locator("body").inner_text()
            assert not any(other in text for other in others), f"{user} sees another session's data on {title}"
            assert page.locator('[data-testid="stException"]').count() == 0, f"{user}: an exception on {title}"
    (ARTIFACTS / "many_users_seconds.json").write_text(json.dumps(seconds, indent=1))
    shot(browsing[0], "13_many_users_browsing")

    # The two long jobs finish in their own sessions, with their own data.
    trainer.get_by_text("TnT at C=1e-03").wait_for(timeout=300_000)
    assert "Pen digits" in trainer.locator('[data-testid="stSidebar"]').inner_text()
    sweeper.get_by_text("Splits saved by graph reduction").wait_for(timeout=600_000)
    wait_idle(sweeper, timeout=120_000)
    sidebar = sweeper.locator('[data-testid="stSidebar"]').inner_text()
    assert "Handwritten digits" in sidebar and not any(u in sidebar for u in users)
    shot(sweeper, "14_many_users_sweep")
