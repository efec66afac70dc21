"""Stages, actions and action masks of the legislative envs."""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from gymnasium import spaces

__all__ = [
    "Action",
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
