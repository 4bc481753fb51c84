"""End to end: ``streamlit run`` on a free local port, driven by Playwright in Debian's chromium
(see ``browser_helpers``; screenshots in ``test-artifacts/``)."""

import json
import re
import time
from pathlib import Path

import pytest
from browser_helpers import (
    ARTIFACTS,
    EXPLORER,
    HIGHLIGHT,
    ROOT,
    assert_frame_fits_drawing,
    cut_selectboxes,
    load_bundled,
    nav,
    running_server,
    set_c_and_train,
    shot,
    upload_file,
    wait_idle,
    wait_trained,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from ui.drawing import COMPARE_FRAME_PX

# The plotly view's figure, read in the page.
NODE_COUNT = "() => document.querySelector('.js-plotly-plot').data.find(t => t.name === 'nodes').hovertext.length"
X_RANGE = "() => document.querySelector('.js-plotly-plot')._fullLayout.xaxis.range"
# The nodes trace lists the nodes drawn, their ids in customdata (the explorer's view of a large graph).
CHILD_OF_ROOT = """() => {
  const gd = document.querySelector('.js-plotly-plot'), t = gd.data.find(t => t.name === 'nodes');
  return t.customdata[t.hovertext.findIndex((h, i) => i > 0 && h.includes('parents: #0'))];
}"""
NODE_PIXEL = """(node) => {
  const gd = document.querySelector('.js-plotly-plot'), t = gd._fullData.find(t => t.name === 'nodes');
  const L = gd._fullLayout, box = gd.getBoundingClientRect(), i = Array.from(t.customdata).indexOf(node);
  return [box.left + L._size.l + L.xaxis.l2p(t.x[i]), box.top + L._size.t + L.yaxis.l2p(t.y[i])];
}"""

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    with running_server() as (url, _):
        yield url


def test_open_train_and_see_the_graph(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    page.get_by_text("In use: Handwritten digits").wait_for(timeout=60_000)
    wait_idle(page)
    shot(page, "1_data")

    # Train: opening the page trains nothing; one click on Train trains the default model.
    nav(page, "Train")
    page.get_by_text("Press Train to grow TnT with these settings").wait_for()
    expect(page.locator('[data-testid="stMetric"]')).to_have_count(0)
    page.get_by_role("button", name="Train").click()
    wait_trained(page, "TnT at C=1e-03")
    page.get_by_text("Test accuracy").first.wait_for()
    assert cut_selectboxes(page) == []  # the Size box's default was cut at 1440 px
    # Then move C one step up the log scale with the keyboard: one click trains once.
    splits_before = page.locator('[data-testid="stMetric"]', has_text="Splits").locator(
        '[data-testid="stMetricValue"]').inner_text()  # fmt: skip
    set_c_and_train(page, "2e-03")  # C at 1e-03, one step up
    wait_trained(page, "TnT at C=2e-03")
    splits = page.locator('[data-testid="stMetric"]', has_text="Splits").locator('[data-testid="stMetricValue"]')
    expect(splits).not_to_have_text(splits_before, timeout=60_000)  # the new model's metric is drawn
    splits_after = splits.inner_text()
    assert int(splits_after) < int(splits_before)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text(f"TnT: {int(splits_after):,} splits").wait_for()  # filled after the page trained
    wait_idle(page)
    shot(page, "2_train")

    # Graph: the explorer (80 splits), from the root down, with a sample's path highlighted.
    nav(page, "Graph")
    frame = page.frame_locator(EXPLORER)
    frame.locator("svg g.node", has_text="splits below").first.wait_for(timeout=60_000)  # summary nodes
    highlighted = f'svg g.node path[stroke="{HIGHLIGHT}"], svg g.node polygon[stroke="{HIGHLIGHT}"]'
    frame.locator(highlighted).nth(2).wait_for()  # the root and the path's first splits
    sample = page.get_by_role("spinbutton", name="Test sample", exact=True)
    sample.fill("7")
    sample.press("Enter")
    page.get_by_text("Sample #7").wait_for()
    wait_idle(page)
    frame = page.frame_locator(EXPLORER)
    frame.locator(highlighted).nth(2).wait_for()
    shot(page, "3_graph_path")
    assert not errors, errors


def test_a_page_opened_directly_has_the_whole_app_around_it(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{server}/graph")
    page.frame_locator(EXPLORER).locator("svg g.node").first.wait_for(timeout=60_000)
    nav_links = page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
    assert [t.split(maxsplit=1)[-1] for t in nav_links] == [  # after the icon names
        "Data", "Train", "Graph", "Shared nodes", "Compare", "Sweep", "Paths", "Ensembles", "Teach", "History"
    ]  # fmt: skip
    page.locator('[data-testid="stSidebar"]').get_by_text("TnT Explorer").wait_for()


def test_upload_a_csv_through_the_real_uploader(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(server)
    page.get_by_text("In use:").wait_for(timeout=60_000)
    # Through the uploader; the form is used once the page is idle (a click on its button while the
    # run that draws it is still going can be lost on a busy machine: failed once in a full suite).
    upload_file(page, ROOT / "tests" / "good_text_feature.csv")
    page.get_by_text("Column 'colour' is categorical").first.wait_for()
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
    load_bundled(page, "Pen digits")
    nav(page, "Train")
    set_c_and_train(page, "1e-04")  # from 1e-03, three steps down
    wait_trained(page, "TnT at C=1e-04")
    assert int(page.locator('[data-testid="stMetric"]', has_text="Splits").locator(
        '[data-testid="stMetricValue"]').inner_text()) > 150  # fmt: skip
    shot(page, "6_train_large")
    nav(page, "Graph")  # 400+ nodes: the explorer first; the interactive view draws what the explorer opened
    page.get_by_text("Interactive (plotly)").click()
    plot = page.locator(".js-plotly-plot").first
    plot.locator(".scatterlayer .trace .point").first.wait_for(timeout=120_000)
    wait_idle(page)
    n_nodes = page.evaluate(NODE_COUNT)
    caption = page.get_by_text("nodes with several parents").first.inner_text()
    splits, leaves = (int(w.replace(",", "")) for w in re.findall(r"([\d,]+) splits, ([\d,]+) leaves", caption)[0])
    shown, total = (int(v.replace(",", "")) for v in re.findall(
        r"([\d,]+) of ([\d,]+) nodes shown", page.get_by_text("nodes shown").first.inner_text())[0])  # fmt: skip
    assert total == splits + leaves > 300 and 1 < n_nodes == shown < total
    assert plot.locator(".scatterlayer .trace").nth(3).locator(".point").count() == n_nodes  # each drawn
    shot(page, "7_graph_large")

    # Click a node: the inspector shows it.
    node = page.evaluate(CHILD_OF_ROOT)
    x, y = page.evaluate(NODE_PIXEL, node)
    page.mouse.click(x, y)
    page.get_by_text(f"Node #{node} (").wait_for(timeout=60_000)
    wait_idle(page)
    assert page.get_by_role("spinbutton", name="Node", exact=True).input_value() == str(node)
    shot(page, "16_graph_large_node_clicked")

    # Edge widths: where the training samples go.
    page.get_by_text("Edge width: training samples along each edge").click()
    page.wait_for_function("() => document.querySelector('.js-plotly-plot').data.length > 20")
    wait_idle(page)
    widths = page.evaluate(
        "() => [...new Set(document.querySelector('.js-plotly-plot').data"
        ".filter(t => t.name === 'yes (<=)' || t.name === 'no (>)').map(t => t.line.width))]"
    )
    assert max(widths) == 14 and len(widths) >= 3  # of the edges drawn: the explorer's view
    shot(page, "17_graph_large_edge_widths")

    # Zoom with the wheel: the figure changes in place, the page is not reloaded.
    page.evaluate("window.__still_here = true")
    before = page.evaluate(X_RANGE)
    box = plot.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 3)
    for _ in range(5):
        page.mouse.wheel(0, -300)
    page.wait_for_function(
        f"(b) => {{ const r = ({X_RANGE})(); return r[1] - r[0] < 0.8 * (b[1] - b[0]); }}", arg=before
    )
    assert page.evaluate("window.__still_here === true")
    wait_idle(page)
    shot(page, "18_graph_large_zoomed")

    # The interactive HTML download works offline.
    with page.expect_download() as download:
        page.get_by_role("button", name="Interactive HTML").first.click()
    saved = ARTIFACTS / "downloaded_graph.html"
    download.value.save_as(saved)
    text = saved.read_text()
    assert re.findall(r"<script[^>]*>", text) == ["<script>"] * 3
    offline = browser.new_context(viewport={"width": 1440, "height": 900}, offline=True)
    file_page = offline.new_page()
    file_page.goto(saved.as_uri())
    file_page.locator(".js-plotly-plot .scatterlayer .trace .point").first.wait_for(timeout=60_000)
    assert file_page.evaluate(NODE_COUNT) == total  # the whole graph
    file_page.screenshot(path=str(ARTIFACTS / "19_downloaded_html_offline.png"))
    offline.close()


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
    # five graphs of 100+ splits (NDG: at most as many), each the explorer's default view (its clickable frame)
    assert drawn(page, EXPLORER, 5) == 5
    # Each in the frame its default view is chosen for (ui.drawing.COMPARE_FRAME_PX: its width, and its height
    # where the drawing is as tall), two a row.
    for i in range(5):
        assert_frame_fits_drawing(page, i, COMPARE_FRAME_PX)
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
    page.get_by_text("base estimators, ").wait_for(timeout=180_000)  # "one seed" or "mean ± std over n seeds"
    wait_idle(page, timeout=180_000)
    # The table comes after the heading in the same run: wait for it (on a loaded machine the heading can be
    # on screen while the run goes on).
    page.locator('[data-testid="stTable"]').get_by_text("Random Forest").wait_for(timeout=60_000)
    shot(page, "11_ensembles")

    nav(page, "Teach")
    page.get_by_text("Step through training").wait_for(timeout=60_000)
    wait_idle(page)
    assert drawn(page, ".js-plotly-plot", 11) == 11  # six gallery pictures, four region plots and the step's
    assert drawn(page, '[data-testid="stGraphVizChart"] svg', 5) == 5
    shot(page, "12_teach")
    assert not errors, errors


def test_shared_nodes_and_the_reasons_of_each_training_step(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    page.get_by_text("In use: Handwritten digits").wait_for(timeout=60_000)
    nav(page, "Shared nodes")
    page.get_by_text("Splits of the tree it stands for").wait_for(timeout=120_000)
    wait_idle(page)
    saves = page.get_by_text("Sharing node #").first.inner_text()
    node = saves.split("Sharing node #")[1].split()[0]
    frame = page.frame_locator('iframe[title="Decision graph"]')
    frame.locator("svg g.node").first.wait_for(timeout=60_000)
    # Every edge into the chosen node is drawn in the highlight colour, and no other edge is.
    red_edges = frame.locator(f'svg g.edge path[stroke="{HIGHLIGHT}"]')
    edge_titles = frame.locator("svg g.edge > title").all_text_contents()
    into = [t for t in edge_titles if t.endswith(f"->n{node}")]
    assert len(into) >= 2 and red_edges.count() == len(into)
    shot(page, "6_shared_nodes")
    nav(page, "Teach")
    page.get_by_text("Step 12 of 12").wait_for(timeout=120_000)
    page.get_by_role("slider").last.focus()  # the step slider
    for _ in range(11):
        page.keyboard.press("ArrowLeft")
    page.get_by_text("Step 1 of 12").wait_for(timeout=60_000)
    page.get_by_text("Leaf #0 (2,000 samples) grew a micro tree of 6 splits").wait_for(timeout=60_000)
    wait_idle(page)
    shot(page, "7_teach_reasons")


def test_open_a_model_file_then_a_broken_one_and_reduce_it(server, browser, tmp_path):
    from sklearn.tree import DecisionTreeClassifier

    from tnt.data.datasets import default_dataset_id, load_bundled
    from tnt.model_io import from_sklearn

    data = load_bundled(default_dataset_id())  # the app's default data set and split
    tree = DecisionTreeClassifier(max_leaf_nodes=40, random_state=0).fit(data.X_train, data.y_train)
    good = tmp_path / "digits_tree.json"
    from_sklearn(tree, feature_names=data.feature_names, path=good)
    bad = tmp_path / "broken.json"
    bad.write_text(good.read_text()[:500])

    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/graph")
    page.frame_locator(EXPLORER).locator("svg g.node").first.wait_for(timeout=60_000)
    wait_idle(page)
    # The digits' TnT in the interactive view.
    page.get_by_text("Interactive (plotly)").click()
    page.locator(".js-plotly-plot .scatterlayer .trace .point").first.wait_for(timeout=60_000)
    wait_idle(page)
    shot(page, "13_digits_interactive")
    page.get_by_text("SVG (rendered on the server)").click()  # the tree (79 nodes) is drawn by Graphviz then
    wait_idle(page)

    page.get_by_text("Open a model file").click()
    page.locator('[data-testid="stExpander"] input[type="file"]').first.set_input_files(str(good))
    page.get_by_text("DecisionTreeClassifier from digits_tree.json: 39 splits").wait_for(timeout=60_000)
    wait_idle(page)
    accuracy = f"test {tree.score(data.X_test, data.y_test):.3f}, train {tree.score(data.X_train, data.y_train):.3f}"
    page.get_by_text(accuracy, exact=False).first.wait_for()
    frame = page.frame_locator('iframe[title="Decision graph"]')  # 79 nodes: the server's SVG
    frame.locator("svg g.node").first.wait_for(timeout=60_000)
    assert (
        frame.locator(f'svg g.node path[stroke="{HIGHLIGHT}"], svg g.node polygon[stroke="{HIGHLIGHT}"]').count() >= 3
    )
    predicted = tree.predict(data.X_test[:1])[0]
    page.get_by_text(f"predicted {predicted}").first.wait_for()
    shot(page, "14_opened_sklearn_tree")

    page.get_by_role("button", name="Reduce the graph").click()
    page.get_by_text("leaves become").wait_for(timeout=120_000)
    wait_idle(page)
    page.get_by_text("Training predictions unchanged").wait_for()
    shot(page, "15_opened_tree_reduced")

    page.locator('[data-testid="stExpander"] input[type="file"]').first.set_input_files(str(bad))
    page.get_by_text("broken.json cannot be opened: The model file is not valid JSON").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_text("DecisionTreeClassifier from digits_tree.json").first.wait_for()  # still open
    page.get_by_text("broken.json cannot be opened").scroll_into_view_if_needed()
    shot(page, "20_broken_model_file")
    assert not errors, errors


# ---------------------------------------------------------------------- many users at once
#: What each page shows once it has run: (page, a locator of its content, given the session's data name).
PAGE_CONTENT = {
    "Data": lambda page, name: page.get_by_text(f"In use: {name}"),
    "Train": lambda page, name: page.get_by_role("button", name="Train"),  # it trains when pressed
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
        # As a user does: wait until the uploader lists the file and the page has settled, then
        # click (a click while four sessions start on a busy machine could land mid-rerun and be lost).
        page.locator('[data-testid="stFileUploader"]', has_text=f"{user}.csv").wait_for(timeout=120_000)
        wait_idle(page, timeout=120_000)
        page.get_by_role("button", name="Use this data").click()
        page.get_by_text(f"In use: {user}.csv").wait_for(timeout=120_000)

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
    trainer.locator('[data-testid="stSidebarNav"] a', has_text="Train").click()
    trainer.get_by_role("button", name="Train").click()
    started = trainer.get_by_text("Training TnT").or_(trainer.get_by_text("TnT at C=1e-03"))
    try:  # the progress bar, or the model if training ended between two looks (a busy machine: CI's)
        started.first.wait_for(timeout=180_000)
    except PlaywrightTimeout:
        raise AssertionError(
            f"No training on the Train page; it shows: {trainer.locator('body').inner_text()}"
        ) from None

    seconds = {user: {} for user in users}
    for page, user in zip(browsing, users):
        others = [u for u in users if u != user]  # its file name and class names
        for title, content in PAGE_CONTENT.items():
            start = time.monotonic()
            page.locator('[data-testid="stSidebarNav"] a', has_text=title).click()
            page.wait_for_function(
                f"() => [...document.querySelectorAll('h2')].some(h => h.innerText.includes('{title}'))"
            )
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
