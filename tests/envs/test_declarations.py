"""Every env family's state declaration, and the one a layout belongs to."""

from __future__ import annotations

import gymnasium as gym
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.state import StateDeclaration
from assembly_gym.envs.declarations import STATE_DECLARATIONS, declaration_for_layout

KWARGS = {
    "assembly/Deliberation-v0": {"data": "synthetic"},
    "assembly/RollCall-v0": {},
    "assembly/MemoryDynamics-v0": {"num_words": 1024, "sequence_length": 4},
}


@pytest.mark.parametrize("env_id", sorted(STATE_DECLARATIONS))
def test_each_env_layout_belongs_to_its_family(env_id):
    env = gym.make(env_id, **KWARGS[env_id])
    declaration = STATE_DECLARATIONS[env_id]
    assert declaration_for_layout(tuple(env.unwrapped.layout)) == declaration
    assert set(declaration.names) <= set(env.unwrapped.layout)


def test_only_deliberation_declares_stages():
    stages = {env_id for env_id, d in STATE_DECLARATIONS.items() if d.stages is not None}
    assert stages == {"assembly/Deliberation-v0"}
    assert STATE_DECLARATIONS["assembly/RollCall-v0"] == StateDeclaration()
