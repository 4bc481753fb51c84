"""Helpers the AppTest suites share: open a session, find a button or a metric, switch page, upload."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent


def new_session(timeout=30, ws=None):
    """Another browser session of the running app (the caches are shared, unlike ``open_app``'s),
    opening the address with ``?ws=<ws>`` when given."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    if ws is not None:
        at.query_params["ws"] = ws
    at.run()
    assert not at.exception, at.exception
    return at


def button(at, label):
    (match,) = [b for b in at.button if b.label == label]
    return match


def metric(at, label):
    (match,) = [m for m in at.metric if m.label == label]
    return match.value


def go(at, page):
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def upload(at, path):
    at.file_uploader(key="data/upload").set_value((path.name, path.read_bytes(), "text/csv")).run()
    assert not at.exception, at.exception
    return at


def train(at):
    """Open the Train page and press Train (opening it trains nothing)."""
    go(at, "train")
    button(at, "Train").click().run()
    assert not at.exception, at.exception
    return at


def explorer_drawing(at):
    """The Graph page explorer's drawing (``ui/explorer.py``'s component): its arguments ``svg``,
    ``height`` and ``focus`` (the node the frame centres), or None when none is drawn."""
    import json

    for element in at.get("component_instance"):
        if element.proto.id.endswith("explorer/click"):
            return json.loads(element.proto.json_args)
    return None


def plotly_click(at, node: int):
    """A click on ``node`` in the Graph page's interactive view (the selection of its chart, whose key
    changes after each click applied: ``graph/plotly/<round>``), and the rerun it triggers."""
    at.session_state[
        f"graph/plotly/{at.session_state['graph/plotly_round'] if 'graph/plotly_round' in at.session_state else 0}"
    ] = {"selection": {"points": [{"customdata": int(node)}]}}
    at.run()
    return at
