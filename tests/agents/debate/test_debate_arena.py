"""The arena: claims, stakes, resolution, the market's payouts and winners — on hand-made claims."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assembly_gym.agents.debate.allocation import project_bounded_simplex
from assembly_gym.agents.debate.arena import Arena, ClaimSet, top_claims

YES, NO = 0, 1


def two_tendencies() -> ClaimSet:
    """Tendency 0 says yes everywhere; tendency 1 says no on the first two observations only."""
    probs = np.array(
        [
            [[0.9, 0.05, 0.05]] * 4,
            [[0.05, 0.9, 0.05], [0.05, 0.9, 0.05], [0.9, 0.05, 0.05], [0.9, 0.05, 0.05]],
        ]
    )
    return ClaimSet(probs, np.zeros((2, 4)))


def test_claims_report_predicted_actions_and_strengths():
    claims = two_tendencies()
    np.testing.assert_array_equal(claims.predicted_actions, [[0, 0, 0, 0], [1, 1, 0, 0]])
    # TV to uniform / (1 − 1/3): (0.9 − 1/3) / (2/3) = 0.85
    np.testing.assert_allclose(claims.strengths, 0.85)
    np.testing.assert_allclose(claims.mixture(np.array([0.5, 0.5]))[0], [0.475, 0.475, 0.05])


def test_stakes_follow_allocation_and_disagreement():
    claims, arena = two_tendencies(), Arena()
    outcomes = np.array([YES, NO, YES, YES])
    allocations = np.array([0.75, 0.25])
    stakes = arena.stakes(claims, outcomes, allocations)
    # where both tendencies make the same claim nobody disagrees with the consensus: no stake
    np.testing.assert_allclose(stakes[:, 2:], 0.0)
    # disagreement with the consensus is 0.25·0.85 for tendency 0 and 0.75·0.85 for tendency 1
    d = np.array([0.25, 0.75]) * 0.85
    np.testing.assert_allclose(stakes[:, 0], allocations * d / (d.sum() * 2 / 8))
    # per unit of allocation, the minority view stakes more: it disagrees more
    assert stakes[1, 0] / allocations[1] > stakes[0, 0] / allocations[0]


def one_round(claims, outcomes, allocations, *, learning_rate=0.1, lower=0.0, upper=1.0):
    """A round settled by the market of these claims and outcomes."""
    arena = Arena()
    market = arena.market(claims, outcomes, allocations, lower, upper)
    return arena.round(claims, outcomes, allocations, market, learning_rate=learning_rate)


def test_resolution_says_which_tendency_explained_each_outcome():
    outcome = one_round(two_tendencies(), np.array([YES, NO, YES, YES]), np.array([0.5, 0.5]))
    # observation 0 (yes): tendency 0 wins, 1 loses; observation 1 (no): the reverse
    assert outcome.wins[0, 0] and not outcome.wins[1, 0]
    assert outcome.wins[1, 1] and not outcome.wins[0, 1]
    np.testing.assert_allclose(outcome.evidence[:, 1], [0.05, 0.9])
    # the market pays out what the allocations owe it: winnings sum to zero
    np.testing.assert_allclose(outcome.scores, outcome.market - 0.5)
    assert outcome.scores.sum() == pytest.approx(0.0, abs=1e-12)


def test_allocations_shift_toward_the_winner():
    mostly_no = np.array([NO, NO, YES, YES])
    outcome = one_round(two_tendencies(), mostly_no, np.array([0.5, 0.5]))
    assert outcome.scores[1] > outcome.scores[0]
    assert outcome.allocations[1] > 0.5


def test_the_market_is_the_bounded_maximum_likelihood_mixture(rng):
    """Its first-order conditions: equal mean likelihood ratios inside the bounds."""
    probs = rng.dirichlet(np.ones(3), size=(4, 200))
    claims, outcomes = ClaimSet(probs, np.zeros((4, 200))), rng.integers(0, 3, 200)
    arena = Arena()
    market = arena.market(claims, outcomes, np.full(4, 0.25), 0.05, 0.6)
    evidence = claims.evidence(outcomes)
    ratio = (evidence / (market @ evidence)).mean(axis=1)  # ∂ mean log-likelihood / ∂ v_k
    inside = (market > 0.05 + 1e-6) & (market < 0.6 - 1e-6)
    assert inside.sum() >= 2
    np.testing.assert_allclose(ratio[inside], ratio[inside].mean(), atol=1e-4)
    assert (ratio[market <= 0.05 + 1e-6] <= ratio[inside].max() + 1e-4).all()


def test_unlabelled_observations_are_resolved_by_relevance():
    probs = np.full((2, 3, 3), 1 / 3)
    relevance = np.array([[0.9, 0.8, 0.1], [0.1, 0.2, 0.9]])
    claims = ClaimSet(probs, relevance)
    unlabelled = np.full(3, -1)
    np.testing.assert_allclose(claims.evidence(unlabelled), relevance)
    outcome = one_round(claims, unlabelled, np.array([0.5, 0.5]), learning_rate=0.2)
    assert outcome.allocations[0] > 0.5  # relevant to two observations out of three


def test_debate_recovers_the_mixture_that_generated_the_outcomes(rng):
    """Three well-separated tendencies, 6,000 outcomes from a 0.6/0.3/0.1 mixture."""
    n = 6000
    probs = np.stack(
        [np.tile(p, (n, 1)) for p in ([0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9])]
    )
    planted = np.array([0.6, 0.3, 0.1])
    owners = rng.choice(3, size=n, p=planted)
    outcomes = np.array([rng.choice(3, p=probs[k, i]) for i, k in enumerate(owners)])
    claims, arena = ClaimSet(probs, np.zeros((3, n))), Arena()
    allocations = np.full(3, 1 / 3)
    for epoch in range(8):
        allocations = arena.debate(
            claims, outcomes, allocations, learning_rate=0.15 * 0.9**epoch, lower=0.03, upper=0.9
        ).allocations
    np.testing.assert_allclose(allocations, planted, atol=0.03)


def test_an_epoch_is_deterministic_and_reports_stakes_and_changes():
    claims, arena = two_tendencies(), Arena(rounds=3)
    outcomes = np.array([YES, NO, YES, YES])
    first = arena.debate(
        claims, outcomes, np.array([0.5, 0.5]), learning_rate=0.1, lower=0.1, upper=0.9
    )
    again = arena.debate(
        claims, outcomes, np.array([0.5, 0.5]), learning_rate=0.1, lower=0.1, upper=0.9
    )
    np.testing.assert_array_equal(first.allocations, again.allocations)
    np.testing.assert_allclose(first.changes, first.allocations - 0.5)
    assert first.total_stakes.shape == (2,) and (first.total_stakes >= 0).all()


@st.composite
def debates(draw):
    k = draw(st.integers(2, 6))
    n = draw(st.integers(1, 30))
    seed = draw(st.integers(0, 2**16))
    lower = draw(st.floats(0.0, 1.0 / k))
    upper = draw(st.floats(1.0 / k, 1.0))
    rate = draw(st.floats(0.001, 1.0))
    return k, n, seed, lower, upper, rate


@settings(max_examples=80, deadline=None)
@given(debates())
def test_every_round_stays_in_bounds_and_the_epochs_winner_gains_share(case):
    k, n, seed, lower, upper, rate = case
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(3, 0.3), size=(k, n))
    claims = ClaimSet(probs / probs.sum(axis=2, keepdims=True), rng.random((k, n)))
    outcomes = rng.integers(-1, 3, size=n)
    start = project_bounded_simplex(rng.random(k), lower, upper)
    arena = Arena(rounds=3)
    market = arena.market(claims, outcomes, start, lower, upper)
    allocations = start
    for _ in range(arena.rounds):
        allocations = arena.round(
            claims, outcomes, allocations, market, learning_rate=rate
        ).allocations
        assert np.isfinite(allocations).all()
        assert np.isclose(allocations.sum(), 1.0)
        assert (allocations >= lower - 1e-9).all() and (allocations <= upper + 1e-9).all()
    epoch = arena.debate(claims, outcomes, start, learning_rate=rate, lower=lower, upper=upper)
    np.testing.assert_array_equal(epoch.allocations, allocations)
    winner = int(np.argmax(epoch.scores))
    if np.abs(epoch.changes).sum() > 1e-9:  # the market moved the allocations at all
        assert epoch.changes[winner] > 0 or start[winner] >= upper - 1e-9
    np.testing.assert_allclose(epoch.scores, epoch.changes * (1 / rate), atol=1e-9)


def test_top_claims_name_observations_actions_and_results():
    claims, outcomes = two_tendencies(), np.array([YES, NO, YES, YES])
    outcome = one_round(claims, outcomes, np.array([0.5, 0.5]))
    report = top_claims(
        claims,
        outcome,
        ["yes-sayer", "naysayer"],
        ["a", "b", "c", "d"],
        ("yes", "no", "abstain"),
        per_tendency=1,
    )
    (claim,) = report["naysayer"]
    assert claim.observation in ("a", "b") and claim.action == "no" and claim.stake > 0
    assert claim.won is (claim.observation == "b")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rounds": 0}, "rounds must be ≥ 1"),
        ({"evidence_floor": 0.0}, "evidence_floor"),
    ],
)
def test_bad_arena_settings_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Arena(**kwargs)


def test_the_learning_rate_is_a_share_of_the_way_to_the_market():
    claims, outcomes = two_tendencies(), np.array([YES, NO, YES, YES])
    with pytest.raises(ValueError, match=r"learning_rate must be in \(0, 1\]"):
        one_round(claims, outcomes, np.array([0.5, 0.5]), learning_rate=1.5)


def test_outcomes_must_match_the_claims():
    with pytest.raises(ValueError, match="outcomes must have shape"):
        Arena().debate(
            two_tendencies(),
            np.zeros(3),
            np.array([0.5, 0.5]),
            learning_rate=0.1,
            lower=0.0,
            upper=1.0,
        )
