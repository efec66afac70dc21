"""``assembly_v0``'s deliberation variant: resolutions from draft to outcome, every member an agent.

An episode is one resolution of ``Deliberation-v0``'s records (or ``window`` consecutive
resolutions of a session), played stage by stage as ``Deliberation-v0`` plays it (DRAFT,
COMMITTEE_VOTE, PLENARY_VOTE, then the outcome), every member acting at once; the tallies
are the agents' own (no fitted background).

* Agents: ``possible_agents`` are the countries of the records, in their row order;
  ``agents`` the members of the resolution's session (a country that sponsored or cast a
  committee or plenary vote on a resolution of that session).
* Actions: ``Discrete(5)`` per agent (:class:`~assembly_gym.envs.legislative.spaces.Action`),
  valid ones in the observation's ``action_mask`` (``Deliberation-v0``'s
  :data:`~assembly_gym.envs.legislative.deliberation.STAGE_MASKS`). A masked action is
  played as NO_ACTION, with ``invalid_action`` True in the agent's info.
* Observations: ``{"observation": Box(0, 1, (d + 19,)), "action_mask": Box(0, 1, (5,), int8)}``;
  ``observation`` is the country's ``Deliberation-v0`` observation (d = 56 by default: its
  own roll-call features, then
  :data:`~assembly_gym.envs.legislative.deliberation.STATE_NAMES`).
* Rewards: ``rewards`` maps a country to its ``reward_fn(obs, action, next_obs, info)`` on
  ``Deliberation-v0`` observations, ``info`` with ``recorded_action`` (the :class:`Action`
  the country took at that stage; −1 where the stage is not recorded), evaluated batched
  as in the roll-call variant; None: the proxy, 1 for doing what the country did.
* End: terminated after the last resolution's plenary vote (3 steps per resolution);
  truncated after ``max_cycles`` steps.
* Infos: ``session``, ``rcid``, ``symbol`` (the resolution to act on next), ``stage`` (to act
  at next, ``TERMINAL`` at the end), ``acted_stage`` ("" at reset), ``recorded_action``
  (revealed once the agent has acted; −1 at reset), ``invalid_action``, ``tally`` (the
  stage just played, keys :data:`~assembly_gym.envs.legislative.deliberation.TALLY_KEYS`)
  and ``adopted``.
* Render: "ansi" (text) and "rgb_array" (``Deliberation-v0``'s hemicycle, coloured by what
  the agents did at the stage just played).

Example:
    >>> from assembly_gym.envs import assembly_v0
    >>> env = assembly_v0.parallel_env(variant="deliberation")
    >>> observations, infos = env.reset(seed=0)
    >>> infos[env.agents[0]]["stage"], observations[env.agents[0]]["action_mask"].tolist()
    ('DRAFT', [1, 0, 0, 0, 1])
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from assembly_gym.core.errors import DataError
from assembly_gym.core.hemicycle import (
    AssemblyView,
    Hemicycle,
    Seat,
    seat_order,
    sponsor_seats,
    vote_seats,
)
from assembly_gym.core.rewards import RewardFn
from assembly_gym.envs.legislative.data import ABSENT, Vote
from assembly_gym.envs.legislative.deliberation import (
    STAGE_LABELS,
    STAGE_MASKS,
    STATE_NAMES,
    UNRECORDED_ACTION,
    recorded_actions,
    resolution_records,
    session_records,
    tally_dict,
    write_stage_outcomes,
)
from assembly_gym.envs.legislative.observation import (
    FeatureConfig,
    RollCallFeatures,
    feature_names,
)
from assembly_gym.envs.legislative.resolutions import NOT_RECORDED
from assembly_gym.envs.legislative.sources import Split
from assembly_gym.envs.legislative.spaces import Action, Stage
from assembly_gym.envs.multiagent.base import AssemblyEnvBase, checked_actions, tally_text
from assembly_gym.envs.multiagent.rewards import CountryRewards
from assembly_gym.envs.options import OptionTypes

__all__ = ["DeliberationParallelEnv"]

_MASKS = np.stack([STAGE_MASKS[stage] for stage in Stage]).astype(np.int8)  # (4, 5) by Stage
_MASKS.setflags(write=False)
_STAGE_DRAFT = STATE_NAMES.index("stage_draft")
_ADOPTED = STATE_NAMES.index("adopted")
_STAGES = len(Stage) - 1  # steps per resolution


class DeliberationParallelEnv(AssemblyEnvBase):
    """Every member state acts at each stage of a resolution (see the module's text).

    Args:
        data: what ``Deliberation-v0`` takes (None: the synthetic assembly's simulated
            records; "unvotes" or a path: roll-call records; a list of document trajectories;
            records).
        rewards: country → ``reward_fn``, or None for the proxy (match the recorded action).
        resolution: the resolution of every episode (id or symbol; None: drawn).
        session: the session episodes are drawn from (None: drawn).
        window: resolutions per episode, consecutive in the session from a drawn one
            (None: the whole session).
        render_mode, max_cycles, feature_config, split, sessions: as
            :class:`~assembly_gym.envs.multiagent.assembly.AssemblyParallelEnv`'s.

    Raises:
        ValueError: an unknown render mode or split, ``window`` < 1, ``split`` and ``sessions``
            both given, or ``rewards`` lacking a country.
        DataError: an unknown ``resolution``, ``session`` without resolutions, or a range
            without resolutions.
    """

    variant = "deliberation"

    RESET_OPTIONS: OptionTypes = {
        "resolution": (int, str), "session": (int,), "window": (int,),
    }  # fmt: skip

    def __init__(
        self,
        data: Any = None,
        rewards: Mapping[str, RewardFn] | None = None,
        render_mode: str | None = None,
        max_cycles: int = 500,
        *,
        resolution: int | str | None = None,
        session: int | None = None,
        window: int | None = 1,
        feature_config: FeatureConfig | None = None,
        split: Split | None = None,
        sessions: tuple[int | None, int | None] | None = None,
    ) -> None:
        self._check_render_mode(render_mode)
        if window is not None and window < 1:
            raise ValueError(f"window must be ≥ 1, got {window}")
        self.split = split
        self.records, self._known = session_records(resolution_records(data), split, sessions)
        self.render_mode, self.max_cycles, self.window = render_mode, max_cycles, window
        self.feature_config = feature_config or FeatureConfig()
        self.possible_agents: list[str] = list(self.records.country_names)
        self.agents: list[str] = []
        self.rewards = CountryRewards(self.possible_agents, rewards)
        resolutions = self.records.resolutions
        self._session_of = resolutions["session"].to_numpy(dtype=np.int64)  # (R,)
        self.rcids = resolutions["rcid"].to_numpy(dtype=np.int64)
        self._symbols = resolutions["symbol"].fillna("").astype(str).to_numpy()
        self.sessions = np.unique(self._session_of)
        acted = (
            (self.records.sponsors == 1)
            | _cast(self.records.committee)
            | _cast(self.records.plenary)
        )  # (C, R)
        in_session = self._session_of[:, None] == self.sessions  # (R, S)
        self.members = (acted.astype(np.int64) @ in_session).T > 0  # (S, C)
        self.resolution = resolution
        if resolution is not None:
            self.records.resolution_index(resolution)
        self.session = self._checked_session(session)
        self.n_own = len(feature_names(self.feature_config))
        self._start(self.n_own + len(STATE_NAMES), len(Action))

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start at the DRAFT stage of a resolution drawn from the seeded generator.

        ``options`` may hold ``resolution``, ``session`` and ``window`` (for this episode).
        """
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        options = self.reset_options(options)
        draws = self.np_random.random(2)
        resolution = options.get("resolution", self.resolution)
        if resolution is not None:
            columns = np.array([self.records.resolution_index(resolution)])
            index = int(np.searchsorted(self.sessions, self._session_of[columns[0]]))
        else:
            session = self._checked_session(options.get("session", self.session))
            if session is None:
                index = min(int(draws[0] * len(self.sessions)), len(self.sessions) - 1)
            else:
                index = int(np.searchsorted(self.sessions, session))
            in_session = np.flatnonzero(self._session_of == self.sessions[index])
            window = options.get("window", self.window)
            length = len(in_session) if window is None else min(window, len(in_session))
            room = len(in_session) - length + 1
            offset = min(int(draws[1] * room), room - 1)
            columns = in_session[offset : offset + length]
        rows = np.flatnonzero(self.members[index])
        if len(rows) == 0:
            raise DataError(self.records.source, f"no member in session {self.sessions[index]}",
                            field="session")  # fmt: skip
        self.agents = [self.possible_agents[r] for r in rows]
        in_session = np.flatnonzero(self._session_of == self.sessions[index])
        own = self._session_features(index, rows)[:, np.searchsorted(in_session, columns)]
        self._episode = {
            "session": int(self.sessions[index]), "rows": rows, "columns": columns,
            "own": own, "t": 0, "obs": self._fresh(own[:, 0]), "last": None,
        }  # fmt: skip
        info = self._info(Stage.DRAFT, columns[0], tally_dict(), False)
        info.update(acted_stage="", recorded_action=UNRECORDED_ACTION, invalid_action=False)
        return self._observations(Stage.DRAFT), {agent: dict(info) for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[
        dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]
    ]:  # fmt: skip
        """Every member acts at the current stage; move to the next stage (or resolution).

        Raises:
            InvalidActionError: a missing action, or one outside ``Discrete(5)``.
            RuntimeError: no episode is running (call ``reset()``).
        """
        episode = self._episode
        if episode is None or not self.agents:
            raise RuntimeError("call reset() before step() and after an episode ends")
        agents, rows, t = self.agents, episode["rows"], episode["t"]
        given = checked_actions(actions, agents, len(Action))
        stage, k = Stage(t % _STAGES), t // _STAGES
        column = episode["columns"][k]
        invalid = _MASKS[stage][given] == 0
        chosen = np.where(invalid, Action.NO_ACTION, given)
        choices = self._choices(stage, rows, chosen)  # (C,), what every country did
        after = episode["obs"].copy()
        counts = write_stage_outcomes(
            after[:, self.n_own :], stage, np.broadcast_to(choices, (len(rows), len(choices))),
            rows,
        )[0]  # fmt: skip
        recorded = recorded_actions(self.records, stage, rows, np.full(len(rows), column))
        rewards = self.rewards(rows, episode["obs"], chosen, after, {"recorded_action": recorded})
        adopted = stage == Stage.PLENARY_VOTE and bool(after[0, self.n_own + _ADOPTED])
        terminated = t + 1 == _STAGES * len(episode["columns"])
        truncated = not terminated and t + 1 >= self.max_cycles
        next_stage = Stage.TERMINAL if terminated else Stage((t + 1) % _STAGES)
        if next_stage == Stage.DRAFT:  # the next resolution
            episode["obs"] = self._fresh(episode["own"][:, k + 1])
            column = episode["columns"][k + 1]
        else:
            episode["obs"] = after
        tally = tally_dict(stage, counts)
        last = {"stage": stage, "choices": choices, "tally": tally, "adopted": adopted,
                "column": episode["columns"][k]}  # fmt: skip
        episode.update(t=t + 1, last=last)
        observations = self._observations(next_stage)
        info = self._info(next_stage, column, tally, adopted)
        info["acted_stage"] = stage.name
        infos = {
            agent: {**info, "recorded_action": int(recorded[i]),
                    "invalid_action": bool(invalid[i]), "tally": dict(tally)}
            for i, agent in enumerate(agents)
        }  # fmt: skip
        return observations, *self._per_agent(agents, rewards, terminated, truncated), infos

    def render_text(self) -> str:
        """The episode's state as text: resolution, stage, the last stage's tally."""
        if self._episode is None:
            return "assembly_v0 (deliberation): not started (call reset())"
        episode = self._episode
        t, total = episode["t"], len(episode["columns"])
        k = min(t // _STAGES, total - 1)
        stage = Stage.TERMINAL if t == _STAGES * total else Stage(t % _STAGES)
        column = episode["columns"][k]
        lines = [f"assembly_v0 (deliberation) | session {episode['session']} | "
                 f"{len(episode['rows'])} members | resolution {k + 1}/{total} "
                 f"{self._symbols[column] or 'no symbol'} | stage {stage.name}"]  # fmt: skip
        last = episode["last"]
        if last is not None:
            tally = last["tally"]
            played = last["stage"]
            if played == Stage.DRAFT:
                lines.append(f"  last: DRAFT | sponsors {tally['sponsors']}")
            else:
                counts = np.array([tally[vote.name.lower()] for vote in Vote])
                lines.append(f"  last: {played.name} | agents {tally_text(counts)}")
            if played == Stage.PLENARY_VOTE:
                lines.append(f"  outcome: {'ADOPTED' if last['adopted'] else 'REJECTED'}")
        return "\n".join(lines)

    def render_frame(self) -> np.ndarray:
        """The stage just played as a hemicycle, shape (480, 640, 3) uint8."""
        hemicycle, seat_of = self._hemicycle
        seats = np.full(hemicycle.n_seats, Seat.ABSENT, dtype=np.int64)
        episode = self._episode
        if episode is None:
            return hemicycle.draw(AssemblyView("assembly_v0", "not started (call reset())", seats))
        t, last, rows = episode["t"], episode["last"], episode["rows"]
        stage = Stage.TERMINAL if t == _STAGES * len(episode["columns"]) else Stage(t % _STAGES)
        column = episode["columns"][min(t // _STAGES, len(episode["columns"]) - 1)]
        if last is not None:
            column = last["column"]
        view = AssemblyView(
            title=f"assembly_v0 · session {episode['session']} · {len(rows)} members",
            subtitle=self._symbols[column] or "no symbol",
            seats=seats,
            stages=STAGE_LABELS,
            stage=int(Stage.TERMINAL if last is not None and stage == Stage.DRAFT else stage),
        )
        if last is None:
            seats[seat_of[rows]] = Seat.PENDING
            return hemicycle.draw(view)
        played, choices = last["stage"], last["choices"]
        shown = sponsor_seats(choices) if played == Stage.DRAFT else vote_seats(choices)
        seats[seat_of[rows]] = shown[rows]
        over = played == Stage.PLENARY_VOTE
        return hemicycle.draw(
            dataclasses.replace(
                view,
                caption="sponsors" if played == Stage.DRAFT else STAGE_LABELS[played],
                outcome=("ADOPTED" if last["adopted"] else "REJECTED") if over else "",
                passed=last["adopted"],
            )
        )

    @functools.cached_property
    def _history(self) -> Any:
        """The plenary votes that describe the past (the training sessions' with ``split``)."""
        return self._known.plenary_history()

    @functools.cached_property
    def _hemicycle(self) -> tuple[Hemicycle, np.ndarray]:
        """The hemicycle (one seat per possible agent) and each country's seat, (C,)."""
        return Hemicycle(self.records.n_countries), seat_order(self.records.plenary)

    def _checked_session(self, session: int | None) -> int | None:
        if session is not None and session not in self.sessions:
            raise DataError(self.records.source, f"no resolution in session {session}",
                            field="session")  # fmt: skip
        return session

    def _choices(self, stage: Stage, rows: np.ndarray, chosen: np.ndarray) -> np.ndarray:
        """What every country did at a stage, (C,) int8: 1/0 sponsored, or a vote or ABSENT.

        Countries that are not agents sponsored nothing and did not vote.
        """
        if stage == Stage.DRAFT:
            choices = np.zeros(self.records.n_countries, dtype=np.int8)
            choices[rows] = chosen == Action.COSPONSOR
        else:
            choices = np.full(self.records.n_countries, ABSENT, dtype=np.int8)
            choices[rows] = np.where(chosen == Action.NO_ACTION, ABSENT, chosen - Action.YES)
        return choices

    def _fresh(self, own: np.ndarray) -> np.ndarray:
        """DRAFT observations from the agents' own features (N, d): (N, d + 19) float32."""
        block = np.zeros((len(own), self.n_own + len(STATE_NAMES)), dtype=np.float32)
        block[:, : self.n_own] = own
        block[:, self.n_own + _STAGE_DRAFT] = 1.0
        return block

    def _observations(self, stage: Stage) -> dict[str, Any]:
        """Each agent's observation dict at ``stage`` from the episode's block."""
        assert self._episode is not None
        block, mask = self._episode["obs"], _MASKS[stage]
        return {
            agent: {"observation": block[i].copy(), "action_mask": mask.copy()}
            for i, agent in enumerate(self.agents)
        }

    def _info(
        self, stage: Stage, column: int, tally: dict[str, int], adopted: bool
    ) -> dict[str, Any]:
        """The info fields every agent shares."""
        assert self._episode is not None
        return {"session": self._episode["session"], "rcid": int(self.rcids[column]),
                "symbol": str(self._symbols[column]), "stage": stage.name, "tally": tally,
                "adopted": adopted}  # fmt: skip

    def _session_features(self, index: int, rows: np.ndarray) -> np.ndarray:
        """The members' own features on every resolution of session ``index``, (N, R_s, d).

        The session's resolutions as targets, the plenary votes of the records as history
        (the values ``Deliberation-v0`` shows); sessions kept in a cache of 8.
        """
        if index not in self._cache:
            columns = np.flatnonzero(self._session_of == self.sessions[index])
            features = RollCallFeatures(
                self.records.resolutions.iloc[columns],
                history=self._history,
                config=self.feature_config,
            )
            if len(self._cache) >= 8:
                self._cache.pop(next(iter(self._cache)))
            self._cache[index] = features.for_countries([self.possible_agents[r] for r in rows])
        return self._cache[index]


def _cast(votes: np.ndarray) -> np.ndarray:
    """Where a vote was cast: neither ``ABSENT`` nor ``NOT_RECORDED``, same shape, bool."""
    return (votes != ABSENT) & (votes != NOT_RECORDED)
