"""End to end: ``streamlit run`` on a free local port, driven by Playwright in Debian's chromium.

Screenshots go to ``test-artifacts/``. Without chromium this test fails (it never skips): CI
installs it (``.ci/run``), and so should a developer (``apt-get install chromium``).
"""

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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
    wait_idle(page)
    splits_after = page.locator('[data-testid="stMetric"]', has_text="Splits").locator(
        '[data-testid="stMetricValue"]').inner_text()  # fmt: skip
    assert int(splits_after) < int(splits_before)
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_text(f"TnT: {splits_after} splits").is_visible()  # filled after the page trained
    shot(page, "2_train")

    # Graph: drawn on the server at natural size (80 splits), with a sample's path highlighted.
    nav(page, "Graph")
    frame = page.frame_locator('iframe[title="Decision graph"]')
    frame.locator("svg g.node").first.wait_for(timeout=60_000)
    assert frame.locator("svg g.node").count() > 15  # the first layers of the depth window
    highlighted = f'svg g.node path[stroke="{HIGHLIGHT}"], svg g.node polygon[stroke="{HIGHLIGHT}"]'
    assert frame.locator(highlighted).count() >= 3  # the root and the path's first splits
    sample = page.get_by_role("spinbutton", name="Test sample", exact=True)
    sample.fill("7")
    sample.press("Enter")
    page.get_by_text("Sample #7").wait_for()
    wait_idle(page)
    frame = page.frame_locator('iframe[title="Decision graph"]')
    frame.locator("svg g.node").first.wait_for()
    assert frame.locator(highlighted).count() >= 3
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
    assert page.locator('[data-testid="stSidebar"]').get_by_text("TnT Explorer").is_visible()


def test_upload_a_csv_through_the_real_uploader(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(server)
    page.get_by_text("In use:").wait_for(timeout=60_000)
    page.locator('input[type="file"]').set_input_files(str(ROOT / "tests" / "good_text_feature.csv"))
    page.get_by_role("button", name="Use this data").wait_for(timeout=30_000)
    page.get_by_role("button", name="Use this data").click()
    page.get_by_text("In use: good_text_feature.csv").wait_for(timeout=30_000)
    assert page.get_by_text("encoded as numbers in alphabetical order").first.is_visible()
    page.locator('input[type="file"]').set_input_files(str(ROOT / "tests" / "bad_csv" / "latin1.csv"))
    page.get_by_text("The file is not UTF-8 text").wait_for(timeout=30_000)
    assert page.get_by_text("In use: good_text_feature.csv").is_visible()
    wait_idle(page)
    shot(page, "4_upload_error")
    nav(page, "Graph")  # a small model: laid out in the browser (d3-graphviz), path highlighted
    chart = '[data-testid="stGraphVizChart"] svg'
    page.locator(f"{chart} g.node").first.wait_for(timeout=60_000)
    assert page.locator(f'{chart} g.node path[stroke="{HIGHLIGHT}"]').count() >= 2
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
    frame.locator("svg g.node").first.wait_for(timeout=120_000)
    assert frame.locator("svg g.node").count() > 20
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
    assert drawn(page, ".js-plotly-plot", 5) == 5  # five graphs of 100+ splits (NDG: at most as many)
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
    wait_idle(page, timeout=180_000)
    assert page.locator('[data-testid="stTable"]').get_by_text("Random Forest").is_visible()
    shot(page, "11_ensembles")

    nav(page, "Teach")
    page.get_by_text("Step through training").wait_for(timeout=60_000)
    wait_idle(page)
    assert drawn(page, ".js-plotly-plot", 5) == 5  # four region plots and the step's
    assert drawn(page, '[data-testid="stGraphVizChart"] svg', 5) == 5
    shot(page, "12_teach")
    assert not errors, errors
