"""Take the screenshots of the documentation's app tour again: ``python tests/make_screenshots.py``.

A real ``streamlit run app.py`` (with a workspace in a temporary folder) is driven by Playwright in
Debian's chromium at 1,440 px wide, as the browser tests drive it (``browser_helpers``), on the
bundled handwritten digits: one PNG per page of the app, written to ``docs/images/app/``. Look at
them, then commit them; building the documentation reads the committed files and needs no browser.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # browser_helpers, run as a script

from browser_helpers import ROOT, click_on_board, launch_chromium, nav, running_server, wait_idle  # noqa: E402

OUT = ROOT / "docs" / "images" / "app"
WIDTH, HEIGHT = 1440, 1100
TALL = {
    "sweep": 1500,
    "paths": 1400,
    "compare": 1300,
    "teach": 1750,
    "teach-drawn": 1900,
}  # pages whose figures come lower
LONG = 180_000  # ms: sweeps and ensembles on a loaded two-core machine

# Per page: (title in the sidebar, file name, what to do on it before the screenshot).
PAGES = [
    ("Data", "data", lambda page: _data(page)),
    ("Train", "train", lambda page: _train(page)),
    ("Graph", "graph", lambda page: _graph(page)),
    ("Shared nodes", "shared-nodes", lambda page: _shared_nodes(page)),
    ("Compare", "compare", lambda page: page.get_by_text("Highest test accuracy").wait_for(timeout=LONG)),
    ("Sweep", "sweep", lambda page: _run(page, "Run sweep", "Splits saved by graph reduction")),
    ("Paths", "paths", lambda page: page.get_by_text("Root-to-leaf decision depth").first.wait_for(timeout=LONG)),
    ("Ensembles", "ensembles", lambda page: _ensembles(page)),
    ("Teach", "teach", lambda page: page.get_by_text("Step through training").wait_for(timeout=LONG)),
    ("Teach", "teach-drawn", lambda page: _draw(page)),
    ("History", "history", lambda page: page.get_by_text("Forget this workspace").first.wait_for(timeout=LONG)),
]


def _train(page):
    """Press Train (opening the page trains nothing) and wait for the model."""
    page.get_by_role("button", name="Train").click()
    page.get_by_text("Test accuracy").first.wait_for(timeout=LONG)


def _data(page):
    page.get_by_text("Class balance").first.wait_for(timeout=LONG)
    page.locator('[data-testid="stSidebar"]').get_by_text("Settings:", exact=True).wait_for(timeout=LONG)
    page.get_by_text("Starting TnT Explorer").wait_for(state="detached", timeout=LONG)


def _graph(page):
    frame = page.frame_locator('iframe[title*="clickable_svg"]')  # the explorer (browser_helpers.EXPLORER)
    frame.locator("svg g.node").nth(15).wait_for(timeout=LONG)


def _shared_nodes(page):
    page.get_by_text("Splits of the tree it stands for").wait_for(timeout=LONG)
    page.frame_locator('iframe[title="Decision graph"]').locator("svg g.node").first.wait_for(timeout=LONG)


def _run(page, button, done):
    page.get_by_role("button", name=button).click()
    page.get_by_text(done).first.wait_for(timeout=LONG)


def _ensembles(page):
    _run(page, "Train the ensembles", "base estimators, ")
    page.locator('[data-testid="stTable"]').get_by_text("Random Forest").wait_for(timeout=LONG)


def _draw(page):
    """Draw an exclusive or on the Teach page's board, a few points a quadrant, and train on it."""
    page.get_by_text("Step through training").wait_for(timeout=LONG)
    page.locator('[data-testid="stRadio"]').get_by_text("Draw your own data", exact=True).click()
    page.get_by_text("Class to add").wait_for(timeout=LONG)
    wait_idle(page)
    quadrants = {
        "class 0": [(0.1, 0.15), (0.3, 0.1), (0.2, 0.35), (0.4, 0.3), (0.65, 0.9), (0.8, 0.7), (0.9, 0.85), (0.7, 0.6)],
        "class 1": [
            (0.1, 0.8),
            (0.3, 0.65),
            (0.2, 0.9),
            (0.4, 0.85),
            (0.65, 0.2),
            (0.85, 0.35),
            (0.9, 0.1),
            (0.7, 0.4),
        ],
    }
    for label, points in quadrants.items():
        page.locator('[data-testid="stRadio"]').get_by_text(label, exact=True).click()
        wait_idle(page)
        for x, y in points:
            click_on_board(page, x, y)
    page.get_by_role("button", name="Train on these points").click()
    page.get_by_text("Step through training").wait_for(timeout=LONG)


def take(browser, url: str, out: Path = OUT) -> list[Path]:
    """Open every page of the app at ``url`` in turn and save its screenshot in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(url)
    page.get_by_text("In use: Handwritten digits").wait_for(timeout=LONG)
    written = []
    for title, name, prepare in PAGES:
        if title != "Data":
            nav(page, title)
        page.set_viewport_size({"width": WIDTH, "height": TALL.get(name, HEIGHT)})
        prepare(page)
        wait_idle(page, timeout=LONG)
        page.wait_for_timeout(1_000)  # plotly and graphviz finish drawing after the run ends
        if page.locator('[data-testid="stException"]').count():
            raise RuntimeError(f"The {title} page shows an exception; no screenshot taken.")
        path = out / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        written.append(path)
        print(f"{title}: {path.relative_to(ROOT)}", flush=True)
    return written


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as workspaces:
        with running_server("screenshots.log", script_args=("--workspace-dir", workspaces)) as (url, _):
            with sync_playwright() as playwright:
                browser = launch_chromium(playwright)
                try:
                    take(browser, url)
                finally:
                    browser.close()


if __name__ == "__main__":
    main()
