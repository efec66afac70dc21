"""Executors: the shared value, and units an executor gave up on (without Ray)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from assembly_gym.agents.base import EpisodeScores
from assembly_gym.benchmarks.commands.bench import _restricted
from assembly_gym.benchmarks.executor import LocalExecutor, UnitFailure
from assembly_gym.benchmarks.suites import (
    SUITES,
    EpisodicRunner,
    EpisodicSpec,
    Options,
    Suite,
    run_suite,
)


def test_shared_goes_to_the_sequential_run_and_none_to_joblib_workers():
    # slice(item, shared) records both arguments
    assert LocalExecutor(1).map(slice, [1, 2], "task") == [slice(1, "task"), slice(2, "task")]
    assert LocalExecutor(2).map(slice, [1, 2], "task") == [slice(1, None), slice(2, None)]


def test_unit_failure_says_what_failed_and_how_often():
    failure = UnitFailure("majority × France", "ValueError", "bad input", 2)
    assert str(failure) == "failed: ValueError: bad input (unit: majority × France), after 2 tries"


class _GivesUpOn:
    """Runs units in this process; a unit of the named agent comes back as a failure."""

    def __init__(self, agent: str) -> None:
        self.agent = agent

    def map(self, function, items, shared=None, *, desc="", progress=False):
        return [
            UnitFailure(str(item), "RuntimeError", "gone", 2) if item.agent == self.agent
            else function(item, shared)
            for item in items
        ]  # fmt: skip


@pytest.mark.parametrize("failing", ["majority", "last-similar-vote"])
def test_an_agent_with_a_failed_unit_is_a_row_without_scores(failing, tmp_path):
    suite = _restricted(SUITES["synthetic"], ("majority", "last-similar-vote", "random"))
    options = Options(quick=True, n_bootstrap=20)
    result = run_suite(suite, options, executor=_GivesUpOn(failing), progress=False)
    table = result.table.set_index("agent")
    assert list(table.index) == ["random", "majority", "last-similar-vote"]  # the suite's order
    assert math.isnan(table.loc[failing, "log_loss"]) and table.loc[failing, "countries"] == 8
    assert table.loc[failing, "note"].startswith(f"failed: RuntimeError: gone (unit: {failing} ×")
    scored = table.drop(index=failing)
    assert scored["log_loss"].notna().all() and (scored["note"] == "").all()
    reference = table["reference"].iloc[0]  # the best baseline among the scored ones
    assert reference != failing and math.isnan(table.loc[failing, "log_loss_p"])
    markdown = result.to_markdown()
    assert "| note" in markdown and "after 2 tries" in markdown
    assert "8 |" in markdown.split(f"| {failing}")[1].splitlines()[0]  # countries stay ints


def _play(task, options):
    return EpisodeScores({"reward": np.full(5, task.value)}, 0.0, 0.0)


def test_an_episodic_agent_whose_unit_failed_is_a_row_without_scores():
    task = SimpleNamespace(split="five episodes", source="a constant", value=-1.0)
    agents = [EpisodicSpec("always", _play, baseline=True), EpisodicSpec("gone", _play)]
    runner = EpisodicRunner("reward", lower_is_better=False)
    suite = Suite("toy", "a toy", lambda options: task, lambda task, options: agents,
                  metrics=("reward",), runner=runner)  # fmt: skip
    result = run_suite(suite, Options(n_bootstrap=20), executor=_GivesUpOn("gone"), progress=False)
    assert result.table["reward"].tolist()[0] == -1.0 and math.isnan(result.table["reward"][1])
    assert result.table["note"].tolist() == [
        "",
        "failed: RuntimeError: gone (unit: gone), after 2 tries",
    ]
    assert "| gone " in result.to_markdown()
