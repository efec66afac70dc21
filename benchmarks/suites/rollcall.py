"""Roll-call suites: every agent forecasts held-out sessions of ``RollCall-v0``.

``synthetic``: the embedded synthetic assembly (planted rewards known, so the table adds the
expected true reward of each agent's votes and reward recovery); ``unvotes``: the real votes,
trained on sessions up to 60 and tested on 61–69 by default, described by the default
reward's features (:data:`~assembly_gym.irl.rollcall.DEFAULT_FEATURES`). Test observations
are computed from the training votes only: a forecast. In both, the default reward
(:func:`~assembly_gym.benchmarks.suites.catalog.default_reward_spec`, named after
:data:`~assembly_gym.irl.rollcall.DEFAULT_KIND`) is the reference row: every other row is
tested against it on accuracy, macro-F1 and log-loss; the trees, linear, neural and ideal
(dynamic ideal points, :func:`~assembly_gym.benchmarks.suites.catalog.ideal_spec`) kinds
have rows of their own. imitation's MCE-IRL runs in ``synthetic`` only
(its dense (S, A, S) tensor of a real country's ~4,800 training roll calls would take about
9 GB), and ``synthetic`` keeps to about a minute on 2 cores by giving the slow learners
budgets that leave their scores where the full runs put them (docs/irl_agents.md).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace

from assembly_gym.benchmarks.splits import MaskedSplit, TemporalSplit, eligible_countries
from assembly_gym.benchmarks.suites.base import AgentSpec, Options, Suite, Task, Truth
from assembly_gym.benchmarks.suites.catalog import (
    baseline_specs,
    bc_spec,
    debate_spec,
    default_reward_spec,
    ideal_spec,
    mce_irl_spec,
    neural_reward_spec,
    planted_spec,
    reward_spec,
)
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.data import RollCallData, Vote
from assembly_gym.envs.legislative.demonstrations import group_by_country, rollcall_demonstrations
from assembly_gym.envs.legislative.observation import FeatureConfig, feature_names
from assembly_gym.envs.legislative.sources import default_last_train_session, roll_call_data
from assembly_gym.envs.legislative.synthetic import (
    SyntheticAssembly,
    SyntheticConfig,
    generate_assembly,
)
from assembly_gym.irl.linear import DEFAULT_L2
from assembly_gym.irl.rollcall import DEFAULT_FEATURES

__all__ = ["SYNTHETIC", "UNVOTES", "rollcall_task", "split_task", "synthetic_assembly"]

ACTIONS = tuple(v.name.lower() for v in Vote)


def rollcall_task(
    name: str, data: RollCallData, options: Options, *, last_train_session: int | None,
    truth: Truth | None = None, feature_config: FeatureConfig | None = None,
) -> Task:  # fmt: skip
    """The task of a roll-call suite: per-country demonstrations of a temporal split."""
    split = TemporalSplit.of(data, options.last_train_session or last_train_session)
    return split_task(name, split, options, countries=options.countries, truth=truth,
                      feature_config=feature_config)  # fmt: skip


def split_task(
    name: str, split: TemporalSplit | MaskedSplit, options: Options, *,
    countries: Sequence[str] | None = None, truth: Truth | None = None,
    feature_config: FeatureConfig | None = None,
) -> Task:  # fmt: skip
    """A roll-call task from a split.

    Training sessions are described by their own past, test decisions by the training votes
    only (a forecast). The task's context holds the training data (``train_data``) and the
    feature settings (``feature_config``).
    """
    config = feature_config or FeatureConfig()
    countries = eligible_countries(split, countries)
    train = rollcall_demonstrations(split.train, countries, feature_config=config, with_infos=False)
    test = rollcall_demonstrations(
        split.test, countries, history=split.train, feature_config=config, with_infos=False
    )
    rcid = split.test.roll_calls["rcid"].to_numpy()
    groups = {}
    for country in countries:
        voted = split.test.votes[split.test.country_index(country)] >= 0
        groups[country] = rcid[voted]  # demonstrations list the votes in this same order
    layout = ObservationLayout(feature_names(config, history=split.train))
    return Task(
        name, "assembly/RollCall-v0", layout, ACTIONS,
        group_by_country(train), group_by_country(test), groups, split.describe(),
        split.train.source, options.seed, truth,
        {"train_data": split.train, "feature_config": config},
    )  # fmt: skip


@functools.lru_cache(maxsize=2)
def synthetic_assembly(seed: int, quick: bool) -> SyntheticAssembly:
    """The synthetic suites' assembly (``quick``: 8 countries, 6 sessions), once per process."""
    config = SyntheticConfig(seed=seed)
    return generate_assembly(replace(config, n_countries=8, n_sessions=6) if quick else config)


def _synthetic_task(options: Options) -> Task:
    assembly = synthetic_assembly(options.seed, options.quick)
    names = assembly.data.country_names
    truth = Truth(assembly.feature_map, {c: assembly.theta[i] for i, c in enumerate(names)})
    return rollcall_task("synthetic", assembly.data, options, last_train_session=None, truth=truth)


def _synthetic_agents(task: Task, options: Options) -> list[AgentSpec]:
    mce_irl = (
        mce_irl_spec(task, max_countries=2, max_decisions=100, max_iter=300)
        if options.quick
        else mce_irl_spec(task, max_countries=10, max_decisions=200, max_iter=200)
    )
    return [
        *baseline_specs(task), default_reward_spec(), reward_spec("trees"),
        reward_spec("linear", standard_errors=False), neural_reward_spec(options, epochs=100),
        ideal_spec(), mce_irl, debate_spec(task), bc_spec(task, max_countries=10),
        planted_spec(task, synthetic_assembly(options.seed, options.quick)),
    ]  # fmt: skip


def _unvotes_task(options: Options) -> Task:
    data = roll_call_data(options.data or "unvotes")
    default = default_last_train_session(data.sessions)  # as the envs' split="train"
    return rollcall_task("unvotes", data, options, last_train_session=default,
                         feature_config=DEFAULT_FEATURES)  # fmt: skip


def _unvotes_agents(task: Task, options: Options) -> list[AgentSpec]:
    # imitation's BC costs about a second per country: a fixed subset keeps the suite short.
    return [
        *baseline_specs(task),
        default_reward_spec(),
        reward_spec("trees"),
        reward_spec("linear", l2=DEFAULT_L2, standard_errors=False),
        neural_reward_spec(options),
        ideal_spec(),
        debate_spec(task),
        bc_spec(task, max_countries=40),
    ]


SYNTHETIC = Suite(
    "synthetic",
    "RollCall-v0 on the embedded synthetic assembly (planted rewards known)",
    _synthetic_task,
    _synthetic_agents,
)
UNVOTES = Suite(
    "unvotes",
    "RollCall-v0 on the real UN votes: a temporal forecast of later sessions",
    _unvotes_task,
    _unvotes_agents,
)
