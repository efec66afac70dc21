"""The masked-vote suite: votes hidden inside observed roll calls, the classic ideal-point test.

A seeded 10% of the cast votes of all sessions are hidden
(:class:`~assembly_gym.benchmarks.splits.MaskedSplit`, seeded by ``--seed``); every agent is
fitted on the visible votes and forecasts the hidden ones. The data is the real votes by
default (``--data``: a path, or ``synthetic`` for the synthetic suite's assembly).

Observations are ``RollCall-v0``'s with the default reward's features
(:data:`~assembly_gym.irl.rollcall.DEFAULT_FEATURES`): each session described by the visible
votes of the sessions before it. A roll call's features do not depend on the votes cast on
it, so a hidden vote's observation is that of the visible votes' demonstrations. They
never read the other votes on the same roll call; the agents told which roll call each
hidden vote is from do (:class:`RollCallAgent`): ``ideal points``, the reference row
(dynamic ideal points, :mod:`assembly_gym.irl.ideal`: positions and cuts fitted on the
visible votes only, each hidden vote forecast by its own roll call's cut), its 1-D variant,
and ``roll-call shares`` (each roll call's visible vote shares).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import softmax

from assembly_gym.agents.base import Agent, BaseAgent
from assembly_gym.benchmarks.splits import MASKED_FRACTION, MaskedSplit
from assembly_gym.benchmarks.suites.base import AgentSpec, Options, Suite, Task
from assembly_gym.benchmarks.suites.catalog import baseline_specs, reward_spec
from assembly_gym.benchmarks.suites.rollcall import split_task, synthetic_assembly
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.data import RollCallData, Vote
from assembly_gym.envs.legislative.sources import roll_call_data
from assembly_gym.irl.ideal import IdealPointModel
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, DEFAULT_KIND, fit_reward_model

__all__ = [
    "MASKED",
    "SHARES_STRENGTH",
    "RollCallAgent",
    "ideal_points_spec",
    "roll_call_shares_spec",
]

SHARES_STRENGTH = 3.0
"""Pseudo-votes pulling a roll call's visible vote shares toward the overall balance."""

Forecast = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""(roll-call ids (N,), observations (N, d)) → action probabilities (N, A)."""


class RollCallAgent(BaseAgent):
    """An agent told the roll call of each decision it will be asked about.

    The harness asks for a country's held-out decisions at once, in the task's order; their
    roll calls are ``task.test_groups[country]``, aligned with them.

    Args:
        name: the name in the table.
        rcids: the roll call of each decision, (N,).
        forecast: (rcids (N,), obs (N, d)) → probabilities (N, A).
        layout: the observation names.
    """

    def __init__(self, name: str, rcids: np.ndarray, forecast: Forecast,
                 layout: ObservationLayout | None = None) -> None:  # fmt: skip
        super().__init__(len(Vote), layout)
        self.name, self.rcids, self.forecast = name, np.asarray(rcids), forecast

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        if len(obs) != len(self.rcids):
            raise ValueError(
                f"{self.name} knows the roll calls of {len(self.rcids)} decisions, not of "
                f"{len(obs)}: ask for the held-out decisions it was given"
            )
        return self.forecast(self.rcids, obs)


def _ideal_probs(model: IdealPointModel, country: str, rcids: np.ndarray,
                 obs: np.ndarray) -> np.ndarray:  # fmt: skip
    """Each vote by its own roll call's cut (one without visible votes: the nearest ones')."""
    rows = np.full(len(rcids), model.country_index(country))
    items, known = model.items_of(rcids)
    logits = np.empty((len(rcids), len(model.action_names)))
    if known.any():
        logits[known] = model.item_logits(rows[known], items[known])
    if not known.all():
        logits[~known] = model.logits(rows[~known], obs[~known])
    return softmax(logits, axis=1)


def ideal_points_spec(name: str = "ideal points", *, reference: bool = False,
                      **settings: Any) -> AgentSpec:  # fmt: skip
    """Dynamic ideal points fitted once on the visible votes, each vote by its roll call's cut.

    A hidden vote's probabilities are the softmax of its country's rewards on its own roll
    call; ``**settings`` are the kind's (e.g. ``dims``).
    """

    def fit(task: Task, countries: Sequence[str]) -> Mapping[str, Agent]:
        config = task.context["feature_config"]
        model = fit_reward_model(task.context["train_data"], kind="ideal",
                                 feature_config=config, **settings)  # fmt: skip
        assert isinstance(model, IdealPointModel)
        return {c: RollCallAgent(name, task.test_groups[c], partial(_ideal_probs, model, c),
                                 task.layout) for c in countries}  # fmt: skip

    return AgentSpec(name, fit, reference=reference, chunk=None)


def _roll_call_shares(data: RollCallData) -> pd.DataFrame:
    """Each roll call's yes/no/abstain shares, smoothed toward the overall balance, by rcid."""
    counts = np.stack([(data.votes == vote).sum(axis=0) for vote in Vote], axis=1)
    balance = counts.sum(axis=0) / max(counts.sum(), 1)
    shares = (counts + SHARES_STRENGTH * balance) / (counts.sum(axis=1, keepdims=True)
                                                     + SHARES_STRENGTH)  # fmt: skip
    return pd.DataFrame(shares, index=data.roll_calls["rcid"].to_numpy())


def _shares_probs(shares: pd.DataFrame, rcids: np.ndarray, obs: np.ndarray) -> np.ndarray:
    return shares.loc[rcids].to_numpy()


def roll_call_shares_spec() -> AgentSpec:
    """A strong simple baseline: the roll call's visible vote shares, for every country."""

    def fit(task: Task, countries: Sequence[str]) -> Mapping[str, Agent]:
        forecast = partial(_shares_probs, _roll_call_shares(task.context["train_data"]))
        return {c: RollCallAgent("roll-call shares", task.test_groups[c], forecast, task.layout)
                for c in countries}  # fmt: skip

    return AgentSpec("roll-call shares", fit, baseline=True, chunk=None)


def _masked_task(options: Options) -> Task:
    data = (synthetic_assembly(options.seed, options.quick).data if options.data == "synthetic"
            else roll_call_data(options.data or "unvotes"))  # fmt: skip
    return split_task("masked", MaskedSplit.of(data, options.seed), options,
                      countries=options.countries, feature_config=DEFAULT_FEATURES)  # fmt: skip


def _masked_agents(task: Task, options: Options) -> list[AgentSpec]:
    return [
        *baseline_specs(task), roll_call_shares_spec(), reward_spec(DEFAULT_KIND),
        ideal_points_spec("ideal points (1-D)", dims=1), ideal_points_spec(reference=True),
    ]  # fmt: skip


MASKED = Suite(
    "masked",
    f"RollCall-v0 votes hidden inside observed roll calls: {MASKED_FRACTION:.0%} of the cast "
    "votes of all sessions hidden (seeded), the rest seen. Every agent is fitted on the "
    "visible votes only (ideal points: the positions and cuts). Observations describe a roll "
    "call by the earlier sessions, so maxent-irl and the baselines do not read the other "
    "votes on the same roll call; ideal points and roll-call shares do",
    _masked_task,
    _masked_agents,
)
