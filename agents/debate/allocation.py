"""Allocations: shares of K tendencies, kept inside [lower, upper] and summing to 1.

Every allocation update ends with :func:`project_bounded_simplex`, the Euclidean projection
onto Δ(l, u) = {w : Σ_k w_k = 1, l ≤ w_k ≤ u}: w_k = clip(v_k − τ, l, u) for the one shift τ
that makes the shares sum to 1 (the KKT conditions). The sum is piecewise linear in τ with
breakpoints v_k − u and v_k − l, so τ is found exactly on the segment that crosses 1.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_bounds", "project_bounded_simplex"]

_SLACK = 1e-9  # tolerance of the feasibility checks (floating-point sums)


def check_bounds(n_tendencies: int, lower: float, upper: float) -> None:
    """Check that K shares inside [lower, upper] can sum to 1.

    Raises:
        ValueError: when K · lower > 1 or K · upper < 1 or the bounds are not 0 ≤ lower ≤ upper ≤ 1.
    """
    if n_tendencies < 1:
        raise ValueError(f"need at least one tendency, got {n_tendencies}")
    if not 0.0 <= lower <= upper <= 1.0:
        raise ValueError(
            f"allocation bounds must satisfy 0 ≤ min_allocation ≤ max_allocation ≤ 1, "
            f"got {lower} and {upper}"
        )
    if n_tendencies * lower > 1.0 + _SLACK or n_tendencies * upper < 1.0 - _SLACK:
        raise ValueError(
            f"{n_tendencies} allocations inside [{lower}, {upper}] cannot sum to 1: "
            f"choose min_allocation ≤ {1 / n_tendencies:.4f} ≤ max_allocation "
            f"(or change the number of tendencies)"
        )


def project_bounded_simplex(values: np.ndarray, lower: float, upper: float) -> np.ndarray:
    """Euclidean projection of a vector onto {w : Σ w = 1, lower ≤ w ≤ upper}.

    No well-kept library offers this projection (scipy's optimisers would solve it
    iteratively and inexactly), and the exact breakpoint search takes a few lines.

    Args:
        values: the point to project, shape (K,), finite.
        lower: lowest allowed share.
        upper: highest allowed share.

    Returns:
        The projected shares, shape (K,), float64, inside the bounds and summing to 1.

    Raises:
        ValueError: infeasible bounds (see :func:`check_bounds`) or non-finite values.

    Example:
        >>> project_bounded_simplex(np.array([0.9, 0.1, 0.0]), 0.1, 0.6).round(3).tolist()
        [0.6, 0.25, 0.15]
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or not np.isfinite(v).all():
        raise ValueError(f"values must be a finite vector, got shape {v.shape}")
    check_bounds(len(v), lower, upper)
    # Σ_k clip(v_k − τ, l, u) at every breakpoint τ, in increasing τ (so totals decrease).
    breaks = np.unique(np.concatenate([v - upper, v - lower]))
    totals = np.clip(v[None, :] - breaks[:, None], lower, upper).sum(axis=1)
    above = np.flatnonzero(totals >= 1.0)
    if len(above) == 0:  # only when K · upper == 1 up to rounding: everything at the top
        tau = breaks[0]
    elif above[-1] == len(breaks) - 1:  # only when K · lower == 1 up to rounding
        tau = breaks[-1]
    else:
        j = above[-1]  # totals[j] ≥ 1 > totals[j + 1]: τ lies in [breaks[j], breaks[j + 1])
        fraction = (totals[j] - 1.0) / (totals[j] - totals[j + 1])
        tau = breaks[j] + fraction * (breaks[j + 1] - breaks[j])
    shares = np.clip(v - tau, lower, upper)
    return shares
