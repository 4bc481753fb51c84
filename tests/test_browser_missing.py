"""End to end, in Debian's chromium: a CSV with empty cells through the real uploader. The Data page
counts the missing values of each column and uses the table as it is; dropping the rows that have
them stays an option, after which TnT trains and the Graph page draws a sample's path."""

import numpy as np
import pandas as pd
import pytest
from browser_helpers import HIGHLIGHT, nav, running_server, shot, wait_idle

pytestmark = pytest.mark.browser


def holes_csv(folder):
    """200 rows: a number and a text column with empty cells, a full number column, a class."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.normal(40, 10, 200).round(1), "colour": rng.choice(["red", "blue"], 200),
                          "score": rng.normal(size=200).round(3)})  # fmt: skip
    frame["label"] = np.where(frame["age"] + 10 * frame["score"] > 40, "yes", "no")
    frame.loc[rng.random(200) < 0.1, "age"] = np.nan
    frame.loc[rng.random(200) < 0.1, "colour"] = None
    path = folder / "holes.csv"
    frame.to_csv(path, index=False)  # missing values written as empty cells
    return path, frame


def test_a_csv_with_empty_cells_is_used_as_it_is(browser, tmp_path):
    path, frame = holes_csv(tmp_path)
    n_age, n_colour = int(frame["age"].isna().sum()), int(frame["colour"].isna().sum())
    with running_server("streamlit_missing.log") as (url, _):
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        page.get_by_text("In use:").wait_for(timeout=60_000)
        page.locator('input[type="file"]').set_input_files(str(path))
        page.get_by_text("Missing values (empty cells) in 2 of the 4 columns").wait_for(timeout=30_000)
        page.get_by_role("button", name="Use this data").click()
        page.get_by_text("In use: holes.csv").wait_for(timeout=30_000)
        page.get_by_text(f"{n_age + n_colour} feature values are missing, in 2 of the columns").wait_for()
        page.get_by_text("Missing values in 2 of the 3 features").wait_for()
        wait_idle(page)
        shot(page, "missing_1_data")

        # Dropping the rows with an empty cell is still offered; then TnT trains and draws a path.
        page.get_by_test_id("stCheckbox").get_by_text("Drop rows with missing values").click()
        page.get_by_role("button", name="Use this data").click()
        page.get_by_text(f"Dropped {int(frame.drop(columns='label').isna().any(axis=1).sum())} rows").wait_for(
            timeout=30_000
        )
        wait_idle(page)
        nav(page, "Graph")
        chart = '[data-testid="stGraphVizChart"] svg'
        page.locator(f"{chart} g.node").first.wait_for(timeout=120_000)
        page.locator(f'{chart} g.node path[stroke="{HIGHLIGHT}"]').nth(1).wait_for()
        shot(page, "missing_2_graph")


def test_tnt_learns_from_empty_cells_and_draws_a_path_through_a_missing_value(browser, tmp_path):
    """The table used as it is (no row dropped): TnT trains on it, and the Graph page draws the path of a
    test sample whose value of a tested feature is missing, through the split that sends it on by the
    learned direction. The sample is found with the library on the same data and settings."""
    from tnt.data.csv_loader import read_csv_bytes
    from tnt.data.sources import dataset_from_source, upload_source
    from tnt.inspect.path import sample_path
    from tnt.services.training import TrainParams

    path, frame = holes_csv(tmp_path)
    raw = path.read_bytes()
    features = [c for c in frame.columns if c != "label"]
    data = dataset_from_source(
        upload_source(raw, "holes.csv", target="label", features=features), read_csv_bytes(raw, "holes.csv")
    )
    assert np.isnan(data.X_train).any()  # nothing was dropped
    model = TrainParams().estimator().fit(data.X_train, data.y_train)
    assert model.graph_.missing_in_training
    index, step = next(
        (i, s)
        for i in range(len(data.y_test))
        for s in sample_path(model.graph_, data.X_test[i], data.feature_names)
        if s.missing
    )
    feature = step.rule.split(" ")[0]
    with running_server("streamlit_missing_path.log") as (url, _):
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        page.get_by_text("In use:").wait_for(timeout=60_000)
        page.locator('input[type="file"]').set_input_files(str(path))
        page.get_by_role("button", name="Use this data").click()
        page.get_by_text("In use: holes.csv").wait_for(timeout=30_000)
        wait_idle(page)
        nav(page, "Graph")
        chart = '[data-testid="stGraphVizChart"] svg'
        page.locator(f"{chart} g.node").first.wait_for(timeout=120_000)
        sample = page.get_by_role("spinbutton", name="Test sample", exact=True)
        sample.fill(str(index))
        sample.press("Enter")
        page.get_by_text(f"Sample #{index}").wait_for()
        wait_idle(page)
        # The split the sample passes with its missing value is on the highlighted path, and the path's
        # node or edge there says where missing values go.
        lit = page.locator(f'[stroke="{HIGHLIGHT}"]')
        nodes = page.locator(f"{chart} g.node", has=lit).all_text_contents()
        edges = page.locator(f"{chart} g.edge", has=lit).all_text_contents()
        assert any(feature in t for t in nodes), nodes
        assert any("missing" in t for t in nodes + edges), (nodes, edges)
        shot(page, "missing_3_path_through_missing_value")
