"""The roll-call spaces: linear IRL (``irl``), the neural reward (``neural-reward``), ``debate``.

All three are scored inside the training sessions only: the last sessions of the training
range validate (:func:`validation_split`); the sessions after it — the bench's and
``irl fit``'s test sessions — are never loaded into a sweep.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from assembly_gym.benchmarks.splits import TemporalSplit, eligible_countries
from assembly_gym.benchmarks.sweep.base import Param, Space, SweepSettings
from assembly_gym.core.errors import DataError
from assembly_gym.core.metrics import classification_metrics
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.observation import RollCallFeatures
from assembly_gym.envs.legislative.sources import roll_call_data
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, fit_reward_model

__all__ = [
    "DEBATE",
    "IRL",
    "NEURAL_REWARD",
    "ValidationSplit",
    "forecast_log_loss",
    "validation_split",
]

TRAIN_EPOCHS = 10
"""``debate train``'s default ``--max-epochs`` (TrainConfig's)."""


@dataclass(frozen=True)
class ValidationSplit:
    """Training sessions cut in two: fit on the earlier ones, score on the last ones.

    Attributes:
        train: the whole training range (``fit`` and ``validation``).
        fit: the roll calls and votes the trials fit on.
        validation: the last training sessions, scored as a forecast described by ``fit``.
        countries: the countries fitted and scored.
        quick: tiny sizes.
    """

    train: RollCallData
    fit: RollCallData
    validation: RollCallData
    countries: tuple[str, ...]
    quick: bool = False

    def describe(self) -> str:
        """One line: ``fit sessions 1–13, validation sessions 14–15 (40 countries)``."""
        fit, validation = self.fit.sessions, self.validation.sessions
        return (
            f"fit sessions {fit[0]}–{fit[-1]}, validation sessions {validation[0]}–"
            f"{validation[-1]} ({len(self.countries)} countries)"
        )


def validation_split(settings: SweepSettings) -> ValidationSplit:
    """The training sessions of ``settings``, cut into fit and validation sessions.

    Raises:
        DataError: too few sessions to cut, or countries that cast no vote in either part.
    """
    data = roll_call_data(settings.data)
    if settings.sessions is not None:
        train = data.select_sessions(*settings.sessions)
    else:
        train = TemporalSplit.of(data).train  # the bench's test sessions stay out
    sessions = train.sessions
    count = settings.validation_sessions or max(1, round(len(sessions) / 6))
    if len(sessions) < 2 or count >= len(sessions):
        raise DataError(
            data.source,
            f"{len(sessions)} training sessions cannot keep {count} for validation and fit on "
            "the rest",
        )
    split = TemporalSplit.of(train, int(sessions[-count - 1]))
    countries = eligible_countries(split, settings.countries)
    if settings.quick and settings.countries is None:
        countries = countries[:4]
    return ValidationSplit(train, split.train, split.test, tuple(countries), settings.quick)


def forecast_log_loss(model: Any, data: RollCallData, history: RollCallData) -> float:
    """Log-loss (nats) of a reward model's forecasts of ``data``'s votes, described by ``history``.

    Args:
        model: a :class:`~assembly_gym.irl.base.RewardModel` of any kind.
        data: the roll calls forecast, with the votes that score them.
        history: the votes known before them.
    """
    features = RollCallFeatures(data.roll_calls, history=history, config=model.feature_config)
    return _pooled_log_loss(
        data, model.countries,
        lambda country, rows: model.action_probs(country, features.for_country(country)[rows]),
    )  # fmt: skip


def _pooled_log_loss(data: RollCallData, countries: Any, probs_of: Any) -> float:
    """Log-loss over every vote cast in ``data`` by ``countries``; ``probs_of(country, rows)``."""
    y, probs = [], []
    for country in countries:
        row = data.votes[data.country_index(country)]
        cast = row != ABSENT
        if cast.any():
            probs.append(probs_of(country, cast))
            y.append(row[cast])
    return float(classification_metrics(np.concatenate(y), np.concatenate(probs))["log_loss"])


def _irl_iterations(config: Mapping[str, Any], seed: int, data: ValidationSplit) -> Iterator[float]:
    """One linear fit of every country (deterministic: ``seed`` changes nothing), its score."""
    model = fit_reward_model(
        data.fit, data.countries, kind="linear", l2=float(config["l2"]),
        shrinkage=config["shrinkage"], standard_errors=False,
    )  # fmt: skip
    yield forecast_log_loss(model, data.validation, data.fit)


IRL = Space(
    name="irl",
    params=(
        Param("l2", "log", 0.01, 1000.0),
        Param("shrinkage", "choice", choices=("none", "global")),
    ),
    command="irl fit",
    metric="validation log-loss",
    mode="min",
    prepare=validation_split,
    iterations=_irl_iterations,
    n_iterations=lambda settings: 1,
    summary="linear MaxEnt IRL's prior precision --l2 and --shrinkage (irl fit)",
    fixed={"kind": "linear"},
)

_NEURAL_EPOCHS, _NEURAL_CHUNK = 300, 30  # the bench's epochs; scored every 30
_QUICK_EPOCHS, _QUICK_CHUNK = 20, 5


def _neural_iterations(
    config: Mapping[str, Any], seed: int, data: ValidationSplit
) -> Iterator[float]:
    """Every country's reward network, trained in lockstep; the pooled score after each chunk.

    The network and its prior are those of the "neural" reward kind
    (:class:`~assembly_gym.irl.mlp.NeuralSettings`, the bench's ``maxent-irl (neural)``):
    weight decay in demonstrated decisions, so per step it is ``neural_weight_decay / steps``.
    """
    from threadpoolctl import threadpool_limits

    from assembly_gym.envs.legislative.demonstrations import Demonstration, rollcall_demonstrations
    from assembly_gym.irl.maxent import decision_problem
    from assembly_gym.irl.neural import NeuralReward

    epochs, chunk = (_QUICK_EPOCHS, _QUICK_CHUNK) if data.quick else (_NEURAL_EPOCHS, _NEURAL_CHUNK)
    features = RollCallFeatures(
        data.validation.roll_calls, history=data.fit, config=DEFAULT_FEATURES
    )
    demos = rollcall_demonstrations(data.fit, data.countries, feature_config=DEFAULT_FEATURES,
                                    with_infos=False)  # fmt: skip
    rewards, steps = {}, []
    for country in data.countries:
        obs, acts, masks = Demonstration.stack([d for d in demos if d.country == country])
        mdp, _, expert = decision_problem([obs], [acts], [masks])
        reward = NeuralReward(
            obs.shape[1], mdp.n_actions, (int(config["neural_width"]),),
            l2=float(config["neural_weight_decay"]) / expert.n_steps, epochs=epochs, seed=seed,
        )  # fmt: skip
        rewards[country] = reward
        steps.append(reward.steps(mdp, obs, expert))
    with threadpool_limits(limits=1):
        for done in range(1, epochs + 1):
            for each in steps:
                next(each)
            if done % chunk == 0:
                yield _pooled_log_loss(
                    data.validation, data.countries,
                    lambda c, rows: rewards[c].action_probs(features.for_country(c)[rows]),
                )  # fmt: skip


NEURAL_REWARD = Space(
    name="neural-reward",
    params=(
        Param("neural_width", "log_int", 4, 128),
        Param("neural_weight_decay", "log", 0.01, 1000.0),
    ),
    command="bench",
    metric="validation log-loss",
    mode="min",
    prepare=validation_split,
    iterations=_neural_iterations,
    n_iterations=lambda s: (
        _QUICK_EPOCHS // _QUICK_CHUNK if s.quick else _NEURAL_EPOCHS // _NEURAL_CHUNK
    ),  # fmt: skip
    summary="the neural MaxEnt IRL reward's --neural-width and --neural-weight-decay (bench)",
)


def _debate_iterations(
    config: Mapping[str, Any], seed: int, data: ValidationSplit
) -> Iterator[float]:
    """Debate training on the first country's training-session votes; the score per epoch.

    The trainer holds out its own seeded share (``seed``) of these observations, as
    ``debate train`` does; its validation log-loss after each epoch is the score (the epochs
    run, then are reported).
    """
    from assembly_gym.agents.debate.model import create_debate_model
    from assembly_gym.agents.debate.observations import rollcall_observations
    from assembly_gym.agents.debate.trainer import TrainConfig

    country = data.countries[0]
    model = create_debate_model(country, rollcall_observations(data.train, country))
    settings = TrainConfig(initial_lr=float(config["initial_lr"]),
                           lr_decay=float(config["lr_decay"]))  # fmt: skip
    history, _ = model.train(settings, seed=seed)
    for validation in history.validation_results:
        assert validation.action_log_loss is not None  # roll calls are labelled
        yield validation.action_log_loss


DEBATE = Space(
    name="debate",
    params=(Param("initial_lr", "log", 0.01, 1.0), Param("lr_decay", "uniform", 0.5, 1.0)),
    command="debate train",
    metric="validation log-loss",
    mode="min",
    prepare=validation_split,
    iterations=_debate_iterations,
    n_iterations=lambda settings: TRAIN_EPOCHS,
    summary="the debate allocator's --initial-lr and --lr-decay (debate train)",
)
