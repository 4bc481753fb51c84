"""Layouts of large decision graphs (issue 51): edge crossings and drawing width of today's
``layered_layout``, the DAG layout (:mod:`tnt.viz.dag_layout`) and Graphviz ``dot``, and the time of a
layout, of the explorer's expand, collapse and search, and of the Graph page's rerun after a click.

Run from the repository root (the graphs are trained once by ``benchmarks/big_graphs.py``, then kept):

    .venv/bin/python benchmarks/graph_layout.py

Writes ``benchmarks/graph_layout.md`` whole. Every layout is measured on the same boxes: the width and
height Graphviz gives each node of the full drawing (``to_dot``, 11 pt labels), and 18 pt between two
boxes of a layer (``dot``'s ``nodesep``). ``layered_layout`` spreads each layer evenly in units of one
node; it is scaled to the least width at which no two of its boxes overlap. Crossings are counted
layer gap by layer gap: edges drawn straight for ``layered_layout``, through their dummy nodes for the
DAG layout, and for ``dot`` along each edge's spline control points at the height of each rank of
nodes (an approximation of the curves). The speed rows give the median of 5 runs after one warm-up.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from big_graphs import classification_3000_model, mnist_model  # noqa: E402

from tnt.viz import focus  # noqa: E402
from tnt.viz.dag_layout import dag_layout, polyline_crossings  # noqa: E402
from tnt.viz.export_dot import to_dot  # noqa: E402
from tnt.viz.layout import count_crossings, layered_layout  # noqa: E402
from tnt.viz.render import render  # noqa: E402
from ui.drawing import EXPLORER_FRAME_PX  # noqa: E402

REPORT = ROOT / "benchmarks" / "graph_layout.md"
GAP_PT = 18.0  # dot's nodesep of 0.25 in
LIMIT_MS = 300
RUNS = 5
BROWSER_WAIT = 300_000  # ms: what the browser rows wait at most for a page or a drawing


def timed_ms(function, runs: int = RUNS) -> tuple[float, object]:
    """Median wall time of ``function()`` in ms over ``runs`` runs after one warm-up, and its result."""
    result = function()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = function()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times)), result


def dot_layout(graph) -> tuple[dict, float]:
    """Graphviz ``dot``'s layout of the full drawing (its JSON) and the seconds it took."""
    import pygraphviz

    start = time.perf_counter()
    laid = pygraphviz.AGraph(string=to_dot(graph))
    laid.layout(prog="dot")
    layout = json.loads(laid.draw(format="json0").decode("utf-8"))
    return layout, time.perf_counter() - start


def dot_boxes(layout, n_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each node's centre x, y and width in points from ``dot``'s JSON (``n<id>`` names)."""
    x, y, width = np.full(n_nodes, np.nan), np.full(n_nodes, np.nan), np.zeros(n_nodes)
    for obj in layout["objects"]:
        name = obj.get("name", "")
        if name.startswith("n") and name[1:].isdigit() and "pos" in obj:
            node = int(name[1:])
            x[node], y[node] = (float(v) for v in obj["pos"].split(","))
            width[node] = float(obj["width"]) * 72
    return x, y, width


def dot_crossings(layout, graph, x, y) -> int:
    """Crossings of ``dot``'s edges, each followed along its control points at every rank's height."""
    names = {i: int(obj["name"][1:]) for i, obj in enumerate(layout["objects"]) if obj.get("name", "").startswith("n")}
    ranks = np.unique(y[~np.isnan(y)])[::-1]  # top (largest y) first
    level = {float(v): i for i, v in enumerate(ranks)}
    gaps, tops, bottoms = [], [], []
    for edge in layout.get("edges", []):
        tail, head = names.get(edge["tail"]), names.get(edge["head"])
        if tail is None or head is None:
            continue
        points = [(x[tail], y[tail])]
        for token in edge["pos"].split():
            if token.startswith(("e,", "s,")):
                continue
            px, py = (float(v) for v in token.split(","))
            points.append((px, py))
        points.append((x[head], y[head]))
        px, py = np.array([p[0] for p in points]), np.array([p[1] for p in points])
        order = np.argsort(py)
        a, b = level[float(y[tail])], level[float(y[head])]
        along = np.interp(ranks[a : b + 1], py[order], px[order])
        for k in range(b - a):
            gaps.append(a + k)
            tops.append(along[k])
            bottoms.append(along[k + 1])
    return polyline_crossings(np.array(gaps), np.array(tops), np.array(bottoms))


def layered_width(graph, widths) -> tuple[float, int]:
    """Width in points at which ``layered_layout``'s boxes do not overlap, and its crossings."""
    x, y = layered_layout(graph)
    scale = 0.0
    for level in np.unique(y):
        nodes = np.flatnonzero(y == level)
        nodes = nodes[np.argsort(x[nodes])]
        if nodes.size > 1:
            need = (widths[nodes[:-1]] + widths[nodes[1:]]) / 2 + GAP_PT
            scale = max(scale, float(np.max(need / np.diff(x[nodes]))))
    left, right = np.min(scale * x - widths / 2), np.max(scale * x + widths / 2)
    return float(right - left), count_crossings(graph, x, y)


def explorer_rows(name: str, model) -> list[tuple]:
    """The explorer's steps on ``model``: the view's state (tnt.viz.focus) and its drawing (DOT and
    Graphviz's SVG), as the Graph page does after a click."""
    graph = model.graph_
    names = [f"x{i}" for i in range(model.n_features_in_)]

    def drawn(opened):
        return render(to_dot(graph, feature_names=names, show_ids=True, view=focus.graph_view(graph, opened)), "svg")

    width, height = EXPLORER_FRAME_PX
    default_ms, opened = timed_ms(
        lambda: focus.default_expansion(graph, names, width=width, height=height, show_ids=True), runs=1
    )
    view = focus.graph_view(graph, opened)
    summary = int(np.flatnonzero(view.summary)[0])
    deep = int(graph.node_count - 1)
    draw_ms, _ = timed_ms(lambda: drawn(opened))
    layers = int(view.layers()[view.shown].max()) + 1
    rows = [(name, f"default view ({layers} layers)", view.size, default_ms, draw_ms)]
    for step, change in (
        ("expand a summary node", lambda: focus.toggle(graph, opened, summary)),
        ("collapse it again", lambda: focus.toggle(graph, opened | {summary}, summary)),
        (
            f"search #{deep} (the last node)",
            lambda: focus.expand_to(graph, opened, focus.find_nodes(graph, f"#{deep}")),
        ),
    ):
        state_ms, after = timed_ms(lambda change=change: focus.graph_view(graph, change()))
        draw_ms, _ = timed_ms(lambda after=after: drawn(after.expanded))
        rows.append((name, step, after.size, state_ms, draw_ms))
    return rows


RERUN_LIMIT_S = 1.0
VIEWS = ("Explorer (focus and context)", "Interactive (plotly)")


def rerun_rows(models) -> list[tuple]:
    """The Graph page's rerun after a click on a summary node, in Streamlit's AppTest (the script run on
    the server; the browser's drawing of the answer is not in it: the next table times that in chromium;
    AppTest runs the whole page at each click, the explorer's fragment in it, where the browser reruns the
    explorer alone: an upper bound of its rerun).
    The handwritten digits' default model, then each of the graphs above opened as a model file (on the
    digits' data, which do not fit them: no sample's path), then the MNIST graph on MNIST's own data (a
    test sample's path, the inspector's chart of the node, the accuracy: the page as a user of MNIST
    sees it); in the explorer (SVG) and the interactive view, five clicks, each on a different summary
    (a new view each time: no drawing cached).

    ``models``: (name, model) pairs, the MNIST graph first."""
    import tempfile

    from streamlit.testing.v1 import AppTest

    os.environ.setdefault("TNT_WORKSPACE_DIR", tempfile.mkdtemp())
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    app.run()
    app.switch_page("app_pages/graph.py").run()
    rows = []
    digits = next(iter(app.session_state["train/models"].values())).tnt
    rows += click_rows(app, "Handwritten digits, default model", digits)
    for name, model in models:
        open_model_file(app, model)
        rows += click_rows(app, name, model)
    app.switch_page("app_pages/data.py").run()
    app.selectbox(key="data/paper").set_value("mnist").run()
    (load,) = [b for b in app.button if b.key == "data/paper_load"]
    load.click().run()
    app.switch_page("app_pages/graph.py").run()
    name, model = models[0]
    open_model_file(app, model)
    if not [m for m in app.markdown if m.value.startswith("Sample **#")]:
        raise RuntimeError("MNIST's data do not fit the MNIST graph: no test sample on the Graph page")
    rows += click_rows(app, f"{name}, on MNIST's data", model)
    return rows


# A summary node (diamond) of the interactive view: its id and where it is on the page.
DIAMOND_AT = """() => {
  const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  const t = gd.data.find(d => d.name === "nodes");
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, r = gd.getBoundingClientRect();
  for (let i = 0; i < t.x.length; i++) {
    if (t.marker.symbol[i] !== "diamond") continue;
    const x = xa.l2p(t.x[i]), y = ya.l2p(t.y[i]);
    if (x > 10 && x < xa._length - 10 && y > 10 && y < ya._length - 10)
      return [t.customdata[i], r.left + xa._offset + x, r.top + ya._offset + y];
  }
  return null;
}"""


# Whether node ``node`` is drawn open (not a diamond) in the interactive view's chart.
OPENED_IN_CHART = """(node) => {
  const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  const t = gd && gd.data && gd.data.find(d => d.name === "nodes");
  if (!t) return false;
  const i = Array.from(t.customdata).indexOf(node);
  return i >= 0 && t.marker.symbol[i] !== "diamond";
}"""


def browser_rows() -> list[tuple]:
    """A click on a summary node in chromium at 1,440 px, each large graph opened on its own data (MNIST
    loaded from the Data page's list of the paper's sets, the 3,000-split graph's rows uploaded as a CSV
    file: a sample's path, the inspector, the accuracy on the page), timed from the click to the node
    drawn open (the rerun, the answer's trip and its drawing; in the explorer, a fragment, the rerun of
    the explorer alone, in the interactive view the page's, as its click picks the node the inspector
    shows): in the explorer and in the interactive view, five clicks each, each on a different summary
    node in view. The baseline: the same view's rerun after a change that draws nothing new (the
    *Depth* box, 2 then 3: in the explorer one of its own controls, so the explorer's rerun alone), from
    the key press to the page idle, five times.

    Returns rows ``(graph, view, median s, slowest s, baseline median s)``."""
    import tempfile

    import pandas as pd

    sys.path.insert(0, str(ROOT / "tests"))
    from big_graphs import cache_dir, classification_3000_data
    from browser_helpers import launch_chromium, running_server, upload_file
    from make_explorer_screenshots import load_paper_set, open_model
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp())
    os.environ.setdefault("TNT_WORKSPACE_DIR", str(folder / "workspaces"))
    X, y = classification_3000_data()
    csv = folder / "classification_14000.csv"
    frame = pd.DataFrame(np.round(X, 4), columns=[f"x{i}" for i in range(X.shape[1])])
    frame["label"] = y
    frame.to_csv(csv, index=False)
    rows = []
    with sync_playwright() as p, running_server("graph_layout_benchmark.log") as (url, _):
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1440, "height": 1100})
        page.goto(url)
        page.get_by_text("In use: Handwritten digits").wait_for(timeout=BROWSER_WAIT)
        load_paper_set(page, "mnist")
        open_model(page, cache_dir() / "mnist_C1e-4.json")
        rows += page_clicks(page, "MNIST, C=1e-4")
        upload_file(page, csv, BROWSER_WAIT)
        open_model(page, cache_dir() / "classification_3000.json")
        rows += page_clicks(page, "3,000-split graph")
        browser.close()
    return rows


def page_clicks(page, name: str) -> list[tuple]:
    """:func:`browser_rows`'s rows of the graph open on the Graph page (in its explorer)."""
    from browser_helpers import EXPLORER, nav, wait_idle
    from make_explorer_screenshots import explorer_ready

    def baseline() -> float:
        times = []
        depth = page.get_by_label("Depth")
        for k in range(RUNS):
            depth.fill(str(2 + k % 2))
            start = time.perf_counter()
            depth.press("Enter")
            wait_idle(page, BROWSER_WAIT)
            times.append(time.perf_counter() - start - 0.3)  # wait_idle waits 0.3 s first
        return float(np.median(times))

    rows = []
    explorer_ready(page)
    plain = baseline()
    times = []
    for _ in range(RUNS):
        frame = explorer_ready(page)
        summary = frame.locator("svg g.node", has_text="splits below").first
        node = summary.get_attribute("id")
        start = time.perf_counter()
        summary.click()
        page.frame_locator(EXPLORER).locator(f"#{node}").filter(has_not_text="splits below").wait_for(
            timeout=BROWSER_WAIT
        )
        times.append(time.perf_counter() - start)
        wait_idle(page, BROWSER_WAIT)
    rows.append((name, "Explorer (focus and context)", float(np.median(times)), float(np.max(times)), plain))
    print(rows[-1], flush=True)
    nav(page, "Graph")
    page.get_by_text("Interactive (plotly)").click()
    page.get_by_text("nodes shown").first.wait_for(timeout=BROWSER_WAIT)
    wait_idle(page, BROWSER_WAIT)
    plain = baseline()
    times = []
    for _ in range(RUNS):
        chart = page.locator('[data-testid="stPlotlyChart"]').first
        chart.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(500)
        found = page.evaluate(DIAMOND_AT)
        if found is None:
            raise RuntimeError("no summary node in view in the interactive view")
        node, x, y = found
        start = time.perf_counter()
        page.mouse.click(x, y)
        page.wait_for_function(OPENED_IN_CHART, arg=node, timeout=BROWSER_WAIT)
        times.append(time.perf_counter() - start)
        wait_idle(page, BROWSER_WAIT)
    rows.append((name, "Interactive (plotly)", float(np.median(times)), float(np.max(times)), plain))
    print(rows[-1], flush=True)
    page.get_by_text("Explorer (focus and context)").click()  # the next graph opens in the explorer
    wait_idle(page, BROWSER_WAIT)
    return rows


def open_model_file(app, model) -> None:
    """Open ``model`` on the Graph page of ``app`` as a model file."""
    from tnt.model_io import model_to_json

    content = model_to_json(model).encode()
    app.file_uploader(key="graph/model_file").set_value(("model.json", content, "application/json")).run()


def click_rows(app, name: str, model) -> list[tuple]:
    """For each view of :data:`VIEWS`: the median of :data:`RUNS` reruns with nothing changed, then of
    as many clicks on a summary node (each a new one), as rows ``(name, view, nodes shown after, median
    click, slowest click, median rerun with nothing changed)``."""
    from ui.drawing import fingerprint

    graph = model.graph_
    key = f"explorer/opened/{fingerprint(graph)}"
    rows = []
    for view in VIEWS:
        (radio,) = [r for r in app.radio if (r.key or "").startswith("graph/view/")]
        radio.set_value(view).run()
        plain = []  # the baseline: reruns with nothing changed
        for _ in range(RUNS):
            start = time.perf_counter()
            app.run()
            plain.append(time.perf_counter() - start)
        times = []
        for i in range(RUNS):
            summary = int(np.flatnonzero(focus.graph_view(graph, app.session_state[key]).summary)[0])
            if view.startswith("Explorer"):
                app.session_state["explorer/click"] = {"node": summary, "stub": False, "at": f"benchmark {name} {i}"}
            else:
                chart = f"graph/plotly/{app.session_state['graph/plotly_round'] if 'graph/plotly_round' in app.session_state else 0}"
                app.session_state[chart] = {"selection": {"points": [{"customdata": summary}]}}
            start = time.perf_counter()
            app.run()
            times.append(time.perf_counter() - start)
            if app.exception or summary not in app.session_state[key]:
                raise RuntimeError(f"the click on #{summary} was not applied ({app.exception})")
        rows.append((name, view, focus.graph_view(graph, app.session_state[key]).size, float(np.median(times)),
                     float(np.max(times)), float(np.median(plain))))  # fmt: skip
        print(rows[-1], flush=True)
    return rows


def main(argv=None) -> None:
    """Measure and write the report (``argv``: no options; the caller's arguments are ignored)."""
    from tnt.data.external import stop_if_missing

    stop_if_missing(["mnist"])  # before any work: the MNIST graph is trained from it (big_graphs.py)
    graphs = [("MNIST, C=1e-4", mnist_model()), ("3,000-split graph", classification_3000_model())]
    quality, speed, explorer = [], [], []
    for name, model in graphs:
        graph = model.graph_
        print(f"{name}: {graph.n_splits:,} splits, {graph.node_count:,} nodes", flush=True)
        layout, dot_seconds = dot_layout(graph)
        x, y, widths = dot_boxes(layout, graph.node_count)
        bb = [float(v) for v in layout["bb"].split(",")]
        old_width, old_crossings = layered_width(graph, widths)
        new_ms, new = timed_ms(lambda graph=graph, widths=widths: dag_layout(graph, widths=widths, gap=GAP_PT))
        old_ms, _ = timed_ms(lambda graph=graph: layered_layout(graph))
        quality += [
            (name, "`layered_layout` (before)", old_crossings, old_width),
            (name, "`dag_layout` (dummy nodes, no overlap)", new.crossings, new.width),
            (name, "Graphviz `dot`", dot_crossings(layout, graph, x, y), bb[2] - bb[0]),
        ]
        speed += [
            (name, "layout: `dag_layout`", new_ms),
            (name, "layout: `layered_layout`", old_ms),
            (name, "layout: Graphviz `dot` (one run)", dot_seconds * 1e3),
        ]
        explorer += explorer_rows(name, model)
        print(quality[-3:], speed[-3:], explorer[-3:], flush=True)
    loads = {"the start of the AppTest rows": os.getloadavg()[0]}
    reruns = rerun_rows(graphs)
    loads["the start of the browser rows"] = os.getloadavg()[0]
    clicks = browser_rows()
    loads["the end of the run"] = os.getloadavg()[0]
    write_report(graphs, quality, speed, explorer, reruns, clicks, loads)


def method() -> str:
    """What the report measures: the module docstring's paragraph on it, in Markdown."""
    paragraph = __doc__.split("\n\n")[3].replace("\n", " ")
    return paragraph.split(" whole. ", 1)[1].replace("``", "`").strip()


def write_report(graphs, quality, speed, explorer, reruns, clicks, loads) -> None:
    """Write :data:`REPORT`; ``loads``: the load average (1 minute) at the start of each timed part."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{value:.1f} at {when}" for when, value in loads.items())
    lines = [
        "# Layouts of large graphs",
        "",
        "Written whole by `benchmarks/graph_layout.py`; edit the script, not this file. " + method(),
        "",
        f"Latest run: {stamp}, {platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average (1 minute) {load}.",
        "",
        "Graphs: "
        + "; ".join(f"{n}: {m.graph_.n_splits:,} splits, {m.graph_.node_count:,} nodes" for n, m in graphs)
        + ".",
        "",
        "## Crossings and width",
        "",
        "| graph | layout | edge crossings | drawing width (pt) |",
        "|---|---|---:|---:|",
        *[f"| {g} | {layout} | {c:,} | {w:,.0f} |" for g, layout, c, w in quality],
        "",
        "## Speed",
        "",
        f"Target: under {LIMIT_MS} ms each.",
        "",
        "| graph | step | ms | under the target |",
        "|---|---|---:|---|",
        *[f"| {g} | {step} | {ms:,.1f} | {'yes' if ms < LIMIT_MS else 'no'} |" for g, step, ms in speed],
        "",
        "The explorer's default view in its frame at 1,440 px ({} x {} px, `ui.drawing.EXPLORER_FRAME_PX`: whole "
        "layers, then the busiest summaries one at a time, while the drawing fits at 11 px labels; its state "
        "column: one run of `tnt.viz.focus.default_expansion`, which lays out each candidate), then the explorer's "
        "steps from it: the new view's state, then its drawing (`to_dot` and Graphviz's layout of the view, "
        "rendered as SVG on the server), as the Graph page does after a click; zooming and panning that drawing "
        "happen in the browser, without the server.".format(*EXPLORER_FRAME_PX),
        "",
        "| graph | step | nodes drawn after | state (ms) | drawing (ms) | total under the target |",
        "|---|---|---:|---:|---:|---|",
        *[
            f"| {g} | {step} | {size:,} | {state:,.1f} | {draw:,.1f} | {'yes' if state + draw < LIMIT_MS else 'no'} |"
            for g, step, size, state, draw in explorer
        ],
        "",
        "## The page's rerun after a click",
        "",
        f"Target: under {RERUN_LIMIT_S:g} s. " + " ".join(rerun_rows.__doc__.split("\n\n")[0].split()) + " "
        "The baseline: the median of as many reruns with nothing changed, measured just before the clicks.",
        "",
        "| graph | view | nodes shown after | click: median (s) | click: slowest (s) | no change (s) | ratio | "
        "under the target |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        *[
            f"| {g} | {view} | {size:,} | {median:.2f} | {slowest:.2f} | {plain:.2f} | {median / plain:.1f} | "
            f"{'yes' if slowest < RERUN_LIMIT_S else 'no'} |"
            for g, view, size, median, slowest, plain in reruns
        ],
        "",
        "## A click in the browser",
        "",
        f"Target: under {RERUN_LIMIT_S:g} s. " + " ".join(browser_rows.__doc__.split("\n\n")[0].split()),
        "",
        "| graph | view | click to drawn: median (s) | slowest (s) | rerun drawing nothing new (s) | ratio | "
        "under the target |",
        "|---|---|---:|---:|---:|---:|---|",
        *[
            f"| {g} | {view} | {median:.2f} | {slowest:.2f} | {plain:.2f} | {median / plain:.1f} | "
            f"{'yes' if slowest < RERUN_LIMIT_S else 'no'} |"
            for g, view, median, slowest, plain in clicks
        ],
        "",
    ]
    REPORT.write_text("\n".join(lines))
    print(f"wrote {REPORT}")


if __name__ == "__main__":
    main()
