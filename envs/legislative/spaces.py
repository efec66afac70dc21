"""Stages, actions, action masks and the support bins of the vote stages of the legislative envs."""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from gymnasium import spaces

__all__ = [
    "Action",
    "SPONSOR_SHARE_EDGES",
    "Stage",
    "VALID_ACTIONS",
    "YES_SHARE_EDGES",
    "action_mask",
    "support_bin",
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


SPONSOR_SHARE_EDGES = np.array([0.02, 0.10, 0.25, 0.50])
"""Bin edges of the sponsor share (the support shown before the committee vote)."""
YES_SHARE_EDGES = np.array([0.50, 0.65, 0.80, 0.90])
"""Bin edges of the committee yes share among voters (the support before the plenary vote)."""


def support_bin(stage: Stage, share: float | np.ndarray) -> np.ndarray:
    """Support bin 0..4 of a share: sponsor share (committee) or committee yes share (plenary).

    Args:
        stage: COMMITTEE_VOTE or PLENARY_VOTE.
        share: the share(s), in [0, 1]; an edge opens the bin above it.

    Returns:
        The bin of each share, same shape as ``share``, int.
    """
    edges = SPONSOR_SHARE_EDGES if stage == Stage.COMMITTEE_VOTE else YES_SHARE_EDGES
    return np.searchsorted(edges, share, side="right")


def unit_box(n: int) -> spaces.Box:
    """Observation space of n float32 values in [0, 1]."""
    return spaces.Box(low=0.0, high=1.0, shape=(n,), dtype=np.float32)
