"""What an env family's state dimensions are: a declaration the model layer reads.

A world model learns s' from the observation layout's names and the data; the names alone
do not say which dimensions form a stage, a one-hot vote or the shares of a vote, nor when
an episode ends. Each env family says so in a :class:`StateDeclaration` (``Deliberation-v0``
next to its ``STATE_NAMES``); :mod:`assembly_gym.world_models` and ``Simulator-v0`` read
it instead of knowing any env's names. A declared group applies to a layout only when all
of its dimensions are in the layout.

Example:
    >>> declaration = StateDeclaration(
    ...     names=("phase_open", "phase_closed", "for", "against", "none", "passed"),
    ...     stages=Stages(("phase_open", "phase_closed"), ("OPEN", "CLOSED"), "CLOSED"),
    ...     votes=(VoteGroup("ballot", ("for", "against", "none")),),
    ...     outcome=OutcomeRule("passed", "ballot", majority=2 / 3),
    ... )
    >>> declaration.outcome.passed(np.array([0.7, 0.6]), np.array([0.3, 0.4])).tolist()
    [True, False]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["OneHotGroup", "OutcomeRule", "Stages", "StateDeclaration", "VoteGroup"]

_RESERVED = ("stage", "done")  # head names of the stage and of the end of an episode


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
    """The 0/1 dimension ``outcome`` is 1 iff the vote ``votes`` passed.

    A vote passes when its yes share exceeds ``majority`` of the yes and no shares:
    yes > majority · (yes + no); ``majority=0.5`` is yes > no.

    Attributes:
        outcome: the outcome dimension's name (e.g. ``adopted``).
        votes: the prefix of the :class:`VoteGroup` that decides it.
        majority: the fraction of yes among yes and no votes that must be exceeded, in (0, 1).
    """

    outcome: str
    votes: str
    majority: float = 0.5

    def __post_init__(self) -> None:
        if not 0 < self.majority < 1:
            raise ValueError(f"majority must lie in (0, 1), got {self.majority}")

    def passed(self, yes: np.ndarray, no: np.ndarray) -> np.ndarray:
        """Whether each vote with these yes and no shares passed, same shape, bool."""
        return np.asarray(yes) * (1 - self.majority) > np.asarray(no) * self.majority


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
        outcome: the 0/1 outcome a vote decides, kept consistent with it, or None.
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
            *((self.outcome.outcome,) if self.outcome else ()),
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

    def vote(self, prefix: str) -> VoteGroup:
        """The vote group named ``prefix``."""
        return next(group for group in self.votes if group.prefix == prefix)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        stages, outcome = self.stages, self.outcome
        return {
            "names": list(self.names),
            "stages": None if stages is None else {
                "dims": list(stages.dims), "labels": list(stages.labels),
                "terminal": stages.terminal,
            },
            "one_hot": [{"name": g.name, "dims": list(g.dims), "has_none": g.has_none}
                        for g in self.one_hot],
            "votes": [{"prefix": g.prefix, "dims": list(g.dims)} for g in self.votes],
            "shares": list(self.shares),
            "outcome": None if outcome is None else {
                "outcome": outcome.outcome, "votes": outcome.votes, "majority": outcome.majority,
            },
        }  # fmt: skip

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
                outcome["outcome"], outcome["votes"], float(outcome["majority"])
            ),
        )  # fmt: skip
