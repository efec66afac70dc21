"""Env families: one object per env, found by id or name, its declaration true of its env."""

from __future__ import annotations

import gymnasium as gym
import pytest

import assembly_gym
from assembly_gym.core.state import StateDeclaration
from assembly_gym.envs.family import FAMILIES, EnvFamily, family_of, register_family, resolve
from assembly_gym.envs.registration import BUILTIN_FAMILIES, ENV_IDS, VECTOR_ENTRY_POINTS

KWARGS = {
    "assembly/Deliberation-v0": {"data": "synthetic"},
    "assembly/RollCall-v0": {},
    "assembly/MemoryDynamics-v0": {"num_words": 1024, "sequence_length": 4},
}


@pytest.mark.parametrize("env_id", sorted(KWARGS))
def test_each_declaration_names_dimensions_of_its_env(env_id):
    env = gym.make(env_id, **KWARGS[env_id])
    declaration = family_of(env_id).load("declaration")
    assert isinstance(declaration, StateDeclaration)
    assert set(declaration.names) <= set(env.unwrapped.layout)


def test_only_deliberation_declares_stages():
    declared = {f.env_id for f in BUILTIN_FAMILIES if f.load("declaration").stages is not None}
    assert declared == {"assembly/Deliberation-v0"}
    assert family_of("RollCall-v0").load("declaration") == StateDeclaration()


def test_the_package_registers_its_families_and_ids_from_them():
    assert all(FAMILIES[family.env_id] == family for family in BUILTIN_FAMILIES)
    assert set(ENV_IDS) == {family.env_id for family in BUILTIN_FAMILIES}
    assert set(VECTOR_ENTRY_POINTS) == set(ENV_IDS)
    assert assembly_gym.envs.FAMILIES is FAMILIES


def test_a_family_is_found_by_id_short_id_or_name():
    family = family_of("assembly/RollCall-v0")
    assert family_of("RollCall-v0") is family_of("rollcall") is family
    assert family.name == "rollcall" and family_of("memorydynamics").suites.keys() == {"memory"}
    with pytest.raises(ValueError, match="no env family 'CartPole-v1'; registered: assembly/"):
        family_of("CartPole-v1")


def test_parts_resolve_to_objects_on_use():
    family = family_of("Deliberation-v0")
    assert family.load("transitions").__name__ == "deliberation_transitions"
    assert family.load("feature_map").__name__ == "DeliberationFeatureMap"
    assert resolve(family.suites["deliberation"]).name == "deliberation"
    assert resolve(len) is len  # an object is its own part
    with pytest.raises(ValueError, match="parts are"):
        family.load("entry_point")


def test_bad_families_are_refused():
    with pytest.raises(ValueError, match="is not \\[namespace/\\]Name-vN"):
        EnvFamily("assembly/RollCall", entry_point="a.b:C")
    with pytest.raises(ValueError, match="transitions 'no colon' is not 'module:attribute'"):
        EnvFamily("toy/Toy-v0", entry_point="a.b:C", transitions="no colon")
    with pytest.raises(ValueError, match="registered already, as another family"):
        register_family(EnvFamily("assembly/RollCall-v0", entry_point="a.b:C"))


def test_registering_a_family_twice_is_a_no_op():
    family = FAMILIES["assembly/MemoryDynamics-v0"]
    spec = gym.spec(family.env_id)
    register_family(family)
    assert FAMILIES[family.env_id] is family and gym.spec(family.env_id) == spec
