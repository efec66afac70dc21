"""The Voeten/``unvotes`` layout: a folder of three gzip CSVs (votes, roll calls, issues)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from assembly_gym.envs.legislative.countries import CountryTable, default_country_table
from assembly_gym.envs.legislative.data.reading import (
    field_error,
    parse_codes,
    parse_dates,
    parse_flag,
    parse_int,
    read_csv,
    require_values,
    resolve_countries,
)
from assembly_gym.envs.legislative.data.schema import (
    ISSUE_CODES,
    RollCallData,
    Vote,
    assemble_votes,
    sort_roll_calls,
)

__all__ = ["UNVOTES_FILES", "load_roll_call_attributes", "load_unvotes"]

UNVOTES_FILES = {
    "votes": "un_votes.csv.gz",
    "roll_calls": "un_roll_calls.csv.gz",
    "issues": "un_roll_call_issues.csv.gz",
}
"""The folder's files by role."""
_UNVOTES_CODES = {"yes": Vote.YES, "no": Vote.NO, "abstain": Vote.ABSTAIN}


def load_roll_call_attributes(directory: str | Path) -> pd.DataFrame:
    """Roll-call attributes of an ``unvotes`` folder, never opening its vote table.

    Reads ``un_roll_calls.csv.gz`` and ``un_roll_call_issues.csv.gz`` only: what is known
    before a vote is cast. Returns a table with :data:`ROLL_CALL_COLUMNS`, in time order.

    Raises:
        DataError: naming the file, line and field of the first problem found.
    """
    directory = Path(directory)
    path = directory / UNVOTES_FILES["roll_calls"]
    frame = read_csv(
        path,
        ["rcid", "session", "importantvote", "date", "unres", "amend", "para", "short", "descr"],
    )
    require_values(path, frame, ["rcid", "session", "date"])
    table = pd.DataFrame(
        {
            "rcid": parse_int(path, frame["rcid"], "rcid"),
            "session": parse_int(path, frame["session"], "session", minimum=1),
            "date": parse_dates(path, frame["date"], "date").to_numpy(),
            "symbol": frame["unres"].str.strip().to_numpy(),
            "important": parse_flag(path, frame["importantvote"], "importantvote"),
            "amend": parse_flag(path, frame["amend"], "amend"),
            "para": parse_flag(path, frame["para"], "para"),
            "short": frame["short"].str.strip().to_numpy(),
            "descr": frame["descr"].str.strip().to_numpy(),
        }
    )
    repeated = table["rcid"].duplicated().to_numpy()
    if repeated.any():
        raise field_error(path, frame["rcid"], repeated, "rcid", "duplicate roll-call id {value!r}")
    issues = _read_issue_table(directory / UNVOTES_FILES["issues"], table["rcid"].to_numpy())
    for code in ISSUE_CODES:
        table[f"issue_{code}"] = issues[code]
    return sort_roll_calls(table, path)


def _read_issue_table(path: Path, rcids: np.ndarray) -> dict[str, np.ndarray]:
    """Issue flags of each roll call, shape (n_roll_calls,) bool per issue code.

    A file with a header and no rows is valid: no roll call has an issue code.
    """
    frame = read_csv(path, ["rcid", "short_name"], allow_empty=True)
    require_values(path, frame, ["rcid", "short_name"])
    rcid = parse_int(path, frame["rcid"], "rcid")
    code = frame["short_name"].str.strip()
    unknown = ~code.isin(ISSUE_CODES)
    if unknown.any():
        raise field_error(
            path,
            frame["short_name"],
            unknown,
            "short_name",
            f"unknown issue code {{value!r}}; expected one of {list(ISSUE_CODES)}",
        )
    column = pd.Index(rcids).get_indexer(rcid)
    orphan = column < 0
    if orphan.any():
        raise field_error(
            path,
            frame["rcid"],
            orphan,
            "rcid",
            f"roll call {{value}} is not in {UNVOTES_FILES['roll_calls']}",
        )
    repeated = pd.DataFrame({"rcid": rcid, "code": code.to_numpy()}).duplicated().to_numpy()
    if repeated.any():
        raise field_error(
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
    name; a name and a code that name two different countries are an error. The issues
    file may hold no rows. Loading all 781k votes takes about a second.

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
    frame = read_csv(path, ["rcid", "country", "country_code", "vote"])
    require_values(path, frame, ["rcid", "country", "vote"])
    rcid = parse_int(path, frame["rcid"], "rcid")
    vote = parse_codes(path, frame["vote"], _UNVOTES_CODES, "vote")
    countries, rows, unmatched = resolve_countries(
        path, frame["country"], frame["country_code"], table or default_country_table()
    )
    return assemble_votes(
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
