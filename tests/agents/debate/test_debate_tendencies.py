"""Tendencies: named-feature scorers, text relevance, agents and claims."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.agents.debate.observations import Observations, TextTendencySpec
from assembly_gym.agents.debate.tendencies import (
    EPSILON,
    Tendency,
    TendencyAgent,
    compute_claims,
    legislative_claims,
    tendency_agents,
    text_relevance,
)
from assembly_gym.core.layout import ObservationLayout


def test_seven_tendencies_with_labels_and_descriptions():
    assert len(Tendency) == 7
    assert len({t.label for t in Tendency}) == 7
    assert all(len(t.description) > 40 for t in Tendency)


@pytest.mark.parametrize("tendency", list(Tendency))
def test_claims_are_distributions_and_saliences_lie_in_unit_interval(
    tendency, country_observations
):
    probs, salience = legislative_claims(
        tendency, country_observations.features, country_observations.layout
    )
    assert probs.shape == (len(country_observations), 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert (probs >= EPSILON / 3 - 1e-12).all()
    assert ((salience >= 0) & (salience <= 1)).all()


@pytest.mark.parametrize("tendency", list(Tendency))
def test_scorers_read_features_by_name_not_position(tendency, country_observations):
    """Shuffling the columns together with their names leaves every claim unchanged."""
    rng = np.random.default_rng(1)
    order = rng.permutation(len(country_observations.feature_names))
    shuffled = ObservationLayout([country_observations.feature_names[i] for i in order])
    expected = legislative_claims(
        tendency, country_observations.features, country_observations.layout
    )
    got = legislative_claims(tendency, country_observations.features[:, order], shuffled)
    np.testing.assert_allclose(got[0], expected[0])
    np.testing.assert_allclose(got[1], expected[1])


def one_roll_call(layout: ObservationLayout, **values: float) -> np.ndarray:
    row = np.zeros((1, len(layout)), dtype=np.float32)
    for name, value in values.items():
        row[0, layout.index(name)] = value
    return row


def test_issue_tendencies_claim_their_issues(layout):
    human_rights = one_roll_call(layout, issue_hr=1.0)
    yes = legislative_claims(Tendency.HUMAN_RIGHTS, human_rights, layout)[0][0]
    against = legislative_claims(Tendency.SOVEREIGNTY, human_rights, layout)[0][0]
    assert yes.argmax() == 0 and yes[0] > 0.85
    assert against.argmax() == 2 and against[0] < 0.15
    economic = one_roll_call(layout, issue_ec=1.0)
    assert legislative_claims(Tendency.DEVELOPMENT, economic, layout)[0][0].argmax() == 0
    # no claim where the issue is absent: uniform
    np.testing.assert_allclose(
        legislative_claims(Tendency.DEVELOPMENT, human_rights, layout)[0], 1 / 3
    )
    nuclear = one_roll_call(layout, issue_nu=1.0)
    assert legislative_claims(Tendency.GREAT_POWER_ALIGNMENT, nuclear, layout)[0][0].argmax() == 1
    colonial = one_roll_call(layout, issue_co=1.0)
    assert legislative_claims(Tendency.DECOLONISATION, colonial, layout)[0][0].argmax() == 0


def test_consensus_follows_the_majority_and_bloc_its_own_line(layout):
    contested = one_roll_call(
        layout,
        consensus_yes=0.2,
        consensus_no=0.7,
        similar_abstain=1.0,
        issue_abstain=1.0,
        similar_coverage=1.0,
    )
    assert legislative_claims(Tendency.CONSENSUS, contested, layout)[0][0].argmax() == 1
    assert legislative_claims(Tendency.BLOC_LOYALTY, contested, layout)[0][0].argmax() == 2
    no_history = one_roll_call(layout)
    np.testing.assert_allclose(legislative_claims(Tendency.CONSENSUS, no_history, layout)[0], 1 / 3)


def test_a_layout_without_the_named_feature_raises(layout):
    with pytest.raises(KeyError, match="no observation dimension 'issue_hr'"):
        legislative_claims(Tendency.HUMAN_RIGHTS, np.zeros((1, 2)), ObservationLayout(["a", "b"]))


def test_text_relevance_ranks_the_matching_description_first():
    descriptions = [t.description for t in Tendency]
    texts = [
        "Condemned torture and discrimination against women",
        "Debt relief and trade financing for developing countries",
        "Supported a treaty banning nuclear weapons",
    ]
    relevance = text_relevance(texts, descriptions)
    assert relevance.shape == (7, 3) and ((relevance >= 0) & (relevance <= 1)).all()
    labels = [list(Tendency)[k] for k in relevance.argmax(axis=0)]
    assert labels == [Tendency.HUMAN_RIGHTS, Tendency.DEVELOPMENT, Tendency.GREAT_POWER_ALIGNMENT]
    np.testing.assert_array_equal(text_relevance(["the and of"], ["a the"]), [[0.0]])


def test_compute_claims_mixes_legislative_and_text_agents(country_observations):
    agents = [
        *tendency_agents([Tendency.HUMAN_RIGHTS, Tendency.CONSENSUS]),
        TendencyAgent(TextTendencySpec("custom", "descriptive words of the synthetic titles")),
    ]
    claims = compute_claims(country_observations, agents)
    assert claims.probs.shape == (3, len(country_observations), 3)
    np.testing.assert_allclose(claims.probs[2], 1 / 3)  # a text tendency makes no action claim


def test_text_tendencies_need_texts_and_legislative_ones_need_votes(country_observations):
    without_texts = Observations(
        ids=("a", "b"), features=np.zeros((2, 0), np.float32), actions=np.full(2, -1)
    )
    with pytest.raises(ValueError, match="need observations with texts"):
        compute_claims(without_texts, tendency_agents())
    other_actions = Observations(
        ids=("a",),
        features=country_observations.features[:1],
        feature_names=country_observations.feature_names,
        actions=np.array([0]),
        action_names=("cosponsor", "no_action"),
    )
    with pytest.raises(ValueError, match="scores roll-call votes"):
        compute_claims(other_actions, tendency_agents())


def test_agents_validate_themselves():
    with pytest.raises(ValueError, match="non-empty name and description"):
        TextTendencySpec(" ", "x")
    with pytest.raises(ValueError, match=r"allocation must be in \[0, 1\]"):
        TendencyAgent(TextTendencySpec("x", "y"), allocation=1.5)
    shares = [a.allocation for a in tendency_agents()]
    assert shares == pytest.approx([1 / 7] * 7)
