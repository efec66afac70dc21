"""The throughput experiment's measuring loop."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.benchmarks.experiments.throughput import ENVS, measure


@pytest.mark.parametrize("env_id", list(ENVS))
def test_throughput_measure_runs(env_id):
    rate = measure(env_id, ENVS[env_id], seconds=0.05)
    assert np.isfinite(rate) and rate > 0
