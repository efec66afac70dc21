"""The trajectory containers: a recorded vote, a raw step, and one draft resolution's path."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "OUTCOMES",
    "STAGES",
    "TALLY_KEYS",
    "VOTE_KEYS",
    "RecordedVote",
    "Trajectory",
    "TrajectoryStep",
]

OUTCOMES = ("adopted", "rejected")
"""Values of :attr:`Trajectory.outcome` besides None (unknown)."""

STAGES = (
    "agenda_allocation",
    "draft_submission",
    "committee_deliberation",
    "committee_vote",
    "plenary_discussion",
    "plenary_procedural_vote",
    "plenary_vote",
)
"""Stage names of the stage/timestep JSON layout, in the order a resolution meets them."""

VOTE_KEYS = ("in_favour", "against", "abstaining")
"""Keys of a recorded vote's country lists, in the order yes, no, abstain."""

TALLY_KEYS = ("yes", "no", "abstain")
"""Keys of a recorded vote's reported tally, in the order yes, no, abstain."""


def _check_names(value: object, name: str) -> tuple[str, ...]:
    """A tuple of non-empty strings, or a TypeError/ValueError saying what was found."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a sequence of str, got {type(value).__name__}")
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{name} must hold str, got {type(item).__name__} {item!r}")
        if not item.strip():
            raise ValueError(f"{name} holds an empty name")
    return items


def _check_optional_str(value: object, name: str) -> None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be str or None, got {type(value).__name__}")


def _check_optional_int(value: object, name: str, minimum: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be int or None, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")


@dataclass(frozen=True)
class RecordedVote:
    """A recorded vote: who voted yes, no and abstained, and the tally the source reports.

    The lists and the tally come from different parts of a record and may disagree in real
    data (a truncated list, a country missing from the table); both are kept as found.

    Attributes:
        in_favour: canonical names of the countries that voted yes.
        against: canonical names of the countries that voted no.
        abstaining: canonical names of the countries that abstained.
        tally: reported counts ``{"yes": int, "no": int, "abstain": int}`` (number of
            countries, each >= 0), or None when the source gives none.
    """

    in_favour: tuple[str, ...] = ()
    against: tuple[str, ...] = ()
    abstaining: tuple[str, ...] = ()
    tally: dict[str, int] | None = None

    def __post_init__(self) -> None:
        seen: dict[str, str] = {}
        for key in VOTE_KEYS:
            names = _check_names(getattr(self, key), key)
            object.__setattr__(self, key, names)
            for name in names:
                if name in seen:
                    raise ValueError(
                        f"{name!r} appears twice (in {seen[name]} and {key}); expected each "
                        "country at most once in a recorded vote"
                    )
                seen[name] = key
        if self.tally is not None:
            if not isinstance(self.tally, dict):
                raise TypeError(f"tally must be a dict or None, got {type(self.tally).__name__}")
            if set(self.tally) != set(TALLY_KEYS):
                raise ValueError(
                    f"tally keys are {sorted(self.tally)}, expected {list(TALLY_KEYS)}"
                )
            for key in TALLY_KEYS:
                count = self.tally[key]
                if isinstance(count, bool) or not isinstance(count, int):
                    raise TypeError(f"tally[{key!r}] must be int, got {count!r}")
                if count < 0:
                    raise ValueError(f"tally[{key!r}] must be >= 0, got {count}")
            object.__setattr__(self, "tally", {key: self.tally[key] for key in TALLY_KEYS})

    @property
    def counts(self) -> dict[str, int]:
        """Counts from the country lists: ``{"yes": ..., "no": ..., "abstain": ...}``."""
        lists = (self.in_favour, self.against, self.abstaining)
        return dict(zip(TALLY_KEYS, map(len, lists), strict=True))


@dataclass(frozen=True)
class TrajectoryStep:
    """One raw step of a trajectory, kept as found for text-based agents.

    Attributes:
        t: position of the step in the trajectory, >= 0, unique within a trajectory.
        stage: stage name, one of :data:`STAGES` in the stage JSON layout (a genealogy
            keeps the key of a stage it does not know).
        date: ISO date ``yyyy-mm-dd`` where the source date is parseable, else the raw
            text; None when the source has no date.
        actor: who acts (``"General Assembly"``, ``"Unknown"``, ...), None when not given.
        action_type: kind of action (``"submit_draft"``, ``"recorded_vote"``, ...) or None.
        state: the situation before the action (raw JSON-like mapping).
        action: what was done (raw mapping; votes under ``"votes"``).
        observation: what became known after it (raw mapping; tally under ``"vote_tally"``).
    """

    t: int
    stage: str
    date: str | None = None
    actor: str | None = None
    action_type: str | None = None
    state: dict[str, Any] = field(default_factory=dict)
    action: dict[str, Any] = field(default_factory=dict)
    observation: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.t, bool) or not isinstance(self.t, int):
            raise TypeError(f"t must be int, got {type(self.t).__name__} {self.t!r}")
        if self.t < 0:
            raise ValueError(f"t must be >= 0, got {self.t}")
        if not isinstance(self.stage, str) or not self.stage.strip():
            raise ValueError(f"stage must be a non-empty str, got {self.stage!r}")
        for name in ("date", "actor", "action_type"):
            _check_optional_str(getattr(self, name), name)
        for name in ("state", "action", "observation"):
            if not isinstance(getattr(self, name), dict):
                raise TypeError(f"{name} must be a dict, got {type(getattr(self, name)).__name__}")


@dataclass(frozen=True)
class Trajectory:
    """One draft resolution through the General Assembly, from any of the three layouts.

    Attributes:
        symbol: the resolution symbol if known (``"A/RES/78/196"``), else the draft symbol.
        title: title of the resolution or draft ("" when the source has none).
        session: General Assembly session number (78 for 2023-24), or None.
        committee: Main Committee number (3 = Third Committee), or None.
        agenda_item: agenda item code such as ``"71b"``, or None.
        date: date of the latest decision known: the plenary meeting (genealogy), the
            last dated step (stage JSON), the issue date of the draft (MARC); ISO
            ``yyyy-mm-dd`` where parseable, else the raw text; None when unknown.
        draft_symbol: symbol of the draft (``"A/C.3/78/L.32"``), or None.
        draft_text: text of the draft as the source gives it (may be a preview), or None.
        sponsors: canonical names of the sponsoring countries, in source order.
        additional_sponsors: canonical names of the countries that joined later.
        subjects: subject headings (UNBIS thesaurus terms in MARC records).
        committee_vote: the recorded vote in committee, or None.
        plenary_vote: the recorded vote in plenary, or None.
        outcome: ``"adopted"``, ``"rejected"`` or None (unknown); the last known decision
            on this document, in committee or in plenary.
        resolution_symbol: symbol of the resolution (or decision) it led to, or None.
        steps: the raw steps, ordered by ``t``.
        source: file path plus ``#`` and the record id.
        unmatched_names: every name in a sponsor or vote field that the country table could
            not match (groups, organs, misspellings), in order of first appearance.
    """

    symbol: str
    title: str = ""
    session: int | None = None
    committee: int | None = None
    agenda_item: str | None = None
    date: str | None = None
    draft_symbol: str | None = None
    draft_text: str | None = None
    sponsors: tuple[str, ...] = ()
    additional_sponsors: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    committee_vote: RecordedVote | None = None
    plenary_vote: RecordedVote | None = None
    outcome: str | None = None
    resolution_symbol: str | None = None
    steps: tuple[TrajectoryStep, ...] = ()
    source: str = "in-memory"
    unmatched_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.symbol, str) or not self.symbol.strip():
            raise ValueError(f"symbol must be a non-empty str, got {self.symbol!r}")
        if not isinstance(self.title, str):
            raise TypeError(f"title must be str, got {type(self.title).__name__}")
        if not isinstance(self.source, str):
            raise TypeError(f"source must be str, got {type(self.source).__name__}")
        _check_optional_int(self.session, "session", 0)
        _check_optional_int(self.committee, "committee", 1)
        for name in ("agenda_item", "date", "draft_symbol", "draft_text", "resolution_symbol"):
            _check_optional_str(getattr(self, name), name)
        for name in ("sponsors", "additional_sponsors", "subjects", "unmatched_names"):
            object.__setattr__(self, name, _check_names(getattr(self, name), name))
        for name in ("committee_vote", "plenary_vote"):
            vote = getattr(self, name)
            if vote is not None and not isinstance(vote, RecordedVote):
                raise TypeError(f"{name} must be a RecordedVote or None, got {type(vote).__name__}")
        if self.outcome is not None and self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES} or None, got {self.outcome!r}")
        steps = tuple(self.steps)
        for step in steps:
            if not isinstance(step, TrajectoryStep):
                raise TypeError(f"steps must hold TrajectoryStep, got {type(step).__name__}")
        times = [step.t for step in steps]
        if times != sorted(set(times)):
            raise ValueError(f"step times must be unique and increasing, got {times}")
        object.__setattr__(self, "steps", steps)
