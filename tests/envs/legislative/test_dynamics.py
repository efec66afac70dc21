"""EmpiricalDynamics: back-off tables, normalisation, recovery of a planted effect, sampling."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import Country
from assembly_gym.envs.legislative.data import ABSENT, ISSUE_CODES, Vote
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics, issue_keys, own_outcomes
from assembly_gym.envs.legislative.resolutions import (
    NOT_RECORDED,
    ResolutionRecords,
    generate_resolution_records,
)
from assembly_gym.envs.legislative.spaces import (
    SPONSOR_SHARE_EDGES,
    YES_SHARE_EDGES,
    Action,
    Stage,
    support_bin,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

HR = ISSUE_CODES.index("hr")
NO_ISSUE = len(ISSUE_CODES)


@pytest.fixture(scope="module")
def roll_calls():
    data = generate_assembly(SyntheticConfig(n_countries=2, n_blocs=1, n_sessions=2, seed=2)).data
    table = data.roll_calls.iloc[:60].copy()
    for code in ISSUE_CODES:
        table[f"issue_{code}"] = False
    table["issue_hr"] = np.arange(60) % 2 == 0  # even resolutions: human rights; odd: none
    return table.reset_index(drop=True)


def _records(roll_calls, sponsors, committee, plenary) -> ResolutionRecords:
    countries = tuple(
        Country(f"Country {i + 1:03d}", "", f"C{i + 1:02d}") for i in range(len(sponsors))
    )
    return ResolutionRecords(
        countries,
        roll_calls,
        *(np.asarray(m, dtype=np.int8) for m in (sponsors, committee, plenary)),
    )


@pytest.fixture(scope="module")
def synthetic_dynamics():
    records = generate_resolution_records(
        generate_assembly(SyntheticConfig(n_countries=10, n_sessions=4, seed=3))
    )
    return records, EmpiricalDynamics.fit(records)


def test_shapes_and_normalisation(synthetic_dynamics):
    records, dynamics = synthetic_dynamics
    assert dynamics.countries == records.country_names
    assert dynamics.sponsor.shape == (10, 7)
    assert dynamics.votes.shape == (10, 7, 2, 2, 5, 4)
    assert ((dynamics.sponsor > 0) & (dynamics.sponsor < 1)).all()
    np.testing.assert_allclose(dynamics.votes.sum(axis=-1), 1.0)
    assert (dynamics.votes > 0).all()


def test_a_country_without_sponsor_records_takes_the_overall_rate(roll_calls):
    rng = np.random.default_rng(0)
    sponsors = (rng.random((3, 60)) < 0.3).astype(np.int8)
    sponsors[2] = NOT_RECORDED
    votes = np.zeros((3, 60), dtype=np.int8)
    smoothing, prior = 2.0, 0.15
    dynamics = EmpiricalDynamics.fit(_records(roll_calls, sponsors, votes, votes),
                                     smoothing=smoothing, sponsor_prior=prior)  # fmt: skip
    known = sponsors[:2]
    overall = (known.sum() + smoothing * prior) / (known.size + smoothing)
    np.testing.assert_allclose(dynamics.sponsor[2], overall)  # every issue: the coarser estimate
    country = (known[0].sum() + smoothing * overall) / (60 + smoothing)
    # Country 0 has data on "hr" and "no issue" only; the other issue keys take its own rate.
    for key in range(7):
        if key not in (HR, NO_ISSUE):
            assert dynamics.sponsor[0, key] == pytest.approx(country)
    hr = (known[0, ::2].sum() + smoothing * country) / (30 + smoothing)
    assert dynamics.sponsor[0, HR] == pytest.approx(hr)


def test_a_vote_context_without_data_equals_its_coarser_estimate(roll_calls):
    sponsors = np.zeros((3, 60), dtype=np.int8)  # nobody ever sponsors
    rng = np.random.default_rng(1)
    committee = rng.integers(-1, 3, size=(3, 60)).astype(np.int8)
    plenary = rng.integers(-1, 3, size=(3, 60)).astype(np.int8)
    dynamics = EmpiricalDynamics.fit(_records(roll_calls, sponsors, committee, plenary))
    votes = dynamics.votes
    # Sponsored = 1 never happened: its whole sub-table is the (country, issue) estimate,
    # the same for both stages and every support bin.
    for country in range(3):
        for key in range(7):
            block = votes[country, key, 1]
            np.testing.assert_allclose(block, np.broadcast_to(block[0, 0], block.shape))
    # An issue key with no resolutions equals the country's overall estimate; those agree
    # across keys and bins.
    np.testing.assert_allclose(votes[:, ISSUE_CODES.index("me")], votes[:, ISSUE_CODES.index("ec")])
    assert not np.allclose(votes[:, HR, 0], votes[:, ISSUE_CODES.index("me"), 0])


def test_a_strong_planted_effect_is_recovered(roll_calls):
    rng = np.random.default_rng(2)
    sponsors = (rng.random((4, 60)) < 0.5).astype(np.int8)
    loyal = np.where(sponsors == 1, Vote.YES, Vote.NO).astype(np.int8)  # sponsors vote yes
    dynamics = EmpiricalDynamics.fit(_records(roll_calls, sponsors, loyal, loyal))
    for stage in (Stage.COMMITTEE_VOTE, Stage.PLENARY_VOTE):
        for bin_ in range(5):
            for key in (HR, NO_ISSUE):
                sponsored = dynamics.vote_probs(stage, key, np.ones(4, bool), bin_)
                not_sponsored = dynamics.vote_probs(stage, key, np.zeros(4, bool), bin_)
                assert (sponsored[:, Vote.YES] > 0.7).all()
                assert (not_sponsored[:, Vote.NO] > 0.7).all()


def test_support_shifts_votes_in_the_synthetic_records(synthetic_dynamics):
    """The synthetic records plant loyalty (sponsors vote yes): the fit finds it."""
    _, dynamics = synthetic_dynamics
    votes = dynamics.votes[..., Vote.YES]
    assert votes[:, :, 1].mean() > votes[:, :, 0].mean() + 0.05


def test_fit_errors(roll_calls):
    sponsors = np.zeros((2, 60), dtype=np.int8)
    unrecorded = np.full((2, 60), NOT_RECORDED, dtype=np.int8)
    with pytest.raises(DataError, match="no recorded votes to fit the dynamics on"):
        EmpiricalDynamics.fit(_records(roll_calls, sponsors, unrecorded, unrecorded))
    with pytest.raises(ValueError, match="smoothing must be > 0"):
        EmpiricalDynamics.fit(_records(roll_calls, sponsors, sponsors, sponsors), smoothing=0)


def test_vote_probs_only_at_vote_stages(synthetic_dynamics):
    _, dynamics = synthetic_dynamics
    with pytest.raises(ValueError, match="votes happen at"):
        dynamics.vote_probs(Stage.DRAFT, 0, np.zeros(10, bool), 0)
    probs = dynamics.vote_probs(Stage.PLENARY_VOTE, 3, np.zeros(10, bool), 2)
    assert probs.shape == (10, 4)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)


def test_responses_follow_the_tables(synthetic_dynamics):
    _, dynamics = synthetic_dynamics
    rng = np.random.default_rng(0)
    n, countries = 4000, len(dynamics.countries)
    issues, rows = np.full(n, HR), np.zeros(n, dtype=np.int64)  # country 0 is the agent
    sponsored = np.zeros((n, countries), dtype=bool)
    choices = dynamics.respond(
        Stage.DRAFT, issues, rows, np.full(n, Action.COSPONSOR), sponsored, np.zeros(n),
        rng.random((n, countries)),
    )  # fmt: skip
    assert choices.dtype == np.int8 and (choices[:, 0] == 1).all() and sponsored[:, 0].all()
    np.testing.assert_allclose(
        sponsored[:, 1:].mean(axis=0), dynamics.sponsor_probs(HR)[1:], atol=0.03
    )
    fixed = np.tile(np.arange(countries) % 2 == 0, (n, 1))
    votes = dynamics.respond(
        Stage.COMMITTEE_VOTE, issues, rows, np.full(n, Action.ABSTAIN), fixed, np.full(n, 0.05),
        rng.random((n, countries)),
    )  # fmt: skip
    assert votes.dtype == np.int8 and np.isin(votes, (ABSENT, 0, 1, 2)).all()
    assert (votes[:, 0] == Vote.ABSTAIN).all()  # the agent's own choice
    probs = dynamics.vote_probs(Stage.COMMITTEE_VOTE, HR, fixed[0], 1)  # 0.05 is in bin 1
    frequencies = np.stack([(votes == code).mean(axis=0) for code in (0, 1, 2, ABSENT)], axis=1)
    np.testing.assert_allclose(frequencies[1:], probs[1:], atol=0.03)
    with pytest.raises(ValueError, match="nobody acts"):
        dynamics.respond(
            Stage.TERMINAL, issues, rows, rows, fixed, np.zeros(n), np.zeros((n, countries))
        )


def test_support_bins_and_issue_keys():
    assert support_bin(Stage.COMMITTEE_VOTE, 0.0) == 0
    assert support_bin(Stage.COMMITTEE_VOTE, SPONSOR_SHARE_EDGES[0]) == 1  # edges open the bin
    assert support_bin(Stage.COMMITTEE_VOTE, 1.0) == 4
    assert support_bin(Stage.PLENARY_VOTE, 0.3) == 0
    assert support_bin(Stage.PLENARY_VOTE, YES_SHARE_EDGES[1]) == 2
    np.testing.assert_array_equal(
        support_bin(Stage.PLENARY_VOTE, np.array([0.5, 0.85, 0.95])), [1, 3, 4]
    )
    issues = np.zeros((3, 6), dtype=bool)
    issues[0, [2, 4]] = True
    issues[1, 5] = True
    np.testing.assert_array_equal(issue_keys(issues), [2, 5, 6])


@pytest.mark.parametrize("stage", [Stage.COMMITTEE_VOTE, Stage.PLENARY_VOTE])
def test_vote_draws_are_the_first_outcome_whose_cumulative_probability_reaches_the_uniform(
    synthetic_dynamics, stage
):
    _, dynamics = synthetic_dynamics
    rng = np.random.default_rng(1)
    n, countries = 300, len(dynamics.countries)
    issues, sponsored = rng.integers(0, 7, n), rng.random((n, countries)) < 0.3
    support, uniforms = rng.random(n), rng.random((n, countries))
    bins = support_bin(stage, support)
    cdf = np.cumsum(dynamics.votes, axis=-1)[
        np.arange(countries), issues[:, None], sponsored.astype(int), stage - 1, bins[:, None]
    ]  # (N, C, 4)
    expected = np.minimum((uniforms[:, :, None] > cdf).sum(axis=2), 3)
    outcomes = dynamics.vote_outcomes(stage, issues, sponsored, support, uniforms)
    np.testing.assert_array_equal(outcomes, expected)
    for i in range(0, n, 37):  # one episode at a time, as a single env steps
        context = dynamics.context_thresholds(stage, int(issues[i]), float(support[i]))
        exceeded = uniforms[i] > context.take(dynamics.threshold_rows(sponsored[i]), axis=1)
        np.testing.assert_array_equal(exceeded.sum(axis=0), expected[i])


@pytest.mark.parametrize("stage", [Stage.COMMITTEE_VOTE, Stage.PLENARY_VOTE])
def test_vote_tallies_count_what_respond_draws(synthetic_dynamics, stage):
    _, dynamics = synthetic_dynamics
    rng = np.random.default_rng(2)
    n, countries = 200, len(dynamics.countries)
    issues, rows = rng.integers(0, 7, n), rng.integers(0, countries, n)
    actions = rng.integers(0, len(Action), n)
    sponsored, support = rng.random((n, countries)) < 0.3, rng.random(n)
    uniforms = rng.random((n, countries))
    choices = dynamics.respond(stage, issues, rows, actions, sponsored, support, uniforms)
    tallies = dynamics.vote_tallies(
        stage, issues, dynamics.threshold_rows(sponsored), support, uniforms, rows,
        own_outcomes(actions),
    )  # fmt: skip
    expected = np.stack([(choices == vote).sum(axis=1) for vote in Vote], axis=1)
    np.testing.assert_array_equal(tallies, expected)
