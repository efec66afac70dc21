"""``assembly/Deliberation-v0``: one resolution from draft to plenary outcome, seen by a country."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envs.errors import InvalidActionError
from envs.legislative.data import ABSENT, ISSUE_CODES, RollCallData, Vote
from envs.legislative.dynamics import EmpiricalDynamics, issue_keys, support_bin
from envs.legislative.features import FeatureConfig, RollCallFeatures
from envs.legislative.resolutions import (
    NOT_RECORDED,
    ResolutionRecords,
    generate_resolution_records,
    records_from_roll_calls,
    records_from_trajectories,
)
from envs.legislative.rewards import RewardFn, recorded_action_match
from envs.legislative.sources import default_assembly, roll_call_data
from envs.legislative.spaces import Action, ObservationLayout, Stage, action_mask, unit_box
from envs.legislative.synthetic import SyntheticAssembly

__all__ = ["STATE_NAMES", "DeliberationEnv", "resolution_records", "write_stage_outcome"]

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

_STATE = {name: i for i, name in enumerate(STATE_NAMES)}
_MASKS = {stage: action_mask(stage) for stage in Stage}
for _mask in _MASKS.values():
    _mask.setflags(write=False)


def write_stage_outcome(
    state: np.ndarray, stage: Stage, choices: np.ndarray, row: int
) -> dict[str, int]:
    """Write what everyone did at a stage into the state part of an observation.

    Args:
        state: the :data:`STATE_NAMES` block of an observation, modified in place, shape (19,).
        stage: the stage that was played.
        choices: what every country did, shape (C,) int8: at DRAFT 1/0 (sponsored or not),
            at a vote a :class:`Vote` value or ``ABSENT``.
        row: the observing country's row.

    Returns:
        The stage's tally: ``{"sponsors": n}`` or ``{"yes": …, "no": …, "abstain": …}``.
    """
    if stage == Stage.DRAFT:
        state[_STATE["own_cosponsor"]] = float(choices[row] == 1)
        state[_STATE["sponsor_share"]] = float((choices == 1).mean())
        tally = {"sponsors": int((choices == 1).sum())}
    else:
        counts = np.bincount(choices[choices != ABSENT], minlength=3)
        shares = counts / max(counts.sum(), 1)
        prefix = "committee" if stage == Stage.COMMITTEE_VOTE else "plenary"
        for vote in Vote:
            name = vote.name.lower()
            state[_STATE[f"{prefix}_{name}"]] = shares[vote]
            state[_STATE[f"own_{prefix}_{name}"]] = float(choices[row] == vote)
        tally = {v.name.lower(): int(counts[v]) for v in Vote}
        if stage == Stage.PLENARY_VOTE:
            state[_STATE["adopted"]] = float(counts[Vote.YES] > counts[Vote.NO])
    state[_STATE["stage_draft"] + stage] = 0.0
    state[_STATE["stage_draft"] + stage + 1] = 1.0
    return tally


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


class DeliberationEnv(gym.Env[np.ndarray, np.int64]):
    """One resolution seen by one country: draft, committee vote, plenary vote, outcome.

    ## Description
    At the DRAFT stage the country decides whether to cosponsor; then it votes in committee
    and in plenary. The other countries act by :class:`EmpiricalDynamics` fitted on the
    records: who sponsors depends on the resolution's issue; how they vote depends on the
    issue, on whether they sponsored and on the support already shown (sponsor share before
    the committee vote, committee yes share before the plenary vote). The country's own
    cosponsorship and votes therefore move the later tallies and the outcome (adopted when
    plenary yes votes exceed no votes).

    ## Action Space
    ``Discrete(5)``: 0 COSPONSOR, 1 YES, 2 NO, 3 ABSTAIN, 4 NO_ACTION (:class:`Action`).
    Valid at DRAFT: COSPONSOR, NO_ACTION; at a vote: YES, NO, ABSTAIN, NO_ACTION (not voting).
    The mask is ``info["action_mask"]`` and :meth:`action_masks`. An invalid action is
    treated as NO_ACTION with ``info["invalid_action"] = True`` (``invalid_action="noop"``,
    the default, so that checkers and unmasked agents can run) or raises
    :class:`~envs.errors.InvalidActionError` (``invalid_action="raise"``).

    ## Observation Space
    ``Box(0, 1, (75,), float32)``: the 56 roll-call features of the resolution for the
    country (:mod:`envs.legislative.features`), then :data:`STATE_NAMES`: stage one-hot, own
    cosponsorship, sponsor share, committee vote shares (of those voting), own committee
    vote, plenary vote shares, own plenary vote, adopted. Names: :attr:`layout`.

    ## Rewards
    ``reward_fn(obs, action, next_obs, info)``; default
    :func:`~envs.legislative.rewards.recorded_action_match` (1 for doing what the country
    did at that stage; 0 where the stage is not recorded).

    ## Starting State
    DRAFT of a resolution. ``country``, ``resolution`` (id or symbol) and ``session`` come
    from the constructor or ``reset(options=…)``, else are drawn from ``self.np_random``.

    ## Episode End
    Terminated after the plenary vote (three steps). No truncation.

    ## Arguments
    ``data`` (see :func:`resolution_records`), ``country``, ``resolution``, ``session``,
    ``dynamics`` (default: fitted on the records), ``reward_fn``, ``invalid_action``,
    ``feature_config``, ``render_mode`` ("ansi" or "human").

    ## Version History
    * v0: initial version.

    Example:
        >>> import gymnasium as gym, envs
        >>> env = gym.make("assembly/Deliberation-v0", country="Country 002")
        >>> obs, info = env.reset(seed=0)
        >>> info["stage"], info["action_mask"].tolist()
        ('DRAFT', [True, False, False, False, True])
        >>> obs, reward, terminated, truncated, info = env.step(0)  # cosponsor
        >>> info["stage"]
        'COMMITTEE_VOTE'
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        data: Any = None,
        *,
        country: str | None = None,
        resolution: int | str | None = None,
        session: int | None = None,
        dynamics: EmpiricalDynamics | None = None,
        reward_fn: RewardFn | None = None,
        invalid_action: Literal["noop", "raise"] = "noop",
        feature_config: FeatureConfig | None = None,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if invalid_action not in ("noop", "raise"):
            raise ValueError(f"invalid_action must be 'noop' or 'raise', got {invalid_action!r}")
        self.records = resolution_records(data)
        self.dynamics = dynamics or EmpiricalDynamics.fit(self.records)
        if self.dynamics.countries != self.records.country_names:
            raise ValueError("the dynamics were fitted on other countries than the records")
        self.features = RollCallFeatures(
            self.records.resolutions,
            history=self.records.plenary_history(),
            config=feature_config or FeatureConfig(),
        )
        self.layout = ObservationLayout((*self.features.names, *STATE_NAMES))
        self.observation_space = unit_box(len(self.layout))
        self.action_space = spaces.Discrete(len(Action))
        self.reward_fn: RewardFn = reward_fn or recorded_action_match
        self.invalid_action = invalid_action
        self.render_mode = render_mode
        self._country = (
            self.records.country_names[self.records.country_index(country)] if country else None
        )
        self._resolution = resolution
        self._session = session
        self._issue_keys = issue_keys(  # as the dynamics key them (not by feature position)
            self.records.resolutions[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(dtype=bool)
        )
        self._meta = {
            key: self.records.resolutions[key].to_numpy()
            for key in ("session", "rcid", "symbol", "short", "descr")
        }
        self._sessions = self._meta["session"]
        self._vote_cdf = np.cumsum(self.dynamics.votes, axis=-1)
        self._cache: dict[str, np.ndarray] = {}
        self._episode: dict[str, Any] | None = None
        self._last: dict[str, Any] | None = None

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start at the DRAFT stage; options may set ``country``, ``resolution``, ``session``."""
        super().reset(seed=seed)
        options = options or {}
        records = self.records
        country = options.get("country", self._country)
        if country is None:
            country = records.country_names[self.np_random.integers(records.n_countries)]
        row = records.country_index(country)
        column = self._pick_resolution(
            row, options.get("resolution", self._resolution), options.get("session", self._session)
        )
        obs = np.zeros(len(self.layout), dtype=np.float32)
        obs[: len(self.features.names)] = self._country_features(records.country_names[row])[column]
        obs[len(self.features.names) + _STATE["stage_draft"]] = 1.0
        others = np.ones(records.n_countries, dtype=bool)
        others[row] = False
        self._episode = {
            "row": row, "column": column, "stage": Stage.DRAFT, "obs": obs, "others": others,
            "issue": int(self._issue_keys[column]),
            "sponsored": np.zeros(records.n_countries, bool), "about": self._about(row, column),
        }  # fmt: skip
        self._last = None
        return obs.copy(), self._describe()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Act at the current stage; the other countries respond; move to the next stage."""
        episode = self._episode
        if episode is None or episode["stage"] == Stage.TERMINAL:
            raise gym.error.ResetNeeded("call reset() before step() and after an episode ends")
        if not self.action_space.contains(action):
            raise InvalidActionError(f"action {action!r} is not in {self.action_space}")
        stage = episode["stage"]
        action = Action(int(action))
        invalid = not _MASKS[stage][action]
        if invalid:
            if self.invalid_action == "raise":
                valid = [a.name for a in Action if _MASKS[stage][a]]
                raise InvalidActionError(
                    f"{action.name} is not valid at {stage.name}; valid: {valid}"
                )
            action = Action.NO_ACTION
        obs = episode["obs"]
        before = obs.copy()
        tally = self._advance(episode, action)
        voted = self._describe(stage)
        voted["recorded_action"] = self._recorded(stage)
        voted["tally"] = tally
        reward = float(self.reward_fn(before, int(action), obs, voted))
        terminated = episode["stage"] == Stage.TERMINAL
        info = self._describe()
        info.update(recorded_action=voted["recorded_action"], acted_stage=stage.name,
                    invalid_action=invalid, tally=tally)  # fmt: skip
        if terminated:
            info["adopted"] = bool(obs[self._state_index("adopted")])
        self._last = {"stage": stage, "action": action, "reward": reward, "tally": tally}
        if self.render_mode == "human":
            print(self.render_text())
        return obs.copy(), reward, terminated, False, info

    def render(self) -> str | None:
        """Render as text ("ansi") or print it ("human")."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def action_masks(self) -> np.ndarray:
        """Valid actions at the current stage, shape (5,) bool."""
        stage = Stage.TERMINAL if self._episode is None else self._episode["stage"]
        return _MASKS[stage].copy()

    # ------------------------------------------------------------------ dynamics

    def _advance(self, episode: dict[str, Any], action: Action) -> dict[str, int]:
        """Apply the agent's action and the others' response; returns the stage's tally."""
        stage, obs, row = episode["stage"], episode["obs"], episode["row"]
        rng, n = self.np_random, self.records.n_countries
        offset = len(self.features.names)
        sponsored = episode["sponsored"]
        if stage == Stage.DRAFT:
            sponsored[:] = self.dynamics.sample_sponsors(episode["issue"], rng) & episode["others"]
            sponsored[row] = action == Action.COSPONSOR
            choices = sponsored.astype(np.int8)
        else:
            # The support share from the previous tally in float64, as the dynamics were fitted
            # (the float32 observation rounds shares such as 13/20 below a bin edge).
            counts = episode["tally"]
            share = (
                counts["sponsors"] / n
                if stage == Stage.COMMITTEE_VOTE
                else counts["yes"] / max(sum(counts.values()), 1)
            )
            bin_ = int(support_bin(stage, share))
            cdf = self._vote_cdf[
                np.arange(n), episode["issue"], sponsored.astype(np.int64), stage - 1, bin_
            ]
            draws = np.minimum((rng.random(n)[:, None] > cdf).sum(axis=1), 3)
            choices = np.where(draws == 3, ABSENT, draws).astype(np.int8)
            choices[row] = ABSENT if action == Action.NO_ACTION else action - Action.YES
        episode["stage"] = Stage(stage + 1)
        episode["tally"] = write_stage_outcome(obs[offset:], stage, choices, row)
        return episode["tally"]

    # ------------------------------------------------------------------ helpers

    def _recorded(self, stage: Stage) -> int | None:
        """The country's recorded action at a stage, or None when not recorded."""
        row, column = self._episode["row"], self._episode["column"]
        if stage == Stage.DRAFT:
            code = self.records.sponsors[row, column]
            return (
                None
                if code == NOT_RECORDED
                else int(Action.COSPONSOR if code else Action.NO_ACTION)
            )
        matrix = self.records.committee if stage == Stage.COMMITTEE_VOTE else self.records.plenary
        code = matrix[row, column]
        if code == NOT_RECORDED:
            return None
        return int(Action.NO_ACTION if code == ABSENT else Action.YES + code)

    def _pick_resolution(self, row: int, resolution: int | str | None, session: int | None) -> int:
        if resolution is not None:
            return self.records.resolution_index(resolution)
        recorded = (self.records.plenary[row] != NOT_RECORDED) | (
            self.records.sponsors[row] != NOT_RECORDED
        )
        if session is not None:
            recorded &= self._sessions == session
        candidates = np.flatnonzero(recorded)
        if len(candidates) == 0:
            where = f" in session {session}" if session is not None else ""
            name = self.records.country_names[row]
            raise ValueError(f"no recorded resolution for {name}{where} in {self.records.source}")
        return int(candidates[self.np_random.integers(len(candidates))])

    def _about(self, row: int, column: int) -> dict[str, Any]:
        meta = self._meta
        return {
            "country": self.records.country_names[row],
            "rcid": int(meta["rcid"][column]),
            "symbol": meta["symbol"][column],
            "session": int(meta["session"][column]),
            "title": meta["short"][column],
            "description": meta["descr"][column],
        }

    def _country_features(self, country: str) -> np.ndarray:
        if country not in self._cache:
            if len(self._cache) >= 64:
                self._cache.pop(next(iter(self._cache)))
            self._cache[country] = self.features.for_country(country)
        return self._cache[country]

    def _state_index(self, name: str) -> int:
        return len(self.features.names) + _STATE[name]

    def _describe(self, stage: Stage | None = None) -> dict[str, Any]:
        """Info of the current resolution at a stage (never the country's recorded action)."""
        episode = self._episode
        stage = episode["stage"] if stage is None else stage
        return {**episode["about"], "stage": stage.name, "action_mask": _MASKS[stage]}

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
