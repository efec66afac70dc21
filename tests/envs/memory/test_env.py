import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import assembly_gym  # noqa: F401  (registers the assembly/ ids)
from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.memory import MemoryDynamicsEnv, ReadPredictionReward


# s_{t-1} and s_t are unbounded (Gaussian noise): the checker's warning about it is expected.
@pytest.mark.filterwarnings("ignore:.*infinity.*:UserWarning")
def test_registered_env_passes_both_checkers(tiny):
    env = gym.make("assembly/MemoryDynamics-v0", **tiny)
    check_env(env.unwrapped)
    sb3_check_env(MemoryDynamicsEnv(**tiny))
    assert env.action_space.nvec.tolist() == [4, 256, 128]
    assert len(env.unwrapped.layout) == env.observation_space.shape[0] == 2 * 64 + 32 + 32 + 4


def test_default_env_has_the_issue_sizes():
    env = MemoryDynamicsEnv()
    assert env.action_space.nvec.tolist() == [256, 256, 128]
    assert env.world.memory.num_words == 65_536 and env.world.memory.words.dtype == np.uint32
    assert env.config.difficulty == "medium" and env.config.sequence_length == 20


def test_a_perfect_read_earns_the_noise_floor_and_episodes_end_after_t_steps(tiny):
    env = MemoryDynamicsEnv(**tiny, render_mode="ansi")
    obs, info = env.reset(seed=5)
    assert np.all(obs[env.world.layout.slices["read_bits"]] == 0)
    for t in range(4):
        ((start, length),) = env.relevant_windows()
        obs, reward, terminated, truncated, info = env.step(
            np.array([start // 256, start % 256, length - 1])
        )
        assert reward == pytest.approx(info["noise_floor"], abs=1e-6)
        assert info["hit"] and info["iou"] == 1.0
        assert obs[env.layout.index("step")] == pytest.approx((t + 1) / 4)
        assert terminated == (t == 3) and not truncated
    text = env.render()
    assert "region 1" in text and "*" in text and "IoU 1.00" in text
    with pytest.raises(gym.error.ResetNeeded):
        env.step(np.array([0, 0, 0]))


def test_reward_of_one_read_on_medium_counts_the_other_region_as_unknown(tiny, explicit_mean_bits):
    env = MemoryDynamicsEnv(**{**tiny, "difficulty": "medium"})
    obs, _ = env.reset(seed=1)
    start, length = env.relevant_windows()[0]
    action = np.array([start // 256, start % 256, length - 1])
    next_obs, reward, *_ = env.step(action)
    layout = env.world.layout
    bits = explicit_mean_bits(env.world.memory, start, length)
    prediction = (
        0.8 * layout.part(obs, "s")
        + 0.15 * np.resize(np.where(bits > 0.5, 1, -1), 64) / 2
        + 0.05 * np.resize(layout.part(obs, "c"), 64)
    )
    assert reward == pytest.approx(
        -np.mean((prediction - layout.part(next_obs, "s")) ** 2), abs=1e-5
    )
    batched = ReadPredictionReward(env.world).batch(obs[None], action[None], next_obs[None], {})
    assert batched[0] == pytest.approx(reward)


def test_env_clips_a_read_at_the_end_of_memory(tiny, explicit_mean_bits):
    env = MemoryDynamicsEnv(**tiny, render_mode="ansi")
    env.reset(seed=0)
    obs, *_ = env.step(np.array([3, 250, 127]))  # words 1018 … 1145 asked, 1018 … 1023 read
    layout = env.world.layout
    np.testing.assert_allclose(
        layout.part(obs, "read_bits"), explicit_mean_bits(env.world.memory, 1018, 6), atol=1e-6
    )
    page, offset, length = layout.part(obs, "read_address")
    assert (page, offset) == pytest.approx((3 / 4, 250 / 256)) and length == pytest.approx(6 / 128)
    assert "length   6 (words 1018–1023)" in env.render()


def test_invalid_actions_and_arguments_are_refused(tiny, tiny_world):
    env = MemoryDynamicsEnv(**tiny)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(np.array([0, 0, 0]))
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="page, offset, length - 1"):
        env.step(np.array([4, 0, 0]))
    with pytest.raises(InvalidActionError):
        env.step(np.array([0.5, 0, 0]))
    with pytest.raises(ValueError, match="either world"):
        MemoryDynamicsEnv(world=tiny_world(), difficulty="easy")
    assert env.action_masks().all() and env.action_masks().shape == (4 + 256 + 128,)


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_the_default_reward_is_the_reward_function_of_the_observations(tiny, difficulty):
    env = MemoryDynamicsEnv(**{**tiny, "difficulty": difficulty})
    reward_fn = ReadPredictionReward(env.world)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=4)
    for t in range(8):
        action = rng.integers(0, env.action_space.nvec)
        if t % 2:
            start, length = env.relevant_windows()[0]
            action = np.array([start // 256, start % 256, length - 1])
        next_obs, reward, terminated, _, info = env.step(action)
        assert reward == reward_fn(obs, action, next_obs, info)  # exactly
        assert reward_fn.batch(obs[None], action[None], next_obs[None], {}).tolist() == [reward]
        obs = env.reset()[0] if terminated else next_obs
