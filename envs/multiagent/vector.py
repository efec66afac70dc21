"""``assembly_v0`` batched: N independent assemblies (roll-call variant) stepped in NumPy.

:class:`AssemblyVectorEnv` plays N episodes of
:class:`~assembly_gym.envs.multiagent.assembly.AssemblyParallelEnv` at once in arrays with one
slot per possible agent (C in all); absent agents' slots, the seeding (sub-env i plays
``parallel_env`` reset with ``seed + i``), same-step autoreset and :class:`AgentSlotsVectorEnv`
(the N × C agent slots as a Gymnasium vector env): docs/ecosystem.md, section "The whole
assembly batched".

Example:
    >>> venv = AssemblyVectorEnv(4)
    >>> observations, infos = venv.reset(seed=0)
    >>> observations.shape, infos["action_mask"].shape
    ((4, 40, 60), (4, 40, 3))
    >>> observations, rewards, terminated, truncated, infos = venv.step(
    ...     np.zeros((4, 40), dtype=np.int64))
    >>> rewards.shape, terminated.shape
    ((4, 40), (4,))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.error import ResetNeeded

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.data import ABSENT, ADOPTION, Vote
from assembly_gym.envs.multiagent.assembly import PUBLIC_NAMES, AssemblyParallelEnv
from assembly_gym.envs.vector_api import (
    FINAL_OBS,
    SAME_STEP,
    VectorEnvBase,
    batched_info,
    dict_info,
    sub_env_generators,
)
from assembly_gym.envs.vector_api import autoreset_mode as autoreset_rule

__all__ = ["AgentSlotsVectorEnv", "AssemblyVectorEnv"]


class AssemblyVectorEnv:
    """N ``assembly_v0`` roll-call episodes at once (see the module's text).

    Args:
        num_envs: number of sub-envs N.
        **env_kwargs: the arguments of
            :class:`~assembly_gym.envs.multiagent.assembly.AssemblyParallelEnv` (``data``,
            ``rewards``, ``max_cycles``, ``session``, ``window``, ``feature_config``; no
            ``render_mode``).

    Raises:
        ValueError: ``num_envs`` < 1, or an argument the parallel env refuses.
    """

    def __init__(self, num_envs: int = 8, **env_kwargs: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be ≥ 1, got {num_envs}")
        self.env = AssemblyParallelEnv(**env_kwargs)  # shares its data, features and rewards
        self.num_envs = num_envs
        self.possible_agents = self.env.possible_agents
        self.single_observation_space = self.env.observation_space(self.possible_agents[0])
        self.single_action_space = self.env.action_space(self.possible_agents[0])
        n_columns, n_agents = self.env.data.n_roll_calls, len(self.possible_agents)
        self.n_own = self.env.n_own
        self.n_obs = self.n_own + len(PUBLIC_NAMES)  # d
        # Own features of every roll call × country, a session filled on first use (np.zeros
        # leaves the untouched pages unallocated); zero for the session's non-members.
        self._table = np.zeros((n_columns, n_agents, self.n_own), dtype=np.float32)
        self._ready = np.zeros(len(self.env.sessions), dtype=bool)
        self._votes = np.ascontiguousarray(self.env.data.votes.T)  # (roll calls, C)
        self._rngs: list[np.random.Generator] = []
        self._options: dict[str, Any] = {}
        self._index = np.zeros(num_envs, dtype=np.int64)  # session of each sub-env
        self._first = np.zeros(num_envs, dtype=np.int64)  # its first roll-call column
        self._length = np.ones(num_envs, dtype=np.int64)
        self._t = np.zeros(num_envs, dtype=np.int64)
        self._present = np.zeros((num_envs, n_agents), dtype=bool)
        self._own = np.zeros((num_envs, n_agents, self.n_own), dtype=np.float32)  # features now
        self._public = np.zeros((num_envs, len(PUBLIC_NAMES)), dtype=np.float32)
        self._agent_of_slot = np.tile(np.arange(n_agents), num_envs)  # (N × C,)
        self._started = False

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:  # fmt: skip
        """Start an episode in every assembly, each drawn as ``parallel_env``'s reset draws it.

        Args:
            seed: assembly i is seeded ``seed + i`` (a parallel env reset with that seed); or
                one seed per assembly; None keeps the generators (fresh entropy at first).
            options: ``session`` and ``window`` of every assembly's episodes (autoresets too).

        Returns:
            Observations (N, C, d) float32 and the infos (see :meth:`step`; the step's keys
            hold −1).

        Raises:
            DataError: ``options["session"]`` has no roll call.
        """
        self._options = self.env.reset_options(options)
        self._started = False
        self._seed(seed)
        self._start(np.arange(self.num_envs))
        self._started = True
        n, c = self.num_envs, len(self.possible_agents)
        step_info = {"voted_rcid": np.full(n, ABSENT), "recorded_action": np.full((n, c), ABSENT)}
        return self._observations(), {**self._state_infos(), **step_info}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every present agent of every sub-env votes; finished sub-envs restart.

        Args:
            actions: a vote per agent slot, shape (N, C) integers (those of absent agents
                are ignored).

        Returns:
            Observations (N, C, d) float32, rewards (N, C) float64 (0 for absent agents),
            terminated (N,), truncated (N,) (after ``max_cycles`` steps) and infos:
            ``session`` and ``rcid`` (N,) (the roll call to vote on next), ``agents`` (N, C)
            bool (present), ``action_mask`` (N, C, A) bool — of the state now, a new episode's
            where one restarted — and of the step taken: ``voted_rcid`` (N,),
            ``recorded_action`` (N, C) (−1 where no vote is recorded), with
            ``final_observation`` (N, C, d) and ``_final_observation`` (N,) for the episodes
            that ended.

        Raises:
            ResetNeeded: no reset has completed yet.
            InvalidActionError: an action of a present agent outside ``Discrete(3)``.
            RewardFunctionError: a reward is NaN or ±inf (no sub-env has moved).
        """
        if not self._started:
            raise ResetNeeded("call reset() before step()")
        present = self._present
        actions = self._check_actions(actions, present)
        n, c = present.shape
        column, t = self._first + self._t, self._t + 1
        terminated = t == self._length
        truncated = ~terminated & (t >= self.env.max_cycles)
        after = column + ~terminated
        recorded = self._votes[column].astype(np.int64)  # −1 for non-members (no vote cast)
        own = self._table[after]  # (N, C, n_own)
        slots: Any = np.flatnonzero(present)
        if slots.size == n * c:  # everyone present: views, no gathers
            slots = slice(None)
        rewards = np.zeros(n * c)
        rewards[slots] = self.env.rewards(
            self._agent_of_slot[slots],
            self._own.reshape(n * c, self.n_own)[slots],
            actions.reshape(-1)[slots],
            own.reshape(n * c, self.n_own)[slots],
            {"recorded_action": recorded.reshape(-1)[slots]},
        )
        votes = (np.arange(n)[:, None] * len(Vote) + actions)[present]
        counts = np.bincount(votes, minlength=n * len(Vote)).reshape(n, len(Vote))
        shares = counts / np.maximum(present.sum(axis=1), 1)[:, None]
        public = np.column_stack([shares, ADOPTION.passed(counts[:, Vote.YES], counts[:, Vote.NO])])
        self._t, self._own, self._public = t, own, public.astype(np.float32)
        infos: dict[str, Any] = {
            "voted_rcid": self.env.rcids[column], "recorded_action": recorded
        }  # fmt: skip
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            final = np.zeros((n, c, self.n_obs), dtype=np.float32)  # untouched rows: no memory
            final[ended] = self._observations(ended)
            mask = np.zeros(n, dtype=bool)
            mask[ended] = True
            infos.update(final_observation=final, _final_observation=mask)
            self._start(ended)
        infos.update(self._state_infos())
        return self._observations(), rewards.reshape(n, c), terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """Valid actions of every agent slot, (N, C, A) bool: all for present agents, none else."""
        return np.repeat(self._present[..., None], self.single_action_space.n, axis=2)

    def close(self) -> None:
        """Nothing to release."""

    def _seed(self, seed: int | Sequence[int | None] | None) -> None:
        """Sub-env generators: seed + i (or one seed each); fresh entropy when unseeded."""
        if seed is None and self._rngs:
            return
        self._rngs = sub_env_generators(seed, self.num_envs)

    def _start(self, envs: np.ndarray) -> None:
        """New episodes in the sub-envs ``envs``, drawn as the parallel env's ``reset`` draws."""
        draws = np.stack([self._rngs[i].random(2) for i in envs])  # one call per new episode
        index, first, length = self.env.episodes(
            draws, self._options.get("session", self.env.session),
            self._options.get("window", self.env.window),
        )  # fmt: skip
        for session in np.unique(index[~self._ready[index]]):  # sessions new to the table
            rows = np.flatnonzero(self.env.members[session])
            start, stop = self.env.bounds[session], self.env.bounds[session + 1]
            self._table[start:stop, rows] = self.env.session_features(session).transpose(1, 0, 2)
            self._ready[session] = True
        self._index[envs], self._first[envs], self._length[envs] = index, first, length
        self._t[envs] = 0
        self._present[envs] = self.env.members[index]
        self._own[envs] = self._table[first]
        self._public[envs] = 0.0

    def _observations(self, envs: Any = slice(None)) -> np.ndarray:
        """What the agents of the sub-envs ``envs`` observe now, a new (k, C, d) float32 array.

        Own features then the public part, zeros for absent agents (the table has zeros for
        non-members).
        """
        present = self._present[envs]
        obs = np.empty((*present.shape, self.n_obs), dtype=np.float32)
        obs[..., : self.n_own] = self._own[envs]
        obs[..., self.n_own :] = self._public[envs][:, None, :] * present[..., None]
        return obs

    def _check_actions(self, actions: Any, present: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != present.shape or not np.issubdtype(actions.dtype, np.integer):
            raise InvalidActionError(
                f"expected integer actions of shape {present.shape}, got {actions.shape} "
                f"{actions.dtype}"
            )
        wrong = present & ((actions < 0) | (actions >= self.single_action_space.n))
        if wrong.any():
            i, j = np.argwhere(wrong)[0]
            raise InvalidActionError(
                f"action {actions[i, j]} of {self.possible_agents[j]} in sub-env {i} is not in "
                f"Discrete({self.single_action_space.n})"
            )
        return np.where(present, actions, 0).astype(np.int64)

    def _state_infos(self) -> dict[str, Any]:
        """What every sub-env faces now: its session, next roll call, agents and masks."""
        column = self._first + np.minimum(self._t, self._length - 1)
        return {
            "session": self.env.sessions[self._index],
            "rcid": self.env.rcids[column],
            "agents": self._present.copy(),
            "action_mask": self.action_masks(),
        }


class AgentSlotsVectorEnv(VectorEnvBase):
    """:class:`AssemblyVectorEnv` as a Gymnasium vector env of its N × C agent slots.

    Slot ``i * C + j`` is agent j (``possible_agents`` order) of assembly i: observations
    (N × C, d), actions and rewards (N × C,), each assembly's episode end repeated over its
    slots; absent agents see zeros and get 0 (``infos["agents"]`` False, no valid action in
    :meth:`action_masks`). Infos are batched per slot, the assembly's keys repeated. Same-step
    autoreset (the only rule), with the stack's final observation and info keys.

    Args:
        num_assemblies: number of assemblies N.
        autoreset_mode: None or same-step.
        **env_kwargs: the arguments of :class:`AssemblyVectorEnv`'s parallel env.

    Raises:
        ValueError: another autoreset rule.

    Example:
        >>> venv = AgentSlotsVectorEnv(2)
        >>> observations, infos = venv.reset(seed=0)
        >>> venv.num_envs, observations.shape, venv.action_masks().shape
        (80, (80, 60), (80, 3))
    """

    metadata = {"autoreset_mode": SAME_STEP, "render_modes": []}

    def __init__(
        self, num_assemblies: int = 8, *, autoreset_mode: Any = None, **env_kwargs: Any
    ) -> None:
        if autoreset_mode is not None and autoreset_rule(autoreset_mode) != SAME_STEP:
            raise ValueError(f"AgentSlotsVectorEnv resets same-step only, got {autoreset_mode!r}")
        self.assemblies = AssemblyVectorEnv(num_assemblies, **env_kwargs)
        self.n_agents = len(self.assemblies.possible_agents)
        observation = self.assemblies.single_observation_space["observation"]
        super().__init__(
            num_assemblies * self.n_agents, observation, self.assemblies.single_action_space
        )

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:  # fmt: skip
        """Start an episode in every assembly.

        Args:
            seed: assembly i is seeded ``seed + i``; or one seed per slot (as SB3 gives them:
                assembly i takes its first slot's); None keeps the generators.
            options: ``session`` and ``window`` of every assembly's episodes.

        Returns:
            Observations (N × C, d) and the infos per slot.
        """
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seed = list(seed)[:: self.n_agents]
        obs, infos = self.assemblies.reset(seed=seed, options=options)
        return obs.reshape(self.num_envs, -1), self._slots(infos)

    def step(  # type: ignore[override, unused-ignore]  # 0.29's VectorEnv is a gym.Env
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every slot acts (absent agents' actions are ignored).

        Args:
            actions: one vote per slot, shape (N × C,).

        Returns:
            Observations (N × C, d), rewards (N × C,), terminated and truncated (N × C,), infos.
        """
        c = self.n_agents
        obs, rewards, terminated, truncated, infos = self.assemblies.step(
            np.asarray(actions).reshape(-1, c)
        )
        slots = self._slots(infos)
        if "_final_observation" in infos:
            ended = np.flatnonzero(np.repeat(infos["_final_observation"], c))
            final_obs = np.full(self.num_envs, None, dtype=object)
            final_obs[ended] = list(infos["final_observation"].reshape(self.num_envs, -1)[ended])
            mask = np.zeros(self.num_envs, dtype=bool)
            mask[ended] = True
            last = {key: slots[key][ended] for key in ("voted_rcid", "recorded_action")}
            slots.update({
                FINAL_OBS: final_obs, f"_{FINAL_OBS}": mask,
                "final_info": dict_info(last, ended, self.num_envs), "_final_info": mask.copy(),
            })  # fmt: skip
        return (
            obs.reshape(self.num_envs, -1), rewards.reshape(-1),
            np.repeat(terminated, c), np.repeat(truncated, c), slots,
        )  # fmt: skip

    def action_masks(self) -> np.ndarray:
        """Valid actions of every slot, (N × C, A) bool."""
        return self.assemblies.action_masks().reshape(self.num_envs, -1)

    def _slots(self, infos: dict[str, Any]) -> dict[str, Any]:
        """The assemblies' infos per slot: (N, C, …) values flattened, (N,) ones repeated."""
        c, n = self.n_agents, self.num_envs
        values = {
            key: infos[key].reshape(n, *infos[key].shape[2:]) if infos[key].ndim > 1
            else np.repeat(infos[key], c)
            for key in ("session", "rcid", "agents", "action_mask", "voted_rcid",
                        "recorded_action")
        }  # fmt: skip
        return batched_info(values, np.arange(n), n)
