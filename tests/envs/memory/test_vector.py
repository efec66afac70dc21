"""The native vector MemoryDynamics-v0 equals Gymnasium's SyncVectorEnv of single envs.

Sub-env i reset with seed s + i plays the single env's episode of seed s + i: observations,
rewards, terminations, infos and their masks, under each autoreset rule of the stack and the
statistics wrapper.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.errors import InvalidActionError, RewardFunctionError
from assembly_gym.envs.memory import MemoryDynamicsEnv
from assembly_gym.envs.memory.vector import MemoryDynamicsVectorEnv
from assembly_gym.envs.registration import make_native_vec
from assembly_gym.envs.vector_api import (
    AUTORESET_MODES,
    GYMNASIUM_1,
    NEXT_STEP,
    SAME_STEP,
    VectorEpisodeStatistics,
    sync_vector_env,
)

ID = "assembly/MemoryDynamics-v0"
N = 4


def _actions(rng: np.random.Generator, venv: Any, windows: np.ndarray) -> np.ndarray:
    """Random reads, every other sub-env reading its first relevant window (a hit)."""
    actions = rng.integers(0, venv.unwrapped.single_action_space.nvec, size=(N, 3))
    start, length = windows[..., 0, 0], windows[..., 0, 1]
    hits = np.stack([start // 256, start % 256, np.maximum(length - 1, 0)], axis=-1)
    actions[::2] = np.where(length[::2, None] > 0, hits[::2], actions[::2])
    return actions


@pytest.mark.parametrize("mode", AUTORESET_MODES, ids=str)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"difficulty": "medium", "hopping": False},
        {"difficulty": "medium", "pointer_chasing": True},
    ],
    ids=["easy", "medium_still", "medium_pointer_chasing"],
)
def test_native_vector_equals_sync_vector_env(tiny, options, mode, same_results):
    kwargs = {**tiny, **options}
    native = VectorEpisodeStatistics(make_native_vec(ID, N, **kwargs, autoreset_mode=mode))
    sync = VectorEpisodeStatistics(sync_vector_env([lambda: gym.make(ID, **kwargs)] * N, mode))
    assert native.unwrapped.metadata["autoreset_mode"] == mode
    obs, infos = native.reset(seed=11)
    same_results((obs, infos), sync.reset(seed=11))
    rng = np.random.default_rng(0)
    windows = np.zeros((N, 1, 2), dtype=np.int64)
    for _ in range(13):  # three episodes of 4 steps and more: autoresets
        actions = _actions(rng, native, windows)
        *results, infos = native.step(actions)
        *expected, expected_infos = sync.step(actions)
        same_results(results, expected, "step")
        same_results(infos, expected_infos, "infos")
        windows = np.stack([env.unwrapped.relevant_windows() for env in sync.unwrapped.envs])
    assert len(sync.return_queue) >= N  # the statistics recorded the same episodes
    assert list(native.return_queue) == list(sync.return_queue)
    assert list(native.length_queue) == list(sync.length_queue)


def test_sub_env_i_plays_the_single_envs_episode_of_its_seed(tiny):
    venv = make_native_vec(ID, N, **tiny)
    obs, _ = venv.reset(seed=[5, 5, 9, 2])
    np.testing.assert_array_equal(obs[0], obs[1])  # equal seeds, equal episodes
    single = MemoryDynamicsEnv(**tiny)
    np.testing.assert_array_equal(obs[2], single.reset(seed=9)[0])
    action = np.array([1, 16, 31])
    next_obs, rewards, *_ = venv.step(np.tile(action, (N, 1)))
    expected_obs, expected_reward, *_ = single.step(action)
    np.testing.assert_array_equal(next_obs[2], expected_obs)
    assert rewards[2] == expected_reward


def test_spaces_masks_and_autoreset_modes(tiny):
    venv = make_native_vec(ID, N, **tiny)
    single = MemoryDynamicsEnv(**tiny)
    assert isinstance(venv.unwrapped, MemoryDynamicsVectorEnv)
    assert venv.unwrapped.metadata["autoreset_mode"] == (NEXT_STEP if GYMNASIUM_1 else SAME_STEP)
    assert venv.single_observation_space == single.observation_space
    assert venv.single_action_space == single.action_space
    assert venv.observation_space.shape == (N, len(single.layout))
    assert venv.action_space.shape == (N, 3)
    obs, infos = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    assert infos["action_mask"].shape == (N, 4 + 256 + 128) and infos["action_mask"].all()
    with pytest.raises(ValueError, match="no time limit"):
        MemoryDynamicsVectorEnv(N, **tiny, max_episode_steps=5)


def test_bad_actions_are_refused(tiny):
    venv = MemoryDynamicsVectorEnv(N, **tiny)
    with pytest.raises(gym.error.ResetNeeded):
        venv.step(np.zeros((N, 3), dtype=np.int64))
    venv.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"of shape \(4, 3\)"):
        venv.step(np.zeros(N, dtype=np.int64))
    with pytest.raises(InvalidActionError, match=r"of shape \(4, 3\)"):
        venv.step(np.zeros((N, 3)))  # floats
    with pytest.raises(InvalidActionError, match="must lie in MultiDiscrete"):
        venv.step(np.array([[0, 0, 0]] * 3 + [[4, 0, 0]]))  # page 4 of a 4-page memory


def _row_reward(obs, action, next_obs, info) -> float:
    assert action.shape == (3,) and set(info) >= {"hit", "iou", "windows", "noise_floor"}
    return float(info["iou"]) - float(action[2])


class _BatchReward:
    def __call__(self, obs, action, next_obs, info) -> float:
        return _row_reward(obs, action, next_obs, info)

    def batch(self, obs, actions, next_obs, infos) -> np.ndarray:
        return infos["iou"] - actions[:, 2]


@pytest.mark.parametrize("reward_fn", [_row_reward, _BatchReward()], ids=["rows", "batch"])
def test_custom_rewards_see_the_single_envs_arguments(tiny, reward_fn):
    venv = MemoryDynamicsVectorEnv(N, **tiny, reward_fn=reward_fn)
    single = MemoryDynamicsEnv(**tiny, reward_fn=_row_reward)
    venv.reset(seed=3)
    single.reset(seed=3)
    actions = np.array([[0, 0, 5], [1, 2, 3], [3, 250, 127], [2, 16, 15]])
    _, rewards, _, _, infos = venv.step(actions)
    np.testing.assert_array_equal(rewards, infos["iou"] - actions[:, 2])
    assert rewards[0] == single.step(actions[0])[1]


def test_a_failing_reward_leaves_every_sub_env_as_it_was(tiny, same_results):
    calls = {"n": 0}

    def flaky(obs, action, next_obs, info) -> float:
        calls["n"] += 1
        return float("nan") if calls["n"] == N + 2 else 1.0  # row 1 of the second step

    venv = MemoryDynamicsVectorEnv(N, **tiny, reward_fn=flaky, autoreset_mode="SameStep")
    reference = MemoryDynamicsVectorEnv(N, **tiny, reward_fn=lambda *_: 1.0,
                                        autoreset_mode="SameStep")  # fmt: skip
    same_results(venv.reset(seed=1), reference.reset(seed=1))
    actions = np.tile([0, 8, 7], (N, 1))
    for t in range(6):
        if t == 1:
            with pytest.raises(RewardFunctionError, match="for row 1 of a batch of 4"):
                venv.step(actions)
        same_results(venv.step(actions), reference.step(actions), f"step {t}")
