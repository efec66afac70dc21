"""The throughput experiment's measuring loops and its table (tiny sizes, no timing checks)."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from assembly_gym.benchmarks.experiments import throughput
from assembly_gym.benchmarks.experiments.throughput import (
    ENVS,
    MODELS,
    Row,
    cases,
    measure,
    measure_agents,
    measure_frames,
    measure_vector,
    run,
    vector_ids,
)
from assembly_gym.envs.registration import VECTOR_ENTRY_POINTS


def _ids(case):
    env_id, model = case
    return env_id if model is None else f"{env_id}-{model}"


@pytest.mark.parametrize("case", list(cases()), ids=_ids)
def test_throughput_measure_runs(case):
    env_id, model = case
    rate = measure(env_id, ENVS[env_id], seconds=0.05, model=model)
    assert np.isfinite(rate) and rate > 0


def test_every_native_vector_env_is_measured_and_the_simulator_with_each_model():
    assert set(vector_ids()) == set(VECTOR_ENTRY_POINTS) & set(ENVS)
    assert {"assembly/RollCall-v0", "assembly/Deliberation-v0"} <= set(vector_ids())
    assert [m for e, m in cases() if e == "assembly/Simulator-v0"] == list(MODELS)


@pytest.mark.parametrize("native", [True, False], ids=["native", "SyncVectorEnv"])
@pytest.mark.parametrize("case", list(cases(vector_ids())), ids=_ids)
def test_throughput_measure_vector_runs(case, native):
    env_id, model = case
    rate = measure_vector(
        env_id, ENVS[env_id], num_envs=4, seconds=0.05, native=native, model=model
    )
    assert np.isfinite(rate) and rate > 0


@pytest.mark.parametrize("env_id", [e for e in ENVS if e.startswith("assembly/")])
def test_throughput_measure_frames_runs(env_id):
    model = MODELS[0] if env_id == "assembly/Simulator-v0" else None
    cost = measure_frames(env_id, ENVS[env_id], seconds=0.05, model=model)
    assert np.isfinite(cost) and cost > 0


def test_throughput_measure_agents_runs():
    rate, agents = measure_agents(seconds=0.05)
    assert np.isfinite(rate) and rate > 0 and agents == 40  # the synthetic default's members


def test_a_row_shows_its_ratio_to_cartpole_and_whether_it_meets_its_goal():
    assert "3.000×" in Row("env", "single", 300.0, goal=1.5).line(100.0)
    assert Row("env", "single", 300.0, goal=1.5).line(100.0).endswith("1.5× met")
    assert Row("env", "single", 100.0, goal=1.5).line(100.0).endswith("NOT met")
    assert Row("env", "single", 100.0).line(100.0).rstrip().endswith("1.000×")
    assert Row("agents", "parallel", 5e5, goal_rate=1e6).line(1e4).endswith("≥ 1,000,000/s NOT met")


def test_the_table_lists_every_env_single_and_vectorised(capsys):
    run(argparse.Namespace(seconds=0.01, num_envs=[2], seed=0))
    lines = capsys.readouterr().out.splitlines()

    def rows(label: str, mode: str) -> list[str]:
        return [line for line in lines if line[:42].rstrip() == label and f" {mode} " in line]

    for env_id, model in cases():
        label = env_id if model is None else f"{env_id} ({model})"
        assert len(rows(label, "single")) == 1, label
    for env_id, model in cases(vector_ids()):
        label = env_id if model is None else f"{env_id} ({model})"
        assert len(rows(label, "native vector ×2")) == len(rows(label, "SyncVectorEnv ×2")) == 1
        assert any(line.startswith(f"{label} ×2 (vector): ") for line in lines), label
    assert len(rows("assembly_v0 (agent decisions)", "parallel,")) == 1
    assert len(rows("assembly_v0", "vector_env ×2")) == 1  # assembly steps, × CartPole-v1
    (decisions,) = rows("assembly_v0 (agent decisions)", "vector_env ×2")
    assert "×" not in decisions.split("vector_env ×2")[1]  # no ratio of decisions to steps


def test_the_goals_are_judged_at_the_goals_size_only(capsys, monkeypatch):
    monkeypatch.setattr(throughput, "VECTOR_GOAL", (2, 20.0))  # 1,024 sub-envs: too slow here
    run(argparse.Namespace(seconds=0.01, num_envs=[2, 3], seed=0))
    lines = capsys.readouterr().out.splitlines()
    (decisions,) = [line for line in lines if line.startswith("assembly_v0 (agent decisions)")
                    and "vector_env ×2" in line]  # fmt: skip
    assert "≥ 1,000,000/s" in decisions and decisions.rstrip().endswith("met")
    (steps,) = [line for line in lines if line[:42].rstrip() == "assembly_v0" and "×2 " in line]
    assert "≥ 20×" in steps
    assert not any("×3 " in line and "≥" in line for line in lines)  # no goal at other sizes
