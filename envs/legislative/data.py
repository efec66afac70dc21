"""Roll-call data: one in-memory shape, loaders for two real layouts, and validation.

:class:`RollCallData` holds a compact vote matrix (countries × roll calls, ``int8``, with
:data:`ABSENT` for "did not vote") and a table of roll-call attributes, sorted in time.
Two layouts load into it:

* the Voeten/``unvotes`` folder of three gzip CSVs (:func:`load_unvotes`);
* the UN Digital Library GA voting CSV, one row per (resolution, member state) with
  ``ms_vote`` in Y/N/A/X (:func:`load_undl_votes`).

Every problem with the input raises :class:`~envs.errors.DataError` naming the file, the
line, the field and what was expected; a table is never truncated silently. The CSV files
must be UTF-8 with one record per line (RFC 4180 quoting, no line breaks inside fields):
a stray or unbalanced quote, a row with too few or too many fields, a duplicated column,
a corrupt gzip stream all stop the load instead of shifting or swallowing rows.
"""

from __future__ import annotations

import codecs
import csv
import difflib
import functools
import gzip
import io
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from pathlib import Path

import numpy as np
import pandas as pd

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import Country, CountryTable, default_country_table

__all__ = [
    "ABSENT",
    "ISSUE_CODES",
    "ISSUE_NAMES",
    "ROLL_CALL_COLUMNS",
    "RollCallData",
    "Vote",
    "load_roll_call_attributes",
    "load_roll_calls",
    "load_undl_votes",
    "load_unvotes",
]


class Vote(IntEnum):
    """A recorded vote; the values are also the RollCall-v0 action indices."""

    YES = 0
    NO = 1
    ABSTAIN = 2


ABSENT = -1
"""Vote-matrix code for "did not vote" (absent, non-member or not recorded)."""

ISSUE_CODES = ("me", "nu", "di", "hr", "co", "ec")
ISSUE_NAMES = {
    "me": "Palestinian conflict",
    "nu": "Nuclear weapons and nuclear material",
    "di": "Arms control and disarmament",
    "hr": "Human rights",
    "co": "Colonialism",
    "ec": "Economic development",
}
ROLL_CALL_COLUMNS = (
    "rcid", "session", "date", "symbol", "important", "amend", "para", "short", "descr",
    *(f"issue_{code}" for code in ISSUE_CODES),
)  # fmt: skip

UNVOTES_FILES = {
    "votes": "un_votes.csv.gz",
    "roll_calls": "un_roll_calls.csv.gz",
    "issues": "un_roll_call_issues.csv.gz",
}
_UNVOTES_CODES = {"yes": Vote.YES, "no": Vote.NO, "abstain": Vote.ABSTAIN}
# X (version 2 on) and NV (version 1) both mean "non-voting" in the UN Digital Library data.
_UNDL_CODES = {
    "Y": Vote.YES,
    "N": Vote.NO,
    "A": Vote.ABSTAIN,
    "X": ABSENT,
    "NV": ABSENT,
    "": ABSENT,
}
# UN Digital Library records carry subjects, not Voeten's issue codes: keywords map them
# (at the start of a word, so that FARMS is not ARMS).
_ISSUE_KEYWORDS = {
    "me": r"\b(?:PALESTIN|MIDDLE EAST|OCCUPIED (?:ARAB )?TERRITOR|ISRAEL)",
    "nu": r"\bNUCLEAR",
    "di": r"\b(?:DISARMAMENT|ARMS|WEAPON)",
    "hr": r"\bHUMAN RIGHTS",
    "co": r"\b(?:COLONIAL|DECOLONI|SELF-DETERMINATION|NON-SELF-GOVERNING|TRUST TERRITOR)",
    "ec": r"\b(?:ECONOMIC DEVELOPMENT|DEVELOPMENT|TRADE|POVERTY)",
}
_MISSING = ("", "NA", "NaN", "nan", "null", "None")
_INTEGER = r"[+-]?[0-9]{1,15}(?:\.0*)?"  # 15 digits stay exact in float64
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)?"


@dataclass(frozen=True, eq=False)  # compared by identity: a DataFrame has no single truth value
class RollCallData:
    """Votes of countries on roll calls, with the roll calls' attributes, in time order.

    Attributes:
        countries: the countries, one per row of ``votes``; shape (n_countries,).
        roll_calls: one row per roll call with :data:`ROLL_CALL_COLUMNS`, sorted by
            (session, date, rcid), index 0..n_roll_calls-1. ``important``, ``amend`` and
            ``para`` are 1.0/0.0, NaN where not coded.
        votes: shape (n_countries, n_roll_calls), int8: :class:`Vote` values or :data:`ABSENT`;
            a read-only view (the array passed in is not modified).
        source: where the data came from (a path or "synthetic ...").
        unmatched_countries: names the country table could not match (kept, not dropped).

    Raises:
        DataError: when the parts do not fit together (shape, dtype, codes, duplicates).
    """

    countries: tuple[Country, ...]
    roll_calls: pd.DataFrame
    votes: np.ndarray
    source: str = "in-memory"
    unmatched_countries: tuple[str, ...] = ()
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        countries = tuple(self.countries)
        strangers = [c for c in countries if not isinstance(c, Country)]
        if strangers:
            raise DataError(
                self.source,
                f"countries must be Country records, got {strangers[0]!r}",
                field="countries",
            )
        object.__setattr__(self, "countries", countries)
        object.__setattr__(self, "unmatched_countries", tuple(self.unmatched_countries))
        if not isinstance(self.roll_calls, pd.DataFrame):
            raise DataError(
                self.source,
                f"roll_calls must be a pandas DataFrame, got {type(self.roll_calls).__name__}",
            )
        missing = [c for c in ROLL_CALL_COLUMNS if c not in self.roll_calls.columns]
        if missing:
            raise DataError(
                self.source, f"roll-call table lacks columns {missing}", field=missing[0]
            )
        if not isinstance(self.votes, np.ndarray):
            raise DataError(
                self.source, f"votes must be a numpy array, got {type(self.votes).__name__}"
            )
        expected = (len(countries), len(self.roll_calls))
        if self.votes.shape != expected:
            raise DataError(
                self.source,
                f"vote matrix has shape {self.votes.shape}, expected {expected} "
                "(n_countries, n_roll_calls)",
            )
        if self.votes.dtype != np.int8:
            raise DataError(self.source, f"vote matrix dtype is {self.votes.dtype}, expected int8")
        if self.votes.size and (self.votes.min() < ABSENT or self.votes.max() > Vote.ABSTAIN):
            raise DataError(self.source, "vote matrix holds codes outside {-1, 0, 1, 2}")
        repeated = self.roll_calls["rcid"].duplicated().to_numpy()
        if repeated.any():
            rcid = self.roll_calls["rcid"].iloc[int(np.flatnonzero(repeated)[0])]
            raise DataError(self.source, f"roll-call id {rcid} is not unique", field="rcid")
        index: dict[str, int] = {}
        for i, country in enumerate(countries):
            if index.setdefault(country.name, i) != i:
                raise DataError(
                    self.source, f"country {country.name!r} appears twice", field="countries"
                )
        object.__setattr__(self, "_index", index)
        votes = self.votes.view()
        votes.flags.writeable = False
        object.__setattr__(self, "votes", votes)

    @property
    def n_countries(self) -> int:
        """Number of countries (rows of the vote matrix)."""
        return len(self.countries)

    @property
    def n_roll_calls(self) -> int:
        """Number of roll calls (columns of the vote matrix)."""
        return len(self.roll_calls)

    @functools.cached_property
    def country_names(self) -> tuple[str, ...]:
        """Canonical country names in row order."""
        return tuple(self._index)

    @property
    def sessions(self) -> np.ndarray:
        """Sorted distinct session numbers, shape (n_sessions,)."""
        return np.unique(self.roll_calls["session"].to_numpy())

    @property
    def issues(self) -> np.ndarray:
        """Issue indicator matrix, shape (n_roll_calls, 6) bool, columns :data:`ISSUE_CODES`."""
        return self.roll_calls[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(dtype=bool)

    def country_index(self, name: str) -> int:
        """Row of a country given any of its names or codes; :class:`DataError` if unknown."""
        if not isinstance(name, str):
            raise DataError(
                self.source, f"a country is named by a string, got {name!r}", field="country"
            )
        if name.strip() in self._index:
            return self._index[name.strip()]
        country = default_country_table().find(name)
        if country is not None and country.name in self._index:
            return self._index[country.name]
        hint = ""
        close = difflib.get_close_matches(name, self.country_names, n=3, cutoff=0.6)
        if close:
            hint = f"; did you mean {', '.join(map(repr, close))}?"
        raise DataError(self.source, f"unknown country {name!r}{hint}", field="country")

    def select_sessions(self, first: int | None = None, last: int | None = None) -> RollCallData:
        """Roll calls of sessions ``first..last`` (inclusive; None means unbounded)."""
        session = self.roll_calls["session"].to_numpy()
        keep = np.ones(len(session), dtype=bool)
        if first is not None:
            keep &= session >= first
        if last is not None:
            keep &= session <= last
        if not keep.any():
            raise DataError(self.source, f"no roll calls in sessions {first}..{last}")
        return self._take_roll_calls(np.flatnonzero(keep))

    def temporal_split(self, last_train_session: int) -> tuple[RollCallData, RollCallData]:
        """(train, test): sessions up to ``last_train_session`` and the sessions after it."""
        return self.select_sessions(None, last_train_session), self.select_sessions(
            last_train_session + 1, None
        )

    def select_countries(self, names: Iterable[str]) -> RollCallData:
        """Only the given countries (any name or code), in the given order."""
        if isinstance(names, str):
            names = [names]
        rows = [self.country_index(n) for n in names]
        if len(set(rows)) != len(rows):
            raise DataError(self.source, "a country is asked for twice", field="country")
        kept = {self.countries[r].name for r in rows}
        return replace(
            self,
            countries=tuple(self.countries[r] for r in rows),
            votes=np.ascontiguousarray(self.votes[rows]),
            unmatched_countries=tuple(n for n in self.unmatched_countries if n in kept),
        )

    def class_balance(self) -> dict[str, float]:
        """Share of yes/no/abstain among cast votes (all zero when no vote is cast)."""
        cast = self.votes[self.votes != ABSENT]
        counts = np.bincount(cast, minlength=3) / max(cast.size, 1)
        return {v.name.lower(): float(counts[v]) for v in Vote}

    def _take_roll_calls(self, columns: np.ndarray) -> RollCallData:
        return replace(
            self,
            roll_calls=self.roll_calls.iloc[columns].reset_index(drop=True),
            votes=np.ascontiguousarray(self.votes[:, columns]),
        )

    @classmethod
    def from_long(
        cls,
        roll_calls: pd.DataFrame,
        rcid: np.ndarray,
        country: Sequence[Country],
        vote: np.ndarray,
        *,
        source: str,
        unmatched: tuple[str, ...] = (),
    ) -> RollCallData:
        """Build from a roll-call table and long-format votes (one entry per vote).

        Args:
            roll_calls: attributes with :data:`ROLL_CALL_COLUMNS` (any order of rows).
            rcid: roll-call id of each vote, shape (n_votes,).
            country: country of each vote, length n_votes.
            vote: vote codes (:class:`Vote` or :data:`ABSENT`), shape (n_votes,).
            source: name used in error messages.
            unmatched: country names the table could not match.

        Raises:
            DataError: naming the (0-based) record of an unknown vote code, of a roll call
                missing from ``roll_calls`` or of a second vote of a country on a roll call.
        """
        countries = tuple(dict.fromkeys(country))
        row_of = {c: i for i, c in enumerate(countries)}
        rows = np.fromiter((row_of[c] for c in country), dtype=np.int64, count=len(country))
        return _assemble(
            roll_calls,
            np.asarray(rcid),
            countries,
            rows,
            np.asarray(vote),
            source=source,
            unmatched=unmatched,
        )


def _sort_roll_calls(roll_calls: pd.DataFrame, source: object) -> pd.DataFrame:
    missing = [c for c in ROLL_CALL_COLUMNS if c not in roll_calls.columns]
    if missing:
        raise DataError(source, f"roll-call table lacks columns {missing}", field=missing[0])
    ordered = roll_calls.sort_values(["session", "date", "rcid"], kind="stable")
    return ordered.reset_index(drop=True)[list(ROLL_CALL_COLUMNS)]


def _assemble(
    roll_calls: pd.DataFrame,
    rcid: np.ndarray,
    countries: tuple[Country, ...],
    rows: np.ndarray,
    vote: np.ndarray,
    *,
    source: str,
    unmatched: Sequence[str] = (),
    where: object = None,
    lines: np.ndarray | None = None,
    fields: tuple[str, str, str] = ("rcid", "country", "vote"),
    table_name: str = "the roll-call table",
) -> RollCallData:
    """The vote matrix of long-format votes; every vote lands in exactly one cell.

    ``rows`` index ``countries``; ``lines`` are the file lines of the votes (None: records
    are named by their 0-based position) and ``fields`` the names of the rcid, country and
    vote fields, both used in error messages about ``where`` (default: ``source``).
    """
    where = source if where is None else where

    def place(i: int) -> int | str:
        return int(lines[i]) if lines is not None else str(i)

    if not len(rcid) == len(rows) == len(vote):
        raise DataError(
            where,
            f"rcid, country and vote differ in length ({len(rcid)}, {len(rows)}, {len(vote)})",
        )
    roll_calls = _sort_roll_calls(roll_calls, source)
    bad = ~np.isin(vote, (ABSENT, *Vote))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(
            where,
            f"vote code {vote[i]} is not one of -1, 0, 1, 2",
            row=place(i),
            field=fields[2],
        )
    column = pd.Index(roll_calls["rcid"]).get_indexer(rcid)
    orphan = column < 0
    if orphan.any():
        i = int(np.flatnonzero(orphan)[0])
        raise DataError(
            where, f"roll call {rcid[i]} is not in {table_name}", row=place(i), field=fields[0]
        )
    cell = rows * len(roll_calls) + column
    repeated = pd.Series(cell).duplicated().to_numpy()
    if repeated.any():
        j = int(np.flatnonzero(repeated)[0])
        i = int(np.flatnonzero(cell == cell[j])[0])
        first = f"line {place(i)}" if lines is not None else f"record {place(i)}"
        raise DataError(
            where,
            f"duplicate (country, roll call) ({countries[rows[j]].name!r}, {rcid[j]}): "
            f"already on {first}",
            row=place(j),
            field=fields[1],
        )
    votes = np.full((len(countries), len(roll_calls)), ABSENT, dtype=np.int8)
    votes[rows, column] = vote
    return RollCallData(countries, roll_calls, votes, source, tuple(unmatched))


# --------------------------------------------------------------------------------------
# CSV reading with validation
# --------------------------------------------------------------------------------------

_LF, _CR, _QUOTE, _COMMA = 10, 13, 34, 44


def _read_bytes(path: Path) -> bytes:
    """The file's bytes, gunzipped when it ends in ``.gz``; a corrupt stream is an error."""
    if not path.is_file():
        raise DataError(path, "file not found")
    if path.suffix != ".gz":
        try:
            return path.read_bytes()
        except OSError as error:
            raise DataError(path, f"cannot read the file ({error})") from error
    chunks: list[bytes] = []
    try:
        with gzip.open(path) as handle:
            while chunk := handle.read(1 << 22):
                chunks.append(chunk)
    except (OSError, EOFError, zlib.error) as error:
        line = sum(chunk.count(b"\n") for chunk in chunks) + 1
        raise DataError(
            path,
            f"corrupt or truncated gzip data at or after this line ({type(error).__name__}: "
            f"{error})",
            row=line,
        ) from error
    return b"".join(chunks)


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
    if content.size == 0:
        raise DataError(path, "empty file: expected a header line and data rows", row=1)

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


def _read_csv(path: Path, required: Sequence[str]) -> pd.DataFrame:
    """Read a (possibly gzip) UTF-8 CSV as strings, indexed by file line number.

    Checks the layout (:func:`_scan_csv`) before parsing and that the parser returned
    exactly one row per data line, so that no row can be lost or shifted silently.
    """
    raw = _read_bytes(path)
    if not raw:
        raise DataError(path, "empty file (0 bytes): expected a header line and data rows", row=1)
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    names, lines = _scan_csv(path, raw, required)
    if lines.size == 0:
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


def _fail(
    path: Path, values: pd.Series, bad: pd.Series | np.ndarray, name: str, problem: str
) -> DataError:
    """Error at the first ``bad`` row; ``problem`` may use ``{value!r}``, that row's value."""
    i = int(np.flatnonzero(np.asarray(bad))[0])
    return DataError(
        path, problem.format(value=values.iloc[i]), row=int(values.index[i]), field=name
    )


def _require_values(path: Path, frame: pd.DataFrame, columns: Iterable[str]) -> None:
    for name in columns:
        blank = frame[name].str.strip().isin(_MISSING)
        if blank.any():
            raise _fail(path, frame[name], blank, name, "missing value (NaN or empty): {value!r}")


def _parse_int(path: Path, values: pd.Series, name: str) -> np.ndarray:
    text = values.str.strip()
    bad = ~text.str.fullmatch(_INTEGER)
    if bad.any():
        raise _fail(path, values, bad, name, "expected an integer, got {value!r}")
    return text.astype("float64").to_numpy(dtype=np.int64)


def _parse_flag(path: Path, values: pd.Series, name: str) -> np.ndarray:
    """0/1 flags where empty means "not coded" (NaN)."""
    text = values.str.strip()
    bad = ~text.str.fullmatch(r"(?:[01](?:\.0*)?)?")
    if bad.any():
        raise _fail(path, values, bad, name, "expected 0, 1 or empty, got {value!r}")
    return text.where(text != "").astype("float64").to_numpy(dtype=np.float64)


def _parse_dates(path: Path, values: pd.Series, name: str) -> pd.Series:
    """ISO dates (YYYY-MM-DD, optionally with a time); anything else is an error."""
    text = values.str.strip()
    dates = pd.to_datetime(text.where(text.str.fullmatch(_DATE)), errors="coerce", format="ISO8601")
    bad = dates.isna()
    if bad.any():
        raise _fail(path, values, bad, name, "expected a date YYYY-MM-DD, got {value!r}")
    return dates


def _parse_codes(path: Path, values: pd.Series, codes: dict[str, int], name: str) -> np.ndarray:
    found, distinct = pd.factorize(values.str.strip(), use_na_sentinel=False)
    known = np.array([str(code) in codes for code in distinct], dtype=bool)
    if not known.all():
        expected = ", ".join(repr(k) for k in codes)
        raise _fail(
            path,
            values,
            ~known[found],
            name,
            f"unknown vote code {{value!r}}; expected one of {expected}",
        )
    lookup = np.array([codes[str(code)] for code in distinct], dtype=np.int8)
    return lookup[found]


def _resolve_countries(
    names: pd.Series, codes: pd.Series, table: CountryTable
) -> tuple[tuple[Country, ...], np.ndarray, tuple[str, ...]]:
    """Countries in order of appearance, the country row of each record, unmatched names.

    A record is matched by name, else by code; an unmatched name becomes its own country
    (named as written) and is reported, never dropped.
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
        country = table.find(name) or (table.find(code) if code else None)
        if country is None:
            iso2, iso3 = (code if len(code) == 2 else ""), (code if len(code) == 3 else "")
            country = unknown.setdefault(name, Country(name, iso2, iso3))
        pair_row[p] = rows_of.setdefault(country, len(rows_of))
    return tuple(rows_of), pair_row[pair_id], tuple(unknown)


# --------------------------------------------------------------------------------------
# Voeten / unvotes layout
# --------------------------------------------------------------------------------------


def load_roll_call_attributes(directory: str | Path) -> pd.DataFrame:
    """Roll-call attributes of an ``unvotes`` folder, never opening its vote table.

    Reads ``un_roll_calls.csv.gz`` and ``un_roll_call_issues.csv.gz`` only: what is known
    before a vote is cast. Returns a table with :data:`ROLL_CALL_COLUMNS`, in time order.

    Raises:
        DataError: naming the file, line and field of the first problem found.
    """
    directory = Path(directory)
    path = directory / UNVOTES_FILES["roll_calls"]
    frame = _read_csv(
        path,
        ["rcid", "session", "importantvote", "date", "unres", "amend", "para", "short", "descr"],
    )
    _require_values(path, frame, ["rcid", "session", "date"])
    table = pd.DataFrame(
        {
            "rcid": _parse_int(path, frame["rcid"], "rcid"),
            "session": _parse_int(path, frame["session"], "session"),
            "date": _parse_dates(path, frame["date"], "date").to_numpy(),
            "symbol": frame["unres"].str.strip().to_numpy(),
            "important": _parse_flag(path, frame["importantvote"], "importantvote"),
            "amend": _parse_flag(path, frame["amend"], "amend"),
            "para": _parse_flag(path, frame["para"], "para"),
            "short": frame["short"].str.strip().to_numpy(),
            "descr": frame["descr"].str.strip().to_numpy(),
        }
    )
    repeated = table["rcid"].duplicated().to_numpy()
    if repeated.any():
        raise _fail(path, frame["rcid"], repeated, "rcid", "duplicate roll-call id {value!r}")
    issues = _read_issue_table(directory / UNVOTES_FILES["issues"], table["rcid"].to_numpy())
    for code in ISSUE_CODES:
        table[f"issue_{code}"] = issues[code]
    return _sort_roll_calls(table, path)


def _read_issue_table(path: Path, rcids: np.ndarray) -> dict[str, np.ndarray]:
    frame = _read_csv(path, ["rcid", "short_name"])
    _require_values(path, frame, ["rcid", "short_name"])
    rcid = _parse_int(path, frame["rcid"], "rcid")
    code = frame["short_name"].str.strip()
    unknown = ~code.isin(ISSUE_CODES)
    if unknown.any():
        raise _fail(
            path,
            frame["short_name"],
            unknown,
            "short_name",
            f"unknown issue code {{value!r}}; expected one of {list(ISSUE_CODES)}",
        )
    column = pd.Index(rcids).get_indexer(rcid)
    orphan = column < 0
    if orphan.any():
        raise _fail(
            path,
            frame["rcid"],
            orphan,
            "rcid",
            f"roll call {{value}} is not in {UNVOTES_FILES['roll_calls']}",
        )
    repeated = pd.DataFrame({"rcid": rcid, "code": code.to_numpy()}).duplicated().to_numpy()
    if repeated.any():
        raise _fail(
            path,
            frame["short_name"],
            repeated,
            "short_name",
            "issue {value!r} listed twice for the same roll call",
        )
    out = {c: np.zeros(len(rcids), dtype=bool) for c in ISSUE_CODES}
    for c in ISSUE_CODES:
        out[c][column[(code == c).to_numpy()]] = True
    return out


def load_unvotes(directory: str | Path, *, table: CountryTable | None = None) -> RollCallData:
    """Load the Voeten/``unvotes`` folder (three gzip CSVs) into :class:`RollCallData`.

    Namibia's code ``NA`` is kept (no NA parsing); countries without a code are keyed by
    name. Loading all 781k votes takes about two seconds.

    Args:
        directory: folder with ``un_votes.csv.gz``, ``un_roll_calls.csv.gz`` and
            ``un_roll_call_issues.csv.gz``.
        table: country-name table (default: the shipped one).

    Raises:
        DataError: naming the file, line and field of the first problem found.
    """
    directory = Path(directory)
    roll_calls = load_roll_call_attributes(directory)
    path = directory / UNVOTES_FILES["votes"]
    frame = _read_csv(path, ["rcid", "country", "country_code", "vote"])
    _require_values(path, frame, ["rcid", "country", "vote"])
    rcid = _parse_int(path, frame["rcid"], "rcid")
    vote = _parse_codes(path, frame["vote"], _UNVOTES_CODES, "vote")
    countries, rows, unmatched = _resolve_countries(
        frame["country"], frame["country_code"], table or default_country_table()
    )
    return _assemble(
        roll_calls,
        rcid,
        countries,
        rows,
        vote,
        source=str(directory),
        unmatched=unmatched,
        where=path,
        lines=frame.index.to_numpy(),
        table_name=UNVOTES_FILES["roll_calls"],
    )


# --------------------------------------------------------------------------------------
# UN Digital Library GA voting layout
# --------------------------------------------------------------------------------------

UNDL_REQUIRED = ("undl_id", "ms_code", "ms_name", "ms_vote", "resolution", "date")
_UNDL_ATTRIBUTES = ("resolution", "date", "session", "title", "agenda_title", "subjects")


def load_undl_votes(path: str | Path, *, table: CountryTable | None = None) -> RollCallData:
    """Load a UN Digital Library GA voting CSV into :class:`RollCallData`.

    One row per (resolution, member state): ``undl_id, ms_code, ms_name, ms_vote, resolution,
    date`` and optionally ``session, title, agenda_title, subjects``. ``ms_vote`` is Y, N, A,
    or X/NV/blank for "did not vote" (kept as :data:`ABSENT`; a country listed only as
    non-voting still gets its row). The rows of one ``undl_id`` must agree on the roll call's
    attributes. ``session`` is the regular session: a number, or derived from the symbol
    (``A/RES/78/…``) or the date when blank or a special session (``ES-10``, ``S-29``).
    Issue codes are derived from subjects and titles by keyword; importance, amendment and
    paragraph flags are not coded (NaN).

    Raises:
        DataError: naming the file, line and field of the first problem found.
    """
    path = Path(path)
    frame = _read_csv(path, UNDL_REQUIRED)
    _require_values(path, frame, ["undl_id", "ms_name", "resolution", "date"])
    rcid = _parse_int(path, frame["undl_id"], "undl_id")
    vote = _parse_codes(path, frame["ms_vote"], _UNDL_CODES, "ms_vote")
    dates = _parse_dates(path, frame["date"], "date")
    session = _undl_sessions(path, frame, dates)
    first = _first_rows(path, frame, rcid)
    countries, rows, unmatched = _resolve_countries(
        frame["ms_name"], frame["ms_code"], table or default_country_table()
    )

    def text(name: str) -> np.ndarray:
        values = frame[name].str.strip() if name in frame.columns else pd.Series("", frame.index)
        return values.to_numpy(dtype=object)[first]

    title, agenda = text("title"), text("agenda_title")
    attributes = pd.DataFrame(
        {
            "rcid": rcid[first],
            "session": session[first],
            "date": dates.to_numpy()[first],
            "symbol": text("resolution"),
            "important": np.nan,
            "amend": np.nan,
            "para": np.nan,
            "short": agenda,
            "descr": title,
        }
    )
    keywords = pd.Series(text("subjects") + " " + title + " " + agenda).str.upper()
    for code, pattern in _ISSUE_KEYWORDS.items():
        attributes[f"issue_{code}"] = keywords.str.contains(pattern, regex=True).to_numpy()
    return _assemble(
        attributes,
        rcid,
        countries,
        rows,
        vote,
        source=str(path),
        unmatched=unmatched,
        where=path,
        lines=frame.index.to_numpy(),
        fields=("undl_id", "ms_name", "ms_vote"),
        table_name="the file",
    )


def _first_rows(path: Path, frame: pd.DataFrame, rcid: np.ndarray) -> np.ndarray:
    """Position of the first row of each roll call; its other rows must agree with it."""
    roll_call, _ = pd.factorize(rcid)
    _, first_of = np.unique(roll_call, return_index=True)  # first row of each roll call
    reference = first_of[roll_call]
    for name in _UNDL_ATTRIBUTES:
        if name not in frame.columns:
            continue
        values = frame[name].str.strip().to_numpy(dtype=object)
        differs = values != values[reference]
        if differs.any():
            i = int(np.flatnonzero(differs)[0])
            raise DataError(
                path,
                f"roll call {rcid[i]} has {name} {values[i]!r} here but "
                f"{values[reference[i]]!r} on line {frame.index[reference[i]]}",
                row=int(frame.index[i]),
                field=name,
            )
    return np.flatnonzero(reference == np.arange(len(reference)))


def _undl_sessions(path: Path, frame: pd.DataFrame, dates: pd.Series) -> np.ndarray:
    derived = _session_from(frame["resolution"], dates)
    if "session" not in frame.columns:
        return derived
    text = frame["session"].str.strip()
    numbered = ~(text.eq("") | text.str.upper().str.fullmatch(r"E?S-[0-9]+"))
    session = derived.copy()
    if numbered.any():
        session[numbered.to_numpy()] = _parse_int(path, frame["session"][numbered], "session")
    return session


def _session_from(symbols: pd.Series, dates: pd.Series) -> np.ndarray:
    """Session from a symbol such as A/RES/78/196, else from the date (sessions open in Sept)."""
    from_symbol = pd.to_numeric(symbols.str.extract(r"^\s*A/RES/([0-9]{1,4})/")[0])
    # Session 1 ran through 1946; from 1947 session n opens in September of year 1945 + n.
    from_date = np.maximum(dates.dt.year - 1945 - (dates.dt.month < 9).astype(int), 1)
    return from_symbol.fillna(from_date).to_numpy(dtype=np.int64)


def load_roll_calls(path: str | Path) -> RollCallData:
    """Load either layout: an ``unvotes`` folder, or a UN Digital Library voting CSV file."""
    path = Path(path)
    if path.is_dir():
        if (path / UNVOTES_FILES["votes"]).exists():
            return load_unvotes(path)
        if (path / "unvotes" / UNVOTES_FILES["votes"]).exists():
            return load_unvotes(path / "unvotes")
        raise DataError(path, f"no {UNVOTES_FILES['votes']} in this folder")
    if not path.exists():
        raise DataError(path, "file or folder not found")
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            header = handle.readline()
    except (OSError, UnicodeDecodeError, EOFError, zlib.error) as error:
        raise DataError(path, f"not a readable file ({error})", row=1) from error
    if "ms_vote" in header:
        return load_undl_votes(path)
    raise DataError(
        path,
        "not a known layout: expected an unvotes folder or a UNDL CSV (with ms_vote)",
        row=1,
    )
