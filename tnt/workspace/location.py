"""Where the workspace store lives and how large it may grow: environment variables and defaults."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ENV_DIR", "ENV_MAX_MB", "DEFAULT_MAX_MB", "DB_NAME", "default_folder", "default_max_bytes"]

#: Environment variable naming the store's folder.
ENV_DIR = "TNT_WORKSPACE_DIR"
#: Environment variable giving the store's size limit in MB.
ENV_MAX_MB = "TNT_WORKSPACE_MAX_MB"
#: Size limit of the stored models and data when nothing else is said, in MB.
DEFAULT_MAX_MB = 500
#: The database file inside the folder (SQLite adds ``-wal`` and ``-shm`` files beside it).
DB_NAME = "workspaces.sqlite3"


def default_folder(environ=None) -> Path:
    """The store's folder: ``$TNT_WORKSPACE_DIR``, else ``$XDG_DATA_HOME/tnt-explorer``, else
    ``~/.local/share/tnt-explorer``.

    Examples
    --------
    >>> str(default_folder({"TNT_WORKSPACE_DIR": "/tmp/ws"}))
    '/tmp/ws'
    >>> str(default_folder({"XDG_DATA_HOME": "/data"}))
    '/data/tnt-explorer'
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV_DIR):
        return Path(environ[ENV_DIR]).expanduser()
    xdg = environ.get("XDG_DATA_HOME", "")
    base = (
        Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    )  # XDG: relative ones are ignored
    return base / "tnt-explorer"


def default_max_bytes(environ=None) -> int:
    """The size limit in bytes: ``$TNT_WORKSPACE_MAX_MB`` megabytes, else :data:`DEFAULT_MAX_MB`.

    Raises
    ------
    ValueError
        When the variable is not a positive number.

    Examples
    --------
    >>> default_max_bytes({"TNT_WORKSPACE_MAX_MB": "2"})
    2000000
    """
    environ = os.environ if environ is None else environ
    text = environ.get(ENV_MAX_MB, "")
    if not text:
        return DEFAULT_MAX_MB * 1_000_000
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"{ENV_MAX_MB} must be a positive number of megabytes, got {text!r}.")
    return int(value * 1_000_000)
