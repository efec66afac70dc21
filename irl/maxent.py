"""Exact linear MaxEnt IRL, batched over groups (countries), with hierarchical shrinkage.

Maximises the MaxEnt (maximum causal entropy) log-likelihood of the demonstrations,

    ℓ(θ) = Σ_demos Σ_t θ·φ(s_t, a_t) − Σ_demos V_0(s_0),

with a Gaussian prior − λ/2 ‖θ_g − m_{b(g)}‖² on each group g; the prior mean m_b is zero,
the global or the bloc pooled fit (``shrinkage``). λ is in pseudo-observations of
standardised features and the objective is per demonstrated step. See docs/irl.md, section
"What it computes", for the gradient, standardisation, L-BFGS and shrinkage, and
docs/reliability.md, section "Fits that cannot converge say so", for separation at
``l2 = 0`` (:class:`SeparationWarning`).
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from scipy.optimize import minimize
from threadpoolctl import ThreadpoolController
from tqdm.auto import tqdm

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.irl.mdp import (
    LinearFeatures,
    TabularMDP,
    occupancy,
    soft_value_iteration,
    stack_mdps,
)

__all__ = [
    "ExpertStatistics",
    "MaxEntFit",
    "SeparationWarning",
    "Shrinkage",
    "decision_problem",
    "fit_maxent",
    "maxent_objective",
]

Shrinkage = Literal["none", "global", "bloc"]
# Prior precision of a pooled (bloc or global) fit, relative to λ. The pooled fit sees G
# groups' data, so the same λ weighs G times less there; below that, (nearly) separable
# directions of multi-step problems diverge and drag every group's prior mean with them.
_PRIOR_ON_MEANS = 1.0
# A group is separated when, in some direction, the curvature of its log-posterior at the
# fit is below this share of that at θ = 0, i.e. a standard error grew more than ~300-fold:
# without a prior its fitted probabilities are then within about this much of 0 or 1
# wherever that direction matters (legitimate fits stay ≳ 1e-3, diverging ones reach ~1e-7
# at the default tolerance); a prior λ keeps the share above λ / (λ + the data's curvature).
_SEPARATED_CURVATURE = 1e-5


class SeparationWarning(UserWarning):
    """Some groups' weights diverge: their demonstrations are separable and no prior holds them."""


@dataclass(frozen=True)
class ExpertStatistics:
    """What MaxEnt IRL needs from demonstrations: visit counts and start counts.

    Attributes:
        counts: how often each (state, action) was demonstrated, shape (S, A).
        start: how many demonstrations start in each state, shape (S,).
    """

    counts: np.ndarray
    start: np.ndarray

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts, dtype=np.float64)
        start = np.asarray(self.start, dtype=np.float64)
        if counts.ndim != 2 or start.shape != (counts.shape[0],):
            raise ValueError(
                f"counts (S, A) and start (S,) do not fit: {counts.shape}, {start.shape}"
            )
        if counts.min(initial=0.0) < 0 or start.min(initial=0.0) < 0:
            raise ValueError("counts and start must be ≥ 0")
        if start.sum() <= 0:
            raise ValueError("no demonstrations: start counts sum to 0")
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "start", start)

    @classmethod
    def from_trajectories(
        cls, states: np.ndarray, actions: np.ndarray, n_states: int, n_actions: int
    ) -> ExpertStatistics:
        """From time-indexed trajectories: states (N, ≥H) and actions (N, H) ints."""
        states, actions = np.asarray(states), np.asarray(actions)
        horizon = actions.shape[1]
        if len(states) == 0:
            raise ValueError("no demonstrations")
        counts = np.zeros((n_states, n_actions))
        np.add.at(counts, (states[:, :horizon].ravel(), actions.ravel()), 1.0)
        start = np.bincount(states[:, 0], minlength=n_states).astype(float)
        return cls(counts, start)

    @property
    def n_steps(self) -> float:
        """Number of demonstrated decisions."""
        return float(self.counts.sum())


def decision_problem(
    observations: Sequence[np.ndarray],
    actions: Sequence[np.ndarray],
    masks: Sequence[np.ndarray] | None = None,
    *,
    n_actions: int | None = None,
) -> tuple[TabularMDP, LinearFeatures, ExpertStatistics]:
    """The horizon-1 MaxEnt problem of one-step decisions, one group per sequence entry.

    Every decision point is a state; φ(s, a) = e_a ⊗ [1, x(s)] (action-factored).

    Args:
        observations: per group, observations (N_g, d).
        actions: per group, chosen actions (N_g,) in 0 … A − 1.
        masks: per group, valid actions (N_g, A) bool (default: all A valid).
        n_actions: the number of actions A; needed without masks, else the masks' width.

    Raises:
        ValueError: when a group has no decision, shapes disagree, or A is not known.
        InvalidActionError: a demonstrated action outside 0 … A − 1 or masked out (named
            with its group and position).
    """
    if not observations:
        raise ValueError("no groups to fit")
    if any(len(x) == 0 for x in observations):
        raise ValueError("every group needs at least one decision")
    if masks is not None:
        widths = {np.shape(m)[-1] for m in masks}
        if len(widths) != 1 or n_actions not in (None, *widths):
            raise ValueError(f"masks of widths {sorted(widths)} and n_actions={n_actions} differ")
        n_actions = widths.pop()
    elif n_actions is None:
        raise ValueError("give n_actions (or masks): the number of actions is not inferred")
    obs = np.concatenate([np.asarray(x, dtype=np.float64) for x in observations])
    acts = np.concatenate([np.asarray(a, dtype=np.int64) for a in actions])
    if len(obs) != len(acts):
        raise ValueError("observations and actions differ in length")
    mask = (
        np.concatenate([np.asarray(m, dtype=bool) for m in masks])
        if masks is not None
        else np.ones((len(obs), n_actions), dtype=bool)
    )
    group = np.repeat(np.arange(len(observations)), [len(x) for x in observations])
    rows = np.arange(len(acts))
    outside = (acts < 0) | (acts >= n_actions)
    bad = np.flatnonzero(outside | ~mask[rows, np.where(outside, 0, acts)])
    if len(bad):
        i = int(bad[0])
        where = f"group {group[i]}, decision {i - np.searchsorted(group, group[i])}"
        if outside[i]:
            raise InvalidActionError(
                f"{where}: action {acts[i]} is outside the actions 0…{n_actions - 1}"
            )
        raise InvalidActionError(f"{where}: action {acts[i]} is masked out there")
    counts = np.zeros((len(obs), n_actions))
    counts[rows, acts] = 1.0
    values = np.column_stack([np.ones(len(obs)), obs])
    features = LinearFeatures(values, n_actions, group, factored=True)
    return TabularMDP(n_actions, 1, mask), features, ExpertStatistics(counts, np.ones(len(obs)))


@dataclass(frozen=True)
class MaxEntFit:
    """A fitted linear MaxEnt reward per group.

    Attributes:
        theta: weights on the original feature scale, shape (G, *weight_shape).
        theta_standardised: weights on the standardised features (what the prior acts on).
        standard_errors: Laplace-approximation standard errors of ``theta`` (posterior
            curvature: exact Hessian at horizon 1, finite differences of the exact gradient
            otherwise), same shape; None when not computed.
        group_means: fitted prior means m_b (standardised scale), shape (B, *weight_shape).
        log_likelihood: MaxEnt log-likelihood per demonstrated step of each group, (G,).
        n_steps: demonstrated decisions of each group, (G,).
        feature_mean: centring of each feature column (original scale).
        feature_scale: scaling of each feature column.
        iterations: L-BFGS iterations.
        converged: whether L-BFGS met its tolerance at finite weights (False when a group is
            separated).
        message: L-BFGS's message (and which groups are separated).
        seconds: wall time of the optimisation.
        separated: which groups' weights diverge, shape (G,) bool (the test:
            ``_SEPARATED_CURVATURE``); None when not checked (it is checked with the standard
            errors, and always when l2 = 0).
    """

    theta: np.ndarray
    theta_standardised: np.ndarray
    standard_errors: np.ndarray | None
    group_means: np.ndarray
    log_likelihood: np.ndarray
    n_steps: np.ndarray
    feature_mean: np.ndarray
    feature_scale: np.ndarray
    iterations: int
    converged: bool
    message: str
    seconds: float
    separated: np.ndarray | None


@dataclass(frozen=True)
class _Standardiser:
    """g' = (g − μ) / σ; a per-action shift −Σ θ μ / σ is folded into a constant column."""

    mean: np.ndarray
    scale: np.ndarray
    constant: int | None  # index of a constant column (value ``level``) that absorbs shifts
    level: float

    @classmethod
    def fit(cls, features: LinearFeatures, weights: np.ndarray, enabled: bool) -> _Standardiser:
        values = features.values
        width = values.shape[-1]
        if not enabled:
            return cls(np.zeros(width), np.ones(width), None, 1.0)
        flat = values.reshape(-1, width)
        w = np.repeat(weights, 1 if features.factored else features.n_actions)
        w = w / max(w.sum(), 1e-300)
        mean = w @ flat
        std = np.sqrt(np.maximum(w @ (flat - mean) ** 2, 0.0))
        # Flat: one value in every visited row. Judged on the values, not on ``std``: the
        # rounding of the weighted sums leaves a constant column a std of ~1e-12 on large
        # data, which would scale it up a trillionfold and lift the prior off its weight.
        spread = np.ptp(flat[w > 0], axis=0) if (w > 0).any() else np.zeros(width)
        flat_columns = spread <= 1e-12 * np.maximum(1.0, np.abs(mean))
        constant_columns = np.flatnonzero(flat_columns & (np.abs(mean) > 0))
        scale = np.where(flat_columns, 1.0, std)
        if features.factored:
            if len(constant_columns) == 0:  # nothing absorbs a per-action shift: scale only
                return cls(np.zeros(width), scale, None, 1.0)
            column = int(constant_columns[0])
            mean = np.where(flat_columns, 0.0, mean)
            return cls(mean, scale, column, float(flat[0, column]))
        return cls(np.where(flat_columns, 0.0, mean), scale, None, 1.0)

    def apply(self, features: LinearFeatures) -> LinearFeatures:
        return replace(features, values=(features.values - self.mean) / self.scale)

    def matrix(self) -> np.ndarray:
        """M with θ_original = θ_standardised @ M over the last axis, shape (k, k)."""
        m = np.diag(1.0 / self.scale)
        if self.constant is not None:
            m[:, self.constant] -= self.mean / self.scale / self.level
            m[self.constant, self.constant] = 1.0 / self.scale[self.constant]
        return m


def maxent_objective(
    mdp: TabularMDP, features: LinearFeatures, expert: ExpertStatistics, theta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """MaxEnt log-likelihood of each group and its gradient (no prior, total nats).

    Args:
        mdp: the (stacked) MDP.
        features: φ with one block per group.
        expert: the demonstrations' statistics.
        theta: weights, shape (G, *weight_shape).

    Returns:
        ℓ_g(θ_g), shape (G,), and ∂ℓ/∂θ = expert − expected feature counts, shape of theta.
    """
    rewards = features.rewards(theta)
    policy = soft_value_iteration(mdp, rewards)
    expected = occupancy(mdp, policy, expert.start)
    per_state = (expert.counts * np.where(mdp.mask, rewards, 0.0)).sum(axis=1)
    per_state -= expert.start * policy.values[0]
    loglik = np.array([per_state[rows].sum() for rows in features.segments()])
    return loglik, features.expectations(expert.counts - expected)


def fit_maxent(
    mdp: TabularMDP,
    features: LinearFeatures,
    expert: ExpertStatistics,
    *,
    l2: float = 1.0,
    shrinkage: Shrinkage = "global",
    blocs: np.ndarray | None = None,
    standardise: bool = True,
    tol: float = 1e-6,
    max_iter: int = 2000,
    standard_errors: bool = True,
    progress: bool = False,
    group_names: Sequence[str] | None = None,
) -> MaxEntFit:
    """Fit every group's linear reward in one call (two-stage hierarchical MAP).

    Stage 1 fits each prior mean m_b on the pooled demonstrations of its bloc (one global
    pool for ``"global"``; skipped for ``"none"``, where m = 0). Stage 2 fits every group
    toward its mean: maximise ℓ_g(θ_g) − λ/2 ‖θ_g − m_b‖². Given the means, groups are
    independent, so each is one small L-BFGS (scipy) in whitened coordinates, and its soft
    value iteration runs on its whole stacked block of MDPs (or decisions) at once.

    Args:
        mdp: the (stacked) MDP; transitions must stay inside each group's states.
        features: φ with one weight block per group (country).
        expert: demonstrations' visit and start counts.
        l2: prior precision λ (in pseudo-observations of standardised features) ≥ 0.
        shrinkage: prior mean of each group: "none" (zero), "global" (one shared mean),
            "bloc" (the mean of its bloc, needs ``blocs``).
        blocs: bloc of each group, shape (G,) ints (for ``shrinkage="bloc"``).
        standardise: standardise feature columns inside the fit.
        tol: L-BFGS gradient tolerance per group, in whitened coordinates where the
            Hessian per demonstrated step is about the identity (so the objective is within
            about tol² · dim / 2 nats per step of the optimum).
        max_iter: maximum L-BFGS iterations per fit.
        standard_errors: compute Laplace standard errors.
        progress: show a tqdm bar over groups.
        group_names: what the separation warning calls the groups (default "group g").

    Raises:
        ValueError: for a negative ``l2``, an unknown ``shrinkage``, missing or ill-shaped
            ``blocs``, statistics that do not fit the MDP, transitions across groups, or
            ``group_names`` of another length.

    Warns:
        SeparationWarning: when some groups are separated (see :attr:`MaxEntFit.separated`),
            naming them.
    """
    if l2 < 0:
        raise ValueError(f"l2 must be ≥ 0, got {l2}")
    if expert.counts.shape != mdp.mask.shape or features.values.shape[0] != mdp.n_states:
        raise ValueError("expert statistics, features and MDP disagree on states or actions")
    if np.any(expert.counts[~mdp.mask] > 0):
        raise ValueError("the demonstrations use masked actions")
    n_groups = features.n_groups
    names = [f"group {g}" for g in range(n_groups)] if group_names is None else list(group_names)
    if len(names) != n_groups:
        raise ValueError(f"{len(names)} group names for {n_groups} groups")
    bloc_of = _bloc_index(shrinkage, blocs, n_groups)
    n_blocs = int(bloc_of.max()) + 1 if shrinkage != "none" else 0
    standardiser = _Standardiser.fit(features, expert.counts.sum(axis=1), standardise)
    scaled = standardiser.apply(features)
    # One BLAS thread: the many small products and L-BFGS's own BLAS calls run several
    # times slower with OpenBLAS's thread pool on them (measured on the 2-core reference).
    with _blas_threads().limit(limits=1, user_api="blas"):
        fit = _fit_maxent(
            mdp,
            scaled,
            expert,
            standardiser,
            l2=l2,
            bloc_of=bloc_of,
            n_blocs=n_blocs,
            tol=tol,
            max_iter=max_iter,
            standard_errors=standard_errors,
            progress=progress,
        )
    if fit.separated is not None and fit.separated.any():
        separated = [names[g] for g in np.flatnonzero(fit.separated)]
        more = len(separated) - 5
        shown = ", ".join(separated[:5]) + (f" and {more} more" if more > 0 else "")
        warnings.warn(
            f"the weights of {shown} diverge: their demonstrations are separable (for example "
            f"one action always, or never, taken), so the weights and standard errors mean "
            f"nothing; refit with a larger l2 > 0 (--l2 on the command line; this fit: "
            f"l2={l2:g})",
            SeparationWarning,
            stacklevel=2,
        )
    return fit


def _fit_maxent(
    mdp: TabularMDP,
    scaled: LinearFeatures,
    expert: ExpertStatistics,
    standardiser: _Standardiser,
    *,
    l2: float,
    bloc_of: np.ndarray,
    n_blocs: int,
    tol: float,
    max_iter: int,
    standard_errors: bool,
    progress: bool,
) -> MaxEntFit:
    n_groups, shape = scaled.n_groups, scaled.weight_shape
    problems = _split_groups(mdp, scaled, expert)
    iterations, converged, messages = 0, True, set()
    began = time.perf_counter()
    # Stage 1: each prior mean is the fit of its bloc's pooled demonstrations.
    means = np.zeros((max(n_blocs, 1), *shape))
    for b in range(n_blocs):
        pooled = _pool([problems[g] for g in np.flatnonzero(bloc_of == b)])
        means[b], n_iter, ok, message = _fit_group(
            *pooled, means[b], l2=l2 * _PRIOR_ON_MEANS, tol=tol, max_iter=max_iter
        )
        iterations, converged = iterations + n_iter, converged and ok
        messages.add(message)
    # Stage 2: every group toward its prior mean, independently.
    centre = means[bloc_of] if n_blocs else np.zeros((n_groups, *shape))
    theta = np.zeros((n_groups, *shape))
    bar = tqdm(total=n_groups, desc="MaxEnt IRL", disable=not progress, leave=False)
    for g, problem in enumerate(problems):
        theta[g], n_iter, ok, message = _fit_group(
            *problem, centre[g], l2=l2, tol=tol, max_iter=max_iter
        )
        iterations, converged = iterations + n_iter, converged and ok
        messages.add(message)
        bar.update(1)
    bar.close()
    seconds = time.perf_counter() - began
    if mdp.horizon == 1 and scaled.factored:
        # A shift common to all actions is not identified at horizon 1: centre it.
        theta -= theta.mean(axis=1, keepdims=True)
        means -= means.mean(axis=1, keepdims=True)
    loglik, _ = maxent_objective(mdp, scaled, expert, theta)
    n_steps = np.array([expert.counts[rows].sum() for rows in scaled.segments()])
    transform = standardiser.matrix()
    errors, separated = None, None
    if standard_errors or l2 == 0:
        curvature = _curvature(mdp, scaled, expert, theta)
        at_zero = _curvature(mdp, scaled, expert, np.zeros_like(theta))
        prior = l2 * np.eye(curvature.shape[-1])
        separated = _separated(curvature + prior, at_zero + prior)
        if separated.any():
            converged = False
            messages.add(f"weights diverge for {int(separated.sum())} separated groups")
    if standard_errors:
        errors = _standard_errors(mdp, scaled, curvature, l2, transform)
    return MaxEntFit(
        theta=theta @ transform,
        theta_standardised=theta,
        standard_errors=errors,
        group_means=means[:n_blocs],
        log_likelihood=loglik / np.maximum(n_steps, 1.0),
        n_steps=n_steps,
        feature_mean=standardiser.mean,
        feature_scale=standardiser.scale,
        iterations=iterations,
        converged=converged,
        message="; ".join(sorted(messages)),
        seconds=seconds,
        separated=separated,
    )


@functools.cache
def _blas_threads() -> ThreadpoolController:
    """The process's BLAS thread pools (found once: the search takes ~10 ms)."""
    return ThreadpoolController()


def _split_groups(
    mdp: TabularMDP, features: LinearFeatures, expert: ExpertStatistics
) -> list[tuple[TabularMDP, LinearFeatures, ExpertStatistics]]:
    """Each group's own MDP, features and statistics (views where possible)."""
    if features.n_groups == 1:
        return [(mdp, features, expert)]
    problems = []
    n_actions = mdp.n_actions
    for rows in features.segments():
        transitions = None
        if mdp.transitions is not None:
            block = mdp.transitions[rows.start * n_actions : rows.stop * n_actions]
            transitions = block[:, rows]
            if not np.allclose(transitions.sum(axis=1), block.sum(axis=1)):
                raise ValueError(
                    "transitions leave a group's states: stack groups block-diagonally"
                )
        sub_mdp = TabularMDP(n_actions, mdp.horizon, mdp.mask[rows], transitions)
        sub_features = LinearFeatures(
            features.values[rows],
            features.n_actions,
            np.zeros(rows.stop - rows.start, dtype=np.int64),
            features.factored,
        )
        problems.append(
            (sub_mdp, sub_features, ExpertStatistics(expert.counts[rows], expert.start[rows]))
        )
    return problems


def _pool(
    problems: list[tuple[TabularMDP, LinearFeatures, ExpertStatistics]],
) -> tuple[TabularMDP, LinearFeatures, ExpertStatistics]:
    """Several groups' problems as one group (their MDPs stacked block-diagonally)."""
    mdp = stack_mdps([p[0] for p in problems])
    values = np.concatenate([p[1].values for p in problems])
    features = LinearFeatures(
        values, mdp.n_actions, np.zeros(len(values), dtype=np.int64), problems[0][1].factored
    )
    counts = np.concatenate([p[2].counts for p in problems])
    return mdp, features, ExpertStatistics(counts, np.concatenate([p[2].start for p in problems]))


def _fit_group(
    mdp: TabularMDP,
    features: LinearFeatures,
    expert: ExpertStatistics,
    centre: np.ndarray,
    *,
    l2: float,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, int, bool, str]:
    """One group's weights by L-BFGS in whitened coordinates.

    Starts from (and is shrunk toward) ``centre``; returns (θ, iterations, converged, message).
    """
    n_steps = max(expert.n_steps, 1.0)
    left, right = _whitening(features, expert, l2)

    def to_theta(u: np.ndarray) -> np.ndarray:
        u = u.reshape(centre.shape)
        return u @ right if left is None else left @ u @ right

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta = to_theta(x)
        loglik, grad = maxent_objective(mdp, features, expert, theta[None])
        diff = theta - centre
        value = -loglik[0] + 0.5 * l2 * np.sum(diff**2)
        return value / n_steps, to_theta((-grad[0] + l2 * diff) / n_steps).ravel()

    start = centre @ np.linalg.inv(right)
    if left is not None:
        start = np.linalg.inv(left) @ start
    if not expert.start.any():  # a group without demonstrations sits at its prior mean
        return centre.copy(), 0, True, "no demonstrations"
    result = minimize(
        objective,
        start.ravel(),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15, "maxcor": 20},
    )
    return to_theta(result.x), int(result.nit), bool(result.success), str(result.message)


def _whitening(
    features: LinearFeatures, expert: ExpertStatistics, l2: float
) -> tuple[np.ndarray | None, np.ndarray]:
    """L, R with θ = L u R ≈ whitened coordinates (L only for action-factored features).

    R = (Σ + εI)^(-1/2) with Σ the visit-weighted second moment of the feature columns; for
    factored features L = (B + εI)^(-1/2) with B = diag p − p pᵀ of the action frequencies
    p: the per-step logit Hessian B ⊗ Σ at constant probabilities. A fixed preconditioner
    (the optimum is unchanged) that removes the collinearity of features such as vote
    shares summing to one, which otherwise costs L-BFGS hundreds of iterations.
    """
    width = features.values.shape[-1]
    n_steps = max(expert.n_steps, 1.0)
    ridge = np.sqrt(l2 / n_steps) + 1e-4
    visits = expert.counts.sum(axis=1) / n_steps
    if features.factored:
        x = features.values
        moment = np.einsum("s,si,sj->ij", visits, x, x)
        p = (expert.counts.sum(axis=0) + 1.0) / (n_steps + features.n_actions)
        return _inverse_sqrt(np.diag(p) - np.outer(p, p), ridge), _inverse_sqrt(moment, ridge)
    x = features.values.reshape(-1, width)
    weights = np.repeat(visits / features.n_actions, features.n_actions)
    return None, _inverse_sqrt(np.einsum("s,si,sj->ij", weights, x, x), ridge)


def _inverse_sqrt(matrix: np.ndarray, ridge: float) -> np.ndarray:
    """(M + ridge I)^(-1/2) of a symmetric positive semi-definite matrix."""
    eigenvalues, vectors = np.linalg.eigh(matrix)
    return (vectors / np.sqrt(np.maximum(eigenvalues, 0.0) + ridge)) @ vectors.T


def _bloc_index(shrinkage: str, blocs: np.ndarray | None, n_groups: int) -> np.ndarray:
    if shrinkage == "none" or shrinkage == "global":
        return np.zeros(n_groups, dtype=np.int64)
    if shrinkage != "bloc":
        raise ValueError(f"shrinkage must be 'none', 'global' or 'bloc', got {shrinkage!r}")
    if blocs is None:
        raise ValueError("shrinkage='bloc' needs blocs (one bloc id per group)")
    blocs = np.asarray(blocs)
    if blocs.shape != (n_groups,):
        raise ValueError(f"blocs must have shape ({n_groups},), got {blocs.shape}")
    _, index = np.unique(blocs, return_inverse=True)
    return index.astype(np.int64)


def _curvature(
    mdp: TabularMDP, features: LinearFeatures, expert: ExpertStatistics, theta: np.ndarray
) -> np.ndarray:
    """−∇²ℓ of each group at ``theta`` (G, W, W), W the flat weight size: exact at horizon 1."""
    if mdp.horizon == 1 and features.factored:
        return _logit_hessian(mdp, features, theta)
    return _finite_difference_hessian(mdp, features, expert, theta)


def _separated(fitted: np.ndarray, at_zero: np.ndarray) -> np.ndarray:
    """Groups whose curvature at the fit vanished in a direction it had at θ = 0, (G,) bool.

    ``fitted`` and ``at_zero`` are −∇² of each group's log-posterior, (G, W, W); the test is
    the smallest generalised eigenvalue of the pair on the range of ``at_zero`` (directions
    the data never inform, such as collinear features, have no curvature at either).
    """
    out = np.zeros(len(fitted), dtype=bool)
    for g, (hessian, reference) in enumerate(zip(fitted, at_zero, strict=True)):
        eigenvalues, vectors = np.linalg.eigh(reference)
        kept = eigenvalues > 1e-10 * max(eigenvalues.max(), 1e-300)
        whiten = vectors[:, kept] / np.sqrt(eigenvalues[kept])
        least = np.linalg.eigvalsh(whiten.T @ hessian @ whiten)[0] if kept.any() else 1.0
        out[g] = least < _SEPARATED_CURVATURE
    return out


def _standard_errors(
    mdp: TabularMDP,
    features: LinearFeatures,
    curvature: np.ndarray,
    l2: float,
    transform: np.ndarray,
) -> np.ndarray:
    """Posterior standard deviations (Laplace) of each group's weights, original scale.

    ``curvature`` is −∇²ℓ per group at the fitted weights (:func:`_curvature`).
    """
    n_groups, width = curvature.shape[:2]
    shape = features.weight_shape
    projection = np.eye(width)
    if mdp.horizon == 1 and features.factored:
        # Weights are centred over actions: errors of the centred weights only.
        n_actions = shape[0]
        centring = np.eye(n_actions) - np.full((n_actions, n_actions), 1.0 / n_actions)
        projection = np.kron(centring, np.eye(shape[1]))
    hessian = curvature + l2 * np.eye(width)
    # θ_original (flat, row-major over shape) = T θ_standardised.
    if features.factored:
        t = np.kron(np.eye(shape[0]), transform.T)
    else:
        t = transform.T
    errors = np.empty((n_groups, width))
    for g in range(n_groups):
        reduced = projection @ hessian[g] @ projection
        covariance = projection @ np.linalg.pinv(reduced, rcond=1e-10, hermitian=True) @ projection
        errors[g] = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", t, covariance, t), 0.0))
    return errors.reshape(n_groups, *shape)


def _logit_hessian(mdp: TabularMDP, features: LinearFeatures, theta: np.ndarray) -> np.ndarray:
    """Exact −∇²ℓ at horizon 1: Σ_i (diag p_i − p_i p_iᵀ) ⊗ x_i x_iᵀ per group."""
    n_actions, width = theta.shape[1], theta.shape[2]
    policy = soft_value_iteration(mdp, features.rewards(theta)).policy[0]
    out = np.zeros((theta.shape[0], n_actions * width, n_actions * width))
    for g, rows in enumerate(features.segments()):
        x, p = features.values[rows], policy[rows]
        for a in range(n_actions):
            for b in range(a, n_actions):
                w = p[:, a] * ((a == b) - p[:, b])
                block = (x * w[:, None]).T @ x
                out[g, a * width : (a + 1) * width, b * width : (b + 1) * width] = block
                out[g, b * width : (b + 1) * width, a * width : (a + 1) * width] = block.T
    return out


def _finite_difference_hessian(
    mdp: TabularMDP, features: LinearFeatures, expert: ExpertStatistics, theta: np.ndarray
) -> np.ndarray:
    """−∇²ℓ per group by central differences of the exact gradient (all groups at once)."""
    n_groups = theta.shape[0]
    flat = theta.reshape(n_groups, -1)
    width = flat.shape[1]
    out = np.empty((n_groups, width, width))
    step = 1e-4
    for j in range(width):
        grads = []
        for sign in (1.0, -1.0):
            moved = flat.copy()
            moved[:, j] += sign * step
            grads.append(maxent_objective(mdp, features, expert, moved.reshape(theta.shape))[1])
        out[:, :, j] = -(grads[0] - grads[1]).reshape(n_groups, width) / (2 * step)
    return 0.5 * (out + out.transpose(0, 2, 1))
