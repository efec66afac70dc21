"""Demonstrations: a country's recorded behaviour as trajectories, and the imitation round trip.

A :class:`Demonstration` is one episode of an env replayed with what the country actually
did: ``RollCall-v0`` gives one per (country, session), ``Deliberation-v0`` one per
(country, resolution) whose every stage is recorded (or, on request, whose last stages
are: the plenary vote of roll-call records). Observations are exactly what the env
shows (tested against env rollouts); the Deliberation ones show the *recorded* tallies.

:func:`to_imitation` / :func:`from_imitation` convert to and from
``imitation.data.types.Trajectory`` without loss: the country, the step infos and the action
masks travel in ``infos``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assembly_gym.core.errors import DataError
from assembly_gym.core.optional import require
from assembly_gym.envs.legislative.data import ABSENT, RollCallData, Vote
from assembly_gym.envs.legislative.deliberation import STATE_NAMES, tally_dict, write_stage_outcomes
from assembly_gym.envs.legislative.observation import FeatureConfig, RollCallFeatures
from assembly_gym.envs.legislative.resolutions import NOT_RECORDED, ResolutionRecords
from assembly_gym.envs.legislative.spaces import Action, Stage, action_mask

__all__ = [
    "Demonstration",
    "deliberation_demonstrations",
    "first_recorded_stages",
    "from_imitation",
    "group_by_country",
    "replay_states",
    "rollcall_demonstrations",
    "to_imitation",
]

_STAGE_DRAFT = STATE_NAMES.index("stage_draft")


@dataclass(frozen=True)
class Demonstration:
    """One episode of a country's recorded behaviour.

    Attributes:
        country: canonical country name.
        obs: observations, shape (T + 1, d) float32 (the last one follows the last action).
        acts: actions, shape (T,) int64.
        masks: valid actions at each step, shape (T, n_actions) bool.
        infos: the info of each step as given to ``reward_fn`` (with ``recorded_action``).
        terminal: whether the episode ended naturally.
    """

    country: str
    obs: np.ndarray
    acts: np.ndarray
    masks: np.ndarray
    infos: tuple[dict[str, Any], ...] = field(default=())
    terminal: bool = True

    def __post_init__(self) -> None:
        if self.acts.ndim != 1 or not np.issubdtype(self.acts.dtype, np.integer):
            raise ValueError(
                f"acts must be integers of shape (T,), got {self.acts.dtype} {self.acts.shape}"
            )
        n = len(self.acts)
        if n == 0:
            raise ValueError("a demonstration needs at least one action")
        if self.obs.ndim != 2 or self.obs.shape[0] != n + 1:
            raise ValueError(f"obs must have shape ({n + 1}, d), got {self.obs.shape}")
        if self.masks.ndim != 2 or self.masks.shape[0] != n or self.masks.dtype != bool:
            raise ValueError(
                f"masks must be bool of shape ({n}, n_actions), got {self.masks.shape}"
            )
        if self.infos and len(self.infos) != n:
            raise ValueError(f"infos must have {n} entries, got {len(self.infos)}")
        if self.acts.min() < 0 or self.acts.max() >= self.masks.shape[1]:
            raise ValueError(f"acts must lie in 0..{self.masks.shape[1] - 1}, got {self.acts}")
        if not self.masks[np.arange(n), self.acts].all():
            raise ValueError("a demonstrated action is masked out")

    def __len__(self) -> int:
        return len(self.acts)

    @staticmethod
    def stack(
        demonstrations: Sequence[Demonstration],
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every decision of some demonstrations, in order: what was seen, done and allowed.

        Args:
            demonstrations: one or more demonstrations with the same observation width.

        Returns:
            Observations before each action (N, d), the actions (N,) and the masks (N, A),
            N being the demonstrations' total length.

        Raises:
            ValueError: for no demonstrations.
        """
        if not demonstrations:
            raise ValueError("no demonstrations to stack")
        obs = np.concatenate([d.obs[:-1] for d in demonstrations])
        acts = np.concatenate([d.acts for d in demonstrations])
        masks = np.concatenate([d.masks for d in demonstrations])
        return obs, acts, masks


def rollcall_demonstrations(
    data: RollCallData,
    countries: Iterable[str] | None = None,
    *,
    history: RollCallData | None = None,
    feature_config: FeatureConfig | None = None,
    with_infos: bool = True,
) -> list[Demonstration]:
    """One demonstration per (country, session) with at least one vote, as ``RollCall-v0``.

    Args:
        data: the roll calls and votes to replay.
        countries: which countries (default all).
        history: votes describing the past (default ``data``: each session is described
            by the sessions before it). Pass the training data to describe a test period.
        feature_config: feature settings (must match the env's).
        with_infos: build the per-step info dicts (skip them for speed when fitting).
    """
    features = RollCallFeatures(data.roll_calls, history=history or data,
                                config=feature_config or FeatureConfig())  # fmt: skip
    meta = {
        key: data.roll_calls[key].to_numpy()
        for key in ("session", "rcid", "symbol", "short", "descr")
    }
    mask = np.ones(len(Vote), dtype=bool)
    demos = []
    for country in countries if countries is not None else data.country_names:
        row = data.country_index(country)
        name = data.country_names[row]
        obs = features.for_country(name)
        votes = data.votes[row]
        for session in np.unique(meta["session"][votes != ABSENT]):
            columns = np.flatnonzero((meta["session"] == session) & (votes != ABSENT))
            infos = () if not with_infos else tuple(
                {
                    "country": name, "session": int(meta["session"][c]),
                    "rcid": int(meta["rcid"][c]), "symbol": meta["symbol"][c],
                    "title": meta["short"][c], "description": meta["descr"][c], "action_mask": mask,
                    "recorded_action": int(votes[c]),
                }
                for c in columns
            )  # fmt: skip
            demos.append(
                Demonstration(
                    country=name,
                    obs=np.concatenate([obs[columns], obs[columns[-1:]]]),
                    acts=votes[columns].astype(np.int64),
                    masks=np.ones((len(columns), len(Vote)), dtype=bool),
                    infos=infos,
                )
            )
    return demos


def deliberation_demonstrations(
    records: ResolutionRecords,
    countries: Iterable[str] | None = None,
    *,
    history: RollCallData | None = None,
    feature_config: FeatureConfig | None = None,
    from_first_recorded: bool = False,
    draft_only: bool = False,
) -> list[Demonstration]:
    """One demonstration per (country, resolution) whose stages are recorded.

    Observations show the recorded sponsor share and tallies, as ``Deliberation-v0`` would
    if the other countries had acted as they did.

    Args:
        records: the resolution records.
        countries: which countries (default all).
        history: plenary votes describing the past (default: the records' own plenary votes,
            each session described by the sessions before it). Pass the training records'
            ``plenary_history()`` to describe a test period as a forecast.
        feature_config: feature settings (must match the env's).
        draft_only: one DRAFT step per (country, resolution) whose sponsorship is recorded,
            whatever is recorded after it (draft records list sponsors but no votes); the
            episode does not end there (``terminal`` is False).
        from_first_recorded: False (default): only (country, resolution) pairs whose three
            stages are all recorded, each starting at DRAFT. True: every pair whose last
            stages are recorded starts at the first stage of that recorded run (roll-call
            records hold only the plenary vote, so their demonstrations are one plenary
            step long); the state before it shows that stage with the unrecorded earlier
            stages left at zero, as an env observation never would.
    """
    if draft_only and from_first_recorded:
        raise ValueError("choose draft_only or from_first_recorded, not both")
    features = RollCallFeatures(records.resolutions, history=history or records.plenary_history(),
                                config=feature_config or FeatureConfig())  # fmt: skip
    stages = (
        (Stage.DRAFT, records.sponsors),
        (Stage.COMMITTEE_VOTE, records.committee),
        (Stage.PLENARY_VOTE, records.plenary),
    )
    first_stage = first_recorded_stages(records)
    usable = first_stage < len(stages) if from_first_recorded else first_stage == 0
    if draft_only:
        first_stage = np.zeros_like(first_stage)
        usable = records.sponsors != NOT_RECORDED
    replayed = slice(0, 1) if draft_only else slice(None)
    all_masks = np.stack([action_mask(stage) for stage, _ in stages])
    meta = {key: records.resolutions[key].to_numpy()
            for key in ("rcid", "symbol", "session", "short", "descr")}  # fmt: skip
    n_features = len(features.names)
    # The state block of a replay depends only on the resolution, the first stage and the
    # country's own choices, so countries that chose alike share one computation.
    replays: dict[tuple[int, ...], tuple[np.ndarray, list[dict[str, int]]]] = {}
    demos = []
    for country in countries if countries is not None else records.country_names:
        row = records.country_index(country)
        name = records.country_names[row]
        content = features.for_country(name)
        for column in np.flatnonzero(usable[row]):
            first = int(first_stage[row, column])
            run = stages[first:][replayed]
            own = tuple(int(matrix[row, column]) for _, matrix in run)
            key = (int(column), first, *own)
            if key not in replays:
                replays[key] = replay_states(run, int(column), row, first)
            states, tallies = replays[key]
            obs = np.empty((len(own) + 1, n_features + len(STATE_NAMES)), dtype=np.float32)
            obs[:, :n_features] = content[column]
            obs[:, n_features:] = states
            acts = [_action_of(stage, code) for (stage, _), code in zip(run, own, strict=True)]
            infos = tuple(
                {
                    "country": name, "rcid": int(meta["rcid"][column]),
                    "symbol": meta["symbol"][column], "session": int(meta["session"][column]),
                    "title": meta["short"][column], "description": meta["descr"][column],
                    "stage": stage.name, "action_mask": all_masks[first + t],
                    "recorded_action": acts[t], "tally": dict(tallies[t]),
                }
                for t, (stage, _) in enumerate(run)
            )  # fmt: skip
            demos.append(Demonstration(name, obs, np.array(acts, dtype=np.int64),
                                       all_masks[first : first + len(run)].copy(), infos,
                                       terminal=not draft_only))  # fmt: skip
    return demos


def first_recorded_stages(records: ResolutionRecords) -> np.ndarray:
    """First stage of the run of recorded stages that ends with the plenary vote, (C, R) int.

    0 (DRAFT) when all three stages are recorded, 2 (PLENARY_VOTE) when only the plenary
    vote is, 3 when the plenary vote is not recorded (nothing to replay).
    """
    recorded = np.stack([m != NOT_RECORDED for m in (records.sponsors, records.committee,
                                                     records.plenary)])  # fmt: skip
    trailing = np.flip(np.cumprod(np.flip(recorded, axis=0), axis=0), axis=0).sum(axis=0)
    return len(recorded) - trailing


def replay_states(
    stages: Sequence[tuple[Stage, np.ndarray]], column: int, row: int, first: int
) -> tuple[np.ndarray, list[dict[str, int]]]:
    """State blocks before and after each recorded stage of one resolution seen by one country.

    Args:
        stages: (stage, choice matrix (C, R)) of the stages to replay, from ``first`` on.
        column: the resolution's column.
        row: the observing country's row.
        first: the stage the replay starts at.

    Returns:
        The :data:`STATE_NAMES` blocks, shape (len(stages) + 1, 19), and the tallies.
        Countries whose choice at a stage is not recorded count as not voting (not
        sponsoring).
    """
    state = np.zeros(len(STATE_NAMES), dtype=np.float32)
    state[_STAGE_DRAFT + first] = 1.0
    states, tallies = [state.copy()], []
    for stage, matrix in stages:
        choices = matrix[:, column]
        unrecorded = 0 if stage == Stage.DRAFT else ABSENT
        choices = np.where(choices == NOT_RECORDED, unrecorded, choices).astype(np.int8)
        counts = write_stage_outcomes(state[None, :], stage, choices[None, :], np.array([row]))
        tallies.append(tally_dict(stage, counts[0]))
        states.append(state.copy())
    return np.stack(states), tallies


def _action_of(stage: Stage, code: int) -> int:
    """The :class:`Action` of a recorded sponsorship (1/0) or vote code."""
    if stage == Stage.DRAFT:
        return int(Action.COSPONSOR if code == 1 else Action.NO_ACTION)
    return int(Action.NO_ACTION if code == ABSENT else Action.YES + int(code))


def group_by_country(demos: Iterable[Demonstration]) -> dict[str, list[Demonstration]]:
    """Demonstrations grouped by country, in first-seen order."""
    groups: dict[str, list[Demonstration]] = {}
    for demo in demos:
        groups.setdefault(demo.country, []).append(demo)
    return groups


def to_imitation(demos: Sequence[Demonstration]) -> list:
    """Convert to ``imitation.data.types.Trajectory`` (country and masks ride in ``infos``)."""
    require("imitation", extra="imitation", purpose="imitation trajectories")
    from imitation.data.types import Trajectory

    out = []
    for demo in demos:
        infos = [dict(info) for info in demo.infos] or [{} for _ in range(len(demo))]
        for info, mask in zip(infos, demo.masks, strict=True):
            info["country"] = demo.country
            info["action_mask"] = np.array(mask, dtype=bool)
        out.append(Trajectory(obs=demo.obs, acts=demo.acts, infos=np.array(infos, dtype=object),
                              terminal=demo.terminal))  # fmt: skip
    return out


def from_imitation(trajectories: Sequence) -> list[Demonstration]:
    """Convert ``imitation`` trajectories made by :func:`to_imitation` back, unchanged."""
    demos = []
    for index, trajectory in enumerate(trajectories):
        infos = trajectory.infos
        if infos is None or len(infos) == 0 or "country" not in infos[0]:
            raise DataError(
                "imitation trajectories", "infos lack 'country'", row=f"trajectory {index}"
            )
        masks = np.stack([np.asarray(info["action_mask"], dtype=bool) for info in infos])
        demos.append(
            Demonstration(
                country=infos[0]["country"],
                obs=np.asarray(trajectory.obs),
                acts=np.asarray(trajectory.acts, dtype=np.int64),
                masks=masks,
                infos=tuple(dict(info) for info in infos),
                terminal=bool(trajectory.terminal),
            )
        )
    return demos
