"""split= and sessions= of the legislative envs, and the smallest session an episode draws."""

from __future__ import annotations

from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.benchmarks.splits import TemporalSplit
from assembly_gym.core.paths import unvotes_dir
from assembly_gym.envs.legislative import default_assembly
from assembly_gym.envs.legislative.data import ABSENT
from assembly_gym.envs.legislative.deliberation import DeliberationEnv, resolution_records
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.observation import RollCallFeatures
from assembly_gym.envs.legislative.rollcall import MIN_SESSION_VOTES, RollCallEnv
from assembly_gym.envs.legislative.sources import default_last_train_session
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.legislative.vector import RollCallVectorEnv

IDS = ("assembly/RollCall-v0", "assembly/Deliberation-v0")


def drawn_sessions(env: gym.Env, seeds: int = 40) -> set[int]:
    return {env.reset(seed=seed)[1]["session"] for seed in range(seeds)}


def test_the_default_boundary_is_the_harness_s():
    data = default_assembly().data
    assert default_last_train_session(data.sessions) == TemporalSplit.of(data).last_train_session
    assert default_last_train_session(np.arange(1, 70)) == 60  # the real votes: 1–60, 61–69


@pytest.mark.parametrize("env_id", IDS)
def test_split_draws_train_or_test_sessions_only(env_id):
    last = TemporalSplit.of(default_assembly().data).last_train_session
    train = drawn_sessions(gym.make(env_id, country="Country 001", split="train"))
    test = drawn_sessions(gym.make(env_id, country="Country 001", split="test"))
    assert max(train) <= last < min(test)
    assert drawn_sessions(gym.make(env_id, sessions=(3, 5))) <= {3, 4, 5}
    everything = drawn_sessions(gym.make(env_id, country="Country 001"))
    assert min(everything) <= last < max(everything)  # None: every session, as before


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"split": "train", "sessions": (1, 5)}, "not both"),
        ({"split": "validation"}, "split must be"),
        ({"sessions": 5}, "pair"),
    ],
)
def test_bad_split_arguments_raise_one_clear_error(env_id, kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(env_id, **kwargs)


def test_the_test_split_is_described_by_the_training_sessions_only():
    data = default_assembly().data
    split = TemporalSplit.of(data)
    env = RollCallEnv(split="test", country="Country 002")
    expected = RollCallFeatures(
        split.test.roll_calls, history=split.train, config=env.features.config
    ).for_country("Country 002")
    np.testing.assert_array_equal(env.country_features("Country 002"), expected)
    obs, info = env.reset(seed=1)
    column = np.flatnonzero(split.test.roll_calls["rcid"].to_numpy() == info["rcid"])[0]
    np.testing.assert_array_equal(obs, expected[column])


def test_deliberation_s_test_split_knows_the_training_sessions_only():
    records = resolution_records()
    session = records.resolutions["session"].to_numpy()
    last = default_last_train_session(np.unique(session))
    train, test = (
        records.select(np.flatnonzero(keep)) for keep in (session <= last, session > last)
    )
    env = DeliberationEnv(split="test")
    assert env.records.n_resolutions == test.n_resolutions
    fitted = EmpiricalDynamics.fit(train)
    np.testing.assert_array_equal(env.dynamics.sponsor_by_issue, fitted.sponsor_by_issue)
    expected = RollCallFeatures(
        test.resolutions, history=train.plenary_history(), config=env.features.config
    ).for_country("Country 003")
    np.testing.assert_array_equal(env.country_features("Country 003"), expected)


def test_the_vector_env_draws_the_single_env_s_split_episodes():
    single = RollCallEnv(split="test")
    venv = RollCallVectorEnv(2, split="test")
    _, infos = venv.reset(seed=4)
    assert set(infos["session"]) <= set(single.data.sessions)


def _with_a_tiny_session():
    """Country 001 votes once in session 2; the other sessions are full."""
    data = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=4, seed=2)).data
    votes, row = data.votes.copy(), data.country_index("Country 001")
    in_two = np.flatnonzero(data.roll_calls["session"].to_numpy() == 2)
    votes[row, in_two[votes[row, in_two] != ABSENT][1:]] = ABSENT
    return replace(data, votes=votes)


def test_a_session_too_small_is_never_drawn_but_can_be_asked_for():
    data = _with_a_tiny_session()
    env = RollCallEnv(data, country="Country 001")
    assert 2 not in drawn_sessions(env, seeds=60)
    obs, info = env.reset(seed=0, options={"session": 2})  # asked for: played, one step
    assert info["session"] == 2
    assert env.step(0)[2]  # terminated after its single roll call
    others = RollCallEnv(data, country="Country 002")
    assert 2 in drawn_sessions(others, seeds=60)


def test_a_country_with_only_small_sessions_still_has_episodes():
    data = generate_assembly(
        SyntheticConfig(n_countries=4, n_sessions=3, roll_calls_per_session=5, seed=1)
    ).data
    assert drawn_sessions(RollCallEnv(data, country="Country 001"), seeds=30) == {1, 2, 3}


def test_seeded_resets_stay_deterministic():
    one, two = RollCallEnv(split="train"), RollCallEnv(split="train")
    for seed in range(5):
        first, second = one.reset(seed=seed), two.reset(seed=seed)
        np.testing.assert_array_equal(first[0], second[0])
        assert first[1]["rcid"] == second[1]["rcid"]


@pytest.mark.skipif(unvotes_dir() is None, reason="real data not found")
def test_france_s_first_real_episode_is_a_real_session():
    env = gym.make("assembly/RollCall-v0", country="France", data="unvotes")
    _, info = env.reset(seed=0)
    assert info["session"] != 19
    assert len(env.unwrapped._episode["columns"]) >= MIN_SESSION_VOTES
    test = gym.make("assembly/RollCall-v0", country="France", data="unvotes", split="test")
    assert 61 <= test.reset(seed=0)[1]["session"] <= 69


@pytest.mark.parametrize("variant", ["rollcall", "deliberation"])
def test_assembly_v0_draws_the_split_s_sessions(variant):
    from assembly_gym.envs import assembly_v0

    last = TemporalSplit.of(default_assembly().data).last_train_session

    def sessions(**kwargs) -> set[int]:
        env = assembly_v0.parallel_env(variant=variant, **kwargs)
        return {next(iter(env.reset(seed=s)[1].values()))["session"] for s in range(30)}

    assert max(sessions(split="train")) <= last < min(sessions(split="test"))
    assert sessions(sessions=(3, 4)) <= {3, 4}
    with pytest.raises(ValueError, match="not both"):
        assembly_v0.parallel_env(variant=variant, split="test", sessions=(1, 2))


def test_assembly_v0_s_test_split_is_described_by_the_training_sessions_only():
    from assembly_gym.envs import assembly_v0

    split = TemporalSplit.of(default_assembly().data)
    env = assembly_v0.parallel_env(split="test")
    observations, infos = env.reset(seed=2, options={"window": 1})
    agent = env.agents[0]
    expected = RollCallFeatures(
        split.test.roll_calls, history=split.train, config=env.feature_config
    ).for_country(agent)
    column = np.flatnonzero(split.test.roll_calls["rcid"].to_numpy() == infos[agent]["rcid"])[0]
    np.testing.assert_array_equal(observations[agent]["observation"][: env.n_own], expected[column])
