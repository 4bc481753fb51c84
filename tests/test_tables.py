"""The app's tables (ui.tables): headers in words, numbers by kind, and columns that fit their frame,
long text wrapping onto rows tall enough for it."""

import math

import numpy as np
import pandas as pd
import pytest

from tnt.inspect.errors import error_leaves, node_scores
from tnt.inspect.reach import routes
from tnt.inspect.rules import leaf_rules
from ui.inspection import rules_measured_on
from ui.tables import CHAR_PX, ELLIPSIS, FRAME_PX, LINE_PX, MAX_LINES, PAD_PX, header, table_layout


def test_no_header_is_snake_case_and_known_ones_read_as_words():
    for name in ("train_samples", "test_errors", "tnt_test_acc", "train_precision", "other_train_samples"):
        assert "_" not in header(name)
    assert header("train_samples") == "training samples" and header("tnt_test_acc") == "TnT test accuracy"


def test_counts_are_whole_numbers_shares_percentages_and_scores_three_decimals():
    frame = pd.DataFrame({"splits": [135.0, 12.0], "test_share": [0.16, 0.1517], "test_accuracy": [0.9, 0.84],
                          "node": [3, 1019], "rule": ["a", None], "shared_nodes": [6, 11]})  # fmt: skip
    shown, config, _, _ = table_layout(frame, 1000)
    assert str(shown["splits"].dtype) == "Int64" and shown["splits"].tolist() == [135, 12]
    assert config["splits"]["type_config"]["format"] == "localized"
    assert config["node"]["type_config"]["format"] == "%d"  # an id: no thousands separator
    assert np.allclose(shown["test share"], [16.0, 15.17])
    assert config["test share"]["type_config"]["format"] == "%.1f %%"  # one rule for every share
    assert config["test accuracy"]["type_config"]["format"] == "%.3f"
    # A count whose name holds "share" is still a count, not a percentage.
    assert shown["nodes with several parents"].tolist() == [6, 11]


def fits(table, frame_px):
    """Whether ``table`` laid out for ``frame_px`` fits it and each text column holds its longest cell
    on the lines of a row; the number of text columns checked."""
    shown, config, row_height, widths = table_layout(table, frame_px)
    assert sum(widths.values()) <= frame_px
    lines = (row_height - 35) // LINE_PX + 1
    checked = 0
    for name in shown.columns:
        if pd.api.types.is_numeric_dtype(shown[name]):
            assert widths[name] >= len(name) * CHAR_PX + PAD_PX  # the header is never cut
            continue
        assert widths[name] >= len(name) * CHAR_PX + PAD_PX  # no header is cut, text or number
        longest = max([len(str(v)) for v in shown[name]] + [len(name)])
        assert math.ceil(longest * CHAR_PX / max(widths[name] - PAD_PX, 1)) <= lines
        checked += 1
    return checked


def test_the_graph_pages_tables_fit_the_page_and_their_rows_hold_the_longest_rule(digits_model):
    frame_px = FRAME_PX["full"]
    model, X, y, X_test, y_test = digits_model
    g = model.graph_
    train, test = routes(g, X), routes(g, X_test)
    yi, yti = np.searchsorted(model.classes_, y), np.searchsorted(model.classes_, y_test)
    checked, tables = 0, []
    rules = leaf_rules(g, train, yi, test, yti).rules
    # The Rules view shows the training or the test measures (as ui.inspection._rules chooses them).
    tables += [rules_measured_on(rules, part) for part in ("train", "test")]
    scores = node_scores(g, test, yti)
    scores["train_share"] = scores["train_samples"] / scores.loc[0, "train_samples"]
    scores["test_share"] = scores["test_samples"] / len(yti)
    for table in (*tables, error_leaves(g, test, yti, top=None), scores):
        checked += fits(table, frame_px)
    assert checked >= 5


def test_a_rule_longer_than_its_row_holds_ends_in_an_ellipsis_and_the_rest_is_kept_whole():
    # MNIST's rules run to 20+ conditions: more than MAX_LINES lines at any width of the frame.
    long = " and ".join(f"pixel_{i}_{i + 3} <= {i}.5" for i in range(40))
    rules = pd.DataFrame({"leaf": [7, 9], "prediction": ["3", "8"], "rule": [long, "pixel_1_2 > 0.5"]})
    shown, _, row_height, widths = table_layout(rules, FRAME_PX["full"])
    lines = (row_height - 35) // LINE_PX + 1
    assert lines == MAX_LINES and sum(widths.values()) <= FRAME_PX["full"]
    cut, short = shown["rule"]
    assert cut.endswith(ELLIPSIS) and long.startswith(cut[: -len(ELLIPSIS)])
    assert long[len(cut) - len(ELLIPSIS)] == " "  # cut between two conditions' words, not inside one
    assert math.ceil(len(cut) * CHAR_PX / (widths["rule"] - PAD_PX)) <= lines  # it fits the row's lines
    assert short == "pixel_1_2 > 0.5"  # a rule that fits is left whole
    assert rules["rule"].iloc[0] == long  # the caller's table is not changed


def test_rows_of_wrapped_text_are_tall_enough_for_the_grid_to_wrap_them():
    # Streamlit's grid wraps text only in rows taller than 4rem (64 px); a row of 2 lines is 56 px.
    from ui.tables import WRAPPING_ROW_PX

    two_lines = pd.DataFrame({"node": [0], "test": ["colour in {blue, green} or missing"], "value": ["missing"]})
    _, _, row_height, widths = table_layout(two_lines, 200)
    assert widths["test"] < len("colour in {blue, green} or missing") * CHAR_PX  # it wraps
    assert row_height >= WRAPPING_ROW_PX > 64
    _, _, one_line, _ = table_layout(two_lines, FRAME_PX["full"])
    assert one_line == 35  # a table whose text fits one line keeps the default row


def test_a_sample_path_fits_the_side_column(digits_model):
    from tnt.inspect.path import path_table, sample_path

    model, X, y, X_test, y_test = digits_model
    deepest = max(range(len(X_test)), key=lambda i: len(sample_path(model.graph_, X_test[i], None)))
    assert fits(path_table(sample_path(model.graph_, X_test[deepest], None)), FRAME_PX["side"]) == 3


@pytest.fixture(scope="module")
def digits_model():
    from sklearn.datasets import load_digits

    from tnt import TnTClassifier

    X, y = load_digits(return_X_y=True)
    model = TnTClassifier(C=1e-3, random_state=0).fit(X[:1200], y[:1200])
    return model, X[:1200], y[:1200], X[1200:], y[1200:]
