"""The project's set-up promises: README's commands and shape, CI, and the library's independence of the app."""

import os
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


def test_the_readme_links_only_to_files_in_the_repository():
    readme = (ROOT / "README.md").read_text()
    assert "ALGORITHM.md" not in readme
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert len(targets) >= 20  # the picture and the links into the documentation
    for target in targets:
        if "://" in target:
            continue
        assert not target.startswith(".."), target
        assert (ROOT / target).exists(), target


def test_the_readme_is_a_short_page_pointing_into_the_documentation():
    readme = (ROOT / "README.md").read_text()
    assert len(readme) < 12_000
    # Two sentences and a picture, the two commands, one library example of at most 15 lines, the command
    # line in three lines.
    (example,) = re.findall(r"```python\n(.+?)\n```", readme, flags=re.S)
    assert len(example.splitlines()) <= 15
    (command_line,) = re.findall(r"```text\n(.+?)\n```", readme, flags=re.S)
    assert [line.split()[:2] for line in command_line.splitlines()] == [
        ["tnt", "train"],
        ["tnt", "predict"],
        ["tnt", "info"],
    ]
    # Every page of the documentation's library guide is linked.
    for page in (ROOT / "docs" / "guide").glob("*.md"):
        if page.name != "deploy.md":  # reached from the exporting page
            assert f"(docs/guide/{page.name})" in readme, page.name


def test_one_version_number():
    import importlib.metadata
    import tomllib

    import tnt

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert importlib.metadata.version("tnt-explorer") == tnt.__version__


def test_the_library_depends_on_no_app_or_drawing_package():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=\[ ]", d)[0] for d in project["dependencies"]}
    assert names == {"numpy", "scipy", "scikit-learn", "numba", "pandas"}
    extras = project["optional-dependencies"]
    assert any(d.startswith("streamlit>=1.56") for d in extras["app"])  # st.iframe


def test_the_build_compiles_with_the_numba_the_install_gets():
    # setup.py compiles the kernels in pip's build environment: its packages are the library's own
    # but pandas, which the warm-up does not need (the test below).
    import tomllib

    toml = tomllib.loads((ROOT / "pyproject.toml").read_text())
    build = [d for d in toml["build-system"]["requires"] if not d.startswith("setuptools")]
    assert build == [d for d in toml["project"]["dependencies"] if not d.startswith("pandas")]


def test_the_install_compiles_every_kernel_without_pandas():
    # pip's build environment has no pandas (pyproject.toml): the kernels an install compiles (all of
    # them, as TNT_COMPILE_AT_INSTALL=all asks, in one process) must not import it.
    code = (
        "import sys\n"
        "class NoPandas:  # `import pandas` fails as where pandas is not installed\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'pandas':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NoPandas())\n"
        "from tnt.warmup import load_compiled_code\n"
        "load_compiled_code()\n"
        "print(sorted(name for name in sys.modules if 'pandas' in name))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def install_step(monkeypatch, tmp_path, editable=False, exit_code=0, sources=None):
    """setup.py's build_py on a package built into ``tmp_path``, with setuptools' own copying and the
    warm-up process replaced by records of what they would do (the real compiling at install is
    checked by .ci/smoke_installed.py after a real `pip install`). The sources are a folder without
    a compiled cache (``sources``, or an empty one) for a non-editable build, the repository for an
    editable one."""
    import importlib.util

    from setuptools import Distribution

    spec = importlib.util.spec_from_file_location("tnt_setup", ROOT / "setup.py")
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    if not editable:
        sources = sources or tmp_path.parent / f"{tmp_path.name}-sources"
        monkeypatch.setattr(setup, "__file__", str(sources / "setup.py"))
    monkeypatch.setattr(setup.build_py, "run", lambda self: None)
    calls = []

    def warm_up(args, cwd, env):
        calls.append((args, Path(cwd), env))
        if Path(cwd) == tmp_path:  # never in the repository's own tnt/
            cache = tmp_path / "tnt" / "learn" / "__pycache__"
            cache.mkdir(parents=True, exist_ok=True)
            (cache / "k-1.py311.nbi").touch()
            (cache / "k-1.py311.nbi.lock").touch()
        return subprocess.CompletedProcess(args, exit_code)

    monkeypatch.setattr(setup.subprocess, "run", warm_up)
    command = setup.build_py_and_compile(Distribution({"name": "tnt-explorer"}))
    command.initialize_options()
    command.build_lib, command.editable_mode = str(tmp_path), editable
    command.run()
    return calls


def test_pip_install_compiles_the_kernels_of_the_package_it_builds(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.delenv("TNT_COMPILE_AT_INSTALL", raising=False)
    earlier = tmp_path / "tnt" / "learn" / "__pycache__"  # an earlier build's code, from older sources
    earlier.mkdir(parents=True)
    (earlier / "k-0.py311.nbi").touch()
    (earlier / "k-0.py311.1.nbc").touch()
    ((args, cwd, env),) = install_step(monkeypatch, tmp_path)
    # Every kernel but the threaded copies of the fit kernel (tnt.learn.threaded_copies).
    assert args == [sys.executable, "-m", "tnt.warmup", "--install"] and cwd == tmp_path
    assert not any(key.startswith("NUMBA_") for key in env)  # the cache goes into the package, not elsewhere
    cache = tmp_path / "tnt" / "learn" / "__pycache__"
    # Only the code just compiled is installed: not the write locks, nor an earlier build's code.
    assert [p.name for p in cache.iterdir()] == ["k-1.py311.nbi"]


def test_pip_install_after_an_editable_install_copies_its_compiled_code(monkeypatch, tmp_path):
    monkeypatch.delenv("TNT_COMPILE_AT_INSTALL", raising=False)
    sources, built = tmp_path / "source", tmp_path / "build"
    cache = sources / "tnt" / "learn" / "__pycache__"
    cache.mkdir(parents=True)
    for name in ("k-2.py311.nbi", "k-2.py311.1.nbc", "routing.cpython-311.pyc"):
        (cache / name).write_text(name)
    (sources / "tnt" / "gone" / "__pycache__").mkdir(parents=True)  # a folder the build does not hold
    (sources / "tnt" / "gone" / "__pycache__" / "k-3.py311.nbi").write_text("x")
    (built / "tnt" / "learn").mkdir(parents=True)
    ((_, cwd, _),) = install_step(monkeypatch, built, sources=sources)
    assert cwd == built  # the warm-up still runs, and loads what was copied
    copied = built / "tnt" / "learn" / "__pycache__"
    assert sorted(p.name for p in copied.iterdir()) == ["k-1.py311.nbi", "k-2.py311.1.nbc", "k-2.py311.nbi"]
    assert (copied / "k-2.py311.1.nbc").read_text() == "k-2.py311.1.nbc"
    assert not (built / "tnt" / "gone").exists()


def test_an_editable_install_compiles_beside_the_sources(monkeypatch, tmp_path):
    monkeypatch.delenv("TNT_COMPILE_AT_INSTALL", raising=False)
    ((_, cwd, _),) = install_step(monkeypatch, tmp_path, editable=True)
    assert cwd == ROOT


def test_compiling_every_copy_at_install_is_a_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("TNT_COMPILE_AT_INSTALL", "all")
    ((args, _, _),) = install_step(monkeypatch, tmp_path)
    assert args == [sys.executable, "-m", "tnt.warmup"]


def test_compiling_at_install_can_be_skipped_and_never_fails_the_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TNT_COMPILE_AT_INSTALL", "0")
    assert install_step(monkeypatch, tmp_path) == []
    monkeypatch.delenv("TNT_COMPILE_AT_INSTALL")
    assert len(install_step(monkeypatch, tmp_path, exit_code=1)) == 1
    assert "compiled on first use instead" in capsys.readouterr().err


def test_the_bundled_data_is_package_data():
    from tnt.data import datasets

    assert datasets.SAMPLE_DATA.is_relative_to(ROOT / "tnt")
    for entry in datasets.catalog():
        assert (datasets.SAMPLE_DATA / entry["file"]).exists()


def test_the_documentations_dask_example_runs_as_printed(tmp_path):
    page = (ROOT / "docs" / "guide" / "ensembles.md").read_text()
    (example,) = [block for block in re.findall(r"```python\n(.+?)\n```", page, flags=re.S) if "LocalCluster" in block]
    script = tmp_path / "dask_sweep.py"
    script.write_text(example)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "tnt_splits_mean" in out.stdout and "[4 rows x" in out.stdout  # one row per value of C


def test_ruff_finds_nothing():
    ruff = Path(sys.executable).parent / "ruff"
    for command in (["check", "."], ["format", "--check", "."]):
        out = subprocess.run([str(ruff), *command], capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]


def _imported(path: Path) -> set[str]:
    """The modules ``path`` imports, at its top or inside a function."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_inspection_and_drawing_import_each_other_one_way():
    # tnt.viz draws what tnt.inspect computes; both write numbers and tests through tnt.wording.
    for path in (ROOT / "tnt" / "inspect").rglob("*.py"):
        assert not {n for n in _imported(path) if n == "tnt.viz" or n.startswith("tnt.viz.")}, path
    assert not {n for n in _imported(ROOT / "tnt" / "wording.py") if n.startswith("tnt")}
