"""The arena: tendencies claim observations, stake their allocation, and the market pays out.

One round (claims, consensus, stakes, resolution, market payout) and why its winner gains:
docs/debate.md, "The arena". An *epoch* is ``rounds`` full-batch rounds of vectorised NumPy
on (K, N, A) arrays, all settled by the epoch's market allocation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import LinearConstraint, minimize

from assembly_gym.agents.debate.allocation import project_bounded_simplex

__all__ = [
    "EVIDENCE_FLOOR",
    "Arena",
    "Claim",
    "ClaimSet",
    "EpochDebate",
    "RoundOutcome",
    "top_claims",
]

EVIDENCE_FLOOR = 1e-3
"""Smallest evidence (keeps likelihood ratios finite when a claim gives an outcome 0)."""


@dataclass(frozen=True)
class ClaimSet:
    """Claims of K tendencies on N observations.

    Attributes:
        probs: each tendency's distribution over the A actions, shape (K, N, A), rows summing
            to 1 (A may be 0 for free text).
        relevance: how much each observation is about each tendency, shape (K, N), in [0, 1].
    """

    probs: np.ndarray
    relevance: np.ndarray

    def __post_init__(self) -> None:
        if self.probs.ndim != 3:
            raise ValueError(f"probs must have shape (K, N, A), got {self.probs.shape}")
        if self.relevance.shape != self.probs.shape[:2]:
            raise ValueError(
                f"relevance must have shape {self.probs.shape[:2]}, got {self.relevance.shape}"
            )
        if not (np.isfinite(self.probs).all() and np.isfinite(self.relevance).all()):
            raise ValueError("claims must be finite")
        if (self.probs < 0).any() or (
            self.probs.shape[2] > 0 and not np.allclose(self.probs.sum(axis=2), 1.0, atol=1e-6)
        ):
            raise ValueError("each claim must be a probability distribution over the actions")
        if ((self.relevance < 0) | (self.relevance > 1)).any():
            raise ValueError("relevance must lie in [0, 1]")

    @property
    def n_tendencies(self) -> int:
        """K."""
        return self.probs.shape[0]

    @property
    def n_observations(self) -> int:
        """N."""
        return self.probs.shape[1]

    @property
    def n_actions(self) -> int:
        """A."""
        return self.probs.shape[2]

    def take(self, index: np.ndarray) -> ClaimSet:
        """The claims on some observations, in that order."""
        return ClaimSet(self.probs[:, index], self.relevance[:, index])

    def replace(self, index: np.ndarray, other: ClaimSet) -> ClaimSet:
        """These claims with those on the observations at ``index`` replaced by ``other``'s.

        ``other`` claims on ``len(index)`` observations, in the order of ``index``.
        """
        probs, relevance = self.probs.copy(), self.relevance.copy()
        probs[:, index], relevance[:, index] = other.probs, other.relevance
        return ClaimSet(probs, relevance)

    @property
    def predicted_actions(self) -> np.ndarray:
        """The action each tendency predicts, shape (K, N) (−1 when there are no actions)."""
        if self.n_actions == 0:
            return np.full(self.relevance.shape, -1, dtype=np.int64)
        return self.probs.argmax(axis=2)

    @property
    def strengths(self) -> np.ndarray:
        """How strongly each action claim departs from "no claim" (uniform), (K, N) in [0, 1].

        The total-variation distance to the uniform distribution divided by its maximum
        1 − 1/A (zero when there are fewer than two actions).
        """
        if self.n_actions < 2:
            return np.zeros(self.relevance.shape)
        uniform = 1.0 / self.n_actions
        return 0.5 * np.abs(self.probs - uniform).sum(axis=2) / (1.0 - uniform)

    def mixture(self, allocations: np.ndarray) -> np.ndarray:
        """The allocation-weighted action distribution m = Σ_k w_k p_k, shape (N, A)."""
        return np.einsum("k,kna->na", allocations, self.probs)

    def evidence(self, outcomes: np.ndarray, floor: float = EVIDENCE_FLOOR) -> np.ndarray:
        """e_ik: the observed action's probability, or the relevance when unlabelled, (K, N).

        Args:
            outcomes: the observed action per observation, shape (N,), −1 for unlabelled.
            floor: the smallest evidence returned.
        """
        labelled = outcomes >= 0
        if self.n_actions:
            taken = np.take_along_axis(
                self.probs, np.where(labelled, outcomes, 0)[None, :, None], axis=2
            )[:, :, 0]
        else:
            taken = self.relevance
        return np.maximum(np.where(labelled[None], taken, self.relevance), floor)


@dataclass(frozen=True)
class RoundOutcome:
    """One round: stakes, which of them won, what the market paid and the new allocations.

    Attributes:
        stakes: s_ik, shape (K, N).
        evidence: e_ik, shape (K, N).
        wins: e_ik > ē_i, shape (K, N) bool.
        scores: each tendency's winnings v*_k − w_k, shape (K,) (summing to 0).
        market: the market allocation v* that settled the round, shape (K,).
        allocations: allocations after the payout, shape (K,).
    """

    stakes: np.ndarray
    evidence: np.ndarray
    wins: np.ndarray
    scores: np.ndarray
    market: np.ndarray
    allocations: np.ndarray


@dataclass(frozen=True)
class EpochDebate:
    """One epoch of debate (several rounds).

    Attributes:
        start: allocations before the epoch, shape (K,).
        allocations: allocations after it, shape (K,).
        scores: the rounds' scores summed, shape (K,): their argmax, the epoch's winner, is
            the tendency whose share grew most (every round moves toward the same v*).
        total_stakes: stake per observation, averaged over the rounds, shape (K,).
        last_round: the epoch's last round.
    """

    start: np.ndarray
    allocations: np.ndarray
    scores: np.ndarray
    total_stakes: np.ndarray
    last_round: RoundOutcome

    @property
    def changes(self) -> np.ndarray:
        """Signed allocation change of the epoch, shape (K,)."""
        return self.allocations - self.start


@dataclass(frozen=True)
class Claim:
    """One claim as reported: a tendency's explanation of one observation and how it fared."""

    tendency: str
    observation: str
    action: str | None
    strength: float
    relevance: float
    stake: float
    won: bool


class Arena:
    """Runs rounds of claims, stakes and resolution over fixed claims (docs/debate.md, "The arena").

    Args:
        rounds: full-batch rounds per epoch.
        evidence_floor: smallest evidence (keeps ratios finite when a claim gives 0).
    """

    def __init__(self, *, rounds: int = 10, evidence_floor: float = EVIDENCE_FLOOR) -> None:
        if rounds < 1:
            raise ValueError(f"rounds must be ≥ 1, got {rounds}")
        if not 0.0 < evidence_floor < 1.0:
            raise ValueError(f"evidence_floor must be in (0, 1), got {evidence_floor}")
        self.rounds = rounds
        self.evidence_floor = evidence_floor

    def stakes(self, claims: ClaimSet, outcomes: np.ndarray, allocations: np.ndarray) -> np.ndarray:
        """s_ik = w_k · d_ik / d̄, shape (K, N) (zero when nobody disagrees).

        d_ik ∈ [0, 1] is the distance of each claim from the consensus: total variation for a
        labelled observation, the relevance gap for an unlabelled one.
        """
        labelled = outcomes >= 0
        distance = 0.5 * np.abs(claims.probs - claims.mixture(allocations)[None]).sum(axis=2)
        relevance_gap = np.abs(claims.relevance - (allocations @ claims.relevance)[None])
        d = np.where(labelled[None], distance, relevance_gap)
        mean = d.mean()
        return allocations[:, None] * (d / mean if mean > 0 else np.zeros_like(d))

    def market(
        self, claims: ClaimSet, outcomes: np.ndarray, start: np.ndarray, lower: float, upper: float
    ) -> np.ndarray:
        """v* = argmax_v Σ_i log Σ_k v_k e_ik over the bounded simplex (scipy SLSQP).

        The bounded maximum-likelihood mixture: where no tendency that could still grow wins
        on average (docs/debate.md, "The arena").

        Args:
            claims: K tendencies' claims on N observations.
            outcomes: the observed action per observation, shape (N,), −1 for unlabelled.
            start: a feasible starting point (the current allocations), shape (K,).
            lower: smallest allowed allocation.
            upper: largest allowed allocation.

        Returns:
            shape (K,), inside the bounds and summing to 1.
        """
        evidence = claims.evidence(outcomes, self.evidence_floor)

        def negative_log_likelihood(v: np.ndarray) -> tuple[float, np.ndarray]:
            mixture = v @ evidence
            return -np.log(mixture).mean(), -(evidence / mixture).mean(axis=1)

        solution = minimize(
            negative_log_likelihood,
            start,
            jac=True,
            method="SLSQP",
            bounds=[(lower, upper)] * len(start),
            constraints=LinearConstraint(np.ones((1, len(start))), 1.0, 1.0),  # Σ v = 1
            options={"ftol": 1e-12, "maxiter": 200},
        )
        if not np.isfinite(solution.x).all():
            return start
        return project_bounded_simplex(solution.x, lower, upper)

    def round(
        self,
        claims: ClaimSet,
        outcomes: np.ndarray,
        allocations: np.ndarray,
        market: np.ndarray,
        *,
        learning_rate: float,
    ) -> RoundOutcome:
        """One round: stakes, resolution, and the market's payout w ← w + η(v* − w).

        Args:
            claims: K tendencies' claims on N observations.
            outcomes: the observed action per observation, shape (N,), −1 for unlabelled.
            allocations: current allocations w, shape (K,), inside the bounds, summing to 1.
            market: the market allocation v* (:meth:`market`), shape (K,).
            learning_rate: η in (0, 1]: the allocations stay inside the bounds.
        """
        if not 0.0 < learning_rate <= 1.0:
            raise ValueError(f"learning_rate must be in (0, 1], got {learning_rate}")
        allocations = np.asarray(allocations, dtype=np.float64)
        evidence = claims.evidence(outcomes, self.evidence_floor)
        wins = evidence > (allocations @ evidence)[None]  # e > ē
        scores = market - allocations
        return RoundOutcome(
            self.stakes(claims, outcomes, allocations), evidence, wins, scores, market,
            allocations + learning_rate * scores,
        )  # fmt: skip

    def debate(
        self,
        claims: ClaimSet,
        outcomes: np.ndarray,
        allocations: np.ndarray,
        *,
        learning_rate: float,
        lower: float,
        upper: float,
    ) -> EpochDebate:
        """One epoch: :attr:`rounds` rounds settled by the epoch's market (:meth:`market`).

        Each round starts from the previous one's allocations.
        """
        outcomes = np.asarray(outcomes, dtype=np.int64)
        if outcomes.shape != (claims.n_observations,):
            raise ValueError(
                f"outcomes must have shape ({claims.n_observations},), got {outcomes.shape}"
            )
        if claims.n_observations == 0:
            raise ValueError("no observations to debate")
        start = np.asarray(allocations, dtype=np.float64)
        market = self.market(claims, outcomes, start, lower, upper)
        current, scores, staked = start, np.zeros(len(start)), np.zeros(len(start))
        for _ in range(self.rounds):
            outcome = self.round(claims, outcomes, current, market, learning_rate=learning_rate)
            current = outcome.allocations
            scores += outcome.scores
            staked += outcome.stakes.mean(axis=1)
        return EpochDebate(start, current, scores, staked / self.rounds, outcome)


def top_claims(
    claims: ClaimSet,
    outcome: RoundOutcome,
    names: Sequence[str],
    ids: Sequence[str],
    action_names: Sequence[str],
    *,
    per_tendency: int = 5,
) -> dict[str, tuple[Claim, ...]]:
    """Each tendency's largest stakes of a round, as :class:`Claim` records."""
    actions, strengths = claims.predicted_actions, claims.strengths
    report = {}
    for k, name in enumerate(names):
        order = np.argsort(-outcome.stakes[k], kind="stable")[:per_tendency]
        report[name] = tuple(
            Claim(
                tendency=name,
                observation=ids[i],
                action=action_names[actions[k, i]] if actions[k, i] >= 0 else None,
                strength=float(strengths[k, i]),
                relevance=float(claims.relevance[k, i]),
                stake=float(outcome.stakes[k, i]),
                won=bool(outcome.wins[k, i]),
            )
            for i in order
            if outcome.stakes[k, i] > 0
        )
    return report
