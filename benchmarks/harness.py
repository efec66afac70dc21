"""The evaluation harness: every agent fitted on the same past, scored on the same future.

:func:`evaluate` takes agent factories and a :class:`TemporalSplit`. For each country with
votes in both periods it builds the country's ``RollCall-v0`` demonstrations (training
sessions described by their own past, test sessions described only by the training votes —
a forecast), fits one agent per country and scores its predicted distributions on every
test vote. The result prints as one table beside the test period's class balance and the
chance level.

Example:
    >>> from benchmarks.harness import TemporalSplit, default_agents, evaluate
    >>> from envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=4)).data
    >>> result = evaluate(default_agents(), TemporalSplit.of(data, 3), progress=False)
    >>> sorted(result.table.columns)[:3]
    ['accuracy', 'agent', 'fit_seconds']
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from agents.base import Agent
from agents.baselines import (
    AlwaysYesAgent,
    IssueMajorityAgent,
    LogisticAgent,
    MajorityAgent,
    RandomAgent,
    SimilarVoteAgent,
)
from benchmarks.metrics import chance_metrics, classification_metrics
from envs.errors import DataError
from envs.legislative.data import ABSENT, RollCallData, Vote
from envs.legislative.demonstrations import Demonstration, group_by_country, rollcall_demonstrations
from envs.legislative.features import FeatureConfig, feature_names
from envs.legislative.spaces import ObservationLayout

__all__ = ["AgentFactory", "BenchmarkResult", "TemporalSplit", "default_agents", "evaluate"]

AgentFactory = Callable[[ObservationLayout], Agent]
"""Makes a fresh, unfitted agent for one country, given the env's observation layout."""


@dataclass(frozen=True)
class TemporalSplit:
    """Train on sessions up to ``last_train_session``, test on the sessions after it."""

    train: RollCallData
    test: RollCallData
    last_train_session: int

    @classmethod
    def of(cls, data: RollCallData, last_train_session: int | None = None) -> TemporalSplit:
        """Split data; the default trains on the first three quarters of its sessions."""
        sessions = data.sessions
        if len(sessions) < 2:
            raise DataError(data.source, "a temporal split needs at least two sessions")
        if last_train_session is None:
            last_train_session = int(sessions[max(int(len(sessions) * 0.75) - 1, 0)])
        if not sessions[0] <= last_train_session < sessions[-1]:
            raise DataError(
                data.source,
                f"last training session {last_train_session} leaves no training or no test "
                f"sessions (sessions {sessions[0]}–{sessions[-1]})",
            )
        train, test = data.temporal_split(last_train_session)
        return cls(train, test, last_train_session)

    def describe(self) -> str:
        """One line: which sessions train and which test."""
        train, test = self.train.sessions, self.test.sessions
        return (
            f"train sessions {train[0]}–{train[-1]} ({self.train.n_roll_calls} roll calls), "
            f"test sessions {test[0]}–{test[-1]} ({self.test.n_roll_calls} roll calls)"
        )


@dataclass
class BenchmarkResult:
    """Scores of every agent on one split.

    Attributes:
        table: one row per agent: accuracy, macro_f1, log_loss, n, fit and predict seconds.
        split: the split's description.
        class_balance: shares of yes/no/abstain among the test votes.
        countries: the countries evaluated.
        predictions: per agent, the test actions (N,) and predicted probabilities (N, 3).
    """

    table: pd.DataFrame
    split: str
    class_balance: dict[str, float]
    countries: tuple[str, ...]
    predictions: dict[str, tuple[np.ndarray, np.ndarray]] = field(repr=False, default_factory=dict)

    def to_markdown(self) -> str:
        """The table as Markdown, with the split, class balance and chance level."""
        chance = chance_metrics(len(Vote))
        balance = ", ".join(f"{k} {v:.1%}" for k, v in self.class_balance.items())
        shown = self.table.copy()
        for column in ("accuracy", "macro_f1", "log_loss"):
            shown[column] = shown[column].map(lambda v: f"{v:.3f}")
        for column in ("fit_seconds", "predict_seconds"):
            shown[column] = shown[column].map(lambda v: f"{v:.2f}")
        header = (
            f"Split: {self.split}; {len(self.countries)} countries.\n"
            f"Test class balance: {balance}. Chance: accuracy {chance['accuracy']:.3f}, "
            f"log-loss {chance['log_loss']:.3f}.\n\n"
        )
        return header + shown.to_markdown(index=False)


def default_agents() -> dict[str, AgentFactory]:
    """The baselines of the foundation, by name."""
    return {
        "random": lambda layout: RandomAgent(3, layout),
        "always-yes": lambda layout: AlwaysYesAgent(3, layout),
        "majority": lambda layout: MajorityAgent(3, layout),
        "issue-majority": lambda layout: IssueMajorityAgent(3, layout),
        "similar-vote": lambda layout: SimilarVoteAgent(3, layout),
        "logistic": lambda layout: LogisticAgent(3, layout),
    }


def evaluate(
    agents: Mapping[str, AgentFactory],
    split: TemporalSplit,
    *,
    countries: Sequence[str] | None = None,
    feature_config: FeatureConfig | None = None,
    progress: bool = True,
) -> BenchmarkResult:
    """Fit every agent per country on the training sessions and score it on the test sessions.

    Args:
        agents: name → factory.
        split: the temporal split.
        countries: which countries (default: all with votes in both periods).
        feature_config: observation features (default settings).
        progress: show a tqdm bar over agents.
    """
    config = feature_config or FeatureConfig()
    layout = ObservationLayout(feature_names(config))
    countries = _countries(split, countries)
    train = group_by_country(
        rollcall_demonstrations(split.train, countries, feature_config=config, with_infos=False)
    )
    test = group_by_country(
        rollcall_demonstrations(split.test, countries, history=split.train, feature_config=config,
                                with_infos=False)
    )  # fmt: skip
    rows, predictions = [], {}
    for name, factory in tqdm(agents.items(), desc="agents", disable=not progress):
        y_true, probs, fit_seconds, predict_seconds = _run_agent(
            factory, layout, countries, train, test
        )
        rows.append(
            {"agent": name, **classification_metrics(y_true, probs), "fit_seconds": fit_seconds,
             "predict_seconds": predict_seconds}
        )  # fmt: skip
        predictions[name] = (y_true, probs)
    test_votes = split.test.select_countries(countries)
    return BenchmarkResult(
        pd.DataFrame(rows),
        split.describe(),
        test_votes.class_balance(),
        tuple(countries),
        predictions,
    )


def _countries(split: TemporalSplit, countries: Sequence[str] | None) -> list[str]:
    if countries is not None:
        names = [split.train.country_names[split.train.country_index(c)] for c in countries]
        for data, period in ((split.train, "training"), (split.test, "test")):
            silent = [n for n in names if (data.votes[data.country_index(n)] == ABSENT).all()]
            if silent:
                raise DataError(
                    data.source,
                    f"{silent} cast no vote in the {period} sessions; leave them out",
                    field="country",
                )
        return names
    voted_train = (split.train.votes != ABSENT).any(axis=1)
    test_rows = {n: i for i, n in enumerate(split.test.country_names)}
    names = [
        name for name, voted in zip(split.train.country_names, voted_train, strict=True)
        if voted and name in test_rows and (split.test.votes[test_rows[name]] != ABSENT).any()
    ]  # fmt: skip
    if not names:
        raise DataError(
            split.train.source, "no country voted in both the training and test sessions"
        )
    return names


def _run_agent(
    factory: AgentFactory,
    layout: ObservationLayout,
    countries: Sequence[str],
    train: dict[str, list[Demonstration]],
    test: dict[str, list[Demonstration]],
) -> tuple[np.ndarray, np.ndarray, float, float]:
    y_true, probs = [], []
    fit_seconds = predict_seconds = 0.0
    for country in countries:
        start = time.perf_counter()
        agent = factory(layout).fit(train[country])
        fit_seconds += time.perf_counter() - start
        obs = np.concatenate([d.obs[:-1] for d in test[country]])
        masks = np.concatenate([d.masks for d in test[country]])
        start = time.perf_counter()
        probs.append(agent.action_probs(obs, masks))
        predict_seconds += time.perf_counter() - start
        y_true.append(np.concatenate([d.acts for d in test[country]]))
    return np.concatenate(y_true), np.concatenate(probs), fit_seconds, predict_seconds
