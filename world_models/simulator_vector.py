"""Native vectorised ``Simulator-v0``: N simulated episodes, one model call per vector step.

:class:`SimulatorVectorEnv` is the Gymnasium vector env of the stack it runs on (see
:mod:`assembly_gym.envs.vector_api`), built like the legislative ones
(:mod:`assembly_gym.envs.legislative.vector`): ``NEXT_STEP`` autoreset by default on 1.x,
``SAME_STEP`` on request and on 0.29, the single env's info keys batched, standard vector
wrappers. Every vector step hands the states and actions of all moving sub-envs to the world
model at once (one ``sample``: the empirical model gathers every row's table row at once; the
MLP ensemble runs each member on its rows, in NumPy on the CPU, in one torch pass elsewhere).
The masks and stages the infos report are kept for the next step's checks, not worked out
again.

Random numbers: one generator for the whole batch (seeded like a single env reset with
``seed``), so the sub-envs' draws interleave: sub-env i follows the single env's
distribution, not a single env's episode for ``seed + i``. With one sub-env, the vector env
draws what a single env seeded ``seed`` draws, in the same order: episode for episode the
same (tested).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.rewards import batch_rewards
from assembly_gym.envs.options import checked_options
from assembly_gym.envs.vector_api import (
    AUTORESET_MODES,
    FINAL_OBS,
    SAME_STEP,
    VectorEnvBase,
    batched_info,
    dict_info,
)
from assembly_gym.envs.vector_api import autoreset_mode as autoreset_rule
from assembly_gym.world_models.simulator import SimulatorEnv

__all__ = ["SimulatorVectorEnv"]


class SimulatorVectorEnv(VectorEnvBase):
    """N ``Simulator-v0`` episodes stepped together (same arguments as :class:`SimulatorEnv`).

    Args:
        num_envs: number of sub-envs N.
        autoreset_mode: the autoreset rule (a rule or its name; None: the stack's default).
        max_episode_steps: truncate after this many steps (default: the model's longest
            training episode). On Gymnasium 0.29 ``gym.make_vec`` replaces it with the
            spec's (None); construct the class directly there to set one.
        device: where a torch model runs (``"auto"``: the GPU when there is one; see
            :func:`~assembly_gym.core.device.resolve_device`); the model object is moved
            there (``model.to``). Models without ``to`` (the empirical one) run in NumPy.
        **env_kwargs: the other arguments of :class:`SimulatorEnv` (``model``, ``reward_fn``,
            ``start_states``, ``invalid_action``); no ``render_mode``.

    Example:
        >>> from assembly_gym.world_models import EmpiricalModel, deliberation_transitions
        >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
        >>> assembly = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=2))
        >>> model = EmpiricalModel().fit(deliberation_transitions(assembly))
        >>> venv = SimulatorVectorEnv(4, model=model, autoreset_mode="SameStep")
        >>> obs, infos = venv.reset(seed=0)
        >>> obs.shape, infos["stage"].tolist()
        ((4, 75), ['DRAFT', 'DRAFT', 'DRAFT', 'DRAFT'])
        >>> obs, rewards, terminated, truncated, infos = venv.step(np.full(4, 4))
    """

    metadata = {"autoreset_mode": AUTORESET_MODES[0], "render_modes": []}

    def __init__(
        self, num_envs: int = 8, *, autoreset_mode: Any = None,
        max_episode_steps: int | None = None, device: Any = "auto", **env_kwargs: Any,
    ) -> None:  # fmt: skip
        if num_envs < 1:
            raise ValueError(f"num_envs must be ≥ 1, got {num_envs}")
        self.env = SimulatorEnv(max_episode_steps=max_episode_steps, **env_kwargs)
        super().__init__(num_envs, self.env.observation_space, self.env.action_space)
        self.metadata = {**self.metadata, "autoreset_mode": autoreset_rule(autoreset_mode)}
        self.model = self.env.model
        move = getattr(self.model, "to", None)
        if callable(move):
            move(device)
        self.layout = self.env.layout
        stages = self.env._stages
        self._labels = None if stages is None else np.asarray(stages.labels, dtype=object)
        self._terminal = None if stages is None else stages.labels.index(stages.terminal)
        self.np_random = seeding.np_random(None)[0]
        self._options: dict[str, Any] = {}
        d = len(self.layout)
        self._obs = np.zeros((num_envs, d), dtype=np.float32)
        self._steps = np.zeros(num_envs, dtype=np.int64)
        self._ended = np.zeros(num_envs, dtype=bool)  # NEXT_STEP: reset on the coming step
        self._valid = np.zeros((num_envs, self.env.action_space.n), dtype=bool)  # masks now
        self._stage_now = np.full(num_envs, "", dtype=object)  # stage labels now
        self._started = False

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:  # fmt: skip
        """Start an episode in every sub-env.

        Args:
            seed: the batch's generator's seed; a sequence (one per sub-env, as SB3 passes)
                seeds it with its first entry; None keeps the generator.
            options: ``{"start_state": obs}`` starts every sub-env there (autoresets too).

        Returns:
            Observations (N, d) and the batched infos (the single env's keys).
        """
        self._options = checked_options(options, self.env.RESET_OPTIONS, type(self).__name__)
        start = self._options.get("start_state")
        if start is not None and not self.env.observation_space.contains(
            np.asarray(start, dtype=np.float32)
        ):
            raise ValueError(f"start_state is not in {self.env.observation_space}")
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"got {len(seeds)} seeds for {self.num_envs} sub-envs")
            seed = seeds[0]
        if seed is not None:
            self.np_random = seeding.np_random(int(seed))[0]
        everyone = np.arange(self.num_envs)
        self._ended[:] = False
        self._start(everyone)
        self._started = True
        infos = self._infos(self._obs, self._steps, self._ended, *self._placeholders(self.num_envs))
        self._remember(infos)
        return self._obs.copy(), batched_info(infos, everyone, self.num_envs)

    def step(  # arrays typed Any: on 0.29 this overrides gym.Env.step too
        self, actions: Any
    ) -> tuple[np.ndarray, Any, Any, Any, dict[str, Any]]:
        """Sample every moving sub-env's next state in one model call; autoreset the ended.

        Args:
            actions: one integer action per sub-env, shape (N,); an action invalid in its
                state becomes ``model.noop_action`` (``info["invalid_action"]``) or raises,
                as in the single env.

        Returns:
            Observations (N, d), rewards (N,) float64, terminated (N,), truncated (N,) and the
            batched infos (the single env's keys).

        Raises:
            ResetNeeded: no reset has completed yet.
            InvalidActionError: an action outside the space, or invalid under "raise".
            RewardFunctionError: a reward is NaN or ±inf (no sub-env has moved).
        """
        if not self._started:
            raise ResetNeeded("call reset() before step()")
        actions = self._check_actions(actions)
        n, same_step = self.num_envs, self.metadata["autoreset_mode"] == SAME_STEP
        moving = np.flatnonzero(~self._ended)  # NEXT_STEP: the others only reset now
        rewards = np.zeros(n)
        terminated, truncated = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        invalid, acted = self._placeholders(n)
        if moving.size:
            everyone, reward_fn = moving.size == n, self.env.reward_fn
            # the states themselves, not a copy, unless a reward function may keep them
            obs = self._obs if everyone and reward_fn is None else self._obs[moving]
            acts = actions if everyone else actions[moving]
            invalid[moving], acts = self._valid_actions(self._valid[moving], acts)
            acted[moving] = self._stage_now[moving]
            # put back if reward_fn fails
            rng_state = None if reward_fn is None else self.np_random.bit_generator.state
            next_obs = self.model.sample(obs, acts, self.np_random)
            if not self.env._clipped:
                space = self.env.observation_space
                next_obs = np.clip(np.asarray(next_obs, np.float32), space.low, space.high)
            term = self._terminated(obs, acts, next_obs)
            steps = self._steps[moving] + 1
            limit = self.env.max_episode_steps
            trunc = ~term & (steps >= limit) if limit is not None else np.zeros_like(term)
            if reward_fn is not None:
                info = self._infos(next_obs, steps, term | trunc, invalid[moving], acted[moving])
                try:
                    rewards[moving] = batch_rewards(reward_fn, obs, acts, next_obs, info)
                except BaseException:
                    if rng_state is not None:
                        self.np_random.bit_generator.state = rng_state
                    raise
            self._obs[moving], self._steps[moving] = next_obs, steps
            terminated[moving], truncated[moving] = term, trunc
        ended = terminated | truncated
        infos: dict[str, Any] = {}
        if same_step:  # every sub-env moved; the finished ones restart now
            restart = np.flatnonzero(ended)
            if restart.size:
                infos.update(self._finals(restart, invalid, acted))
        else:
            restart, self._ended = np.flatnonzero(self._ended), ended
        if restart.size:  # their infos are a reset's
            self._start(restart)
            invalid[restart], acted[restart] = self._placeholders(restart.size)
        state = self._infos(self._obs, self._steps, self._ended, invalid, acted)
        self._remember(state)
        infos.update(batched_info(state, np.arange(n), n))
        return self._obs.copy(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """Valid actions of every sub-env, shape (N, n) bool (none once an episode ended)."""
        return self._masks(self._obs, self._ended)

    def close_extras(self, **kwargs: Any) -> None:
        """Close the shared single env (absent when ``__init__`` raised before setting it)."""
        env = getattr(self, "env", None)
        if env is not None:
            env.close()

    # ------------------------------------------------------------------ helpers

    def _remember(self, infos: dict[str, np.ndarray]) -> None:
        """Keep the current states' masks and stages (the next step checks and reports them)."""
        self._valid = infos["action_mask"].copy()
        if "stage" in infos:
            self._stage_now = infos["stage"].copy()

    def _start(self, envs: np.ndarray) -> None:
        """New episodes in the sub-envs ``envs``: start states drawn as the single env does."""
        start = self._options.get("start_state")
        if start is not None:
            self._obs[envs] = np.asarray(start, dtype=np.float32)
        else:
            starts = self.env.start_states
            self._obs[envs] = starts[self.np_random.integers(len(starts), size=len(envs))]
        self._steps[envs] = 0

    def _finals(self, ended: np.ndarray, invalid: np.ndarray, acted: np.ndarray) -> dict[str, Any]:
        """The last observation and info of the episodes ending in ``ended`` (same-step rule)."""
        n = self.num_envs
        final_obs, mask = np.full(n, None, dtype=object), np.zeros(n, dtype=bool)
        for i, row in zip(ended.tolist(), self._obs[ended], strict=True):  # rows of one copy
            final_obs[i] = row
        mask[ended] = True
        last = self._infos(
            self._obs[ended], self._steps[ended], np.ones(len(ended), dtype=bool),
            invalid[ended], acted[ended],
        )  # fmt: skip
        return {
            FINAL_OBS: final_obs, f"_{FINAL_OBS}": mask,
            "final_info": dict_info(last, ended, n), "_final_info": mask.copy(),
        }  # fmt: skip

    def _placeholders(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The step-only infos of k sub-envs at a reset: ``invalid_action`` and ``acted_stage``."""
        return np.zeros(k, dtype=bool), np.full(k, "", dtype=object)

    def _infos(
        self, obs: np.ndarray, steps: np.ndarray, ended: np.ndarray, invalid: np.ndarray,
        acted: np.ndarray,
    ) -> dict[str, np.ndarray]:  # fmt: skip
        """The single env's info keys for rows of states, each an array with a row axis."""
        infos = {"step": steps.copy(), "action_mask": self._masks(obs, ended),
                 "invalid_action": invalid.copy()}  # fmt: skip
        if self._labels is not None:
            infos["stage"] = self._stage_labels(obs)
            infos["acted_stage"] = acted.copy()
        return infos

    def _masks(self, obs: np.ndarray, ended: np.ndarray) -> np.ndarray:
        """Valid actions in each state (none where the episode ended), shape (k, n) bool."""
        masks = getattr(self.model, "action_masks", None)
        n = self.env.action_space.n
        valid = np.ones((len(obs), n), bool) if masks is None else np.asarray(masks(obs), bool)
        return valid & ~ended[:, None]

    def _valid_actions(
        self, masks: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Which actions were invalid (``masks``: the states' (k, n)), and the actions then.

        Returns:
            (invalid (k,) bool, the actions with the invalid ones replaced by the no-op).
        """
        invalid = ~masks[np.arange(len(masks)), actions]
        if not invalid.any():
            return invalid, actions
        noop = getattr(self.model, "noop_action", None)
        if self.env.invalid_action == "raise" or noop is None:
            raise InvalidActionError(f"actions {actions[invalid].tolist()} are not valid here")
        return invalid, np.where(invalid, int(noop), actions)

    def _stage_labels(self, obs: np.ndarray) -> np.ndarray:
        """The stage label of each state, shape (k,) object ("" without stages)."""
        if self._labels is None:
            return np.full(len(obs), "", dtype=object)
        return self._labels[obs[:, self.env._stage_dims].argmax(axis=1)]

    def _terminated(self, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray) -> np.ndarray:
        """The declared terminal stage reached, else a draw from the model's ``done``, (k,)."""
        if self._labels is not None:
            return next_obs[:, self.env._stage_dims].argmax(axis=1) == self._terminal
        done = self.model.predict(obs, actions).distributions.get("done")
        if done is None:
            return np.zeros(len(obs), dtype=bool)
        return self.np_random.random(len(obs)) < done[:, 1]

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = np.asarray(actions)
        n = self.env.action_space.n
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise InvalidActionError(f"expected {self.num_envs} integer actions, got {actions!r}")
        if actions.min() < 0 or actions.max() >= n:
            raise InvalidActionError(f"actions must be in 0..{n - 1}, got {actions.tolist()}")
        return actions.astype(np.int64)
