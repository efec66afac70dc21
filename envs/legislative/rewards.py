"""Reward functions for the legislative envs: the documented proxy and linear rewards.

Every env takes ``reward_fn(obs, action, next_obs, info) -> float``, where ``obs`` is the
observation the action was taken in and ``info`` is the step's info dict (it holds the
country's ``recorded_action`` when the data has one).

A reward function may also offer ``batch(obs, actions, next_obs, infos) -> (N,)`` over
stacked arrays (``infos`` a dict of arrays, ``recorded_action`` −1 where unknown); vector
envs use it when present (:func:`batch_rewards`) and call the function row by row otherwise.
Every env passes what a reward function returns through :func:`checked_reward`: a NaN or
infinite reward raises :class:`~assembly_gym.core.errors.RewardFunctionError` before the env
moves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

from assembly_gym.core.errors import RewardFunctionError

__all__ = [
    "FeatureMap",
    "LinearReward",
    "RecordedActionMatch",
    "RewardFn",
    "batch_rewards",
    "checked_reward",
    "recorded_action_match",
]

RewardFn = Callable[[np.ndarray, int, np.ndarray, dict[str, Any]], float]
_Rewards = TypeVar("_Rewards", float, np.ndarray)


def checked_reward(reward_fn: Any, reward: _Rewards) -> _Rewards:
    """``reward`` unchanged when it is finite: one step's float, or a batch's (N,) array.

    Raises:
        RewardFunctionError: a value is NaN or infinite; the message names ``reward_fn``
            (its module and qualified name, else its repr), the value and, in a batch, the row.
    """
    if isinstance(reward, float):
        if math.isfinite(reward):
            return reward
        where, value = "", reward
    else:
        bad = np.flatnonzero(~np.isfinite(reward))
        if not bad.size:
            return reward
        where, value = f" for row {bad[0]} of a batch of {len(reward)}", reward[bad[0]]
    name = getattr(reward_fn, "__qualname__", None)
    module = getattr(reward_fn, "__module__", None)
    name = f"{module}.{name}" if name and module else name or repr(reward_fn)
    raise RewardFunctionError(
        f"reward function {name} returned {float(value)!r}{where}: rewards must be finite"
    )


class FeatureMap(Protocol):
    """φ(s, a): named features of every action in a batch of observations."""

    names: tuple[str, ...]

    @property
    def n_actions(self) -> int:
        """Number of actions A."""
        ...

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """(N, d) observations → (N, A, D) features."""
        ...


class RecordedActionMatch:
    """The default proxy reward: 1 when the action equals what the country actually did.

    0 when it differs or when the record has no action for this step
    (``info["recorded_action"]`` missing, None, or −1 in a batch). Summed over an episode it
    counts the decisions an agent reproduces: a perfect imitator's return is the episode length.
    """

    def __call__(
        self, obs: np.ndarray, action: int, next_obs: np.ndarray, info: dict[str, Any]
    ) -> float:
        """Reward of one step."""
        recorded = info.get("recorded_action")
        return float(recorded is not None and int(action) == int(recorded))

    def batch(
        self, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray, infos: dict[str, Any]
    ) -> np.ndarray:
        """Rewards of a batch of steps, shape (N,)."""
        return (np.asarray(actions) == infos["recorded_action"]).astype(np.float64)


recorded_action_match = RecordedActionMatch()


def batch_rewards(
    reward_fn: RewardFn, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray,
    infos: dict[str, Any],
) -> np.ndarray:  # fmt: skip
    """Rewards of N steps: ``reward_fn.batch`` when it has one, else one call per row.

    Args:
        reward_fn: the reward function.
        obs: observations the actions were taken in, shape (N, d).
        actions: actions, shape (N,).
        next_obs: observations after the step, shape (N, d).
        infos: per-step info fields as arrays of length N (a dict-valued field, such as
            Deliberation's ``tally``, as a dict of such arrays); row i is handed to
            ``reward_fn`` as the single env's info of that step.

    Raises:
        RewardFunctionError: a reward is not finite (see :func:`checked_reward`).
    """
    batch = getattr(reward_fn, "batch", None)
    if batch is not None:
        return checked_reward(reward_fn, np.asarray(batch(obs, actions, next_obs, infos), float))
    rewards = np.empty(len(actions))
    for i, action in enumerate(actions):
        info = {
            key: {k: v[i] for k, v in value.items()} if isinstance(value, dict) else value[i]
            for key, value in infos.items()
        }
        rewards[i] = reward_fn(obs[i], int(action), next_obs[i], info)
    return checked_reward(reward_fn, rewards)


class LinearReward:
    """r(s, a) = θ·φ(s, a) for a feature map φ and a weight vector θ.

    Args:
        theta: weights, shape (D,) (or any shape with D entries, e.g. (A, 1 + d)).
        feature_map: the φ the weights are defined on.
    """

    def __init__(self, theta: np.ndarray, feature_map: FeatureMap) -> None:
        self.theta = np.asarray(theta, dtype=np.float64).reshape(-1)
        self.feature_map = feature_map
        if self.theta.size != len(feature_map.names):
            raise ValueError(
                f"theta has {self.theta.size} entries but the feature map has "
                f"{len(feature_map.names)} features"
            )

    def values(self, obs: np.ndarray) -> np.ndarray:
        """Rewards of every action for a batch of observations: (N, d) → (N, A)."""
        return self.feature_map(np.atleast_2d(obs)) @ self.theta

    def __call__(
        self, obs: np.ndarray, action: int, next_obs: np.ndarray, info: dict[str, Any]
    ) -> float:
        """θ·φ(obs, action); the other arguments are part of the reward-function signature."""
        return float(self.values(obs)[0, int(action)])

    def batch(
        self, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray, infos: dict[str, Any]
    ) -> np.ndarray:
        """θ·φ(obs_i, action_i) for a batch, shape (N,)."""
        return self.values(obs)[np.arange(len(actions)), np.asarray(actions)]
