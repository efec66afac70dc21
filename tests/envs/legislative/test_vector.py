"""The native vector envs equal Gymnasium's SyncVectorEnv of single envs, step for step.

Under each autoreset rule of the stack (1.x: NEXT_STEP and SAME_STEP; 0.29: its same-step
rule) and under the standard statistics wrapper, which must record the same episodes:
observations, rewards, terminations, every info the SyncVectorEnv gives and its masks.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401
from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.legislative.vector import DeliberationVectorEnv, RollCallVectorEnv
from assembly_gym.envs.registration import make_native_vec
from assembly_gym.envs.vector_api import (
    AUTORESET_MODES,
    GYMNASIUM_1,
    NEXT_STEP,
    SAME_STEP,
    VectorEpisodeStatistics,
    sync_vector_env,
)

N = 4
STEPS = {"assembly/RollCall-v0": 40, "assembly/Deliberation-v0": 13}


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=4, roll_calls_per_session=12, seed=5)
    )


@pytest.mark.parametrize("mode", AUTORESET_MODES, ids=str)
@pytest.mark.parametrize("env_id", list(STEPS))
def test_native_vector_equals_sync_vector_env(assembly, env_id, mode, lockstep):
    native = VectorEpisodeStatistics(make_native_vec(env_id, N, data=assembly, autoreset_mode=mode))
    sync = VectorEpisodeStatistics(
        sync_vector_env([lambda: gym.make(env_id, data=assembly)] * N, mode)
    )
    assert native.unwrapped.metadata["autoreset_mode"] == mode
    episodes = lockstep(native, sync, seed=11, steps=STEPS[env_id], idle=Action.NO_ACTION)
    assert episodes >= N  # autoresets were exercised, and the statistics recorded them
    assert list(native.return_queue) == list(sync.return_queue)
    assert list(native.length_queue) == list(sync.length_queue)


def test_autoreset_modes_of_the_stack(assembly):
    default = make_native_vec("assembly/RollCall-v0", N, data=assembly)
    assert default.unwrapped.metadata["autoreset_mode"] == (NEXT_STEP if GYMNASIUM_1 else SAME_STEP)
    same = RollCallVectorEnv(N, data=assembly, autoreset_mode="SameStep")
    assert same.metadata["autoreset_mode"] == SAME_STEP
    assert default.unwrapped.metadata is not same.metadata  # per instance, not the class's
    unsupported = ["Disabled"] if GYMNASIUM_1 else ["Disabled", NEXT_STEP]
    for mode in unsupported:
        with pytest.raises(ValueError, match="autoreset_mode must be one of"):
            RollCallVectorEnv(N, data=assembly, autoreset_mode=mode)
    with pytest.raises(ValueError, match="no time limit"):
        DeliberationVectorEnv(N, data=assembly, max_episode_steps=5)


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


def test_a_row_wise_reward_sees_the_single_envs_info(assembly):
    """recorded_action and the tally reach reward_fn as the single env hands them over."""
    seen: dict[str, list] = {"single": [], "vector": []}

    def recorder(name):
        def reward(obs, action, next_obs, info):
            seen[name].append((info["recorded_action"], dict(info["tally"])))
            return 0.0

        return reward

    single = DeliberationEnv(assembly, reward_fn=recorder("single"))
    vector = DeliberationVectorEnv(1, data=assembly, reward_fn=recorder("vector"))
    single.reset(seed=3)
    vector.reset(seed=3)
    for action in (0, 1, 1):  # cosponsor, then yes twice
        single.step(action)
        vector.step(np.array([action]))
    assert [(int(r), {k: int(v) for k, v in t.items()}) for r, t in seen["vector"]] == [
        (int(r), t) for r, t in seen["single"]
    ]
    assert all(set(t) == {"sponsors", "yes", "no", "abstain"} for _, t in seen["vector"])
