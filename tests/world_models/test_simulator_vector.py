"""The native vector Simulator-v0: one sub-env equals the single env exactly, many in law.

Sub-env i starts as the single env seeded ``seed + i``. One generator (sub-env 0's) draws
the batch's steps, so with one sub-env the draws are the single env's (every step, info and
autoreset equal to ``SyncVectorEnv`` of the single env), and with many sub-envs each follows
the single env's distribution (compared on the visited states).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.errors import InvalidActionError, RewardFunctionError
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.registration import make_native_vec
from assembly_gym.envs.vector_api import (
    AUTORESET_MODES,
    FINAL_OBS,
    GYMNASIUM_1,
    NEXT_STEP,
    SAME_STEP,
    VectorEpisodeStatistics,
    sync_vector_env,
)
from assembly_gym.world_models.simulator_vector import SimulatorVectorEnv

ENV_ID = "assembly/Simulator-v0"


def _actions(rng, masks):
    """A random valid action per sub-env (0 where none is valid: the episode is over)."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


@pytest.fixture(scope="module")
def families(models, rollcall_models):
    """(model, steps) per case: stages (Deliberation) and a done head (RollCall), both models."""
    return {
        "delib-empirical": models["empirical"], "delib-mlp": models["mlp"],
        "rollcall-empirical": rollcall_models["empirical"], "rollcall-mlp": rollcall_models["mlp"],
    }  # fmt: skip


@pytest.mark.parametrize("mode", AUTORESET_MODES, ids=str)
@pytest.mark.parametrize("case", ["delib-empirical", "delib-mlp", "rollcall-empirical",
                                  "rollcall-mlp"])  # fmt: skip
def test_one_sub_env_equals_the_single_env(families, case, mode, lockstep):
    model = families[case]
    native = VectorEpisodeStatistics(make_native_vec(ENV_ID, 1, model=model, autoreset_mode=mode))
    sync = VectorEpisodeStatistics(sync_vector_env([lambda: gym.make(ENV_ID, model=model)], mode))
    assert native.unwrapped.metadata["autoreset_mode"] == mode
    episodes = lockstep(native, sync, seed=7, steps=60, idle=0)
    assert episodes >= 2  # autoresets were exercised
    assert list(native.return_queue) == list(sync.return_queue)
    assert list(native.length_queue) == list(sync.length_queue)


@pytest.mark.parametrize("case", ["delib-empirical", "rollcall-mlp"])
def test_sub_env_i_starts_as_the_single_env_seeded_seed_plus_i(families, case):
    model = families[case]
    venv = make_native_vec(ENV_ID, 6, model=model, autoreset_mode=SAME_STEP)
    obs, infos = venv.reset(seed=11)
    env = gym.make(ENV_ID, model=model)
    for i in range(6):
        single, info = env.reset(seed=11 + i)
        np.testing.assert_array_equal(obs[i], single)
        np.testing.assert_array_equal(infos["action_mask"][i], info["action_mask"])
    assert len({row.tobytes() for row in obs}) > 1  # the seeds drew different starts


@pytest.mark.parametrize("case", ["delib-empirical", "rollcall-mlp"])
def test_many_sub_envs_follow_the_single_envs_distribution(families, case):
    """Mean visited state and episodes ended over 4,096 steps each, seeded: close."""
    model, n, steps = families[case], 32, 128
    venv = SimulatorVectorEnv(n, model=model, autoreset_mode=SAME_STEP)
    obs, infos = venv.reset(seed=1)
    rng, visited, ended = np.random.default_rng(0), [obs], 0
    for _ in range(steps):
        obs, _, terminated, truncated, infos = venv.step(_actions(rng, infos["action_mask"]))
        visited.append(obs)
        ended += int((terminated | truncated).sum())
    env = gym.make(ENV_ID, model=model)
    obs, info = env.reset(seed=2)
    single, episodes = [obs], 0
    for _ in range(n * steps):
        obs, _, terminated, truncated, info = env.step(_actions(rng, [info["action_mask"]])[0])
        if terminated or truncated:  # as same-step autoreset: the next start is what is seen
            episodes += 1
            obs, info = env.reset()
        single.append(obs)
    np.testing.assert_allclose(np.concatenate(visited).mean(0), np.mean(single, axis=0), atol=0.05)
    assert ended == pytest.approx(episodes, rel=0.1)


def test_same_step_autoreset_hands_over_the_final_state(models):
    venv = SimulatorVectorEnv(8, model=models["empirical"], autoreset_mode=SAME_STEP)
    venv.reset(seed=0)
    starts = {s.tobytes() for s in models["empirical"].start_states}
    for _ in range(10):
        obs, _, terminated, truncated, infos = venv.step(np.full(8, Action.NO_ACTION))
        ended = terminated | truncated
        if ended.any():
            break
    assert ended.any() and np.array_equal(infos[f"_{FINAL_OBS}"], ended)
    for i in np.flatnonzero(ended):
        assert infos[FINAL_OBS][i] is not None and obs[i].tobytes() in starts
        assert infos["step"][i] == 0 and infos["stage"][i] == "DRAFT"


@pytest.mark.skipif(not GYMNASIUM_1, reason="Gymnasium 0.29 has the same-step rule only")
def test_next_step_autoreset_resets_on_the_following_step(models):
    venv = SimulatorVectorEnv(4, model=models["empirical"])
    assert venv.metadata["autoreset_mode"] == NEXT_STEP
    venv.reset(seed=0)
    for _ in range(10):
        _, _, terminated, _, infos = venv.step(np.full(4, Action.NO_ACTION))
        if terminated.any():
            break
    assert not infos["action_mask"][terminated].any()  # ended: no valid action
    obs, rewards, terminated_next, _, infos = venv.step(np.full(4, Action.NO_ACTION))
    assert (infos["step"][terminated] == 0).all() and (rewards[terminated] == 0).all()
    assert not terminated_next[terminated].any()


def test_invalid_actions_rewards_and_errors(models):
    model = models["empirical"]
    with pytest.raises(gym.error.ResetNeeded):
        SimulatorVectorEnv(2, model=model).step(np.zeros(2, dtype=np.int64))
    venv = SimulatorVectorEnv(2, model=model, reward_fn=lambda o, a, n, info: float(a))
    _, infos = venv.reset(seed=0)
    invalid = int(np.flatnonzero(~infos["action_mask"][0])[0])
    _, rewards, _, _, infos = venv.step(np.array([invalid, Action.NO_ACTION]))
    assert infos["invalid_action"].tolist() == [True, False]
    assert rewards.tolist() == [float(Action.NO_ACTION)] * 2  # replaced by the no-op
    with pytest.raises(InvalidActionError):
        venv.step(np.array([0, 9]))
    strict = SimulatorVectorEnv(2, model=model, invalid_action="raise")
    strict.reset(seed=0)
    with pytest.raises(InvalidActionError):
        strict.step(np.array([invalid, invalid]))
    failing = SimulatorVectorEnv(2, model=model, reward_fn=lambda o, a, n, info: np.nan)
    obs, _ = failing.reset(seed=0)
    state = failing.np_random.bit_generator.state
    with pytest.raises(RewardFunctionError):
        failing.step(np.full(2, Action.NO_ACTION))
    assert failing.np_random.bit_generator.state == state
    np.testing.assert_array_equal(failing._obs, obs)


def test_start_state_option_and_seeds(models):
    model = models["empirical"]
    venv = SimulatorVectorEnv(3, model=model)
    start = model.start_states[1]
    obs, _ = venv.reset(seed=0, options={"start_state": start})
    assert (obs == start).all()
    with pytest.raises(ValueError, match="seeds for 3 sub-envs"):
        venv.reset(seed=[1, 2])
    a, _ = venv.reset(seed=[5, 6, 7])  # a list (as SB3 passes): its first seed
    b, _ = venv.reset(seed=5)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="num_envs"):
        SimulatorVectorEnv(0, model=model)
