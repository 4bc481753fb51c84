"""End to end: the Graph page's Explorer view in chromium at 1,440 px (screenshots in
``test-artifacts/``): the default view in the frame it is chosen for, a search that opens the way down
and centres the frame, a split opened by hand; and a summary of the interactive (plotly) view opened by
a click."""

import re
from pathlib import Path

import pytest
from browser_helpers import (
    EXPLORER,
    HIGHLIGHT,
    assert_frame_fits_drawing,
    find_last,
    nav,
    running_server,
    shot,
    wait_idle,
)
from playwright.sync_api import expect

from ui.drawing import COMPARE_FRAME_PX, EDITOR_FRAME_PX, EXPLORER_FRAME_PX

pytestmark = pytest.mark.browser

FRAME = EXPLORER
# Where the searched node's box is, in the frame's viewport (the frame scrolls to centre it).
BOX = "(node) => { const r = document.getElementById('node' + node).getBoundingClientRect(), " \
      "f = document.getElementById('frame').getBoundingClientRect();" \
      " return [r.left + r.width / 2 - f.left, r.top + r.height / 2 - f.top, f.width, f.height]; }"  # fmt: skip


@pytest.fixture(scope="module")
def server():
    with running_server("streamlit_explorer.log") as (url, _):
        yield url


def digits_page(browser, server, title: str, height: int = 1100):
    """A page at 1,440 px on the app's page ``title`` with the digits loaded, and the list its script
    errors go to."""
    page = browser.new_page(viewport={"width": 1440, "height": height})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    page.get_by_text("In use: Handwritten digits").wait_for(timeout=60_000)
    nav(page, title)
    return page, errors


def graph_page(browser, server, view: str, height: int = 1100):
    """A page at 1,440 px on the Graph page's ``view`` of the digits' model, drawn, and the list its
    script errors go to."""
    page, errors = digits_page(browser, server, "Graph", height)
    page.get_by_text(view).click()
    page.get_by_text("nodes shown").first.wait_for(timeout=60_000)
    wait_idle(page)
    return page, errors


def test_the_explorer_opens_readably_finds_a_node_and_opens_a_split(server, browser):
    page, errors = graph_page(browser, server, "Explorer (focus and context)", 900)
    frame = page.frame_locator(FRAME)
    frame.locator("svg g.node").first.wait_for(timeout=60_000)
    assert frame.locator("svg g.node", has_text="splits below").count() >= 2  # summary nodes
    # The frame the default view is chosen for (ui.drawing.EXPLORER_FRAME_PX), and the drawing opened in
    # it at a readable zoom (75 % at least: 11 pt labels 11 px high), as wide as the frame when it fits.
    size = frame.locator("#frame").evaluate("f => [f.clientWidth, f.clientHeight]")
    assert size == pytest.approx(list(EXPLORER_FRAME_PX), abs=3)
    zoom = float(frame.locator("#frame").get_attribute("data-zoom"))
    drawn = frame.locator("svg").first.bounding_box()["width"]
    assert 0.75 <= zoom <= 1 and (drawn <= size[0] + 1 or zoom == 0.75)
    shot(page, "explorer_1_default")

    # The wheel zooms in the browser, about the pointer, and sends nothing to the server.
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    page.reload()  # the page's websocket opened after the listener
    page.get_by_text("nodes shown").first.wait_for(timeout=60_000)
    wait_idle(page)
    frame = page.frame_locator(FRAME)
    root = frame.locator("#node0")
    root.wait_for(timeout=60_000)
    width_before = frame.locator("svg").first.bounding_box()["width"]
    zoom_before = float(frame.locator("#frame").get_attribute("data-zoom"))
    box = root.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    wait_idle(page)
    sent.clear()
    for _ in range(4):
        page.mouse.wheel(0, -120)
    page.wait_for_timeout(500)
    assert not sent, f"{len(sent)} messages to the server while zooming"
    zoom = float(frame.locator("#frame").get_attribute("data-zoom"))
    assert zoom > 1.5 * zoom_before and frame.locator("svg").first.bounding_box()["width"] == pytest.approx(
        width_before * zoom / zoom_before, rel=0.01
    )
    after = root.bounding_box()
    assert (
        abs(after["x"] + after["width"] / 2 - x) < 3 and abs(after["y"] + after["height"] / 2 - y) < 3
    )  # still under the pointer
    shot(page, "explorer_1b_zoomed")
    frame.get_by_role("button", name="1:1").click()
    assert float(frame.locator("#frame").get_attribute("data-zoom")) == 1

    # Find a node deep in the graph: the way down is opened and the frame centred on it.
    find, deep = find_last(page)
    wait_idle(page)
    frame = page.frame_locator(FRAME)
    frame.locator(f"#node{deep}").wait_for(timeout=60_000)
    x, y, width, height = frame.locator("body").evaluate(f"() => ({BOX})({deep})")
    assert 0 <= x <= width and 0 <= y <= height  # in view
    shot(page, "explorer_2_found")

    # Click a summary node: it opens, its children are drawn; a second click closes it.
    shown_before = frame.locator("svg g.node").count()
    summary = frame.locator("svg g.node", has_text="splits below").first
    node = int(summary.get_attribute("id").removeprefix("node"))
    summary.click()
    page.get_by_text("nodes shown").first.wait_for(timeout=60_000)
    wait_idle(page)
    frame = page.frame_locator(FRAME)
    frame.locator("svg g.node").nth(shown_before).wait_for(timeout=60_000)  # more nodes than before
    assert "splits below" not in frame.locator(f"#node{node}").text_content()  # drawn open now
    shot(page, "explorer_3_opened")
    # The click reran the explorer alone (a fragment); the DOT download, made on click, draws the view shown now.
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="DOT", exact=True).first.click()
    assert Path(download.value.path()).read_text().count("id=node") == shown_count(page)
    frame.locator(f"#node{node}").click()
    wait_idle(page)
    frame = page.frame_locator(FRAME)
    expect(frame.locator(f"#node{node}")).to_contain_text("splits below", timeout=60_000)  # closed again
    assert not errors, errors


# The explorer frame's sides and the nodes in view (their boxes overlap the frame's height): the boxes each side
# cuts (a side strictly inside a box), the frame's width and its drawing's, and node ``target``'s box as
# [left, right] in the frame's px.
SIDES = """(_, target) => {
  const f = document.getElementById('frame'), o = f.getBoundingClientRect();
  const low = o.left, high = o.left + f.clientWidth, cut = [];
  f.querySelectorAll('g.node').forEach(g => {
    const r = g.getBoundingClientRect();
    if (r.bottom <= o.top || r.top >= o.top + f.clientHeight) return;
    if ((r.left < low - 0.5 && r.right > low + 0.5) || (r.left < high - 0.5 && r.right > high + 0.5)) cut.push(g.id);
  });
  const t = document.getElementById('node' + target).getBoundingClientRect();
  return [cut, f.clientWidth, f.scrollWidth, [t.left - low, t.right - low]];
}"""


def test_the_explorer_opens_with_no_node_cut_at_its_sides(server, browser):
    """The default view is chosen with the sample's path opened: before, the path widened it beyond the frame
    (at 75 %: node #29 cut at the frame's right side); now no node in view is cut at the frame's left or right
    side, the view's target (the inspected node, the root) in view, the path drawn."""
    page, errors = graph_page(browser, server, "Explorer (focus and context)", 900)
    frame = page.frame_locator(FRAME)
    frame.locator("svg g.node").first.wait_for(timeout=60_000)
    page.wait_for_timeout(500)
    cut, width, _, root = frame.locator("body").evaluate(SIDES, 0)
    assert not cut, cut
    assert 0 <= root[0] and root[1] <= width, (root, width)
    assert frame.locator(f'svg g.node [stroke="{HIGHLIGHT}"]').count() >= 3  # the sample's path, drawn
    shot(page, "explorer_1c_path_no_node_cut")
    assert not errors, errors


def test_the_frame_is_scrolled_across_so_that_no_node_is_cut_at_its_sides(browser):
    """The explorer's frame alone (ui/clickable_svg, given a drawing as Streamlit gives it): ten boxes 150 px wide
    at 200 px intervals, 2,000 px in all, opened at 75 % in a 600 px frame on box 5: centred on it, the frame's
    sides would fall inside boxes 3 and 7; it is scrolled to the nearest place where both fall in gaps, box 5 in
    view."""
    boxes = "".join(
        f'<g id="node{k}" class="node"><rect x="{200 * k}" y="40" width="150" height="60" fill="#ccc"/></g>'
        for k in range(10)
    )
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="2000px" height="300px" viewBox="0 0 2000 300">{boxes}</svg>'
    page = browser.new_page(viewport={"width": 600, "height": 500})
    page.goto((Path(__file__).resolve().parent.parent / "ui" / "clickable_svg" / "index.html").as_uri())
    page.evaluate(
        "svg => window.postMessage({type: 'streamlit:render', args: {svg: svg, height: 434, focus: 5}}, '*')", svg
    )
    frame = page.locator("#frame")
    expect(frame).to_have_attribute("data-zoom", "0.7500")
    page.wait_for_timeout(300)
    width, left = frame.evaluate("f => [f.clientWidth, f.scrollLeft]")
    assert width == 600
    # At 75 %: box k spans [150 k, 150 k + 112.5]; centred on box 5 the frame would start at 506 (inside box 3).
    sides = (left, left + width)
    assert all(not (150 * k < side < 150 * k + 112.5) for k in range(10) for side in sides), sides
    assert left <= 750 and left + width >= 862.5  # box 5 in view
    assert abs(left - 506) < 75  # moved to the nearest gap, not far away
    page.close()


# Node ``node`` of the plotly figure (None: its first summary node, a diamond): its id and where it is on the page.
NODE_AT = """(node) => {
  const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  const t = gd.data.find(d => d.name === "nodes");
  const i = node === null ? Array.from(t.marker.symbol).indexOf("diamond") : Array.from(t.customdata).indexOf(node);
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, r = gd.getBoundingClientRect();
  return [t.customdata[i], r.left + xa._offset + xa.l2p(t.x[i]), r.top + ya._offset + ya.l2p(t.y[i])];
}"""


def shown_count(page) -> int:
    return int(page.get_by_text("nodes shown").first.inner_text().split(" of ")[0].replace(",", ""))


def test_a_click_on_a_summary_of_the_interactive_view_opens_it_and_inspects_it(server, browser):
    page, errors = graph_page(browser, server, "Interactive (plotly)")
    page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
    page.wait_for_timeout(1000)
    before = shown_count(page)
    node, x, y = page.evaluate(NODE_AT, None)
    page.mouse.click(x, y)
    page.get_by_text(f"Node #{node} (").first.wait_for(timeout=60_000)  # picked for inspection
    wait_idle(page)
    assert shown_count(page) > before  # and opened: its children drawn
    shot(page, "explorer_4_interactive_opened")
    # A second click on it (drawn elsewhere now) closes it again.
    page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
    page.wait_for_timeout(1000)
    _, x, y = page.evaluate(NODE_AT, node)
    page.mouse.click(x, y)
    page.get_by_text(re.compile(rf"^{before:,} of [\d,]+ nodes shown")).first.wait_for(timeout=60_000)
    assert not errors, errors


# The plotly chart's axis ranges and plot area width in the page, as plotly.js draws them now.
RANGES = """() => {
  const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  const l = gd._fullLayout;
  return [l.xaxis.range.slice(), l.yaxis.range.slice(), gd.getBoundingClientRect().width, l.uirevision];
}"""


def test_the_interactive_view_opens_zoomed_on_a_node_found_and_keeps_the_readers_zoom(server, browser):
    """Find a deep node in the interactive view: the chart opens with it inside the plot, in a frame as wide
    as the one its zoom is chosen for; the wheel zooms in the browser, and a rerun that changes nothing in
    the figure keeps that zoom; a new target opens on it."""
    page, errors = graph_page(browser, server, "Interactive (plotly)")
    find, deep = find_last(page)
    wait_idle(page)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(1000)
    (x0, x1), _, width, revision = page.evaluate(RANGES)
    assert width == pytest.approx(EXPLORER_FRAME_PX[0], abs=3)  # the frame focus_ranges is given
    node, x, y = page.evaluate(NODE_AT, deep)
    box = page.locator('[data-testid="stPlotlyChart"] .nsewdrag').first.bounding_box()  # the plot area
    assert node == deep
    assert box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]
    chart.evaluate("e => e.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(500)
    shot(page, "explorer_5_interactive_found")
    box = page.locator('[data-testid="stPlotlyChart"] .nsewdrag').first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(3):
        page.mouse.wheel(0, -120)
    page.wait_for_timeout(800)
    zoomed = page.evaluate(RANGES)[0]
    assert zoomed[1] - zoomed[0] < 0.8 * (x1 - x0)
    depth = page.get_by_label("Depth")  # a rerun that leaves the figure as it was
    depth.fill("2")
    depth.press("Enter")
    wait_idle(page)
    page.wait_for_timeout(800)
    kept, _, _, kept_revision = page.evaluate(RANGES)
    assert kept == pytest.approx(zoomed) and kept_revision == revision
    # A new target (the inspected node): the chart opens on it.
    picked = page.get_by_role("spinbutton", name="Node", exact=True)
    picked.fill("1")
    picked.press("Enter")
    page.get_by_text("Node #1 (").first.wait_for(timeout=60_000)
    wait_idle(page)
    page.wait_for_timeout(800)
    _, _, _, new_revision = page.evaluate(RANGES)
    _, x, y = page.evaluate(NODE_AT, 1)
    box = page.locator('[data-testid="stPlotlyChart"] .nsewdrag').first.bounding_box()
    assert new_revision != revision
    assert box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]
    assert not errors, errors


def test_the_editor_draws_a_large_model_in_its_own_frame(server, browser, tmp_path):
    """A model file of 747 nodes opened on the Graph page: the editor draws it as the explorer's default
    view, in the frame its default view is chosen for (ui.drawing.EDITOR_FRAME_PX: its width; its height
    where the drawing is as tall), beside its controls."""
    from sklearn.datasets import make_classification

    import tnt
    from tnt.model_io import model_to_json

    X, y = make_classification(n_samples=2000, n_features=12, n_informative=6, n_classes=4, random_state=0)
    model = tnt.TnTClassifier(C=1e-5, ccp_alpha=0.0, random_state=0).fit(X, y)
    assert model.graph_.node_count > 300  # the editor draws it in the explorer (drawing_mode "interactive")
    path = tmp_path / "large_model.json"
    path.write_text(model_to_json(model))
    page, errors = graph_page(browser, server, "Explorer (focus and context)")
    page.get_by_text("Open a model file").click()
    page.locator('[data-testid="stExpander"] input[type="file"]').first.set_input_files(str(path))
    page.get_by_text(f"from {path.name}").first.wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_text("Edit this model").click()
    wait_idle(page)
    editor = page.frame_locator(EXPLORER).nth(1)  # the Graph page's explorer first, then the editor's
    editor.locator("svg g.node", has_text="splits below").first.wait_for(timeout=60_000)
    page.wait_for_timeout(500)
    assert_frame_fits_drawing(page, 1, EDITOR_FRAME_PX)  # as wide as its frame, no taller than its drawing
    page.locator(EXPLORER).nth(1).scroll_into_view_if_needed()
    shot(page, "explorer_6_editor")
    assert not errors, errors


def test_every_compare_graph_fits_its_frame_and_can_be_read_whole(server, browser):
    """The Compare page's five graphs (the digits' models, each the explorer's default view): each frame as
    wide as ``COMPARE_FRAME_PX`` and no taller than its drawing (no blank band under it), each can be scrolled
    into the window whole, and inside it both the first and the last node can be scrolled into view; after a
    summary is opened the drawing may outgrow the frame, which then stops at its height and scrolls."""
    from browser_helpers import SCROLLED_TO

    page, errors = digits_page(browser, server, "Compare")
    page.get_by_text("Highest test accuracy").wait_for(timeout=300_000)
    wait_idle(page, 300_000)
    page.frame_locator(EXPLORER).nth(4).locator("svg g.node").first.wait_for(timeout=60_000)
    page.wait_for_timeout(500)

    def reachable(i: int) -> None:
        element = page.locator(EXPLORER).nth(i)
        element.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(300)
        box = element.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 1100, (i, box)  # the whole frame in the window
        inner = page.frame_locator(EXPLORER).nth(i).locator("#frame")
        for corner, which in (([0, 0], 0), ([1, 1], 1)):  # the root at the top left, the last node at the end
            nodes = inner.evaluate(SCROLLED_TO, corner)
            left, top, right, bottom = nodes[which]
            width, height = nodes[2], nodes[3]
            assert left >= -1 and top >= -1 and right <= width + 1 and bottom <= height + 1, (i, corner, nodes)

    for i in range(5):
        assert_frame_fits_drawing(page, i, COMPARE_FRAME_PX)
        reachable(i)
    shot(page, "explorer_7_compare")
    # NDG (the third graph of the first column): open summaries until the drawing is taller than the frame.
    ndg = page.frame_locator(EXPLORER).nth(2)
    for _ in range(4):
        height = assert_frame_fits_drawing(page, 2, COMPARE_FRAME_PX)[1]
        if height >= COMPARE_FRAME_PX[1] - 20:
            break
        before = ndg.locator("svg g.node").count()
        ndg.locator("svg g.node", has_text="splits below").last.click()
        wait_idle(page)
        page.frame_locator(EXPLORER).nth(2).locator("svg g.node").nth(before).wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        ndg = page.frame_locator(EXPLORER).nth(2)
    assert assert_frame_fits_drawing(page, 2, COMPARE_FRAME_PX)[1] >= COMPARE_FRAME_PX[1] - 20
    reachable(2)
    shot(page, "explorer_8_compare_ndg_opened")
    assert not errors, errors
