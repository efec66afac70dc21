"""``council/Council-v0``: one draft resolution of a council of 15 with 5 vetoes.

## Description
The agent holds the last of 15 seats, an elected one; seats 0–4 are permanent members
with a veto. A draft is first put forward (the agent may sponsor it, which raises every
other member's support), then voted on. It is adopted iff at least 9 members vote yes,
more vote yes than no, and no permanent member votes no (:data:`RULE`).

## Action Space
``Discrete(3)``: yes, no, abstain (:class:`~assembly_gym.core.state.Vote`); at the draft
stage, yes sponsors the draft and the others do not.

## Observation Space
``Box(0, 1, (14,), float32)``, :data:`STATE_NAMES`: the draft's support (the chance that
a member votes yes), the stage (draft, vote, closed), whether the agent sponsored it, the
yes, no and abstain shares of all members (0 before the vote), one flag per permanent
member that voted no, and whether it was adopted.

## Rewards
1 when the outcome is the agent's vote (yes and adopted, or no and rejected), else 0.

## Starting State
The support drawn uniformly in [0.3, 0.9], stage draft.

## Episode End
Terminated after the vote (two steps).

## Version History
* v0: initial version.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.state import OutcomeRule, Stages, StateDeclaration, Vote, VoteGroup
from assembly_gym.envs.options import OptionTypes, checked_options

MEMBERS, PERMANENT, SEAT = 15, (0, 1, 2, 3, 4), 14
"""Council size, the seats with a veto, the agent's seat."""
DRAWS = MEMBERS
"""Uniforms drawn per episode: the draft's support, then one per other member's vote."""
STAGES = Stages(("stage_draft", "stage_vote", "stage_closed"), ("DRAFT", "VOTE", "CLOSED"),
                "CLOSED")  # fmt: skip
VETO_DIMS = tuple(f"veto_{seat}" for seat in PERMANENT)
RULE = OutcomeRule("adopted", "council", quota=9 / MEMBERS, veto=PERMANENT, veto_dims=VETO_DIMS)
VOTES = VoteGroup("council", ("council_yes", "council_no", "council_abstain"))
STATE_NAMES = ("support", *STAGES.dims, "sponsored", *VOTES.dims, *VETO_DIMS, "adopted")
DECLARATION = StateDeclaration(names=STATE_NAMES, stages=STAGES, votes=(VOTES,), outcome=RULE)
_AT = {name: i for i, name in enumerate(STATE_NAMES)}
_STAGE = [_AT[dim] for dim in STAGES.dims]


def start_states(draws: np.ndarray) -> np.ndarray:
    """The first observations of k episodes, from their draws (k, :data:`DRAWS`), (k, d)."""
    obs = np.zeros((len(draws), len(STATE_NAMES)), dtype=np.float32)
    obs[:, _AT["support"]] = 0.3 + 0.6 * draws[:, 0]
    obs[:, _AT["stage_draft"]] = 1
    return obs


def votes_of(obs: np.ndarray, own: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Every member's :class:`Vote` on k drafts: the others' from their draws, (k, 15)."""
    p = np.minimum(obs[:, _AT["support"]] + 0.15 * obs[:, _AT["sponsored"]], 0.95)[:, None]
    u = draws[:, 1:]  # (k, 14): seats 0..13
    permanent = np.arange(MEMBERS - 1) < len(PERMANENT)
    # an elected member says no to 60 % of what it does not back, a permanent one to 30 %
    no_share = np.where(permanent, 0.3, 0.6)
    others = np.where(u < p, Vote.YES, np.where(u < p + (1 - p) * no_share, Vote.NO, Vote.ABSTAIN))
    return np.column_stack([others, own])


def council_step(
    obs: np.ndarray, actions: np.ndarray, draws: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step of k episodes: what the single env and the vector env both call.

    Args:
        obs: current observations, shape (k, d).
        actions: the agent's actions, shape (k,).
        draws: the episodes' draws, shape (k, :data:`DRAWS`).

    Returns:
        Next observations (k, d), rewards (k,) and terminated (k,).
    """
    nxt = obs.copy()
    drafting = obs[:, _AT["stage_draft"]] == 1
    nxt[:, _STAGE] = np.where(drafting[:, None], [0, 1, 0], [0, 0, 1])
    nxt[drafting, _AT["sponsored"]] = actions[drafting] == Vote.YES
    rewards = np.zeros(len(obs))
    voting = ~drafting
    if voting.any():
        votes = votes_of(obs[voting], actions[voting], draws[voting])
        adopted = RULE(votes)
        for vote, dim in zip(Vote, VOTES.dims, strict=True):
            nxt[voting, _AT[dim]] = (votes == vote).mean(axis=1)
        nxt[np.ix_(voting, [_AT[d] for d in VETO_DIMS])] = votes[:, list(PERMANENT)] == Vote.NO
        nxt[voting, _AT["adopted"]] = adopted
        own = actions[voting]
        rewards[voting] = ((own == Vote.YES) & adopted) | ((own == Vote.NO) & ~adopted)
    return nxt, rewards, voting


class CouncilEnv(gym.Env):
    """One draft before the council; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": []}
    RESET_OPTIONS: OptionTypes = {}
    layout = ObservationLayout(STATE_NAMES)

    def __init__(self, render_mode: str | None = None) -> None:
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (len(STATE_NAMES),), np.float32)
        self.action_space = spaces.Discrete(len(Vote))
        self._obs = np.zeros((1, len(STATE_NAMES)), np.float32)
        self._draws = np.zeros((1, DRAWS))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        checked_options(options, self.RESET_OPTIONS, "Council-v0")
        self._draws = self.np_random.random(DRAWS)[None]
        self._obs = start_states(self._draws)
        return self._obs[0].copy(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self.action_space.contains(action):
            raise ValueError(f"action must be in {self.action_space}, got {action!r}")
        self._obs, rewards, terminated = council_step(self._obs, np.array([action]), self._draws)
        return self._obs[0].copy(), float(rewards[0]), bool(terminated[0]), False, self._info()

    def _info(self) -> dict[str, Any]:
        return {"action_mask": np.ones(len(Vote), dtype=bool)}
