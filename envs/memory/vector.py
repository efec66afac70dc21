"""Native vectorised ``MemoryDynamics-v0``: N episodes stepped at once, their reads batched.

A :class:`~assembly_gym.envs.batched.BatchedEnv` (the autoreset rules, seeding, checks and
batched infos of every native vector env): :func:`assembly_gym.make_native_vec` builds it
through ``gym.make_vec``.

Sub-env ``i`` is the single env seeded ``seed + i``, step for step: it draws each episode's
random part as the single env does, in two calls instead of six
(:meth:`~assembly_gym.envs.memory.world.MemoryWorld.draw_one_each`), the only loop over
sub-envs; the rest is batched, the rewards
(:class:`~assembly_gym.envs.memory.world.ReadPredictionReward`) in one call.
What bounds its speed (the episodes' Gaussian draws): docs/performance.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.core.rewards import batch_rewards, checked_reward
from assembly_gym.envs.batched import BatchedEnv, Infos
from assembly_gym.envs.memory.env import MemoryDynamicsEnv
from assembly_gym.envs.memory.memory import PAGE_SIZE, match_windows

__all__ = ["MemoryDynamicsVectorEnv"]

_CHUNK = 128
"""Episodes started at once: the arrays of more would leave the CPU's caches (a reset of
1,024 sub-envs is a third faster in chunks of 128)."""


class MemoryDynamicsVectorEnv(BatchedEnv):
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
        self._context = np.zeros((num_envs, cfg.state_dim), dtype=np.float32)  # context_term(c)
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
        for first in range(0, len(envs), _CHUNK):
            self._start_some(envs[first : first + _CHUNK])

    def _start_some(self, envs: np.ndarray) -> None:
        world, cfg = self.world, self.config
        # The single env's draws, sub-env by sub-env; the rest batched.
        episodes = world.build_episodes(*world.draw_one_each([self._rngs[i] for i in envs]))
        self._states[envs] = episodes.states
        self._context[envs] = world.context_term(episodes.c)
        starts, lengths = cfg.windows(episodes.regions[:, None], np.arange(cfg.sequence_length))
        self._windows[envs] = np.stack(np.broadcast_arrays(starts, lengths), axis=-1)
        self._floors[envs] = -np.mean(episodes.noise**2, axis=-1)
        self._t[envs] = 0
        self._obs[envs, self.world.layout.slices["c"]] = episodes.c
        s0, k = episodes.states[:, 0], len(envs)
        self._write(self._obs, envs, s0, s0, np.zeros((k, cfg.word_size)), np.zeros((k, 3)), 0)

    def _write(
        self, obs: np.ndarray, rows: np.ndarray | slice, s_prev: np.ndarray, s: np.ndarray,
        bits: np.ndarray, read: np.ndarray, steps: np.ndarray | int,
    ) -> None:  # fmt: skip
        """Write what changes between steps into the observations ``obs[rows]`` (c is kept).

        Args:
            obs: observations, shape (·, d).
            rows: the k rows to write.
            s_prev: s_{t−1}, shape (k, state_dim).
            s: s_t, shape (k, state_dim).
            bits: mean bits of the last read, shape (k, word_size).
            read: page, offset and clipped length of the last read, shape (k, 3).
            steps: t of each, shape (k,) (or one for all).
        """
        cfg, parts = self.config, self.world.layout.slices
        obs[rows, parts["s_prev"]] = s_prev
        obs[rows, parts["s"]] = s
        obs[rows, parts["read_bits"]] = bits
        obs[rows, parts["read_address"]] = read / [cfg.num_pages, PAGE_SIZE, cfg.max_read_range]
        obs[rows, parts["step"]] = (np.asarray(steps) / cfg.sequence_length)[..., None]

    def _transition(
        self, envs: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, bool, Infos]:
        cfg, t = self.config, self._t[envs]
        pages, offsets, codes = actions.T
        starts = pages * PAGE_SIZE + offsets
        lengths = np.minimum(codes + 1, cfg.num_words - starts)  # clipped at the end of memory
        bits = self.world.memory.clipped_mean_bits(starts, lengths).astype(np.float32)
        windows = self._windows[envs, t]  # (k, K, 2)
        hit, iou = match_windows(starts, lengths, windows[..., 0], windows[..., 1])
        step_info = {
            "noise_floor": self._floors[envs, t], "hit": hit, "iou": iou, "windows": windows,
        }  # fmt: skip
        s, s_next = self._states[envs, t], self._states[envs, t + 1]
        read = np.stack([pages, offsets, lengths], axis=-1)
        own = self.env.own_reward()
        if own is not None:  # the world's reward, from the parts of the observations
            rewards = checked_reward(own, own.from_parts(s, bits, self._context[envs], s_next))
            everyone = len(envs) == self.num_envs  # envs is sorted: every sub-env, in order
            self._write(self._obs, slice(None) if everyone else envs, s, s_next, bits, read, t + 1)
        else:
            next_obs = self._obs[envs]
            self._write(next_obs, slice(None), s, s_next, bits, read, t + 1)
            infos = {"action_mask": self.action_masks()[: len(envs)], **step_info}
            rewards = batch_rewards(self.env.reward_fn, self._obs[envs], actions, next_obs, infos)
            self._obs[envs] = next_obs
        self._t[envs] = t + 1
        return rewards, t + 1 == cfg.sequence_length, False, step_info

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
