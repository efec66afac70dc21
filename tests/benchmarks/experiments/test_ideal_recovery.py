"""``experiment ideal_recovery``: the planted votes, and the rotation and coverage it reports."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import numpy as np
import pytest

from assembly_gym.benchmarks.experiments.ideal_recovery import STEP, plant, recovery
from assembly_gym.envs.legislative.data import ABSENT
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.ideal import IdealPointModel


def test_votes_are_planted_where_the_assembly_voted() -> None:
    data = generate_assembly(SyntheticConfig(n_countries=30, n_sessions=5, seed=4)).data
    planted, positions = plant(data, 2, np.random.default_rng(0))
    assert positions.shape == (30, 5, 2)
    np.testing.assert_array_equal(planted.votes == ABSENT, data.votes == ABSENT)
    assert set(np.unique(planted.votes[planted.votes != ABSENT])) == {0, 1, 2}
    assert not np.array_equal(planted.votes, data.votes)
    assert np.std(np.diff(positions, axis=1)) == pytest.approx(STEP, rel=0.15)


def test_recovery_undoes_a_rotation_and_counts_the_covered_positions() -> None:
    """A mock fit: the planted positions turned by a known rotation, with known errors."""
    rng = np.random.default_rng(1)
    planted = rng.normal(size=(20, 3, 2))
    turn, _ = np.linalg.qr(rng.normal(size=(2, 2)))
    voted = np.ones((20, 3), dtype=bool)
    voted[0, 2] = False
    se = np.full((20, 3, 2), 0.1)
    fit = SimpleNamespace(positions=planted @ turn.T, position_se=se, voted=voted, dims=2)
    found = recovery(cast(IdealPointModel, fit), planted)
    np.testing.assert_allclose(found["rotation"], turn, atol=1e-12)
    np.testing.assert_allclose(found["r"], 1.0)
    np.testing.assert_allclose(found["scale"], 1.0)
    np.testing.assert_array_equal(found["coverage"], [1.0, 1.0])
    shrunk = SimpleNamespace(positions=planted @ turn.T / 2, position_se=se, voted=voted, dims=2)
    halved = recovery(cast(IdealPointModel, shrunk), planted)
    np.testing.assert_allclose(halved["scale"], 2.0)
    np.testing.assert_array_equal(halved["scaled_coverage"], [1.0, 1.0])
    assert (halved["coverage"] < 0.5).all()  # the intervals miss the truth at half its scale
