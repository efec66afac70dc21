"""Typed, validated access to the fields of a parsed JSON document, shared by both JSON layouts."""

from __future__ import annotations

from typing import Any, Literal, NoReturn, overload

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import CountryTable
from assembly_gym.envs.legislative.documents.names import NameCollector
from assembly_gym.envs.legislative.documents.parsing import build
from assembly_gym.envs.legislative.documents.text import committee_from_text, iso_date
from assembly_gym.envs.legislative.documents.trajectory import (
    TALLY_KEYS,
    VOTE_KEYS,
    RecordedVote,
    Trajectory,
    TrajectoryStep,
)

__all__ = ["JsonReader", "describe"]


def describe(value: object) -> str:
    """A short description of a JSON value for error messages ("number 1.5", "a list")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {value}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        return f"string {value[:40]!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class JsonReader:
    """Typed access to a parsed JSON document; every problem is a DataError with its path.

    Every getter takes the ``parent`` object, the ``key`` to read, the ``row`` (JSON path of
    the record, named in errors) and a ``prefix`` that makes the key a path within the row.
    A missing or null value is None unless ``required``.

    Args:
        source: the file, named in every error.
        table: the country table that country names are matched against.

    Attributes:
        countries: canonical names and, in order of first appearance, the unmatched ones of
            every country list read.
    """

    def __init__(self, source: str, table: CountryTable) -> None:
        self.source = source
        self.countries = NameCollector(table)

    def fail(self, problem: str, row: str | None, field: str | None) -> NoReturn:
        """Raise a DataError about ``field`` of ``row``."""
        raise DataError(self.source, problem, row=row, field=field)

    def root(self, data: Any, keys: str) -> dict:
        """The document's top-level object; ``keys`` names its required keys in the error."""
        if not isinstance(data, dict):
            self.fail(f"expected a JSON object with {keys}, got {describe(data)}", None, None)
        return data

    def mapping(
        self, parent: dict, key: str, row: str | None, prefix: str = "", required: bool = False
    ) -> dict | None:
        """A JSON object."""
        value = parent.get(key)
        if value is None:
            if required:
                self.fail("missing required field", row, prefix + key)
            return None
        if not isinstance(value, dict):
            self.fail(f"expected an object, got {describe(value)}", row, prefix + key)
        return value

    @overload
    def text(
        self, parent: dict, key: str, row: str | None, prefix: str = "", *, required: Literal[True]
    ) -> str: ...
    @overload
    def text(
        self, parent: dict, key: str, row: str | None, prefix: str = "", required: bool = False
    ) -> str | None: ...
    def text(
        self, parent: dict, key: str, row: str | None, prefix: str = "", required: bool = False
    ) -> str | None:
        """A string, stripped; blank counts as missing."""
        value = parent.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.fail("missing required field (or empty)", row, prefix + key)
            return None
        if not isinstance(value, str):
            self.fail(f"expected a string, got {describe(value)}", row, prefix + key)
        return value.strip()

    def code(self, parent: dict, key: str, row: str | None, prefix: str = "") -> str | None:
        """A short code given as a string or an integer (agenda item 71, "71", "b")."""
        value = parent.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return self.text(parent, key, row, prefix)

    def integer(
        self, parent: dict, key: str, row: str | None, prefix: str = "", minimum: int = 0
    ) -> int | None:
        """An integer >= ``minimum``."""
        value = parent.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"expected a non-negative integer, got {describe(value)}", row, prefix + key)
        if value < minimum:
            self.fail(f"expected an integer >= {minimum}, got {value}", row, prefix + key)
        return value

    def committee(self, parent: dict, key: str, row: str | None, prefix: str = "") -> int | None:
        """A Main Committee number, given as a number or as text ("Third Committee")."""
        value = parent.get(key)
        if isinstance(value, str):
            return committee_from_text(value)
        return self.integer(parent, key, row, prefix, minimum=1)

    def names(
        self, parent: dict, key: str, row: str | None, prefix: str = "", required: bool = False
    ) -> list[str] | None:
        """A list of non-empty strings (country names as written), stripped."""
        value = parent.get(key)
        if value is None:
            if required:
                self.fail("missing required list of country names", row, prefix + key)
            return None
        if not isinstance(value, list):
            self.fail(f"expected a list of country names, got {describe(value)}", row, prefix + key)
        for index, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.fail(
                    f"expected a list of non-empty strings, item {index} is {describe(item)}",
                    row,
                    prefix + key,
                )
        return [item.strip() for item in value]

    def sponsors(
        self, parent: dict, key: str, row: str | None, prefix: str = ""
    ) -> tuple[str, ...]:
        """Canonical names of a list of country names (:meth:`names`), none when it is missing."""
        return self.countries.canonical(self.names(parent, key, row, prefix) or [])

    def tally(self, parent: dict, row: str | None, prefix: str) -> dict[str, int] | None:
        """``{"yes", "no", "abstain"}`` counts from ``parent``; None when none is given."""
        present = [key for key in TALLY_KEYS if parent.get(key) is not None]
        if not present:
            return None
        if len(present) < len(TALLY_KEYS):
            missing = [key for key in TALLY_KEYS if key not in present]
            self.fail(
                f"incomplete tally: expected yes, no and abstain, missing {missing}",
                row,
                prefix + missing[0],
            )
        counts = {}
        for key in TALLY_KEYS:
            value = parent[key]
            if isinstance(value, bool) or not isinstance(value, int):
                self.fail(
                    f"expected a non-negative integer count, got {describe(value)}",
                    row,
                    prefix + key,
                )
            if value < 0:
                self.fail(f"expected a non-negative count, got {value}", row, prefix + key)
            counts[key] = value
        return counts

    def votes(self, parent: dict, row: str | None, prefix: str) -> dict[str, list[str]]:
        """The three country lists of a recorded vote, all required, not all empty."""
        lists = {
            key: self.names(parent, key, row, prefix, required=True) or [] for key in VOTE_KEYS
        }
        if not any(lists.values()):
            self.fail(
                "recorded vote without a country: in_favour, against and abstaining are all empty",
                row,
                prefix.rstrip("."),
            )
        return lists

    def outcome(self, parent: dict, key: str, row: str | None, prefix: str = "") -> str | None:
        """An outcome: "adopted", "rejected" or None (missing, withdrawn, pending...)."""
        value, field = parent.get(key), prefix + key
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(f"expected an outcome string, got {describe(value)}", row, field)
        text = value.strip().lower().replace("_", " ")
        if text.startswith("adopted"):
            return "adopted"
        if text.startswith(("rejected", "not adopted", "failed", "defeated")):
            return "rejected"
        if text in ("", "withdrawn", "pending", "unknown", "no action", "deferred", "postponed"):
            return None
        self.fail(f"unknown outcome {value!r}; expected 'adopted', 'rejected' or none", row, field)

    def recorded_vote(
        self, lists: dict[str, list[str]], tally: dict[str, int] | None, row: str, field: str
    ) -> RecordedVote:
        """A RecordedVote with canonical names; unmatched names go to :attr:`countries`."""
        canonical = {
            key: self.countries.canonical(lists.get(key, []), dedupe=False) for key in VOTE_KEYS
        }
        return build(RecordedVote, self.source, row, field, tally=tally, **canonical)

    def step(self, raw: dict, row: str, **fields: Any) -> TrajectoryStep:
        """A :class:`TrajectoryStep` of ``fields``, dated by ``raw["date"]`` (ISO if parseable)."""
        date = iso_date(self.text(raw, "date", row))
        return build(TrajectoryStep, self.source, row, None, date=date, **fields)

    def trajectory(self, **fields: Any) -> Trajectory:
        """A :class:`Trajectory` of ``fields``, with the unmatched names of every list read."""
        unmatched = tuple(self.countries.unmatched)
        return build(Trajectory, self.source, None, None, unmatched_names=unmatched, **fields)
