"""``assembly_v0``: the whole General Assembly at once, every member state an agent (PettingZoo).

Two variants, picked by ``variant=`` of the constructors: "rollcall" (this module) and
"deliberation" (:mod:`assembly_gym.envs.multiagent.deliberation`: resolutions from draft to
plenary outcome). The roll-call variant: an episode is one session's roll calls (or a
window of them); at every step each member state present votes on the same roll call, all at
once.

* Agents: ``possible_agents`` are all countries of the data, in its row order; ``agents``
  the members of the episode's session (the countries that cast a vote in it), so a
  country that was not a member is absent.
* Actions: ``Discrete(3)`` per agent, 0 YES, 1 NO, 2 ABSTAIN.
* Observations: ``{"observation": Box(0, 1, (d + 4,)), "action_mask": Box(0, 1, (3,), int8)}``
  as PettingZoo's classic envs have them. ``observation`` is the country's ``RollCall-v0``
  observation of the roll call (d = 56 by default: its own features, see
  :mod:`assembly_gym.envs.legislative.observation`) followed by what is public: the
  previous roll call's tally among the agents (yes, no, abstain shares; 0 at the first)
  and whether it was adopted (yes > no). Every vote is allowed: the mask is all ones.
* Rewards: ``rewards`` maps a country to its ``reward_fn(obs, action, next_obs, info)``
  (the single-agent signature; ``obs`` its ``RollCall-v0`` observation, ``info`` with its
  ``recorded_action``), evaluated batched over agents
  (:class:`~assembly_gym.envs.multiagent.rewards.CountryRewards`); None: the documented
  proxy, 1 for the vote the country actually cast (0 where it cast none). Learned rewards
  of any kind: ``RewardModel.reward_fns()`` (``assembly_gym.irl``), all agents in one call.
* End: terminated after the session's (or window's) last roll call; truncated after
  ``max_cycles`` steps.
* Infos: ``session``, ``rcid`` (the roll call to vote on next), ``voted_rcid`` and
  ``recorded_action`` (the country's recorded vote on the roll call just voted, revealed
  once it has acted; −1 at reset or where it cast none).
* Split: ``split="train"`` or ``"test"``, or ``sessions=(first, last)``, in both variants:
  see docs/ecosystem.md, section "PettingZoo: the whole assembly, one shared policy".
* Render: "ansi" (text) and "rgb_array" (the hemicycle of
  :mod:`assembly_gym.core.hemicycle`: the agents' votes on the roll call just voted).
* Version History: v0, the behaviour of the first release (both variants); see
  docs/architecture.md, "Versions".
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_to_aec_wrapper

from assembly_gym.core.errors import DataError
from assembly_gym.core.hemicycle import AssemblyView, Hemicycle, Seat, seat_order
from assembly_gym.core.rewards import RewardFn
from assembly_gym.envs.legislative.data import ABSENT, ADOPTION, Vote
from assembly_gym.envs.legislative.observation import (
    FeatureConfig,
    RollCallFeatures,
    feature_names,
)
from assembly_gym.envs.legislative.sources import DataSpec, Split, roll_call_data, session_window
from assembly_gym.envs.multiagent.base import AssemblyEnvBase, checked_actions, tally_text
from assembly_gym.envs.multiagent.deliberation import DeliberationParallelEnv
from assembly_gym.envs.multiagent.rewards import CountryRewards
from assembly_gym.envs.options import OptionTypes

__all__ = ["PUBLIC_NAMES", "VARIANTS", "AssemblyParallelEnv", "env", "parallel_env", "raw_env"]

VARIANTS = ("rollcall", "deliberation")
"""The variants, the names ``variant=`` of the constructors takes."""
PUBLIC_NAMES = ("previous_yes", "previous_no", "previous_abstain", "previous_adopted")
"""Names of the public dimensions that follow a country's own features."""
_CACHE_BYTES = 256 * 2**20  # observation blocks of sessions kept, oldest out first


class AssemblyParallelEnv(AssemblyEnvBase):
    """Every member state votes on each roll call of a session (see the module's text).

    Args:
        data: None (the embedded synthetic assembly), "unvotes", a path, or data.
        variant: "rollcall" (:func:`parallel_env` builds the other variants).
        rewards: country → ``reward_fn``, or None for the proxy (match the recorded vote).
        render_mode: "ansi", "rgb_array" or None.
        max_cycles: steps after which an episode is truncated.
        session: the session of every episode (None: drawn from the seeded generator).
        window: episodes of at most ``window`` consecutive roll calls of the session,
            starting at a drawn roll call (None: the whole session).
        feature_config: settings of the countries' own features.
        split: "train" (sessions up to 60 of the real votes, 15 of the synthetic 20, as
            ``bench`` and ``RollCall-v0``), "test" (the later ones, described by the training
            sessions' votes only) or None (all sessions).
        sessions: ``(first, last)``, inclusive, None unbounded: any other range of sessions
            (described by all the data); not with ``split``.

    Raises:
        ValueError: an unknown variant, render mode or split, ``window`` < 1, ``split`` and
            ``sessions`` both given, or ``rewards`` lacking a country of the data.
        DataError: ``session`` has no roll call in the data (or in the split's sessions).
    """

    RESET_OPTIONS: OptionTypes = {"session": (int,), "window": (int,)}

    def __init__(
        self,
        data: DataSpec = None,
        variant: str = "rollcall",
        rewards: Mapping[str, RewardFn] | None = None,
        render_mode: str | None = None,
        max_cycles: int = 500,
        *,
        session: int | None = None,
        window: int | None = None,
        feature_config: FeatureConfig | None = None,
        split: Split | None = None,
        sessions: tuple[int | None, int | None] | None = None,
    ) -> None:
        if variant != "rollcall":
            raise ValueError(f"variant must be 'rollcall' here (parallel_env: {VARIANTS})")
        self._check_render_mode(render_mode)
        if window is not None and window < 1:
            raise ValueError(f"window must be ≥ 1, got {window}")
        full = roll_call_data(data)
        first, last, known = session_window(full.sessions, split, sessions)
        self.split = split
        self.data = full if first is None and last is None else full.select_sessions(first, last)
        self.history = full if known is None else full.select_sessions(None, known)
        self.variant, self.render_mode, self.max_cycles = variant, render_mode, max_cycles
        self.window, self.feature_config = window, feature_config or FeatureConfig()
        self.possible_agents: list[str] = list(self.data.country_names)
        self.agents: list[str] = []
        self.rewards = CountryRewards(self.possible_agents, rewards)
        session_of = self.data.roll_calls["session"].to_numpy()
        self.rcids = self.data.roll_calls["rcid"].to_numpy(dtype=np.int64)  # (R,)
        self._labels = self.data.roll_calls["symbol"].fillna("").astype(str).to_numpy()
        self.sessions, starts = np.unique(session_of, return_index=True)
        self.bounds = np.append(starts, len(session_of))  # session i: columns bounds[i]:[i+1]
        cast = (self.data.votes != ABSENT).astype(np.int64)
        self.members = np.add.reduceat(cast, starts, axis=1).T > 0 if len(starts) else cast.T
        if session is not None and session not in self.sessions:
            raise DataError(self.data.source, f"no roll call in session {session}", field="session")
        self.session = session
        self.n_own = len(feature_names(self.feature_config))
        self._start(self.n_own + len(PUBLIC_NAMES), len(Vote))

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start an episode: a session (and window) drawn from the seeded generator.

        ``options`` may hold ``session`` and ``window`` (for this episode).
        """
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        options = self.reset_options(options)
        session = options.get("session", self.session)
        window = options.get("window", self.window)
        index, first, length = (
            int(value[0]) for value in self.episodes(self.np_random.random((1, 2)), session, window)
        )
        rows = np.flatnonzero(self.members[index])
        self.agents = [self.possible_agents[r] for r in rows]
        offset = first - self.bounds[index]
        own = self._session_features(index)[:, offset : offset + length]
        self._episode = {
            "session": int(self.sessions[index]),
            "rows": rows,
            "columns": np.arange(first, first + length),
            "own": own,  # (N, T, d)
            "t": 0,
            "actions": None,
            "public": np.zeros(len(PUBLIC_NAMES), dtype=np.float32),
        }
        rcid = int(self.rcids[first])
        observations = self._observations(own[:, 0], self._episode["public"])
        info = {"session": self._episode["session"], "rcid": rcid, "voted_rcid": ABSENT,
                "recorded_action": ABSENT}  # fmt: skip
        return observations, {agent: dict(info) for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[
        dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]
    ]:  # fmt: skip
        """Every present agent votes on the current roll call; move to the next.

        Raises:
            InvalidActionError: an action outside ``Discrete(3)``.
            RuntimeError: no episode is running (call ``reset()``).
        """
        episode = self._episode
        if episode is None or not self.agents:
            raise RuntimeError("call reset() before step() and after an episode ends")
        agents, t = self.agents, episode["t"]
        chosen = checked_actions(actions, agents, len(Vote))
        own, rows, columns = episode["own"], episode["rows"], episode["columns"]
        terminated = t + 1 == len(columns)
        truncated = not terminated and t + 1 >= self.max_cycles
        after = t if terminated else t + 1
        recorded = self.data.votes[rows, columns[t]].astype(np.int64)
        rewards = self.rewards(
            rows, own[:, t], chosen, own[:, after], {"recorded_action": recorded}
        )
        counts = np.bincount(chosen, minlength=len(Vote))
        public = np.append(counts / len(agents), float(ADOPTION(chosen)))
        episode.update(t=t + 1, actions=chosen, public=public.astype(np.float32))
        observations = self._observations(own[:, after], episode["public"])
        session, voted = episode["session"], int(self.rcids[columns[t]])
        rcid = int(self.rcids[columns[after]])
        infos = {
            agent: {"session": session, "rcid": rcid, "voted_rcid": voted,
                    "recorded_action": int(recorded[i])}
            for i, agent in enumerate(agents)
        }  # fmt: skip
        return observations, *self._per_agent(agents, rewards, terminated, truncated), infos

    def render_text(self) -> str:
        """The episode's state as text: session, progress, the last roll call's tally."""
        if self._episode is None:
            return "assembly_v0: not started (call reset())"
        episode = self._episode
        t, total = episode["t"], len(episode["columns"])
        lines = [f"assembly_v0 | session {episode['session']} | {len(episode['rows'])} members "
                 f"| roll call {min(t + 1, total)}/{total}"]  # fmt: skip
        if episode["actions"] is not None:
            column = episode["columns"][t - 1]
            counts = np.bincount(episode["actions"], minlength=len(Vote))
            real = np.bincount(self.data.votes[episode["rows"], column] + 1, minlength=4)[1:]
            symbol = self._labels[column] or "no symbol"
            lines.append(f"  last: {symbol} | agents " + tally_text(counts) + " | recorded "
                         + tally_text(real))  # fmt: skip
        return "\n".join(lines)

    def render_frame(self) -> np.ndarray:
        """The roll call just voted as a hemicycle, shape (480, 640, 3) uint8."""
        hemicycle, seat_of = self._hemicycle
        seats = np.full(hemicycle.n_seats, Seat.ABSENT, dtype=np.int64)
        episode = self._episode
        if episode is None:
            return hemicycle.draw(AssemblyView("assembly_v0", "not started (call reset())", seats))
        done, total = episode["t"], len(episode["columns"])
        column = episode["columns"][max(done - 1, 0)]
        view = AssemblyView(
            title=f"assembly_v0 · session {episode['session']} · {len(episode['rows'])} members",
            subtitle=self._labels[column] or "no symbol",
            seats=seats,
            progress=(done, total),
        )
        if episode["actions"] is None:
            seats[seat_of[episode["rows"]]] = Seat.PENDING
            return hemicycle.draw(view)
        seats[seat_of[episode["rows"]]] = episode["actions"]
        adopted = bool(episode["public"][-1] > 0.5)
        outcome = "ADOPTED" if adopted else "REJECTED"
        return hemicycle.draw(
            dataclasses.replace(view, caption=f"roll call {done}", outcome=outcome, passed=adopted)
        )

    @functools.cached_property
    def _hemicycle(self) -> tuple[Hemicycle, np.ndarray]:
        """The hemicycle (one seat per possible agent) and each country's seat, (C,)."""
        return Hemicycle(self.data.n_countries), seat_order(self.data.votes)

    def _observations(self, own: np.ndarray, public: np.ndarray) -> dict[str, Any]:
        """Each agent's observation dict from its own features (N, d) and the public (4,)."""
        n = len(own)
        block = np.empty((n, self.n_own + len(PUBLIC_NAMES)), dtype=np.float32)
        block[:, : self.n_own] = own
        block[:, self.n_own :] = public
        masks = np.ones((n, len(Vote)), dtype=np.int8)
        return {
            agent: {"observation": block[i], "action_mask": masks[i]}
            for i, agent in enumerate(self.agents)
        }

    def episodes(
        self, draws: np.ndarray, session: int | None, window: int | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sessions and windows of k episodes from their uniforms, as ``reset`` draws them.

        Args:
            draws: two uniforms per episode (session, window start), shape (k, 2).
            session: the session of every episode (None: drawn).
            window: at most this many consecutive roll calls (None: the whole session).

        Returns:
            Each episode's session index (into :attr:`sessions`), first roll-call column and
            number of roll calls, three arrays of shape (k,) int64.

        Raises:
            DataError: ``session`` has no roll call in the data.
        """
        n_sessions = len(self.sessions)
        if session is None:
            index = np.minimum((draws[:, 0] * n_sessions).astype(np.int64), n_sessions - 1)
        else:
            found = int(np.searchsorted(self.sessions, session))
            if found == n_sessions or self.sessions[found] != session:
                raise DataError(
                    self.data.source, f"no roll call in session {session}", field="session"
                )
            index = np.full(len(draws), found, dtype=np.int64)
        first, length = self.bounds[index], self.bounds[index + 1] - self.bounds[index]
        if window is not None:
            room = np.maximum(length - window, 0) + 1
            first = first + np.minimum((draws[:, 1] * room).astype(np.int64), room - 1)
            length = np.minimum(length, window)
        return index, first, length

    def session_features(self, index: int) -> np.ndarray:
        """The members' own features on every roll call of session ``index``, (M, R_s, d).

        Computed with the session's roll calls as targets and :attr:`history` (only strictly
        earlier sessions describe them: the values ``RollCall-v0`` shows); members in
        :attr:`possible_agents` order.
        """
        first, last = self.bounds[index], self.bounds[index + 1]
        features = RollCallFeatures(
            self.data.roll_calls.iloc[first:last], self.history, self.feature_config
        )
        rows = np.flatnonzero(self.members[index])
        return features.for_countries([self.possible_agents[r] for r in rows])

    def _session_features(self, index: int) -> np.ndarray:
        """:meth:`session_features`, cached up to a memory budget."""
        if index not in self._cache:
            block = self.session_features(index)
            while self._cache and sum(b.nbytes for b in self._cache.values()) > _CACHE_BYTES:
                self._cache.pop(next(iter(self._cache)))
            self._cache[index] = block
        return self._cache[index]


def parallel_env(variant: str = "rollcall", **kwargs: Any) -> AssemblyEnvBase:
    """The parallel form: every agent acts at once.

    Args:
        variant: "rollcall" (:class:`AssemblyParallelEnv`) or "deliberation"
            (:class:`~assembly_gym.envs.multiagent.deliberation.DeliberationParallelEnv`).
        **kwargs: the arguments of that class.

    Raises:
        ValueError: an unknown variant.
    """
    if variant == "deliberation":
        return DeliberationParallelEnv(**kwargs)
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    return AssemblyParallelEnv(**kwargs)


def raw_env(**kwargs: Any) -> AECEnv:
    """The AEC form, unwrapped: PettingZoo's conversion of :func:`parallel_env`."""
    return parallel_to_aec_wrapper(parallel_env(**kwargs))


def env(**kwargs: Any) -> AECEnv:
    """The AEC form with PettingZoo's usual wrappers (action bounds, call order)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs)))
