"""The reward feature maps φ(s, a): one block of inputs per action, logits = φ·θ."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.phi import (
    DELIBERATION_INPUTS,
    ActionFeatureMap,
    DeliberationFeatureMap,
)
from assembly_gym.envs.legislative.spaces import Action


@pytest.fixture(scope="module")
def feature_map() -> ActionFeatureMap:
    return ActionFeatureMap(["a", "b", "c", "d"], ["yes", "no", "abstain"])


def test_action_feature_map_shapes_and_names(feature_map):
    assert feature_map.n_actions == 3
    assert feature_map.weight_shape == (3, 5)
    assert feature_map.n_features == 15 == len(feature_map.names)
    assert feature_map.names[:6] == ("yes:bias", "yes:a", "yes:b", "yes:c", "yes:d", "no:bias")
    assert feature_map.names[-1] == "abstain:d"
    obs = np.random.default_rng(0).random((7, 4))
    phi = feature_map(obs)
    assert phi.shape == (7, 3, 15)
    np.testing.assert_array_equal(feature_map.inputs(obs[0]), np.concatenate([[1.0], obs[0]])[None])


def test_phi_is_one_copy_of_bias_and_obs_per_action(feature_map):
    obs = np.random.default_rng(1).random((5, 4))
    phi = feature_map(obs)
    for action in range(3):
        block = slice(5 * action, 5 * action + 5)
        np.testing.assert_array_equal(phi[:, action, block], feature_map.inputs(obs))
        others = np.delete(phi[:, action], np.arange(15)[block], axis=1)
        assert (others == 0).all()


def _deliberation_case() -> tuple[DeliberationFeatureMap, np.ndarray]:
    env = DeliberationEnv(country="Country 001")
    obs = [env.reset(seed=seed)[0] for seed in range(3)]
    for action in (Action.COSPONSOR, Action.YES):
        obs.append(env.step(action)[0])
    return DeliberationFeatureMap(env.layout), np.stack(obs)


@pytest.mark.parametrize("case", ["rollcall", "deliberation"])
def test_logits_equal_phi_dot_theta(feature_map, case):
    rng = np.random.default_rng(2)
    if case == "rollcall":
        obs = rng.random((6, 4))
    else:
        feature_map, obs = _deliberation_case()
    theta = rng.normal(size=feature_map.weight_shape)
    expected = feature_map(obs) @ theta.reshape(-1)
    np.testing.assert_allclose(feature_map.logits(theta, obs), expected, rtol=1e-12)
    np.testing.assert_allclose(feature_map.logits(theta.reshape(-1), obs), expected, rtol=1e-12)


def test_deliberation_phi_is_one_copy_of_its_inputs_per_action():
    feature_map, obs = _deliberation_case()
    assert feature_map.weight_shape == (len(Action), len(DELIBERATION_INPUTS))
    assert feature_map.names[: len(DELIBERATION_INPUTS)] == tuple(
        f"cosponsor:{name}" for name in DELIBERATION_INPUTS
    )
    phi = feature_map(obs)
    width = len(DELIBERATION_INPUTS)
    for action in Action:
        block = slice(width * action, width * (action + 1))
        np.testing.assert_array_equal(phi[:, action, block], feature_map.inputs(obs))
        assert (np.delete(phi[:, action], np.arange(phi.shape[2])[block], axis=1) == 0).all()


def test_feature_map_over_the_real_layout():
    names = feature_names()
    feature_map = ActionFeatureMap(names, ["yes", "no", "abstain"])
    assert feature_map.weight_shape == (3, 1 + len(names))
    assert len(set(feature_map.names)) == feature_map.n_features
