"""Native vectorised ``Simulator-v0``: N simulated episodes, one model call per vector step.

:class:`SimulatorVectorEnv` is a :class:`~assembly_gym.envs.batched.BatchedEnv` (the autoreset
rules, seeding checks and batched infos of every native vector env). As in every native
vector env, sub-env i starts as the single env seeded ``seed + i``; one generator (sub-env
0's) draws the batch's steps (docs/world_models.md, section "The vector Simulator-v0"). The
masks and stages the infos report are kept for the next step's checks, not worked out again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.core.rewards import batch_rewards
from assembly_gym.envs.batched import BatchedEnv, Infos
from assembly_gym.world_models.simulator import SimulatorEnv

__all__ = ["SimulatorVectorEnv"]


class SimulatorVectorEnv(BatchedEnv):
    """N ``Simulator-v0`` episodes stepped together (same arguments as :class:`SimulatorEnv`).

    Args:
        num_envs: number of sub-envs N.
        autoreset_mode: the autoreset rule (a rule or its name; None: the stack's default).
        max_episode_steps: truncate after this many steps (default: the model's longest
            training episode). On Gymnasium 0.29 ``gym.make_vec`` replaces it with the
            spec's (None); construct the class directly there to set one.
        device: where a torch model runs (:func:`~assembly_gym.core.device.resolve_device`;
            moved by ``model.to``); models without ``to`` (the empirical one) run in NumPy.
        **env_kwargs: the other arguments of :class:`SimulatorEnv` (``model``, ``reward_fn``,
            ``start_states``, ``invalid_action``); no ``render_mode``.

    Example:
        >>> from assembly_gym.envs.legislative.transitions import deliberation_transitions
        >>> from assembly_gym.world_models import EmpiricalModel
        >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
        >>> assembly = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=2))
        >>> model = EmpiricalModel().fit(deliberation_transitions(assembly))
        >>> venv = SimulatorVectorEnv(4, model=model, autoreset_mode="SameStep")
        >>> obs, infos = venv.reset(seed=0)
        >>> obs.shape, infos["stage"].tolist()
        ((4, 75), ['DRAFT', 'DRAFT', 'DRAFT', 'DRAFT'])
        >>> obs, rewards, terminated, truncated, infos = venv.step(np.full(4, 4))
    """

    env: SimulatorEnv

    def __init__(
        self, num_envs: int = 8, *, autoreset_mode: Any = None,
        max_episode_steps: int | None = None, device: Any = "auto", **env_kwargs: Any,
    ) -> None:  # fmt: skip
        env = SimulatorEnv(max_episode_steps=max_episode_steps, **env_kwargs)
        super().__init__(env, num_envs, autoreset_mode)
        self.model = env.model
        move = getattr(self.model, "to", None)
        if callable(move):
            move(device)
        self._staged = env.stages is not None  # infos with stage keys
        self._obs = np.zeros((num_envs, len(self.layout)), dtype=np.float32)
        self._steps = np.zeros(num_envs, dtype=np.int64)
        self._valid = np.zeros((num_envs, env.action_space.n), dtype=bool)  # masks now
        self._stage_now = np.full(num_envs, "", dtype=object)  # stage labels now

    def action_masks(self) -> np.ndarray:
        """Valid actions of every sub-env, shape (N, n) bool (none once an episode ended)."""
        return self._valid.copy()

    # ------------------------------------------------------------------ BatchedEnv's hooks

    def _checked_options(self, options: Any) -> dict[str, Any]:
        """``{"start_state": obs}`` starts every sub-env there (autoresets too)."""
        return self.env.reset_options(options)

    def _seed(self, seed: int | Sequence[int | None] | None) -> None:
        """Sub-env generators as every native vector env's (``seed + i``; None keeps them).

        Sub-env 0's also draws every step of the batch (:attr:`np_random`).
        """
        super()._seed(seed)
        self.np_random = self._rngs[0]

    def _start(self, envs: np.ndarray) -> None:
        """New episodes in the sub-envs ``envs``, each start drawn as the single env's reset."""
        start = self._options.get("start_state")
        if start is not None:
            self._obs[envs] = start
        else:
            starts = self.env.start_states
            self._obs[envs] = starts[[self._rngs[i].integers(len(starts)) for i in envs]]
        self._steps[envs] = 0
        self._valid[envs] = self.env.masks_of(self._obs[envs])
        if self._staged:
            self._stage_now[envs] = self.env.stage_of(self._obs[envs])

    def _transition(
        self, envs: np.ndarray, actions: np.ndarray
    ) -> tuple[Any, np.ndarray, Any, Infos]:
        """Sample every moving sub-env's next state in one model call.

        An action invalid in its state becomes ``model.noop_action`` (``info["invalid_action"]``)
        or raises, as in the single env; when ``reward_fn`` fails, the generator is put back.
        """
        everyone, reward_fn = len(envs) == self.num_envs, self.env.reward_fn
        # the states themselves, not a copy, unless a reward function may keep them
        obs = self._obs if everyone and reward_fn is None else self._obs[envs]
        invalid, actions = self._valid_actions(self._valid[envs], actions)
        step_info = {"invalid_action": invalid}
        if self._staged:
            step_info["acted_stage"] = self._stage_now[envs]
        rng_state = self.np_random.bit_generator.state  # put back if reward_fn fails
        next_obs = self.env.clip(self.model.sample(obs, actions, self.np_random))
        labels = self.env.stage_of(next_obs)
        terminated = self.env.terminated(obs, actions, labels, self.np_random)
        steps, limit = self._steps[envs] + 1, self.env.max_episode_steps
        truncated = ~terminated & (steps >= limit) if limit is not None else False
        masks = self.env.masks_of(next_obs) & ~(terminated | truncated)[:, None]
        rewards: Any = 0.0
        if reward_fn is not None:
            info = {"step": steps, "action_mask": masks, **step_info}
            if self._staged:
                info["stage"] = labels
            try:
                rewards = batch_rewards(reward_fn, obs, actions, next_obs, info)
            except BaseException:
                self.np_random.bit_generator.state = rng_state
                raise
        self._obs[envs], self._steps[envs], self._valid[envs] = next_obs, steps, masks
        if self._staged:
            self._stage_now[envs] = labels
        return rewards, terminated, truncated, step_info

    def _observations(self) -> np.ndarray:
        return self._obs.copy()

    def _state_infos(self) -> Infos:
        infos = {"step": self._steps.copy(), "action_mask": self._valid.copy()}
        if self._staged:
            infos["stage"] = self._stage_now.copy()
        return infos

    def _reset_step_info(self, k: int) -> Infos:
        infos: Infos = {"invalid_action": np.zeros(k, dtype=bool)}
        if self._staged:
            infos["acted_stage"] = np.full(k, "", dtype=object)
        return infos

    # ------------------------------------------------------------------ helpers

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
