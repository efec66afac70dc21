"""What a benchmark suite is, and how one runs.

A :class:`Suite` is declarative: a name, a task builder (data, split, env), the agents and
the metrics. :func:`run_suite` builds the :class:`Task` (every agent sees the same training
demonstrations and is scored on the same held-out decisions), splits the work into (agent,
countries) :class:`Unit` descriptors for an :class:`~assembly_gym.benchmarks.executor.Executor`
and scores the predictions. A worker that did not get the task rebuilds it from the unit
(cached per process), so every executor runs the suites unchanged. Suites not scored by
class labels supply a ``runner`` (:mod:`assembly_gym.benchmarks.suites.episodic`).
"""

from __future__ import annotations

import functools
import importlib.util
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, ParamSpec, TypeVar

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from assembly_gym.agents.base import Agent, EpisodicAgent
from assembly_gym.benchmarks.executor import Executor, UnitFailure, run_units
from assembly_gym.benchmarks.options import Options
from assembly_gym.benchmarks.statistics import (
    bootstrap_intervals,
    calibration_curve,
    paired_bootstrap_tests,
)
from assembly_gym.benchmarks.suites.figures import learned_figures, learned_parameters
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.metrics import GroupedScores
from assembly_gym.envs.legislative.demonstrations import Demonstration
from assembly_gym.envs.legislative.rewards import FeatureMap

__all__ = [
    "PAIRED_METRICS",
    "AgentSpec",
    "CommonSubset",
    "Options",
    "Suite",
    "SuiteResult",
    "Task",
    "Truth",
    "Unit",
    "build_task",
    "per_country",
    "run_suite",
    "single_threaded",
]

P = ParamSpec("P")
R = TypeVar("R")
TaskT = TypeVar("TaskT")

FitFn = Callable[["Task", Sequence[str]], Mapping[str, Agent]]
"""Fits an agent for each of the given countries on the task's training demonstrations."""
PAIRED_METRICS = ("accuracy", "macro_f1", "log_loss")
"""The metrics on which every row is tested against the reference row (paired bootstrap)."""
_LOWER_IS_BETTER = {"log_loss"}


def single_threaded(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run on one thread (BLAS, and torch's OpenMP; restored after).

    For small networks: on the busy 2-core reference machine, torch's second thread made
    imitation's BC about 4× slower, and the memory suite's LeWorld and PPO many times slower.
    """

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with threadpool_limits(limits=1):
            return function(*args, **kwargs)

    return run


@dataclass(frozen=True)
class Truth:
    """The planted rewards of a synthetic task: r_c(s, a) = θ_c·φ(s, a)."""

    feature_map: FeatureMap
    theta: Mapping[str, np.ndarray]

    def rewards(self, country: str, obs: np.ndarray) -> np.ndarray:
        """Planted reward of every action, (N, d) → (N, A)."""
        return self.feature_map(obs) @ np.reshape(self.theta[country], -1)


@dataclass(frozen=True)
class Task:
    """What every agent of a suite is fitted on and scored on.

    Attributes:
        name: the suite's name.
        env_id: the Gymnasium id the demonstrations come from.
        layout: observation names.
        action_names: action names, in index order.
        train: training demonstrations per country.
        test: held-out demonstrations per country (same countries, same order).
        test_groups: per country, the group (roll call or resolution id) of each held-out
            decision, for the bootstrap over roll calls.
        split: a one-line description of the split.
        source: where the data came from.
        seed: the run's seed.
        truth: the planted rewards (synthetic tasks), else None.
        context: extra inputs some agents need (e.g. the training data or records).
    """

    name: str
    env_id: str
    layout: ObservationLayout
    action_names: tuple[str, ...]
    train: Mapping[str, Sequence[Demonstration]]
    test: Mapping[str, Sequence[Demonstration]]
    test_groups: Mapping[str, np.ndarray]
    split: str
    source: str = ""
    seed: int = 0
    truth: Truth | None = None
    context: Mapping[str, Any] = field(default_factory=dict)

    @property
    def n_actions(self) -> int:
        """Number of actions A."""
        return len(self.action_names)

    @property
    def countries(self) -> tuple[str, ...]:
        """The evaluated countries, in order."""
        return tuple(self.test)

    def test_arrays(self, country: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A country's held-out decisions: observations (N, d), actions (N,), masks (N, A)."""
        return Demonstration.stack(self.test[country])


@dataclass(frozen=True)
class AgentSpec:
    """An agent of a suite.

    Attributes:
        name: the name in the table.
        fit: fits one agent per country (per country, or all at once for batched learners).
        baseline: whether it is a simple baseline (without a ``reference`` agent, the paired
            tests compare every agent with the best baseline by log-loss).
        reference: whether it is the row every other row is tested against (paired tests on
            :data:`PAIRED_METRICS`), e.g. the bench's default reward; at most one per suite.
        max_countries: run on the suite's first k countries only (for expensive learners);
            its row says so and its paired test uses the same countries.
        chunk: countries per work unit (None: all in one unit, e.g. batched learners).
        requires: the optional package it needs, which is also the name of the extra that
            installs it (e.g. ``"imitation"``); where that package is missing the agent is
            left out and the report says which ``pip install`` adds it.
        budget: the compute budget it runs under, in words (e.g. ``"100 epochs"``), shown in
            the table's ``budget`` column; None for a learner run to convergence.
    """

    name: str
    fit: FitFn
    baseline: bool = False
    reference: bool = False
    max_countries: int | None = None
    chunk: int | None = 16
    requires: str | None = None
    budget: str | None = None

    @property
    def missing(self) -> str | None:
        """Why the agent cannot run here (its optional package is absent), else None."""
        if self.requires is None or importlib.util.find_spec(self.requires) is not None:
            return None
        return f"needs `pip install 'assembly-gym[{self.requires}]'`"


def per_country(make: Callable[[Task], Agent]) -> FitFn:
    """A fit function that makes and fits one fresh agent per country."""

    def fit(task: Task, countries: Sequence[str]) -> dict[str, Agent]:
        return {country: make(task).fit(task.train[country]) for country in countries}

    return fit


Runner = Callable[["Suite[Any]", Options, Executor | None, bool], "SuiteResult"]
"""Runs a suite that is not scored by class labels: (suite, options, executor, progress)."""


@dataclass(frozen=True)
class Suite(Generic[TaskT]):
    """A benchmark suite: data and split (the task), agents, metrics.

    Attributes:
        name: short name (``--suite NAME``).
        description: one line for the report.
        make_task: builds the task from the run's options (a :class:`Task`, or whatever
            the suite's ``runner`` expects).
        agents: the agents, given the task (some need its truth or context):
            :class:`AgentSpec` objects, or the
            :class:`~assembly_gym.agents.base.EpisodicAgent` objects the ``runner`` plays.
        metrics: the metrics shown (a subset of :data:`assembly_gym.core.metrics.METRICS`, or
            the ``runner``'s).
        runner: None for suites scored by class labels (:func:`run_suite` fits, predicts and
            scores the task's held-out decisions); else the suite runs itself, e.g. an
            :class:`~assembly_gym.benchmarks.suites.episodic.EpisodicRunner` scoring held-out
            episodes.
    """

    name: str
    description: str
    make_task: Callable[[Options], TaskT]
    agents: Callable[[TaskT, Options], Sequence[AgentSpec | EpisodicAgent]]
    metrics: tuple[str, ...] = ("accuracy", "macro_f1", "log_loss", "brier", "ece")
    runner: Runner | None = None


@dataclass(frozen=True)
class CommonSubset:
    """Every scored agent re-scored on the countries all of them ran on (like for like).

    Attributes:
        countries: the countries every scored agent ran on, in task order (empty: none).
        n: their held-out decisions.
        table: one row per scored agent, the main table's columns, scored on these countries
            only (intervals, and the paired tests against the reference on them); no rows
            where no country is common.
    """

    countries: tuple[str, ...]
    n: int
    table: pd.DataFrame

    @property
    def caption(self) -> str:
        """One line naming the subset, e.g. ``Common subset: 3 countries …, 1,800 decisions``."""
        if not self.countries:
            return "Common subset: no country that every agent ran on, so no common table"
        k = len(self.countries)
        return (
            f"Common subset: {k} {'country' if k == 1 else 'countries'} every agent ran on, "
            f"{self.n:,} decisions"
        )


@dataclass
class SuiteResult:
    """Scores of every agent of one suite.

    Attributes:
        suite: the suite's name.
        description: its description.
        split: the split's description.
        source: where the data came from.
        countries: the evaluated countries.
        class_balance: action shares among the held-out decisions.
        chance_log_loss: log-loss of a uniform guess among each decision's valid actions.
        table: one row per agent: metrics, 95% intervals (``<metric>_ci``), the paired tests
            against the reference row (``reference``; ``<metric>_diff`` and ``<metric>_p`` of
            :data:`PAIRED_METRICS`), extra columns, timings, countries and decisions used.
        calibration: per agent, the reliability curve (confidence, accuracy, count).
        predictions: per agent, the held-out actions (N,) and predicted probabilities (N, A).
        skipped: agents that could not run here, with the reason (a missing optional extra).
        extras: anything the suite adds for plots (e.g. learned reward weights).
        header: the text above the table (None: the split, class balance and chance level).
        plot_metrics: the metrics of the report's bar plots.
        common: where the scored agents ran on different countries, every one of them
            re-scored on the countries all of them ran on; else None.
    """

    suite: str
    description: str
    split: str
    source: str
    countries: tuple[str, ...]
    class_balance: dict[str, float]
    chance_log_loss: float
    table: pd.DataFrame
    calibration: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    predictions: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)
    skipped: dict[str, str] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    header: str | None = None
    plot_metrics: tuple[str, ...] = ("accuracy", "macro_f1", "log_loss")
    common: CommonSubset | None = None

    def tables(self) -> list[tuple[str, pd.DataFrame]]:
        """(caption, table) of the main table, then of :attr:`common` where there is one."""
        if self.common is None:
            return [("Held-out scores of every agent", self.table)]
        return [
            ("Held-out scores of every agent; some ran on fewer countries (column countries): "
             "the next table scores every agent on the countries all of them ran on", self.table),
            (self.common.caption, self.common.table),
        ]  # fmt: skip

    def header_text(self) -> str:
        """The text above the tables (default: split, balance and chance); lines, no Markdown."""
        fewer = ""
        if self.common is not None:
            fewer = (
                "\nSome agents ran on fewer countries (column countries): the second table "
                "scores every agent on the countries all of them ran on."
            )
        if self.header is not None:
            return self.header + fewer
        balance = ", ".join(f"{k} {v:.1%}" for k, v in self.class_balance.items())
        reference = self.table["reference"].iloc[0] if "reference" in self.table else None
        return (
            f"{self.description}. Data: {self.source}.\n"
            f"Split: {self.split}; {len(self.countries)} countries.\n"
            f"Held-out class balance: {balance}. Chance (uniform over valid actions): "
            f"log-loss {self.chance_log_loss:.3f}."
            " In brackets: 95% bootstrap intervals over roll calls."
            + (f"\nΔ: the row minus {reference} (the reference row) in accuracy, macro-F1 and "
               "log-loss, on the countries both ran on; (p …): its two-sided paired bootstrap "
               f"p-value over roll calls.\n{_standing(self.table, reference)}"
               if reference else "")
            + fewer
        )  # fmt: skip

    def not_run(self) -> list[str]:
        """One sentence per agent that could not run here, with the reason."""
        return [f"Not run: {name} ({why})." for name, why in self.skipped.items()]

    def to_markdown(self) -> str:
        """The tables as Markdown under :meth:`header_text`, then :meth:`not_run`."""
        from assembly_gym.benchmarks.report import markdown_table

        parts = [self.header_text(), markdown_table(self.table)]
        if self.common is not None:
            parts.append(f"{self.common.caption}.")
            if len(self.common.table):
                parts.append(markdown_table(self.common.table))
        return "\n\n".join([*parts, *self.not_run()])


def _standing(table: pd.DataFrame, reference: str) -> str:
    """Per paired metric, whether the reference row is ahead of every other row, and how surely.

    E.g. ``maxent-irl (mixture) against every other row: accuracy ahead (p < 0.05); macro-F1
    ahead, not surely (p ≥ 0.05) of logistic; log-loss not ahead of planted (oracle).``
    """
    others, parts = table[table["agent"] != reference], []
    for metric in PAIRED_METRICS:
        if f"{metric}_diff" not in others:
            continue
        gain = others[f"{metric}_diff"] * (-1.0 if metric in _LOWER_IS_BETTER else 1.0)
        label = metric.replace("macro_f1", "macro-F1").replace("log_loss", "log-loss")
        level, unsure = gain >= 0, (gain < 0) & (others[f"{metric}_p"] >= 0.05)
        if level.any():
            parts.append(f"{label} not ahead of {', '.join(others.loc[level, 'agent'])}")
        elif unsure.any():
            rows = ", ".join(others.loc[unsure, "agent"])
            parts.append(f"{label} ahead, not surely (p ≥ 0.05) of {rows}")
        else:
            parts.append(f"{label} ahead (p < 0.05)")
    return f"{reference} against every other row: {'; '.join(parts)}."


@dataclass
class _Predictions:
    """One agent's predictions on (a subset of) the task's countries, in task order."""

    countries: tuple[str, ...]
    probs: dict[str, np.ndarray]
    fit_seconds: float
    predict_seconds: float
    rewards: dict[str, np.ndarray] = field(default_factory=dict)
    learned: dict[str, dict[str, Any]] = field(default_factory=dict)


def build_task(suite: Suite, options: Options) -> Task:
    """The suite's task, built once per process (workers rebuild it from the descriptor)."""
    return _cached_task(suite.make_task, options)


@functools.lru_cache(maxsize=4)
def _cached_task(make_task: Callable[[Options], Task], options: Options) -> Task:
    return make_task(options)


@dataclass(frozen=True)
class Unit:
    """A work unit: a descriptor small enough to send to any worker.

    Attributes:
        suite: the suite.
        options: the run's settings.
        agent: the agent's name.
        countries: the countries it is fitted and scored on (empty: the task decides, e.g.
            an episodic agent's held-out episodes).
    """

    suite: Suite
    options: Options
    agent: str
    countries: tuple[str, ...] = ()

    def __str__(self) -> str:
        """A few words: the agent and its countries, e.g. ``majority × 16 countries (A … P)``."""
        if not self.countries:
            return self.agent
        if len(self.countries) == 1:
            return f"{self.agent} × {self.countries[0]}"
        span = f"{self.countries[0]} … {self.countries[-1]}"
        return f"{self.agent} × {len(self.countries)} countries ({span})"

    def task(self, shared: Any) -> Any:
        """The suite's task: ``shared`` where the executor sent it, else rebuilt (cached)."""
        return shared if shared is not None else build_task(self.suite, self.options)


def _run_unit(unit: Unit, task: Task | None = None) -> _Predictions:
    """Fit one agent on the unit's countries and predict their held-out decisions."""
    task = unit.task(task)
    spec = {s.name: s for s in _agent_specs(unit.suite, task, unit.options)}[unit.agent]
    countries = unit.countries
    start = time.perf_counter()
    agents = spec.fit(task, countries)
    fit_seconds = time.perf_counter() - start
    probs, rewards, predict_seconds = {}, {}, 0.0
    for country in countries:
        obs, _, masks = task.test_arrays(country)
        start = time.perf_counter()
        probs[country] = np.asarray(agents[country].action_probs(obs, masks), dtype=np.float64)
        predict_seconds += time.perf_counter() - start
        reward = getattr(agents[country], "reward_matrix", None)
        if reward is not None:
            rewards[country] = np.asarray(reward(obs), dtype=np.float64)
    learned = {c: found for c in countries if (found := learned_parameters(agents[c]))}
    return _Predictions(tuple(countries), probs, fit_seconds, predict_seconds, rewards, learned)


def _agent_specs(suite: Suite, task: Task, options: Options) -> list[AgentSpec]:
    """The agents of a suite without a runner: :class:`AgentSpec` objects of distinct names.

    Raises:
        TypeError: another kind of agent; ValueError: two agents of one name.
    """
    agents = suite.agents(task, options)
    specs = [a for a in agents if isinstance(a, AgentSpec)]
    if len(specs) < len(agents):
        raise TypeError(f"suite {suite.name!r} has no runner: its agents must be AgentSpec objects")
    names = [spec.name for spec in specs]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"suite {suite.name!r} has two agents named {twice[0]!r}")
    return specs


def _units(suite: Suite, task: Task, options: Options) -> list[Unit]:
    units = []
    for spec in _agent_specs(suite, task, options):
        if spec.missing:
            continue
        countries = task.countries[: spec.max_countries] if spec.max_countries else task.countries
        size = spec.chunk or len(countries)
        for start in range(0, len(countries), size):
            units.append(Unit(suite, options, spec.name, tuple(countries[start : start + size])))
    return units


def run_suite(
    suite: Suite,
    options: Options = Options(),  # noqa: B008 (frozen, so a shared default is safe)
    *,
    executor: Executor | None = None,
    progress: bool = True,
) -> SuiteResult:
    """Fit and score every agent of a suite on its task (or hand the suite to its runner).

    Args:
        suite: the suite.
        options: the run's settings.
        executor: where the work units run (default: sequentially in this process).
        progress: show a tqdm bar over work units (agents × country chunks).

    Returns:
        The scores; an agent with a unit the executor gave up on (a
        :class:`~assembly_gym.benchmarks.executor.UnitFailure`) has a row with no scores and
        a ``note`` column naming the failure, and the other agents are scored as usual.
    """
    if suite.runner is not None:
        return suite.runner(suite, options, executor, progress)
    task = build_task(suite, options)
    units = _units(suite, task, options)
    outputs = run_units(
        _run_unit, units, executor, shared=task, desc=f"{suite.name}: agents × folds",
        progress=progress,
    )  # fmt: skip
    merged: dict[str, _Predictions] = {}
    failed: dict[str, UnitFailure] = {}
    for unit, output in zip(units, outputs, strict=True):
        if isinstance(output, UnitFailure):
            failed.setdefault(unit.agent, output)  # the first of its failed units
            continue
        part = merged.setdefault(unit.agent, _Predictions((), {}, 0.0, 0.0, {}))
        part.countries += output.countries
        part.probs.update(output.probs)
        part.rewards.update(output.rewards)
        part.learned.update(output.learned)
        part.fit_seconds += output.fit_seconds
        part.predict_seconds += output.predict_seconds
    for name in failed:  # not scored on the countries of its other units
        merged.pop(name, None)
    rows = {name: _failed_row(task, units, name, failure) for name, failure in failed.items()}
    return _score(suite, task, options, merged, rows)


def _failed_row(task: Task, units: Sequence[Unit], agent: str, failure: UnitFailure) -> dict:
    """The table row of an agent with a failed unit: its countries, no scores, the failure."""
    countries = [c for unit in units if unit.agent == agent for c in unit.countries]
    n = sum(len(task.test_arrays(country)[1]) for country in countries)
    return {"agent": agent, "countries": len(countries), "n": n, "note": str(failure)}


def _score(
    suite: Suite, task: Task, options: Options, predictions: dict[str, _Predictions],
    failed: Mapping[str, dict[str, Any]],
) -> SuiteResult:  # fmt: skip
    """Score every agent's predictions; an agent in ``failed`` gets its row, unscored."""
    rng = np.random.default_rng(options.seed)
    specs = {s.name: s for s in _agent_specs(suite, task, options)}
    table = _with_failed(_rows(suite, task, options, specs, predictions, rng), failed,
                         order=list(specs))  # fmt: skip
    _paired_tests(table, specs, predictions, task, rng, options.n_bootstrap)
    common = _common_subset(suite, task, options, specs, predictions, rng)
    y_all = np.concatenate([task.test_arrays(c)[1] for c in task.countries])
    balance = np.bincount(y_all, minlength=task.n_actions) / len(y_all)
    masks = np.concatenate([task.test_arrays(c)[2] for c in task.countries])
    chance = float(np.log(masks.sum(axis=1)).mean())
    calibration, stacked = {}, {}
    for name, prediction in predictions.items():
        y, probs, _ = _stack(task, prediction)
        calibration[name] = calibration_curve(y, probs)
        stacked[name] = (y, probs)
    return SuiteResult(
        suite.name, suite.description, task.split, task.source, task.countries,
        {a: float(b) for a, b in zip(task.action_names, balance, strict=True) if b > 0},
        chance, table, calibration, stacked,
        skipped={s.name: s.missing for s in specs.values() if s.missing},
        extras={"figures": learned_figures(
            {name: p.learned for name, p in predictions.items()},
            task.layout.names, task.action_names,
        )},
        common=common,
    )  # fmt: skip


def _rows(
    suite: Suite, task: Task, options: Options, specs: Mapping[str, AgentSpec],
    predictions: Mapping[str, _Predictions], rng: np.random.Generator,
) -> list[dict[str, Any]]:  # fmt: skip
    """One table row per scored agent: metrics, 95% intervals, truth columns, timings."""
    rows = []
    for name, prediction in predictions.items():
        y, probs, groups = _stack(task, prediction)
        scores = GroupedScores.from_predictions(y, probs, groups)
        point = {k: float(v[0]) for k, v in scores.metrics().items()}
        intervals = bootstrap_intervals(scores, options.n_bootstrap, rng)
        row: dict[str, Any] = {"agent": name}
        if any(spec.budget for spec in specs.values()):
            row["budget"] = specs[name].budget or ""
        for metric in suite.metrics:
            row[metric], row[f"{metric}_ci"] = point[metric], intervals[metric]
        if task.truth is not None:
            row.update(_truth_columns(task, task.truth, prediction))
        row.update(
            countries=len(prediction.countries), n=len(y),
            fit_seconds=prediction.fit_seconds, predict_seconds=prediction.predict_seconds,
        )  # fmt: skip
        rows.append(row)
    return rows


def _common_subset(
    suite: Suite, task: Task, options: Options, specs: Mapping[str, AgentSpec],
    predictions: Mapping[str, _Predictions], rng: np.random.Generator,
) -> CommonSubset | None:  # fmt: skip
    """Every scored agent re-scored on the countries all of them ran on (None: all ran on the same).

    The paired tests run on them (a best baseline as reference is picked on them); no rows
    where no country is common.
    """
    if len({frozenset(p.countries) for p in predictions.values()}) <= 1:
        return None
    countries = tuple(c for c in task.countries if all(c in p.probs for p in predictions.values()))
    restricted = {name: _restricted(p, countries) for name, p in predictions.items()}
    table = pd.DataFrame(_rows(suite, task, options, specs, restricted, rng) if countries else [])
    if countries:
        _paired_tests(table, specs, restricted, task, rng, options.n_bootstrap)
    n = sum(len(task.test_arrays(c)[1]) for c in countries)
    return CommonSubset(countries, n, table)


def _with_failed(
    rows: list[dict[str, Any]], failed: Mapping[str, dict[str, Any]], order: Sequence[str]
) -> pd.DataFrame:
    """The scored and the failed rows (NaN scores, a ``note``) in ``order``; no failure, no note."""
    if not failed:
        return pd.DataFrame(rows)
    columns = list(dict.fromkeys(key for row in [*rows, *failed.values()] for key in row))
    by_name = {row["agent"]: row for row in [*rows, *failed.values()]}
    table = pd.DataFrame([by_name[n] for n in order if n in by_name], columns=columns)
    table["note"] = table["note"].fillna("")
    return table


def _restricted(prediction: _Predictions, countries: Sequence[str]) -> _Predictions:
    """The predictions of some of its countries (in the order given), timings kept."""
    probs = {c: prediction.probs[c] for c in countries}
    rewards = {c: prediction.rewards[c] for c in countries if c in prediction.rewards}
    return _Predictions(tuple(countries), probs, prediction.fit_seconds,
                        prediction.predict_seconds, rewards)  # fmt: skip


def _stack(task: Task, prediction: _Predictions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.concatenate([task.test_arrays(c)[1] for c in prediction.countries])
    probs = np.concatenate([prediction.probs[c] for c in prediction.countries])
    groups = np.concatenate([task.test_groups[c] for c in prediction.countries])
    return y, probs, groups


def _truth_columns(task: Task, truth: Truth, prediction: _Predictions) -> dict[str, float]:
    """Expected planted reward per decision, and reward recovery for agents with a reward.

    Recovery compares learned and planted rewards on the held-out states after removing
    each state's mean over actions (the part potential shaping cannot change in a one-step
    decision): the Pearson correlation ρ and the EPIC-style distance √((1 − ρ) / 2).
    """
    expected, learned, planted = [], [], []
    for country in prediction.countries:
        obs, _, _ = task.test_arrays(country)
        true = truth.rewards(country, obs)
        expected.append((prediction.probs[country] * true).sum(axis=1))
        if country in prediction.rewards:
            learned.append(_centre(prediction.rewards[country]).ravel())
            planted.append(_centre(true).ravel())
    columns = {"true_reward": float(np.concatenate(expected).mean())}
    if learned:
        rho = float(np.corrcoef(np.concatenate(learned), np.concatenate(planted))[0, 1])
        columns.update(reward_corr=rho, epic=float(np.sqrt(max(0.0, (1.0 - rho) / 2.0))))
    return columns


def _centre(rewards: np.ndarray) -> np.ndarray:
    return rewards - rewards.mean(axis=1, keepdims=True)


def _reference(
    table: pd.DataFrame, specs: Mapping[str, AgentSpec], predictions: Mapping[str, _Predictions]
) -> str | None:
    """The agent marked ``reference`` (None where it failed); without one, the best baseline.

    The best baseline is the scored baseline of lowest log-loss (None: no baseline scored).
    """
    marked = [name for name, spec in specs.items() if spec.reference]
    if marked:
        return marked[0] if marked[0] in predictions else None
    baselines = [name for name in predictions if specs[name].baseline]
    log_loss = table.set_index("agent")["log_loss"]
    return min(baselines, key=lambda name: float(log_loss[name])) if baselines else None


def _paired_tests(
    table: pd.DataFrame, specs: Mapping[str, AgentSpec], predictions: Mapping[str, _Predictions],
    task: Task, rng: np.random.Generator, n_resamples: int,
) -> None:  # fmt: skip
    """Each row minus the reference row in :data:`PAIRED_METRICS`, with paired p-values.

    Adds the columns ``reference`` (its name, :func:`_reference`), ``<metric>_diff`` (this
    row − the reference: positive accuracy, negative log-loss is better) and ``<metric>_p``
    (two-sided paired bootstrap over roll calls). Each row is compared on the countries both
    ran on, with the same resampled roll calls for both; the reference's own row and
    unscored rows get NaN.
    """
    reference = _reference(table, specs, predictions)
    if reference is None:
        return
    columns: dict[str, list[float]] = {
        f"{metric}_{part}": [] for metric in PAIRED_METRICS for part in ("diff", "p")
    }
    for name in table["agent"]:
        tests = dict.fromkeys(PAIRED_METRICS, (np.nan, np.nan))
        shared = []
        if name in predictions and name != reference:
            shared = [c for c in predictions[name].countries if c in predictions[reference].probs]
        if shared:
            a, b = (
                GroupedScores.from_predictions(*_stack(task, _restricted(predictions[n], shared)))
                for n in (name, reference)
            )
            tests = paired_bootstrap_tests(a, b, PAIRED_METRICS, n_resamples, rng)
        for metric, (difference, p_value) in tests.items():
            columns[f"{metric}_diff"].append(difference)
            columns[f"{metric}_p"].append(p_value)
    table["reference"] = reference
    for column, values in columns.items():
        table[column] = values
