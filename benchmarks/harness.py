"""The evaluation harness in one call: agents fitted on earlier sessions, scored on later ones.

:func:`evaluate` runs ``RollCall-v0`` agents (any :class:`~assembly_gym.agents.base.Agent`,
made by a factory that receives the env's observation layout) as an ad-hoc suite of
:mod:`assembly_gym.benchmarks.suites`: the scores, intervals and paired tests of
``assembly-gym bench``, test sessions described only by the training votes (a forecast).

Example:
    >>> from assembly_gym.benchmarks.harness import TemporalSplit, default_agents, evaluate
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=4)).data
    >>> result = evaluate(default_agents(), TemporalSplit.of(data, 3), progress=False)
    >>> sorted(result.table.columns)[:4]  # the score, its interval, the paired test
    ['accuracy', 'accuracy_ci', 'accuracy_diff', 'accuracy_p']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from assembly_gym.agents.base import Agent
from assembly_gym.agents.baselines import (
    AlwaysYesAgent,
    IssueMajorityAgent,
    LogisticAgent,
    MajorityAgent,
    RandomAgent,
    SimilarVoteAgent,
)
from assembly_gym.benchmarks.splits import TemporalSplit, eligible_countries
from assembly_gym.benchmarks.suites.base import (
    AgentSpec,
    Options,
    Suite,
    SuiteResult,
    Task,
    per_country,
    run_suite,
)
from assembly_gym.benchmarks.suites.rollcall import split_task
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.observation import FeatureConfig

__all__ = [
    "fold_summary",
    "AgentFactory",
    "TemporalSplit",
    "default_agents",
    "eligible_countries",
    "evaluate",
]

AgentFactory = Callable[[ObservationLayout], Agent]
"""Makes a fresh, unfitted agent for one country, given the env's observation layout."""


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
    baselines: Sequence[str] = tuple(default_agents()),
    reference: str | None = None,
    n_bootstrap: int = 200,
    seed: int = 0,
    progress: bool = True,
) -> SuiteResult:
    """Fit every agent per country on the training sessions and score it on the test sessions.

    Args:
        agents: name → factory.
        split: the temporal split.
        countries: which countries (default: all with votes in both periods).
        feature_config: observation features (default settings).
        baselines: which of the agents count as baselines.
        reference: the agent every other is tested against on accuracy, macro-F1 and
            log-loss (paired bootstrap over roll calls); None: the baseline of lowest log-loss.
        n_bootstrap: bootstrap resamples over roll calls for the 95% intervals.
        seed: seed of the bootstrap.
        progress: show a tqdm bar over agents.
    """
    task = split_task("evaluate", split, Options(seed=seed), countries=countries,
                      feature_config=feature_config)  # fmt: skip
    specs = tuple(
        AgentSpec(name, per_country(_with_layout(make)), baseline=name in baselines,
                  reference=name == reference)  # fmt: skip
        for name, make in agents.items()
    )
    suite = Suite("evaluate", "agents on a temporal split", lambda options: task,
                  lambda task, options: specs)  # fmt: skip
    return run_suite(suite, Options(seed=seed, n_bootstrap=n_bootstrap), progress=progress)


def _with_layout(make: AgentFactory) -> Callable[[Task], Agent]:
    """An agent maker of a task: ``make`` called with the task's layout."""
    return lambda task: make(task.layout)


def fold_summary(results: Sequence[SuiteResult], metrics: Sequence[str]) -> pd.DataFrame:
    """Mean and spread (sample sd) of every agent's metrics across cross-validation folds.

    Args:
        results: one result per fold, of the same suite.
        metrics: the metric columns to summarise (e.g. the suite's ``metrics``).

    Returns:
        One row per agent (in the first fold's order): ``<metric>_mean``, ``<metric>_sd``
        and ``folds`` (how many folds scored it).
    """
    tables = pd.concat([r.table for r in results], ignore_index=True)
    values = tables.reindex(columns=list(metrics)).apply(pd.to_numeric, errors="coerce")
    grouped = values.groupby(tables["agent"].to_numpy(), sort=False)
    mean, sd = grouped.mean().add_suffix("_mean"), grouped.std(ddof=1).add_suffix("_sd")
    columns = [f"{metric}_{kind}" for metric in metrics for kind in ("mean", "sd")]
    summary = mean.join(sd)[columns].rename_axis("agent").reset_index()
    return summary.assign(folds=grouped[metrics[0]].count().to_numpy())
