"""The roll-call observation: names, bounds, the strictly-earlier rule, fallbacks."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.observation import (
    HISTORY_NAMES,
    FeatureConfig,
    RollCallFeatures,
    content_features,
    content_names,
    feature_names,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly


@pytest.fixture(scope="module")
def data() -> RollCallData:
    return generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=5, roll_calls_per_session=12, seed=5)
    ).data


@pytest.fixture(scope="module")
def features(data) -> RollCallFeatures:
    return RollCallFeatures(data.roll_calls, history=data)


def _flip(data: RollCallData, columns: np.ndarray) -> RollCallData:
    """Every cast vote on the given roll calls changed to another vote (absences kept)."""
    votes = data.votes.copy()
    change = columns[None, :] & (votes != ABSENT)
    votes[change] = (votes[change] + 1) % 3
    return replace(data, votes=votes)


def test_names_are_unique_and_split_into_content_then_history():
    names = feature_names()
    assert len(set(names)) == len(names)
    assert names[: len(content_names())] == content_names()
    assert set(HISTORY_NAMES) <= set(names)
    config = FeatureConfig(text_dims=FeatureConfig().text_dims + 3)
    assert len(feature_names(config)) == len(feature_names()) + 3
    assert "text_00" in names


def test_values_are_finite_and_in_the_unit_interval(data, features):
    rows = features.for_countries(data.country_names)
    assert rows.shape == (data.n_countries, data.n_roll_calls, len(features.names))
    assert rows.dtype == np.float32
    assert np.isfinite(rows).all()
    assert rows.min() >= 0.0 and rows.max() <= 1.0
    content = content_features(data.roll_calls)
    assert content.shape == (data.n_roll_calls, len(content_names()))
    np.testing.assert_allclose(rows[0, :, : content.shape[1]], content, rtol=1e-6)


def test_history_block_is_made_of_shares(data, features):
    rows = features.for_country(data.country_names[1])
    for prefix in ("similar", "past", "issue"):
        columns = [features.names.index(f"{prefix}_{v}") for v in ("yes", "no", "abstain")]
        np.testing.assert_allclose(rows[:, columns].sum(axis=1), 1.0, atol=1e-5)


def test_features_use_only_strictly_earlier_sessions(data, features):
    sessions = data.roll_calls["session"].to_numpy()
    for session in (2, 4):
        current = sessions == session
        changed = _flip(data, sessions >= session)
        after = RollCallFeatures(changed.roll_calls, history=changed)
        for country in data.country_names[:3]:
            np.testing.assert_array_equal(
                features.for_country(country)[current], after.for_country(country)[current]
            )
    # Not vacuous: the session just before does change them.
    changed = _flip(data, sessions == 3)
    after = RollCallFeatures(changed.roll_calls, history=changed)
    country = data.country_names[0]
    assert not np.array_equal(
        features.for_country(country)[sessions == 4], after.for_country(country)[sessions == 4]
    )


def test_first_session_has_no_history(data, features):
    rows = features.for_country(data.country_names[0])[data.roll_calls["session"] == 1]
    index = {n: features.names.index(n) for n in HISTORY_NAMES}
    for name in ("similar_coverage", "similar_top", "consensus_yes", "consensus_no"):
        assert (rows[:, index[name]] == 0).all()
    for name in ("past_yes", "past_no", "past_abstain"):
        np.testing.assert_allclose(rows[:, index[name]], 1 / 3, rtol=1e-6)


def test_a_forecast_history_describes_targets_from_the_training_votes(data):
    train, test = data.temporal_split(3)
    forecast = RollCallFeatures(test.roll_calls, history=train)
    changed = _flip(test, np.ones(test.n_roll_calls, dtype=bool))
    assert np.array_equal(
        forecast.for_country(data.country_names[2]),
        RollCallFeatures(changed.roll_calls, history=train).for_country(data.country_names[2]),
    )


def test_unknown_country_gets_the_documented_fallback(data, features):
    """All countries' earlier shares as its past, zero similar-vote coverage."""
    rows = features.for_country("Atlantis")
    index = {n: features.names.index(n) for n in HISTORY_NAMES}
    sessions = data.roll_calls["session"].to_numpy()
    assert (rows[:, index["similar_coverage"]] == 0).all()
    past = rows[:, [index["past_yes"], index["past_no"], index["past_abstain"]]]
    for session in (2, 5):
        earlier = data.votes[:, sessions < session]
        counts = np.array([(earlier == v).sum() for v in range(3)], dtype=float)
        shares = (counts + 1 / 3) / (counts.sum() + 1)  # one uniform pseudo-vote
        expected = (0 + 2.0 * shares) / (0 + 2.0)  # no own votes: the prior itself
        np.testing.assert_allclose(
            past[sessions == session], expected[None].repeat(12, 0), rtol=1e-5
        )
    similar = [index["similar_yes"], index["similar_no"], index["similar_abstain"]]
    issue = [index["issue_yes"], index["issue_no"], index["issue_abstain"]]
    np.testing.assert_array_equal(rows[:, similar], rows[:, issue])
    np.testing.assert_array_equal(rows[:, issue], past)


def test_feature_config_validation():
    with pytest.raises(ValueError, match="text_dims and neighbours must be ≥ 1"):
        FeatureConfig(text_dims=0)
    with pytest.raises(ValueError, match="text_dims and neighbours must be ≥ 1"):
        FeatureConfig(neighbours=0)
    with pytest.raises(ValueError, match="sharpness must be ≥ 0 and prior_strength > 0"):
        FeatureConfig(sharpness=-1.0)
    with pytest.raises(ValueError, match="sharpness must be ≥ 0 and prior_strength > 0"):
        FeatureConfig(prior_strength=0.0)
