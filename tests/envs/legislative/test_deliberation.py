"""assembly/Deliberation-v0: contract, stages and masks, invalid actions, dynamics, real data."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.errors import DataError, InvalidActionError
from assembly_gym.core.paths import unvotes_dir
from assembly_gym.envs.legislative.deliberation import (
    STATE_NAMES,
    TALLY_KEYS,
    DeliberationEnv,
    write_stage_counts,
)
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.phi import ActionFeatureMap
from assembly_gym.envs.legislative.resolutions import generate_resolution_records
from assembly_gym.envs.legislative.rewards import LinearReward
from assembly_gym.envs.legislative.spaces import Action, Stage, action_mask
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

ENV_ID = "assembly/Deliberation-v0"
ABOUT_KEYS = {"country", "rcid", "symbol", "session", "title", "description"}
STEP_KEYS = {"stage", "action_mask", "recorded_action", "acted_stage", "invalid_action", "tally",
             "adopted"}  # fmt: skip
EXPECTED_MASKS = {
    Stage.DRAFT: [True, False, False, False, True],
    Stage.COMMITTEE_VOTE: [False, True, True, True, True],
    Stage.PLENARY_VOTE: [False, True, True, True, True],
    Stage.TERMINAL: [False, False, False, False, False],
}


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=10, n_sessions=3, roll_calls_per_session=10, seed=4)
    )


@pytest.fixture(scope="module")
def records(assembly):
    return generate_resolution_records(assembly)


@pytest.fixture()
def env(records) -> DeliberationEnv:
    return DeliberationEnv(records)


def _state(env: DeliberationEnv, obs: np.ndarray, name: str) -> float:
    return float(obs[env.layout.index(name)])


def _episode(env, seed, actions=(Action.COSPONSOR, Action.YES, Action.NO), options=None):
    obs, info = env.reset(seed=seed, options=options)
    observations, rewards, infos = [obs], [], [info]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(int(action))
        assert not truncated
        observations.append(obs)
        rewards.append(reward)
        infos.append(info)
    assert terminated
    return np.array(observations), np.array(rewards), infos


# ---------------------------------------------------------------------- checkers and spaces


def test_spaces_layout_and_observations_in_the_box(env):
    assert env.action_space == gym.spaces.Discrete(len(Action))
    assert env.observation_space.shape == (len(env.layout),)
    assert len(set(env.layout.names)) == len(env.layout)
    assert env.layout.names[-len(STATE_NAMES) :] == STATE_NAMES
    for seed in range(6):
        observations, _, _ = _episode(env, seed)
        assert observations.dtype == np.float32
        assert all(env.observation_space.contains(o) for o in observations)


# ---------------------------------------------------------------------- seeding and episodes


def test_different_seeds_give_different_tallies_of_one_resolution(env, records):
    options = {"resolution": int(records.resolutions["rcid"].iloc[0])}
    tallies = {str(_episode(env, s, options=options)[2][2]["tally"]) for s in range(8)}
    assert len(tallies) > 1


def test_episodes_have_exactly_three_stages(env):
    for seed in range(5):
        _, info = env.reset(seed=seed)
        stages = [info["stage"]]
        terminated, steps = False, 0
        while not terminated:
            _, _, terminated, _, info = env.step(Action.NO_ACTION)
            stages.append(info["stage"])
            steps += 1
        assert steps == 3
        assert stages == ["DRAFT", "COMMITTEE_VOTE", "PLENARY_VOTE", "TERMINAL"]


def test_stage_one_hot_follows_the_stage(env):
    observations, _, _ = _episode(env, 0)
    one_hot = observations[:, [env.layout.index(n) for n in STATE_NAMES[:4]]]
    np.testing.assert_array_equal(one_hot, np.eye(4, dtype=np.float32))


# ---------------------------------------------------------------------- options


def test_reset_options_country_resolution_session(env, records):
    country = records.country_names[3]
    rcid = int(records.resolutions["rcid"].iloc[5])
    symbol = records.resolutions["symbol"].iloc[5]
    _, info = env.reset(seed=0, options={"country": country, "resolution": rcid})
    assert (info["country"], info["rcid"], info["symbol"]) == (country, rcid, symbol)
    _, info = env.reset(seed=0, options={"country": country, "resolution": symbol})
    assert info["rcid"] == rcid
    for seed in range(5):
        _, info = env.reset(seed=seed, options={"country": country, "session": 2})
        assert info["session"] == 2 and info["country"] == country


def test_constructor_defaults_and_option_overrides(records):
    env = DeliberationEnv(records, country=records.country_names[1], session=3)
    _, info = env.reset(seed=0)
    assert (info["country"], info["session"]) == (records.country_names[1], 3)
    _, info = env.reset(seed=0, options={"country": records.country_names[2], "session": 1})
    assert (info["country"], info["session"]) == (records.country_names[2], 1)


def test_unknown_country_and_resolution_are_data_errors(records, env):
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        env.reset(options={"country": "Atlantis"})
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        DeliberationEnv(records, country="Atlantis")
    with pytest.raises(DataError, match="unknown resolution 'A/RES/99/1'"):
        env.reset(options={"resolution": "A/RES/99/1"})
    with pytest.raises(DataError, match="unknown resolution 123456"):
        env.reset(options={"resolution": 123456})


def test_session_without_records_is_an_error(env, records):
    with pytest.raises(ValueError, match="no recorded resolution for .* in session 42"):
        env.reset(options={"country": records.country_names[0], "session": 42})


def test_bad_arguments_are_errors(records):
    with pytest.raises(ValueError, match="invalid_action must be 'noop' or 'raise'"):
        DeliberationEnv(records, invalid_action="ignore")
    with pytest.raises(TypeError, match="cannot make resolution records from int"):
        DeliberationEnv(42)


def test_dynamics_of_other_countries_are_refused(records, assembly):
    other = generate_resolution_records(
        generate_assembly(SyntheticConfig(n_countries=5, n_sessions=2, seed=1))
    )
    with pytest.raises(ValueError, match="fitted on other countries"):
        DeliberationEnv(records, dynamics=EmpiricalDynamics.fit(other))


# ---------------------------------------------------------------------- masks and invalid actions


def test_masks_per_stage_match_info_and_action_masks(env):
    assert not env.action_masks().any()  # before reset: nothing is valid
    _, info = env.reset(seed=0)
    for stage in (Stage.DRAFT, Stage.COMMITTEE_VOTE, Stage.PLENARY_VOTE, Stage.TERMINAL):
        assert info["stage"] == stage.name
        assert info["action_mask"].tolist() == EXPECTED_MASKS[stage]
        np.testing.assert_array_equal(env.action_masks(), info["action_mask"])
        np.testing.assert_array_equal(action_mask(stage), info["action_mask"])
        if stage != Stage.TERMINAL:
            _, _, _, _, info = env.step(Action.NO_ACTION)


@pytest.mark.parametrize(
    ("stage_actions", "masked"),
    [((), Action.YES), ((), Action.ABSTAIN), ((Action.NO_ACTION,), Action.COSPONSOR)],
)
def test_masked_action_is_a_no_op_by_default(records, stage_actions, masked):
    env, reference = DeliberationEnv(records), DeliberationEnv(records)
    for e in (env, reference):
        e.reset(seed=9)
        for action in stage_actions:
            e.step(action)
    obs, reward, _, _, info = env.step(masked)
    expected_obs, expected_reward, _, _, expected_info = reference.step(Action.NO_ACTION)
    assert info["invalid_action"] is True and expected_info["invalid_action"] is False
    np.testing.assert_array_equal(obs, expected_obs)
    assert reward == expected_reward and info["tally"] == expected_info["tally"]


def test_masked_action_raises_when_asked(records):
    env = DeliberationEnv(records, invalid_action="raise")
    env.reset(seed=0)
    with pytest.raises(
        InvalidActionError, match=r"YES is not valid at DRAFT; valid: \['COSPONSOR'"
    ):
        env.step(Action.YES)
    env.step(Action.COSPONSOR)  # the failed step changed nothing
    with pytest.raises(InvalidActionError, match="COSPONSOR is not valid at COMMITTEE_VOTE"):
        env.step(Action.COSPONSOR)


@pytest.mark.parametrize("mode", ["noop", "raise"])
@pytest.mark.parametrize("action", [5, -1, 2.0, None])
def test_action_outside_the_space_raises_in_both_modes(records, mode, action):
    env = DeliberationEnv(records, invalid_action=mode)
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="is not in Discrete"):
        env.step(action)


def test_step_before_reset_and_after_termination_needs_reset(env):
    with pytest.raises(gym.error.ResetNeeded):
        env.step(Action.NO_ACTION)
    _episode(env, 0)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(Action.NO_ACTION)


# ---------------------------------------------------------------------- info and tallies


def _recorded(records, info, stage: Stage) -> int | None:
    row = records.country_index(info["country"])
    column = records.resolution_index(info["rcid"])
    if stage == Stage.DRAFT:
        return int(Action.COSPONSOR if records.sponsors[row, column] == 1 else Action.NO_ACTION)
    code = (records.committee if stage == Stage.COMMITTEE_VOTE else records.plenary)[row, column]
    return int(Action.NO_ACTION if code < 0 else Action.YES + code)


def test_info_reveals_the_record_only_for_the_stage_just_played(env, records):
    _, info = env.reset(seed=3)
    assert set(info) == ABOUT_KEYS | STEP_KEYS  # the step keys, with nothing played yet
    assert (info["recorded_action"], info["acted_stage"], info["invalid_action"]) == (-1, "", False)
    assert info["tally"] == dict.fromkeys(TALLY_KEYS, 0) and info["adopted"] is False
    for action in (Action.NO_ACTION, Action.YES, Action.ABSTAIN):
        acted = Stage[info["stage"]]
        _, _, _, _, info = env.step(action)
        assert info["acted_stage"] == acted.name
        assert info["recorded_action"] == _recorded(records, info, acted)
    assert set(info) == ABOUT_KEYS | STEP_KEYS


def test_tally_counts_the_agents_own_vote(records):
    env, other = DeliberationEnv(records), DeliberationEnv(records)
    for seed in range(10):
        for e in (env, other):
            e.reset(seed=seed, options={"country": records.country_names[0]})
            e.step(Action.NO_ACTION)
        obs, _, _, _, info = env.step(Action.YES)
        _, _, _, _, other_info = other.step(Action.NO)  # same seed: same draws of the others
        assert info["tally"]["yes"] == other_info["tally"]["yes"] + 1
        assert info["tally"]["no"] == other_info["tally"]["no"] - 1
        assert _state(env, obs, "own_committee_yes") == 1.0
        voters = sum(info["tally"].values())
        assert _state(env, obs, "committee_yes") == pytest.approx(info["tally"]["yes"] / voters)


def test_sponsor_share_counts_the_agents_cosponsorship(records):
    env = DeliberationEnv(records)
    env.reset(seed=0)
    obs, _, _, _, info = env.step(Action.COSPONSOR)
    assert _state(env, obs, "own_cosponsor") == 1.0 and info["tally"]["sponsors"] >= 1
    n = records.n_countries
    assert _state(env, obs, "sponsor_share") == pytest.approx(info["tally"]["sponsors"] / n)


def test_adopted_iff_more_yes_than_no(env):
    outcomes = set()
    for seed in range(40):
        observations, _, infos = _episode(env, seed, (Action.NO_ACTION, Action.NO, Action.NO))
        tally = infos[-1]["tally"]
        assert infos[-1]["adopted"] == (tally["yes"] > tally["no"])
        assert _state(env, observations[-1], "adopted") == float(infos[-1]["adopted"])
        outcomes.add(infos[-1]["adopted"])
    assert True in outcomes  # not vacuous: adoption happens


@pytest.mark.parametrize("stage", [Stage.DRAFT, Stage.COMMITTEE_VOTE, Stage.PLENARY_VOTE])
def test_the_stage_update_of_one_state_in_ints_is_a_row_of_the_batched_one(stage):
    """write_stage_counts: a single env's Python numbers and a vector env's arrays agree."""
    rng = np.random.default_rng(int(stage))
    width = 1 if stage == Stage.DRAFT else 3
    counts = rng.integers(0, 4, (20, width))
    counts[0] = 0  # nobody voted: shares 0, not a division by zero
    own = rng.integers(-1, 3, 20)
    batched = np.zeros((20, len(STATE_NAMES)), dtype=np.float32)
    write_stage_counts(batched.T, stage, counts.T, own, 12)
    for row, count, choice in zip(batched, counts, own, strict=True):
        state = np.zeros(len(STATE_NAMES), dtype=np.float32)
        write_stage_counts(state, stage, count.tolist(), int(choice), 12)
        np.testing.assert_array_equal(state, row)


def test_cosponsoring_changes_later_tallies_on_the_synthetic_default():
    """Paired by seed: the others' draws are the same; only the sponsor share differs."""
    env = DeliberationEnv()
    country = env.records.country_names[0]
    differences = []
    for seed in range(200):
        yes = []
        for first in (Action.COSPONSOR, Action.NO_ACTION):
            env.reset(seed=seed, options={"country": country})
            env.step(first)
            yes.append(env.step(Action.YES)[4]["tally"]["yes"])
        differences.append(yes[0] - yes[1])
    differences = np.array(differences)
    standard_error = differences.std(ddof=1) / np.sqrt(len(differences))
    assert differences.mean() > 3 * standard_error  # more committee support when cosponsoring


# ---------------------------------------------------------------------- scripted dynamics


def _scripted_dynamics(records, committee: np.ndarray, plenary: np.ndarray):
    """Deterministic others: nobody sponsors; outcome (0 yes, 1 no, 2 abstain, 3 absent) of
    each country in committee, shape (C,), and in plenary per support bin, shape (5, C)."""
    n = records.n_countries
    votes = np.zeros((n, 7, 2, 2, 5, 4))
    rows = np.arange(n)
    votes[rows, :, :, 0, :, committee] = 1.0
    for bin_ in range(5):
        votes[rows, :, :, 1, bin_, plenary[bin_]] = 1.0
    return EmpiricalDynamics(records.country_names, np.zeros((n, 7)), votes)


@pytest.fixture(scope="module")
def records_20():
    return generate_resolution_records(
        generate_assembly(SyntheticConfig(n_countries=20, n_sessions=2, roll_calls_per_session=4))
    )


def _play(records, dynamics, actions):
    env = DeliberationEnv(records, dynamics=dynamics)
    env.reset(seed=0, options={"country": records.country_names[0]})
    return [env.step(action)[4] for action in actions]


def test_scripted_dynamics_are_played_exactly(records_20):
    committee = np.array([3] + [0] * 10 + [1] * 5 + [2] * 4)  # row 0 is the agent
    plenary = np.tile(np.array([3] + [1] * 19), (5, 1))
    infos = _play(records_20, _scripted_dynamics(records_20, committee, plenary),
                  (Action.NO_ACTION, Action.ABSTAIN, Action.YES))  # fmt: skip
    assert infos[0]["tally"] == {"sponsors": 0, "yes": 0, "no": 0, "abstain": 0}
    assert infos[1]["tally"] == {"sponsors": 0, "yes": 10, "no": 5, "abstain": 5}
    assert infos[2]["tally"] == {"sponsors": 0, "yes": 1, "no": 19, "abstain": 0}
    assert not infos[2]["adopted"]


def test_plenary_context_uses_the_exact_committee_share(records_20):
    """13 yes of 20 voters is 0.65, on a bin edge: float32 rounding must not move the bin."""
    committee = np.array([3] + [0] * 12 + [1] * 7)
    plenary = np.full((5, 20), 3)
    plenary[1], plenary[2] = 1, 2  # bin 1: everyone no; bin 2 (0.65 ≤ share < 0.8): abstain
    infos = _play(records_20, _scripted_dynamics(records_20, committee, plenary),
                  (Action.NO_ACTION, Action.YES, Action.NO_ACTION))  # fmt: skip
    assert infos[1]["tally"] == {"sponsors": 0, "yes": 13, "no": 7, "abstain": 0}
    assert infos[2]["tally"] == {"sponsors": 0, "yes": 0, "no": 0, "abstain": 19}  # bin 2


def test_a_plenary_tie_is_not_adopted(records_20):
    committee = np.full(20, 0)
    plenary = np.tile(np.array([3] + [0] * 9 + [1] * 9 + [2]), (5, 1))
    tie = _play(records_20, _scripted_dynamics(records_20, committee, plenary),
                (Action.NO_ACTION, Action.YES, Action.ABSTAIN))  # fmt: skip
    assert tie[2]["tally"] == {"sponsors": 0, "yes": 9, "no": 9, "abstain": 2}
    assert not tie[2]["adopted"]
    win = _play(records_20, _scripted_dynamics(records_20, committee, plenary),
                (Action.NO_ACTION, Action.YES, Action.YES))  # fmt: skip
    assert win[2]["tally"] == {"sponsors": 0, "yes": 10, "no": 9, "abstain": 1}
    assert win[2]["adopted"]


# ---------------------------------------------------------------------- rewards and render


def test_custom_reward_fn_gets_the_obs_the_action_was_taken_in(records):
    calls = []

    def reward_fn(obs, action, next_obs, info):
        calls.append((obs.copy(), action, next_obs.copy(), dict(info)))
        return float(action)

    env = DeliberationEnv(records, reward_fn=reward_fn)
    obs, info = env.reset(seed=1)
    for action in (Action.COSPONSOR, Action.ABSTAIN, Action.YES):
        next_obs, reward, _, _, next_info = env.step(action)
        seen_obs, seen_action, seen_next, seen_info = calls[-1]
        np.testing.assert_array_equal(seen_obs, obs)
        np.testing.assert_array_equal(seen_next, next_obs)
        assert seen_action == action and reward == float(action)
        assert seen_info["stage"] == info["stage"] == next_info["acted_stage"]
        assert seen_info["tally"] == next_info["tally"]
        obs, info = next_obs, next_info


def test_linear_reward_is_theta_dot_phi(records):
    env = DeliberationEnv(records)
    feature_map = ActionFeatureMap(env.layout.names, [a.name.lower() for a in Action])
    theta = np.random.default_rng(1).normal(size=feature_map.weight_shape)
    env.reward_fn = LinearReward(theta, feature_map)
    obs, _ = env.reset(seed=2)
    for action in (Action.NO_ACTION, Action.YES, Action.NO):
        expected = theta[action] @ np.concatenate([[1.0], obs])
        obs, reward, _, _, _ = env.step(action)
        assert reward == pytest.approx(expected, rel=1e-5)


def test_render_ansi_names_the_country_and_the_stage(records):
    env = DeliberationEnv(records, render_mode="ansi")
    assert "not started" in env.render()
    _, info = env.reset(seed=0)
    text = env.render()
    assert info["country"] in text and "stage DRAFT" in text
    assert "valid actions: 0 COSPONSOR, 4 NO_ACTION" in text
    env.step(Action.COSPONSOR)
    assert "stage COMMITTEE_VOTE" in env.render() and "last: COSPONSOR at DRAFT" in env.render()
    env.step(Action.YES)
    env.step(Action.YES)
    assert "stage TERMINAL" in env.render() and "outcome:" in env.render()


# ---------------------------------------------------------------------- real data


@pytest.mark.real_data
@pytest.mark.skipif(unvotes_dir() is None, reason="real unvotes data not found")
def test_constructs_and_steps_on_unvotes():
    env = gym.make(ENV_ID, data="unvotes", country="France")
    obs, info = env.reset(seed=0)
    assert info["country"] == "France" and env.observation_space.contains(obs)
    for action in (Action.NO_ACTION, Action.YES, Action.YES):
        obs, _, terminated, _, info = env.step(action)
        assert env.observation_space.contains(obs)
    assert terminated and info["recorded_action"] in {int(a) for a in Action}
