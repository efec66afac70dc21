"""The spatial vote model's numerics: recovery, the gradient, identification, intervals, input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import softmax

from assembly_gym.irl import spatial
from assembly_gym.irl.spatial import (
    SpatialFit,
    SpatialVotes,
    fit_spatial,
    identify,
    position_errors,
    vote_logits,
)


def planted_votes(
    rng: np.random.Generator, *, voters: int = 30, items: int = 60, periods: int = 3, dims: int = 1
) -> tuple[SpatialVotes, np.ndarray]:
    """Every voter votes on every item (item j in period j mod T); positions drift by 0.1.

    Voter 0 votes only in periods 1..T−2 (so its first and last periods are not T's).
    Returns the votes and the planted positions, (C, T, D).
    """
    steps = rng.normal(0.0, 0.1, (voters, periods - 1, dims))
    x = np.cumsum(np.concatenate([rng.normal(size=(voters, 1, dims)), steps], axis=1), axis=1)
    a, b = rng.normal(size=items), rng.normal(0.0, 1.5, (items, dims))
    kappa = rng.normal(-1.0, 0.5, items)
    rows, item = np.repeat(np.arange(voters), items), np.tile(np.arange(items), voters)
    period = item % periods
    keep = (rows != 0) | ((period >= 1) & (period <= periods - 2))
    rows, item, period = rows[keep], item[keep], period[keep]
    eta = a[item] + np.einsum("nd,nd->n", b[item], x[rows, period])
    probs = softmax(vote_logits(eta, kappa[item]), axis=1)
    votes = (rng.random((len(probs), 1)) > probs.cumsum(axis=1)).sum(axis=1)
    return SpatialVotes(rows, item, period, votes, (voters, items, periods)), x


def vote_probs(fit: SpatialFit, data: SpatialVotes) -> np.ndarray:
    """P(yes, no, abstain) of every vote under a fit, (N, 3)."""
    x = fit.positions[data.rows, data.periods]
    eta = fit.a[data.items] + np.einsum("nd,nd->n", fit.b[data.items], x)
    level = fit.kappa[data.items] + fit.abstention[data.rows, data.periods]
    return softmax(vote_logits(eta, level), axis=1)


@pytest.fixture(scope="module")
def two_dims() -> tuple[SpatialVotes, SpatialFit]:
    data, _ = planted_votes(np.random.default_rng(1), voters=20, items=40, periods=4, dims=2)
    return data, fit_spatial(data, dims=2, max_iter=300)


def test_a_planted_one_dimensional_configuration_is_recovered() -> None:
    data, truth = planted_votes(np.random.default_rng(0))
    fit = fit_spatial(data)
    assert fit.positions.shape == (30, 3, 1) and fit.b.shape == (60, 1) and fit.dims == 1
    alive = ~np.isnan(fit.positions[..., 0])
    r = np.corrcoef(fit.positions[alive][:, 0], truth[alive][:, 0])[0, 1]
    assert abs(r) > 0.9 and fit.converged


def test_positions_are_nan_outside_a_voters_first_to_last_period(two_dims) -> None:
    _, fit = two_dims
    assert np.isnan(fit.positions[0, [0, 3]]).all() and np.isnan(fit.abstention[0, [0, 3]]).all()
    assert np.isfinite(fit.positions[0, 1:3]).all() and np.isfinite(fit.positions[1:]).all()


def test_the_gradient_matches_finite_differences(monkeypatch) -> None:
    """The objective L-BFGS minimises, caught on its way to scipy, at a random point."""
    data, _ = planted_votes(np.random.default_rng(2), voters=5, items=8, periods=4, dims=2)
    assert set(data.votes.tolist()) == {0, 1, 2}
    caught = {}

    def catch(fun, x0, **options):
        caught.update(fun=fun, x0=x0)
        return minimize(fun, x0, **options)

    monkeypatch.setattr(spatial, "minimize", catch)
    fit_spatial(data, dims=2, max_iter=1)
    theta = caught["x0"] + np.random.default_rng(3).normal(0.0, 0.5, caught["x0"].shape)
    _, gradient = caught["fun"](theta)
    step = 1e-6
    numeric = [(caught["fun"](theta + e)[0] - caught["fun"](theta - e)[0]) / (2 * step)
               for e in np.eye(len(theta)) * step]  # fmt: skip
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6)


def test_identification_changes_no_probability(two_dims) -> None:
    data, fit = two_dims
    turn, _ = np.linalg.qr(np.random.default_rng(4).normal(size=(2, 2)))
    turned = replace(fit, positions=fit.positions @ turn, b=fit.b @ turn)
    again = identify(turned, reference=5)
    for other in (turned, again):
        np.testing.assert_allclose(vote_probs(other, data), vote_probs(fit, data), atol=1e-12)
    assert (np.nanmean(again.positions[5], axis=0) > 0).all()  # the reference's side
    spread = np.nanvar(again.positions, axis=(0, 1))
    assert spread[0] >= spread[1]  # x1: the principal axis


def test_an_identified_fit_is_identified_again_as_it_is(two_dims) -> None:
    _, fit = two_dims
    reference = int(np.bincount(two_dims[0].rows).argmax())
    turn, _ = np.linalg.qr(np.random.default_rng(5).normal(size=(2, 2)))
    again = identify(replace(fit, positions=fit.positions @ turn, b=fit.b @ turn), reference)
    np.testing.assert_allclose(again.positions, fit.positions, atol=1e-9)
    np.testing.assert_allclose(again.b, fit.b, atol=1e-9)


def test_position_errors_are_positive_and_shrink_with_more_votes(two_dims) -> None:
    data, fit = two_dims
    errors = position_errors(fit, data)
    alive = ~np.isnan(fit.positions)
    assert errors.shape == fit.positions.shape
    assert (errors[alive] > 0).all() and np.isnan(errors[~alive]).all()
    half = data.items < 20  # the same fit read on half of every voter's votes
    fewer = SpatialVotes(data.rows[half], data.items[half], data.periods[half], data.votes[half],
                         data.shape)  # fmt: skip
    more_uncertain = position_errors(fit, fewer)
    assert (errors[alive] <= more_uncertain[alive] + 1e-12).all()
    assert errors[alive].mean() < 0.9 * more_uncertain[alive].mean()


def test_a_voter_without_votes_has_no_position() -> None:
    data = SpatialVotes([1, 1, 2, 2], [0, 1, 0, 1], [0, 0, 0, 0], [0, 1, 1, 0], (3, 2, 1))
    fit = fit_spatial(data)
    assert np.isnan(fit.positions[0]).all() and np.isnan(position_errors(fit, data)[0]).all()
    assert np.isfinite(fit.positions[1:]).all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rows": [0, 3]}, r"rows must be \(N,\) integers in 0\.\.2"),
        ({"items": [-1, 0]}, r"items must be \(N,\) integers in 0\.\.3"),
        ({"periods": [0, 2]}, r"periods must be \(N,\) integers in 0\.\.1"),
        ({"rows": [[0, 1]]}, r"rows must be \(N,\)"),
        ({"rows": [0]}, r"rows must be \(N,\)"),
        ({"votes": [0, 3]}, "votes must be a non-empty .* 0 yes, 1 no, 2 abstain"),
        ({"votes": [-1, 0]}, "votes must be"),
        ({"rows": [], "items": [], "periods": [], "votes": []}, "votes must be a non-empty"),
    ],
)
def test_bad_votes_are_refused(change, message) -> None:
    good = {"rows": [0, 2], "items": [1, 3], "periods": [0, 1], "votes": [0, 2]}
    with pytest.raises(ValueError, match=message):
        SpatialVotes(**{**good, **change}, shape=(3, 4, 2))


@pytest.mark.parametrize(
    ("settings", "message"), [({"dims": 0}, "dims=0"), ({"walk": 0.0}, "walk=0")]
)
def test_bad_settings_are_refused(settings, message) -> None:
    data = SpatialVotes([0, 1], [0, 0], [0, 0], [0, 1], (2, 1, 1))
    with pytest.raises(ValueError, match=rf"need dims ≥ 1 and walk > 0, got .*{message}"):
        fit_spatial(data, **settings)
