"""Native vectorised ``RollCall-v0`` and ``Deliberation-v0``: N episodes stepped in NumPy.

They are Gymnasium vector envs of the stack they run on (see :mod:`assembly_gym.envs.vector_api`):
on 1.x, ``gymnasium.vector.VectorEnv`` subclasses declaring ``metadata["autoreset_mode"]``,
``NEXT_STEP`` by default and ``SAME_STEP`` on request (``autoreset_mode=``); on 0.29, the stable
``gymnasium.vector.VectorEnv`` with its same-step rule. Either way they take the standard vector
wrappers (``RecordEpisodeStatistics`` included) and autoreset, and fill their infos, as
Gymnasium's ``SyncVectorEnv`` of the single env does. :func:`assembly_gym.make_native_vec`
builds them through ``gym.make_vec``; :class:`assembly_gym.agents.sb3_vec.SB3VecEnv` hands them
to Stable-Baselines3.

Each sub-env ``i`` owns a generator seeded like a single env reset with seed ``seed + i`` and
draws its episodes exactly as the single env does (the same sampling code), so the vector env
equals ``SyncVectorEnv`` of single envs step for step, under each autoreset rule — tested.
Steps are batched: observations, rewards (through the reward function's ``batch`` when it has
one) and, for Deliberation, every other country's response. As in the single envs, a step
before the first reset raises ``ResetNeeded``, unknown reset options raise, and a step whose
reward function raises (or returns NaN or ±inf) leaves every sub-env as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.data import ABSENT, Vote
from assembly_gym.envs.legislative.deliberation import (
    STAGE_MASKS,
    TALLY_KEYS,
    UNRECORDED_ACTION,
    DeliberationEnv,
    support_share,
    write_stage_counts,
)
from assembly_gym.envs.legislative.dynamics import OUTCOMES, own_outcomes
from assembly_gym.envs.legislative.rewards import batch_rewards
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.spaces import Action, Stage
from assembly_gym.envs.options import checked_options
from assembly_gym.envs.vector_api import (
    AUTORESET_MODES,
    FINAL_OBS,
    SAME_STEP,
    VectorEnvBase,
    autoreset_mode,
    batched_info,
    dict_info,
    sub_env_generators,
)

__all__ = ["DeliberationVectorEnv", "RollCallVectorEnv"]

Infos = dict[str, Any]
"""Info key → one value per sub-env of a group: arrays with a leading sub-env axis, or dicts of
such (a dict-valued key such as Deliberation's ``tally``)."""


class _BatchedEnv(VectorEnvBase):
    """Shared machinery: sub-env generators, seeding, checks, the autoreset rule, infos.

    A family defines five things, and :meth:`reset` and :meth:`step` compose them: ``_start``
    (new episodes for some sub-envs), ``_transition`` (one step of some sub-envs),
    ``_observations`` and ``_state_infos`` (what every sub-env sees now) and
    ``_reset_step_info`` (the single env's placeholders for the step keys of its reset info).
    """

    metadata = {"autoreset_mode": AUTORESET_MODES[0], "render_modes": []}
    single_action_space: spaces.Discrete  # the single env's (set by VectorEnvBase)

    def __init__(
        self, env: Any, num_envs: int, autoreset: Any, max_episode_steps: int | None
    ) -> None:
        self.env = env  # the single env whose data, features, dynamics and reward are shared
        if num_envs < 1:
            raise ValueError(f"num_envs must be ≥ 1, got {num_envs}")
        if max_episode_steps is not None:
            raise ValueError(
                "the native vector envs have no time limit (their episodes end on their own); "
                "use gym.make_vec(..., vectorization_mode='sync') for one"
            )
        super().__init__(num_envs, env.observation_space, env.action_space)
        self.metadata = {**self.metadata, "autoreset_mode": autoreset_mode(autoreset)}
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
        self._options = checked_options(options, self.env.RESET_OPTIONS, type(self).__name__)
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
            actions: one integer action per sub-env, shape (N,).

        Returns:
            Observations (N, d), rewards (N,) float64, terminated (N,), truncated (N,) (never:
            episodes end on their own) and the batched infos (the single env's keys).

        Raises:
            ResetNeeded: no reset has completed yet.
            RewardFunctionError: a reward is NaN or ±inf (no sub-env has moved).
        """
        if not self._started:
            raise ResetNeeded("call reset() before step()")
        actions = self._check_actions(actions)
        n, same_step = self.num_envs, self.metadata["autoreset_mode"] == SAME_STEP
        moving = np.flatnonzero(~self._ended)  # NEXT_STEP: the others only reset on this step
        rewards, terminated = np.zeros(n), np.zeros(n, dtype=bool)
        if moving.size:
            rewards[moving], terminated[moving], step_info = self._transition(
                moving, actions[moving]
            )
        else:
            step_info = self._reset_step_info(0)
        infos: dict[str, Any] = {}
        if same_step:  # every sub-env moved; the finished ones restart now
            restart = np.flatnonzero(terminated)
            if restart.size:
                infos.update(self._finals(restart, step_info))
        else:
            restart, self._ended = np.flatnonzero(self._ended), terminated.copy()
        if restart.size:  # their infos are a reset's: the step keys hold placeholders
            self._start(restart)
            kept = np.ones(n, dtype=bool)
            kept[restart] = False
            kept = kept[moving]
            step_info = _assigned(self._reset_step_info(n), moving[kept], _rows(step_info, kept))
        everyone = np.arange(n)
        infos.update(batched_info({**self._state_infos(), **step_info}, everyone, n))
        return self._observations(), rewards, terminated, np.zeros(n, dtype=bool), infos

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

    def _seed(self, seed: int | Sequence[int | None] | None) -> None:
        """Sub-env generators: seed + i (or one seed each); fresh entropy when unseeded."""
        if seed is None and self._rngs:
            return
        self._rngs = sub_env_generators(seed, self.num_envs)
        self._position[:] = self._buffer.shape[0]  # drawn afresh from the new generators

    def _draws(self, envs: np.ndarray, per_episode: int, block: int = 64) -> np.ndarray:
        """The uniforms of one episode for each sub-env in ``envs``, shape (len(envs), k).

        A single env draws its k uniforms per reset with one ``random(k)`` call; drawing
        ``random((block, k))`` once gives the same numbers for the next ``block`` episodes,
        so sub-env i still reproduces a single env seeded ``seed + i``. When ``envs`` is every
        sub-env and all are at the same episode of their block (as when they all start
        together), the draws are a read-only view, valid until the next call.
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

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = np.asarray(actions)
        n = self.single_action_space.n
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise InvalidActionError(f"expected {self.num_envs} integer actions, got {actions!r}")
        if actions.min() < 0 or actions.max() >= n:
            raise InvalidActionError(f"actions must be in 0..{n - 1}, got {actions.tolist()}")
        return actions.astype(np.int64)

    def close_extras(self, **kwargs: Any) -> None:
        """Close the shared single env (absent when ``__init__`` raised before setting it)."""
        env = getattr(self, "env", None)
        if env is not None:
            env.close()

    # ------------------------------------------------------------ what each family defines

    def _start(self, envs: np.ndarray) -> None:
        """Start new episodes in the sub-envs ``envs`` (sorted indices)."""
        raise NotImplementedError

    def _transition(self, envs: np.ndarray, actions: np.ndarray) -> tuple[Any, Any, Infos]:
        """One step of the sub-envs ``envs``: rewards, terminated and step-only infos of each."""
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


class RollCallVectorEnv(_BatchedEnv):
    """N ``RollCall-v0`` episodes at once (same arguments as :class:`RollCallEnv`).

    Observation rows are computed per country on first use and kept in one table of shape
    (countries, roll calls, d), so a step is a few array gathers.

    Args:
        num_envs: number of sub-envs N.
        autoreset_mode: the autoreset rule (a rule or its name; None: the stack's default).
        max_episode_steps: must be None (``gym.make_vec`` passes the spec's).
        **env_kwargs: the arguments of :class:`RollCallEnv`.

    Example:
        >>> venv = RollCallVectorEnv(4, autoreset_mode="SameStep")
        >>> obs, infos = venv.reset(seed=0)
        >>> obs.shape
        (4, 56)
        >>> obs, rewards, terminated, truncated, infos = venv.step(np.zeros(4, dtype=np.int64))
    """

    def __init__(
        self, num_envs: int = 8, *, autoreset_mode: Any = None,
        max_episode_steps: int | None = None, **env_kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(RollCallEnv(**env_kwargs), num_envs, autoreset_mode, max_episode_steps)
        data = self.env.data
        # All countries' rows; np.zeros leaves untouched pages unallocated, so only the
        # countries that episodes use take memory.
        self._table = np.zeros((data.n_countries, data.n_roll_calls, len(self.layout)), np.float32)
        self._flat = self._table.reshape(-1, len(self.layout))  # row r · R + column
        self._ready = np.zeros(data.n_countries, dtype=bool)
        self._rcid = data.roll_calls["rcid"].to_numpy()
        self._country_names = np.asarray(data.country_names, dtype=object)
        self._columns = self.env.episodes.columns
        self._rows = np.zeros(num_envs, dtype=np.int64)
        # Where each sub-env is in ``_columns`` (the roll call to vote on) and its last vote.
        self._cursor = np.zeros(num_envs, dtype=np.int64)
        self._last = np.zeros(num_envs, dtype=np.int64)
        self._obs = np.zeros((num_envs, len(self.layout)), dtype=np.float32)

    def action_masks(self) -> np.ndarray:
        """Valid actions of every sub-env, shape (N, 3): all True (every vote is allowed)."""
        return np.ones((self.num_envs, self.single_action_space.n), dtype=bool)

    def _start(self, envs: np.ndarray) -> None:
        rows, starts, lengths = self.env._sample(self._draws(envs, 2), self._options)
        self._rows[envs], self._cursor[envs], self._last[envs] = rows, starts, starts + lengths - 1
        for row in np.unique(rows[~self._ready[rows]]):  # first episode of a country
            self._table[row] = self.env.features.for_country(self.env.data.country_names[row])
            self._ready[row] = True
        self._obs[envs] = self._flat.take(rows * self._table.shape[1] + self._columns[starts], 0)

    def _transition(
        self, envs: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Infos]:
        everyone = len(envs) == self.num_envs  # envs is sorted: every sub-env, in order
        rows, cursor = (self._rows, self._cursor) if everyone else (
            self._rows[envs], self._cursor[envs])  # fmt: skip
        voted = self._columns[cursor]
        done = cursor == (self._last if everyone else self._last[envs])
        upcoming = self._columns[cursor + ~done]  # the last one again after the last vote
        next_obs = self._flat.take(rows * self._table.shape[1] + upcoming, 0)
        recorded = self.env.data.votes[rows, voted].astype(np.int64)
        step_info = {"recorded_action": recorded, "rcid": self._rcid[voted]}
        obs = self._obs if everyone else self._obs[envs]
        rewards = batch_rewards(self.env.reward_fn, obs, actions, next_obs, step_info)
        self._cursor[envs] = cursor + 1
        if everyone:
            self._obs = next_obs
        else:
            self._obs[envs] = next_obs
        return rewards, done, {"recorded_action": recorded, "voted_rcid": step_info["rcid"]}

    def _observations(self) -> np.ndarray:
        return self._obs.copy()

    def _state_infos(self) -> Infos:
        # The roll call each sub-env faces now: after its last vote, that last one (as the
        # single env's info says).
        columns = self._columns[np.minimum(self._cursor, self._last)]
        attributes = self.env.attributes
        return {
            "country": self._country_names[self._rows],
            "country_row": self._rows.copy(),
            "session": attributes["session"][columns],
            "rcid": self._rcid[columns],
            "symbol": attributes["symbol"][columns],
            "title": attributes["short"][columns],
            "description": attributes["descr"][columns],
            "action_mask": self.action_masks(),
        }

    def _reset_step_info(self, k: int) -> Infos:
        return {"recorded_action": np.full(k, ABSENT), "voted_rcid": np.full(k, ABSENT)}


class DeliberationVectorEnv(_BatchedEnv):
    """N ``Deliberation-v0`` episodes at once (same arguments as :class:`DeliberationEnv`).

    Every episode has exactly three steps and all sub-envs start together, so the sub-envs
    are always at the same stage, and ``_start`` and ``_transition`` always concern every
    sub-env; each stage is one batched response of every country.

    Args:
        num_envs: number of sub-envs N.
        autoreset_mode: the autoreset rule (a rule or its name; None: the stack's default).
        max_episode_steps: must be None (``gym.make_vec`` passes the spec's).
        **env_kwargs: the arguments of :class:`DeliberationEnv`.
    """

    def __init__(
        self, num_envs: int = 8, *, autoreset_mode: Any = None,
        max_episode_steps: int | None = None, **env_kwargs: Any,
    ) -> None:  # fmt: skip
        env = DeliberationEnv(**env_kwargs)
        super().__init__(env, num_envs, autoreset_mode, max_episode_steps)
        n_countries = self.env.records.n_countries
        self._offset = len(self.env.features.names)
        self._adopted = self.layout.index("adopted")
        self._country_names = np.asarray(self.env.records.country_names, dtype=object)
        self._obs = np.zeros((num_envs, len(self.layout)), dtype=np.float32)
        self._rows = np.zeros(num_envs, dtype=np.int64)
        self._columns = np.zeros(num_envs, dtype=np.int64)
        self._issues = np.zeros(num_envs, dtype=np.int64)
        # Each country's row of the vote thresholds (EmpiricalDynamics.threshold_rows).
        self._threshold_rows = np.zeros((num_envs, n_countries), dtype=np.intp)
        self._support = np.zeros(num_envs)
        self._uniforms = np.zeros((len(Stage) - 1, num_envs, n_countries))  # by acting stage
        self._ones = np.ones(n_countries)  # counts by matmul
        self._everyone = np.arange(num_envs)
        self._stage = Stage.DRAFT
        self._about: Infos = {}  # set by _start
        # The first observation of every (country, resolution), filled per country on first
        # use (untouched pages of np.zeros take no memory); row r · R + column of _flat.
        shape = (n_countries, self.env.records.n_resolutions, len(self.layout))
        self._table = np.zeros(shape, dtype=np.float32)
        self._flat = self._table.reshape(-1, shape[2])
        self._ready = np.zeros(n_countries, dtype=bool)
        # Per stage, the arrays every sub-env's infos repeat, copied out (an object array
        # filled with np.full costs ~30 times its copy).
        self._stage_names = {stage: np.full(num_envs, stage.name, dtype=object) for stage in Stage}
        self._blank = np.full(num_envs, "", dtype=object)
        self._masks = {stage: np.tile(STAGE_MASKS[stage], (num_envs, 1)) for stage in Stage}

    def action_masks(self) -> np.ndarray:
        """Valid actions of every sub-env at the current stage, shape (N, 5)."""
        return self._masks[self._stage].copy()

    def _start(self, envs: np.ndarray) -> None:
        # New episodes everywhere, each drawn exactly as the single env's reset draws it.
        per_episode = self.env.draws_per_episode
        draws = self._draws(envs, per_episode, block=max(1, 4096 // per_episode))
        self._rows[:], self._columns[:] = self.env.sample_starts(draws[:, :2], self._options)
        by_stage = draws[:, 2:].reshape(self.num_envs, len(Stage) - 1, -1)
        self._uniforms[:] = np.swapaxes(by_stage, 0, 1)
        for row in np.unique(self._rows[~self._ready[self._rows]]):  # countries new to the table
            self._table[row] = self.env.first_observations(row)
            self._ready[row] = True
        attributes, columns = self.env.attributes, self._columns
        self._issues = self.env.resolution_issues[columns]
        self._about = {  # what the infos say of the episodes until they end (copied out)
            "country": self._country_names[self._rows],
            "country_row": self._rows.copy(),
            "rcid": attributes["rcid"][columns],
            "symbol": attributes["symbol"][columns],
            "session": attributes["session"][columns],
            "title": attributes["short"][columns],
            "description": attributes["descr"][columns],
        }
        self._obs = self._flat.take(self._rows * self._table.shape[1] + self._columns, 0)
        self._support[:] = 0.0
        self._stage = Stage.DRAFT

    def _transition(
        self, envs: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Infos]:
        stage, everyone, rows = self._stage, self._everyone, self._rows
        invalid = ~STAGE_MASKS[stage][actions]
        if invalid.any():
            if self.env.invalid_action == "raise":
                raise InvalidActionError(
                    f"actions {actions[invalid].tolist()} are not valid at {stage.name}"
                )
            actions = np.where(invalid, Action.NO_ACTION, actions)
        # The stage's outcome in copies, applied once the rewards are known to be finite;
        # the others' response as EmpiricalDynamics.respond draws it, counted.
        after, threshold_rows = self._obs.copy(), self._threshold_rows
        dynamics, uniforms = self.env.dynamics, self._uniforms[stage]
        if stage == Stage.DRAFT:
            sponsored = uniforms < dynamics.sponsor_by_issue.take(self._issues, 0)
            own = sponsored[everyone, rows] = actions == Action.COSPONSOR
            counts = (sponsored @ self._ones).astype(np.int64)[:, None]
            threshold_rows = dynamics.threshold_rows(sponsored)
        else:
            outcomes = own_outcomes(actions)
            counts = dynamics.vote_tallies(
                stage, self._issues, threshold_rows, self._support, uniforms, rows, outcomes
            )
            own = OUTCOMES[outcomes]
        write_stage_counts(after[:, self._offset :], stage, counts, own, uniforms.shape[1])
        recorded = self.env._recorded_table[stage, rows, self._columns].astype(np.int64)
        tally = {key: np.zeros(self.num_envs, dtype=np.int64) for key in TALLY_KEYS}
        if stage == Stage.DRAFT:  # tally_dict's, batched
            tally["sponsors"] = counts[:, 0]
        else:
            tally.update({vote.name.lower(): counts[:, vote] for vote in Vote})
        rewards = batch_rewards(
            self.env.reward_fn, self._obs, actions, after,
            {"recorded_action": recorded, "tally": tally},
        )  # fmt: skip
        self._obs, self._threshold_rows = after, threshold_rows
        self._support = support_share(stage, counts, uniforms.shape[1])
        self._stage = Stage(stage + 1)
        done = np.full(self.num_envs, self._stage == Stage.TERMINAL)
        step_info = {
            "recorded_action": recorded, "acted_stage": self._stage_names[stage].copy(),
            "invalid_action": invalid, "tally": tally,
        }  # fmt: skip
        return rewards, done, step_info

    def _observations(self) -> np.ndarray:
        return self._obs.copy()

    def _state_infos(self) -> Infos:
        return {
            **{key: value.copy() for key, value in self._about.items()},
            "stage": self._stage_names[self._stage].copy(),
            "action_mask": self.action_masks(),
            "adopted": self._obs[:, self._adopted] != 0.0,
        }

    def _reset_step_info(self, k: int) -> Infos:
        return {
            "recorded_action": np.full(k, UNRECORDED_ACTION),
            "acted_stage": self._blank[:k].copy(),
            "invalid_action": np.zeros(k, dtype=bool),
            "tally": {key: np.zeros(k, dtype=np.int64) for key in TALLY_KEYS},
        }
