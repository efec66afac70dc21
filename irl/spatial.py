"""Dynamic ideal points: each voter a position drifting by period, each item a cut through it.

The spatial vote model of :mod:`assembly_gym.irl.ideal`, as numerics only (no legislation):
voter c in period t stands at x_ct ∈ R^D; item j has an intercept a_j, a direction b_j ∈ R^D
and an abstention level κ_j. With η = a_j + b_j · x_ct, the rewards of (yes, no, abstain) are
(η/2, −η/2, κ_j) and the vote is their softmax (MaxEnt, horizon 1). This is the adjacent-
category ordinal logit (generalised partial credit model): log P(yes)/P(abstain) and
log P(abstain)/P(no) both rise with η, so abstaining lies between no and yes.

Fitted by MAP with L-BFGS over every parameter at once (:func:`fit_spatial`), the gradient
accumulated over the sparse votes with ``np.bincount``. Why MAP with L-BFGS: the posterior
mode of ~50k parameters over the 781k real votes takes about a minute on two cores in numpy,
and needs no sampler or variational family; EM would need the ordinal model's latent
utilities, and its E-step is no cheaper than this gradient. Priors: x at a voter's first
period ~ N(0, I), a random walk x_ct − x_c,t−1 ~ N(0, walk² I) between
its consecutive periods, a_j ~ N(0, 5²), b_j ~ N(0, 2² I), κ_j ~ N(0, 5²). They are
rotation-invariant, so the fit is rotated to the principal axes of the positions and each
axis signed so a reference voter stands on its positive side (:func:`identify`). The mode's
scale is not the prior's (x ← s x, b ← b / s trades the positions' prior against the items':
on planted data the mode came out 1.5× too wide), so :func:`identify` also rescales the
voters' first positions to unit mean square, as the prior has them.

Intervals (:func:`position_errors`) are Laplace's, per voter, given the items: the inverse of
the block-tridiagonal Hessian of its positions (likelihood plus random walk).

Example:
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.normal(size=30)
    >>> rows, items = np.repeat(np.arange(30), 40), np.tile(np.arange(40), 30)
    >>> eta = 2 * rng.normal(size=40)[items] * truth[rows]  # votes drawn, not separable
    >>> votes = np.where(rng.random(1200) < 1 / (1 + np.exp(-eta)), 0, 1)
    >>> fit = fit_spatial(SpatialVotes(rows, items, np.zeros(1200, int), votes, (30, 40, 1)))
    >>> bool(abs(np.corrcoef(fit.positions[:, 0, 0], truth)[0, 1]) > 0.9)
    True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax
from threadpoolctl import threadpool_limits

__all__ = ["SpatialFit", "SpatialVotes", "fit_spatial", "identify", "position_errors",
           "vote_logits"]  # fmt: skip

YES, NO, ABSTAIN = 0, 1, 2
"""The vote codes (as :class:`~assembly_gym.core.state.Vote`)."""
PRIOR_A, PRIOR_B, PRIOR_KAPPA = 5.0, 2.0, 5.0
"""Prior standard deviations of the items' intercepts, directions and abstention levels."""


@dataclass(frozen=True)
class SpatialVotes:
    """Votes as sparse triples.

    Attributes:
        rows: each vote's voter, (N,) in 0..C−1.
        items: its item, (N,) in 0..J−1.
        periods: its period, (N,) in 0..T−1 (consecutive periods are one random-walk step).
        votes: the vote, (N,) in {0 yes, 1 no, 2 abstain}.
        shape: (C, J, T).
    """

    rows: np.ndarray
    items: np.ndarray
    periods: np.ndarray
    votes: np.ndarray
    shape: tuple[int, int, int]

    def __post_init__(self) -> None:
        n = len(self.votes)
        for name, bound in zip(("rows", "items", "periods"), self.shape, strict=True):
            values = np.asarray(getattr(self, name), dtype=np.int64)
            if values.shape != (n,) or (n and (values.min() < 0 or values.max() >= bound)):
                raise ValueError(f"{name} must be (N,) integers in 0..{bound - 1}")
            object.__setattr__(self, name, values)
        votes = np.asarray(self.votes, dtype=np.int64)
        if n == 0 or votes.min() < 0 or votes.max() > ABSTAIN:
            raise ValueError("votes must be a non-empty (N,) array of 0 yes, 1 no, 2 abstain")
        object.__setattr__(self, "votes", votes)


@dataclass(frozen=True)
class SpatialFit:
    """A fitted spatial model.

    Attributes:
        positions: x_ct, (C, T, D); NaN outside each voter's first to last voting period.
        abstention: γ_ct, each voter's own abstention level, added to κ_j, (C, T) (NaN as x).
        a: item intercepts, (J,).
        b: item directions, (J, D).
        kappa: item abstention levels, (J,).
        walk: the random walk's step standard deviation.
        first_sd: the prior standard deviation of a voter's first position (in these units).
        iterations: L-BFGS iterations; converged: whether L-BFGS met its tolerance.
    """

    positions: np.ndarray
    abstention: np.ndarray
    a: np.ndarray
    b: np.ndarray
    kappa: np.ndarray
    walk: float
    first_sd: float = 1.0
    iterations: int = 0
    converged: bool = True

    @property
    def dims(self) -> int:
        """D."""
        return self.positions.shape[2]


def vote_logits(eta: np.ndarray, kappa: np.ndarray) -> np.ndarray:
    """Rewards of (yes, no, abstain): η (N,) and κ (N,) → (N, 3)."""
    return np.column_stack([eta / 2, -eta / 2, kappa])


def _scatter(index: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Sums of the rows of ``values`` (K, D) by ``index`` (K,) → (size, D)."""
    # One bincount per column: np.add.at is about 10× slower.
    return np.column_stack([np.bincount(index, v, size) for v in values.T])


def _alive(data: SpatialVotes) -> np.ndarray:
    """Each voter's periods from its first to its last vote, (C, T) bool."""
    n_rows, _, n_periods = data.shape
    first = np.full(n_rows, n_periods)
    last = np.full(n_rows, -1)
    np.minimum.at(first, data.rows, data.periods)
    np.maximum.at(last, data.rows, data.periods)
    t = np.arange(n_periods)
    return (t >= first[:, None]) & (t <= last[:, None])


def _start(data: SpatialVotes, dims: int, alive: np.ndarray) -> np.ndarray:
    """Starting positions (C, D): each voter's scores on the votes' top principal axes."""
    n_rows, n_items, _ = data.shape
    sign = np.select([data.votes == YES, data.votes == NO], [1.0, -1.0], 0.0)
    matrix = np.zeros((n_rows, n_items))
    matrix[data.rows, data.items] = sign
    seen = np.zeros((n_rows, n_items), dtype=bool)
    seen[data.rows, data.items] = True
    mean = matrix.sum(axis=0) / np.maximum(seen.sum(axis=0), 1)
    matrix = np.where(seen, matrix - mean, 0.0)
    left, _, _ = np.linalg.svd(matrix, full_matrices=False)
    scores = left[:, :dims] * np.sqrt(n_rows)
    if scores.shape[1] < dims:  # fewer voters than dimensions
        scores = np.pad(scores, ((0, 0), (0, dims - scores.shape[1])))
    return scores


def fit_spatial(
    data: SpatialVotes, *, dims: int = 1, walk: float = 0.1, max_iter: int = 1000,
    reference: int | None = None,
) -> SpatialFit:  # fmt: skip
    """MAP dynamic ideal points of every voter and the items' parameters (L-BFGS).

    Args:
        data: the votes.
        dims: D, the dimensions of the space (≥ 1).
        walk: the random walk's step standard deviation per period (> 0).
        max_iter: the most L-BFGS iterations.
        reference: the voter signed positive on every axis (default: the one with most votes).

    Raises:
        ValueError: dims < 1 or walk ≤ 0.
    """
    if dims < 1 or walk <= 0:
        raise ValueError(f"need dims ≥ 1 and walk > 0, got dims={dims}, walk={walk}")
    n_rows, n_items, n_periods = data.shape
    alive = _alive(data)
    cell_of = np.full((n_rows, n_periods), -1)
    cell_of[alive] = np.arange(alive.sum())
    n_cells = int(alive.sum())
    cells = cell_of[data.rows, data.periods]
    # Consecutive cells of one voter: (earlier, later) pairs of the random walk.
    earlier, later = cell_of[:, :-1].ravel(), cell_of[:, 1:].ravel()
    linked = (earlier >= 0) & (later >= 0)
    earlier, later = earlier[linked], later[linked]
    first_cells = cell_of[np.arange(n_rows), alive.argmax(axis=1)][alive.any(axis=1)]
    onehot = np.eye(3)[data.votes]  # (N, 3)
    counts = np.stack([np.bincount(data.items, onehot[:, k], n_items) for k in range(3)], 1) + 0.5
    sizes = (n_cells * (dims + 1), n_items, n_items * dims, n_items)
    bounds = np.cumsum(sizes)[:-1]

    def unpack(theta: np.ndarray) -> tuple[np.ndarray, ...]:
        x, a, b, kappa = np.split(theta, bounds)
        return x.reshape(n_cells, dims + 1), a, b.reshape(n_items, dims), kappa

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        cell, a, b, kappa = unpack(theta)
        x_vote, b_vote = cell[cells, :dims], b[data.items]
        eta = a[data.items] + np.einsum("nd,nd->n", b_vote, x_vote)
        log_p = log_softmax(vote_logits(eta, kappa[data.items] + cell[cells, dims]), axis=1)
        residual = np.exp(log_p) - onehot  # d(−log p)/d(logits), (N, 3)
        g_eta = (residual[:, YES] - residual[:, NO]) / 2
        step = (cell[later] - cell[earlier]) / walk**2
        value = -log_p[np.arange(len(eta)), data.votes].sum() + (
            (cell[first_cells] ** 2).sum() / 2 + (step * (cell[later] - cell[earlier])).sum() / 2
            + (a**2).sum() / (2 * PRIOR_A**2) + (b**2).sum() / (2 * PRIOR_B**2)
            + (kappa**2).sum() / (2 * PRIOR_KAPPA**2)
        )  # fmt: skip
        g_cell = _scatter(cells, np.column_stack([g_eta[:, None] * b_vote, residual[:, ABSTAIN]]),
                          n_cells)  # fmt: skip
        g_cell[first_cells] += cell[first_cells]
        g_cell += _scatter(later, step, n_cells) - _scatter(earlier, step, n_cells)
        g_a = np.bincount(data.items, g_eta, n_items) + a / PRIOR_A**2
        g_b = _scatter(data.items, g_eta[:, None] * x_vote, n_items) + b / PRIOR_B**2
        g_kappa = np.bincount(data.items, residual[:, ABSTAIN], n_items) + kappa / PRIOR_KAPPA**2
        return float(value), np.concatenate([g_cell.ravel(), g_a, g_b.ravel(), g_kappa])

    start = _start(data, dims, alive)
    a0 = np.log(counts[:, YES] / counts[:, NO])
    kappa0 = np.log(counts[:, ABSTAIN]) - np.log(counts[:, YES] * counts[:, NO]) / 2
    theta0 = np.concatenate([
        np.pad(np.repeat(start, alive.sum(axis=1), axis=0) * 0.5, ((0, 0), (0, 1))).ravel(), a0,
        np.zeros(n_items * dims), kappa0,
    ])  # fmt: skip
    # One BLAS thread: L-BFGS-B's own small BLAS calls ran ~7× slower with OpenBLAS's thread
    # pool on a busy 2-core machine (a fit of 8 countries' 1,200 votes: 4.5 s against 0.6 s).
    with threadpool_limits(limits=1, user_api="blas"):
        result = minimize(objective, theta0, jac=True, method="L-BFGS-B",
                          options={"maxiter": max_iter, "maxcor": 20})  # fmt: skip
    cell, a, b, kappa = unpack(result.x)
    positions = np.full((n_rows, n_periods, dims + 1), np.nan)
    positions[alive] = cell
    fit = SpatialFit(positions[..., :dims], positions[..., dims], a, b, kappa, walk,
                     iterations=int(result.nit), converged=bool(result.success))  # fmt: skip
    votes_per_row = np.bincount(data.rows, minlength=n_rows)
    return identify(fit, int(votes_per_row.argmax()) if reference is None else reference)


def identify(fit: SpatialFit, reference: int) -> SpatialFit:
    """The same fit on the positions' principal axes, the reference voter positive, unit scale.

    Unit scale: the voters' first positions have mean square 1, as their prior has them.
    This changes no probability: x ← x R / s, b ← s b R (the walk and the first position's
    prior standard deviation are divided by s, for :func:`position_errors`).
    """
    alive = ~np.isnan(fit.positions[..., 0])
    pooled = fit.positions[alive]  # (K, D)
    _, vectors = np.linalg.eigh(np.cov(pooled, rowvar=False).reshape(fit.dims, fit.dims))
    rotation = vectors[:, ::-1]  # largest variance first
    positions = fit.positions @ rotation
    mine = positions[reference][alive[reference]].mean(axis=0)
    signs = np.where(mine < 0, -1.0, 1.0)
    first = positions[np.arange(len(positions)), alive.argmax(axis=1)][alive.any(axis=1)]
    scale = np.sqrt((first**2).mean())  # first positions of unit mean square
    return replace(fit, positions=positions * signs / scale, b=fit.b @ rotation * signs * scale,
                   walk=fit.walk / scale, first_sd=fit.first_sd / scale)  # fmt: skip


def position_errors(fit: SpatialFit, data: SpatialVotes) -> np.ndarray:
    """Laplace standard errors of every position given the items, (C, T, D) (NaN where none).

    Each voter's positions have the Hessian of the negative log posterior: Σ_j w b_j b_jᵀ per
    period (w = Var of the score of η, 1/4 (p_yes + p_no − (p_yes − p_no)²)), plus the random
    walk's block-tridiagonal precision and the first period's prior; its inverse's diagonal
    are the variances.
    """
    n_rows, _, n_periods = data.shape
    dims = fit.dims
    eta = fit.a[data.items] + np.einsum(
        "nd,nd->n", fit.b[data.items], fit.positions[data.rows, data.periods]
    )
    level = fit.kappa[data.items] + fit.abstention[data.rows, data.periods]
    p = np.exp(log_softmax(vote_logits(eta, level), axis=1))
    weight = (p[:, YES] + p[:, NO] - (p[:, YES] - p[:, NO]) ** 2) / 4
    b_vote = fit.b[data.items]
    flat = data.rows * n_periods + data.periods
    info = np.zeros((n_rows * n_periods, dims, dims))
    for i in range(dims):
        for k in range(i, dims):
            info[:, i, k] = info[:, k, i] = np.bincount(
                flat, weight * b_vote[:, i] * b_vote[:, k], n_rows * n_periods
            )
    by_period = info.reshape(n_rows, n_periods, dims, dims)
    errors = np.full(fit.positions.shape, np.nan)
    precision = 1 / fit.walk**2
    for c in range(n_rows):
        alive = np.flatnonzero(~np.isnan(fit.positions[c, :, 0]))
        if not len(alive):
            continue
        size = len(alive)
        hessian = np.zeros((size, dims, size, dims))
        eye = np.eye(dims)
        for s, t in enumerate(alive):
            hessian[s, :, s, :] = by_period[c, t] + eye * (s == 0) / fit.first_sd**2
            if s:
                hessian[s, :, s, :] += precision * eye
                hessian[s - 1, :, s - 1, :] += precision * eye
                hessian[s, :, s - 1, :] = hessian[s - 1, :, s, :] = -precision * eye
        covariance = np.linalg.inv(hessian.reshape(size * dims, size * dims))
        errors[c, alive] = np.sqrt(np.diag(covariance)).reshape(size, dims)
    return errors
