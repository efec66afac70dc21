"""The council's native vector env: N drafts stepped in arrays by the same batched core."""

from __future__ import annotations

from typing import Any

import numpy as np

from assembly_gym.core.state import Vote
from assembly_gym.envs.batched import BatchedEnv, Infos

from .env import DRAWS, STATE_NAMES, CouncilEnv, council_step, start_states


class CouncilVectorEnv(BatchedEnv):
    """N ``Council-v0`` episodes at once; sub-env i plays the single env of seed ``seed + i``.

    Args:
        num_envs: number of sub-envs N.
        **kwargs: ``autoreset_mode`` and ``max_episode_steps``, as :class:`BatchedEnv` takes them.
    """

    def __init__(self, num_envs: int = 8, **kwargs: Any) -> None:
        super().__init__(CouncilEnv(), num_envs, **kwargs)
        self._obs = np.zeros((num_envs, len(STATE_NAMES)), np.float32)
        self._episode_draws = np.zeros((num_envs, DRAWS))

    def _start(self, envs: np.ndarray) -> None:
        self._episode_draws[envs] = self._draws(envs, DRAWS)
        self._obs[envs] = start_states(self._episode_draws[envs])

    def _transition(self, envs: np.ndarray, actions: np.ndarray) -> tuple[Any, Any, Any, Infos]:
        self._obs[envs], rewards, terminated = council_step(
            self._obs[envs], actions, self._episode_draws[envs]
        )
        return rewards, terminated, False, {}

    def _observations(self) -> np.ndarray:
        return self._obs.copy()

    def _state_infos(self) -> Infos:
        return {"action_mask": np.ones((self.num_envs, len(Vote)), dtype=bool)}

    def _reset_step_info(self, k: int) -> Infos:
        return {}
