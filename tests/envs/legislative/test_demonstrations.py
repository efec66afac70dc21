"""Demonstrations: identical to env rollouts, recorded tallies, the imitation round trip."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, Vote
from assembly_gym.envs.legislative.deliberation import STATE_NAMES, DeliberationEnv
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    deliberation_demonstrations,
    from_imitation,
    group_by_country,
    rollcall_demonstrations,
    to_imitation,
)
from assembly_gym.envs.legislative.observation import RollCallFeatures
from assembly_gym.envs.legislative.resolutions import (
    NOT_RECORDED,
    generate_resolution_records,
    records_from_roll_calls,
)
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.spaces import Action, Stage, action_mask
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=6, n_blocs=2, n_sessions=4, roll_calls_per_session=10, seed=9)
    )


@pytest.fixture(scope="module")
def records(assembly):
    return generate_resolution_records(assembly)


def _replay(env, demo: Demonstration, options: dict):
    """Step ``env`` with the demonstration's actions; obs and the infos given to reward_fn."""
    seen = []
    env.reward_fn = lambda obs, action, next_obs, info: seen.append(info) or 0.0
    obs, _ = env.reset(seed=0, options=options)
    observations, terminated = [obs], False
    for action in demo.acts:
        assert not terminated
        obs, _, terminated, _, _ = env.step(int(action))
        observations.append(obs)
    return np.array(observations), seen, terminated


def _assert_same_infos(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert list(x) == list(y)
        for key in x:
            np.testing.assert_array_equal(np.asarray(x[key]), np.asarray(y[key]), err_msg=key)


# ---------------------------------------------------------------------- RollCall


def test_rollcall_demonstrations_equal_env_rollouts(assembly):
    data = assembly.data
    demos = rollcall_demonstrations(data, data.country_names[:3])
    env = RollCallEnv(data)
    assert len(demos) >= 12
    for demo in demos[::2]:
        session = demo.infos[0]["session"]
        obs, infos, terminated = _replay(env, demo, {"country": demo.country, "session": session})
        assert terminated and demo.terminal
        np.testing.assert_array_equal(obs, demo.obs)
        _assert_same_infos(infos, demo.infos)
        np.testing.assert_array_equal(demo.acts, [i["recorded_action"] for i in infos])
        assert demo.masks.all() and demo.masks.shape == (len(demo), len(Vote))


def test_rollcall_demonstrations_with_a_training_history_are_forecasts(assembly):
    train, test = assembly.data.temporal_split(2)
    country = test.country_names[1]
    demos = rollcall_demonstrations(test, [country], history=train)
    env = RollCallEnv(test, history=train)
    for demo in demos:
        session = demo.infos[0]["session"]
        obs, _, _ = _replay(env, demo, {"country": country, "session": session})
        np.testing.assert_array_equal(obs, demo.obs)
    assert not np.array_equal(demos[0].obs, rollcall_demonstrations(test, [country])[0].obs)


def test_one_rollcall_demonstration_per_country_and_voted_session(assembly):
    data = assembly.data
    demos = rollcall_demonstrations(data, with_infos=False)
    sessions = data.roll_calls["session"].to_numpy()
    expected = sum(
        len(np.unique(sessions[data.votes[row] != ABSENT])) for row in range(data.n_countries)
    )
    assert len(demos) == expected
    assert all(d.infos == () for d in demos)
    assert sum(len(d) for d in demos) == (data.votes != ABSENT).sum()
    groups = group_by_country(demos)
    assert list(groups) == list(data.country_names)
    assert all({d.country for d in group} == {name} for name, group in groups.items())
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        rollcall_demonstrations(data, ["Atlantis"])


# ---------------------------------------------------------------------- Deliberation


def test_deliberation_demonstrations_show_the_recorded_tallies(records):
    demos = deliberation_demonstrations(records, records.country_names[:2])
    assert len(demos) == 2 * records.n_resolutions  # synthetic records cover every stage
    env = DeliberationEnv(records)
    for demo in demos[::7]:
        row = records.country_index(demo.country)
        column = records.resolution_index(demo.infos[0]["rcid"])
        first, _ = env.reset(
            seed=0, options={"country": demo.country, "resolution": demo.infos[0]["rcid"]}
        )
        np.testing.assert_array_equal(demo.obs[0], first)
        assert [i["stage"] for i in demo.infos] == ["DRAFT", "COMMITTEE_VOTE", "PLENARY_VOTE"]
        sponsors = records.sponsors[:, column]
        committee, plenary = records.committee[:, column], records.plenary[:, column]
        no_votes = {v.name.lower(): 0 for v in Vote}
        assert demo.infos[0]["tally"] == {"sponsors": int(sponsors.sum()), **no_votes}
        for info, votes in ((demo.infos[1], committee), (demo.infos[2], plenary)):
            cast = {v.name.lower(): int((votes == v).sum()) for v in Vote}
            assert info["tally"] == {"sponsors": 0, **cast}
        layout = env.layout
        assert demo.obs[1, layout.index("sponsor_share")] == pytest.approx(sponsors.mean())
        cast = plenary[plenary != ABSENT]
        assert demo.obs[3, layout.index("plenary_yes")] == pytest.approx((cast == 0).mean())
        adopted = (plenary == Vote.YES).sum() > (plenary == Vote.NO).sum()
        assert demo.obs[3, layout.index("adopted")] == float(adopted)
        assert demo.acts[0] == (Action.COSPONSOR if sponsors[row] else Action.NO_ACTION)
        assert demo.acts[2] == (Action.NO_ACTION if plenary[row] == ABSENT else 1 + plenary[row])
        assert demo.obs[3, layout.index("stage_terminal")] == 1.0
        expected_masks = [action_mask(s) for s in Stage if s != Stage.TERMINAL]
        np.testing.assert_array_equal(demo.masks, expected_masks)


def test_deliberation_demonstration_infos_have_the_env_keys(records):
    demo = deliberation_demonstrations(records, records.country_names[:1])[0]
    env = DeliberationEnv(records)
    _, infos, _ = _replay(env, demo, {"country": demo.country, "resolution": demo.infos[0]["rcid"]})
    for seen, shown in zip(infos, demo.infos, strict=True):
        assert list(seen) == list(shown)
        assert seen["recorded_action"] == shown["recorded_action"]
        assert {k: seen[k] for k in ("country", "rcid", "symbol", "session", "title", "stage")} == {
            k: shown[k] for k in ("country", "rcid", "symbol", "session", "title", "stage")
        }


def test_no_deliberation_demonstrations_without_complete_records(assembly):
    assert deliberation_demonstrations(records_from_roll_calls(assembly.data)) == []


# ---------------------------------------------------------------------- imitation round trip


def _assert_same_demos(a: list[Demonstration], b: list[Demonstration]):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.country == y.country and x.terminal == y.terminal
        np.testing.assert_array_equal(x.obs, y.obs)
        assert x.obs.dtype == y.obs.dtype
        np.testing.assert_array_equal(x.acts, y.acts)
        np.testing.assert_array_equal(x.masks, y.masks)
        _assert_same_infos(x.infos, y.infos)


@pytest.mark.imitation
def test_imitation_round_trip_is_lossless(assembly, records):
    from imitation.data.types import Trajectory

    rollcall = rollcall_demonstrations(assembly.data, assembly.data.country_names[:2])
    deliberation = deliberation_demonstrations(records, records.country_names[:1])[:5]
    unfinished = Demonstration(
        rollcall[0].country, rollcall[0].obs, rollcall[0].acts, rollcall[0].masks,
        rollcall[0].infos, terminal=False,
    )  # fmt: skip
    for demos in (rollcall, deliberation, [unfinished]):
        trajectories = to_imitation(demos)
        assert all(isinstance(t, Trajectory) for t in trajectories)
        assert trajectories[0].terminal == demos[0].terminal
        _assert_same_demos(demos, from_imitation(trajectories))


@pytest.mark.imitation
def test_imitation_round_trip_without_infos_keeps_country_and_masks(assembly):
    demos = rollcall_demonstrations(
        assembly.data, assembly.data.country_names[:1], with_infos=False
    )
    back = from_imitation(to_imitation(demos))
    for x, y in zip(demos, back, strict=True):
        assert x.country == y.country
        np.testing.assert_array_equal(x.obs, y.obs)
        np.testing.assert_array_equal(x.masks, y.masks)


@pytest.mark.imitation
def test_from_imitation_needs_the_country():
    from imitation.data.types import Trajectory

    trajectory = Trajectory(obs=np.zeros((2, 3)), acts=np.zeros(1, dtype=np.int64),
                            infos=np.array([{}]), terminal=True)  # fmt: skip
    with pytest.raises(DataError, match="infos lack 'country'"):
        from_imitation([trajectory])
    bare = Trajectory(obs=np.zeros((2, 3)), acts=np.zeros(1, dtype=np.int64), infos=None,
                      terminal=True)  # fmt: skip
    with pytest.raises(DataError, match="record trajectory 0"):
        from_imitation([bare])


# ---------------------------------------------------------------------- validation


def _parts(t: int = 3, d: int = 4, a: int = 3):
    return {
        "country": "Country 001",
        "obs": np.zeros((t + 1, d), dtype=np.float32),
        "acts": np.zeros(t, dtype=np.int64),
        "masks": np.ones((t, a), dtype=bool),
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"acts": np.zeros(0, np.int64), "obs": np.zeros((1, 4)), "masks": np.ones((0, 3), bool)},
         "at least one action"),
        ({"obs": np.zeros((3, 4))}, r"obs must have shape \(4, d\)"),
        ({"obs": np.zeros(4)}, r"obs must have shape \(4, d\)"),
        ({"masks": np.ones((2, 3), dtype=bool)}, r"masks must be bool of shape \(3, n_actions\)"),
        ({"masks": np.ones((3, 3), dtype=np.int8)}, "masks must be bool"),
        ({"masks": np.ones(3, dtype=bool)}, "masks must be bool"),
        ({"infos": ({},)}, "infos must have 3 entries, got 1"),
        ({"acts": np.array([0, 3, 1])}, r"acts must lie in 0..2"),
        ({"acts": np.array([0, -1, 1])}, r"acts must lie in 0..2"),
        ({"acts": np.array([0.0, 1.0, 1.0])}, "acts must be integers"),
        ({"masks": np.array([[True, True, True], [False, True, True], [True] * 3])},
         "a demonstrated action is masked out"),
    ],
)  # fmt: skip
def test_demonstration_validation(change, message):
    with pytest.raises(ValueError, match=message):
        Demonstration(**{**_parts(), **change})


def test_a_valid_demonstration():
    demo = Demonstration(**_parts())
    assert len(demo) == 3 and demo.terminal and demo.infos == ()


def test_draft_only_demonstrations_of_sponsor_lists(records):
    """Draft records list sponsors and nothing else: one DRAFT step each, not terminal."""
    unrecorded = np.full_like(records.committee, NOT_RECORDED)
    drafts = replace(records, committee=unrecorded, plenary=unrecorded.copy())
    assert deliberation_demonstrations(drafts, ["Country 001"]) == []  # nothing complete
    demos = deliberation_demonstrations(drafts, ["Country 001"], draft_only=True)
    assert len(demos) == records.n_resolutions
    sponsor_share = STATE_NAMES.index("sponsor_share") - len(STATE_NAMES)
    for column, demo in enumerate(demos):
        assert len(demo) == 1 and not demo.terminal
        sponsored = records.sponsors[records.country_index("Country 001"), column] == 1
        assert demo.acts[0] == (Action.COSPONSOR if sponsored else Action.NO_ACTION)
        assert demo.obs[1, sponsor_share] == pytest.approx(
            (records.sponsors[:, column] == 1).mean()
        )
    with pytest.raises(ValueError, match="draft_only or from_first_recorded"):
        deliberation_demonstrations(drafts, draft_only=True, from_first_recorded=True)


def test_deliberation_demonstrations_of_a_test_period_use_the_given_history(records):
    sessions = records.resolutions["session"].to_numpy()
    train, test = (
        records.select(np.flatnonzero(sessions <= 3)),
        records.select(np.flatnonzero(sessions > 3)),
    )
    demos = deliberation_demonstrations(test, ["Country 002"], history=train.plenary_history())
    expected = RollCallFeatures(test.resolutions, history=train.plenary_history()).for_country(
        "Country 002"
    )
    n = expected.shape[1]
    np.testing.assert_array_equal(np.stack([d.obs[0, :n] for d in demos]), expected[: len(demos)])
    own = deliberation_demonstrations(test, ["Country 002"])  # described by its own past instead
    assert not np.array_equal(own[-1].obs[0, :n], demos[-1].obs[0, :n])


def test_stack_gives_every_decision_in_order(assembly):
    demos = rollcall_demonstrations(assembly.data, ["Country 001"])[:2]
    obs, acts, masks = Demonstration.stack(demos)
    n = len(demos[0]) + len(demos[1])
    assert obs.shape == (n, demos[0].obs.shape[1]) and acts.shape == (n,)
    assert masks.shape == (n, len(Vote)) and masks.dtype == bool
    np.testing.assert_array_equal(obs[: len(demos[0])], demos[0].obs[:-1])  # last obs: no decision
    np.testing.assert_array_equal(acts, np.concatenate([demos[0].acts, demos[1].acts]))
    with pytest.raises(ValueError, match="no demonstrations to stack"):
        Demonstration.stack([])
