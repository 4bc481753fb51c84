"""The project's set-up promises: README's commands, CI, and the library's independence of the app."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands():
    return re.findall(r"```bash\n(.+?)\n```", (ROOT / "README.md").read_text(), flags=re.S)[:2]


def test_readme_gives_an_app_command_and_a_test_command():
    app, tests = readme_commands()
    assert "streamlit run app.py" in app and "pip install" in app
    assert "pytest" in tests and "pip install" in tests and "[test]" in tests


def test_ci_runs_the_readme_test_command_verbatim():
    _, tests = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert tests in ci


def test_library_never_imports_streamlit():
    code = "import sys, tnt, tnt.graph, tnt.estimator, tnt.baselines; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"
    for path in (ROOT / "tnt").rglob("*.py"):
        assert "import streamlit" not in path.read_text(), path


def test_the_app_never_shows_a_stack_trace_nor_sends_usage_statistics():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] in ("type", "none")
    assert config["browser"]["gatherUsageStats"] is False
