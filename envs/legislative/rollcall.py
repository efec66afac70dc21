"""``assembly/RollCall-v0``: one session of UN General Assembly roll calls seen by one country."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from assembly_gym.core.errors import DataError, InvalidActionError
from assembly_gym.core.hemicycle import AssemblyView, Hemicycle, Seat, seat_order, vote_seats
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.render import RenderModes
from assembly_gym.core.rewards import RewardFn, checked_reward
from assembly_gym.envs.legislative.data import ABSENT, ADOPTION, RollCallData, Vote
from assembly_gym.envs.legislative.observation import FeatureConfig, RollCallFeatures
from assembly_gym.envs.legislative.rewards import recorded_action_match
from assembly_gym.envs.legislative.sources import DataSpec, Split, roll_call_data, session_window
from assembly_gym.envs.legislative.spaces import unit_box
from assembly_gym.envs.options import OptionTypes, checked_options

__all__ = ["MIN_SESSION_VOTES", "RollCallEnv", "VoteEpisodes"]

MIN_SESSION_VOTES = 10
"""A drawn session has at least this many roll calls the country voted on: smaller ones (a
lone procedural vote) are never drawn, unless the country has no larger session. A session
fixed by ``session=`` is played whatever its size."""

_INT_TYPES = (int, np.int64, np.int32)
_CACHE_BYTES = 128 * 2**20  # observation rows kept per env, across countries


@dataclass(frozen=True)
class VoteEpisodes:
    """Every country's votes as episodes (one per session with votes), in flat arrays.

    Attributes:
        columns: roll-call columns of all cast votes, ordered by country row, then time, (V,).
        row_offsets: a row's votes are ``columns[row_offsets[r]:row_offsets[r + 1]]``, (C + 1,).
        starts: position in ``columns`` where each (row, session) episode starts, (E,).
        lengths: votes in each episode, (E,).
        sessions: session of each episode, (E,).
        episode_offsets: a row's episodes are ``episode_offsets[r]:episode_offsets[r + 1]``.
        drawn: the episodes a draw picks from, ordered by row, (D,): those with at least
            :data:`MIN_SESSION_VOTES` votes (all of a row's when none has as many).
        drawn_offsets: a row's drawn episodes are ``drawn[drawn_offsets[r]:drawn_offsets[r + 1]]``.
        source: the data's source, for error messages.
        names: country names in row order, for error messages.
    """

    columns: np.ndarray
    row_offsets: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    sessions: np.ndarray
    episode_offsets: np.ndarray
    drawn: np.ndarray
    drawn_offsets: np.ndarray
    source: str
    names: tuple[str, ...]

    @classmethod
    def of(cls, data: RollCallData, sessions: np.ndarray) -> VoteEpisodes:
        """Index the votes of ``data``; ``sessions`` is the session of each roll call."""
        rows, columns = np.nonzero(data.votes != ABSENT)  # row-major: rows, then time
        row_offsets = np.concatenate(
            [[0], np.cumsum(np.bincount(rows, minlength=data.n_countries))]
        )
        new = np.ones(len(rows), dtype=bool)
        new[1:] = (rows[1:] != rows[:-1]) | (sessions[columns][1:] != sessions[columns][:-1])
        starts = np.flatnonzero(new)
        lengths = np.diff(np.append(starts, len(rows)))
        episode_offsets = np.searchsorted(starts, row_offsets)
        row_of = np.repeat(np.arange(data.n_countries), np.diff(episode_offsets))
        large = lengths >= MIN_SESSION_VOTES
        has_large = np.bincount(row_of[large], minlength=data.n_countries) > 0
        drawn = np.flatnonzero(large | ~has_large[row_of])
        return cls(columns, row_offsets, starts, lengths, sessions[columns][starts],
                   episode_offsets, drawn, np.searchsorted(drawn, episode_offsets), data.source,
                   data.country_names)  # fmt: skip

    def sample(
        self, uniforms: np.ndarray, row: int | None, session: int | None, window: int | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Episodes picked by uniforms (N, 2): rows, starts and lengths, each (N,).

        The first uniform picks the country (unless ``row`` is given), the second the
        session (unless ``session`` is given; among the :attr:`drawn` ones) or, with
        ``window``, where the window starts among the country's votes (of ``session`` when
        given).
        """
        n_countries = len(self.row_offsets) - 1
        if row is None:
            rows = np.minimum((uniforms[:, 0] * n_countries).astype(np.int64), n_countries - 1)
        else:
            rows = np.full(len(uniforms), row, dtype=np.int64)
        count = np.diff(self.episode_offsets)[rows]
        if (count == 0).any():
            name = self.names[rows[count == 0][0]]
            raise DataError(self.source, f"{name} cast no vote", field="country")
        if window is not None and window < 1:
            raise ValueError(f"window must be ≥ 1, got {window}")
        if session is not None:
            found = [self._episode_of(r, session) for r in rows]
            starts = self.starts[found]
            lengths = self.lengths[found]
        elif window is None:
            first, count = self.drawn_offsets[rows], np.diff(self.drawn_offsets)[rows]
            picked = self.drawn[
                first + np.minimum((uniforms[:, 1] * count).astype(np.int64), count - 1)
            ]
            return rows, self.starts[picked], self.lengths[picked]
        else:
            starts = self.row_offsets[rows]
            lengths = np.diff(self.row_offsets)[rows]
        if window is None:
            return rows, starts, lengths
        room = np.maximum(lengths - window, 0) + 1
        offset = np.minimum((uniforms[:, 1] * room).astype(np.int64), room - 1)
        return rows, starts + offset, np.minimum(lengths, window)

    def _episode_of(self, row: int, session: int) -> int:
        episodes = range(self.episode_offsets[row], self.episode_offsets[row + 1])
        for episode in episodes:
            if self.sessions[episode] == session:
                return episode
        raise DataError(
            self.source,
            f"{self.names[row]} cast no vote in session {session}; sessions with votes: "
            f"{self.sessions[episodes.start : episodes.stop].tolist()}",
            field="session",
        )


class RollCallEnv(RenderModes, gym.Env[np.ndarray, np.int64]):
    """One session of roll calls seen by one country; each step is one vote.

    ## Description
    The country faces the roll calls of a session in time order (those it voted on in the
    data) and votes on each. Its vote does not change the next roll call: each step is a
    one-step decision, so MaxEnt IRL on this env is a multinomial logit.

    ## Action Space
    ``Discrete(3)``: 0 YES, 1 NO, 2 ABSTAIN (:class:`~assembly_gym.envs.legislative.data.Vote`).
    Every action is always valid; ``info["action_mask"]`` and :meth:`action_masks` are all True.

    ## Observation Space
    ``Box(0, 1, (d,), float32)`` with d = 56 by default, named in :attr:`layout`: the table
    of :mod:`assembly_gym.envs.legislative.observation`.

    ## Rewards
    ``reward_fn(obs, action, next_obs, info)``; the default proxy
    :func:`~assembly_gym.envs.legislative.rewards.recorded_action_match` pays 1 for reproducing
    the country's recorded vote. A learned
    :class:`~assembly_gym.envs.legislative.rewards.LinearReward` plugs in.

    ## Starting State
    The first roll call of the session. ``country`` and ``session`` (and ``window``) come
    from the constructor, from ``reset(options={"country": …, "session": …})``, or are drawn
    from ``self.np_random`` (a session in which the country voted at least
    :data:`MIN_SESSION_VOTES` times, of the ``split`` or ``sessions`` range when given).

    ## Episode End
    Terminated after the last roll call of the session (or of the window). No truncation.

    ## Arguments
    ``data`` (None = the embedded synthetic assembly, "unvotes", a path, or data),
    ``country``, ``session``, ``window`` (episodes of ``window`` consecutive roll calls
    instead of sessions), ``split`` and ``sessions`` (the range, as ``bench``:
    :func:`~assembly_gym.envs.legislative.sources.session_window`), ``history`` (votes that
    describe the past; default ``data``, or the training sessions with ``split``),
    ``reward_fn``, ``feature_config``, ``render_mode`` ("ansi", "human" or "rgb_array").

    ## Info
    The same keys, each with one type, at reset and at every step (so that Minari's
    ``DataCollector(env, record_infos=True)`` records them); the roll call is the one to vote
    on next (after the last step: the last one):

    ===================  ==========  =========================================================
    key                  type        value
    ===================  ==========  =========================================================
    ``country``          str         the country that votes
    ``session``          int         session of the roll call
    ``rcid``             int         its roll-call id
    ``symbol``           str         its resolution symbol ("" when it has none)
    ``title``            str         its short title ("" when it has none)
    ``description``      str         its description ("" when it has none)
    ``action_mask``      bool (3,)   valid actions: all True
    ``voted_rcid``       int         the roll call just voted on; −1 at reset
    ``recorded_action``  int         what the country actually voted on it (a :class:`Vote`),
                                     revealed only once the agent has acted; −1 at reset
    ===================  ==========  =========================================================

    ``reward_fn`` receives the info of the roll call voted on, with its ``recorded_action``.

    ## Rendering
    "rgb_array" (a hemicycle, (480, 640, 3) uint8), "human" and "ansi": docs/rendering.md.

    ## Version History
    * v0: initial version (later changes get a new id: docs/architecture.md, "Versions").

    Example:
        >>> import gymnasium as gym, assembly_gym
        >>> env = gym.make("assembly/RollCall-v0", country="Country 001", session=3)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, info["country"]
        ((56,), 'Country 001')
        >>> obs, reward, terminated, truncated, info = env.step(0)
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    RESET_OPTIONS: OptionTypes = {"country": (str,), "session": (int,), "window": (int,)}
    """What ``reset(options=…)`` takes (the constructor's defaults of the same names)."""

    def __init__(
        self,
        data: DataSpec = None,
        *,
        country: str | None = None,
        session: int | None = None,
        window: int | None = None,
        split: Split | None = None,
        sessions: tuple[int | None, int | None] | None = None,
        history: RollCallData | None = None,
        reward_fn: RewardFn | None = None,
        feature_config: FeatureConfig | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.render_mode = self._checked_render_mode(render_mode)
        defaults = {"country": country, "session": session, "window": window}
        checked_options(defaults, self.RESET_OPTIONS, "RollCall-v0")
        if window is not None and window < 1:
            raise ValueError(f"window must be ≥ 1, got {window}")
        full = roll_call_data(data)
        first, last, known = session_window(full.sessions, split, sessions)
        self.split = split
        self.data = full if first is None and last is None else full.select_sessions(first, last)
        self.features = RollCallFeatures(
            self.data.roll_calls,
            history=history or (full if known is None else full.select_sessions(None, known)),
            config=feature_config or FeatureConfig(),
        )
        self.layout = ObservationLayout(self.features.names)
        self.observation_space = unit_box(len(self.layout))
        self.action_space: spaces.Discrete = spaces.Discrete(len(Vote))
        self.reward_fn: RewardFn = reward_fn or recorded_action_match
        self.window = window
        self._country = (
            self.data.country_names[self.data.country_index(country)] if country else None
        )
        self._session = session
        self._mask = np.ones(len(Vote), dtype=bool)
        self._mask.setflags(write=False)
        self._cache: dict[str, np.ndarray] = {}
        # Text and ids of each roll call (arrays of length R), for infos and rendering; missing
        # text is "" so that every info field keeps one type (Minari's DataCollector needs it).
        roll_calls = self.data.roll_calls
        self.attributes = {
            **{key: roll_calls[key].to_numpy() for key in ("session", "rcid")},
            **{key: roll_calls[key].fillna("").astype(str).to_numpy()
               for key in ("symbol", "short", "descr")},
        }  # fmt: skip
        self.episodes = VoteEpisodes.of(self.data, self.attributes["session"])
        self._episode: dict[str, Any] | None = None
        self._last: tuple[int, float] | None = None

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode; options may set ``country``, ``session`` and ``window``.

        Raises:
            ValueError: an option other than :attr:`RESET_OPTIONS` (TypeError: of another type).
        """
        options = checked_options(options, self.RESET_OPTIONS, "RollCall-v0")
        super().reset(seed=seed)
        (row,), (start,), (length,) = self.sample_episodes(self.np_random.random((1, 2)), options)
        columns = self.episodes.columns[start : start + length]
        country = self.data.country_names[row]
        obs = self.country_features(country)[columns]
        obs.setflags(write=False)  # reward_fn reads rows of it; reset and step hand out copies
        self._episode = {
            "country": country,
            "columns": columns,
            "obs": obs,
            "recorded": self.data.votes[row, columns],
            "infos": [self._describe(country, c) for c in columns],
            "t": 0,
        }
        self._last = None
        # The keys of a step's info, with placeholders: no vote has been cast yet.
        info = {**self._episode["infos"][0], "recorded_action": ABSENT, "voted_rcid": ABSENT,
                "action_mask": self._mask.copy()}  # fmt: skip
        return obs[0].copy(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Vote on the current roll call and move to the next (not when ``reward_fn`` fails).

        Raises:
            RewardFunctionError: ``reward_fn`` returned NaN or ±inf (the env has not moved).
        """
        episode = self._episode
        if episode is None or episode["t"] >= len(episode["infos"]):
            raise gym.error.ResetNeeded("call reset() before step() and after an episode ends")
        # Fast path for plain integers; the space's own check otherwise (it is slower).
        if not (type(action) in _INT_TYPES and 0 <= action < 3) and not self.action_space.contains(
            action
        ):
            raise InvalidActionError(f"action {action!r} is not in {self.action_space}")
        t = episode["t"]
        obs, infos = episode["obs"], episode["infos"]
        terminated = t + 1 == len(infos)
        next_obs = obs[t] if terminated else obs[t + 1]
        recorded = int(episode["recorded"][t])
        voted = {**infos[t], "recorded_action": recorded}
        reward = checked_reward(
            self.reward_fn, float(self.reward_fn(obs[t], int(action), next_obs, voted))
        )
        episode["t"] = t + 1
        self._last = (int(action), reward)
        self._show_step()
        # Fresh mutable values in every returned info: users may keep and modify them.
        info = {**infos[t if terminated else t + 1], "recorded_action": recorded,
                "voted_rcid": voted["rcid"], "action_mask": self._mask.copy()}  # fmt: skip
        return next_obs.copy(), reward, terminated, False, info

    def recorded_action(self) -> int | None:
        """What the country actually voted on the current roll call (None after the end).

        For replaying the record (``assembly-gym play --expert``); agents should not read it.
        """
        episode = self._episode
        if episode is None or episode["t"] >= len(episode["infos"]):
            return None
        return int(episode["recorded"][episode["t"]])

    def action_masks(self) -> np.ndarray:
        """Valid actions of the current step, shape (3,): all True (every vote is allowed)."""
        return self._mask.copy()

    # ------------------------------------------------------------------ helpers

    def render_text(self) -> str:
        """A readable description of the current state."""
        if self._episode is None:
            return "RollCall-v0: not started (call reset())"
        episode = self._episode
        t = min(episode["t"], len(episode["columns"]) - 1)
        row = self.data.roll_calls.iloc[episode["columns"][t]]
        issues = [c[6:] for c in row.index if c.startswith("issue_") and row[c]]
        obs = episode["obs"][t]
        similar = {
            v.name.lower(): obs[self.layout.index(f"similar_{v.name.lower()}")] for v in Vote
        }
        lines = [
            f"RollCall-v0 | {episode['country']} | session {row['session']} | "
            f"roll call {t + 1}/{len(episode['columns'])} | {row['symbol'] or 'no symbol'}",
            f"  {row['short'] or '(no title)'} | issues: {', '.join(issues) or 'none'}"
            + (" | important" if row["important"] == 1 else ""),
            f"  {str(row['descr'])[:160]}",
            "  similar earlier votes: " + ", ".join(f"{k} {v:.0%}" for k, v in similar.items()),
            "  valid actions: 0 YES, 1 NO, 2 ABSTAIN",
        ]
        if self._last is not None:
            action, reward = self._last
            recorded = Vote(int(episode["recorded"][episode["t"] - 1])).name
            lines.append(f"  last: {Vote(action).name} (recorded {recorded}), reward {reward:+.3f}")
        return "\n".join(lines)

    def render_frame(self) -> np.ndarray:
        """The roll call just voted as a hemicycle, shape (480, 640, 3) uint8."""
        hemicycle, seat_of = self._hemicycle
        seats = np.full(hemicycle.n_seats, Seat.PENDING, dtype=np.int64)
        episode = self._episode
        if episode is None:
            return hemicycle.draw(AssemblyView("RollCall-v0", "not started (call reset())", seats))
        done, total = episode["t"], len(episode["columns"])
        column = episode["columns"][max(done - 1, 0)]
        about = self._describe(episode["country"], column)
        seat = int(seat_of[self.data.country_index(episode["country"])])
        view = AssemblyView(
            title=f"RollCall-v0 · {episode['country']} · session {about['session']}",
            subtitle=f"{about['symbol'] or 'no symbol'} · {about['title'] or about['description']}",
            seats=seats,
            acting=seat,
            acting_label=f"{episode['country']}: to vote",
            progress=(done, total),
        )
        if self._last is None:
            return hemicycle.draw(view)
        action, reward = self._last
        votes = self.data.votes[:, column].copy()
        votes[self.data.country_index(episode["country"])] = action
        seats[seat_of] = vote_seats(votes)
        recorded = Vote(int(episode["recorded"][done - 1])).name
        adopted = ADOPTION(votes)
        return hemicycle.draw(
            dataclasses.replace(
                view,
                caption=f"roll call {done}",
                acting_label=f"{episode['country']}: {Vote(action).name} (recorded {recorded})",
                outcome="ADOPTED" if adopted else "REJECTED",
                passed=bool(adopted),
                footer=f"reward {reward:+.3f}",
            )
        )

    @functools.cached_property
    def _hemicycle(self) -> tuple[Hemicycle, np.ndarray]:
        """The picture's hemicycle and the seat of each country, (C,): built at the first frame."""
        return Hemicycle(self.data.n_countries), seat_order(self.data.votes)

    def country_features(self, country: str) -> np.ndarray:
        """Observation rows of a country, cached up to a memory budget (oldest out first)."""
        if country not in self._cache:
            per_country = self.data.n_roll_calls * len(self.layout) * 4
            if len(self._cache) >= max(8, _CACHE_BYTES // max(per_country, 1)):
                self._cache.pop(next(iter(self._cache)))
            self._cache[country] = self.features.for_country(country)
        return self._cache[country]

    def sample_episodes(
        self, uniforms: np.ndarray, options: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The episodes uniform draws pick: rows, and starts and lengths in ``episodes.columns``.

        Args:
            uniforms: two numbers in [0, 1) per episode, shape (N, 2): the country (unless
                fixed) and the session or window start. Every reset consumes exactly two, so
                that the vector env can draw them in blocks and still reproduce this env's
                episodes.
            options: may fix ``country``, ``session`` and ``window`` (else the constructor's).

        Returns:
            Country rows, starts and lengths, each of shape (N,) int64.
        """
        country = options.get("country", self._country)
        row = None if country is None else self.data.country_index(country)
        return self.episodes.sample(
            uniforms, row, options.get("session", self._session), options.get("window", self.window)
        )

    def _describe(self, country: str, column: int) -> dict[str, Any]:
        """Info of one roll call (never the country's recorded vote on it)."""
        return {
            "country": country,
            "session": int(self.attributes["session"][column]),
            "rcid": int(self.attributes["rcid"][column]),
            "symbol": self.attributes["symbol"][column],
            "title": self.attributes["short"][column],
            "description": self.attributes["descr"][column],
            "action_mask": self._mask,
        }
