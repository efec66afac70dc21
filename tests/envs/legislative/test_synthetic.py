"""The synthetic assembly: determinism, blocs, planted weights, votes from the planted softmax."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT
from assembly_gym.envs.legislative.data.schema import ROLL_CALL_COLUMNS
from assembly_gym.envs.legislative.observation import HISTORY_NAMES, RollCallFeatures, feature_names
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

SMALL = SyntheticConfig(n_countries=9, n_blocs=3, n_sessions=3, roll_calls_per_session=10, seed=7)


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(SMALL)


def test_generation_is_deterministic_per_seed(assembly):
    again = generate_assembly(SMALL)
    np.testing.assert_array_equal(assembly.data.votes, again.data.votes)
    np.testing.assert_array_equal(assembly.theta, again.theta)
    np.testing.assert_array_equal(assembly.blocs, again.blocs)
    pd.testing.assert_frame_equal(assembly.data.roll_calls, again.data.roll_calls)
    other = generate_assembly(SyntheticConfig(**{**SMALL.__dict__, "seed": 8}))
    assert not np.array_equal(assembly.data.votes, other.data.votes)
    assert not np.array_equal(assembly.theta, other.theta)


def test_data_has_the_real_layout(assembly):
    data = assembly.data
    assert data.votes.shape == (9, 30) and data.votes.dtype == np.int8
    assert set(ROLL_CALL_COLUMNS) <= set(data.roll_calls.columns)
    assert data.sessions.tolist() == [1, 2, 3]
    assert np.isin(data.votes, (ABSENT, 0, 1, 2)).all()
    assert "seed 7" in data.source
    assert len(set(data.country_names)) == 9


def test_blocs_split_countries_evenly(assembly):
    assert assembly.blocs.shape == (9,)
    assert np.bincount(assembly.blocs).tolist() == [3, 3, 3]
    country = assembly.data.country_names[4]
    assert assembly.bloc_of(country) == assembly.blocs[4]


def test_theta_shape_centring_and_zero_history_weights(assembly):
    names = feature_names(SMALL.features)
    assert assembly.theta.shape == (9, 3, 1 + len(names))
    assert assembly.feature_map.weight_shape == assembly.theta.shape[1:]
    np.testing.assert_allclose(assembly.theta.sum(axis=1), 0.0, atol=1e-12)
    history = [assembly.feature_map.names.index(f"{a}:{h}") for a in ("yes", "no", "abstain")
               for h in HISTORY_NAMES]  # fmt: skip
    assert (assembly.theta.reshape(9, -1)[:, history] == 0).all()
    content = assembly.theta[:, :, 1 : 1 + len(names) - len(HISTORY_NAMES)]
    assert (content != 0).mean() > 0.9  # content weights are planted
    np.testing.assert_array_equal(assembly.country_theta(assembly.data.country_names[2]),
                                  assembly.theta[2])  # fmt: skip


def test_countries_of_one_bloc_are_closer_than_across_blocs(assembly):
    flat = assembly.theta.reshape(9, -1)
    distance = np.linalg.norm(flat[:, None] - flat[None], axis=-1)
    same = assembly.blocs[:, None] == assembly.blocs[None]
    off_diagonal = ~np.eye(9, dtype=bool)
    assert distance[same & off_diagonal].mean() < distance[~same].mean()


def test_votes_follow_the_planted_softmax():
    assembly = generate_assembly(
        SyntheticConfig(n_countries=12, n_sessions=6, roll_calls_per_session=50, seed=11)
    )
    data = assembly.data
    features = RollCallFeatures(data.roll_calls, history=data)
    probs = np.stack(
        [
            softmax(assembly.feature_map.logits(assembly.theta[c], features.for_country(name)), -1)
            for c, name in enumerate(data.country_names)
        ]
    )  # fmt: skip  (C, R, 3)
    cast = data.votes != ABSENT
    assert cast.sum() > 3000
    observed = np.bincount(data.votes[cast], minlength=3) / cast.sum()
    expected = probs[cast].mean(axis=0)
    np.testing.assert_allclose(observed, expected, atol=0.02)
    # Per country as well (a few hundred draws each): the planted differences show.
    for c in range(data.n_countries):
        votes = data.votes[c][cast[c]]
        observed = np.bincount(votes, minlength=3) / len(votes)
        np.testing.assert_allclose(observed, probs[c][cast[c]].mean(axis=0), atol=0.08)
    # Each country follows its own planted policy, not another's.
    votes = data.votes[cast].astype(np.int64)[:, None]
    own = np.log(np.take_along_axis(probs[cast], votes, axis=1)).mean()
    others = np.log(np.take_along_axis(np.roll(probs, 1, axis=0)[cast], votes, axis=1)).mean()
    assert own > others + 0.5
    absent = 1 - cast.mean()
    assert abs(absent - 0.05) < 0.015


def test_softmax_is_stable_and_normalised():
    logits = np.array([[1000.0, 999.0, -1000.0], [0.0, 0.0, 0.0]])
    probs = softmax(logits, axis=-1)
    assert np.isfinite(probs).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    np.testing.assert_allclose(probs[1], 1 / 3)
    np.testing.assert_allclose(probs[0, 0] / probs[0, 1], np.e)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_countries": 0}, "must be ≥ 1"),
        ({"n_sessions": 0}, "must be ≥ 1"),
        ({"roll_calls_per_session": 0}, "must be ≥ 1"),
        ({"n_blocs": 0}, "n_blocs must be in 1..n_countries"),
        ({"n_countries": 3, "n_blocs": 4}, "n_blocs must be in 1..n_countries"),
        ({"absence_rate": 1.0}, r"absence_rate must be in \[0, 1\)"),
        ({"absence_rate": -0.1}, r"absence_rate must be in \[0, 1\)"),
        ({"n_themes": 0}, "n_themes must be ≥ 1"),
    ],
)
def test_config_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SyntheticConfig(**kwargs)


def test_unknown_country_in_the_truth_is_a_data_error(assembly):
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        assembly.country_theta("Atlantis")
