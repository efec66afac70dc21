"""Transitions of any env family, by its transitions builder; splits that never cut a group."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.envs.family import family_of
from assembly_gym.envs.legislative.deliberation import STATE_DECLARATION
from assembly_gym.world_models.transitions import env_transitions, modelled_envs, split_transitions


def test_env_transitions_are_the_family_builders(assembly, delib, rollcall):
    assert modelled_envs("assembly") == ("RollCall-v0", "Deliberation-v0")
    assert modelled_envs()[:2] == modelled_envs("assembly")  # then the tests' families
    built = env_transitions("assembly/Deliberation-v0", assembly)
    assert np.array_equal(built.next_obs, delib.next_obs)
    assert built.declaration == delib.declaration == STATE_DECLARATION
    assert np.array_equal(env_transitions("rollcall", assembly, progress=False).obs, rollcall.obs)
    assert family_of("RollCall-v0").load("transitions")(assembly).declaration.names == ()


def test_env_transitions_rejects_other_envs():
    with pytest.raises(ValueError, match="no env family 'CartPole-v1'"):
        env_transitions("CartPole-v1")
    with pytest.raises(ValueError, match="not 'MemoryDynamics-v0'"):
        env_transitions("MemoryDynamics-v0")


def test_split_transitions_random_and_temporal(delib):
    train, validation, test = split_transitions(delib, seed=0)
    assert len(train) + len(validation) + len(test) == len(delib)
    assert not set(train.groups) & set(test.groups)
    assert 0.5 < len(train) / len(delib) < 0.7
    train, validation, test = split_transitions(delib, last_train_session=3, seed=0)
    assert train.extras["session"].max() <= 3 and test.extras["session"].min() == 4
    assert not set(train.groups) & set(validation.groups)
    with pytest.raises(ValueError, match="leaves no test transitions"):
        split_transitions(delib, last_train_session=99)
