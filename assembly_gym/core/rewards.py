"""What every env takes as a reward function, and how its rewards are checked and batched.

Every env takes ``reward_fn(obs, action, next_obs, info) -> float`` (:data:`RewardFn`),
where ``obs`` is the observation the action was taken in and ``info`` is the step's info
dict (in the legislative envs it holds the country's ``recorded_action`` when the data has
one).

A reward function may also offer ``batch(obs, actions, next_obs, infos) -> (N,)`` over
stacked arrays (``infos`` a dict of arrays); vector envs use it when present
(:func:`batch_rewards`) and call the function row by row otherwise. Every env passes what a
reward function returns through :func:`checked_reward`: a NaN or infinite reward raises
:class:`~assembly_gym.core.errors.RewardFunctionError` before the env moves.

Example:
    >>> def yes_pays(obs, action, next_obs, info):
    ...     return float(action == 0)
    >>> batch_rewards(yes_pays, np.zeros((3, 2)), np.array([0, 1, 0]), np.zeros((3, 2)), {})
    array([1., 0., 1.])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from assembly_gym.core.errors import RewardFunctionError

__all__ = ["ActionValuesReward", "RewardFn", "batch_rewards", "checked_reward"]

RewardFn = Callable[[np.ndarray, int, np.ndarray, dict[str, Any]], float]
"""``reward_fn(obs, action, next_obs, info) -> float``: the reward of one step."""
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


def batch_rewards(
    reward_fn: RewardFn, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray,
    infos: dict[str, Any],
) -> np.ndarray:  # fmt: skip
    """Rewards of N steps: ``reward_fn.batch`` when it has one, else one call per row.

    Args:
        reward_fn: the reward function.
        obs: observations the actions were taken in, shape (N, d).
        actions: actions, shape (N,) (row i handed over as an int), or (N, k) (as a row).
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
        action = int(action) if actions.ndim == 1 else action  # as the single env hands it
        rewards[i] = reward_fn(obs[i], action, next_obs[i], info)
    return checked_reward(reward_fn, rewards)


class ActionValuesReward:
    """A ``reward_fn`` read from the rewards of every action: r(s, a) = values(s)[a].

    Subclasses give :meth:`values`; the single and the batched signature come from it.
    """

    def values(self, obs: np.ndarray) -> np.ndarray:
        """Rewards of every action for a batch of observations: (N, d) → (N, A)."""
        raise NotImplementedError

    def __call__(
        self, obs: np.ndarray, action: int, next_obs: np.ndarray, info: dict[str, Any]
    ) -> float:
        """r(obs, action); the other arguments are part of the reward-function signature."""
        return float(self.values(obs)[0, int(action)])

    def batch(
        self, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray, infos: dict[str, Any]
    ) -> np.ndarray:
        """r(obs_i, action_i) for a batch, shape (N,)."""
        return self.values(obs)[np.arange(len(actions)), np.asarray(actions)]
