"""Demonstrations: a country's recorded behaviour as trajectories, and the imitation round trip.

A :class:`Demonstration` is one episode of an env replayed with what the country actually
did: ``RollCall-v0`` gives one per (country, session), ``Deliberation-v0`` one per
(country, resolution) whose every stage is recorded. Observations are exactly what the env
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

from envs.errors import DataError
from envs.legislative.data import ABSENT, RollCallData, Vote
from envs.legislative.deliberation import STATE_NAMES, write_stage_outcome
from envs.legislative.features import FeatureConfig, RollCallFeatures
from envs.legislative.resolutions import NOT_RECORDED, ResolutionRecords
from envs.legislative.spaces import Action, Stage, action_mask

__all__ = [
    "Demonstration",
    "deliberation_demonstrations",
    "from_imitation",
    "group_by_country",
    "rollcall_demonstrations",
    "to_imitation",
]


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
        n = len(self.acts)
        if n == 0:
            raise ValueError("a demonstration needs at least one action")
        if self.obs.ndim != 2 or self.obs.shape[0] != n + 1:
            raise ValueError(f"obs must have shape ({n + 1}, d), got {self.obs.shape}")
        if self.masks.shape[0] != n or self.masks.dtype != bool:
            raise ValueError(f"masks must be bool of shape ({n}, n_actions), got {self.masks.shape}")
        if self.infos and len(self.infos) != n:
            raise ValueError(f"infos must have {n} entries, got {len(self.infos)}")
        if not self.masks[np.arange(n), self.acts].all():
            raise ValueError("a demonstrated action is masked out")

    def __len__(self) -> int:
        return len(self.acts)


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
    meta = {key: data.roll_calls[key].to_numpy() for key in ("session", "rcid", "symbol", "short", "descr")}
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
                    "country": name, "session": int(meta["session"][c]), "rcid": int(meta["rcid"][c]),
                    "symbol": meta["symbol"][c], "title": meta["short"][c],
                    "description": meta["descr"][c], "action_mask": mask,
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
    feature_config: FeatureConfig | None = None,
) -> list[Demonstration]:
    """One demonstration per (country, resolution) whose three stages are all recorded.

    Observations show the recorded sponsor share and tallies, as ``Deliberation-v0`` would
    if the other countries had acted as they did.
    """
    features = RollCallFeatures(records.resolutions, history=records.plenary_history(),
                                config=feature_config or FeatureConfig())  # fmt: skip
    complete = (
        (records.sponsors != NOT_RECORDED)
        & (records.committee != NOT_RECORDED)
        & (records.plenary != NOT_RECORDED)
    )
    masks = np.stack([action_mask(s) for s in (Stage.DRAFT, Stage.COMMITTEE_VOTE, Stage.PLENARY_VOTE)])
    demos = []
    for country in countries if countries is not None else records.country_names:
        row = records.country_index(country)
        name = records.country_names[row]
        content = features.for_country(name)
        for column in np.flatnonzero(complete[row]):
            obs = np.zeros((4, len(features.names) + len(STATE_NAMES)), dtype=np.float32)
            obs[:, : len(features.names)] = content[column]
            state = np.zeros(len(STATE_NAMES), dtype=np.float32)
            state[0] = 1.0  # stage_draft
            obs[0, len(features.names) :] = state
            stages = (
                (Stage.DRAFT, records.sponsors[:, column]),
                (Stage.COMMITTEE_VOTE, records.committee[:, column]),
                (Stage.PLENARY_VOTE, records.plenary[:, column]),
            )
            acts, infos = [], []
            for t, (stage, choices) in enumerate(stages):
                acts.append(_action_of(stage, choices[row]))
                tally = write_stage_outcome(state, stage, choices, row)
                obs[t + 1, len(features.names) :] = state
                infos.append(
                    {
                        "country": name, "rcid": int(records.resolutions["rcid"].iat[column]),
                        "symbol": records.resolutions["symbol"].iat[column], "stage": stage.name,
                        "action_mask": masks[t], "recorded_action": acts[-1], "tally": tally,
                    }
                )  # fmt: skip
            demos.append(Demonstration(name, obs, np.array(acts, dtype=np.int64), masks.copy(), tuple(infos)))
    return demos


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
            raise DataError("imitation trajectories", "infos lack 'country'", row=f"trajectory {index}")
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
