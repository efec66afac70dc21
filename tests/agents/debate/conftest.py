"""Shared fixtures of the debate tests: a small synthetic assembly and its observations."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.agents.debate import rollcall_observations
from assembly_gym.agents.debate.observations import Observations, observations_from_demonstrations
from assembly_gym.agents.debate.tendencies import compute_claims, tendency_agents
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.synthetic import (
    SyntheticAssembly,
    SyntheticConfig,
    generate_assembly,
)


@pytest.fixture(scope="session")
def assembly() -> SyntheticAssembly:
    return generate_assembly(
        SyntheticConfig(n_countries=6, n_sessions=8, roll_calls_per_session=60, seed=1)
    )


@pytest.fixture(scope="session")
def layout() -> ObservationLayout:
    return ObservationLayout(feature_names())


@pytest.fixture(scope="session")
def country_observations(assembly) -> Observations:
    """One country's recorded votes (with titles as texts and rcids as ids)."""
    return rollcall_observations(assembly.data, assembly.data.country_names[0])


@pytest.fixture(scope="session")
def pooled_observations(assembly, layout) -> Observations:
    """The situations of every country of the assembly (≈ 2,700 decisions), without infos."""
    demos = rollcall_demonstrations(assembly.data, with_infos=False)
    return observations_from_demonstrations(demos, layout)


@pytest.fixture(scope="session")
def pooled_claims(pooled_observations):
    return compute_claims(pooled_observations, tendency_agents())


@pytest.fixture()
def rng() -> np.random.Generator:
    return np.random.default_rng(0)
