"""Validated reading of data files: one byte reader, a strict CSV reader and field parsers.

:func:`read_bytes` is the one reader of every data file (roll-call CSVs and UN documents
alike). :func:`read_csv` reads a UTF-8 CSV with one record per line (RFC 4180 quoting, no
line breaks inside fields): a stray or unbalanced quote, a row with too few or too many
fields, a duplicated column all stop the load instead of shifting or swallowing rows. The
``parse_*`` functions turn string columns into typed arrays. Every problem raises
:class:`~assembly_gym.core.errors.DataError` naming the file, the line, the field and what
was expected.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import Country, CountryTable

__all__ = [
    "field_error",
    "parse_codes",
    "parse_dates",
    "parse_flag",
    "parse_int",
    "read_bytes",
    "read_csv",
    "require_values",
    "resolve_countries",
]

_MISSING = ("", "NA", "NaN", "nan", "null", "None")  # spellings of a missing value
_INTEGER = r"[+-]?[0-9]{1,15}(?:\.0*)?"  # 15 digits stay exact in float64
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)?"
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 22  # bytes decompressed at a time

MAX_INFLATED_BYTES = 256 * 2**20
"""Most bytes a gzip data file may inflate to: 256 MiB (268,435,456 bytes).

About 16 times the largest real file (``un_votes.csv.gz``: 2.4 MB that inflates to
16,944,184 bytes), small enough that a decompression bomb stops long before it fills the
memory. Plain files are not capped: their size on disk is their size.
"""


def read_bytes(path: Path) -> bytes:
    """A data file's content, gunzipped when it starts with the gzip magic bytes.

    Args:
        path: the file (plain or gzip, whatever its name).

    Returns:
        The (decompressed) bytes: never empty, nor only white space and a byte-order mark.

    Raises:
        DataError: naming the file: the path is a folder or missing, cannot be read, is
            named ``*.gz`` without being gzip, holds a corrupt or truncated gzip stream (at
            the line of the decompressed text where it breaks), inflates past
            :data:`MAX_INFLATED_BYTES` (found after inflating at most that much), or is empty
            (before or after decompression; at line 1).
    """
    if path.is_dir():
        raise DataError(path, "is a folder, expected a file")
    if not path.is_file():
        raise DataError(path, "file not found")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise DataError(path, f"cannot read the file ({error})") from error
    if _blank(raw):
        raise DataError(path, "empty file: expected content, found only white space", row=1)
    if raw[:2] == _GZIP_MAGIC:
        raw = _gunzip(path, raw)
        if _blank(raw):
            raise DataError(path, "empty file after decompression", row=1)
    elif path.suffix == ".gz":
        raise DataError(
            path,
            "corrupt or truncated gzip data: not a valid gzip file (the name ends in .gz, "
            "the content lacks the gzip magic bytes)",
            row=1,
        )
    return raw


def _blank(raw: bytes) -> bool:
    return not raw.removeprefix(codecs.BOM_UTF8).strip()


def _gunzip(path: Path, raw: bytes) -> bytes:
    """Decompressed ``raw``, inflated chunk by chunk up to :data:`MAX_INFLATED_BYTES`.

    A corrupt stream is an error at the line where it breaks; a stream that would inflate
    past the limit is an error once one byte more than the limit has come out.
    """
    limit = MAX_INFLATED_BYTES
    chunks: list[bytes] = []
    size = 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
            while chunk := stream.read(min(_CHUNK, limit + 1 - size)):
                size += len(chunk)
                if size > limit:
                    raise DataError(
                        path,
                        f"gzip data inflates past {limit:,} bytes, the most a data file may "
                        "hold (MAX_INFLATED_BYTES): a decompression bomb, or a file too large "
                        "to load",
                    )
                chunks.append(chunk)
    except (OSError, EOFError, zlib.error) as error:
        line = sum(chunk.count(b"\n") for chunk in chunks) + 1
        raise DataError(
            path,
            "corrupt or truncated gzip data at or after this line: not a valid gzip file "
            f"({type(error).__name__}: {error})",
            row=line,
        ) from error
    return b"".join(chunks)


# --------------------------------------------------------------------------------------
# CSV layout
# --------------------------------------------------------------------------------------

_LF, _CR, _QUOTE, _COMMA = 10, 13, 34, 44


def _not_utf8(path: Path, raw: bytes) -> DataError:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        byte = raw[error.start : error.start + 1]
        return DataError(path, f"not UTF-8 text (byte {byte!r}: {error.reason})", row=line)
    return DataError(path, "not UTF-8 text")


def _scan_csv(path: Path, raw: bytes, required: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Header names and the file line of every data record, after checking the layout.

    Lines end in LF, CRLF or CR; blank lines are skipped. The header must hold every
    required column once, quotes must be balanced on each line (:func:`_delimiters`) and
    every data line must have as many fields as the header. Vectorised over the bytes, so
    it costs little next to parsing.
    """
    data = np.frombuffer(raw, dtype=np.uint8)
    carriage = np.flatnonzero(data == _CR)
    next_byte = data[np.minimum(carriage + 1, data.size - 1)]
    lone = carriage[(next_byte != _LF) | (carriage == data.size - 1)]
    ends = np.flatnonzero(data == _LF)
    if lone.size:  # old Mac line ends: CR not followed by LF
        ends = np.sort(np.concatenate((ends, lone)))
    starts = np.concatenate(([0], ends + 1))
    length = np.append(ends, data.size) - starts
    first_byte = data[np.minimum(starts, data.size - 1)]
    content = np.flatnonzero((length > 1) | ((length == 1) & (first_byte != _CR)))

    header_at = int(content[0])
    try:
        header = raw[starts[header_at] : starts[header_at] + length[header_at]].decode("utf-8")
    except UnicodeDecodeError:
        raise _not_utf8(path, raw) from None
    names = [name.strip() for name in next(csv.reader([header.rstrip("\r")]), [])]
    missing = [c for c in required if c not in names]
    if missing:
        raise DataError(
            path,
            f"missing column; expected columns {list(required)}, found {names}",
            row=header_at + 1,
            field=missing[0],
        )
    repeated = [name for i, name in enumerate(names) if name and name in names[:i]]
    if repeated:
        raise DataError(
            path, "column appears twice in the header", row=header_at + 1, field=repeated[0]
        )

    delimiters = _delimiters(path, data, starts, ends, names)
    n_fields = np.bincount(np.searchsorted(ends, delimiters), minlength=starts.size) + 1
    records = content[1:]
    wrong = n_fields[records] != len(names)
    if wrong.any():
        line_index = int(records[np.argmax(wrong)])
        found = int(n_fields[line_index])
        raise DataError(
            path,
            f"{found} fields where the header has {len(names)}",
            row=line_index + 1,
            field=names[found] if found < len(names) else None,
        )
    return names, records + 1


def _delimiters(
    path: Path, data: np.ndarray, starts: np.ndarray, ends: np.ndarray, names: list[str]
) -> np.ndarray:
    """Positions of the commas that separate fields (not those inside quoted fields).

    The parity of the quotes before a byte tells whether it is inside a quoted field, as
    long as every quote opens a field, closes it or is doubled inside it (RFC 4180). A stray
    quote, or a quoted field left open at the end of its line, would make a parser swallow
    the rows that follow: both are errors here, reported at the first one in the file.
    """
    quotes = np.flatnonzero(data == _QUOTE)
    commas = np.flatnonzero(data == _COMMA)
    delimiters = commas[np.searchsorted(quotes, commas) % 2 == 0]
    if quotes.size == 0:
        return delimiters
    last = data.size - 1
    before = np.where(quotes > 0, data[np.maximum(quotes - 1, 0)], _LF)
    after = np.where(quotes < last, data[np.minimum(quotes + 1, last)], _LF)
    opening = np.arange(quotes.size) % 2 == 0
    ok_before = np.isin(before, (_COMMA, _LF, _CR, _QUOTE))
    ok_after = np.isin(after, (_COMMA, _LF, _CR, _QUOTE))
    stray = np.where(opening, ~ok_before, ~ok_after)
    open_at_end = np.searchsorted(quotes, ends) % 2 == 1
    problems = []
    if stray.any():
        problems.append(
            (
                quotes[np.argmax(stray)],
                "stray quote: a quote must open or close a field, "
                "or be doubled inside a quoted field",
            )
        )
    if open_at_end.any():
        problems.append(
            (
                ends[np.argmax(open_at_end)],
                "quoted field not closed on its line (unbalanced "
                "quote?): the rows after it would be swallowed",
            )
        )
    if quotes.size % 2:
        problems.append((quotes[-1], "quoted field never closed (unbalanced quote)"))
    if not problems:
        return delimiters
    position, problem = min(problems, key=lambda p: p[0])
    line_index = int(np.searchsorted(ends, position))
    column = int(
        np.searchsorted(delimiters, position) - np.searchsorted(delimiters, starts[line_index])
    )
    field_name = names[column] if column < len(names) else f"column {column + 1}"
    raise DataError(path, problem, row=line_index + 1, field=field_name)


def read_csv(
    path: Path,
    required: Sequence[str],
    *,
    raw: bytes | None = None,
    allow_empty: bool = False,
) -> pd.DataFrame:
    """Read a (possibly gzip) UTF-8 CSV as strings, indexed by file line number.

    Checks the layout (:func:`_scan_csv`) before parsing and that the parser returned
    exactly one row per data line, so that no row can be lost or shifted silently.

    Args:
        path: the file.
        required: columns the header must hold.
        raw: the file's content when :func:`read_bytes` already read it (None: read it).
        allow_empty: a header without data rows is a valid, empty table (else an error).

    Returns:
        Every field as a string, shape (n_rows, n_columns), indexed by file line (header
        is line 1).

    Raises:
        DataError: naming the file, line and field of the first problem found.
    """
    raw = read_bytes(path) if raw is None else raw
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    names, lines = _scan_csv(path, raw, required)
    if lines.size == 0 and not allow_empty:
        raise DataError(path, "no data rows: expected at least one row after the header", row=2)
    try:
        frame = pd.read_csv(
            io.BytesIO(raw),
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            index_col=False,
            encoding="utf-8",
        )
    except UnicodeDecodeError:
        raise _not_utf8(path, raw) from None
    except (pd.errors.ParserError, ValueError) as error:
        raise DataError(path, f"not a readable CSV ({error})") from error
    if len(frame) != lines.size or frame.shape[1] != len(names):
        raise DataError(
            path, f"parsed {frame.shape} from {lines.size} data lines of {len(names)} fields"
        )
    frame.columns = names
    frame.index = lines
    return frame


# --------------------------------------------------------------------------------------
# Fields
# --------------------------------------------------------------------------------------


def field_error(
    path: Path, values: pd.Series, bad: pd.Series | np.ndarray, name: str, problem: str
) -> DataError:
    """The error at the first ``bad`` row of a column read by :func:`read_csv`.

    Args:
        path: the file.
        values: the column, indexed by file line, shape (n_rows,).
        bad: which rows are wrong, shape (n_rows,) bool; at least one is True.
        name: the field.
        problem: what is wrong; may use ``{value!r}``, the first bad row's value.

    Returns:
        The error (to raise), at that row's line and the field.
    """
    i = int(np.flatnonzero(np.asarray(bad))[0])
    return DataError(
        path, problem.format(value=values.iloc[i]), row=int(values.index[i]), field=name
    )


def require_values(path: Path, frame: pd.DataFrame, columns: Iterable[str]) -> None:
    """Check that ``columns`` of ``frame`` hold a value on every row.

    Raises:
        DataError: at the first empty or NA-like value (``NA``, ``NaN``, ``null``, …).
    """
    for name in columns:
        blank = frame[name].str.strip().isin(_MISSING)
        if blank.any():
            raise field_error(
                path, frame[name], blank, name, "missing value (NaN or empty): {value!r}"
            )


def parse_int(
    path: Path, values: pd.Series, name: str, *, minimum: int | None = None
) -> np.ndarray:
    """Integers (``3`` or ``3.0``, up to 15 digits), shape (n_rows,) int64.

    Args:
        path: the file, named in errors.
        values: the column, indexed by file line, shape (n_rows,).
        name: the field.
        minimum: the smallest value allowed (None: any).

    Raises:
        DataError: at the first value that is not such an integer, or is below ``minimum``.
    """
    text = values.str.strip()
    bad = ~text.str.fullmatch(_INTEGER)
    if bad.any():
        raise field_error(path, values, bad, name, "expected an integer, got {value!r}")
    numbers = text.astype("float64").to_numpy(dtype=np.int64)
    if minimum is not None and (numbers < minimum).any():
        problem = f"expected an integer ≥ {minimum}, got {{value!r}}"
        raise field_error(path, values, numbers < minimum, name, problem)
    return numbers


def parse_flag(path: Path, values: pd.Series, name: str) -> np.ndarray:
    """0/1 flags where empty means "not coded", shape (n_rows,) float64: 0.0, 1.0 or NaN.

    Raises:
        DataError: at the first value that is not 0, 1 or empty.
    """
    text = values.str.strip()
    bad = ~text.str.fullmatch(r"(?:[01](?:\.0*)?)?")
    if bad.any():
        raise field_error(path, values, bad, name, "expected 0, 1 or empty, got {value!r}")
    return text.where(text != "").astype("float64").to_numpy(dtype=np.float64)


def parse_dates(path: Path, values: pd.Series, name: str) -> pd.Series:
    """ISO dates (YYYY-MM-DD, optionally with a time), shape (n_rows,) datetime64.

    Raises:
        DataError: at the first value that is not such a date.
    """
    text = values.str.strip()
    dates = pd.to_datetime(text.where(text.str.fullmatch(_DATE)), errors="coerce", format="ISO8601")
    bad = dates.isna()
    if bad.any():
        raise field_error(path, values, bad, name, "expected a date YYYY-MM-DD, got {value!r}")
    return dates


def parse_codes(path: Path, values: pd.Series, codes: Mapping[str, int], name: str) -> np.ndarray:
    """Vote codes mapped by ``codes`` (spelling → code), shape (n_rows,) int8.

    Raises:
        DataError: at the first spelling ``codes`` does not know.
    """
    found, distinct = pd.factorize(values.str.strip(), use_na_sentinel=False)
    known = np.array([str(code) in codes for code in distinct], dtype=bool)
    if not known.all():
        expected = ", ".join(repr(k) for k in codes)
        raise field_error(
            path,
            values,
            ~known[found],
            name,
            f"unknown vote code {{value!r}}; expected one of {expected}",
        )
    lookup = np.array([codes[str(code)] for code in distinct], dtype=np.int8)
    return lookup[found]


def resolve_countries(
    path: Path, names: pd.Series, codes: pd.Series, table: CountryTable
) -> tuple[tuple[Country, ...], np.ndarray, tuple[str, ...]]:
    """Countries in order of appearance, the country row of each record, unmatched names.

    A record is matched by name, else by code; an unmatched name becomes its own country
    (named as written) and is reported, never dropped. A code the table does not know is
    left aside; a code the table knows must name the same country as the name.

    Args:
        path: the file, named in errors.
        names: country name of each record, shape (n_rows,), indexed by file line; its
            ``name`` is the field's name.
        codes: country code of each record (may be empty), shape (n_rows,), indexed and
            named likewise.
        table: the country table that matches names and codes.

    Returns:
        The countries, the index into them of each record (shape (n_rows,) int64) and the
        names the table could not match.

    Raises:
        DataError: at the first line whose name and code name two different countries.
    """
    name_id, name_values = pd.factorize(names.str.strip(), use_na_sentinel=False)
    code_id, code_values = pd.factorize(codes.str.strip(), use_na_sentinel=False)
    n_codes = max(len(code_values), 1)
    pair_id, pairs = pd.factorize(name_id.astype(np.int64) * n_codes + code_id)
    rows_of: dict[Country, int] = {}
    unknown: dict[str, Country] = {}
    pair_row = np.empty(len(pairs), dtype=np.int64)
    for p, key in enumerate(pairs):
        name, code = str(name_values[key // n_codes]), str(code_values[key % n_codes])
        by_name, by_code = table.find(name), (table.find(code) if code else None)
        if by_name is not None and by_code is not None and by_name != by_code:
            line = int(names.index[int(np.argmax(pair_id == p))])
            raise DataError(
                path,
                f"{names.name} {name!r} is {by_name.name} but {codes.name} {code!r} is "
                f"{by_code.name}: the name and the code must name the same country",
                row=line,
                field=str(codes.name),
            )
        country = by_name or by_code
        if country is None:
            iso2, iso3 = (code if len(code) == 2 else ""), (code if len(code) == 3 else "")
            country = unknown.setdefault(name, Country(name, iso2, iso3))
        pair_row[p] = rows_of.setdefault(country, len(rows_of))
    return tuple(rows_of), pair_row[pair_id], tuple(unknown)
