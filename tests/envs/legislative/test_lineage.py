"""Lineage keys, the latest earlier roll call on the same title, and the ``lineage_*`` features."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.lineage import latest_lineage, lineage_keys
from assembly_gym.envs.legislative.observation import (
    LINEAGE_NAMES,
    FeatureConfig,
    RollCallFeatures,
    feature_names,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

LINEAGE = FeatureConfig(lineage=True)
TITLES = ("The right to food", "Nuclear disarmament", "Human rights in Kosovo",
          "Zone of peace in the South Atlantic")  # fmt: skip


@pytest.fixture(scope="module")
def data() -> RollCallData:
    """A synthetic assembly whose roll calls recur every session under four titles."""
    data = generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=5, roll_calls_per_session=12, seed=5)
    ).data
    roll_calls = data.roll_calls.copy()
    roll_calls["descr"] = [TITLES[i % len(TITLES)] for i in range(len(roll_calls))]
    return replace(data, roll_calls=roll_calls)


def _table(sessions: list[int], short: list[str], descr: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"session": sessions, "short": short, "descr": descr})


def test_keys_are_the_title_words_in_any_form():
    record = "The President: Draft resolution C is entitled _The right to food<d3>. " + "x" * 300
    keys = lineage_keys(_table([1, 2, 3, 4], ["RIGHT TO DEVELOPMENT", "", "", ""],
                               ["Right to development", "The right of development", record,
                                "y" * 400]))  # fmt: skip
    assert keys[0] == keys[1] == ("development right",)
    assert keys[2] == ("food right",)  # the title quoted in a meeting record
    assert keys[3] == ()  # a long record quoting no title


def test_the_lineage_is_the_latest_strictly_earlier_roll_call():
    history = _table([1, 1, 2, 3], [""] * 4, ["Right to food", "Other", "The right to food",
                                              "Right to food"])  # fmt: skip
    targets = _table([3, 4, 1, 2], [""] * 4, ["Right to food"] * 3 + ["Unseen title"])
    np.testing.assert_array_equal(latest_lineage(targets, history), [2, 3, -1, -1])


def test_features_are_one_hot_with_an_age(data):
    features = RollCallFeatures(data.roll_calls, data, LINEAGE)
    assert feature_names(LINEAGE)[-len(LINEAGE_NAMES) :] == LINEAGE_NAMES
    assert "lineage_yes" not in feature_names()
    rows = features.for_country(data.country_names[0])[:, -len(LINEAGE_NAMES) :]
    np.testing.assert_array_equal(rows[:, :5].sum(axis=1), 1.0)
    first = (data.roll_calls["session"] == 1).to_numpy()
    assert (rows[first, 4] == 1).all() and (rows[~first, 4] == 0).all()
    np.testing.assert_allclose(rows[~first, 5], 0.1)  # last session's version
    votes = data.votes[0]
    vote = votes[latest_lineage(data.roll_calls, data.roll_calls)[~first]]
    expected = np.stack([vote == v for v in (0, 1, 2, ABSENT)], axis=1)
    np.testing.assert_array_equal(rows[~first, :4], expected)


def test_lineage_uses_only_strictly_earlier_sessions(data):
    before = RollCallFeatures(data.roll_calls, data, LINEAGE)
    sessions = data.roll_calls["session"].to_numpy()
    votes = data.votes.copy()
    later = (sessions >= 3)[None, :] & (votes != ABSENT)
    votes[later] = (votes[later] + 1) % 3
    after = RollCallFeatures(data.roll_calls, replace(data, votes=votes), LINEAGE)
    for country in data.country_names:
        current = sessions == 3
        np.testing.assert_array_equal(
            before.for_country(country)[current], after.for_country(country)[current]
        )
    assert any(  # not vacuous: session 4 reads session 3's votes
        not np.array_equal(
            before.for_country(c)[sessions == 4], after.for_country(c)[sessions == 4]
        )
        for c in data.country_names
    )
