"""Roll-call data in memory: votes, the adoption rule, issue codes and :class:`RollCallData`.

:class:`RollCallData` holds a compact vote matrix (countries × roll calls, ``int8``, with
:data:`ABSENT` for "did not vote") and a table of roll-call attributes, sorted in time.
Every loader builds it through :func:`assemble_votes`, which places long-format votes in
the matrix and names the record of the first vote that does not fit.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from assembly_gym.core.errors import DataError
from assembly_gym.core.state import ABSENT, OutcomeRule, Vote
from assembly_gym.envs.legislative.countries import Country, default_country_table

__all__ = [
    "ABSENT",
    "ADOPTION",
    "ISSUE_CODES",
    "ISSUE_NAMES",
    "ROLL_CALL_COLUMNS",
    "RollCallData",
    "Vote",
    "assemble_votes",
    "sort_roll_calls",
]


ADOPTION = OutcomeRule("adopted", "plenary")
"""The General Assembly's rule: a resolution is adopted iff yes > no among the votes cast."""

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
        hint = default_country_table().did_you_mean(name, self.country_names)
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
        return assemble_votes(
            roll_calls,
            np.asarray(rcid),
            countries,
            rows,
            np.asarray(vote),
            source=source,
            unmatched=unmatched,
        )


def sort_roll_calls(roll_calls: pd.DataFrame, source: object) -> pd.DataFrame:
    """The roll calls in time order (session, date, rcid), with :data:`ROLL_CALL_COLUMNS` only.

    Args:
        roll_calls: attributes, one row per roll call, in any order.
        source: named in the error.

    Returns:
        The table sorted stably, index 0..n_roll_calls-1.

    Raises:
        DataError: a column of :data:`ROLL_CALL_COLUMNS` is missing.
    """
    missing = [c for c in ROLL_CALL_COLUMNS if c not in roll_calls.columns]
    if missing:
        raise DataError(source, f"roll-call table lacks columns {missing}", field=missing[0])
    ordered = roll_calls.sort_values(["session", "date", "rcid"], kind="stable")
    return ordered.reset_index(drop=True)[list(ROLL_CALL_COLUMNS)]


def assemble_votes(
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

    Args:
        roll_calls: attributes with :data:`ROLL_CALL_COLUMNS` (any order of rows).
        rcid: roll-call id of each vote, shape (n_votes,).
        countries: the countries, one per row of the vote matrix.
        rows: index into ``countries`` of each vote, shape (n_votes,).
        vote: :class:`Vote` code or :data:`ABSENT` of each vote, shape (n_votes,).
        source: the data's source (:attr:`RollCallData.source`).
        unmatched: country names the country table could not match.
        where: the file named in errors (default: ``source``).
        lines: file line of each vote, shape (n_votes,); None names records by their
            0-based position.
        fields: names of the rcid, country and vote fields, for errors.
        table_name: how errors name the roll-call table.

    Returns:
        The data, votes shaped (n_countries, n_roll_calls).

    Raises:
        DataError: an unknown vote code, a vote on a roll call missing from ``roll_calls``
            or a second vote of a country on a roll call, naming the record.
    """
    where = source if where is None else where

    def place(i: int) -> int | str:
        return int(lines[i]) if lines is not None else str(i)

    if not len(rcid) == len(rows) == len(vote):
        raise DataError(
            where,
            f"rcid, country and vote differ in length ({len(rcid)}, {len(rows)}, {len(vote)})",
        )
    roll_calls = sort_roll_calls(roll_calls, source)
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
