"""The documentation: the site builds with ``mkdocs build --strict``, its generated parts come from the
code and the benchmark's output, and the ``python`` code blocks of README.md and docs/ run as printed."""

import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"(<!-- skip-test: [^>]+-->\n)?```python\n(.*?)\n```", flags=re.S)
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")], key=lambda p: str(p.relative_to(ROOT)))


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def code_blocks(text: str) -> tuple[list[str], list[str]]:
    """The ``python`` blocks of a Markdown text: (to run, marked ``<!-- skip-test: why -->``)."""
    run, skipped = [], []
    for marker, code in BLOCK.findall(text):
        (skipped if marker else run).append(code)
    return run, skipped


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    return out, build


def test_the_site_builds_strictly_without_a_warning(site):
    out, build = site
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert "WARNING" not in build.stderr, build.stderr[-3000:]
    for page in ("index.html", "app/index.html", "api/estimators/index.html", "cli/index.html", "speed/index.html"):
        assert (out / page).exists(), page


def test_the_api_reference_renders_the_docstrings(site):
    out, _ = site
    html = (out / "api" / "estimators" / "index.html").read_text()
    assert "TnTClassifier" in html and "Pruning strength" in html and "NDGClassifier" in html
    assert ":class:" not in html  # Sphinx roles are shown as code


def test_the_command_line_reference_is_the_parsers_help(site):
    from tnt.cli import _parser

    out, _ = site
    html = (out / "cli" / "index.html").read_text()
    parser = _parser()
    (commands,) = [a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)]
    for name, command in commands.choices.items():
        assert f"tnt {name}" in html, name
        for action in command._actions:
            for option in action.option_strings:
                assert option in html, (name, option)


def test_the_speed_page_quotes_the_benchmark_file(site):
    out, _ = site
    html = (out / "speed" / "index.html").read_text()
    bench = (ROOT / "benchmarks" / "README.md").read_text()
    stamp = re.search(r"^## Latest run\n\n(\d{4}-\d\d-\d\d \d\d:\d\d UTC)", bench, flags=re.M).group(1)
    assert stamp in html
    rows = [line for line in bench.splitlines() if line.startswith("| fit ")]
    assert rows and all(row.split(" | ")[0].removeprefix("| ").split("`")[0] in html for row in rows)
    # The page itself types no figure: everything after its introduction is the included file.
    page = (ROOT / "docs" / "speed.md").read_text()
    assert not re.search(r"\d+(\.\d+)? (s|ms)\b", page)


def test_an_include_moves_headings_down_outside_code_blocks():
    hooks = _hooks()
    text = hooks.included("benchmarks/README.md")
    assert text.startswith("## Benchmarks\n") and "\n### Latest run\n" in text
    assert text.count("```") == (ROOT / "benchmarks" / "README.md").read_text().count("```")


def test_every_page_is_in_the_navigation_or_generated():
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def pages(nav):
        for item in nav:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from pages(value) if isinstance(value, list) else [value]

    listed = set(pages(config["nav"]))
    on_disk = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk - listed == {"paper/quick/README.md"}  # the quick run's report, linked from the full one
    # The pages the other parts of the project fill in exist, so that the navigation resolves.
    assert {"data-sets.md", "guide/deploy.md"} <= listed


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_code_blocks_run_as_printed(page, tmp_path, monkeypatch):
    """Each page's ``python`` blocks run in order in one namespace, in an empty folder."""
    run, _ = code_blocks(page.read_text())
    if not run:
        return
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        for code in run:
            exec(compile(code, str(page), "exec"), namespace)
    if page.name == "README.md":
        # The README says what its example prints and that it writes the README's picture.
        claim = re.search(r"It prints `([^`]+)`", page.read_text()).group(1)
        assert printed.getvalue().strip() == claim
        assert (tmp_path / "wine_graph.png").read_bytes().startswith(b"\x89PNG")
        assert (ROOT / "docs" / "images" / "wine_graph.png").exists()


def test_blocks_marked_to_skip_are_rare():
    skipped = {str(p.relative_to(ROOT)): len(code_blocks(p.read_text())[1]) for p in PAGES}
    assert {page: n for page, n in skipped.items() if n} == {"docs/guide/ensembles.md": 1}


def test_the_app_tour_shows_one_committed_screenshot_per_page():
    app = (ROOT / "app.py").read_text()
    titles = re.findall(r'st\.Page\("app_pages/\w+\.py", title="([^"]+)"', app)
    tour = (ROOT / "docs" / "app.md").read_text()
    images = re.findall(r"!\[The (.+?) page\]\((images/app/[\w-]+\.png)\)", tour)
    assert [title for title, _ in images] == titles
    for _, image in images:
        data = (ROOT / "docs" / image).read_bytes()
        assert data.startswith(b"\x89PNG")
        width = int.from_bytes(data[16:20], "big")
        assert width == 1440, (image, width)


def test_the_accuracy_guide_and_the_size_box_quote_the_accuracy_benchmark():
    """The default size's figures in the guide and in the Train page's Size help are those of
    ``docs/accuracy.md``'s table of the default against C alone (written by ``benchmarks/accuracy.py``)."""
    from ui.display import SIZE_HELP

    rows = {}
    for line in (ROOT / "docs" / "accuracy.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and cells[1] in ("default", "C alone"):
            rows[(cells[0], cells[1])] = cells
    assert len(rows) == 4, rows
    guide = (ROOT / "docs" / "guide" / "accuracy.md").read_text()
    for label, size in (('default (`ccp_alpha="auto"`)', "default"), ("C alone (`ccp_alpha=0.0`)", "C alone")):
        c, r = rows[("classification", size)], rows[("regression", size)]
        assert f"| {label} | {' | '.join(c[2:5])} | {' | '.join(r[2:5])} |" in guide
    c, r = rows[("classification", "default")], rows[("regression", "default")]
    assert f"test accuracy {c[5]} points on average, no pair more than {c[6].lstrip('-')} points lower" in guide
    assert f"regression R² {r[5]} (x 100) on average" in guide
    wins = [rows[("classification", size)][2].split(" /")[0] for size in ("default", "C alone")]
    assert (
        f"on {wins[0]} with the default (mean {c[3]} points) against {wins[1]} with C alone "
        f"({rows[('classification', 'C alone')][3]}), and its own test accuracy was {c[5]} points above"
    ) in SIZE_HELP
