"""Native vectorised ``MemoryDynamics-v0``: N episodes stepped at once, their reads batched.

A Gymnasium vector env of the stack it runs on, with the autoreset rules, seeding, checks and
batched infos of the legislative native envs (:mod:`assembly_gym.envs.legislative.vector`):
:func:`assembly_gym.make_native_vec` builds it through ``gym.make_vec``.

Sub-env ``i`` owns a generator seeded like a single env reset with seed ``seed + i`` and draws
each episode's random part from it with the single env's own calls
(:meth:`~assembly_gym.envs.memory.world.MemoryWorld.draw_episodes`), so the vector env equals
``SyncVectorEnv`` of single envs step for step (tested). Those draws are the only loop over
sub-envs, once per episode; the rest is batched: the episodes' states, the reads (two rows of
the memory's running counts each), the observations, the windows' IoU and the rewards
(:class:`~assembly_gym.envs.memory.world.ReadPredictionReward` in one call).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.rewards import checked_reward
from assembly_gym.envs.legislative.vector import Infos, _BatchedEnv
from assembly_gym.envs.memory.env import MemoryDynamicsEnv
from assembly_gym.envs.memory.memory import PAGE_SIZE, match_windows
from assembly_gym.envs.memory.world import ReadPredictionReward

__all__ = ["MemoryDynamicsVectorEnv"]


class MemoryDynamicsVectorEnv(_BatchedEnv):
    """N ``MemoryDynamics-v0`` episodes at once (same arguments as :class:`MemoryDynamicsEnv`).

    Every sub-env shares the single env's world (one memory). Actions are one
    ``[page, offset, length - 1]`` row per sub-env, shape (N, 3) integers.

    Args:
        num_envs: number of sub-envs N.
        autoreset_mode: the autoreset rule (a rule or its name; None: the stack's default).
        max_episode_steps: must be None (``gym.make_vec`` passes the spec's).
        **env_kwargs: the arguments of :class:`MemoryDynamicsEnv` (``render_mode`` aside).

    Example:
        >>> venv = MemoryDynamicsVectorEnv(4, difficulty="easy", num_words=1024,
        ...                                sequence_length=4, autoreset_mode="SameStep")
        >>> obs, infos = venv.reset(seed=0)
        >>> obs.shape, infos["windows"].shape
        ((4, 196), (4, 1, 2))
        >>> obs, rewards, terminated, truncated, infos = venv.step(np.tile([0, 0, 15], (4, 1)))
    """

    single_action_space: spaces.MultiDiscrete  # type: ignore[assignment]

    def __init__(
        self, num_envs: int = 8, *, autoreset_mode: Any = None,
        max_episode_steps: int | None = None, **env_kwargs: Any,
    ) -> None:  # fmt: skip
        env = MemoryDynamicsEnv(**env_kwargs)
        super().__init__(env, num_envs, autoreset_mode, max_episode_steps)
        self.world = world = env.world
        cfg = self.config = world.config
        steps, k = cfg.sequence_length, cfg.num_regions
        self._nvec = self.single_action_space.nvec
        self._t = np.zeros(num_envs, dtype=np.int64)
        self._states = np.zeros((num_envs, steps + 1, cfg.state_dim), dtype=np.float32)
        self._c = np.zeros((num_envs, cfg.char_dim), dtype=np.float32)
        self._windows = np.zeros((num_envs, steps, k, 2), dtype=np.int64)
        self._floors = np.zeros((num_envs, steps))
        self._obs = np.zeros((num_envs, len(self.layout)), dtype=np.float32)

    def action_masks(self) -> np.ndarray:
        """Valid values of each action component of every sub-env, shape (N, Σ nvec): all True."""
        return np.ones((self.num_envs, int(self._nvec.sum())), dtype=bool)

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs, 3) or not np.issubdtype(actions.dtype, np.integer):
            raise InvalidActionError(
                f"expected {self.num_envs} integer actions [page, offset, length - 1] of shape "
                f"({self.num_envs}, 3), got {actions!r}"
            )
        if actions.min() < 0 or (actions >= self._nvec).any():
            raise InvalidActionError(
                f"actions must lie in {self.single_action_space}, got {actions.tolist()}"
            )
        return actions.astype(np.int64)

    def _start(self, envs: np.ndarray) -> None:
        world, cfg = self.world, self.config
        # The single env's draws, sub-env by sub-env; the rest batched.
        draws = [world.draw_episodes(1, self._rngs[i]) for i in envs]
        episodes = world.build_episodes(*map(np.concatenate, zip(*draws, strict=True)))
        self._states[envs] = episodes.states
        self._c[envs] = episodes.c
        starts, lengths = cfg.windows(episodes.regions[:, None], np.arange(cfg.sequence_length))
        self._windows[envs] = np.stack(np.broadcast_arrays(starts, lengths), axis=-1)
        self._floors[envs] = -np.mean(episodes.noise**2, axis=-1)
        self._t[envs] = 0
        s0 = episodes.states[:, 0]
        self._obs[envs] = self._observations_of(
            envs, s0, s0, np.zeros((len(envs), cfg.word_size)), np.zeros((len(envs), 3)), 0
        )

    def _observations_of(
        self, envs: np.ndarray, s_prev: np.ndarray, s: np.ndarray, bits: np.ndarray,
        read: np.ndarray, steps: np.ndarray | int,
    ) -> np.ndarray:  # fmt: skip
        """Observations (k, d) of the sub-envs ``envs`` (the single env's, row by row).

        Args:
            envs: the sub-envs, shape (k,).
            s_prev: s_{t−1}, shape (k, state_dim).
            s: s_t, shape (k, state_dim).
            bits: mean bits of the last read, shape (k, word_size).
            read: page, offset and clipped length of the last read, shape (k, 3).
            steps: t of each, shape (k,) (or one for all).
        """
        cfg, parts = self.config, self.world.layout.slices
        obs = np.empty((len(envs), len(self.layout)), dtype=np.float32)
        obs[:, parts["s_prev"]] = s_prev
        obs[:, parts["s"]] = s
        obs[:, parts["c"]] = self._c[envs]
        obs[:, parts["read_bits"]] = bits
        obs[:, parts["read_address"]] = read / [cfg.num_pages, PAGE_SIZE, cfg.max_read_range]
        obs[:, parts["step"]] = (np.asarray(steps) / cfg.sequence_length)[..., None]
        return obs

    def _transition(
        self, envs: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Infos]:
        cfg, t = self.config, self._t[envs]
        pages, offsets, codes = actions.T
        starts = pages * PAGE_SIZE + offsets
        lengths = np.minimum(codes + 1, cfg.num_words - starts)  # clipped at the end of memory
        bits = self.world.memory.clipped_mean_bits(starts, lengths)
        windows = self._windows[envs, t]  # (k, K, 2)
        hit, iou = match_windows(starts, lengths, windows[..., 0], windows[..., 1])
        next_obs = self._observations_of(
            envs, self._states[envs, t], self._states[envs, t + 1], bits,
            np.stack([pages, offsets, lengths], axis=-1), t + 1,
        )  # fmt: skip
        step_info = {
            "noise_floor": self._floors[envs, t], "hit": hit, "iou": iou, "windows": windows,
        }  # fmt: skip
        rewards = self._rewards(self._obs[envs], actions, next_obs, step_info)
        self._obs[envs], self._t[envs] = next_obs, t + 1
        return rewards, t + 1 == cfg.sequence_length, step_info

    def _rewards(
        self, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray, infos: Infos
    ) -> np.ndarray:
        """Rewards (k,) of k steps: one call of the default reward or of a ``batch``, else rows.

        A ``batch`` other than the default reward's takes ``(obs, actions, next_obs, infos)``
        (as in the legislative vector envs); row i of a row-by-row call gets the single env's
        arguments: ``actions[i]`` (shape (3,)) and the info of that step.
        """
        reward_fn = self.env.reward_fn
        if isinstance(reward_fn, ReadPredictionReward):
            return checked_reward(reward_fn, reward_fn.batch(obs, next_obs))
        batch = getattr(reward_fn, "batch", None)
        infos = {"action_mask": self.action_masks()[: len(obs)], **infos}
        if batch is not None:
            rewards = np.asarray(batch(obs, actions, next_obs, infos), dtype=float)
        else:
            rewards = np.array([
                reward_fn(obs[i], actions[i], next_obs[i], {k: v[i] for k, v in infos.items()})
                for i in range(len(obs))
            ], dtype=float)  # fmt: skip
        return checked_reward(reward_fn, rewards)

    def _observations(self) -> np.ndarray:
        return self._obs.copy()

    def _state_infos(self) -> Infos:
        return {"action_mask": self.action_masks()}

    def _reset_step_info(self, k: int) -> Infos:
        return {
            "noise_floor": np.zeros(k),
            "hit": np.zeros(k, dtype=bool),
            "iou": np.zeros(k),
            "windows": np.zeros((k, self.config.num_regions, 2), dtype=np.int64),
        }
