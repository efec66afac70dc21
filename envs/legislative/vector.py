"""Native vectorised ``RollCall-v0`` and ``Deliberation-v0``: N episodes stepped in NumPy.

Both are :class:`~assembly_gym.envs.batched.BatchedEnv` subclasses;
:class:`assembly_gym.agents.sb3_vec.SB3VecEnv` hands them to Stable-Baselines3. Each sub-env
``i`` draws its episodes exactly as the single env seeded ``seed + i`` does (the same
sampling code), so the vector env equals ``SyncVectorEnv`` of single envs step for step,
under each autoreset rule (tested). Steps are batched: observations, rewards (the reward
function's ``batch`` when it has one) and, for Deliberation, every other country's response.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.core.rewards import batch_rewards
from assembly_gym.envs.batched import BatchedEnv, Infos
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
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.spaces import Action, Stage

__all__ = ["DeliberationVectorEnv", "RollCallVectorEnv"]


class RollCallVectorEnv(BatchedEnv):
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
        rows, starts, lengths = self.env.sample_episodes(self._draws(envs, 2), self._options)
        self._rows[envs], self._cursor[envs], self._last[envs] = rows, starts, starts + lengths - 1
        for row in np.unique(rows[~self._ready[rows]]):  # first episode of a country
            self._table[row] = self.env.features.for_country(self.env.data.country_names[row])
            self._ready[row] = True
        self._obs[envs] = self._flat.take(rows * self._table.shape[1] + self._columns[starts], 0)

    def _transition(
        self, envs: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, bool, Infos]:
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
        step_info = {"recorded_action": recorded, "voted_rcid": step_info["rcid"]}
        return rewards, done, False, step_info

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


class DeliberationVectorEnv(BatchedEnv):
    """N ``Deliberation-v0`` episodes at once (same arguments as :class:`DeliberationEnv`).

    Every episode has exactly three steps and all sub-envs start together, so the sub-envs
    are always at the same stage, and ``_start`` and ``_transition`` always concern every
    sub-env; each stage is one batched response of every country. Args as
    :class:`RollCallVectorEnv`'s (``env_kwargs``: those of :class:`DeliberationEnv`).
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
    ) -> tuple[np.ndarray, np.ndarray, bool, Infos]:
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
        write_stage_counts(after[:, self._offset :].T, stage, counts.T, own, uniforms.shape[1])
        recorded = self.env.recorded_table[stage, rows, self._columns].astype(np.int64)
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
        return rewards, done, False, step_info

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
