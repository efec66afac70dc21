"""Finite-horizon tabular MDPs, exact soft value iteration and state-action occupancy.

The numerical core of MaxEnt IRL (Ziebart 2010, ch. 9–10), written for many MDPs at once:
a batch of MDPs is one block-diagonal :class:`TabularMDP` whose states carry a ``group``
(the country whose reward applies there). Everything is log-sum-exp based, so rewards of
any magnitude give finite values and normalised policies.

Equations (horizon H, time t = 0 … H − 1, masked actions excluded):

* soft value iteration: ``V_H(s) = 0``, ``Q_t(s, a) = r(s, a) + Σ_s' P(s' | s, a) V_{t+1}(s')``,
  ``V_t(s) = log Σ_a exp Q_t(s, a)``, policy ``π_t(a | s) = exp(Q_t(s, a) − V_t(s))``;
* occupancy: ``d_0 = start``, ``ρ_t(s, a) = d_t(s) π_t(a | s)``,
  ``d_{t+1}(s') = Σ_{s, a} ρ_t(s, a) P(s' | s, a)``; ``Σ_t Σ_{s, a} ρ_t = H · Σ start``.

Horizon 1 needs no transitions: each state is one decision and the policy is the softmax of
the rewards — the multinomial logit.

This module imports nothing from ``envs`` (envs may import it lazily).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

__all__ = [
    "LinearFeatures",
    "SoftPolicy",
    "TabularMDP",
    "log_softmax",
    "occupancy",
    "random_mdp",
    "sample_trajectories",
    "soft_value_iteration",
    "stack_mdps",
]

_DENSE_ENTRIES = 2**18  # S · A · S up to which transitions are also kept dense


@dataclass(frozen=True)
class TabularMDP:
    """A finite-horizon MDP with S states and A actions (possibly many MDPs stacked).

    Attributes:
        n_actions: number of actions A.
        horizon: number of decisions H ≥ 1.
        transitions: P(s' | s, a) as a sparse matrix of shape (S · A, S) (row s · A + a),
            or None when ``horizon == 1`` (no next state is ever used).
        mask: valid actions, shape (S, A) bool; every state needs one valid action.
        n_states: number of states S (taken from ``transitions`` or ``mask``).

    Raises:
        ValueError: for inconsistent shapes, a horizon < 1, missing transitions for a
            horizon > 1, negative probabilities or rows of valid actions not summing to 1.
    """

    n_actions: int
    horizon: int
    mask: np.ndarray
    transitions: sp.csr_matrix | None = None
    _transposed: sp.csr_matrix | np.ndarray | None = field(init=False, repr=False, compare=False)
    _forward: sp.csr_matrix | np.ndarray | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        mask = np.asarray(self.mask, dtype=bool)
        if mask.ndim != 2 or mask.shape[1] != self.n_actions:
            raise ValueError(f"mask must have shape (S, {self.n_actions}), got {mask.shape}")
        if not mask.any(axis=1).all():
            raise ValueError("every state needs at least one valid action in mask")
        if self.horizon < 1:
            raise ValueError(f"horizon must be ≥ 1, got {self.horizon}")
        object.__setattr__(self, "mask", mask)
        forward: sp.csr_matrix | np.ndarray | None = None
        transposed: sp.csr_matrix | np.ndarray | None = None
        if self.transitions is not None:
            matrix = sp.csr_matrix(self.transitions, dtype=np.float64)
            n_states = mask.shape[0]
            if matrix.shape != (n_states * self.n_actions, n_states):
                raise ValueError(
                    f"transitions must have shape ({n_states * self.n_actions}, {n_states}) "
                    f"(S · A, S), got {matrix.shape}"
                )
            if matrix.nnz and matrix.data.min() < 0:
                raise ValueError("transition probabilities must be ≥ 0")
            totals = np.asarray(matrix.sum(axis=1)).reshape(n_states, self.n_actions)
            if not np.allclose(totals[mask], 1.0, atol=1e-8):
                raise ValueError("transition rows of valid actions must sum to 1")
            object.__setattr__(self, "transitions", matrix)
            forward, transposed = matrix, matrix.T.tocsr()
            if n_states * n_states * self.n_actions <= _DENSE_ENTRIES:
                # Small MDPs: dense products beat sparse ones' per-call overhead.
                forward = matrix.toarray()
                transposed = np.ascontiguousarray(forward.T)
        elif self.horizon > 1:
            raise ValueError("a horizon > 1 needs transitions")
        object.__setattr__(self, "_forward", forward)
        object.__setattr__(self, "_transposed", transposed)

    @property
    def n_states(self) -> int:
        """Number of states S."""
        return self.mask.shape[0]

    def expected_next(self, values: np.ndarray) -> np.ndarray:
        """Σ_s' P(s' | s, a) v(s') for values (S,) or (S, K) → (S, A) or (S, A, K)."""
        out = self._forward @ values
        return out.reshape(self.n_states, self.n_actions, *values.shape[1:])

    def push_forward(self, state_action: np.ndarray) -> np.ndarray:
        """Next-state mass Σ_{s, a} ρ(s, a) P(s' | s, a): (S, A) → (S,)."""
        return self._transposed @ state_action.reshape(-1)


def stack_mdps(mdps: list[TabularMDP]) -> TabularMDP:
    """One block-diagonal MDP made of several MDPs with the same A and H (states in order)."""
    if not mdps:
        raise ValueError("no MDPs to stack")
    first = mdps[0]
    if any(m.n_actions != first.n_actions or m.horizon != first.horizon for m in mdps):
        raise ValueError("stacked MDPs need the same number of actions and horizon")
    mask = np.concatenate([m.mask for m in mdps])
    matrices = [m.transitions for m in mdps if m.transitions is not None]
    if matrices and len(matrices) < len(mdps):
        raise ValueError("stacked MDPs need transitions in all of them or in none")
    transitions = sp.csr_matrix(sp.block_diag(matrices, format="csr")) if matrices else None
    return TabularMDP(first.n_actions, first.horizon, mask, transitions)


@dataclass(frozen=True)
class SoftPolicy:
    """Result of soft value iteration.

    Attributes:
        log_policy: log π_t(a | s), shape (H, S, A); −inf on masked actions.
        values: soft values V_t(s), shape (H + 1, S) (V_H = 0).
    """

    log_policy: np.ndarray
    values: np.ndarray

    @property
    def policy(self) -> np.ndarray:
        """π_t(a | s), shape (H, S, A); rows sum to 1."""
        return np.exp(self.log_policy)


def log_softmax(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise log-sum-exp and log-softmax of (S, A) values (−inf allowed, one finite per row).

    Written out rather than scipy's ``logsumexp``: the maximum and the sum run column by
    column, which is several times faster on these tall arrays of a few actions. Shifting
    by the row maximum keeps it exact for rewards of any magnitude.
    """
    top = q[:, 0].copy()
    for column in range(1, q.shape[1]):
        np.maximum(top, q[:, column], out=top)
    shifted = q - top[:, None]
    weights = np.exp(shifted)
    total = weights[:, 0].copy()
    for column in range(1, q.shape[1]):
        total += weights[:, column]
    log_total = np.log(total)
    return top + log_total, shifted - log_total[:, None]


def soft_value_iteration(mdp: TabularMDP, rewards: np.ndarray) -> SoftPolicy:
    """Exact finite-horizon soft value iteration (Ziebart 2010, eq. 9.1–9.3).

    Args:
        mdp: the MDP.
        rewards: r(s, a), shape (S, A) (the same at every step).

    Returns:
        The soft-optimal (MaxEnt) policy and its soft values.
    """
    rewards = np.asarray(rewards, dtype=np.float64)
    if rewards.shape != mdp.mask.shape:
        raise ValueError(f"rewards must have shape {mdp.mask.shape}, got {rewards.shape}")
    horizon = mdp.horizon
    values = np.zeros((horizon + 1, mdp.n_states))
    log_policy = np.empty((horizon, mdp.n_states, mdp.n_actions))
    masked = np.where(mdp.mask, rewards, -np.inf)
    for t in range(horizon - 1, -1, -1):
        q = masked if t == horizon - 1 else masked + mdp.expected_next(values[t + 1])
        values[t], log_policy[t] = log_softmax(q)
    return SoftPolicy(log_policy, values)


def occupancy(mdp: TabularMDP, policy: SoftPolicy, start: np.ndarray) -> np.ndarray:
    """Expected state-action visits summed over the horizon, shape (S, A).

    Args:
        mdp: the MDP.
        policy: a policy from :func:`soft_value_iteration`.
        start: mass on each state at t = 0, shape (S,) (a distribution, or counts of
            episodes: the result scales with it and sums to H · Σ start).
    """
    state = np.asarray(start, dtype=np.float64)
    total = np.zeros((mdp.n_states, mdp.n_actions))
    probabilities = policy.policy
    for t in range(mdp.horizon):
        visits = state[:, None] * probabilities[t]
        total += visits
        if t + 1 < mdp.horizon:
            state = mdp.push_forward(visits)
    return total


@dataclass(frozen=True)
class LinearFeatures:
    """φ(s, a) of a tabular MDP with one weight block per state group.

    Two layouts: *dense*, ``values`` of shape (S, A, D) and weights (G, D); or
    *action-factored* φ(s, a) = e_a ⊗ g(s), ``values`` = g of shape (S, k) and weights
    (G, A, k) — the layout of :class:`~assembly_gym.envs.legislative.phi.ActionFeatureMap`, which
    never materialises the (S, A, A · k) tensor.

    Attributes:
        values: the feature values, (S, A, D) or (S, k).
        n_actions: number of actions A.
        group: weight block of each state, shape (S,), non-decreasing ints 0 … G − 1
            (states of one group are contiguous).
        factored: whether ``values`` is g(s) of the action-factored layout.
    """

    values: np.ndarray
    n_actions: int
    group: np.ndarray
    factored: bool = False
    _bounds: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        expected_ndim = 2 if self.factored else 3
        if values.ndim != expected_ndim:
            raise ValueError(f"values must have {expected_ndim} dimensions, got {values.shape}")
        if not self.factored and values.shape[1] != self.n_actions:
            raise ValueError(f"dense values must be (S, {self.n_actions}, D), got {values.shape}")
        group = np.asarray(self.group, dtype=np.int64)
        if group.shape != (values.shape[0],):
            raise ValueError(f"group must have shape ({values.shape[0]},), got {group.shape}")
        if len(group) and (
            group[0] != 0 or np.any(np.diff(group) < 0) or np.any(np.diff(group) > 1)
        ):
            raise ValueError("group must be non-decreasing from 0 without gaps (contiguous blocks)")
        if not np.isfinite(values).all():
            raise ValueError("feature values must be finite")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "group", group)
        bounds = np.searchsorted(group, np.arange(self.n_groups + 1), side="left")
        object.__setattr__(self, "_bounds", bounds)

    @property
    def n_groups(self) -> int:
        """Number of weight blocks G."""
        return int(self.group[-1]) + 1 if len(self.group) else 0

    @property
    def weight_shape(self) -> tuple[int, ...]:
        """Shape of one group's weights: (D,) or (A, k)."""
        if self.factored:
            return (self.n_actions, self.values.shape[1])
        return (self.values.shape[2],)

    def segments(self) -> list[slice]:
        """The state slice of each group."""
        return [
            slice(int(a), int(b)) for a, b in zip(self._bounds[:-1], self._bounds[1:], strict=True)
        ]

    def rewards(self, theta: np.ndarray) -> np.ndarray:
        """r(s, a) = θ_{group(s)}·φ(s, a) for weights (G, *weight_shape) → (S, A)."""
        out = np.empty((self.values.shape[0], self.n_actions))
        # einsum, not BLAS: OpenBLAS is erratic (up to 20× slower) on these tall, narrow
        # products, einsum's own loops are steady.
        for g, rows in enumerate(self.segments()):
            if self.factored:
                out[rows] = np.einsum("sk,ak->sa", self.values[rows], theta[g])
            else:
                out[rows] = self.values[rows] @ theta[g]
        return out

    def expectations(self, weights: np.ndarray) -> np.ndarray:
        """Σ_{s in group, a} w(s, a) φ(s, a) for weights (S, A) → (G, *weight_shape)."""
        out = np.empty((self.n_groups, *self.weight_shape))
        for g, rows in enumerate(self.segments()):
            if self.factored:  # einsum: see rewards()
                out[g] = np.einsum("sa,sk->ak", weights[rows], self.values[rows])
            else:
                out[g] = np.einsum("sa,sad->d", weights[rows], self.values[rows])
        return out


def sample_trajectories(
    mdp: TabularMDP, policy: SoftPolicy, start: np.ndarray, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Episodes of a time-indexed policy: states (n, H + 1) and actions (n, H), ints.

    Args:
        mdp: the MDP (transitions needed when H > 1).
        policy: the policy to act by.
        start: distribution of the first state, shape (S,).
        n: number of episodes.
        rng: the random generator.
    """
    start = np.asarray(start, dtype=np.float64)
    states = np.empty((n, mdp.horizon + 1), dtype=np.int64)
    actions = np.empty((n, mdp.horizon), dtype=np.int64)
    states[:, 0] = _draw(np.cumsum(start / start.sum())[None, :].repeat(n, 0), rng)
    probabilities = policy.policy
    if mdp.transitions is not None:
        matrix = mdp.transitions
        cumulative = np.cumsum(matrix.data)
        before = np.concatenate([[0.0], cumulative])[matrix.indptr[:-1]]
    for t in range(mdp.horizon):
        actions[:, t] = _draw(np.cumsum(probabilities[t, states[:, t]], axis=1), rng)
        if mdp.transitions is None:
            states[:, t + 1] = states[:, t]
            continue
        rows = states[:, t] * mdp.n_actions + actions[:, t]
        mass = cumulative[np.maximum(matrix.indptr[rows + 1] - 1, 0)] - before[rows]
        position = np.searchsorted(cumulative, before[rows] + rng.random(n) * mass, side="right")
        position = np.clip(position, matrix.indptr[rows], matrix.indptr[rows + 1] - 1)
        states[:, t + 1] = matrix.indices[position]
    return states, actions


def _draw(cumulative: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of cumulative probabilities (N, K)."""
    draws = rng.random(len(cumulative))[:, None] * cumulative[:, -1:]
    return np.minimum((draws >= cumulative).sum(axis=1), cumulative.shape[1] - 1)


def random_mdp(
    n_states: int, n_actions: int, horizon: int, rng: np.random.Generator, *, branching: int = 5
) -> TabularMDP:
    """A random MDP: each (s, a) leads to ``branching`` random states, Dirichlet(1) weights."""
    successors = rng.integers(0, n_states, size=(n_states * n_actions, branching))
    probabilities = rng.dirichlet(np.ones(branching), size=n_states * n_actions)
    rows = np.repeat(np.arange(n_states * n_actions), branching)
    transitions = sp.csr_matrix(
        (probabilities.ravel(), (rows, successors.ravel())), shape=(n_states * n_actions, n_states)
    )  # duplicates are summed
    return TabularMDP(n_actions, horizon, np.ones((n_states, n_actions), dtype=bool), transitions)
