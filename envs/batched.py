"""The base of every native vector env: N episodes of one env stepped in arrays.

A native vector env is a Gymnasium vector env of the stack it runs on, with that stack's
autoreset rules (:mod:`assembly_gym.envs.vector_api`). It takes the standard vector wrappers
and fills its infos as Gymnasium's ``SyncVectorEnv`` of the single env does, so that a family
can test it against that, step for step. :class:`BatchedEnv` does all of this; a family's
vector env defines what one batched step of its own is (the hooks listed in the class).
:func:`assembly_gym.make_native_vec` builds such envs through ``gym.make_vec``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.options import checked_options
from assembly_gym.envs.vector_api import (
    AUTORESET_MODES,
    FINAL_OBS,
    SAME_STEP,
    VectorEnvBase,
    batched_info,
    dict_info,
    sub_env_generators,
)
from assembly_gym.envs.vector_api import autoreset_mode as autoreset_rule

__all__ = ["BatchedEnv", "Infos"]

Infos = dict[str, Any]
"""Info key → one value per sub-env of a group: arrays with a leading sub-env axis, or dicts of
such (a dict-valued key such as Deliberation's ``tally``)."""


class BatchedEnv(VectorEnvBase):
    """N episodes of the single env ``env``: seeding, checks, the autoreset rule, batched infos.

    Sub-env i owns a generator seeded like a single env reset with seed ``seed + i``
    (:attr:`_rngs`; :meth:`_draws` draws blocks of uniforms from them). As in the single
    envs, a step before the first reset raises ``ResetNeeded``, unknown reset options raise,
    and a step whose reward function raises (or returns NaN or ±inf) leaves every sub-env as
    it was: :meth:`_transition` changes nothing before the rewards are known.

    A family defines five hooks, which :meth:`reset` and :meth:`step` compose: ``_start`` (new
    episodes for some sub-envs), ``_transition`` (one step of some sub-envs),
    ``_observations`` and ``_state_infos`` (what every sub-env sees now) and
    ``_reset_step_info`` (the single env's placeholders for the step keys of its reset info).
    It may override ``_checked_options``, ``_seed`` (e.g. one generator for the whole batch)
    and ``_check_actions`` (an action space other than ``Discrete``).

    Args:
        env: the single env, whose data, dynamics and reward function the sub-envs share
            (``layout``, ``RESET_OPTIONS``, the spaces).
        num_envs: number of sub-envs N.
        autoreset_mode: the autoreset rule (a rule or its name; None: the stack's default).
        max_episode_steps: must be None (``gym.make_vec`` passes the spec's): a family whose
            episodes can be truncated gives the limit to ``env``.

    Raises:
        ValueError: ``num_envs`` < 1, an unknown autoreset rule, or a time limit.
    """

    metadata = {"autoreset_mode": AUTORESET_MODES[0], "render_modes": []}
    single_action_space: spaces.Discrete  # the single env's (set by VectorEnvBase)

    def __init__(
        self, env: Any, num_envs: int, autoreset_mode: Any = None,
        max_episode_steps: int | None = None,
    ) -> None:  # fmt: skip
        self.env = env
        if num_envs < 1:
            raise ValueError(f"num_envs must be ≥ 1, got {num_envs}")
        if max_episode_steps is not None:
            raise ValueError(
                "the native vector envs have no time limit (their episodes end on their own); "
                "use gym.make_vec(..., vectorization_mode='sync') for one"
            )
        super().__init__(num_envs, env.observation_space, env.action_space)
        self.metadata = {**self.metadata, "autoreset_mode": autoreset_rule(autoreset_mode)}
        self.layout = env.layout
        self._rngs: list[np.random.Generator] = []  # one per sub-env once seeded
        self._options: dict[str, Any] = {}
        # Uniforms of the sub-envs' next episodes, (block, N, k): episode j of every sub-env
        # is one contiguous (N, k) block.
        self._buffer = np.zeros((0, num_envs, 0))
        self._position = np.zeros(num_envs, dtype=np.int64)
        self._ended = np.zeros(num_envs, dtype=bool)  # NEXT_STEP: reset on the coming step
        self._started = False  # a reset has completed

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:  # fmt: skip
        """Start an episode in every sub-env.

        Args:
            seed: sub-env i is seeded ``seed + i``; or one seed per sub-env; None keeps the
                generators (fresh entropy on the first reset).
            options: the single env's reset options (its ``RESET_OPTIONS``), for every sub-env
                (and its autoresets).

        Returns:
            Observations (N, d) and the batched infos (the single env's keys).

        Raises:
            ValueError: an option the single env does not take (TypeError: of another type).
        """
        self._options = self._checked_options(options)
        self._started = False
        self._seed(seed)
        self._ended[:] = False
        everyone = np.arange(self.num_envs)
        self._start(everyone)
        self._started = True
        infos = {**self._state_infos(), **self._reset_step_info(self.num_envs)}
        return self._observations(), batched_info(infos, everyone, self.num_envs)

    def step(  # type: ignore[override]  # Gymnasium 0.29's VectorEnv is a gym.Env
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Act in every sub-env; finished ones start their next episode by the autoreset rule.

        Args:
            actions: one action per sub-env, shape (N, ...) (:meth:`_check_actions`).

        Returns:
            Observations (N, d), rewards (N,) float64, terminated (N,), truncated (N,) and the
            batched infos (the single env's keys).

        Raises:
            ResetNeeded: no reset has completed yet.
            InvalidActionError: an action outside the single action space.
            RewardFunctionError: a reward is NaN or ±inf (no sub-env has moved).
        """
        if not self._started:
            raise ResetNeeded("call reset() before step()")
        actions = self._check_actions(actions)
        n, same_step = self.num_envs, self.metadata["autoreset_mode"] == SAME_STEP
        moving = np.flatnonzero(~self._ended)  # NEXT_STEP: the others only reset on this step
        rewards, terminated, truncated = np.zeros(n), np.zeros(n, bool), np.zeros(n, bool)
        if moving.size:
            rewards[moving], terminated[moving], truncated[moving], step_info = self._transition(
                moving, actions[moving]
            )
        else:
            step_info = self._reset_step_info(0)
        infos: dict[str, Any] = {}
        if same_step:  # every sub-env moved; the finished ones restart now
            restart = np.flatnonzero(terminated | truncated)
            if restart.size:
                infos.update(self._finals(restart, step_info))
        else:
            restart, self._ended = np.flatnonzero(self._ended), terminated | truncated
        if restart.size:  # their infos are a reset's: the step keys hold placeholders
            self._start(restart)
            kept = np.ones(n, dtype=bool)
            kept[restart] = False
            kept = kept[moving]
            step_info = _assigned(self._reset_step_info(n), moving[kept], _rows(step_info, kept))
        everyone = np.arange(n)
        infos.update(batched_info({**self._state_infos(), **step_info}, everyone, n))
        return self._observations(), rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Close the shared single env (absent when ``__init__`` raised before setting it)."""
        env = getattr(self, "env", None)
        if env is not None:
            env.close()

    # ------------------------------------------------------------ what a family may override

    def _checked_options(self, options: Any) -> dict[str, Any]:
        """The reset options, checked against the single env's ``RESET_OPTIONS``."""
        return checked_options(options, self.env.RESET_OPTIONS, type(self).__name__)

    def _seed(self, seed: int | Sequence[int | None] | None) -> None:
        """Sub-env generators: seed + i (or one seed each); fresh entropy when unseeded."""
        if seed is None and self._rngs:
            return
        self._rngs = sub_env_generators(seed, self.num_envs)
        self._position[:] = self._buffer.shape[0]  # drawn afresh from the new generators

    def _check_actions(self, actions: Any) -> np.ndarray:
        """The actions as int64, shape (N,), once each is checked to lie in ``Discrete(n)``."""
        actions = np.asarray(actions)
        n = self.single_action_space.n
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise InvalidActionError(f"expected {self.num_envs} integer actions, got {actions!r}")
        if actions.min() < 0 or actions.max() >= n:
            raise InvalidActionError(f"actions must be in 0..{n - 1}, got {actions.tolist()}")
        return actions.astype(np.int64)

    def _draws(self, envs: np.ndarray, per_episode: int, block: int = 64) -> np.ndarray:
        """The uniforms of one episode for each sub-env in ``envs``, shape (len(envs), k).

        A single env that draws its k uniforms per reset with one ``random(k)`` call is
        reproduced: drawing ``random((block, k))`` once gives the same numbers for the next
        ``block`` episodes, so sub-env i still equals a single env seeded ``seed + i``. When
        ``envs`` is every sub-env and all are at the same episode of their block (as when they
        all start together), the draws are a read-only view, valid until the next call.
        """
        if self._buffer.shape != (block, self.num_envs, per_episode):
            self._buffer = np.zeros((block, self.num_envs, per_episode))
            self._position[:] = block
        refill = envs[self._position[envs] == block]
        if refill.size:
            fresh = np.empty((block, per_episode))
            for i in refill:
                self._rngs[i].random(out=fresh)  # the numbers of random((block, k))
                self._buffer[:, i] = fresh
            self._position[refill] = 0
        positions = self._position[envs]
        first = positions[0]
        if len(envs) == self.num_envs and (positions == first).all():
            draws = self._buffer[first]  # envs is sorted: every sub-env, in order
            draws.setflags(write=False)
        else:
            draws = self._buffer[positions, envs]
        self._position[envs] = positions + 1
        return draws

    # ------------------------------------------------------------ what each family defines

    def _start(self, envs: np.ndarray) -> None:
        """Start new episodes in the sub-envs ``envs`` (sorted indices)."""
        raise NotImplementedError

    def _transition(self, envs: np.ndarray, actions: np.ndarray) -> tuple[Any, Any, Any, Infos]:
        """One step of the sub-envs ``envs`` (sorted), changing nothing before the rewards.

        Returns:
            Rewards, terminated and truncated of each (arrays (k,), or one value for all) and
            the step-only infos.
        """
        raise NotImplementedError

    def _observations(self) -> np.ndarray:
        """What every sub-env observes now, a fresh array of shape (N, d)."""
        raise NotImplementedError

    def _state_infos(self) -> Infos:
        """The infos of every sub-env's current state (those of a reset too), fresh arrays."""
        raise NotImplementedError

    def _reset_step_info(self, k: int) -> Infos:
        """The step-only infos of k sub-envs just reset: the single env's placeholders."""
        raise NotImplementedError

    # ------------------------------------------------------------ helpers

    def _finals(self, ended: np.ndarray, step_info: Infos) -> dict[str, Any]:
        """The last observation and info of the episodes ending in ``ended`` (same-step rule)."""
        n, rows, last = self.num_envs, self._observations(), {**self._state_infos(), **step_info}
        if len(ended) < n:  # else every row, in order
            rows, last = rows[ended], _rows(last, ended)
        final_obs, mask = np.full(n, None, dtype=object), np.zeros(n, dtype=bool)
        final_obs[ended] = np.fromiter(rows, dtype=object, count=len(ended))  # (d,) rows
        mask[ended] = True
        return {
            FINAL_OBS: final_obs, f"_{FINAL_OBS}": mask,
            "final_info": dict_info(last, ended, n), "_final_info": mask.copy(),
        }  # fmt: skip


def _rows(values: Infos, rows: np.ndarray) -> Infos:
    """The given rows of every value (an index or boolean array; nested dicts too)."""
    return {k: _rows(v, rows) if isinstance(v, dict) else v[rows] for k, v in values.items()}


def _assigned(into: Infos, envs: np.ndarray, values: Infos) -> Infos:
    """``into``, its rows ``envs`` set to ``values`` (nested dicts too)."""
    for key, value in values.items():
        if isinstance(value, dict):
            _assigned(into[key], envs, value)
        else:
            into[key][envs] = value
    return into
