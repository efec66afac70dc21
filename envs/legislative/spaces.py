"""Stages, actions, action masks and named observation layouts of the legislative envs."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

import numpy as np
from gymnasium import spaces

__all__ = [
    "Action",
    "ObservationLayout",
    "Stage",
    "VALID_ACTIONS",
    "action_mask",
    "unit_box",
]


class Stage(IntEnum):
    """Stages of a resolution in ``Deliberation-v0``."""

    DRAFT = 0
    COMMITTEE_VOTE = 1
    PLENARY_VOTE = 2
    TERMINAL = 3


class Action(IntEnum):
    """Actions of ``Deliberation-v0`` (``RollCall-v0`` uses ``Vote``)."""

    COSPONSOR = 0
    YES = 1
    NO = 2
    ABSTAIN = 3
    NO_ACTION = 4


VALID_ACTIONS: dict[Stage, frozenset[Action]] = {
    Stage.DRAFT: frozenset({Action.COSPONSOR, Action.NO_ACTION}),
    Stage.COMMITTEE_VOTE: frozenset({Action.YES, Action.NO, Action.ABSTAIN, Action.NO_ACTION}),
    Stage.PLENARY_VOTE: frozenset({Action.YES, Action.NO, Action.ABSTAIN, Action.NO_ACTION}),
    Stage.TERMINAL: frozenset(),
}


def action_mask(stage: Stage) -> np.ndarray:
    """Boolean mask over the five :class:`Action` values valid at a stage, shape (5,)."""
    mask = np.zeros(len(Action), dtype=bool)
    for action in VALID_ACTIONS[stage]:
        mask[action] = True
    return mask


def unit_box(n: int) -> spaces.Box:
    """Observation space of n float32 values in [0, 1]."""
    return spaces.Box(low=0.0, high=1.0, shape=(n,), dtype=np.float32)


class ObservationLayout:
    """Names of the observation dimensions, with lookup by name.

    Example:
        >>> layout = ObservationLayout(["issue_hr", "year"])
        >>> layout.index("year"), len(layout)
        (1, 2)
    """

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        if len(set(self.names)) != len(self.names):
            raise ValueError("observation names must be unique")
        self._index = {name: i for i, name in enumerate(self.names)}

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self):
        return iter(self.names)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObservationLayout) and self.names == other.names

    def __hash__(self) -> int:
        return hash(self.names)

    def __repr__(self) -> str:
        return f"ObservationLayout({len(self.names)} names: {', '.join(self.names[:4])}, …)"

    def index(self, name: str) -> int:
        """Position of a named dimension; KeyError names the known ones when unknown."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no observation dimension {name!r}; known: {self.names}") from None

    def indices(self, names: Sequence[str]) -> np.ndarray:
        """Positions of several named dimensions, shape (len(names),)."""
        return np.array([self.index(n) for n in names], dtype=np.int64)
