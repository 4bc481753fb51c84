"""Reading a CSV file a user uploads: bytes in, a table out, or one plain sentence saying what is
wrong (:class:`tnt.datasets.DataError`).

Checks, in order: empty file, binary or spreadsheet file, text encoding (UTF-8), delimiter
(sniffed among ``, ; tab |``), header (duplicate names), size limits, rows of the wrong length,
at least two columns and one data row. The checks that depend on the chosen columns (missing
values, text, constants, the class column) are :func:`tnt.datasets.make_dataset`'s.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass

import pandas as pd

from .datasets import DataError

__all__ = ["Limits", "UploadedTable", "read_csv_bytes"]

_MAGIC = {
    b"PK\x03\x04": "a ZIP archive or an Excel workbook",
    b"\xd0\xcf\x11\xe0": "an old Excel or Word file",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"\x1f\x8b": "a gzip archive",
}


@dataclass(frozen=True)
class Limits:
    """Size limits for an uploaded table."""

    max_bytes: int = 50_000_000
    max_rows: int = 200_000
    max_columns: int = 500


@dataclass(frozen=True, eq=False)
class UploadedTable:
    """A parsed upload: the table, its name and a hash of its bytes (used in data set keys)."""

    name: str
    frame: pd.DataFrame
    digest: str
    delimiter: str


def read_csv_bytes(data: bytes, name: str = "upload.csv", limits: Limits = Limits()) -> UploadedTable:
    """Parse an uploaded CSV file.

    Raises
    ------
    DataError
        When the bytes are not a usable CSV table, with one sentence saying what to do.

    Examples
    --------
    >>> table = read_csv_bytes(b"a;b;label\\n1;2;x\\n3;4;y\\n")
    >>> table.frame.shape, table.delimiter
    ((2, 3), ';')
    """
    if len(data) > limits.max_bytes:
        raise DataError(
            f"The file is {len(data) / 1e6:.0f} MB; the app reads at most {limits.max_bytes / 1e6:.0f} MB, "
            "so upload a sample of the rows."
        )
    if not data.strip():
        raise DataError("The file is empty; upload a CSV file with a header row and at least one data row.")
    for magic, kind in _MAGIC.items():
        if data.startswith(magic):
            raise DataError(f"This file is {kind}, not a CSV file; save the table as CSV (UTF-8) and upload that.")
    if b"\x00" in data[:65536]:
        raise DataError("This file is binary, not a CSV text file; save the table as CSV (UTF-8) and upload that.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise DataError(
            f"The file is not UTF-8 text (byte 0x{data[err.start]:02x} at position {err.start}); "
            "save it as 'CSV UTF-8' and upload it again."
        ) from None
    delimiter = _sniff_delimiter(text)
    header = next(csv.reader(io.StringIO(text), delimiter=delimiter), [])
    header = [h.strip() for h in header]
    if len(header) > limits.max_columns:
        raise DataError(
            f"The file has {len(header)} columns; the app takes at most {limits.max_columns}, "
            "so keep only the columns you need."
        )
    if len(header) < 2:
        raise DataError(
            "Only one column was found, so this does not look like a table of features and a class; "
            "upload a CSV file with a header row and columns separated by commas or semicolons."
        )
    if any(h == "" for h in header):
        raise DataError("A column in the header row has no name; name every column and upload the file again.")
    seen = set()
    for h in header:
        if h in seen:
            raise DataError(f"Two columns are named '{h}'; give every column its own name and upload again.")
        seen.add(h)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise DataError("The file is empty; upload a CSV file with a header row and at least one data row.") from None
    except pd.errors.ParserError as err:
        raise DataError(
            f"Some rows do not have as many fields as the header ({_parser_detail(err)}); fix those rows "
            "and upload again."
        ) from None
    frame.columns = header
    if frame.empty:
        raise DataError("The file has a header row but no data rows; add the data and upload it again.")
    if len(frame) > limits.max_rows:
        raise DataError(
            f"The file has {len(frame):,} rows; the app takes at most {limits.max_rows:,}, so upload a sample."
        )
    return UploadedTable(name=name, frame=frame, digest=hashlib.sha256(data).hexdigest()[:16], delimiter=delimiter)


def _sniff_delimiter(text: str) -> str:
    sample = "\n".join(text[:65536].splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def _parser_detail(err: Exception) -> str:
    message = str(err).strip().splitlines()[-1]
    # pandas: "Error tokenizing data. C error: Expected 3 fields in line 4, saw 5"
    return message.split("error: ")[-1].split("Error: ")[-1]
