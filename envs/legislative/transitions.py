"""The transitions world models learn of ``Deliberation-v0`` and ``RollCall-v0``.

The two families' transitions builders (:attr:`~assembly_gym.envs.family.EnvFamily.transitions`):

* ``Deliberation-v0`` (:func:`deliberation_transitions`): every (country, resolution) replay
  of :func:`~assembly_gym.envs.legislative.demonstrations.deliberation_demonstrations`, started at
  the first stage of the recorded run of stages: three transitions per episode on the
  synthetic records, one (the plenary vote) on roll-call records, whose non-members'
  absences are no decisions (:func:`mark_non_members`).
* ``RollCall-v0`` (:func:`rollcall_transitions`): one episode per (country, session) of
  :func:`~assembly_gym.envs.legislative.demonstrations.rollcall_demonstrations`.

Episodes that must not be separated share a group (the resolution, or the session), which
:func:`~assembly_gym.world_models.transitions.split_transitions` never cuts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from assembly_gym.core.transitions import Transitions
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.deliberation import (
    STATE_DECLARATION,
    STATE_NAMES,
    resolution_records,
)
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    first_recorded_stages,
    replay_states,
    rollcall_demonstrations,
)
from assembly_gym.envs.legislative.observation import FeatureConfig, RollCallFeatures, feature_names
from assembly_gym.envs.legislative.resolutions import NOT_RECORDED, ResolutionRecords
from assembly_gym.envs.legislative.sources import roll_call_data
from assembly_gym.envs.legislative.spaces import Action, Stage, action_mask

__all__ = [
    "deliberation_transitions",
    "mark_non_members",
    "rollcall_transitions",
    "transitions_from_demonstrations",
]


def transitions_from_demonstrations(
    demos: Sequence[Demonstration],
    obs_names: Sequence[str],
    *,
    groups: np.ndarray | None = None,
    extras: dict[str, np.ndarray] | None = None,
    first_episode: int = 0,
) -> Transitions:
    """Every step of every demonstration as a transition (s_t, a_t, s_t+1, done).

    Args:
        demos: the demonstrations (one episode each).
        obs_names: the env's layout.
        groups: group of each demonstration, shape (len(demos),), or None.
        extras: per-demonstration-step side information, name → shape (n_steps,).
        first_episode: episode id of the first demonstration (ids count up from it).

    Raises:
        ValueError: for no demonstrations.
    """
    obs, acts, masks = Demonstration.stack(demos)
    lengths = np.array([len(d) for d in demos])
    next_obs = np.concatenate([d.obs[1:] for d in demos]).astype(np.float32)
    ends = np.cumsum(lengths) - 1
    dones = np.zeros(len(obs), dtype=bool)
    dones[ends] = [d.terminal for d in demos]
    episodes = np.repeat(np.arange(first_episode, first_episode + len(demos)), lengths)
    bounds = (np.zeros(len(obs_names), np.float32), np.ones(len(obs_names), np.float32))
    return Transitions(
        obs.astype(np.float32), acts.astype(np.int64), next_obs, dones, episodes,
        tuple(obs_names), None if groups is None else np.repeat(groups, lengths), masks, bounds,
        extras or {},
    )  # fmt: skip


def mark_non_members(records: ResolutionRecords) -> ResolutionRecords:
    """Records where a country that cast no vote in a session is NOT_RECORDED there.

    Roll-call data lists neither non-members nor absentees; a country with no vote in a
    whole session is taken not to be a member, so its absences that session are not
    decisions. Sponsorship is left as it is.
    """
    sessions = records.resolutions["session"].to_numpy()
    cast = (records.committee >= 0) | (records.plenary >= 0)  # a Vote, not absent/unrecorded
    labels, column_session = np.unique(sessions, return_inverse=True)
    voted = np.zeros((records.n_countries, len(labels)), dtype=bool)
    np.logical_or.at(voted.T, column_session, cast.T)
    member = voted[:, column_session]  # (C, R)

    def unmark(matrix: np.ndarray) -> np.ndarray:
        return np.where((matrix == ABSENT) & ~member, NOT_RECORDED, matrix).astype(np.int8)

    return replace(records, committee=unmark(records.committee), plenary=unmark(records.plenary))


def deliberation_transitions(
    data: Any = None,
    countries: Iterable[str] | None = None,
    *,
    feature_config: FeatureConfig | None = None,
    progress: bool = False,
) -> Transitions:
    """All transitions that resolution records hold, as ``Deliberation-v0`` shows them.

    The same transitions as :func:`transitions_from_demonstrations` of
    ``deliberation_demonstrations(records, from_first_recorded=True)`` (tested equal), built
    with arrays (why: docs/world_models.md) from the same
    :func:`~assembly_gym.envs.legislative.demonstrations.replay_states`, once per resolution and
    choice.

    Args:
        data: anything :func:`~assembly_gym.envs.legislative.deliberation.resolution_records`
            accepts (None: the synthetic default; "unvotes" or a path: real roll calls).
        countries: which countries (default all), in this order.
        feature_config: feature settings (must match the env's).
        progress: show a progress bar.

    Returns:
        Transitions with groups = resolution column, extras ``session`` (of the resolution)
        and ``voters`` (countries that voted at the step; 0 at DRAFT), and the family's
        declaration.
    """
    records = mark_non_members(resolution_records(data))
    config = feature_config or FeatureConfig()
    features = RollCallFeatures(records.resolutions, history=records.plenary_history(),
                                config=config)  # fmt: skip
    stages = ((Stage.DRAFT, records.sponsors), (Stage.COMMITTEE_VOTE, records.committee),
              (Stage.PLENARY_VOTE, records.plenary))  # fmt: skip
    codes = np.stack([matrix for _, matrix in stages]).astype(np.int64)  # (3, C, R)
    first = first_recorded_stages(records)
    names = (*features.names, *STATE_NAMES)
    rows = np.array([records.country_index(c) for c in countries] if countries is not None
                    else np.arange(records.n_countries), dtype=np.int64)  # fmt: skip
    # Episodes in the demonstrations' order: country by country, resolutions in order.
    ep_row = np.concatenate([np.full((first[r] < len(stages)).sum(), r) for r in rows])
    ep_col = np.concatenate([np.flatnonzero(first[r] < len(stages)) for r in rows])
    if len(ep_row) == 0:
        raise ValueError(f"{records.source}: no recorded plenary vote to make transitions of")
    ep_first = first[ep_row, ep_col]
    own = codes[:, ep_row, ep_col].T  # (E, 3)
    own[np.arange(3)[None, :] < ep_first[:, None]] = NOT_RECORDED  # not part of the replay
    keys, index, inverse = np.unique(np.column_stack([ep_col, ep_first, own]), axis=0,
                                     return_index=True, return_inverse=True)  # fmt: skip
    inverse = inverse.reshape(-1)
    blocks = np.zeros((len(keys), len(stages) + 1, len(STATE_NAMES)), dtype=np.float32)
    voters = np.zeros((len(keys), len(stages)), dtype=np.int64)
    for u in tqdm(range(len(keys)), desc="replaying resolutions", disable=not progress):
        column, start = int(keys[u, 0]), int(keys[u, 1])
        states, tallies = replay_states(stages[start:], column, int(ep_row[index[u]]), start)
        blocks[u, start:] = states
        voters[u, start:] = [sum(n for k, n in t.items() if k != "sponsors") for t in tallies]

    lengths = len(stages) - ep_first
    episode = np.repeat(np.arange(len(ep_row)), lengths)
    step = np.arange(len(episode)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    stage = ep_first[episode] + step
    block = inverse[episode]
    code = codes[stage, ep_row[episode], ep_col[episode]]
    acts = np.where(
        stage == Stage.DRAFT,
        np.where(code == 1, Action.COSPONSOR, Action.NO_ACTION),
        np.where(code == ABSENT, Action.NO_ACTION, Action.YES + code),
    ).astype(np.int64)
    n_features = len(features.names)
    obs = np.empty((len(episode), len(names)), dtype=np.float32)
    next_obs = np.empty_like(obs)
    obs[:, n_features:] = blocks[block, stage]
    next_obs[:, n_features:] = blocks[block, stage + 1]
    country_of_step = ep_row[episode]
    for r in rows:  # the roll-call features, one country at a time (they are (R, d) each)
        at = np.flatnonzero(country_of_step == r)
        if len(at):
            content = features.for_country(records.country_names[r])[ep_col[episode[at]]]
            obs[at, :n_features] = content
            next_obs[at, :n_features] = content
    masks = np.stack([action_mask(s) for s, _ in stages])[stage]
    sessions = records.resolutions["session"].to_numpy()
    bounds = (np.zeros(len(names), np.float32), np.ones(len(names), np.float32))
    return Transitions(
        obs, acts, next_obs, step == lengths[episode] - 1, episode.astype(np.int64), names,
        ep_col[episode].astype(np.int64), masks, bounds,
        {"session": sessions[ep_col[episode]].astype(np.int64), "voters": voters[block, stage]},
        STATE_DECLARATION,
    )  # fmt: skip


def rollcall_transitions(
    data: Any = None,
    countries: Iterable[str] | None = None,
    *,
    history: RollCallData | None = None,
    feature_config: FeatureConfig | None = None,
    progress: bool = False,
) -> Transitions:
    """All transitions of ``RollCall-v0`` episodes (one per country and session).

    Args:
        data: anything :func:`~assembly_gym.envs.legislative.sources.roll_call_data` accepts.
        countries: which countries (default all).
        history: votes that describe the past (default: the data itself, as the env).
        feature_config: feature settings (must match the env's).
        progress: show a progress bar (over countries).

    Returns:
        Transitions with groups = session and extra ``session``.
    """
    data = roll_call_data(data)
    config = feature_config or FeatureConfig()
    countries = tqdm(data.country_names if countries is None else countries,
                     desc="replaying countries", disable=not progress)  # fmt: skip
    demos = rollcall_demonstrations(data, countries, history=history, feature_config=config)
    if not demos:
        raise ValueError(f"{data.source}: no votes to make transitions of")
    sessions = np.array([d.infos[0]["session"] for d in demos])
    steps = np.array([len(d) for d in demos])
    return transitions_from_demonstrations(
        demos, feature_names(config), groups=sessions,
        extras={"session": np.repeat(sessions, steps)},
    )  # fmt: skip
