"""Shared fixtures of the env tests: a small instance of every registered env."""

from __future__ import annotations

from typing import Any

import pytest

from assembly_gym.envs.legislative.resolutions import generate_resolution_records
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.legislative.transitions import deliberation_transitions
from assembly_gym.world_models.empirical import EmpiricalModel


@pytest.fixture(scope="session")
def make_kwargs() -> dict[str, dict[str, Any]]:
    """Keyword arguments of ``gym.make`` for a small instance of every registered env."""
    assembly = generate_assembly(
        SyntheticConfig(n_countries=6, n_sessions=3, roll_calls_per_session=10, seed=2)
    )
    model = EmpiricalModel().fit(deliberation_transitions(assembly))
    return {
        "assembly/RollCall-v0": {"data": assembly.data},
        "assembly/Deliberation-v0": {"data": generate_resolution_records(assembly)},
        "assembly/Simulator-v0": {"model": model},
        "assembly/MemoryDynamics-v0": {
            "difficulty": "easy", "num_words": 1024, "sequence_length": 4,
        },
    }  # fmt: skip
