"""End to end: the Graph page's Explorer view in chromium at 1,440 px (screenshots in
``test-artifacts/``): the default view, a search that opens the way down and centres the frame, a
split opened by hand."""

import pytest
from browser_helpers import nav, running_server, shot, wait_idle

pytestmark = pytest.mark.browser

FRAME = 'iframe[title="Decision graph"]'
# Where the searched node's box is, in the frame's viewport (the frame scrolls to centre it).
BOX = "(node) => { const r = document.getElementById('node' + node).getBoundingClientRect();" \
      " return [r.left + r.width / 2, r.top + r.height / 2, innerWidth, innerHeight]; }"  # fmt: skip


@pytest.fixture(scope="module")
def server():
    with running_server("streamlit_explorer.log") as (url, _):
        yield url


def test_the_explorer_opens_readably_finds_a_node_and_opens_a_split(server, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    page.get_by_text("In use: Handwritten digits").wait_for(timeout=60_000)
    nav(page, "Graph")
    page.get_by_text("Explorer (focus and context)").click()
    page.get_by_text("nodes shown").first.wait_for(timeout=60_000)
    wait_idle(page)
    frame = page.frame_locator(FRAME)
    frame.locator("svg g.node").first.wait_for(timeout=60_000)
    assert frame.locator("svg g.node", has_text="splits below").count() >= 2  # summary nodes
    shot(page, "explorer_1_default")

    # Find a node deep in the graph: the way down is opened and the frame centred on it.
    caption = page.get_by_text("nodes shown").first.inner_text()
    total = int(caption.split(" of ")[1].split(" nodes")[0].replace(",", ""))
    deep = total - 1
    find = page.get_by_label("Find")
    find.fill(f"#{deep}")
    find.press("Enter")
    page.get_by_text(f"1 found: #{deep}.").wait_for(timeout=60_000)
    wait_idle(page)
    frame = page.frame_locator(FRAME)
    frame.locator(f"#node{deep}").wait_for(timeout=60_000)
    x, y, width, height = frame.locator("body").evaluate(f"() => ({BOX})({deep})")
    assert 0 <= x <= width and 0 <= y <= height  # in view
    shot(page, "explorer_2_found")

    # Open a summary node by its id: its children are drawn.
    shown_before = frame.locator("svg g.node").count()
    summary = frame.locator("svg g.node", has_text="splits below").first.get_attribute("id")
    node = int(summary.removeprefix("node"))
    field = page.get_by_role("spinbutton", name="Open or close a split", exact=True)
    field.fill(str(node))
    field.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Open / close").click()
    wait_idle(page)
    frame = page.frame_locator(FRAME)
    frame.locator("svg g.node").nth(shown_before).wait_for(timeout=60_000)  # more nodes than before
    shot(page, "explorer_3_opened")
    assert not errors, errors
