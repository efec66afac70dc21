"""Native vectorised ``RollCall-v0`` and ``Deliberation-v0``: N episodes stepped in NumPy.

``gym.make_vec("assembly/RollCall-v0", num_envs=N, vectorization_mode="custom", ...)`` builds
these (on Gymnasium 0.29 the env arguments go in ``vector_kwargs``, since its ``make_vec``
passes only those to a custom vector env). Each sub-env ``i`` owns a generator seeded like a
single env reset with seed ``seed + i`` and draws its episodes exactly as the single env does
(the same sampling code), so sub-env ``i`` reproduces a single env seeded ``seed + i`` step
for step — tested. Steps are batched: observations, rewards (through the reward function's
``batch`` when it has one) and, for Deliberation, every other country's response.

Autoreset is same-step, as in Gymnasium 0.29's vector API: when a sub-env's episode ends,
``step`` returns the first observation of its next episode and puts the last one in
``infos["final_observation"]`` (with the mask ``infos["_final_observation"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector.utils import batch_space

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.deliberation import (
    STAGE_MASKS,
    DeliberationEnv,
    recorded_actions,
    support_share,
    write_stage_outcomes,
)
from assembly_gym.envs.legislative.rewards import batch_rewards
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.spaces import Action, Stage

try:  # Gymnasium 0.29: the new-style vector API lives under `experimental`
    from gymnasium.experimental.vector import VectorEnv

    SAME_STEP: Any = "same-step"
except ImportError:  # Gymnasium 1.x, which names the autoreset modes in an enum
    from gymnasium.vector import AutoresetMode, VectorEnv

    SAME_STEP = AutoresetMode.SAME_STEP

__all__ = ["DeliberationVectorEnv", "RollCallVectorEnv"]


class _BatchedEnv(VectorEnv):
    """Shared set-up: sub-env generators, spaces, seeding, final-observation infos."""

    metadata = {"autoreset_mode": SAME_STEP, "render_modes": []}

    def __init__(self, env: Any, num_envs: int) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be ≥ 1, got {num_envs}")
        self.env = env  # the single env whose data, features, dynamics and reward are shared
        self.num_envs = num_envs
        self.single_observation_space = env.observation_space
        self.single_action_space = env.action_space
        self.observation_space = batch_space(env.observation_space, num_envs)
        self.action_space = batch_space(env.action_space, num_envs)
        self.layout = env.layout
        self._rngs: list[np.random.Generator] | None = None
        self._options: dict[str, Any] = {}
        self._buffer = np.zeros((num_envs, 0, 0))  # per sub-env: uniforms of its next episodes
        self._position = np.zeros(num_envs, dtype=np.int64)

    def _seed(self, seed: int | Sequence[int] | None) -> None:
        """Sub-env generators: seed + i (or one seed each); fresh entropy when unseeded."""
        if seed is None and self._rngs is not None:
            return
        if seed is None or isinstance(seed, (int, np.integer)):
            seeds = [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"got {len(seeds)} seeds for {self.num_envs} sub-envs")
        self._rngs = [seeding.np_random(s)[0] for s in seeds]
        self._position[:] = self._buffer.shape[1]  # drawn afresh from the new generators

    def _draws(self, envs: np.ndarray, per_episode: int, block: int = 64) -> np.ndarray:
        """The uniforms of one episode for each sub-env in ``envs``, shape (len(envs), k).

        A single env draws its k uniforms per reset with one ``random(k)`` call; drawing
        ``random((block, k))`` once gives the same numbers for the next ``block`` episodes,
        so sub-env i still reproduces a single env seeded ``seed + i``.
        """
        if self._buffer.shape[1:] != (block, per_episode):
            self._buffer = np.zeros((self.num_envs, block, per_episode))
            self._position[:] = block
        for i in envs[self._position[envs] == block]:
            self._buffer[i] = self._rngs[i].random((block, per_episode))
            self._position[i] = 0
        draws = self._buffer[envs, self._position[envs]]
        self._position[envs] += 1
        return draws

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = np.asarray(actions)
        n = self.single_action_space.n
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise InvalidActionError(f"expected {self.num_envs} integer actions, got {actions!r}")
        if actions.min() < 0 or actions.max() >= n:
            raise InvalidActionError(f"actions must be in 0..{n - 1}, got {actions.tolist()}")
        return actions.astype(np.int64)

    @staticmethod
    def _final(infos: dict[str, Any], done: np.ndarray, final_obs: np.ndarray) -> None:
        finals = np.full(len(done), None, dtype=object)
        for i in np.flatnonzero(done):
            finals[i] = final_obs[i].copy()
        infos["final_observation"], infos["_final_observation"] = finals, done.copy()

    def close_extras(self, **kwargs: Any) -> None:
        """Close the shared single env (absent when ``__init__`` raised before setting it)."""
        env = getattr(self, "env", None)
        if env is not None:
            env.close()


class RollCallVectorEnv(_BatchedEnv):
    """N ``RollCall-v0`` episodes at once (same arguments as :class:`RollCallEnv`).

    Observation rows are computed per country on first use and kept in one table of shape
    (countries, roll calls, d), so a step is a few array gathers.

    Example:
        >>> venv = RollCallVectorEnv(4)
        >>> obs, infos = venv.reset(seed=0)
        >>> obs.shape
        (4, 56)
        >>> obs, rewards, terminated, truncated, infos = venv.step(np.zeros(4, dtype=np.int64))
    """

    def __init__(
        self, num_envs: int = 8, *, max_episode_steps: int | None = None, **env_kwargs: Any
    ) -> None:
        super().__init__(RollCallEnv(**env_kwargs), num_envs)
        data = self.env.data
        # All countries' rows; np.zeros leaves untouched pages unallocated, so only the
        # countries that episodes use take memory.
        self._table = np.zeros((data.n_countries, data.n_roll_calls, len(self.layout)), np.float32)
        self._ready = np.zeros(data.n_countries, dtype=bool)
        self._rcid = data.roll_calls["rcid"].to_numpy()
        self._columns = self.env.episodes.columns
        self._rows = np.zeros(num_envs, dtype=np.int64)
        self._starts = np.zeros(num_envs, dtype=np.int64)
        self._lengths = np.ones(num_envs, dtype=np.int64)
        self._t = np.zeros(num_envs, dtype=np.int64)
        self._mask = np.ones((num_envs, self.single_action_space.n), dtype=bool)

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode in every sub-env; ``options`` apply to all (and to autoresets)."""
        self._seed(seed)
        self._options = dict(options or {})
        self._start(np.arange(self.num_envs))
        columns = self._columns[self._starts]
        obs = self._observe(self._rows, columns)
        self._obs = obs.copy()
        return obs, self._infos(self._rows, columns)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Vote in every sub-env; finished sub-envs start their next episode."""
        actions = self._check_actions(actions)
        rows, t = self._rows, self._t
        voted = self._columns[self._starts + t]
        done = t + 1 == self._lengths
        following = self._columns[self._starts + np.where(done, t, t + 1)]
        obs, next_obs = self._obs, self._observe(rows, following)
        recorded = self.env.data.votes[rows, voted].astype(np.int64)
        step_infos = {"recorded_action": recorded, "rcid": self._rcid[voted]}
        rewards = batch_rewards(self.env.reward_fn, obs, actions, next_obs, step_infos)
        self._t = t + 1
        infos: dict[str, Any] = {}
        if done.any():
            self._final(infos, done, next_obs)
            ended = np.flatnonzero(done)
            self._start(ended)
            following[ended] = self._columns[self._starts[ended]]
            next_obs[ended] = self._observe(self._rows[ended], following[ended])
        self._obs = next_obs.copy()
        infos.update(self._infos(self._rows, following))
        infos["recorded_action"], infos["voted_rcid"] = recorded, step_infos["rcid"]
        return next_obs, rewards, done, np.zeros(self.num_envs, dtype=bool), infos

    def _start(self, envs: np.ndarray) -> None:
        """New episodes for the given sub-envs, drawn as the single env's reset draws them."""
        rows, starts, lengths = self.env._sample(self._draws(envs, 2), self._options)
        self._rows[envs], self._starts[envs], self._lengths[envs], self._t[envs] = (
            rows,
            starts,
            lengths,
            0,
        )
        for row in np.unique(rows[~self._ready[rows]]):  # first episode of a country
            self._table[row] = self.env.features.for_country(self.env.data.country_names[row])
            self._ready[row] = True

    def _observe(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        return self._table[rows, columns]

    def _infos(self, rows: np.ndarray, columns: np.ndarray) -> dict[str, Any]:
        return {
            "country_row": rows.copy(),
            "rcid": self._rcid[columns],
            "session": self.env.attributes["session"][columns],
            "action_mask": self._mask,
        }


class DeliberationVectorEnv(_BatchedEnv):
    """N ``Deliberation-v0`` episodes at once (same arguments as :class:`DeliberationEnv`).

    Every episode has exactly three steps and all sub-envs start together, so the sub-envs
    are always at the same stage; each stage is one batched response of every country.
    """

    def __init__(
        self, num_envs: int = 8, *, max_episode_steps: int | None = None, **env_kwargs: Any
    ) -> None:
        super().__init__(DeliberationEnv(**env_kwargs), num_envs)
        n_countries = self.env.records.n_countries
        self._offset = len(self.env.features.names)
        self._obs = np.zeros((num_envs, len(self.layout)), dtype=np.float32)
        self._rows = np.zeros(num_envs, dtype=np.int64)
        self._columns = np.zeros(num_envs, dtype=np.int64)
        self._sponsored = np.zeros((num_envs, n_countries), dtype=bool)
        self._support = np.zeros(num_envs)
        self._uniforms = np.zeros((num_envs, len(Stage) - 1, n_countries))
        self._stage = Stage.DRAFT
        records = self.env.records  # feature rows of every country, filled on first use
        self._table = np.zeros((n_countries, records.n_resolutions, self._offset), dtype=np.float32)
        self._ready = np.zeros(n_countries, dtype=bool)

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a resolution in every sub-env; ``options`` apply to all (and to autoresets)."""
        self._seed(seed)
        self._options = dict(options or {})
        self._start_all()
        return self._obs.copy(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Act at the current stage in every sub-env; the other countries respond."""
        actions = self._check_actions(actions)
        stage = self._stage
        invalid = ~STAGE_MASKS[stage][actions]
        if invalid.any():
            if self.env.invalid_action == "raise":
                raise InvalidActionError(
                    f"actions {actions[invalid].tolist()} are not valid at {stage.name}"
                )
            actions = np.where(invalid, Action.NO_ACTION, actions)
        before = self._obs.copy()
        issues = self.env.resolution_issues[self._columns]
        choices = self.env.dynamics.respond(
            stage, issues, self._rows, actions, self._sponsored, self._support,
            self._uniforms[:, stage],
        )  # fmt: skip
        counts = write_stage_outcomes(self._obs[:, self._offset :], stage, choices, self._rows)
        self._support = support_share(stage, counts, self.env.records.n_countries)
        recorded = recorded_actions(self.env.records, stage, self._rows, self._columns)
        step_infos = {"recorded_action": recorded, "tally": counts}
        rewards = batch_rewards(self.env.reward_fn, before, actions, self._obs, step_infos)
        self._stage = Stage(stage + 1)
        done = np.full(self.num_envs, self._stage == Stage.TERMINAL)
        infos: dict[str, Any] = {"recorded_action": recorded, "tally": counts,
                                 "invalid_action": invalid, "acted_stage": stage.name}  # fmt: skip
        if done[0]:
            self._final(infos, done, self._obs.copy())
            self._start_all()
        infos.update(self._infos())
        return self._obs.copy(), rewards, done, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """Valid actions of every sub-env at the current stage, shape (N, 5)."""
        return np.tile(STAGE_MASKS[self._stage], (self.num_envs, 1))

    def _start_all(self) -> None:
        """New episodes everywhere, each drawn exactly as the single env's reset draws it."""
        per_episode = self.env.draws_per_episode
        draws = self._draws(
            np.arange(self.num_envs), per_episode, block=max(1, 4096 // per_episode)
        )
        self._rows[:], self._columns[:] = self.env.sample_starts(draws[:, :2], self._options)
        self._uniforms[:] = draws[:, 2:].reshape(self._uniforms.shape)
        for row in np.unique(self._rows[~self._ready[self._rows]]):  # countries new to the table
            self._table[row] = self.env.country_features(self.env.records.country_names[row])
            self._ready[row] = True
        self._obs[:] = 0.0
        self._obs[:, : self._offset] = self._table[self._rows, self._columns]
        self._obs[:, self.layout.index("stage_draft")] = 1.0
        self._sponsored[:] = False
        self._support[:] = 0.0
        self._stage = Stage.DRAFT

    def _infos(self) -> dict[str, Any]:
        return {
            "country_row": self._rows.copy(),
            "rcid": self.env.attributes["rcid"][self._columns],
            "stage": np.full(self.num_envs, self._stage.name),
            "action_mask": self.action_masks(),
        }
