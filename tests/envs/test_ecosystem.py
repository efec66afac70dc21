"""Every registered id under the ecosystem's own tools, on Gymnasium 0.29 and 1.x alike.

Gymnasium's and SB3's env checkers with warnings as errors; bounded observation spaces and a
fresh, writable array for every observation; one info layout at reset and step; SB3's
``make_vec_env`` with ``DummyVecEnv`` and ``SubprocVecEnv`` (fresh worker processes); PPO, DQN
and MaskablePPO trained from the id string.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3 import DQN, PPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.envs.legislative.deliberation import resolution_records
from assembly_gym.envs.legislative.transitions import deliberation_transitions
from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
from assembly_gym.envs.registration import ENV_IDS
from assembly_gym.world_models.empirical import EmpiricalModel

GYMNASIUM_1 = int(gym.__version__.split(".")[0]) >= 1
MAX_STEPS = 30
"""Rollouts stop here if the episode has not ended (every env's episodes are shorter)."""


@pytest.fixture(scope="module")
def make_kwargs(small_assembly, small_unvotes_folder, tmp_path_factory) -> dict[str, dict]:
    """Keyword arguments of a small env per id, text and numbers only: a fresh worker process
    unpickles them without importing ``assembly_gym`` (which would register the ids)."""
    model_folder = tmp_path_factory.mktemp("simulator") / "model"
    records = resolution_records(small_assembly)
    EmpiricalModel().fit(deliberation_transitions(records)).save(model_folder)
    legislative = {"data": str(small_unvotes_folder)}
    return {
        "assembly/RollCall-v0": legislative,
        "assembly/Deliberation-v0": legislative,
        "assembly/Simulator-v0": {"model": str(model_folder)},
        "assembly/MemoryDynamics-v0": {
            "difficulty": "easy", "num_words": 1024, "sequence_length": 4,
        },
    }  # fmt: skip


@pytest.fixture(params=sorted(ENV_IDS))
def env_id(request, make_kwargs) -> str:
    assert request.param in make_kwargs, f"give test_ecosystem.py a small {request.param}"
    return request.param


def _rollouts(env: gym.Env, seeds: tuple[int, ...]) -> list[tuple[Any, dict]]:
    """(observation, info) of every reset and step of one episode per seed."""
    returned = []
    for seed in seeds:
        env.action_space.seed(seed)
        returned.append(env.reset(seed=seed))
        for _ in range(MAX_STEPS):
            obs, _, terminated, truncated, info = env.step(env.action_space.sample())
            returned.append((obs, info))
            if terminated or truncated:
                break
    return returned


def _arrays(value: Any) -> list[np.ndarray]:
    """Every array in an observation or info (nested dicts included)."""
    if isinstance(value, dict):
        return [array for item in value.values() for array in _arrays(item)]
    return [value] if isinstance(value, np.ndarray) else []


def _layout(info: dict) -> dict:
    """Keys of an info with the type (arrays: dtype and shape) of each value, recursively."""
    return {
        key: _layout(value)
        if isinstance(value, dict)
        else (value.dtype.str, value.shape)
        if isinstance(value, np.ndarray)
        else type(value).__name__
        for key, value in info.items()
    }


# ---------------------------------------------------------------------- strict checkers


def test_gymnasium_check_env_passes_with_warnings_as_errors(env_id, make_kwargs):
    env = gym.make(env_id, **make_kwargs[env_id]).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


def test_sb3_check_env_passes_with_warnings_as_errors(env_id, make_kwargs):
    env = gym.make(env_id, **make_kwargs[env_id]).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(env, warn=True)


def test_every_observation_is_a_fresh_writable_array_inside_a_bounded_box(env_id, make_kwargs):
    env = gym.make(env_id, **make_kwargs[env_id])
    space = env.observation_space
    assert isinstance(space, gym.spaces.Box) and space.is_bounded("both")
    returned = _rollouts(env, seeds=(0, 1))
    for obs, _ in returned:
        assert obs.dtype == np.float32 and obs.flags.writeable and obs in space
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # torch warns on read-only arrays
            torch.from_numpy(obs)
    arrays = [array for pair in returned for array in _arrays(pair)]
    for a, b in itertools.combinations(arrays, 2):
        assert not np.shares_memory(a, b)


def test_reset_and_step_infos_have_one_layout(env_id, make_kwargs):
    env = gym.make(env_id, **make_kwargs[env_id])
    layouts = [_layout(info) for _, info in _rollouts(env, seeds=(0, 1))]
    assert all(layout == layouts[0] for layout in layouts)


def test_memory_states_never_leave_the_box_even_with_large_noise():
    settings = {"difficulty": "hard", "num_words": 1024, "sequence_length": 4,
                "noise_std": 1.0, "initial_std": 2.0}  # fmt: skip
    config = MemoryWorldConfig(**settings)
    states = MemoryWorld(config).sample_episodes(500, np.random.default_rng(0)).states
    assert np.abs(states).max() <= np.float32(config.state_bound)
    env = gym.make("assembly/MemoryDynamics-v0", **settings)
    assert all(obs in env.observation_space for obs, _ in _rollouts(env, seeds=tuple(range(20))))
    assert MemoryWorldConfig().state_bound == pytest.approx(3.0 - 0.8**20)  # the docstring's 2.99
    assert np.isfinite(MemoryWorldConfig(decay=1.0).state_bound)  # no fixed point, still finite


# ---------------------------------------------------------------------- SB3 make_vec_env


def _step_vec_env(vec_env: Any, steps: int = 6) -> None:
    vec_env.seed(0)
    vec_env.action_space.seed(0)
    obs = vec_env.reset()
    for _ in range(steps):
        assert obs.shape == (2, *vec_env.observation_space.shape)
        assert all(row in vec_env.observation_space for row in obs)
        actions = np.stack([vec_env.action_space.sample() for _ in range(2)])
        obs, _, _, _ = vec_env.step(actions)
    vec_env.close()


def test_make_vec_env_with_dummy_vec_env(env_id, make_kwargs):
    vec_env = make_vec_env(
        env_id, n_envs=2, env_kwargs=make_kwargs[env_id], vec_env_cls=DummyVecEnv
    )
    _step_vec_env(vec_env)


def test_make_vec_env_with_subproc_vec_env_in_fresh_processes(env_id, make_kwargs):
    """Spawned workers know nothing: the id alone must register the envs there.

    Gymnasium 0.29 registers them through the ``gymnasium.envs`` entry point on ``import
    gymnasium``; 1.x has no plugin hook, so the ``"assembly_gym:…"`` form imports the package.
    """
    worker_id = env_id if not GYMNASIUM_1 else f"assembly_gym:{env_id}"
    vec_env = make_vec_env(
        worker_id,
        n_envs=2,
        env_kwargs=make_kwargs[env_id],
        vec_env_cls=SubprocVecEnv,
        vec_env_kwargs={"start_method": "spawn"},
    )
    _step_vec_env(vec_env)


# ---------------------------------------------------------------------- SB3 training

_ALGORITHMS = {
    "PPO": (PPO, {"n_steps": 32, "batch_size": 32, "n_epochs": 1}),
    "DQN": (DQN, {"buffer_size": 256, "learning_starts": 16, "batch_size": 16}),
    "MaskablePPO": (MaskablePPO, {"n_steps": 32, "batch_size": 32, "n_epochs": 1}),
}


@pytest.mark.parametrize("algorithm", sorted(_ALGORITHMS))
def test_sb3_algorithms_train_from_the_id_string(algorithm, env_id, make_kwargs):
    vec_env = make_vec_env(env_id, n_envs=1, env_kwargs=make_kwargs[env_id], seed=0)
    if algorithm == "DQN" and not isinstance(vec_env.action_space, gym.spaces.Discrete):
        pytest.skip(f"DQN takes Discrete actions; {env_id} has {vec_env.action_space}")
    cls, settings = _ALGORITHMS[algorithm]
    model = cls("MlpPolicy", vec_env, seed=0, device="cpu", **settings).learn(total_timesteps=64)
    obs = vec_env.reset()
    if algorithm == "MaskablePPO":
        masks = get_action_masks(vec_env)
        action = model.predict(obs, action_masks=masks, deterministic=True)[0][0]
        if isinstance(vec_env.action_space, gym.spaces.Discrete):
            assert masks[0, action]  # the policy keeps to the env's mask
    else:
        action = model.predict(obs, deterministic=True)[0][0]
    assert vec_env.action_space.contains(action)


@pytest.mark.parametrize("algorithm", sorted(_ALGORITHMS))
def test_sb3_algorithms_make_the_env_from_a_bare_id(algorithm, tmp_path: Path):
    """SB3 builds the env itself (``gym.make(id, render_mode="rgb_array")``), defaults only."""
    cls, settings = _ALGORITHMS[algorithm]
    model = cls("MlpPolicy", "assembly/Deliberation-v0", seed=0, device="cpu", **settings)
    model.learn(total_timesteps=64)
    model.save(tmp_path / "agent")
    assert (tmp_path / "agent.zip").is_file()
