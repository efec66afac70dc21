"""SB3VecEnv: the native vector envs as Stable-Baselines3 VecEnvs, for PPO and MaskablePPO."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecCheckNan

import assembly_gym  # noqa: F401
from assembly_gym.agents.sb3_vec import SB3VecEnv
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.registration import make_native_vec
from assembly_gym.envs.vector_api import GYMNASIUM_1, SAME_STEP, VectorEpisodeStatistics

N = 4


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=4, roll_calls_per_session=12, seed=5)
    )


def _venv(assembly, env_id="assembly/RollCall-v0", **kwargs):
    native = make_native_vec(env_id, N, data=assembly, autoreset_mode=SAME_STEP, **kwargs)
    return SB3VecEnv(VectorEpisodeStatistics(native))


def test_steps_like_sb3s_own_vec_env(assembly):
    """The same observations, rewards, dones and terminal observations as DummyVecEnv."""
    ours = _venv(assembly)
    theirs = make_vec_env("assembly/RollCall-v0", n_envs=N, env_kwargs={"data": assembly})
    ours.seed(3)
    theirs.seed(3)
    np.testing.assert_array_equal(ours.reset(), theirs.reset())
    ended = 0
    for action in np.random.default_rng(0).integers(0, 3, (30, N)):
        obs, rewards, dones, infos = ours.step(action)
        expected_obs, expected_rewards, expected_dones, expected_infos = theirs.step(action)
        np.testing.assert_array_equal(obs, expected_obs)
        np.testing.assert_array_equal(rewards, expected_rewards)
        np.testing.assert_array_equal(dones, expected_dones)
        for i in np.flatnonzero(dones):
            np.testing.assert_array_equal(
                infos[i]["terminal_observation"], expected_infos[i]["terminal_observation"]
            )
            assert infos[i]["TimeLimit.truncated"] is False
            assert infos[i]["episode"]["l"] == expected_infos[i]["episode"]["l"]
            assert infos[i]["episode"]["r"] == pytest.approx(expected_infos[i]["episode"]["r"])
            ended += 1
        assert [info["rcid"] for info in infos] == [info["rcid"] for info in expected_infos]
        assert [info["rcid"] for info in ours.reset_infos] == [
            info["rcid"] for info in theirs.reset_infos
        ]
    assert ended >= N


def test_ppo_learns_through_vec_check_nan(assembly):
    venv = VecCheckNan(_venv(assembly), raise_exception=True)
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256
    assert len(model.ep_info_buffer) > 0  # the statistics wrapper's episodes reached SB3


def test_maskable_ppo_learns_on_deliberation(assembly):
    venv = _venv(assembly, "assembly/Deliberation-v0")
    venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    np.testing.assert_array_equal(masks, venv.action_masks())
    assert masks.shape == (N, 5) and not masks.all()  # DRAFT: votes are masked
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                        device="cpu")  # fmt: skip
    model.learn(total_timesteps=128)
    assert model.num_timesteps == 128


def test_bad_uses_get_one_clear_error(assembly):
    # 1.x's vector envs reset on the next step by default; 0.29's SyncVectorEnv declares no rule
    with pytest.raises(ValueError, match="autoreset_mode='SameStep'"):
        SB3VecEnv(gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")]))
    if GYMNASIUM_1:
        with pytest.raises(ValueError, match="autoreset_mode='SameStep'"):
            SB3VecEnv(make_native_vec("assembly/RollCall-v0", N, data=assembly))
    venv = _venv(assembly)
    assert venv.get_attr("layout") == [venv.venv.unwrapped.layout] * N
    with pytest.raises(ValueError, match="one row per sub-env"):
        venv.env_method("reset")  # returns (observations, infos)
    with pytest.raises(ValueError, match="share their attributes"):
        venv.set_attr("x", 1, indices=[0])
    venv.set_options([{"country": "Country 001"}, {}, {}, {}])
    with pytest.raises(ValueError, match="share one options dict"):
        venv.reset()
