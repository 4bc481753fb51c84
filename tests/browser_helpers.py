"""What the browser suites share: a real ``streamlit run`` server on a free port, Debian's chromium
driven by Playwright, and waits for what a test asserts.

The ``browser`` fixture is in ``conftest.py``. Screenshots go to ``test-artifacts/``. Without
chromium the tests fail (they never skip): CI installs it (``.ci/run``), and so should a developer
(``apt-get install chromium``).
"""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

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
    # Several pages of one test run at once: none of them may have its timers slowed as a background page
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
]
LOG_TAIL_LINES = 60  # of a server's log, printed when a test fails while it runs
HIGHLIGHT = "#c00000"  # tnt.viz.export_dot.HIGHLIGHT_COLOR
EXPLORER = 'iframe[title*="clickable_svg"]'  # the Graph page explorer's drawing (ui/explorer.py)
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"  # Debian's


def launch_chromium(playwright):
    """Debian's chromium, headless, with the flags this closed network needs."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(log_name="streamlit.log", script_args=()):
    """``streamlit run app.py [-- script_args]`` on a free port; yields ``(url, process)`` once it is healthy.

    Stopped at the end (terminated, killed if it does not stop), unless the test killed it already.
    The server's output goes to ``test-artifacts/<log_name>``; when the server does not start or the
    test fails while it runs, the log's last lines are also printed to stderr, so that pytest's
    report (all that CI keeps) shows what the server did.
    """
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / log_name, "w")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
            *(["--", *script_args] if script_args else []),
        ],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=os.environ | {"PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    failed = False
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            assert proc.poll() is None, f"streamlit exited; see test-artifacts/{log_name}"
            assert time.monotonic() < deadline, "streamlit did not answer its health check within 60 s"
            time.sleep(0.3)
        yield url, proc
    except BaseException:
        failed = True
        raise
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
        if failed:
            tail = (ARTIFACTS / log_name).read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:]
            print(f"--- the last lines of test-artifacts/{log_name} ---", *tail, sep="\n", file=sys.stderr)


def wait_idle(page, timeout=60_000):
    """Wait until the script run is over (Streamlit shows a status widget while running)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        '() => !document.querySelector(\'[data-testid="stStatusWidget"], [data-stale="true"]\')',
        timeout=timeout,
    )


def cut_selectboxes(page) -> list[str]:
    """The choices shown cut off in the page's select boxes: each box's text measured in the box's own
    font against the room its input leaves for it (an input's scrollWidth does not grow with its text)."""
    return page.evaluate(
        """() => {
            const ctx = document.createElement('canvas').getContext('2d');
            return [...document.querySelectorAll('[data-testid="stSelectbox"] input')].filter(e => {
                const css = getComputedStyle(e);
                ctx.font = css.font;
                const room = e.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight);
                return ctx.measureText(e.value).width > room;
            }).map(e => e.value);
        }"""
    )


def set_c_and_train(page, target: str):
    """Move C with the keyboard, a step at a time on its log scale, until its thumb shows ``target``
    (e.g. "2e-03"), and press Train. :func:`wait_trained` waits for the model.

    Each step waits for the thumb to show the next value, so the keys never outrun the page; the
    thumb must show ``target`` (not merely another value) before Train is pressed.
    """
    from playwright.sync_api import expect

    from ui.display import C_GRID, format_C

    steps = [format_C(c) for c in C_GRID]
    slider = page.get_by_role("slider").first  # the thumb of C
    slider.focus()
    for _ in range(len(steps)):
        now = slider.get_attribute("aria-valuetext")
        if now == target:
            break
        page.keyboard.press("ArrowRight" if steps.index(now) < steps.index(target) else "ArrowLeft")
        expect(slider).not_to_have_attribute("aria-valuetext", now, timeout=30_000)
    expect(slider).to_have_attribute("aria-valuetext", target, timeout=30_000)
    page.wait_for_timeout(500)
    page.get_by_role("button", name="Train").click()


def wait_trained(page, shows, timeout=120_000):
    """Wait until the Train page shows ``shows`` (e.g. "TnT at C=2e-03").

    The slider shows a new C at once but hands it to the form a moment later: on a loaded machine a
    click on Train in between submits the old C, which the page answers with "nothing new to train".
    A click can also be lost while the server is busy with another session: the page then goes idle
    showing neither. Either way Train is pressed again (at most three times more); tests assert what
    was trained, not the clicks. Training runs inside the script run, so an idle page has finished.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    trained, refused = page.get_by_text(shows).first, page.get_by_text("nothing new to train")
    for _ in range(4):
        wait_idle(page, timeout=timeout)
        try:
            trained.or_(refused).first.wait_for(timeout=30_000)
        except PlaywrightTimeout:  # idle, and neither shows
            pass
        if trained.is_visible():
            wait_idle(page, timeout=timeout)
            return
        page.wait_for_timeout(500)
        page.get_by_role("button", name="Train").click()
    main_text = "() => (document.querySelector('[data-testid=\"stMain\"]') || document.body).innerText"
    shown = page.evaluate(main_text)[:1500]
    raise AssertionError(f"four clicks on Train did not train {shows!r}; the page shows:\n{shown}")


def upload_file(page, path, timeout=180_000):
    """Upload the CSV at ``path`` on the Data page and use it, waiting for each step."""
    nav(page, "Data")
    page.locator('input[type="file"]').set_input_files(str(path))
    # The form of this file, not of one chosen before (the page keeps that one until another comes).
    page.get_by_text(f"Preview of {path.name}").wait_for(timeout=timeout)
    wait_idle(page, timeout)
    page.get_by_role("button", name="Use this data").click()
    page.get_by_text(f"In use: {path.name}").wait_for(timeout=timeout)
    wait_idle(page, timeout)


def nav(page, title):
    page.locator('[data-testid="stSidebarNav"] a', has_text=title).click()
    page.wait_for_function(f"() => [...document.querySelectorAll('h2')].some(h => h.innerText.includes('{title}'))")
    wait_idle(page)


def load_bundled(page, name):
    """Load the bundled data set called ``name`` on the Data page (the page open at the address)."""
    page.get_by_text("In use:").wait_for(timeout=60_000)
    page.locator('[data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name=name).click()
    page.get_by_role("button", name="Load data set").click()
    page.get_by_text(f"In use: {name}").wait_for(timeout=60_000)


def shot(page, name):
    """Save a screenshot, after checking that the page shows no exception box."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0, f"an exception is on screen: {name}.png"


def points_drawn(page) -> int:
    """The Teach page's count of drawn points."""
    metric = page.locator('[data-testid="stMetric"]', has_text="Points drawn")
    return int(metric.locator('[data-testid="stMetricValue"]').inner_text())


def click_on_board(page, x, y):
    """Click the Teach page's drawing board where the point (x, y) of the unit square is drawn, and wait
    until the page counts one more point."""
    from tnt.viz.drawing_board import SQUARE

    before = points_drawn(page)
    board = page.locator(".js-plotly-plot").first
    area = board.locator(".nsewdrag").first  # the plot area, between the axes' ranges
    box = area.bounding_box()
    low, high = SQUARE
    px = box["x"] + (x - low) / (high - low) * box["width"]
    py = box["y"] + (1 - (y - low) / (high - low)) * box["height"]
    page.mouse.move(px - 3, py)
    page.mouse.move(px, py)
    # plotly selects on click the point it found on hover: wait until it has found a grid point (trace 0).
    page.wait_for_function(
        "el => el._hoverdata && el._hoverdata.length > 0 && el._hoverdata[0].curveNumber === 0",
        arg=board.element_handle(),
        timeout=30_000,
    )
    page.mouse.click(px, py)
    wait_for_points_drawn(page, before + 1)


def wait_for_points_drawn(page, n: int) -> None:
    """Wait until the Teach page counts ``n`` drawn points and its run is over."""
    page.wait_for_function(
        """n => [...document.querySelectorAll('[data-testid="stMetric"]')].some(m => m.innerText.includes('Points drawn')
            && m.querySelector('[data-testid="stMetricValue"]').innerText.trim() === String(n))""",
        arg=n,
        timeout=60_000,
    )
    wait_idle(page)


def find_last(page, timeout=60_000):
    """Search the explorer for the graph's last node (its id: the node count its caption says, less
    one) and wait for the hit; returns the search box and that id."""
    caption = page.get_by_text("nodes shown").first.inner_text()
    last = int(caption.split(" of ")[1].split(" nodes")[0].replace(",", "")) - 1
    find = page.get_by_label("Find")
    find.fill(f"#{last}")
    find.press("Enter")
    page.get_by_text(f"1 found: #{last}.").wait_for(timeout=timeout)
    return find, last


# An explorer frame (its #frame, in the component's iframe) and its drawing: the frame's width and height, the
# drawing's width and height at its zoom, and the height of the frame's horizontal scroll bar (0 without one).
FRAME_AND_DRAWING = """f => { const s = f.querySelector('svg').getBoundingClientRect();
  return [f.clientWidth, f.clientHeight, s.width, s.height, f.offsetHeight - f.clientHeight]; }"""
# Scroll an explorer frame to a corner ([0, 0]: top left; [1, 1]: bottom right) and say where its drawing's
# first and last nodes (by id) are, within the frame: [left, top, right, bottom] of each, in the frame's px.
SCROLLED_TO = """(f, corner) => {
  f.scrollLeft = corner[0] * f.scrollWidth; f.scrollTop = corner[1] * f.scrollHeight;
  const o = f.getBoundingClientRect(), ids = [...f.querySelectorAll('g.node')].map(g => g.id)
    .filter(id => /^node\\d+$/.test(id)).sort((a, b) => +a.slice(4) - +b.slice(4));
  const at = id => { const r = f.querySelector('#' + id).getBoundingClientRect();
    return [r.left - o.left, r.top - o.top, r.right - o.left, r.bottom - o.top]; };
  return [at(ids[0]), at(ids[ids.length - 1]), f.clientWidth, f.clientHeight];
}"""


def assert_frame_fits_drawing(page, nth: int, frame_px, tools_px: int = 34) -> tuple[float, float]:
    """The ``nth`` explorer frame on ``page``: as wide as ``frame_px``, and as high as its drawing at its
    zoom (and its horizontal scroll bar) where that is less than ``frame_px``'s height, the iframe no taller
    than the frame and its tool bar (no blank band under a drawing shrunk to the frame's width). Returns
    the frame's width and height."""
    width, height, drawn_w, drawn_h, bar = (
        page.frame_locator(EXPLORER).nth(nth).locator("#frame").evaluate(FRAME_AND_DRAWING)
    )
    assert abs(width - frame_px[0]) <= 3, (width, frame_px)
    assert abs(height + bar - min(frame_px[1], drawn_h + bar)) <= 3, (height, drawn_h, bar, frame_px)
    assert abs(page.locator(EXPLORER).nth(nth).bounding_box()["height"] - (height + bar + tools_px)) <= 3
    return width, height
