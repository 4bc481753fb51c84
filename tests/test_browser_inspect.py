"""End to end, the Graph page's inspection views in headless chromium at 1440 px: on the digits'
default model, and on a model of 1,000+ splits trained on MNIST (opened as a model file against a
part of MNIST uploaded as CSV). Screenshots in ``test-artifacts/inspect_*.png``."""

import numpy as np
import pandas as pd
import pytest
from browser_helpers import nav, running_server, shot, wait_idle

pytestmark = pytest.mark.browser
VIEWPORT = {"width": 1440, "height": 900}


@pytest.fixture(scope="module")
def server():
    with running_server("streamlit_inspect.log") as (url, _):
        yield url


def open_view(page, name):
    page.locator('[data-testid="stRadio"]', has_text="Node distributions").get_by_text(name, exact=True).click()
    wait_idle(page)


def grid_cell(page, frame_index, row, column, row_px=35, index_px=None):
    """Click a cell of the ``frame_index``-th table (glide-data-grid draws on a canvas: by position)."""
    grid = page.locator('[data-testid="stDataFrame"]').nth(frame_index)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    n_columns = column + 1
    index_px = index_px or 60
    x = box["x"] + index_px + (column + 0.5) * min(75, (box["width"] - index_px) / max(n_columns, 1))
    y = box["y"] + row_px * (row + 1.5)
    page.mouse.click(x, y)
    wait_idle(page)


def test_the_inspection_views_on_the_digits(server, browser):
    page = browser.new_page(viewport=VIEWPORT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/graph")
    page.get_by_text("Node distributions").wait_for(timeout=120_000)
    wait_idle(page)
    chart = page.locator(".js-plotly-plot", has_text="Node #0:")
    chart.wait_for(timeout=60_000)
    assert chart.locator(".barlayer .trace").count() >= 5  # stacked by class
    chart.scroll_into_view_if_needed()
    shot(page, "inspect_1_digits_node")

    open_view(page, "Test data")
    page.get_by_text("Confusion matrix").wait_for()
    page.get_by_text("Leaves by test errors").scroll_into_view_if_needed()
    shot(page, "inspect_2_digits_test_data")
    # Click the cell of class 1 predicted as 2, then the first sample it lists: the page's sample.
    grid = page.locator('[data-testid="stDataFrame"]').last
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    index_px, row_px = 73, 35
    column_px = (box["width"] - index_px) / 10
    page.mouse.click(box["x"] + index_px + 2.5 * column_px, box["y"] + row_px * 2.5)
    page.get_by_text("of class 1 predicted as 2").wait_for(timeout=30_000)
    wait_idle(page)
    listing = page.locator('[data-testid="stDataFrame"]').last
    box = listing.bounding_box()
    page.mouse.click(box["x"] + 15, box["y"] + row_px * 1.5)  # the row's selection box
    page.get_by_text("class 1, predicted 2 (wrong)").first.wait_for(timeout=30_000)
    wait_idle(page)
    shot(page, "inspect_2b_digits_confusion_cell")

    open_view(page, "What if?")
    page.get_by_text("Features to edit").wait_for()
    shot(page, "inspect_3_digits_what_if")

    open_view(page, "Counterfactual")
    page.get_by_text("To get class").wait_for(timeout=60_000)
    assert ": change " in page.get_by_text("To get class").inner_text()
    shot(page, "inspect_4_digits_counterfactual")

    open_view(page, "Rules")
    page.get_by_role("button", name="Rules (CSV)").wait_for()
    with page.expect_download() as download:
        page.get_by_role("button", name="Rules (CSV)").click()
    assert download.value.suggested_filename == "rules.csv"
    shot(page, "inspect_5_digits_rules")
    assert not errors, errors


def test_the_inspection_views_on_a_thousand_split_mnist_model(server, browser, tmp_path, mnist_path):
    from tnt import TnTClassifier
    from tnt.model_io import model_to_json

    with np.load(mnist_path) as d:
        X, y, X_test, y_test = d["X_train"], d["y_train"], d["X_test"], d["y_test"]
    # The app takes at most 500 columns and refuses columns of one value: the model is trained on the
    # 499 pixels that vary most in the part of MNIST uploaded (the border pixels say nothing).
    varying = np.sort(np.argsort(-X_test[:3000].astype(float).var(axis=0), kind="stable")[:499])
    X, X_test = X[:, varying], X_test[:, varying]
    model = TnTClassifier(C=1e-4, random_state=0).fit(X, y)
    assert model.graph_.n_splits >= 900
    model_file = tmp_path / "mnist_tnt.json"
    model_file.write_text(model_to_json(model))
    csv = tmp_path / "mnist_part.csv"
    part = pd.DataFrame(X_test[:3000], columns=[f"pixel{i}" for i in varying])
    part["label"] = y_test[:3000]
    part.to_csv(csv, index=False)

    page = browser.new_page(viewport=VIEWPORT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    page.get_by_text("In use:").wait_for(timeout=60_000)
    page.locator('input[type="file"]').set_input_files(str(csv))
    page.get_by_role("button", name="Use this data").wait_for(timeout=180_000)
    page.get_by_role("button", name="Use this data").click()
    page.get_by_text("In use: mnist_part.csv").wait_for(timeout=180_000)
    nav(page, "Graph")  # in the same session, which holds the data uploaded
    page.get_by_text("Open a model file").wait_for(timeout=120_000)
    wait_idle(page, timeout=180_000)
    page.get_by_text("Open a model file").click()
    page.locator('[data-testid="stExpander"] input[type="file"]').first.set_input_files(str(model_file))
    page.get_by_text(f"from mnist_tnt.json: {model.graph_.n_splits:,} splits").wait_for(timeout=120_000)
    wait_idle(page, timeout=120_000)
    chart = page.locator(".js-plotly-plot", has_text="Node #0:")
    chart.wait_for(timeout=60_000)
    chart.scroll_into_view_if_needed()
    shot(page, "inspect_6_mnist_node")
    shared = int(model.graph_.shared_nodes[np.argmax(model.graph_.n_node_samples[model.graph_.shared_nodes])])
    node = page.get_by_role("spinbutton", name="Node", exact=True)
    node.fill(str(shared))
    node.press("Enter")
    wait_idle(page)
    shared_chart = page.locator(".js-plotly-plot", has_text=f"Node #{shared}:")
    shared_chart.wait_for(timeout=60_000)
    shared_chart.get_by_text("through #").first.wait_for()
    shared_chart.scroll_into_view_if_needed()
    shot(page, "inspect_7_mnist_shared_node")

    for i, name in enumerate(["Test data", "What if?", "Counterfactual", "Rules"], start=8):
        open_view(page, name)
        page.get_by_text({"Test data": "Confusion matrix", "What if?": "Features to edit",
                          "Counterfactual": "To get class", "Rules": "leaves"}[name]).first.wait_for(timeout=60_000)  # fmt: skip
        wait_idle(page)
        page.locator('[data-testid="stHeading"]', has_text="Inspect").scroll_into_view_if_needed()
        shot(page, f"inspect_{i}_mnist_{name.split()[0].lower().strip('?')}")
    assert not errors, errors
