"""The UN Digital Library (UNDL) GA voting layout: one CSV row per (resolution, member state)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import CountryTable, default_country_table
from assembly_gym.envs.legislative.data.reading import (
    parse_codes,
    parse_dates,
    parse_int,
    read_csv,
    require_values,
    resolve_countries,
)
from assembly_gym.envs.legislative.data.schema import (
    ABSENT,
    RollCallData,
    Vote,
    assemble_votes,
)

__all__ = ["UNDL_REQUIRED", "load_undl_votes"]

UNDL_REQUIRED = ("undl_id", "ms_code", "ms_name", "ms_vote", "resolution", "date")
"""Columns every UNDL voting CSV holds."""
_UNDL_ATTRIBUTES = ("resolution", "date", "session", "title", "agenda_title", "subjects")
# X (version 2 on) and NV (version 1) both mean "non-voting" in the UN Digital Library data.
_UNDL_CODES = {
    "Y": Vote.YES,
    "N": Vote.NO,
    "A": Vote.ABSTAIN,
    "X": ABSENT,
    "NV": ABSENT,
    "": ABSENT,
}
# Keywords map subjects to issue codes (at the start of a word, so that FARMS is not ARMS).
_ISSUE_KEYWORDS = {
    "me": r"\b(?:PALESTIN|MIDDLE EAST|OCCUPIED (?:ARAB )?TERRITOR|ISRAEL)",
    "nu": r"\bNUCLEAR",
    "di": r"\b(?:DISARMAMENT|ARMS|WEAPON)",
    "hr": r"\bHUMAN RIGHTS",
    "co": r"\b(?:COLONIAL|DECOLONI|SELF-DETERMINATION|NON-SELF-GOVERNING|TRUST TERRITOR)",
    "ec": r"\b(?:ECONOMIC DEVELOPMENT|DEVELOPMENT|TRADE|POVERTY)",
}


def load_undl_votes(
    path: str | Path, *, table: CountryTable | None = None, raw: bytes | None = None
) -> RollCallData:
    """Load a UN Digital Library GA voting CSV into :class:`RollCallData`.

    One row per (resolution, member state): ``undl_id, ms_code, ms_name, ms_vote, resolution,
    date`` and optionally ``session, title, agenda_title, subjects``. ``ms_vote`` is Y, N, A,
    or X/NV/blank for "did not vote" (kept as :data:`ABSENT`; a country listed only as
    non-voting still gets its row). ``ms_name`` and ``ms_code`` must not name two different
    countries. The rows of one ``undl_id`` must agree on the roll call's attributes.
    ``session`` is the regular session: a number, or derived from the symbol
    (``A/RES/78/…``) or the date when blank or a special session (``ES-10``, ``S-29``).
    UNDL records carry subjects, not Voeten's issue codes: issue codes are derived from
    subjects and titles by keyword; importance, amendment and
    paragraph flags are not coded (NaN).

    Args:
        path: the CSV file (plain or gzip).
        table: country-name table (default: the shipped one).
        raw: the file's content when :func:`~.reading.read_bytes` already read it.

    Raises:
        DataError: naming the file, line and field of the first problem found.
    """
    path = Path(path)
    frame = read_csv(path, UNDL_REQUIRED, raw=raw)
    require_values(path, frame, ["undl_id", "ms_name", "resolution", "date"])
    rcid = parse_int(path, frame["undl_id"], "undl_id")
    vote = parse_codes(path, frame["ms_vote"], _UNDL_CODES, "ms_vote")
    dates = parse_dates(path, frame["date"], "date")
    session = _undl_sessions(path, frame, dates)
    first = _first_rows(path, frame, rcid)
    countries, rows, unmatched = resolve_countries(
        path, frame["ms_name"], frame["ms_code"], table or default_country_table()
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
    return assemble_votes(
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
        session[numbered.to_numpy()] = parse_int(
            path, frame["session"][numbered], "session", minimum=1
        )
    return session


def _session_from(symbols: pd.Series, dates: pd.Series) -> np.ndarray:
    """Session from a symbol such as A/RES/78/196, else from the date (sessions open in Sept)."""
    from_symbol = pd.to_numeric(symbols.str.extract(r"^\s*A/RES/([1-9][0-9]{0,3})/")[0])
    # Session 1 ran through 1946; from 1947 session n opens in September of year 1945 + n.
    from_date = np.maximum(dates.dt.year - 1945 - (dates.dt.month < 9).astype(int), 1)
    return from_symbol.fillna(from_date).to_numpy(dtype=np.int64)
