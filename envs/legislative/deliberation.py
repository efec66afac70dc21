"""``assembly/Deliberation-v0``: one resolution from draft to plenary outcome, seen by a country."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, overload

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from assembly_gym.core.errors import DataError, InvalidActionError
from assembly_gym.core.hemicycle import (
    AssemblyView,
    Hemicycle,
    Seat,
    seat_order,
    sponsor_seats,
    vote_seats,
)
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.render import RenderModes
from assembly_gym.core.rewards import RewardFn, checked_reward
from assembly_gym.core.state import OneHotGroup, Stages, StateDeclaration, VoteGroup
from assembly_gym.envs.legislative.data import ABSENT, ADOPTION, ISSUE_CODES, RollCallData, Vote
from assembly_gym.envs.legislative.dynamics import (
    OUTCOMES,
    OWN_THRESHOLDS,
    EmpiricalDynamics,
    issue_keys,
    own_outcomes,
)
from assembly_gym.envs.legislative.observation import FeatureConfig, RollCallFeatures
from assembly_gym.envs.legislative.resolutions import (
    NOT_RECORDED,
    ResolutionRecords,
    generate_resolution_records,
    records_from_roll_calls,
    records_from_trajectories,
)
from assembly_gym.envs.legislative.rewards import recorded_action_match
from assembly_gym.envs.legislative.sources import (
    Split,
    default_assembly,
    roll_call_data,
    session_window,
)
from assembly_gym.envs.legislative.spaces import Action, Stage, action_mask, unit_box
from assembly_gym.envs.legislative.synthetic import SyntheticAssembly
from assembly_gym.envs.options import OptionTypes, checked_options

__all__ = [
    "STAGE_LABELS",
    "STAGE_MASKS",
    "STATE_DECLARATION",
    "STATE_NAMES",
    "TALLY_KEYS",
    "UNRECORDED_ACTION",
    "DeliberationEnv",
    "recorded_actions",
    "session_records",
    "resolution_records",
    "support_share",
    "tally_dict",
    "write_stage_counts",
    "write_stage_outcomes",
]

STATE_NAMES = (
    "stage_draft", "stage_committee", "stage_plenary", "stage_terminal",
    "own_cosponsor", "sponsor_share",
    "committee_yes", "committee_no", "committee_abstain",
    "own_committee_yes", "own_committee_no", "own_committee_abstain",
    "plenary_yes", "plenary_no", "plenary_abstain",
    "own_plenary_yes", "own_plenary_no", "own_plenary_abstain",
    "adopted",
)  # fmt: skip
"""Names of the stage-dependent observation dimensions (after the roll-call features)."""

_VOTE_NAMES = tuple(vote.name.lower() for vote in Vote)
STATE_DECLARATION = StateDeclaration(
    names=STATE_NAMES,
    stages=Stages(STATE_NAMES[:4], tuple(stage.name for stage in Stage), Stage.TERMINAL.name),
    one_hot=tuple(
        OneHotGroup(f"own_{vote}_vote", tuple(f"own_{vote}_{v}" for v in _VOTE_NAMES), True)
        for vote in ("committee", "plenary")
    ),
    votes=tuple(
        VoteGroup(vote, (f"{vote}_yes", f"{vote}_no", f"{vote}_abstain"))
        for vote in ("committee", "plenary")
    ),
    shares=("sponsor_share",),
    outcome=ADOPTION,
)
"""What the :data:`STATE_NAMES` are, for world models and ``Simulator-v0``."""

_STATE = {name: i for i, name in enumerate(STATE_NAMES)}
STAGE_LABELS = ("draft", "committee vote", "plenary vote", "outcome")
"""How the pictures name each :class:`Stage`, by its value."""
STAGE_MASKS = {stage: action_mask(stage) for stage in Stage}
"""Read-only action mask of each stage."""
_VOTES = ((Stage.COMMITTEE_VOTE, "committee"), (Stage.PLENARY_VOTE, "plenary"))
_SHARE_COLUMNS = {s: tuple(_STATE[f"{p}_{v.name.lower()}"] for v in Vote) for s, p in _VOTES}
_OWN_COLUMNS = {s: tuple(_STATE[f"own_{p}_{v.name.lower()}"] for v in Vote) for s, p in _VOTES}
for _mask in STAGE_MASKS.values():
    _mask.setflags(write=False)
_STAGES = tuple(Stage)  # by value: cheaper than Stage(value) in a step
_STAGE_NAMES = tuple(stage.name for stage in Stage)
_ACTIONS = tuple(Action)
_N_ACTIONS = len(_ACTIONS)
_VALID = tuple(tuple(bool(valid) for valid in STAGE_MASKS[stage]) for stage in Stage)
_INT_TYPES = (int, np.int64, np.int32)
_OWN_CODES = tuple(OUTCOMES[own_outcomes(np.arange(len(Action)))].tolist())  # by action
_OWN_THRESHOLDS = OWN_THRESHOLDS[own_outcomes(np.arange(len(Action)))]  # by action


def write_stage_outcomes(
    states: np.ndarray, stage: Stage, choices: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """Write what everyone did at a stage into the state block of N observations.

    Args:
        states: the :data:`STATE_NAMES` blocks, modified in place, shape (N, 19).
        stage: the stage that was played.
        choices: what every country did, shape (N, C) int8: at DRAFT 1/0 (sponsored or
            not), at a vote a :class:`Vote` value or ``ABSENT``.
        rows: the observing country of each observation, shape (N,).

    Returns:
        The tallies: sponsor counts, shape (N, 1), or yes/no/abstain counts, shape (N, 3).
    """
    episodes = np.arange(len(rows))
    if stage == Stage.DRAFT:
        counts = (choices == 1).sum(axis=1, keepdims=True)
    else:  # choices + 1: 0 absent, 1 yes, 2 no, 3 abstain
        flat = (episodes[:, None] * 4 + (choices + 1)).ravel()
        counts = np.bincount(flat, minlength=4 * len(rows)).reshape(-1, 4)[:, 1:]
    write_stage_counts(states.T, stage, counts.T, choices[episodes, rows], choices.shape[1])
    return counts


def write_stage_counts(
    state: np.ndarray, stage: Stage, counts: Any, own: Any, n_countries: int
) -> None:
    """Write a stage's tallies and the observing country's choice into its state block.

    One function for one observation in Python numbers (a single env's step: a few scalar
    writes) and for N observations in arrays (a vector env's), with the same arithmetic.

    Args:
        state: the :data:`STATE_NAMES` block, modified in place: shape (19,), or the
            transpose of N observations' blocks, (19, N).
        stage: the stage that was played.
        counts: [sponsors] after DRAFT, [yes, no, abstain] after a vote: Python ints, or
            arrays (N,) (e.g. the transpose of counts (N, 1) or (N, 3)).
        own: what the observing country did (as ``choices`` of
            :func:`write_stage_outcomes`): an int, or an array (N,).
        n_countries: countries C (the sponsor share's denominator).
    """
    if stage == Stage.DRAFT:
        state[_STATE["own_cosponsor"]] = own == 1
        state[_STATE["sponsor_share"]] = counts[0] / n_countries
    else:
        yes, no, abstain = counts
        total = yes + no + abstain
        total += total == 0  # max(total, 1), for ints and arrays alike
        (yes_column, no_column, abstain_column), (own_yes, own_no, own_abstain) = (
            _SHARE_COLUMNS[stage], _OWN_COLUMNS[stage])  # fmt: skip
        state[yes_column], state[no_column], state[abstain_column] = (
            yes / total, no / total, abstain / total)  # fmt: skip
        state[own_yes], state[own_no], state[own_abstain] = own == 0, own == 1, own == 2
        if stage == Stage.PLENARY_VOTE:
            state[_STATE["adopted"]] = ADOPTION.passed(yes, no)
    state[_STATE["stage_draft"] + stage] = 0.0
    state[_STATE["stage_draft"] + stage + 1] = 1.0


UNRECORDED_ACTION = -1
"""Batch code for "the record has no action at this stage"."""


def recorded_actions(
    records: ResolutionRecords, stage: Stage, rows: np.ndarray, columns: np.ndarray
) -> np.ndarray:
    """The :class:`Action` each country took at a stage, shape (N,) int64.

    Sponsored → COSPONSOR, did not → NO_ACTION; a vote → YES/NO/ABSTAIN, did not vote →
    NO_ACTION; :data:`UNRECORDED_ACTION` where the stage is not recorded.
    """
    if stage == Stage.DRAFT:
        codes = records.sponsors[rows, columns]
        actions = np.where(codes == 1, Action.COSPONSOR, Action.NO_ACTION)
    else:
        matrix = records.committee if stage == Stage.COMMITTEE_VOTE else records.plenary
        codes = matrix[rows, columns]
        actions = np.where(codes == ABSENT, Action.NO_ACTION, codes.astype(np.int64) + Action.YES)
    return np.where(codes == NOT_RECORDED, UNRECORDED_ACTION, actions).astype(np.int64)


TALLY_KEYS = ("sponsors", "yes", "no", "abstain")
"""Keys of a stage's tally in the info, the same at every stage (Minari records one layout)."""


def tally_dict(
    stage: Stage | None = None, counts: np.ndarray | Sequence[int] | None = None
) -> dict[str, int]:
    """One episode's tally of a stage, with every :data:`TALLY_KEYS` entry.

    Args:
        stage: the stage played (None: nothing played yet, every count 0).
        counts: its counts (an array or a list), shape (1,) sponsors after DRAFT or (3,)
            yes/no/abstain after a vote; the counts the stage does not have are 0.
    """
    if stage is None:
        return dict.fromkeys(TALLY_KEYS, 0)
    if counts is None:
        raise ValueError(f"the tally of stage {stage.name} needs its counts")
    if stage == Stage.DRAFT:
        return {"sponsors": int(counts[0]), "yes": 0, "no": 0, "abstain": 0}
    yes, no, abstain = counts[:3]
    return {"sponsors": 0, "yes": int(yes), "no": int(no), "abstain": int(abstain)}


def support_share(stage: Stage, counts: np.ndarray, n_countries: int) -> np.ndarray:
    """The support share the next stage depends on, from a stage's tallies, shape (N,).

    After DRAFT: the sponsor share of all countries; after the committee vote: the yes share
    of those voting. Computed in float64 from counts, exactly as the dynamics were fitted.
    """
    if stage == Stage.DRAFT:
        return counts[:, 0] / n_countries
    return counts[:, Vote.YES] / np.maximum(counts.sum(axis=1), 1)


@overload
def _index(uniforms: float, counts: int) -> int: ...
@overload
def _index(uniforms: np.ndarray, counts: Any) -> np.ndarray: ...
def _index(uniforms: Any, counts: Any) -> Any:
    """Which of ``counts`` equal shares of [0, 1) each uniform falls in (a float: an int)."""
    if isinstance(uniforms, float):
        return min(int(uniforms * counts), counts - 1)
    return np.minimum((uniforms * counts).astype(np.int64), counts - 1)


def resolution_records(data: Any = None) -> ResolutionRecords:
    """Resolve a ``data`` argument into records.

    None or "synthetic": the embedded synthetic assembly's simulated records; "unvotes" or a
    path: roll-call records (plenary votes only); a list of document trajectories; a
    :class:`SyntheticAssembly`, :class:`RollCallData` or :class:`ResolutionRecords`.
    """
    if isinstance(data, ResolutionRecords):
        return data
    if data is None or (isinstance(data, str) and data == "synthetic"):
        return generate_resolution_records(default_assembly())
    if isinstance(data, SyntheticAssembly):
        return generate_resolution_records(data)
    if isinstance(data, (list, tuple)):
        return records_from_trajectories(data)
    if isinstance(data, (RollCallData, str, Path)):
        return records_from_roll_calls(roll_call_data(data))
    raise TypeError(f"cannot make resolution records from {type(data).__name__}")


def session_records(
    records: ResolutionRecords,
    split: Split | None,
    sessions: tuple[int | None, int | None] | None,
) -> tuple[ResolutionRecords, ResolutionRecords]:
    """The records of the ``split`` or ``sessions`` range, and those that describe the past.

    Raises:
        DataError: the range holds no resolution.
    """
    session = records.resolutions["session"].to_numpy()
    first, last, known = session_window(np.unique(session), split, sessions)
    if first is None and last is None:
        return records, records
    keep = (session >= (session.min() if first is None else first)) & (
        session <= (session.max() if last is None else last)
    )
    if not keep.any():
        raise DataError(records.source, f"no resolution in sessions {first}..{last}")
    past = records if known is None else records.select(np.flatnonzero(session <= known))
    return records.select(np.flatnonzero(keep)), past


class DeliberationEnv(RenderModes, gym.Env[np.ndarray, np.int64]):
    """One resolution seen by one country: draft, committee vote, plenary vote, outcome.

    ## Description
    At the DRAFT stage the country decides whether to cosponsor; then it votes in committee
    and in plenary. The other countries act by :class:`EmpiricalDynamics` fitted on the
    records, which read the support already shown, so the country's own cosponsorship and
    votes move the later tallies and the outcome (adopted when plenary yes exceeds no).

    ## Action Space
    ``Discrete(5)``: 0 COSPONSOR, 1 YES, 2 NO, 3 ABSTAIN, 4 NO_ACTION (:class:`Action`).
    Valid at DRAFT: COSPONSOR, NO_ACTION; at a vote: YES, NO, ABSTAIN, NO_ACTION (not voting).
    The mask is ``info["action_mask"]`` and :meth:`action_masks`. An invalid action is
    treated as NO_ACTION with ``info["invalid_action"] = True`` (``invalid_action="noop"``,
    the default, so that checkers and unmasked agents can run) or raises
    :class:`~assembly_gym.core.errors.InvalidActionError` (``invalid_action="raise"``).

    ## Observation Space
    ``Box(0, 1, (75,), float32)``: the 56 roll-call features of the resolution for the
    country (:mod:`assembly_gym.envs.legislative.observation`), then :data:`STATE_NAMES`:
    stage one-hot, own cosponsorship, sponsor share, committee vote shares (of those voting),
    own committee vote, plenary vote shares, own plenary vote, adopted. Names: :attr:`layout`.

    ## Rewards
    ``reward_fn(obs, action, next_obs, info)``; default
    :func:`~assembly_gym.envs.legislative.rewards.recorded_action_match` (1 for doing what the
    country did at that stage; 0 where the stage is not recorded).

    ## Starting State
    DRAFT of a resolution. ``country``, ``resolution`` (id or symbol) and ``session`` come
    from the constructor or ``reset(options=…)``, else are drawn from ``self.np_random``
    (of the ``split`` or ``sessions`` range when given).

    ## Episode End
    Terminated after the plenary vote (three steps). No truncation.

    ## Arguments
    ``data`` (see :func:`resolution_records`), ``country``, ``resolution``, ``session``,
    ``split`` and ``sessions`` (:func:`~assembly_gym.envs.legislative.sources.session_window`),
    ``dynamics`` (default: fitted on the records, or on the training sessions with
    ``split``), ``reward_fn``, ``invalid_action``, ``feature_config``, ``render_mode``.

    ## Info
    The same keys, each with one type, at reset and at every step (so that Minari's
    ``DataCollector(env, record_infos=True)`` records them):

    ===================  ==========  =========================================================
    key                  type        value
    ===================  ==========  =========================================================
    ``country``          str         the country that acts
    ``rcid``             int         the resolution's id
    ``symbol``           str         its symbol ("" when it has none)
    ``session``          int         its session
    ``title``            str         its short title ("" when it has none)
    ``description``      str         its description ("" when it has none)
    ``stage``            str         the stage to act at next (``TERMINAL`` at the end)
    ``action_mask``      bool (5,)   valid actions at that stage
    ``acted_stage``      str         the stage just played; "" at reset
    ``recorded_action``  int         what the country did at the stage just played (an
                                     :class:`Action`), revealed only once the agent has
                                     acted; −1 where not recorded and at reset
    ``invalid_action``   bool        the agent's action was masked and played as NO_ACTION
    ``tally``            dict        counts of the stage just played, keys
                                     :data:`TALLY_KEYS`: ``sponsors`` after DRAFT,
                                     ``yes``/``no``/``abstain`` after a vote, the others 0
                                     (all 0 at reset)
    ``adopted``          bool        the plenary adopted it (False before the plenary vote)
    ===================  ==========  =========================================================

    ``reward_fn`` receives the info of the stage acted at, with its ``recorded_action`` and
    ``tally``.

    ## Rendering
    "rgb_array" (a hemicycle, (480, 640, 3) uint8), "human" and "ansi": docs/rendering.md.

    ## Version History
    * v0: initial version (later changes get a new id: docs/architecture.md, "Versions").

    Example:
        >>> import gymnasium as gym, assembly_gym
        >>> env = gym.make("assembly/Deliberation-v0", country="Country 002")
        >>> obs, info = env.reset(seed=0)
        >>> info["stage"], info["action_mask"].tolist()
        ('DRAFT', [True, False, False, False, True])
        >>> obs, reward, terminated, truncated, info = env.step(0)  # cosponsor
        >>> info["stage"]
        'COMMITTEE_VOTE'
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    RESET_OPTIONS: OptionTypes = {"country": (str,), "resolution": (int, str), "session": (int,)}
    """What ``reset(options=…)`` takes (the constructor's defaults of the same names)."""

    def __init__(
        self,
        data: Any = None,
        *,
        country: str | None = None,
        resolution: int | str | None = None,
        session: int | None = None,
        split: Split | None = None,
        sessions: tuple[int | None, int | None] | None = None,
        dynamics: EmpiricalDynamics | None = None,
        reward_fn: RewardFn | None = None,
        invalid_action: Literal["noop", "raise"] = "noop",
        feature_config: FeatureConfig | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.render_mode = self._checked_render_mode(render_mode)
        if invalid_action not in ("noop", "raise"):
            raise ValueError(f"invalid_action must be 'noop' or 'raise', got {invalid_action!r}")
        defaults = {"country": country, "resolution": resolution, "session": session}
        checked_options(defaults, self.RESET_OPTIONS, "Deliberation-v0")
        records = resolution_records(data)
        self.split = split
        self.records, known = session_records(records, split, sessions)
        self.dynamics = dynamics or EmpiricalDynamics.fit(known)
        if self.dynamics.countries != self.records.country_names:
            raise ValueError("the dynamics were fitted on other countries than the records")
        self.features = RollCallFeatures(
            self.records.resolutions,
            history=known.plenary_history(),
            config=feature_config or FeatureConfig(),
        )
        self.layout = ObservationLayout((*self.features.names, *STATE_NAMES))
        self.observation_space = unit_box(len(self.layout))
        self.action_space: spaces.Discrete = spaces.Discrete(len(Action))
        self.reward_fn: RewardFn = reward_fn or recorded_action_match
        self.invalid_action = invalid_action
        self._country = (
            self.records.country_names[self.records.country_index(country)] if country else None
        )
        self._resolution = resolution
        self._session = session
        # Issue key of each resolution, shape (R,), as the dynamics key them.
        self.resolution_issues = issue_keys(
            self.records.resolutions[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(dtype=bool)
        )
        # Text and ids of each resolution (arrays of length R), for infos and rendering; missing
        # text is "" so that every info field keeps one type (Minari's DataCollector needs it).
        resolutions = self.records.resolutions
        self.attributes = {
            **{key: resolutions[key].to_numpy() for key in ("session", "rcid")},
            **{key: resolutions[key].fillna("").astype(str).to_numpy()
               for key in ("symbol", "short", "descr")},
        }  # fmt: skip
        self._sessions = self.attributes["session"]
        self._issues = self.resolution_issues.tolist()
        self._offset = len(self.features.names)  # where the STATE_NAMES start
        self._adopted = self._offset + _STATE["adopted"]
        self._uniforms_shape = (len(Stage) - 1, self.records.n_countries)  # by acting stage
        self._cache: dict[int, np.ndarray] = {}  # first_observations by country row
        self._flat_candidates: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}
        self._episode: dict[str, Any] | None = None
        self._last: dict[str, Any] | None = None

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start at the DRAFT stage; options may set ``country``, ``resolution``, ``session``.

        Raises:
            ValueError: an option other than :attr:`RESET_OPTIONS` (TypeError: of another type).
        """
        options = checked_options(options, self.RESET_OPTIONS, "Deliberation-v0")
        super().reset(seed=seed)
        shape = self._uniforms_shape
        # Every draw of the episode up front, in one call: two pick the country and the
        # resolution, then one uniform per country and stage decides the others' choices.
        draws = self.np_random.random(2 + shape[0] * shape[1])
        first, second = draws[:2].tolist()
        row, column = self._sample_start(first, second, options)
        obs = self.first_observations(row)[column].copy()
        obs.setflags(write=False)  # reward_fn reads it; a step makes the next one
        self._episode = {
            "row": row, "column": column, "stage": Stage.DRAFT, "obs": obs,
            "issue": self._issues[column], "support": 0.0,
            "about": self._about(row, column),
            "uniforms": draws[2:].reshape(shape),
            "recorded": self.recorded_table[:, row, column].tolist(),
        }  # fmt: skip
        self._last = None
        # The keys of a step's info, with placeholders: nothing has been played yet.
        info = {**self._episode["about"], "stage": _STAGE_NAMES[Stage.DRAFT],
                "action_mask": STAGE_MASKS[Stage.DRAFT].copy(),
                "recorded_action": UNRECORDED_ACTION, "acted_stage": "", "invalid_action": False,
                "tally": tally_dict(), "adopted": False}  # fmt: skip
        return obs.copy(), info

    @property
    def draws_per_episode(self) -> int:
        """Uniform draws one episode consumes: 2 + 3 × countries."""
        return 2 + self._uniforms_shape[0] * self._uniforms_shape[1]

    def sample_starts(
        self, uniforms: np.ndarray, options: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Episode starts picked by uniforms (N, 2): country rows and resolution columns (N,).

        The first uniform picks the country (unless ``options`` or the constructor fix it),
        the second one of its recorded resolutions (of ``session`` when given), unless a
        ``resolution`` is fixed. The vector env calls this for all its sub-envs at once.
        """
        records = self.records
        country = options.get("country", self._country)
        n = len(uniforms)
        if country is None:
            rows = _index(uniforms[:, 0], records.n_countries)
        else:
            rows = np.full(n, records.country_index(country), dtype=np.int64)
        resolution = options.get("resolution", self._resolution)
        if resolution is not None:
            return rows, np.full(n, records.resolution_index(resolution), dtype=np.int64)
        session = options.get("session", self._session)
        candidates, offsets = self._all_candidates(session)
        counts = np.diff(offsets)[rows]
        if not counts.all():
            raise self._no_candidate(int(rows[counts == 0][0]), session)
        return rows, candidates[offsets[rows] + _index(uniforms[:, 1], counts)]

    def _sample_start(
        self, first: float, second: float, options: dict[str, Any]
    ) -> tuple[int, int]:
        """:meth:`sample_starts` of one episode in Python scalars: its row and column."""
        records = self.records
        country = options.get("country", self._country)
        if country is None:
            row = _index(first, self._uniforms_shape[1])
        else:
            row = records.country_index(country)
        resolution = options.get("resolution", self._resolution)
        if resolution is not None:
            return row, records.resolution_index(resolution)
        session = options.get("session", self._session)
        candidates, offsets = self._all_candidates(session)
        start, count = int(offsets[row]), int(offsets[row + 1] - offsets[row])
        if not count:
            raise self._no_candidate(row, session)
        return row, int(candidates[start + _index(second, count)])

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Act at the current stage; the others respond; move on (not when ``reward_fn`` fails).

        Raises:
            RewardFunctionError: ``reward_fn`` returned NaN or ±inf (the env has not moved).
        """
        episode = self._episode
        if episode is None or episode["stage"] == Stage.TERMINAL:
            raise gym.error.ResetNeeded("call reset() before step() and after an episode ends")
        # Fast path for plain integers; the space's own check otherwise (it is slower).
        if not (type(action) in _INT_TYPES and 0 <= action < _N_ACTIONS) and not (
            self.action_space.contains(action)
        ):
            raise InvalidActionError(f"action {action!r} is not in {self.action_space}")
        stage = episode["stage"]
        action = _ACTIONS[int(action)]
        invalid = not _VALID[stage][action]
        if invalid:
            if self.invalid_action == "raise":
                valid = [a.name for a in Action if STAGE_MASKS[stage][a]]
                raise InvalidActionError(
                    f"{action.name} is not valid at {stage.name}; valid: {valid}"
                )
            action = Action.NO_ACTION
        after, tally = self._advance(episode, action)
        obs = after["obs"]
        recorded, about, acted = episode["recorded"][stage], episode["about"], _STAGE_NAMES[stage]
        voted = {**about, "stage": acted, "action_mask": STAGE_MASKS[stage].copy(),
                 "recorded_action": recorded, "tally": dict(tally)}  # fmt: skip
        reward = checked_reward(
            self.reward_fn, float(self.reward_fn(episode["obs"], int(action), obs, voted))
        )
        episode.update(after)
        now = after["stage"]
        terminated = now == Stage.TERMINAL
        info = {**about, "stage": _STAGE_NAMES[now], "action_mask": STAGE_MASKS[now].copy(),
                "recorded_action": recorded, "acted_stage": acted, "invalid_action": invalid,
                "tally": dict(tally), "adopted": bool(obs[self._adopted])}  # fmt: skip
        self._last = {"stage": stage, "action": action, "reward": reward, "tally": tally}
        self._show_step()
        return obs.copy(), reward, terminated, False, info

    def recorded_action(self) -> int | None:
        """What the country actually did at the current stage (None: not recorded, or over).

        For replaying the record (``assembly-gym play --expert``); agents should not read it.
        """
        if self._episode is None or self._episode["stage"] == Stage.TERMINAL:
            return None
        return self._recorded(self._episode["stage"])

    def action_masks(self) -> np.ndarray:
        """Valid actions at the current stage, shape (5,) bool."""
        stage = Stage.TERMINAL if self._episode is None else self._episode["stage"]
        return STAGE_MASKS[stage].copy()

    # ------------------------------------------------------------------ dynamics

    def _advance(
        self, episode: dict[str, Any], action: Action
    ) -> tuple[dict[str, Any], dict[str, int]]:
        """The agent's action and the others' response, not yet applied to ``episode``.

        The same draws as :meth:`EmpiricalDynamics.respond` of a batch of one, in a few NumPy
        calls.

        Returns:
            The episode's entries after the stage (``obs``, read-only, ``stage``, ``support``,
            ``sponsored``, ``rows``: each country's :meth:`EmpiricalDynamics.threshold_rows`,
            ``choices``: who sponsored, or which thresholds each uniform exceeded) and the
            stage's tally.
        """
        stage, row, dynamics = episode["stage"], episode["row"], self.dynamics
        uniforms = episode["uniforms"][stage]
        n_countries = len(uniforms)
        if stage == Stage.DRAFT:
            sponsored = uniforms < dynamics.sponsor_by_issue[episode["issue"]]
            sponsored[row] = action == Action.COSPONSOR
            counts = [int(np.count_nonzero(sponsored))]
            own, support = int(action == Action.COSPONSOR), counts[0] / n_countries
            # Everyone's choice (for the picture), and the threshold row each reads at a vote.
            choices, rows = sponsored, dynamics.threshold_rows(sponsored)
        else:
            sponsored, rows = episode["sponsored"], episode["rows"]
            context = dynamics.context_thresholds(stage, episode["issue"], episode["support"])
            thresholds = context.take(rows, axis=1)
            thresholds[:, row] = _OWN_THRESHOLDS[action]
            # Which of its three thresholds each country's uniform exceeds, (3, C): a country
            # votes the outcome whose index is how many (for the picture).
            choices = uniforms > thresholds
            # Countries past each threshold: bytes.count is the cheapest count of a short row.
            past, n = choices.tobytes(), n_countries
            first, second = past.count(1, 0, n), past.count(1, n, 2 * n)
            counts = [n - first, first - second, second - past.count(1, 2 * n)]
            own, support = _OWN_CODES[action], counts[0] / max(sum(counts), 1)
        obs = episode["obs"].copy()
        write_stage_counts(obs[self._offset :], stage, counts, own, n_countries)
        obs.setflags(write=False)
        after = {
            "obs": obs, "stage": _STAGES[stage + 1], "sponsored": sponsored, "support": support,
            "choices": choices, "rows": rows,
        }  # fmt: skip
        return after, tally_dict(stage, counts)

    # ------------------------------------------------------------------ helpers

    def _recorded(self, stage: Stage) -> int | None:
        """The country's recorded action at a stage, or None when not recorded."""
        episode = self._current_episode()
        action = int(self.recorded_table[stage, episode["row"], episode["column"]])
        return None if action == UNRECORDED_ACTION else action

    @functools.cached_property
    def recorded_table(self) -> np.ndarray:
        """:func:`recorded_actions` by acting stage, country and resolution, (3, C, R) int8."""
        records = self.records
        rows, columns = np.arange(records.n_countries)[:, None], np.arange(records.n_resolutions)
        return np.stack(
            [recorded_actions(records, stage, rows, columns[None, :]) for stage in _STAGES[:-1]]
        ).astype(np.int8)

    def _all_candidates(self, session: int | None) -> tuple[np.ndarray, np.ndarray]:
        """The resolutions with a record of each country (in ``session`` when given), cached.

        Returns:
            Their columns, flat (K,), by country, and where each country's start, (C + 1,).
        """
        if session in self._flat_candidates:
            return self._flat_candidates[session]
        recorded = (self.records.plenary != NOT_RECORDED) | (self.records.sponsors != NOT_RECORDED)
        if session is not None:
            recorded &= self._sessions == session
        rows, columns = np.nonzero(recorded)  # row-major: by country, then resolution
        offsets = np.searchsorted(rows, np.arange(self.records.n_countries + 1))
        self._flat_candidates[session] = columns, offsets
        return columns, offsets

    def _no_candidate(self, row: int, session: int | None) -> DataError:
        """The error of a country without a recorded resolution (in ``session``)."""
        where = f" in session {session}" if session is not None else ""
        name = self.records.country_names[row]
        return DataError(
            self.records.source, f"no recorded resolution for {name}{where}", field="session"
        )

    def _about(self, row: int, column: int) -> dict[str, Any]:
        rcid, symbol, session, title, description = self._texts[column]
        return {"country": self.records.country_names[row], "rcid": rcid, "symbol": symbol,
                "session": session, "title": title, "description": description}  # fmt: skip

    @functools.cached_property
    def _texts(self) -> list[tuple[int, str, int, str, str]]:
        """Each resolution's rcid, symbol, session, title and description as Python values."""
        keys = ("rcid", "symbol", "session", "short", "descr")
        return list(zip(*(self.attributes[key].tolist() for key in keys), strict=True))

    def country_features(self, country: str) -> np.ndarray:
        """Roll-call feature rows of a country for every resolution, shape (R, d).

        Cached for the countries of the records (a view of :meth:`first_observations`).
        """
        if country not in self.records.country_names:
            return self.features.for_country(country)
        return self.first_observations(self.records.country_index(country))[:, : self._offset]

    def first_observations(self, row: int) -> np.ndarray:
        """The DRAFT observation of every resolution for country ``row``, (R, D) float32.

        Cached for the last 64 countries used (read-only).
        """
        table = self._cache.get(row)
        if table is None:
            if len(self._cache) >= 64:
                self._cache.pop(next(iter(self._cache)))
            table = np.zeros((self.records.n_resolutions, len(self.layout)), dtype=np.float32)
            table[:, : self._offset] = self.features.for_country(self.records.country_names[row])
            table[:, self._offset + _STATE["stage_draft"]] = 1.0
            table.setflags(write=False)
            self._cache[row] = table
        return table

    def _state_index(self, name: str) -> int:
        return len(self.features.names) + _STATE[name]

    def _current_episode(self) -> dict[str, Any]:
        if self._episode is None:
            raise gym.error.ResetNeeded("call reset() first")
        return self._episode

    def _describe(self, stage: Stage | None = None) -> dict[str, Any]:
        """Info of the current resolution at a stage (never the country's recorded action)."""
        episode = self._current_episode()
        stage = episode["stage"] if stage is None else stage
        return {**episode["about"], "stage": _STAGE_NAMES[stage],
                "action_mask": STAGE_MASKS[stage].copy()}  # fmt: skip

    def render_frame(self) -> np.ndarray:
        """The stage just played as a hemicycle, shape (480, 640, 3) uint8."""
        hemicycle, seat_of = self._hemicycle
        seats = np.full(hemicycle.n_seats, Seat.PENDING, dtype=np.int64)
        episode = self._episode
        if episode is None:
            return hemicycle.draw(
                AssemblyView("Deliberation-v0", "not started (call reset())", seats)
            )
        about, stage = episode["about"], episode["stage"]
        view = AssemblyView(
            title=f"Deliberation-v0 · {about['country']} · session {about['session']}",
            subtitle=f"{about['symbol'] or 'no symbol'} · {about['title'] or about['description']}",
            seats=seats,
            acting=int(seat_of[episode["row"]]),
            acting_label=f"{about['country']}: to act",
            stages=STAGE_LABELS,
            stage=int(stage),
        )
        last = self._last
        if last is None:
            return hemicycle.draw(view)
        played = last["stage"]
        choices = episode["choices"]
        seats[seat_of] = (
            sponsor_seats(choices)
            if played == Stage.DRAFT
            else vote_seats(OUTCOMES[choices.sum(axis=0)])
        )
        recorded = self._recorded(played)
        record = "not recorded" if recorded is None else f"recorded {Action(recorded).name}"
        adopted = bool(episode["obs"][self._state_index("adopted")])
        over = stage == Stage.TERMINAL
        return hemicycle.draw(
            dataclasses.replace(
                view,
                caption="sponsors" if played == Stage.DRAFT else STAGE_LABELS[played],
                acting_label=f"{about['country']}: {last['action'].name} ({record})",
                outcome=("ADOPTED" if adopted else "REJECTED") if over else "",
                passed=adopted,
                footer=f"reward {last['reward']:+.3f}",
            )
        )

    @functools.cached_property
    def _hemicycle(self) -> tuple[Hemicycle, np.ndarray]:
        """The picture's hemicycle and the seat of each country, (C,): built at the first frame."""
        return Hemicycle(self.records.n_countries), seat_order(self.records.plenary)

    def render_text(self) -> str:
        """A readable description of the current state."""
        if self._episode is None:
            return "Deliberation-v0: not started (call reset())"
        info, obs = self._describe(), self._episode["obs"]
        value = {name: obs[self._state_index(name)] for name in STATE_NAMES}
        valid = ", ".join(f"{a.value} {a.name}" for a in Action if info["action_mask"][a])
        lines = [
            f"Deliberation-v0 | {info['country']} | {info['symbol'] or 'no symbol'} | "
            f"session {info['session']} | stage {info['stage']}",
            f"  {info['title'] or '(no title)'}",
            f"  sponsors {value['sponsor_share']:.0%}"
            f" (own: {'yes' if value['own_cosponsor'] else 'no'})"
            f" | committee yes/no/abstain {value['committee_yes']:.0%}/{value['committee_no']:.0%}/"
            f"{value['committee_abstain']:.0%}",
            f"  valid actions: {valid or 'none (episode over)'}",
        ]
        if self._last is not None:
            last = self._last
            lines.append(
                f"  last: {last['action'].name} at {last['stage'].name} -> {last['tally']}, "
                f"reward {last['reward']:+.3f}"
            )
        if info["stage"] == Stage.TERMINAL.name:
            lines.append(f"  outcome: {'ADOPTED' if value['adopted'] else 'REJECTED'}")
        return "\n".join(lines)
