"""assembly/RollCall-v0: the env contract, seeding, options, errors, info, rewards, real data."""

from __future__ import annotations

from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.errors import DataError, InvalidActionError
from assembly_gym.core.paths import unvotes_dir
from assembly_gym.envs.legislative.data import ABSENT, RollCallData, Vote
from assembly_gym.envs.legislative.phi import ActionFeatureMap
from assembly_gym.envs.legislative.rewards import LinearReward, recorded_action_match
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

ENV_ID = "assembly/RollCall-v0"
ACTION_NAMES = tuple(v.name.lower() for v in Vote)
INFO_KEYS = {"country", "session", "rcid", "symbol", "title", "description", "action_mask"}


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=4, roll_calls_per_session=12, seed=3)
    )


@pytest.fixture(scope="module")
def data(assembly) -> RollCallData:
    return assembly.data


@pytest.fixture()
def env(data) -> RollCallEnv:
    return RollCallEnv(data)


def _rollout(env, seed, options=None, actions_seed=0):
    """Obs, rewards and infos of one episode with seeded random actions."""
    rng = np.random.default_rng(actions_seed)
    obs, info = env.reset(seed=seed, options=options)
    observations, rewards, infos = [obs.copy()], [], [info]
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(int(rng.integers(3)))
        assert not truncated
        observations.append(obs.copy())
        rewards.append(reward)
        infos.append(info)
    return np.array(observations), np.array(rewards), infos


def _same_infos(a: list[dict], b: list[dict]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x.keys() != y.keys():
            return False
        for key in x:
            if not np.array_equal(np.asarray(x[key]), np.asarray(y[key])):
                return False
    return True


def _column(data: RollCallData, rcid: int) -> int:
    return int(np.flatnonzero(data.roll_calls["rcid"].to_numpy() == rcid)[0])


# ---------------------------------------------------------------------- checkers


def test_spaces_layout_and_observations_in_the_box(env):
    assert env.action_space == gym.spaces.Discrete(3)
    assert env.observation_space.dtype == np.float32
    assert env.observation_space.shape == (len(env.layout),)
    assert len(set(env.layout.names)) == len(env.layout)
    for seed in range(4):
        observations, _, _ = _rollout(env, seed)
        assert observations.dtype == np.float32
        assert all(env.observation_space.contains(o) for o in observations)


# ---------------------------------------------------------------------- seeding


def test_reset_without_seed_continues_the_seeded_stream(data):
    first, second = RollCallEnv(data), RollCallEnv(data)
    first.reset(seed=3)
    second.reset(seed=3)
    assert _same_infos([first.reset()[1]], [second.reset()[1]])


# ---------------------------------------------------------------------- options


def test_reset_options_country_and_session(env, data):
    country = data.country_names[2]
    row = data.country_index(country)
    session = 2
    observations, rewards, infos = _rollout(env, 0, {"country": country, "session": session})
    voted = (data.votes[row] != ABSENT) & (data.roll_calls["session"].to_numpy() == session)
    assert len(rewards) == voted.sum()
    assert {i["country"] for i in infos} == {country}
    assert {i["session"] for i in infos} == {session}
    assert [i["rcid"] for i in infos[:-1]] == data.roll_calls["rcid"][voted].tolist()


def test_constructor_country_and_session_are_defaults_that_options_override(data):
    env = RollCallEnv(data, country=data.country_names[1], session=3)
    _, info = env.reset(seed=0)
    assert (info["country"], info["session"]) == (data.country_names[1], 3)
    _, info = env.reset(options={"country": data.country_names[4], "session": 1})
    assert (info["country"], info["session"]) == (data.country_names[4], 1)


@pytest.mark.parametrize("how", ["constructor", "options"])
def test_window_gives_consecutive_votes(data, how):
    country = data.country_names[0]
    row = data.country_index(country)
    env = RollCallEnv(data, window=5) if how == "constructor" else RollCallEnv(data)
    options = {"country": country} if how == "constructor" else {"country": country, "window": 5}
    _, rewards, infos = _rollout(env, 1, options)
    assert len(rewards) == 5
    columns = [_column(data, i["rcid"]) for i in infos[:-1]]
    voted = np.flatnonzero(data.votes[row] != ABSENT)
    start = int(np.flatnonzero(voted == columns[0])[0])
    assert columns == voted[start : start + 5].tolist()


def test_unknown_country_is_a_data_error(data, env):
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        env.reset(options={"country": "Atlantis"})
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        RollCallEnv(data, country="Atlantis")


def test_session_without_votes_is_an_error(env, data):
    with pytest.raises(DataError, match="cast no vote in session 99") as caught:
        env.reset(options={"country": data.country_names[0], "session": 99})
    assert caught.value.field == "session"


def test_window_inside_a_session(env, data):
    country = data.country_names[0]
    env.reset(seed=1, options={"country": country, "session": 2, "window": 3})
    sessions = set()
    for _ in range(3):
        _, _, terminated, _, info = env.step(0)
        sessions.add(info["session"])
    assert terminated and sessions == {2}


@pytest.mark.parametrize("window", [0, -3])
def test_bad_window_is_an_error(data, window):
    with pytest.raises(ValueError, match="window must be ≥ 1"):
        RollCallEnv(data, window=window)
    with pytest.raises(ValueError, match="window must be ≥ 1"):
        RollCallEnv(data).reset(options={"window": window})


# ---------------------------------------------------------------------- actions and masks


@pytest.mark.parametrize("action", [3, -1, 1.5, "yes", None, np.array([0])])
def test_action_outside_the_space_raises_and_does_not_advance(env, action):
    obs, info = env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="is not in Discrete"):
        env.step(action)
    _, _, _, _, after = env.step(np.int64(0))  # still the first roll call
    assert after["voted_rcid"] == info["rcid"]


def test_masks_are_all_true_and_match_info(env):
    _, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        np.testing.assert_array_equal(info["action_mask"], env.action_masks())
        assert info["action_mask"].dtype == bool and info["action_mask"].all()
        _, _, terminated, _, info = env.step(1)


def test_step_before_reset_and_after_termination_needs_reset(env):
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    _rollout(env, 0)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    env.reset()
    env.step(0)


# ---------------------------------------------------------------------- info


def test_info_reveals_a_recorded_vote_only_after_it_is_cast(env, data):
    _, info = env.reset(seed=2)
    assert set(info) == INFO_KEYS | {"recorded_action", "voted_rcid"}  # the step keys, and
    assert info["recorded_action"] == info["voted_rcid"] == -1  # nothing about the vote to come
    row = data.country_index(info["country"])
    terminated = False
    while not terminated:
        upcoming = info["rcid"]
        _, _, terminated, _, info = env.step(0)
        assert set(info) == INFO_KEYS | {"recorded_action", "voted_rcid"}
        assert info["voted_rcid"] == upcoming
        assert info["recorded_action"] == data.votes[row, _column(data, upcoming)]
        if not terminated:
            assert info["rcid"] != upcoming


def test_default_reward_is_the_recorded_vote_match(env, data):
    _, info = env.reset(seed=5)
    row = data.country_index(info["country"])
    recorded = data.votes[row, _column(data, info["rcid"])]
    assert env.step(int(recorded))[1] == 1.0
    env.reset(seed=5)
    assert env.step(int((recorded + 1) % 3))[1] == 0.0
    assert recorded_action_match(None, 1, None, {}) == 0.0
    assert recorded_action_match(None, 1, None, {"recorded_action": None}) == 0.0


def test_custom_reward_fn_gets_the_obs_the_action_was_taken_in(data):
    calls = []

    def reward_fn(obs, action, next_obs, info):
        calls.append((obs.copy(), action, next_obs.copy(), dict(info)))
        return 0.25 * action

    env = RollCallEnv(data, reward_fn=reward_fn)
    obs, info = env.reset(seed=0)
    terminated, step = False, 0
    while not terminated:
        action = step % 3
        next_obs, reward, terminated, _, next_info = env.step(action)
        seen_obs, seen_action, seen_next, seen_info = calls[-1]
        np.testing.assert_array_equal(seen_obs, obs)
        np.testing.assert_array_equal(seen_next, next_obs)
        assert seen_action == action and reward == 0.25 * action
        assert seen_info["rcid"] == info["rcid"] == next_info["voted_rcid"]
        assert seen_info["recorded_action"] == next_info["recorded_action"]
        obs, info, step = next_obs, next_info, step + 1
    assert len(calls) == step


def test_linear_reward_is_theta_dot_phi(data):
    env = RollCallEnv(data)
    feature_map = ActionFeatureMap(env.layout.names, ACTION_NAMES)
    theta = np.random.default_rng(0).normal(size=feature_map.weight_shape)
    env.reward_fn = LinearReward(theta, feature_map)
    obs, _ = env.reset(seed=1)
    for action in (0, 2, 1):
        expected = theta[action] @ np.concatenate([[1.0], obs])
        obs_next, reward, terminated, _, _ = env.step(action)
        assert reward == pytest.approx(expected, rel=1e-5)
        obs = obs_next
    with pytest.raises(ValueError, match="theta has 5 entries but the feature map has"):
        LinearReward(np.zeros(5), feature_map)


# ---------------------------------------------------------------------- render


def test_render_ansi_names_the_country_and_the_step(data):
    env = RollCallEnv(data, render_mode="ansi")
    assert "not started" in env.render()
    _, info = env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str)
    assert info["country"] in text and f"session {info['session']}" in text
    assert "roll call 1/" in text and "valid actions: 0 YES, 1 NO, 2 ABSTAIN" in text
    env.step(1)
    assert "roll call 2/" in env.render() and "last: NO" in env.render()


# ---------------------------------------------------------------------- the strictly-earlier rule


def _flip_votes(data: RollCallData, sessions: np.ndarray) -> RollCallData:
    """The same data with every cast vote of the given roll calls changed (absences kept)."""
    votes = data.votes.copy()
    change = sessions[None, :] & (votes != ABSENT)
    votes[change] = (votes[change] + 1) % 3
    return replace(data, votes=votes)


def _session_obs(data: RollCallData, country: str, session: int) -> np.ndarray:
    observations, _, _ = _rollout(RollCallEnv(data), 0, {"country": country, "session": session})
    return observations


def test_obs_use_only_strictly_earlier_sessions(data):
    country, session = data.country_names[3], 3
    sessions = data.roll_calls["session"].to_numpy()
    before = _session_obs(data, country, session)
    after = _session_obs(_flip_votes(data, sessions >= session), country, session)
    np.testing.assert_array_equal(before, after)
    # Not vacuous: the previous session's votes do change them.
    earlier = _session_obs(_flip_votes(data, sessions == session - 1), country, session)
    assert not np.array_equal(before, earlier)


# ---------------------------------------------------------------------- real data

needs_real_data = pytest.mark.skipif(
    unvotes_dir() is None,
    reason="real unvotes data not found ($ASSEMBLY_GYM_DATA or ../shared/data/unvotes)",
)


@pytest.mark.real_data
@needs_real_data
def test_constructs_and_steps_on_unvotes():
    env = gym.make(ENV_ID, data="unvotes", country="France")
    obs, info = env.reset(seed=0)
    assert info["country"] == "France" and env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step(0)
    assert env.observation_space.contains(obs) and reward in (0.0, 1.0)
    assert info["recorded_action"] in (Vote.YES, Vote.NO, Vote.ABSTAIN)


@pytest.mark.real_data
@needs_real_data
def test_real_obs_use_only_strictly_earlier_sessions():
    from assembly_gym.envs.legislative.sources import roll_call_data

    data = roll_call_data("unvotes").select_sessions(55, 60)
    sessions = data.roll_calls["session"].to_numpy()
    before = _session_obs(data, "France", 58)
    after = _session_obs(_flip_votes(data, sessions >= 58), "France", 58)
    np.testing.assert_array_equal(before, after)
    earlier = _session_obs(_flip_votes(data, sessions == 57), "France", 58)
    assert not np.array_equal(before, earlier)
