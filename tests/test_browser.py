"""End to end: ``streamlit run`` on a free local port, driven by Playwright in Debian's chromium
(see ``browser_helpers``; screenshots in ``test-artifacts/``)."""

import re

import pytest
from browser_helpers import ARTIFACTS, HIGHLIGHT, ROOT, nav, running_server, shot, wait_idle

# The plotly view's figure, read in the page.
NODE_COUNT = "() => document.querySelector('.js-plotly-plot').data.find(t => t.name === 'nodes').hovertext.length"
X_RANGE = "() => document.querySelector('.js-plotly-plot')._fullLayout.xaxis.range"
CHILD_OF_ROOT = """() => {
  const gd = document.querySelector('.js-plotly-plot'), t = gd.data.find(t => t.name === 'nodes');
  return t.hovertext.findIndex((h, i) => i > 0 && h.includes('parents: #0'));
}"""
NODE_PIXEL = """(node) => {
  const gd = document.querySelector('.js-plotly-plot'), t = gd._fullData.find(t => t.name === 'nodes');
  const L = gd._fullLayout, box = gd.getBoundingClientRect();
  return [box.left + L._size.l + L.xaxis.l2p(t.x[node]), box.top + L._size.t + L.yaxis.l2p(t.y[node])];
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
    assert [t.split(maxsplit=1)[-1] for t in nav_links] == [  # after the icon names
        "Data", "Train", "Graph", "Shared nodes", "Compare", "Sweep", "Paths", "Ensembles", "Teach", "History"
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
    nav(page, "Graph")  # 400+ nodes: the interactive view, the whole shape at once
    plot = page.locator(".js-plotly-plot").first
    plot.locator(".scatterlayer .trace .point").first.wait_for(timeout=120_000)
    wait_idle(page)
    n_nodes = page.evaluate(NODE_COUNT)
    caption = page.get_by_text("nodes with several parents").first.inner_text()
    splits, leaves = (int(w) for w in re.findall(r"(\d+) splits, (\d+) leaves", caption)[0])
    assert n_nodes == splits + leaves > 300
    assert plot.locator(".scatterlayer .trace").nth(3).locator(".point").count() == n_nodes  # all drawn
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
    widths = page.evaluate("() => [...new Set(document.querySelector('.js-plotly-plot').data"
                           ".filter(t => t.name === 'yes (<=)' || t.name === 'no (>)').map(t => t.line.width))]")
    assert max(widths) == 14 and len(widths) >= 5
    shot(page, "17_graph_large_edge_widths")

    # Zoom with the wheel: the figure changes in place, the page is not reloaded.
    page.evaluate("window.__still_here = true")
    before = page.evaluate(X_RANGE)
    box = plot.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 3)
    for _ in range(5):
        page.mouse.wheel(0, -300)
    page.wait_for_function(f"(b) => {{ const r = ({X_RANGE})(); return r[1] - r[0] < 0.8 * (b[1] - b[0]); }}", arg=before)
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
    assert file_page.evaluate(NODE_COUNT) == n_nodes
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
    # The table comes after the heading in the same run: wait for it (on a loaded machine the heading can be
    # on screen while the run goes on).
    page.locator('[data-testid="stTable"]').get_by_text("Random Forest").wait_for(timeout=60_000)
    shot(page, "11_ensembles")

    nav(page, "Teach")
    page.get_by_text("Step through training").wait_for(timeout=60_000)
    wait_idle(page)
    assert drawn(page, ".js-plotly-plot", 5) == 5  # four region plots and the step's
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
    page.frame_locator('iframe[title="Decision graph"]').locator("svg g.node").first.wait_for(timeout=60_000)
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
    assert page.get_by_text(accuracy, exact=False).first.is_visible()
    frame = page.frame_locator('iframe[title="Decision graph"]')  # 79 nodes: the server's SVG
    frame.locator("svg g.node").first.wait_for(timeout=60_000)
    assert frame.locator(f'svg g.node path[stroke="{HIGHLIGHT}"], svg g.node polygon[stroke="{HIGHLIGHT}"]').count() >= 3
    predicted = tree.predict(data.X_test[:1])[0]
    assert page.get_by_text(f"predicted {predicted}").first.is_visible()
    shot(page, "14_opened_sklearn_tree")

    page.get_by_role("button", name="Reduce the graph").click()
    page.get_by_text("leaves become").wait_for(timeout=120_000)
    wait_idle(page)
    assert page.get_by_text("Training predictions unchanged").is_visible()
    shot(page, "15_opened_tree_reduced")

    page.locator('[data-testid="stExpander"] input[type="file"]').first.set_input_files(str(bad))
    page.get_by_text("broken.json cannot be opened: The model file is not valid JSON").wait_for(timeout=60_000)
    wait_idle(page)
    assert page.get_by_text("DecisionTreeClassifier from digits_tree.json").first.is_visible()  # still open
    page.get_by_text("broken.json cannot be opened").scroll_into_view_if_needed()
    shot(page, "20_broken_model_file")
    assert not errors, errors
