"""Every country's reward at once: a mapping country → ``reward_fn``, evaluated in batches.

``assembly_v0`` takes ``rewards``, a mapping from country to a reward function with the
single-agent signature ``reward_fn(obs, action, next_obs, info) -> float`` of
:mod:`assembly_gym.core.rewards` (``obs`` the country's ``RollCall-v0``
observation). A step of the env evaluates them without a loop over countries where it can:

* a :class:`BatchedRewards` (what ``RewardModel.reward_fns()`` of ``assembly_gym.irl``
  returns): every country's reward for all agents in one call, ``batch_rows``;
* otherwise the agents are grouped by reward function (one group when every country has
  the same one, as with the default proxy) and each group goes through
  :func:`~assembly_gym.core.rewards.batch_rewards` (its ``batch`` when it has
  one, else one call per agent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

import numpy as np

from assembly_gym.core.rewards import RewardFn, batch_rewards
from assembly_gym.envs.legislative.rewards import recorded_action_match

__all__ = ["BatchedRewards", "CountryRewards"]


class BatchedRewards(Protocol):
    """A mapping country → ``reward_fn`` that also evaluates many countries at once."""

    def __getitem__(self, country: str) -> RewardFn: ...

    def __contains__(self, country: object) -> bool: ...

    def rows(self, countries: Sequence[str]) -> np.ndarray:
        """Row ids of the given countries, (N,) int64 (KeyError: one without a reward)."""
        ...

    def batch_rows(
        self, rows: np.ndarray, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray,
        infos: dict[str, Any],
    ) -> np.ndarray:  # fmt: skip
        """The reward of row ``rows[i]`` for (obs_i, actions_i), N agents at once, (N,)."""
        ...


class CountryRewards:
    """The rewards of a fixed list of agents, evaluated batched (see the module's text).

    Args:
        agents: the agents (country names), in the env's order, (C,).
        rewards: country → reward function (every agent must have one), or None: the
            documented proxy :func:`~assembly_gym.envs.legislative.rewards.recorded_action_match`
            (1 for the country's recorded vote) for all.

    Raises:
        ValueError: ``rewards`` lacks some agents (the message names the first ones).
    """

    def __init__(self, agents: Sequence[str], rewards: Mapping[str, RewardFn] | None) -> None:
        self._batched: BatchedRewards | None = None
        if rewards is None:
            self._function = np.zeros(len(agents), dtype=np.int64)
            self._fns: list[RewardFn] = [recorded_action_match]
            return
        missing = [agent for agent in agents if agent not in rewards]
        if missing:
            raise ValueError(
                f"rewards has no reward function for {len(missing)} agents, e.g. {missing[:3]}"
            )
        if hasattr(rewards, "batch_rows"):
            self._batched = cast(BatchedRewards, rewards)
            self._function = self._batched.rows(agents)
            self._fns = []
            return
        ids: dict[int, int] = {}
        self._fns = []
        for agent in agents:
            fn = rewards[agent]
            if id(fn) not in ids:
                ids[id(fn)] = len(self._fns)
                self._fns.append(fn)
        self._function = np.array([ids[id(rewards[agent])] for agent in agents], dtype=np.int64)

    def __call__(
        self, agents: np.ndarray, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray,
        infos: dict[str, Any],
    ) -> np.ndarray:  # fmt: skip
        """Rewards of the agents at positions ``agents`` (N,) of the list, shape (N,).

        Args:
            agents: positions of the acting agents in the constructor's list, (N,).
            obs: their ``RollCall-v0`` observations the actions were taken in, (N, d).
            actions: their actions, (N,).
            next_obs: their observations after the step, (N, d).
            infos: per-agent info fields as arrays of length N (``recorded_action``: −1
                where the record has no vote).

        Raises:
            RewardFunctionError: a reward is NaN or infinite.
        """
        which = self._function[agents]
        if self._batched is not None:
            return self._batched.batch_rows(which, obs, actions, next_obs, infos)
        if len(self._fns) == 1:
            return batch_rewards(self._fns[0], obs, actions, next_obs, infos)
        rewards = np.empty(len(agents))
        for f in np.unique(which):
            rows = np.flatnonzero(which == f)
            part = {key: np.asarray(value)[rows] for key, value in infos.items()}
            rewards[rows] = batch_rewards(
                self._fns[f], obs[rows], actions[rows], next_obs[rows], part
            )
        return rewards
