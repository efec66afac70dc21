"""Reward functions of the legislative envs: the documented proxy and linear rewards θ·φ(s, a).

Both are :data:`~assembly_gym.core.rewards.RewardFn` with a ``batch`` form
(:func:`~assembly_gym.core.rewards.batch_rewards`).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from assembly_gym.core.rewards import ActionValuesReward

__all__ = ["FeatureMap", "LinearReward", "RecordedActionMatch", "recorded_action_match"]


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


class LinearReward(ActionValuesReward):
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
