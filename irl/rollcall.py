"""Rewards learned from roll calls: every country's votes → one fit of any kind → a model.

Each vote is a one-step decision (horizon 1): the MaxEnt reward is the multinomial logit of
the country's votes (docs/irl.md, section "What it computes"). :func:`fit_reward_model`
describes every vote as ``RollCall-v0`` does (each session by the sessions before it), fits
the kind it is given (:func:`~assembly_gym.irl.base.reward_kinds`) and keeps the data as the
model's history, so the model forecasts later roll calls. With no kind and no features it
fits :data:`DEFAULT_KIND` on :data:`DEFAULT_FEATURES`, the configuration chosen on
validation sessions cut from the training sessions (docs/irl.md, "The default").

Example:
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3)).data
    >>> model = fit_reward_model(data, kind="linear", l2=10.0, standard_errors=False)
    >>> model.theta.shape[:2]
    (4, 3)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, RollCallData, Vote
from assembly_gym.envs.legislative.demonstrations import Demonstration, rollcall_demonstrations
from assembly_gym.envs.legislative.observation import FeatureConfig, feature_names
from assembly_gym.irl.base import Decisions, RewardModel, reward_kind

__all__ = [
    "ACTION_NAMES",
    "DEFAULT_FEATURES",
    "DEFAULT_KIND",
    "demonstration_decisions",
    "fit_reward_model",
    "rollcall_decisions",
]

ACTION_NAMES = tuple(v.name.lower() for v in Vote)
DEFAULT_KIND = "mixture"
"""The reward kind ``irl fit`` and the bench's default agent fit (chosen on validation)."""
DEFAULT_FEATURES = FeatureConfig(log_shares=True, relations=True, allies=20, lineage=True)
"""The roll-call features of the default configuration (chosen on validation)."""


def demonstration_decisions(
    demos_by_country: dict[str, list[Demonstration]], obs_names: Sequence[str],
    action_names: Sequence[str] = ACTION_NAMES,
) -> Decisions:  # fmt: skip
    """Every country's one-step demonstrations stacked as :class:`Decisions`.

    Raises:
        DataError: when there is no country or a country has no demonstration.
    """
    if not demos_by_country:
        raise DataError("demonstrations", "no country to fit: the demonstrations are empty")
    parts = []
    for row, (country, demos) in enumerate(demos_by_country.items()):
        if not demos:
            raise DataError("demonstrations", f"{country!r} has no demonstration to fit on")
        obs, acts, masks = Demonstration.stack(demos)
        parts.append((np.full(len(acts), row, dtype=np.int64), obs, acts, masks))
    rows, obs, acts, masks = (np.concatenate(column) for column in zip(*parts, strict=True))
    return Decisions(tuple(demos_by_country), rows, obs.astype(np.float64), acts.astype(np.int64),
                     masks.astype(bool), tuple(obs_names), tuple(action_names))  # fmt: skip


def fit_reward_model(
    data: RollCallData,
    countries: Sequence[str] | None = None,
    *,
    kind: str = DEFAULT_KIND,
    feature_config: FeatureConfig | None = None,
    reward_features: Sequence[str] | None = None,
    progress: bool = False,
    **settings: Any,
) -> RewardModel:
    """Learn the reward of every country (or the given ones) from its votes in ``data``.

    Observations are ``RollCall-v0``'s: each session described by the sessions before it.
    The model keeps ``data`` as its history, so it can forecast later roll calls.

    Args:
        data: the training roll calls and votes.
        countries: which countries (default: every country that voted at least once).
        kind: the reward kind (:func:`~assembly_gym.irl.base.reward_kinds`).
        feature_config: feature settings (default: :data:`DEFAULT_FEATURES`).
        reward_features: the observation names the reward reads (default: all of them).
        progress: show progress.
        **settings: the kind's own (e.g. ``l2``, ``standard_errors`` of "linear").

    Raises:
        DataError: for unknown countries, a country without votes, or data without votes.
        ValueError: an unknown kind, or reward features that are not observation names.

    Warns:
        SeparationWarning: ("linear") naming the countries whose weights diverge; the
            model's ``info`` lists them under ``"separated"`` and says ``"converged": False``.
    """
    model_class = reward_kind(kind)
    config = feature_config or DEFAULT_FEATURES
    decisions = rollcall_decisions(data, countries, feature_config=config,
                                   reward_features=reward_features)  # fmt: skip
    began = time.perf_counter()
    model = model_class.fit(decisions, progress=progress, **settings)
    seconds = round(time.perf_counter() - began, 3)
    sessions = data.sessions
    votes = np.bincount(decisions.rows, minlength=len(decisions.countries))
    info = {"source": data.source, "sessions": [int(sessions[0]), int(sessions[-1])],
            "n_votes": dict(zip(decisions.countries, votes.tolist(), strict=True)),
            "fit_seconds": seconds, **model.info}  # fmt: skip
    layout = feature_names(config, history=data)
    return replace(model, feature_config=config, info=info, history=data, layout=layout)


def rollcall_decisions(
    data: RollCallData,
    countries: Sequence[str] | None = None,
    *,
    feature_config: FeatureConfig = DEFAULT_FEATURES,
    reward_features: Sequence[str] | None = None,
) -> Decisions:
    """Every vote of ``data`` as one decision, described as ``RollCall-v0`` describes it.

    Each session is described by the sessions before it; decisions are in country order,
    then roll-call order, with their ``rcids`` and ``sessions``. Arguments and errors as
    :func:`fit_reward_model`'s.
    """
    config = feature_config
    layout = feature_names(config, history=data)
    reward_features = tuple(reward_features) if reward_features is not None else layout
    unknown = [n for n in reward_features if n not in layout]
    if unknown:
        raise ValueError(f"unknown reward features {unknown[:3]}; the observation has {layout}")
    columns = np.array([layout.index(n) for n in reward_features], dtype=np.int64)
    if countries is None:
        voted = (data.votes != ABSENT).any(axis=1)
        countries = [c for c, v in zip(data.country_names, voted, strict=True) if v]
        if not countries:
            raise DataError(data.source, "no votes to learn from")
    else:
        countries = [data.country_names[data.country_index(c)] for c in countries]
        silent = [c for c in countries if not (data.votes[data.country_index(c)] != ABSENT).any()]
        if silent:
            raise DataError(
                data.source, f"no votes of {silent[0]!r} in these sessions", field="country"
            )
    demos = rollcall_demonstrations(data, countries, feature_config=config, with_infos=False)
    grouped: dict[str, list[Demonstration]] = {c: [] for c in countries}
    for demo in demos:
        if len(columns) != len(layout):
            demo = replace(demo, obs=demo.obs[:, columns])
        grouped[demo.country].append(demo)
    voted = [np.flatnonzero(data.votes[data.country_index(c)] != ABSENT) for c in countries]
    columns_voted = np.concatenate(voted)  # the order of the demonstrations' decisions
    return replace(
        demonstration_decisions(grouped, reward_features),
        rcids=data.roll_calls["rcid"].to_numpy(np.int64)[columns_voted],
        sessions=data.roll_calls["session"].to_numpy(np.int64)[columns_voted],
    )
