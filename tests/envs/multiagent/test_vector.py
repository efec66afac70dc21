"""assembly_v0's batched version: sub-env i plays the parallel env's episodes, agent by agent."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from stable_baselines3 import PPO

from assembly_gym.agents.sb3_vec import SB3VecEnv
from assembly_gym.core.errors import DataError, InvalidActionError, RewardFunctionError
from assembly_gym.envs import assembly_v0
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.envs.legislative.rewards import recorded_action_match
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.multiagent.vector import AgentSlotsVectorEnv, AssemblyVectorEnv
from assembly_gym.envs.vector_api import FINAL_OBS, VectorEpisodeStatistics
from assembly_gym.irl.rollcall import fit_reward_model


@functools.cache
def _small() -> RollCallData:
    """8 countries, 3 sessions of 12 roll calls; the last country is absent from session 2."""
    data = generate_assembly(
        SyntheticConfig(n_countries=8, n_blocs=2, n_sessions=3, roll_calls_per_session=12, seed=5)
    ).data
    votes = data.votes.copy()
    votes[7, data.roll_calls["session"].to_numpy() == 2] = ABSENT
    return RollCallData(data.countries, data.roll_calls, votes, "small synthetic")


def _mixed_rewards() -> dict[str, Any]:
    rewards: dict[str, Any] = dict.fromkeys(_small().country_names, recorded_action_match)
    rewards[_small().country_names[0]] = lambda obs, action, next_obs, info: float(action) / 2
    return rewards


def _linear_rewards() -> Any:
    """Learned rewards of the env's own observations (its default features)."""
    model = fit_reward_model(_small(), kind="linear", feature_config=FeatureConfig(), l2=10.0,
                             standard_errors=False)  # fmt: skip
    return model.reward_fns()


def _row(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """Sub-env i's state infos."""
    return {key: infos[key][i] for key in ("agents", "action_mask", "session", "rcid")}


def _assert_state(venv: AssemblyVectorEnv, obs: Any, infos: Any, single: Any) -> None:
    """A sub-env's observations (C, d) and state infos equal the parallel env's."""
    observations, single_infos = single
    present = np.isin(venv.possible_agents, list(observations))
    np.testing.assert_array_equal(infos["agents"], present)
    np.testing.assert_array_equal(infos["action_mask"], present[:, None].repeat(3, axis=1))
    assert not obs[~present].any()  # absent slots: zeros
    for j in np.flatnonzero(present):
        agent = venv.possible_agents[j]
        np.testing.assert_array_equal(obs[j], observations[agent]["observation"])
        assert infos["session"] == single_infos[agent]["session"]
        assert infos["rcid"] == single_infos[agent]["rcid"]


def _compare(n: int, steps: int, seed: int = 3, **kwargs: Any) -> int:
    """Play n sub-envs beside n parallel envs with the same random votes; episodes ended."""
    venv = assembly_v0.vector_env(n, **kwargs)
    singles = [assembly_v0.parallel_env(**kwargs) for _ in range(n)]
    c = len(venv.possible_agents)
    obs, infos = venv.reset(seed=seed)
    assert obs.shape == (n, c, venv.single_observation_space["observation"].shape[0])
    assert (infos["recorded_action"] == ABSENT).all() and (infos["voted_rcid"] == ABSENT).all()
    for i, env in enumerate(singles):
        _assert_state(venv, obs[i], _row(infos, i), env.reset(seed=seed + i))
    rng, ended = np.random.default_rng(seed), 0
    for _ in range(steps):
        actions = rng.integers(0, 3, (n, c))
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert rewards.shape == (n, c) and terminated.shape == truncated.shape == (n,)
        for i, env in enumerate(singles):
            agents = list(env.agents)
            present = np.isin(venv.possible_agents, agents)
            assert not rewards[i][~present].any()
            assert (infos["recorded_action"][i][~present] == ABSENT).all()
            last, r, te, tr, step_infos = env.step(
                {a: int(actions[i, venv.possible_agents.index(a)]) for a in agents}
            )
            for agent in agents:
                j = venv.possible_agents.index(agent)
                assert rewards[i, j] == pytest.approx(r[agent], rel=1e-12)
                assert infos["recorded_action"][i, j] == step_infos[agent]["recorded_action"]
                assert infos["voted_rcid"][i] == step_infos[agent]["voted_rcid"]
                assert (terminated[i], truncated[i]) == (te[agent], tr[agent])
            state = (last, step_infos)
            if terminated[i] or truncated[i]:
                ended += 1
                assert infos["_final_observation"][i]
                first = step_infos[agents[0]]
                final = {"agents": present, "action_mask": present[:, None].repeat(3, axis=1),
                         "session": first["session"], "rcid": first["rcid"]}  # fmt: skip
                _assert_state(venv, infos["final_observation"][i], final, state)
                state = env.reset()
            else:
                assert not infos.get("_final_observation", np.zeros(n, bool))[i]
            _assert_state(venv, obs[i], _row(infos, i), state)
    return ended


@pytest.mark.parametrize(
    "kwargs",
    [
        {"data": "small"},
        {"data": "small", "window": 5, "max_cycles": 3},
        {"data": "small", "rewards": "linear"},
        {"data": "small", "rewards": "mixed"},
    ],
)
def test_sub_envs_play_the_parallel_envs_episodes_on_a_small_assembly(kwargs) -> None:
    options = {"small": _small(), "linear": _linear_rewards(), "mixed": _mixed_rewards()}
    kwargs = {key: options.get(value, value) for key, value in kwargs.items()}
    assert _compare(4, 30, **kwargs) >= 4  # every sub-env restarted at least once


def test_sub_envs_play_the_parallel_envs_episodes_on_the_synthetic_default() -> None:
    assert _compare(3, 12, window=4) >= 3


def test_absent_members_are_masked_out_and_their_actions_ignored() -> None:
    venv = AssemblyVectorEnv(2, data=_small(), session=2)
    obs, infos = venv.reset(seed=0)
    assert infos["agents"][:, :7].all() and not infos["agents"][:, 7].any()
    assert not infos["action_mask"][:, 7].any() and not obs[:, 7].any()
    actions = np.zeros((2, 8), dtype=np.int64)
    actions[:, 7] = 99  # ignored
    obs, rewards, *_ = venv.step(actions)
    assert not rewards[:, 7].any() and not obs[:, 7].any()
    np.testing.assert_array_equal(obs[0, 0, -4:], [1.0, 0.0, 0.0, 1.0])  # all yes, adopted


def test_bad_calls_and_bad_rewards_raise_and_options_apply() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        AssemblyVectorEnv(0, data=_small())
    rewards = _mixed_rewards()
    rewards[_small().country_names[1]] = lambda *args: float("nan")
    venv = AssemblyVectorEnv(2, data=_small(), rewards=rewards)
    with pytest.raises(ResetNeeded):
        venv.step(np.zeros((2, 8), dtype=np.int64))
    obs, infos = venv.reset(seed=0)
    with pytest.raises(InvalidActionError, match="shape"):
        venv.step(np.zeros(16, dtype=np.int64))
    with pytest.raises(InvalidActionError, match=r"action 3 of .* in sub-env 0 is not in"):
        venv.step(np.full((2, 8), 3))
    with pytest.raises(RewardFunctionError):
        venv.step(np.zeros((2, 8), dtype=np.int64))
    venv = AssemblyVectorEnv(2, data=_small())
    with pytest.raises(DataError, match="session 9"):
        venv.reset(seed=0, options={"session": 9})
    _, infos = venv.reset(seed=0, options={"session": 1, "window": 2})
    assert (infos["session"] == 1).all()
    *_, terminated, _, _ = venv.step(np.zeros((2, 8), dtype=np.int64))
    *_, terminated, _, _ = venv.step(np.zeros((2, 8), dtype=np.int64))
    assert terminated.all()


def test_agent_slots_are_the_assemblies_flattened_and_sb3_trains_on_them() -> None:
    kwargs = {"data": _small(), "window": 3}
    assemblies = assembly_v0.vector_env(2, **kwargs)
    slots = VectorEpisodeStatistics(assembly_v0.vector_env(2, agent_slots=True, **kwargs))
    assert slots.unwrapped.num_envs == 16 and slots.unwrapped.single_action_space.n == 3
    expected, infos = assemblies.reset(seed=7)
    obs, slot_infos = slots.reset(seed=[7 + i for i in range(16)])  # SB3's seeds: 7 and 15
    np.testing.assert_array_equal(obs[8:], AssemblyVectorEnv(1, **kwargs).reset(seed=15)[0][0])
    obs, slot_infos = slots.reset(seed=7)
    np.testing.assert_array_equal(obs, expected.reshape(16, -1))
    np.testing.assert_array_equal(slot_infos["agents"], infos["agents"].reshape(-1))
    actions = np.random.default_rng(0).integers(0, 3, (3, 2, 8))
    for step in actions:
        expected, rewards, terminated, _, infos = assemblies.step(step)
        obs, slot_rewards, slot_terminated, _, slot_infos = slots.step(step.reshape(-1))
        np.testing.assert_array_equal(obs, expected.reshape(16, -1))
        np.testing.assert_array_equal(slot_rewards, rewards.reshape(-1))
        np.testing.assert_array_equal(slot_terminated, terminated.repeat(8))
        np.testing.assert_array_equal(slot_infos["session"], infos["session"].repeat(8))
    assert slot_terminated.all() and slot_infos["_episode"].all()
    np.testing.assert_array_equal(
        np.stack(slot_infos[FINAL_OBS]), infos["final_observation"].reshape(16, -1)
    )
    masks = slots.unwrapped.action_masks()
    np.testing.assert_array_equal(masks, infos["action_mask"].reshape(16, 3))
    with pytest.raises(ValueError, match="SameStep|same-step"):
        AgentSlotsVectorEnv(2, autoreset_mode="NextStep", data=_small())
    venv = SB3VecEnv(assembly_v0.vector_env(2, agent_slots=True, **kwargs))
    PPO("MlpPolicy", venv, n_steps=8, batch_size=64, device="cpu", seed=0).learn(128)
