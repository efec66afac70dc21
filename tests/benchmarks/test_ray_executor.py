"""The bench on Ray: the same table as the sequential run; failed units retried, then reported."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
import pytest

from assembly_gym.agents.baselines import MajorityAgent
from assembly_gym.benchmarks.cli import main
from assembly_gym.benchmarks.commands.bench import _restricted
from assembly_gym.benchmarks.report import write_report
from assembly_gym.benchmarks.suites import SUITES, AgentSpec, Options, Task, run_suite
from assembly_gym.benchmarks.suites.base import per_country

pytestmark = pytest.mark.ray

QUICK = Options(quick=True, n_bootstrap=50)
CHEAP = ("majority", "last-similar-vote", "maxent-irl (linear)")


@pytest.fixture(scope="module")
def executor(ray_local):
    from assembly_gym.benchmarks.ray_executor import RayExecutor

    # the agents below are defined here: workers get them by value, not by module name
    ray_local.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield RayExecutor(retries=1)
    ray_local.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_ray_gives_the_sequential_table(executor):
    suite = _restricted(SUITES["synthetic"], CHEAP)
    one = run_suite(suite, QUICK, progress=False)
    ray = run_suite(suite, QUICK, executor=executor, progress=False)
    columns = [c for c in one.table.columns if "seconds" not in c]
    pd.testing.assert_frame_equal(one.table[columns], ray.table[columns])
    assert one.calibration.keys() == ray.calibration.keys()


@dataclass(frozen=True)
class _WithFailingAgents:
    """The majority baseline, an agent that fails on its first try, and one that always fails."""

    marker: str  # a file: present once the flaky agent has failed

    def __call__(self, task: Task, options: Options) -> list[AgentSpec]:
        majority = per_country(lambda task: MajorityAgent(task.n_actions))
        return [
            AgentSpec("majority", majority, baseline=True),
            AgentSpec("flaky", _Flaky(self.marker, majority), chunk=None),
            AgentSpec("broken", _broken, chunk=4),
        ]


@dataclass(frozen=True)
class _Flaky:
    marker: str
    fit: object

    def __call__(self, task, countries):
        if not Path(self.marker).exists():
            Path(self.marker).write_text("failed once")
            raise RuntimeError("the first try fails")
        return self.fit(task, countries)


def _broken(task, countries):
    raise ValueError("broken on purpose")


def test_a_failed_unit_is_retried_then_reported_in_its_row(executor, tmp_path):
    suite = replace(SUITES["synthetic"], agents=_WithFailingAgents(str(tmp_path / "marker")))
    result = run_suite(suite, QUICK, executor=executor, progress=False)
    table = result.table.set_index("agent")
    assert list(table.index) == ["majority", "flaky", "broken"]
    assert (tmp_path / "marker").exists()  # the flaky agent failed once, then was scored
    for name in ("majority", "flaky"):
        assert table.loc[name, "note"] == "" and table.loc[name, "countries"] == 8
    assert table.loc["flaky", "log_loss"] == table.loc["majority", "log_loss"]
    assert math.isnan(table.loc["broken", "log_loss"]) and table.loc["broken", "countries"] == 8
    assert table.loc["broken", "note"] == (
        "failed: ValueError: broken on purpose (unit: broken × 4 countries "
        "(Country 001 … Country 004)), after 2 tries"
    )
    assert "broken" not in result.calibration and "| broken " in result.to_markdown()
    written = write_report([result], tmp_path / "report", options={}, kind="test", version=1)
    (suite_record,) = json.loads(written["results.json"].read_text())["suites"]
    broken = suite_record["results"][2]
    assert broken["note"].startswith("failed: ValueError") and broken["log_loss"] is None


def test_bench_command_on_ray(ray_local, capsys):
    code = main(["bench", "--executor", "ray", "--quick", "--agents", "majority", "random",
                 "--bootstrap", "50", "--quiet"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "## synthetic" in out
    rows = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("|")]
    assert rows[2:] == ["random", "majority"]
