"""The bounded-simplex projection: bounds, sum, optimality (KKT), against scipy, with hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from assembly_gym.agents.debate.allocation import check_bounds, project_bounded_simplex


@st.composite
def problems(draw):
    k = draw(st.integers(2, 12))
    values = np.array(draw(st.lists(st.floats(-5, 5), min_size=k, max_size=k)))
    lower = draw(st.floats(0.0, 1.0 / k))
    upper = draw(st.floats(1.0 / k, 1.0))
    return values, lower, upper


@settings(max_examples=150, deadline=None)
@given(problems())
def test_projection_is_inside_the_bounds_and_sums_to_one(problem):
    values, lower, upper = problem
    shares = project_bounded_simplex(values, lower, upper)
    assert shares.shape == values.shape
    assert np.isclose(shares.sum(), 1.0, atol=1e-9)
    assert (shares >= lower - 1e-12).all() and (shares <= upper + 1e-12).all()


@settings(max_examples=150, deadline=None)
@given(problems())
def test_projection_satisfies_the_kkt_conditions(problem):
    """w = clip(v − τ, l, u) for one τ: free shares share v − w; bound ones lie beyond it."""
    values, lower, upper = problem
    shares = project_bounded_simplex(values, lower, upper)
    free = (shares > lower + 1e-9) & (shares < upper - 1e-9)
    if free.any():
        tau = (values - shares)[free]
        assert np.ptp(tau) < 1e-7
        tau = tau.mean()
        assert (values[shares <= lower + 1e-9] - tau <= lower + 1e-7).all()
        assert (values[shares >= upper - 1e-9] - tau >= upper - 1e-7).all()


@settings(max_examples=60, deadline=None)
@given(problems())
def test_projection_is_idempotent(problem):
    values, lower, upper = problem
    once = project_bounded_simplex(values, lower, upper)
    np.testing.assert_allclose(project_bounded_simplex(once, lower, upper), once, atol=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_projection_matches_scipy_slsqp(seed):
    rng = np.random.default_rng(seed)
    values, lower, upper = rng.normal(0.2, 0.5, size=7), 0.03, 0.5
    expected = minimize(
        lambda w: ((w - values) ** 2).sum(),
        np.full(7, 1 / 7),
        jac=lambda w: 2 * (w - values),
        bounds=[(lower, upper)] * 7,
        constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 500},
    ).x
    np.testing.assert_allclose(project_bounded_simplex(values, lower, upper), expected, atol=1e-6)


def test_projection_of_a_point_inside_is_the_point():
    inside = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(project_bounded_simplex(inside, 0.1, 0.6), inside)


def test_tight_bounds_give_the_only_feasible_point():
    np.testing.assert_allclose(project_bounded_simplex(np.array([3.0, -1.0]), 0.5, 0.5), [0.5, 0.5])
    np.testing.assert_allclose(
        project_bounded_simplex(np.array([3.0, -1.0, 0.0, 1.0]), 0.25, 0.9), [0.25] * 4
    )


@pytest.mark.parametrize(
    ("k", "lower", "upper", "match"),
    [
        (7, 0.2, 0.5, "cannot sum to 1"),
        (2, 0.03, 0.4, "cannot sum to 1"),
        (3, 0.5, 0.2, "0 ≤ min_allocation ≤ max_allocation ≤ 1"),
        (3, -0.1, 0.5, "0 ≤ min_allocation"),
        (0, 0.0, 1.0, "at least one tendency"),
    ],
)
def test_infeasible_bounds_raise(k, lower, upper, match):
    with pytest.raises(ValueError, match=match):
        check_bounds(k, lower, upper)


def test_projection_rejects_non_finite_values():
    with pytest.raises(ValueError, match="finite vector"):
        project_bounded_simplex(np.array([0.5, np.nan]), 0.0, 1.0)
