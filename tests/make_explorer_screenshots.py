"""Screenshots of the Graph page's explorer at 1,440 px (issue 51): ``python tests/make_explorer_screenshots.py``.

For the handwritten digits (the app's first data set), MNIST at C=1e-4 and the 3,000-split graph
(``benchmarks/big_graphs.py`` trains both once): the default view, a summary node clicked open, a search
for the last node, and a sample's path, each a PNG in ``test-artifacts/explorer/``; then the interactive
view opened zoomed on the last node found, the editor's drawing (the two large graphs) and the Compare
page's five graphs (the digits). The model files are
opened on the Graph page, on data that fit them, so that the page has test samples whose paths it draws:
MNIST loaded from the Data page's list of the paper's sets (785 columns are more than an upload may
have), the 3,000-split graph's rows uploaded as a CSV file. A real ``streamlit run app.py`` (a workspace
in a temporary folder) driven by Playwright in Debian's chromium, as the browser tests drive it. Look at
the PNGs; they are not committed. Prints, per graph, the time from a click on a summary node to its
children drawn in chromium (the page's rerun and the new drawing).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))  # browser_helpers, run as a script
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from big_graphs import cache_dir, classification_3000_data, classification_3000_model, mnist_data, mnist_model  # noqa: E402
from browser_helpers import (  # noqa: E402
    EXPLORER,
    ROOT,
    find_last,
    launch_chromium,
    nav,
    running_server,
    upload_file,
    wait_idle,
)

OUT = ROOT / "test-artifacts" / "explorer"
WIDTH, HEIGHT = 1440, 1100
LONG = 300_000


def shoot(page, name: str) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, f"an exception is on screen: {name}"
    page.screenshot(path=str(OUT / f"{name}.png"), full_page=False)
    print(f"wrote {OUT / name}.png", flush=True)


def explorer_ready(page):
    page.get_by_text("nodes shown").first.wait_for(timeout=LONG)
    wait_idle(page, LONG)
    frame = page.frame_locator(EXPLORER)
    frame.locator("svg g.node").first.wait_for(timeout=LONG)
    page.locator(EXPLORER).scroll_into_view_if_needed()
    return frame


def open_model(page, path: Path) -> None:
    nav(page, "Graph")
    page.get_by_text("Open a model file").click()
    page.locator('[data-testid="stExpander"] input[type="file"]').first.set_input_files(str(path))
    page.get_by_text(f"from {path.name}").first.wait_for(timeout=LONG)
    wait_idle(page, LONG)
    page.get_by_text("Open a model file").click()  # folded again: the drawing comes up


def load_paper_set(page, name: str) -> None:
    """One of the paper's data sets, loaded from the Data page's list (its own split)."""
    nav(page, "Data")
    page.get_by_label("Found on this machine").click()
    page.get_by_role("option", name=name, exact=True).click()
    page.get_by_role("button", name="Load it with its own split").click()
    page.get_by_text(f"In use: {name} (the paper's data set)").wait_for(timeout=LONG)
    wait_idle(page, LONG)


def four_views(page, name: str, samples: bool = True) -> None:
    """The default view, a summary opened by a click, the last node found, a sample's path (without
    ``samples``, the last node picked in the inspector instead)."""
    frame = explorer_ready(page)
    shoot(page, f"{name}_1_default")
    summary = frame.locator("svg g.node", has_text="splits below").first
    node = summary.get_attribute("id")
    start = time.perf_counter()
    summary.click()
    page.frame_locator(EXPLORER).locator(f"#{node}").filter(has_not_text="splits below").wait_for(timeout=LONG)
    print(f"{name}: a click on a summary node to its children drawn: {time.perf_counter() - start:.2f} s", flush=True)
    wait_idle(page, LONG)
    frame = explorer_ready(page)
    shoot(page, f"{name}_2_expanded")
    find, last = find_last(page, LONG)
    frame = explorer_ready(page)
    shoot(page, f"{name}_3_search")
    find.fill("")
    find.press("Enter")
    wait_idle(page, LONG)
    page.get_by_role("button", name="Default view").click()
    wait_idle(page, LONG)
    if not samples:
        picked = page.get_by_role("spinbutton", name="Node", exact=True)
        picked.fill(str(last - 1))
        picked.press("Enter")
        page.get_by_text(f"Node #{last - 1}").first.wait_for(timeout=LONG)
        explorer_ready(page)
        shoot(page, f"{name}_4_node")
        return
    sample = page.get_by_role("spinbutton", name="Test sample", exact=True)
    sample.fill("3")
    sample.press("Enter")
    page.get_by_text("Sample #3").first.wait_for(timeout=LONG)
    explorer_ready(page)
    shoot(page, f"{name}_4_path")


def interactive_found(page, name: str) -> None:
    """The interactive (plotly) view after a search for the last node: opened zoomed on it."""
    nav(page, "Graph")
    page.get_by_text("Interactive (plotly)").click()
    page.get_by_text("nodes shown").first.wait_for(timeout=LONG)
    wait_idle(page, LONG)
    find, _ = find_last(page, LONG)
    wait_idle(page, LONG)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.evaluate("e => e.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(1000)
    shoot(page, f"{name}_5_interactive_search")
    find.fill("")
    find.press("Enter")
    wait_idle(page, LONG)
    page.get_by_text("Explorer (focus and context)").click()
    wait_idle(page, LONG)


def editor(page, name: str) -> None:
    """The editor's drawing of the model open on the Graph page (the explorer's default view in its frame)."""
    page.get_by_text("Edit this model").click()
    wait_idle(page, LONG)
    drawing = page.locator(EXPLORER).last
    drawing.scroll_into_view_if_needed()
    page.frame_locator(EXPLORER).last.locator("svg g.node").first.wait_for(timeout=LONG)
    drawing.evaluate("e => e.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(500)
    shoot(page, f"{name}_6_editor")
    page.get_by_text("Edit this model").click()  # closed again
    wait_idle(page, LONG)


def compare(page) -> None:
    """The Compare page's five graphs, two a row, each the explorer's default view in its frame: one
    screenshot a row, centred on the first column's frame (the frames come column by column in the page:
    TnT, CART, NDG, then TnT fine-tuned, TAO)."""
    nav(page, "Compare")
    page.get_by_text("Highest test accuracy").wait_for(timeout=LONG)
    wait_idle(page, LONG)
    page.locator(EXPLORER).nth(4).wait_for(timeout=LONG)
    for k, i in enumerate((0, 1, 2)):
        page.locator(EXPLORER).nth(i).evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(800)
        shoot(page, f"compare_{k + 1}")


def main(only=("digits", "mnist", "split3000")) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp())
    os.environ["TNT_WORKSPACE_DIR"] = str(folder / "workspaces")
    mnist_data()  # stops with the loader's sentence when MNIST is not on this machine
    X, y = classification_3000_data()
    big_csv = folder / "classification_14000.csv"
    frame = pd.DataFrame(np.round(X, 4), columns=[f"x{i}" for i in range(X.shape[1])])
    frame["label"] = y
    frame.to_csv(big_csv, index=False)
    mnist_model(), classification_3000_model()  # the model files, trained once
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, running_server("streamlit_explorer_shots.log") as (url, _):
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.goto(url)
        page.get_by_text("In use: Handwritten digits").wait_for(timeout=LONG)
        try:
            if "digits" in only:
                nav(page, "Graph")
                four_views(page, "digits")
                interactive_found(page, "digits")
                compare(page)
            if "mnist" in only:
                load_paper_set(page, "mnist")
                open_model(page, cache_dir() / "mnist_C1e-4.json")
                four_views(page, "mnist")
                interactive_found(page, "mnist")
                editor(page, "mnist")
            if "split3000" in only:
                upload_file(page, big_csv, LONG)
                open_model(page, cache_dir() / "classification_3000.json")
                four_views(page, "split3000")
                interactive_found(page, "split3000")
                editor(page, "split3000")
        except Exception:
            page.screenshot(path=str(OUT / "failed.png"), full_page=False)
            raise
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:] or ("digits", "mnist", "split3000"))
