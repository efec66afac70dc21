"""Shared fixtures: a small synthetic assembly, its transitions and fitted models."""

from __future__ import annotations

import pytest

from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.legislative.transitions import (
    deliberation_transitions,
    rollcall_transitions,
)
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.transitions import split_transitions


@pytest.fixture(scope="session")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=5, roll_calls_per_session=12, seed=3)
    )


@pytest.fixture(scope="session")
def delib(assembly):
    return deliberation_transitions(assembly)


@pytest.fixture(scope="session")
def delib_split(delib):
    return split_transitions(delib, seed=0)


@pytest.fixture(scope="session")
def rollcall(assembly):
    return rollcall_transitions(assembly)


def small_mlp(**overrides):
    options = dict(members=3, hidden=(16, 16), batch_size=64, max_epochs=20, patience=3, threads=1)
    return MLPEnsemble(**(options | overrides))


@pytest.fixture(scope="session")
def mlp_factory():
    """Small, fast ensembles for tests: ``mlp_factory(**overrides)``."""
    return small_mlp


@pytest.fixture(scope="session")
def models(delib_split):
    """Both models fitted on the Deliberation training split."""
    train, validation, _ = delib_split
    return {
        "empirical": EmpiricalModel().fit(train),
        "mlp": small_mlp().fit(train, validation=validation),
    }


@pytest.fixture(scope="session")
def rollcall_models(rollcall):
    train, validation, _ = split_transitions(rollcall, seed=0)
    return {
        "empirical": EmpiricalModel().fit(train),
        "mlp": small_mlp(max_epochs=3).fit(train, validation=validation),
    }
