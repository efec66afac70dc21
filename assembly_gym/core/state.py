"""What an env family's state dimensions are, and the rule that decides its votes.

Each env family declares which dimensions form a stage, a one-hot vote or the shares of a
vote, and when an episode ends, in a :class:`StateDeclaration`, and decides its votes by an
:class:`OutcomeRule`; why and who reads them: docs/architecture.md, "An env family declares
its state". A declared group applies to a layout only when all of its dimensions are in it.

Example:
    >>> declaration = StateDeclaration(
    ...     names=("phase_open", "phase_closed", "for", "against", "none", "passed"),
    ...     stages=Stages(("phase_open", "phase_closed"), ("OPEN", "CLOSED"), "CLOSED"),
    ...     votes=(VoteGroup("ballot", ("for", "against", "none")),),
    ...     outcome=OutcomeRule("passed", "ballot", majority=2 / 3),
    ... )
    >>> declaration.outcome.passed(np.array([0.7, 0.6]), np.array([0.3, 0.4])).tolist()
    [True, False]

    A council of five whose first two members hold a veto, adopting with 3 of 5 yes:

    >>> council = OutcomeRule("adopted", "council", quota=0.6, veto=(0, 1))
    >>> yes, no, abstain = Vote.YES, Vote.NO, Vote.ABSTAIN
    >>> council(np.array([[yes, yes, yes, no, no], [yes, no, yes, yes, yes],
    ...                   [abstain, yes, yes, yes, ABSENT], [yes, yes, no, abstain, abstain]]))
    array([ True, False,  True, False])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import IntEnum
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "ABSENT", "OneHotGroup", "OutcomeRule", "Stages", "StateDeclaration", "Vote", "VoteGroup",
]  # fmt: skip

_RESERVED = ("stage", "done")  # head names of the stage and of the end of an episode
_QUOTA_SLACK = 1e-6  # float rounding of a share or of quota × members never misses a quota


class Vote(IntEnum):
    """A member's vote, as every vote matrix (and a vote's action) codes it."""

    YES = 0
    NO = 1
    ABSTAIN = 2


ABSENT = -1
"""Vote code for "did not vote" (absent, non-member or not recorded); any negative code is."""


@dataclass(frozen=True)
class Stages:
    """The stage of an episode: a one-hot block, and the stage that ends the episode.

    Attributes:
        dims: one dimension name per stage, in stage order.
        labels: the name of each stage (what ``info["stage"]`` reports), in the same order.
        terminal: the label of the stage at which the episode ends.
    """

    dims: tuple[str, ...]
    labels: tuple[str, ...]
    terminal: str

    def __post_init__(self) -> None:
        if not self.dims or len(self.labels) != len(self.dims):
            raise ValueError(f"{len(self.dims)} stage dims need as many labels, not {self.labels}")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"stage labels must be unique, got {self.labels}")
        if self.terminal not in self.labels:
            raise ValueError(f"terminal stage {self.terminal!r} is not one of {self.labels}")


@dataclass(frozen=True)
class OneHotGroup:
    """Dimensions of which at most one is 1 (a categorical), e.g. a country's own vote.

    Attributes:
        name: name of the group (of its distribution in a world model).
        dims: the dimension names, one per class.
        has_none: whether all-zero is a class too (no vote yet).
    """

    name: str
    dims: tuple[str, ...]
    has_none: bool


@dataclass(frozen=True)
class VoteGroup:
    """The yes / no / abstain shares of a vote: non-negative, summing to 1, or all 0 before it.

    Attributes:
        prefix: name of the vote (its distributions are ``<prefix>_yes_bin`` and
            ``<prefix>_no_rest_bin`` in a world model).
        dims: the yes, no and abstain share dimension names, in that order.
    """

    prefix: str
    dims: tuple[str, str, str]

    def __post_init__(self) -> None:
        if len(self.dims) != 3:
            raise ValueError(f"vote {self.prefix!r} needs (yes, no, abstain) dims, got {self.dims}")


@dataclass(frozen=True)
class OutcomeRule:
    """How a vote is decided; in a state, the 0/1 dimension ``outcome`` says it passed.

    A vote passes when its yes votes exceed ``majority`` of the yes and no votes
    (yes > majority · (yes + no); ``majority=0.5`` is yes > no), reach ``quota`` of all
    members, and no member of ``veto`` voted no. Call the rule on the members' votes; the
    envs that only count the votes use :meth:`passed`, the world models :meth:`from_state`.

    Attributes:
        outcome: the outcome dimension's name (e.g. ``adopted``).
        votes: the prefix of the :class:`VoteGroup` that decides it.
        majority: the fraction of yes among yes and no votes that must be exceeded, in (0, 1).
        quota: the fraction of all members that must vote yes, in [0, 1] (9 of 15: 0.6;
            0: no quota). In a state it is checked on the yes share, so a family with a
            quota declares shares of all members.
        veto: the member indices (into the last axis of the votes) whose no blocks.
        veto_dims: for world models, one 0/1 state dimension per ``veto`` member, 1 when it
            voted no; required when there is a veto and the rule is declared in a state.
    """

    outcome: str = "adopted"
    votes: str = "plenary"
    majority: float = 0.5
    quota: float = 0.0
    veto: tuple[int, ...] = ()
    veto_dims: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 < self.majority < 1:
            raise ValueError(f"majority must lie in (0, 1), got {self.majority}")
        if not 0 <= self.quota <= 1:
            raise ValueError(f"quota must lie in [0, 1], got {self.quota}")
        if any(member < 0 for member in self.veto) or len(set(self.veto)) != len(self.veto):
            raise ValueError(f"veto members must be distinct indices >= 0, got {self.veto}")
        if self.veto_dims and len(self.veto_dims) != len(self.veto):
            raise ValueError(
                f"veto_dims needs one dimension per veto member {self.veto}, got {self.veto_dims}"
            )

    def __call__(self, votes: ArrayLike) -> np.ndarray:
        """Whether each vote passed, from the members' votes.

        Args:
            votes: :class:`Vote` codes, negative for absent, shape (..., n_members).

        Returns:
            Shape (...), bool.

        Raises:
            ValueError: a veto member's index is not below n_members.
        """
        votes = np.asarray(votes)
        if self.veto and max(self.veto) >= votes.shape[-1]:
            raise ValueError(f"veto members {self.veto} need votes of more than "
                             f"{votes.shape[-1]} members")  # fmt: skip
        yes = np.count_nonzero(votes == Vote.YES, axis=-1)
        no = np.count_nonzero(votes == Vote.NO, axis=-1)
        vetoed = (votes[..., list(self.veto)] == Vote.NO).any(axis=-1) if self.veto else None
        return np.asarray(self.passed(yes, no, members=votes.shape[-1], vetoed=vetoed))

    def passed(self, yes: Any, no: Any, *, members: float = 1, vetoed: Any = None) -> Any:
        """Whether votes with these yes and no counts (or shares) passed.

        Python numbers give a bool, arrays a bool array of their broadcast shape.

        Args:
            yes: yes votes, counts or shares.
            no: no votes, same shape.
            members: what the counts are out of, for the quota (1 for shares).
            vetoed: whether a veto member voted no, same shape; needed when there is a veto.

        Raises:
            ValueError: the rule has a veto and ``vetoed`` is None.
        """
        adopted = yes * (1 - self.majority) > no * self.majority
        if self.quota:
            adopted = adopted & (yes >= (self.quota - _QUOTA_SLACK) * members)
        if self.veto:
            if vetoed is None:
                raise ValueError(f"the rule of {self.outcome!r} has a veto: pass vetoed")
            adopted = adopted & ~np.asarray(vetoed, dtype=bool)
        return adopted

    def vetoed(self, values: ArrayLike, names: Sequence[str]) -> np.ndarray:
        """Whether a veto member voted no, from the ``veto_dims`` of states, shape (...) bool.

        Args:
            values: states, shape (..., len(names)).
            names: the states' dimension names.

        Raises:
            ValueError: the rule has a veto and ``names`` lacks one of its ``veto_dims``.
        """
        values = np.asarray(values)
        if self.veto and not (self.veto_dims and set(self.veto_dims) <= set(names)):
            raise ValueError(f"the veto of {self.outcome!r} needs its veto_dims among the "
                             f"state's names, got veto_dims {self.veto_dims}")  # fmt: skip
        columns = [list(names).index(name) for name in self.veto_dims]
        return np.asarray((values[..., columns] > 0.5).any(axis=-1))

    def from_state(self, values: ArrayLike, names: Sequence[str], vote: VoteGroup) -> np.ndarray:
        """Whether the vote passed, from states that hold its shares (and the veto dims).

        Args:
            values: states, shape (..., len(names)).
            names: the states' dimension names.
            vote: the declared :class:`VoteGroup` named ``votes`` (its yes and no shares).

        Returns:
            Shape (...), bool.

        Raises:
            ValueError: ``vote`` is not the rule's vote, or the names lack one of its dims.
        """
        if vote.prefix != self.votes:
            raise ValueError(f"the rule of {self.outcome!r} is decided by the vote "
                             f"{self.votes!r}, not {vote.prefix!r}")  # fmt: skip
        values = np.asarray(values)
        yes, no = (values[..., list(names).index(name)] for name in vote.dims[:2])
        return np.asarray(self.passed(yes, no, vetoed=self.vetoed(values, names)))


@dataclass(frozen=True)
class StateDeclaration:
    """An env family's state: its named dimensions and what each structured group is.

    Dimensions the declaration does not group are treated by what the data shows: copied
    if they never change within an episode, 0/1 flags, or continuous values. The empty
    declaration (no stages: a ``done`` head ends episodes) fits any layout.

    Attributes:
        names: the family's state dimensions, in layout order (what a simulator shows).
        stages: the stage one-hot and its terminal stage, or None (episodes end by ``done``).
        one_hot: categorical groups besides the stage.
        votes: vote-share groups.
        shares: single shares in [0, 1], modelled as binned categoricals.
        outcome: the 0/1 outcome a vote decides, kept consistent with it (and with its
            veto dimensions, 0/1 flags), or None.
    """

    names: tuple[str, ...] = ()
    stages: Stages | None = None
    one_hot: tuple[OneHotGroup, ...] = ()
    votes: tuple[VoteGroup, ...] = ()
    shares: tuple[str, ...] = ()
    outcome: OutcomeRule | None = None

    def __post_init__(self) -> None:
        if len(set(self.names)) != len(self.names):
            raise ValueError("declared state names must be unique")
        grouped = [
            *(self.stages.dims if self.stages else ()),
            *(dim for group in self.one_hot for dim in group.dims),
            *(dim for group in self.votes for dim in group.dims),
            *self.shares,
            *((self.outcome.outcome, *self.outcome.veto_dims) if self.outcome else ()),
        ]
        if unknown := [dim for dim in grouped if dim not in self.names]:
            raise ValueError(f"grouped dimensions {unknown} are not among the declared names")
        if len(set(grouped)) != len(grouped):
            raise ValueError("a dimension belongs to at most one group")
        groups = [group.name for group in self.one_hot]
        if len(set(groups)) != len(groups) or set(groups) & {*_RESERVED, *self.names}:
            raise ValueError(
                f"one-hot group names {groups} must be unique, differ from the dimension "
                f"names and from {_RESERVED}"
            )
        prefixes = [group.prefix for group in self.votes]
        if len(set(prefixes)) != len(prefixes):
            raise ValueError(f"vote prefixes must be unique, got {prefixes}")
        if self.outcome is not None and self.outcome.votes not in prefixes:
            raise ValueError(f"the outcome's vote {self.outcome.votes!r} is not one of {prefixes}")
        if self.outcome is not None and self.outcome.veto and not self.outcome.veto_dims:
            raise ValueError("a declared outcome with a veto needs its veto_dims")

    def vote(self, prefix: str) -> VoteGroup:
        """The vote group named ``prefix``."""
        return next(group for group in self.votes if group.prefix == prefix)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form: the fields, nested groups as dicts of their fields."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StateDeclaration:
        """Inverse of :meth:`to_dict`."""
        stages, outcome = data["stages"], data["outcome"]
        return cls(
            names=tuple(data["names"]),
            stages=None if stages is None else Stages(
                tuple(stages["dims"]), tuple(stages["labels"]), stages["terminal"]
            ),
            one_hot=tuple(OneHotGroup(g["name"], tuple(g["dims"]), bool(g["has_none"]))
                          for g in data["one_hot"]),
            votes=tuple(VoteGroup(g["prefix"], tuple(g["dims"])) for g in data["votes"]),
            shares=tuple(data["shares"]),
            outcome=None if outcome is None else OutcomeRule(
                outcome["outcome"], outcome["votes"], float(outcome["majority"]),
                float(outcome["quota"]), tuple(outcome["veto"]), tuple(outcome["veto_dims"]),
            ),
        )  # fmt: skip
