"""The throughput experiment's measuring loop."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.benchmarks.experiments.throughput import (
    ENVS,
    VECTOR_ENVS,
    measure,
    measure_agents,
    measure_frames,
    measure_vector,
)


@pytest.mark.parametrize("env_id", list(ENVS))
def test_throughput_measure_runs(env_id):
    rate = measure(env_id, ENVS[env_id], seconds=0.05)
    assert np.isfinite(rate) and rate > 0


@pytest.mark.parametrize("native", [True, False], ids=["native", "SyncVectorEnv"])
@pytest.mark.parametrize("env_id", VECTOR_ENVS)
def test_throughput_measure_vector_runs(env_id, native):
    rate = measure_vector(env_id, ENVS[env_id], num_envs=4, seconds=0.05, native=native)
    assert np.isfinite(rate) and rate > 0


@pytest.mark.parametrize("env_id", [e for e in ENVS if e.startswith("assembly/")])
def test_throughput_measure_frames_runs(env_id):
    cost = measure_frames(env_id, ENVS[env_id], seconds=0.05)
    assert np.isfinite(cost) and cost > 0


def test_throughput_measure_agents_runs():
    rate, agents = measure_agents(seconds=0.05)
    assert np.isfinite(rate) and rate > 0 and agents == 40  # the synthetic default's members
