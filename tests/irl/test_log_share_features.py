"""The log-scaled vote shares IRL fits on (``FeatureConfig(log_shares=True)``)."""

from __future__ import annotations

import numpy as np

from assembly_gym.envs.legislative.observation import (
    HISTORY_NAMES,
    LOG_SHARE_NAMES,
    FeatureConfig,
    RollCallFeatures,
    feature_names,
)


def test_default_layout_is_unchanged_and_log_shares_are_appended(small_assembly) -> None:
    assert len(feature_names()) == len(feature_names(FeatureConfig(log_shares=True))) - 11
    assert feature_names(FeatureConfig(log_shares=True))[-11:] == LOG_SHARE_NAMES
    data = small_assembly.data
    plain = RollCallFeatures(data.roll_calls, history=data).for_country("Country 001")
    logged = RollCallFeatures(data.roll_calls, history=data, config=FeatureConfig(log_shares=True))
    rows = logged.for_country("Country 001")
    np.testing.assert_array_equal(rows[:, : plain.shape[1]], plain)
    assert rows.min() >= 0.0 and rows.max() <= 1.0
    names = logged.names
    for name in ("similar_no", "past_yes", "consensus_yes"):
        share, log_share = rows[:, names.index(name)], rows[:, names.index(f"log_{name}")]
        expected = np.log1p(share / 0.01) / np.log1p(100.0)
        np.testing.assert_allclose(log_share, expected, atol=1e-6)
        order = np.argsort(share)
        assert (np.diff(log_share[order]) >= -1e-6).all()  # monotone in the share
    assert set(n.removeprefix("log_") for n in LOG_SHARE_NAMES) <= set(HISTORY_NAMES)
