"""The ``allies_*`` features: names, bounds, the strictly-earlier rule, an exact case."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.observation import (
    FeatureConfig,
    RollCallFeatures,
    ally_names,
    feature_names,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

ALLIES = FeatureConfig(allies=2)
SHARES = ["allies_yes", "allies_no", "allies_abstain"]


@pytest.fixture(scope="module")
def data() -> RollCallData:
    return generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=5, roll_calls_per_session=12, seed=5)
    ).data


def _flip(data: RollCallData, columns: np.ndarray) -> RollCallData:
    """Every cast vote on the given roll calls changed to another vote (absences kept)."""
    votes = data.votes.copy()
    change = columns[None, :] & (votes != ABSENT)
    votes[change] = (votes[change] + 1) % 3
    return replace(data, votes=votes)


def test_names_come_last_and_only_when_asked():
    assert ally_names() == () and "allies_yes" not in feature_names()
    assert feature_names(ALLIES)[-3:] == tuple(SHARES)
    logged = feature_names(replace(ALLIES, log_shares=True))
    assert logged[-6:] == (*SHARES, *(f"log_{name}" for name in SHARES))
    with pytest.raises(ValueError, match="allies"):
        FeatureConfig(allies=-1)


def test_values_are_shares_in_the_unit_interval(data):
    features = RollCallFeatures(data.roll_calls, data, replace(ALLIES, log_shares=True))
    rows = features.for_countries(data.country_names)
    assert rows.shape == (data.n_countries, data.n_roll_calls, len(features.names))
    assert np.isfinite(rows).all() and rows.min() >= 0.0 and rows.max() <= 1.0
    columns = [features.names.index(name) for name in SHARES]
    np.testing.assert_allclose(rows[:, :, columns].sum(axis=2), 1.0, atol=1e-5)


def test_allies_use_only_strictly_earlier_sessions(data):
    before = RollCallFeatures(data.roll_calls, data, ALLIES)
    sessions = data.roll_calls["session"].to_numpy()
    columns = [before.names.index(name) for name in SHARES]
    for session in (2, 4):
        changed = _flip(data, sessions >= session)
        after = RollCallFeatures(changed.roll_calls, changed, ALLIES)
        for country in data.country_names:
            np.testing.assert_array_equal(
                before.for_country(country)[sessions == session][:, columns],
                after.for_country(country)[sessions == session][:, columns],
            )
    changed = _flip(data, sessions == 3)  # not vacuous: the session before does change them
    after = RollCallFeatures(changed.roll_calls, changed, ALLIES)
    assert any(
        not np.array_equal(
            before.for_country(c)[sessions == 4], after.for_country(c)[sessions == 4]
        )
        for c in data.country_names
    )


def test_a_forecast_never_reads_the_target_votes(data):
    train, test = data.temporal_split(3)
    changed = _flip(test, np.ones(test.n_roll_calls, dtype=bool))
    for country in data.country_names[:3]:
        np.testing.assert_array_equal(
            RollCallFeatures(test.roll_calls, train, ALLIES).for_country(country),
            RollCallFeatures(changed.roll_calls, train, ALLIES).for_country(country),
        )


def test_a_twin_is_the_closest_ally(data):
    """A country whose votes a twin copies has the twin's votes, its own, as allies_*."""
    votes = data.votes.copy()
    votes[1] = votes[0]
    twins = replace(data, votes=votes)
    features = RollCallFeatures(twins.roll_calls, twins, replace(ALLIES, allies=1))
    rows = features.for_country(data.country_names[0])
    similar = rows[:, [features.names.index(f"similar_{v}") for v in ("yes", "no", "abstain")]]
    allies = rows[:, [features.names.index(name) for name in SHARES]]
    np.testing.assert_allclose(allies, similar, atol=1e-6)
    other = features.for_country(data.country_names[2])  # not vacuous: others' allies differ
    assert not np.allclose(
        other[:, [features.names.index(name) for name in SHARES]],
        other[:, [features.names.index(f"similar_{v}") for v in ("yes", "no", "abstain")]],
    )
