"""Episodic suites: agents scored per held-out episode (reward, errors), not by class labels.

In ``MemoryDynamics-v0`` an action is a read of a memory range, judged by the reward and the
next-state error it brings: there is no label to forecast. An episodic suite's agents are
:class:`~assembly_gym.agents.base.EpisodicAgent` objects (:class:`EpisodicSpec` makes one of
a function) that fit on the task's training data and play its held-out episodes.
:class:`EpisodicRunner`, the suite's ``runner``, runs one work unit per agent (the task has
one-line ``split`` and ``source`` attributes) and builds the usual
:class:`~assembly_gym.benchmarks.suites.base.SuiteResult`: every metric's mean with a 95%
bootstrap interval over episodes, and a paired bootstrap test of one metric against the
best baseline (the same resampled episodes for both). A failed unit's row is NaN with a
``note``.

Example:
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from assembly_gym.agents.base import EpisodeScores
    >>> from assembly_gym.benchmarks.suites.base import Options, Suite, run_suite
    >>> def play(task, options):
    ...     return EpisodeScores({"reward": np.full(5, task.value)}, 0.0, 0.0)
    >>> task = SimpleNamespace(split="five episodes", source="a constant", value=-1.0)
    >>> suite = Suite("toy", "a toy", lambda options: task,
    ...               lambda task, options: [EpisodicSpec("always", play, baseline=True)],
    ...               metrics=("reward",), runner=EpisodicRunner("reward", lower_is_better=False))
    >>> run_suite(suite, Options(n_bootstrap=20), progress=False).table["reward"].tolist()
    [-1.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from assembly_gym.agents.base import EpisodeScores, EpisodicAgent
from assembly_gym.benchmarks.executor import Executor, UnitFailure, run_units
from assembly_gym.benchmarks.statistics import (
    bootstrap_weights,
    paired_p_value,
    percentile_interval,
)
from assembly_gym.benchmarks.suites.base import Options, Suite, SuiteResult, Unit, build_task

__all__ = ["EpisodicRunner", "EpisodicSpec"]


@dataclass(frozen=True)
class EpisodicSpec:
    """An :class:`~assembly_gym.agents.base.EpisodicAgent` made of a function.

    Attributes:
        name: the name in the table.
        play: ``play(task, options)`` fits the agent on the task's training data and plays
            the held-out episodes.
        baseline: whether it is a simple baseline (the paired test compares every agent with
            the best baseline).
    """

    name: str
    play: Callable[[Any, Options], EpisodeScores]
    baseline: bool = False


@dataclass(frozen=True)
class EpisodicRunner:
    """Runs an episodic suite (a suite's ``runner``); see the module docstring.

    Attributes:
        compare_on: the metric of the paired test against the best baseline.
        lower_is_better: whether a lower ``compare_on`` is better (it picks the best
            baseline).
        describe: the text above the table, from the task (default: the suite's
            description and the task's ``split`` and ``source`` attributes).
    """

    compare_on: str
    lower_is_better: bool = True
    describe: Callable[[Any], str] | None = None

    def __call__(
        self, suite: Suite, options: Options, executor: Executor | None, progress: bool
    ) -> SuiteResult:
        """Play every agent (one work unit each), then score the episodes."""
        task = build_task(suite, options)
        names = [agent.name for agent in suite.agents(task, options)]
        units = [Unit(suite, options, name) for name in names]
        outputs = run_units(
            _play_unit, units, executor, shared=task, desc=f"{suite.name}: agents",
            progress=progress,
        )  # fmt: skip
        outcomes = dict(zip(names, outputs, strict=True))
        played = {n: o for n, o in outcomes.items() if not isinstance(o, UnitFailure)}
        failed = {n: str(o) for n, o in outcomes.items() if isinstance(o, UnitFailure)}
        baselines = [a.name for a in suite.agents(task, options) if a.baseline]
        table = self._table(suite, options, names, played, failed, baselines)
        header = self.describe(task) if self.describe else f"{task.split}. Data: {task.source}."
        if "vs_best_baseline" in table:
            sign = "lower" if self.lower_is_better else "higher"
            header += (
                f"\nΔ and p: {self.compare_on} against the best baseline "
                f"({table['vs_best_baseline'].iloc[0]}; {sign} is better), paired bootstrap "
                "over episodes."
            )
        return SuiteResult(
            suite.name, suite.description, task.split, task.source, (), {}, math.nan, table,
            header=f"{suite.description}. {header}\nIn brackets: 95% bootstrap intervals over "
            "held-out episodes.",
            plot_metrics=suite.metrics,
        )  # fmt: skip

    def _table(
        self, suite: Suite, options: Options, names: list[str],
        played: Mapping[str, EpisodeScores], failed: Mapping[str, str], baselines: list[str],
    ) -> pd.DataFrame:  # fmt: skip
        """One row per agent, in ``names`` order; a failed agent's has NaN and a ``note``."""
        rng = np.random.default_rng(options.seed)
        counts = {len(v) for result in played.values() for v in result.scores.values()}
        if len(counts) > 1:  # the paired test and the table need the same episodes
            raise ValueError(
                f"every agent must play the same held-out episodes, got {sorted(counts)} episodes"
            )
        n = counts.pop() if counts else 0
        weights = bootstrap_weights(n, options.n_bootstrap, rng) / n if played else None
        nothing = np.full(n, np.nan)
        rows = []
        for name in names:
            result = played.get(name)
            row: dict[str, Any] = {"agent": name}
            for metric in suite.metrics:
                values = nothing if result is None else result.scores.get(metric, nothing)
                row[metric], row[f"{metric}_ci"] = _mean_and_interval(
                    np.asarray(values, dtype=float), weights
                )
            fit, predict = (math.nan, math.nan) if result is None else (
                result.fit_seconds, result.predict_seconds)  # fmt: skip
            row.update(n=n, fit_seconds=fit, predict_seconds=predict)
            if failed:
                row["note"] = failed.get(name, "")
            rows.append(row)
        table = pd.DataFrame(rows)
        usable = [
            b for b in baselines if b in played and np.isfinite(_metric(played[b], self.compare_on))
        ]
        if not usable:
            return table
        assert weights is not None  # a baseline played
        pick = min if self.lower_is_better else max
        best = pick(usable, key=lambda b: _metric(played[b], self.compare_on))
        reference = np.asarray(played[best].scores[self.compare_on], dtype=float)
        differences, p_values = [], []
        for name in table["agent"]:
            scores = played[name].scores if name in played else {}
            values = np.asarray(scores.get(self.compare_on, nothing))
            difference, p_value = _paired_test(values - reference, weights)
            differences.append(difference)
            p_values.append(p_value)
        table["vs_best_baseline"] = best
        table[f"{self.compare_on}_diff"] = differences
        table["p_value"] = p_values
        return table


def _play_unit(unit: Unit, task: Any = None) -> EpisodeScores:
    """Fit and play one agent (``task`` None: rebuilt from the unit, once per process)."""
    task = unit.task(task)
    agents = {
        a.name: a for a in unit.suite.agents(task, unit.options) if isinstance(a, EpisodicAgent)
    }
    return agents[unit.agent].play(task, unit.options)


def _metric(result: EpisodeScores, metric: str) -> float:
    values = result.scores.get(metric)
    return math.nan if values is None else float(np.mean(values))


def _mean_and_interval(
    values: np.ndarray, weights: np.ndarray | None
) -> tuple[float, tuple[float, float] | None]:
    """Mean over episodes and its 95% percentile bootstrap interval (None when NaN)."""
    if weights is None or not np.all(np.isfinite(values)):
        return math.nan, None
    return float(values.mean()), percentile_interval(weights @ values)


def _paired_test(differences: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """Mean paired difference and its two-sided bootstrap p-value (same resampled episodes)."""
    if not np.all(np.isfinite(differences)):
        return math.nan, math.nan
    return float(differences.mean()), paired_p_value(weights @ differences)
