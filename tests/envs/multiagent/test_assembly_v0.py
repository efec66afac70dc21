"""assembly_v0 passes PettingZoo's own tests on both variants; members, masks, stages, rewards."""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    performance_benchmark,
    render_test,
    seed_test,
)

from assembly_gym.core.errors import InvalidActionError, RewardFunctionError
from assembly_gym.core.paths import documents_dir, unvotes_dir
from assembly_gym.envs import assembly_v0
from assembly_gym.envs.legislative import RollCallEnv, roll_call_data
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.deliberation import (
    STAGE_MASKS,
    DeliberationEnv,
    recorded_actions,
    resolution_records,
)
from assembly_gym.envs.legislative.documents import load_trajectories
from assembly_gym.envs.legislative.resolutions import ResolutionRecords, records_from_roll_calls
from assembly_gym.envs.legislative.rewards import recorded_action_match
from assembly_gym.envs.legislative.spaces import Action, Stage
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.multiagent.assembly import PUBLIC_NAMES
from assembly_gym.irl.base import CountryReward, ModelRewards
from assembly_gym.irl.rollcall import fit_reward_model

REAL = unvotes_dir()
DOCUMENTS = documents_dir()


def _small_data() -> RollCallData:
    data = generate_assembly(
        SyntheticConfig(n_countries=8, n_blocs=2, n_sessions=3, roll_calls_per_session=12, seed=5)
    ).data
    votes = data.votes.copy()
    votes[7, data.roll_calls["session"].to_numpy() == 2] = ABSENT  # not a member in session 2
    return RollCallData(data.countries, data.roll_calls, votes, "small synthetic")


SMALL = _small_data()
DELIBERATION = records_from_roll_calls(SMALL)  # plenary votes only (sponsors not recorded)
VARIANTS = {"rollcall": {}, "deliberation": {"variant": "deliberation"}}


@functools.cache
def _small_records() -> ResolutionRecords:
    """The synthetic default's records, restricted to three sessions (fast features)."""
    records = resolution_records()
    return records.select(np.flatnonzero(records.resolutions["session"].to_numpy() <= 3))


def _suite(data: Any, **kwargs: Any) -> None:
    """PettingZoo's tests on both forms of the env over ``data``."""
    parallel_api_test(assembly_v0.parallel_env(data=data, **kwargs), num_cycles=30)
    api_test(assembly_v0.env(data=data, **kwargs), num_cycles=30)
    seed_test(functools.partial(assembly_v0.env, data=data, **kwargs), num_cycles=10)
    parallel_seed_test(
        functools.partial(assembly_v0.parallel_env, data=data, **kwargs), num_cycles=10
    )

    def make(render_mode: str | None = None) -> Any:
        # render_test first asks for "human" only to read the metadata; there is no window.
        return assembly_v0.env(
            data=data, render_mode=None if render_mode == "human" else render_mode, **kwargs
        )

    render_test(make)


@pytest.mark.filterwarnings("ignore:No agents present", "ignore:Action mask")
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_tests_pass_on_the_synthetic_data(variant: str) -> None:
    _suite(SMALL if variant == "rollcall" else _small_records(), **VARIANTS[variant])


@pytest.mark.filterwarnings("ignore:Action mask")
@pytest.mark.parametrize("variant", VARIANTS)
def test_max_cycles_test_on_the_default_data(variant: str) -> None:
    # a deliberation episode of two resolutions lasts 6 steps, more than the test's 4
    kwargs = {**VARIANTS[variant], "window": 2} if variant == "deliberation" else {}
    max_cycles_test(
        types.SimpleNamespace(env=functools.partial(assembly_v0.env, **kwargs),
                              parallel_env=functools.partial(assembly_v0.parallel_env, **kwargs))
    )  # fmt: skip


def test_performance_benchmark_runs(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    clock = iter(np.arange(0.0, 1e6, 0.5))  # 5 "seconds" pass after ten agent loops
    module = sys.modules["pettingzoo.test.performance_benchmark"]
    monkeypatch.setattr(module, "time", types.SimpleNamespace(time=lambda: next(clock)))
    performance_benchmark(assembly_v0.env(data=SMALL))
    performance_benchmark(assembly_v0.env(data=DELIBERATION, variant="deliberation"))
    assert capsys.readouterr().out.count("turns per second") == 2


@pytest.mark.real_data
@pytest.mark.skipif(REAL is None, reason="real data absent: $ASSEMBLY_GYM_DATA or ../shared/data")
@pytest.mark.filterwarnings("ignore:No agents present")
def test_pettingzoo_tests_pass_on_the_real_roll_calls() -> None:
    data = roll_call_data(REAL).select_sessions(62, 63)
    _suite(data)
    env = assembly_v0.parallel_env(data=data, session=63)
    env.reset(seed=0)
    assert 150 < len(env.agents) < len(env.possible_agents)


@pytest.mark.real_data
@pytest.mark.skipif(DOCUMENTS is None, reason="real UN documents absent: ../shared/data")
@pytest.mark.filterwarnings("ignore:No agents present", "ignore:Action mask")
def test_pettingzoo_tests_pass_on_the_real_resolution_trajectories() -> None:
    records = resolution_records(load_trajectories(DOCUMENTS))
    _suite(records, variant="deliberation")
    env = assembly_v0.parallel_env(data=records, variant="deliberation")
    _, infos = env.reset(seed=0)
    assert 100 < len(env.agents) <= len(env.possible_agents)
    assert {info["session"] for info in infos.values()} == {78}


def test_non_members_are_absent_and_masks_allow_every_vote() -> None:
    env = assembly_v0.parallel_env(data=SMALL, session=2)
    observations, infos = env.reset(seed=0)
    absent = SMALL.country_names[7]
    assert absent in env.possible_agents and absent not in env.agents
    assert set(observations) == set(infos) == set(env.agents)
    for agent in env.agents:
        assert observations[agent]["action_mask"].tolist() == [1, 1, 1]
        assert env.observation_space(agent).contains(observations[agent])
    env.reset(options={"session": 1})
    assert absent in env.agents


def test_own_features_are_what_rollcall_shows_and_the_tally_is_public() -> None:
    env = assembly_v0.parallel_env(data=SMALL, session=1)
    observations, _ = env.reset(seed=0)
    country = env.agents[3]
    # RollCall-v0's rows of this country for the session's first two roll calls
    rows = RollCallEnv(SMALL).country_features(country)[:2]
    own = observations[country]["observation"]
    np.testing.assert_array_equal(own[: rows.shape[1]], rows[0])
    assert own[rows.shape[1] :].tolist() == [0.0] * len(PUBLIC_NAMES)
    actions = {agent: i % 3 for i, agent in enumerate(env.agents)}
    observations, *_ = env.step(actions)
    own = observations[country]["observation"]
    np.testing.assert_array_equal(own[: rows.shape[1]], rows[1])
    shares = np.bincount(list(actions.values()), minlength=3) / len(actions)
    np.testing.assert_allclose(own[rows.shape[1] :], [*shares, float(shares[0] > shares[1])],
                               rtol=1e-6)  # fmt: skip


def test_proxy_rewards_pay_the_recorded_vote_and_the_window_truncates() -> None:
    env = assembly_v0.parallel_env(data=SMALL, session=1, window=5, max_cycles=3)
    env.reset(seed=1)
    steps = 0
    while env.agents:
        _, rewards, terminations, truncations, infos = env.step(dict.fromkeys(env.agents, 0))
        steps += 1
        for agent, reward in rewards.items():
            assert reward == float(infos[agent]["recorded_action"] == 0)
    assert steps == 3 and all(truncations.values()) and not any(terminations.values())
    with pytest.raises(RuntimeError, match="reset"):
        env.step({})


def test_invalid_and_missing_actions_raise() -> None:
    env = assembly_v0.parallel_env(data=SMALL)
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="not in Discrete"):
        env.step(dict.fromkeys(env.agents, 3))
    with pytest.raises(InvalidActionError, match="no action"):
        env.step({env.agents[0]: 0})
    with pytest.raises(ValueError, match="variant"):
        assembly_v0.parallel_env(variant="senate")


@pytest.mark.parametrize("variant", ["rollcall", "deliberation"])
@pytest.mark.parametrize(
    ("action", "shown"),
    [(float("nan"), "nan"), (np.array([0, 1]), r"array\(\[0, 1\]\)"), (1.0, "1.0"), ("1", "'1'")],
)
def test_an_action_that_is_not_one_integer_names_its_agent(variant, action, shown) -> None:
    data = SMALL if variant == "rollcall" else _small_records()
    env = assembly_v0.parallel_env(data=data, variant=variant)
    env.reset(seed=0)
    actions: dict[str, Any] = dict.fromkeys(env.agents, 0)
    agent = env.agents[-1]
    actions[agent] = action
    with pytest.raises(InvalidActionError, match=rf"^action {shown} of {agent} is not in Discrete"):
        env.step(actions)
    with pytest.raises(
        InvalidActionError, match="actions must be a dict of agent → action, got list"
    ):
        env.step([0] * len(env.agents))
    env.step(dict.fromkeys(env.agents, np.int64(0)))  # nothing moved before: the episode goes on


def _rollout(rewards: Any, seed: int = 0, **options: Any) -> list[dict[str, float]]:
    env = assembly_v0.parallel_env(data=SMALL, rewards=rewards, **options)
    env.reset(seed=seed)
    rng, out = np.random.default_rng(seed), []
    while env.agents:
        out.append(env.step({a: int(rng.integers(3)) for a in env.agents})[1])
    return out


@pytest.mark.parametrize(
    ("kind", "settings"),
    [("linear", {"l2": 10.0, "standard_errors": False}), ("trees", {"n_trees": 50, "threads": 1})],
)
def test_a_model_derived_mapping_is_batched_and_equals_per_country_rewards(kind, settings) -> None:
    model = fit_reward_model(SMALL, kind=kind, **settings)
    batched = model.reward_fns()
    assert isinstance(batched, ModelRewards) and set(batched) == set(SMALL.country_names)
    per_country = {country: model.as_reward_fn(country) for country in SMALL.country_names}
    # the same functions without their batch method: one call per agent
    one_by_one = {c: functools.partial(CountryReward.__call__, fn) for c, fn in per_country.items()}
    features = {"feature_config": model.feature_config}  # the observations the rewards read
    fast, general, slow = (_rollout(fns, **features) for fns in (batched, per_country, one_by_one))
    for a, b, c in zip(fast, general, slow, strict=True):
        assert a.keys() == b.keys() == c.keys()
        np.testing.assert_allclose([a[k] for k in a], [b[k] for k in a], rtol=1e-10)
        np.testing.assert_allclose([a[k] for k in a], [c[k] for k in a], rtol=1e-10)
    assert np.std([r for step in fast for r in step.values()]) > 0


def test_mixed_reward_functions_and_bad_mappings() -> None:
    rewards = dict.fromkeys(SMALL.country_names, recorded_action_match)
    rewards[SMALL.country_names[0]] = lambda obs, action, next_obs, info: 5.0
    for step in _rollout(rewards):
        assert step.get(SMALL.country_names[0], 5.0) == 5.0
        assert all(r in (0.0, 1.0) for c, r in step.items() if c != SMALL.country_names[0])
    with pytest.raises(ValueError, match="no reward function"):
        assembly_v0.parallel_env(data=SMALL, rewards={SMALL.country_names[0]: rewards})
    rewards[SMALL.country_names[1]] = lambda *args: float("nan")
    with pytest.raises(RewardFunctionError):
        _rollout(rewards)


def test_renders_show_the_agents_votes() -> None:
    env = assembly_v0.parallel_env(data=SMALL, session=2, render_mode="rgb_array")
    before = env.render()
    env.reset(seed=0)
    pending = env.render()
    env.step(dict.fromkeys(env.agents, 1))
    voted = env.render()
    assert before.shape == pending.shape == voted.shape == (480, 640, 3)
    assert not np.array_equal(pending, voted)
    text = assembly_v0.parallel_env(data=SMALL, session=2, render_mode="ansi")
    text.reset(seed=0)
    text.step(dict.fromkeys(text.agents, 1))
    assert "agents yes 0 / no 7 / abstain 0" in text.render()


# ---------------------------------------------------------------------- deliberation variant


def _play(env: Any, action: Action) -> list[tuple]:
    """Every agent takes ``action`` (NO_ACTION where masked) until the end: the step tuples."""
    observations, _ = env.reset(seed=0)
    steps = []
    while env.agents:
        chosen = {a: int(action if observations[a]["action_mask"][action] else Action.NO_ACTION)
                  for a in env.agents}  # fmt: skip
        steps.append(env.step(chosen))
        observations = steps[-1][0]
    return steps


def test_deliberation_stages_and_masks_are_deliberation_v0s() -> None:
    env = assembly_v0.parallel_env(variant="deliberation", data=_small_records())
    observations, infos = env.reset(seed=3)
    agent = env.agents[0]
    stages = [infos[agent]["stage"]]
    masks = [observations[agent]["action_mask"].tolist()]
    for _ in range(3):
        observations, _, terminations, _, infos = env.step(dict.fromkeys(observations, 4))
        stages.append(infos[agent]["stage"])
        masks.append(observations[agent]["action_mask"].tolist())
    assert stages == [stage.name for stage in Stage]
    assert masks == [STAGE_MASKS[stage].astype(int).tolist() for stage in Stage]
    assert all(terminations.values()) and env.agents == []


def test_deliberation_observation_is_deliberation_v0s_and_the_tallies_are_public() -> None:
    records = _small_records()
    env = assembly_v0.parallel_env(variant="deliberation", data=records, session=2)
    observations, infos = env.reset(seed=1)
    country = env.agents[5]
    single = DeliberationEnv(records, country=country, resolution=infos[country]["rcid"])
    obs, _ = single.reset(seed=0)
    np.testing.assert_array_equal(observations[country]["observation"], obs)
    actions = {a: [Action.COSPONSOR, Action.NO_ACTION][i % 2] for i, a in enumerate(env.agents)}
    observations, _, _, _, infos = env.step(actions)
    sponsors = (len(env.agents) + 1) // 2
    assert infos[country]["tally"]["sponsors"] == sponsors
    share = observations[country]["observation"][single.layout.index("sponsor_share")]
    assert share == pytest.approx(sponsors / records.n_countries)
    assert observations[country]["observation"][single.layout.index("own_cosponsor")] == (
        actions[country] == Action.COSPONSOR
    )


@pytest.mark.parametrize("action", [Action.YES, Action.NO])
def test_deliberation_adoption_is_plenary_yes_over_no(action: Action) -> None:
    env = assembly_v0.parallel_env(variant="deliberation", data=_small_records(),
                                   render_mode="ansi")  # fmt: skip
    steps = _play(env, action)
    observations, _, _, _, infos = steps[-1]
    agent = next(iter(infos))
    layout = DeliberationEnv(_small_records()).layout
    adopted = action == Action.YES
    assert infos[agent]["adopted"] is adopted and infos[agent]["stage"] == "TERMINAL"
    assert observations[agent]["observation"][layout.index("adopted")] == adopted
    assert ("ADOPTED" if adopted else "REJECTED") in env.render()
    assert observations[agent]["action_mask"].tolist() == [0] * len(Action)


def test_deliberation_proxy_rewards_pay_the_recorded_action_at_each_stage() -> None:
    records = _small_records()
    env = assembly_v0.parallel_env(variant="deliberation", data=records, window=2)
    _, infos = env.reset(seed=2)
    rows = np.array([records.country_index(a) for a in env.agents])
    column, stage, steps = records.resolution_index(infos[env.agents[0]]["rcid"]), 0, 0
    while env.agents:
        recorded = recorded_actions(records, Stage(stage), rows, np.full(len(rows), column))
        actions = {a: int(Action.NO_ACTION) for a in env.agents}
        _, rewards, _, _, infos = env.step(actions)
        assert [infos[a]["recorded_action"] for a in rewards] == recorded.tolist()
        assert list(rewards.values()) == (recorded == Action.NO_ACTION).astype(float).tolist()
        stage, steps = (stage + 1) % 3, steps + 1
        if stage == 0 and env.agents:
            column = records.resolution_index(next(iter(infos.values()))["rcid"])
    assert steps == 6


def test_deliberation_masked_actions_are_no_action_and_bad_ones_raise() -> None:
    env = assembly_v0.parallel_env(variant="deliberation", data=_small_records())
    env.reset(seed=0)
    _, _, _, _, infos = env.step(dict.fromkeys(env.agents, int(Action.YES)))  # masked at DRAFT
    agent = next(iter(infos))
    assert infos[agent]["invalid_action"] and infos[agent]["tally"]["sponsors"] == 0
    with pytest.raises(InvalidActionError, match="Discrete"):
        env.step(dict.fromkeys(env.agents, 5))
    with pytest.raises(ValueError, match="window"):
        assembly_v0.parallel_env(variant="deliberation", window=0)


def test_deliberation_renders_the_stage_played() -> None:
    env = assembly_v0.parallel_env(variant="deliberation", data=_small_records(),
                                   render_mode="rgb_array")  # fmt: skip
    env.reset(seed=0)
    frames = [env.render()]
    for action in (Action.COSPONSOR, Action.NO):
        env.step(dict.fromkeys(env.agents, int(action)))
        frames.append(env.render())
    assert all(frame.shape == (480, 640, 3) for frame in frames)
    assert not np.array_equal(frames[0], frames[1]) and not np.array_equal(frames[1], frames[2])


@pytest.mark.parametrize("variant", ["rollcall", "deliberation"])
def test_reset_options_are_checked_and_a_typo_is_refused(variant):
    data = _small_data() if variant == "rollcall" else _small_records()
    env = assembly_v0.parallel_env(data=data, variant=variant)
    with pytest.raises(TypeError, match="option 'session' must be int, got str '1'"):
        env.reset(seed=0, options={"session": "1"})
    with pytest.raises(
        ValueError, match=r"unknown reset option 'sesion' \(did you mean 'session'\?\); accepted: "
    ):
        env.reset(seed=0, options={"sesion": 1})
    env.reset(seed=0, options={"options": 1})  # PettingZoo's API tests' probe passes
    with pytest.raises(TypeError, match="reset options must be a dict"):
        env.reset(seed=0, options=[("session", 1)])
