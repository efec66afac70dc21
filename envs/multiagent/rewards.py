"""Every country's reward at once: a mapping country → ``reward_fn``, evaluated in batches.

``assembly_v0`` takes ``rewards``, a mapping from country to a reward function with the
single-agent signature ``reward_fn(obs, action, next_obs, info) -> float`` of
:mod:`assembly_gym.core.rewards` (``obs`` the country's ``RollCall-v0``
observation). A step of the env evaluates them without a loop over countries where it can:

* :class:`LinearCountryRewards` (what ``RewardModel.reward_fns()`` returns): every country's
  linear reward θ_c·φ(s, a) for all agents in one batched product, (N, k) × (N, A, k);
* otherwise the agents are grouped by reward function (one group when every country has
  the same one, as with the default proxy) and each group goes through
  :func:`~assembly_gym.core.rewards.batch_rewards` (its ``batch`` when it has
  one, else one call per agent).

Example:
    >>> import numpy as np
    >>> from assembly_gym.envs.legislative.phi import ActionFeatureMap
    >>> rewards = LinearCountryRewards(("A", "B"), np.zeros((2, 3, 2)),
    ...                                ActionFeatureMap(("x",), ("yes", "no", "abstain")))
    >>> rewards["B"](np.array([0.5]), 0, np.array([0.5]), {})
    0.0
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from assembly_gym.core.rewards import RewardFn, batch_rewards, checked_reward
from assembly_gym.envs.legislative.rewards import LinearReward, recorded_action_match

__all__ = ["CountryRewards", "InputMap", "LinearCountryRewards"]


class InputMap(Protocol):
    """A block feature map φ(s, a) = e_a ⊗ g(s) that also gives g(s) itself."""

    names: tuple[str, ...]

    @property
    def n_actions(self) -> int:
        """Number of actions A."""
        ...

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """g(s) for a batch of observations: (N, d) → (N, k)."""
        ...

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """(N, d) observations → (N, A, A · k) features."""
        ...


class LinearCountryRewards(Mapping[str, LinearReward]):
    """Linear rewards r_c(s, a) = θ_c·φ(s, a) of many countries, evaluated together.

    As a mapping, ``rewards[country]`` is that country's
    :class:`~assembly_gym.envs.legislative.rewards.LinearReward` (the general per-country
    form); :meth:`batch_rows` is what ``assembly_v0`` calls instead, once per step.

    Args:
        countries: the countries, one per row of ``theta``, (C,).
        theta: weights, shape (C, A, k) over ``feature_map``'s inputs g(s).
        feature_map: the block feature map the weights are defined on.

    Raises:
        ValueError: the shapes do not fit, or a country appears twice.
    """

    def __init__(self, countries: Sequence[str], theta: np.ndarray, feature_map: InputMap) -> None:
        self.countries = tuple(countries)
        self.theta = np.asarray(theta, dtype=np.float64)
        self.feature_map = feature_map
        self._rows = {country: i for i, country in enumerate(self.countries)}
        if len(self._rows) != len(self.countries):
            raise ValueError("a country appears twice")
        width = len(feature_map.names) // max(feature_map.n_actions, 1)
        expected = (len(self.countries), feature_map.n_actions, width)
        if self.theta.shape != expected:
            raise ValueError(f"theta has shape {self.theta.shape}, expected {expected} (C, A, k)")

    def __getitem__(self, country: str) -> LinearReward:
        return LinearReward(self.theta[self._rows[country]], self.feature_map)

    def __iter__(self) -> Iterator[str]:
        return iter(self.countries)

    def __len__(self) -> int:
        return len(self.countries)

    def rows(self, countries: Sequence[str]) -> np.ndarray:
        """Rows of ``theta`` of the given countries, (N,) int64.

        Raises:
            KeyError: a country without weights.
        """
        return np.array([self._rows[country] for country in countries], dtype=np.int64)

    def batch_rows(
        self, rows: np.ndarray, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray,
        infos: dict[str, Any],
    ) -> np.ndarray:  # fmt: skip
        """θ_{rows[i]}·φ(obs_i, actions_i) for N agents at once, shape (N,)."""
        values = np.einsum("nk,nak->na", self.feature_map.inputs(obs), self.theta[rows])  # (N, A)
        return checked_reward(self, values[np.arange(len(rows)), np.asarray(actions)])


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
        self._linear: LinearCountryRewards | None = None
        if rewards is None:
            self._function = np.zeros(len(agents), dtype=np.int64)
            self._fns: list[RewardFn] = [recorded_action_match]
            return
        missing = [agent for agent in agents if agent not in rewards]
        if missing:
            raise ValueError(
                f"rewards has no reward function for {len(missing)} agents, e.g. {missing[:3]}"
            )
        if isinstance(rewards, LinearCountryRewards):
            self._linear = rewards
            self._function = rewards.rows(agents)
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
        if self._linear is not None:
            return self._linear.batch_rows(which, obs, actions, next_obs, infos)
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
