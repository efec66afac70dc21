"""The native vector envs equal N single envs seeded seed + i, step for step."""

from __future__ import annotations

import numpy as np
import pytest

import assembly_gym  # noqa: F401
from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.legislative.vector import DeliberationVectorEnv, RollCallVectorEnv
from assembly_gym.envs.registration import make_native_vec

N = 4


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=4, roll_calls_per_session=12, seed=5)
    )


def _valid_actions(rng, masks):
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


def _run_both(vector, singles, n_actions, steps, seed, masked=False):
    obs, infos = vector.reset(seed=seed)
    single_obs = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
    np.testing.assert_array_equal(obs, np.stack(single_obs))
    rng = np.random.default_rng(0)
    episodes_ended = 0
    for _ in range(steps):
        actions = (
            _valid_actions(rng, vector.action_masks()) if masked else rng.integers(0, n_actions, N)
        )
        obs, rewards, terminated, truncated, infos = vector.step(actions)
        assert not truncated.any()
        for i, env in enumerate(singles):
            expected, reward, done, _, _ = env.step(int(actions[i]))
            assert terminated[i] == done and rewards[i] == pytest.approx(reward)
            if done:
                episodes_ended += 1
                assert infos["_final_observation"][i]
                np.testing.assert_array_equal(infos["final_observation"][i], expected)
                expected, _ = env.reset()
            np.testing.assert_array_equal(obs[i], expected)
    return episodes_ended


def test_rollcall_vector_equals_single_envs(assembly):
    vector = RollCallVectorEnv(N, data=assembly)
    singles = [RollCallEnv(assembly) for _ in range(N)]
    assert _run_both(vector, singles, 3, 60, seed=11) >= N  # autoresets were exercised


def test_deliberation_vector_equals_single_envs(assembly):
    vector = DeliberationVectorEnv(N, data=assembly)
    singles = [DeliberationEnv(assembly) for _ in range(N)]
    assert _run_both(vector, singles, 5, 12, seed=3, masked=True) == 4 * N


def test_deliberation_vector_invalid_actions(assembly):
    vector = DeliberationVectorEnv(N, data=assembly)
    vector.reset(seed=0)
    _, _, _, _, infos = vector.step(np.full(N, 1))  # YES is masked at DRAFT: a no-op
    assert infos["invalid_action"].all()
    strict = DeliberationVectorEnv(N, data=assembly, invalid_action="raise")
    strict.reset(seed=0)
    with pytest.raises(InvalidActionError, match="not valid at DRAFT"):
        strict.step(np.full(N, 1))


def test_reward_without_batch_form_is_called_row_by_row(assembly):
    calls = []

    def reward(obs, action, next_obs, info):
        calls.append(info["recorded_action"])
        return float(action == info["recorded_action"])

    plain = RollCallVectorEnv(N, data=assembly, reward_fn=reward)
    default = RollCallVectorEnv(N, data=assembly)
    for env in (plain, default):
        env.reset(seed=4)
    actions = np.array([0, 1, 2, 0])
    _, plain_rewards, *_ = plain.step(actions)
    _, default_rewards, *_ = default.step(actions)
    np.testing.assert_array_equal(plain_rewards, default_rewards)
    assert len(calls) == N


def test_make_vec_native_mode_and_seed_list(assembly):
    vector = make_native_vec("assembly/RollCall-v0", N, data=assembly, country="Country 002")
    assert isinstance(vector.unwrapped, RollCallVectorEnv)
    obs, infos = vector.reset(seed=[7, 7, 8, 9])
    assert obs.shape == (N, len(vector.unwrapped.layout))
    np.testing.assert_array_equal(obs[0], obs[1])  # equal seeds, equal episodes
    assert set(infos["country_row"]) == {assembly.data.country_index("Country 002")}
    assert vector.observation_space.shape == (N, len(vector.unwrapped.layout))
    with pytest.raises(ValueError, match="3 seeds for 4 sub-envs"):
        vector.reset(seed=[1, 2, 3])


def test_bad_actions_and_sizes(assembly):
    vector = RollCallVectorEnv(N, data=assembly)
    vector.reset(seed=0)
    with pytest.raises(InvalidActionError, match="integer actions"):
        vector.step(np.zeros(N - 1, dtype=np.int64))
    with pytest.raises(InvalidActionError, match="must be in 0..2"):
        vector.step(np.array([0, 1, 2, 3]))
    with pytest.raises(ValueError, match="num_envs must be ≥ 1"):
        RollCallVectorEnv(0, data=assembly)
