"""The browser suites' own helpers (``browser_helpers.py``), where a failure would hide a cause."""

import pytest
from browser_helpers import running_server


def test_a_test_failing_while_the_server_runs_reports_the_servers_last_words(capsys):
    with pytest.raises(AssertionError, match="a check that fails"):
        with running_server("helpers_failing_test.log"):
            raise AssertionError("a check that fails")
    report = capsys.readouterr().err
    assert "--- the last lines of test-artifacts/helpers_failing_test.log ---" in report
    # What streamlit printed once it was serving.
    assert "Streamlit app" in report.split("---")[-1], report


def test_a_test_passing_prints_nothing_of_the_server(capsys):
    with running_server("helpers_passing_test.log") as (url, process):
        assert process.poll() is None and url.startswith("http://127.0.0.1:")
    assert "the last lines" not in capsys.readouterr().err
