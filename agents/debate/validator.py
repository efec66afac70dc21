"""Validation on held-out observations: does the calibrated mixture beat chance?

The held-out log-likelihood of the mixture (what training maximises, and what picks the best
epoch), actual and predicted owners, the binomial test against chance 1/K, the majority rate
and the action scores: docs/debate.md, "Validation".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.stats import binomtest

from assembly_gym.agents.base import apply_mask
from assembly_gym.agents.debate.arena import EVIDENCE_FLOOR, ClaimSet
from assembly_gym.core.metrics import argmax_random_ties, classification_metrics

__all__ = ["ValidationResult", "Validator", "binomial_p_value", "significance_stars"]


def binomial_p_value(successes: int, n: int, chance: float) -> float:
    """One-sided exact binomial p-value P(X ≥ successes), X ~ Binomial(n, chance).

    Raises:
        ValueError: n < 1, successes outside 0..n or chance outside (0, 1).
    """
    if n < 1 or not 0 <= successes <= n or not 0.0 < chance < 1.0:
        raise ValueError(
            f"need 0 ≤ successes ≤ n, n ≥ 1, 0 < chance < 1; got {successes}, {n}, {chance}"
        )
    return float(binomtest(int(successes), int(n), chance, alternative="greater").pvalue)


def significance_stars(p_value: float) -> str:
    """``***`` p < 0.001, ``**`` p < 0.01, ``*`` p < 0.05, else ``n.s.``."""
    for threshold, stars in ((0.001, "***"), (0.01, "**"), (0.05, "*")):
        if p_value < threshold:
            return stars
    return "n.s."


@dataclass(frozen=True)
class ValidationResult:
    """The mixture's fit to held-out observations: likelihood, owners, actions where labelled.

    Attributes:
        log_likelihood: mean held-out log-likelihood of the mixture, (1/N) Σ_i log Σ_k w_k e_ik
            in nats, e the arena's evidence (the chosen action's probability, or the
            relevance of an unlabelled observation).
        accuracy: share of observations whose predicted owner is the actual owner.
        p_value: one-sided binomial p-value of ``successes`` out of ``n`` against ``chance``.
        n: held-out observations.
        chance: 1/K.
        successes: observations whose owner was predicted right.
        majority_rate: share of the most common actual owner (always naming it scores this).
        action_accuracy: accuracy of the mixture's most likely action (None: no labels).
        action_macro_f1: macro-F1 of the same (None: no labels).
        action_log_loss: log-loss of the mixture in nats (None: no labels).
        owner_source: what assigned the actual owners: ``"action"`` (observed actions), the
            ``relevance_source`` of unlabelled ones (``"built-in relevance"``;
            ``"claim command"``), or both joined by ``" + "``.
    """

    log_likelihood: float
    accuracy: float
    p_value: float
    n: int
    chance: float
    successes: int
    majority_rate: float
    action_accuracy: float | None = None
    action_macro_f1: float | None = None
    action_log_loss: float | None = None
    owner_source: str = "action"

    @property
    def stars(self) -> str:
        """Significance stars of :attr:`p_value`."""
        return significance_stars(self.p_value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)


class Validator:
    """Scores allocations on held-out claims (docs/debate.md, "Validation").

    Args:
        seed: seed of the random tie-breaking.
        evidence_floor: the smallest evidence, as the arena's.
    """

    def __init__(self, *, seed: int = 0, evidence_floor: float = EVIDENCE_FLOOR) -> None:
        self.seed = seed
        self.evidence_floor = evidence_floor

    def owners(
        self,
        claims: ClaimSet,
        outcomes: np.ndarray,
        allocations: np.ndarray,
        masks: np.ndarray | None = None,
        forecast: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Predicted and actual owner of every observation, two arrays of shape (N,).

        ``forecast`` ℓ (K, N) scores the unlabelled observations (docs/debate.md, "Validation").
        """
        outcomes = np.asarray(outcomes, dtype=np.int64)
        allocations = np.asarray(allocations, dtype=np.float64)
        labelled = outcomes >= 0
        n, k = claims.n_observations, claims.n_tendencies
        prior = np.log(np.maximum(allocations, np.finfo(np.float64).tiny))
        scores = prior[None] + (0.0 if forecast is None else np.asarray(forecast).T)  # (N, K)
        predicted = argmax_random_ties(np.broadcast_to(scores, (n, k)), self.seed)
        actual = argmax_random_ties(claims.relevance.T, self.seed + 1)
        if labelled.any():
            rows = np.flatnonzero(labelled)
            probs = claims.probs[:, rows]  # (K, L, A)
            n_actions = probs.shape[2]
            # b_i(a): the best explanation of each possible action, shape (L, A)
            best = argmax_random_ties(probs.transpose(1, 2, 0).reshape(-1, k), self.seed + 2)
            best = best.reshape(len(rows), n_actions)
            forecast = _masked_mixture(claims, allocations, masks, rows)
            votes = np.zeros((len(rows), k))
            np.add.at(
                votes, (np.repeat(np.arange(len(rows)), n_actions), best.ravel()), forecast.ravel()
            )
            predicted[rows] = argmax_random_ties(votes, self.seed + 3)
            actual[rows] = best[np.arange(len(rows)), outcomes[rows]]
        return predicted, actual

    def validate(
        self,
        claims: ClaimSet,
        outcomes: np.ndarray,
        allocations: np.ndarray,
        masks: np.ndarray | None = None,
        *,
        forecast: np.ndarray | None = None,
        relevance_source: str = "built-in relevance",
    ) -> ValidationResult:
        """Log-likelihood, owner accuracy with its binomial test, and action metrics.

        Args:
            claims: the tendencies' claims on the held-out observations (K, N, A).
            outcomes: observed actions (N,), −1 for unlabelled.
            allocations: calibrated allocations (K,).
            masks: valid actions (N, A) or None.
            forecast: ℓ, the log-likelihood of each unlabelled observation under each
                tendency (K, N), or None (they are predicted by the allocation alone).
            relevance_source: what made the claims' relevance (reported as the owners'
                source of unlabelled observations).

        Raises:
            ValueError: no held-out observations.
        """
        outcomes = np.asarray(outcomes, dtype=np.int64)
        n = claims.n_observations
        if n == 0:
            raise ValueError("no held-out observations to validate on")
        evidence = claims.evidence(outcomes, self.evidence_floor)
        log_likelihood = float(np.log(np.asarray(allocations, dtype=np.float64) @ evidence).mean())
        predicted, actual = self.owners(claims, outcomes, allocations, masks, forecast)
        chance = 1.0 / claims.n_tendencies
        successes = int((predicted == actual).sum())
        majority = np.bincount(actual, minlength=claims.n_tendencies).max() / n
        action: dict[str, float | None] = dict.fromkeys(("accuracy", "macro_f1", "log_loss"))
        labelled = np.flatnonzero(outcomes >= 0)
        sources = ["action"] * bool(len(labelled)) + [relevance_source] * bool(n - len(labelled))
        if len(labelled):
            mixture = _masked_mixture(claims, allocations, masks, labelled)
            metrics = classification_metrics(outcomes[labelled], mixture)
            action = {key: metrics[key] for key in action}
        return ValidationResult(
            log_likelihood=log_likelihood,
            accuracy=successes / n,
            p_value=binomial_p_value(successes, n, chance) if claims.n_tendencies > 1 else 1.0,
            n=n,
            chance=chance,
            successes=successes,
            majority_rate=float(majority),
            action_accuracy=action["accuracy"],
            action_macro_f1=action["macro_f1"],
            action_log_loss=action["log_loss"],
            owner_source=" + ".join(sources),
        )


def _masked_mixture(
    claims: ClaimSet, allocations: np.ndarray, masks: np.ndarray | None, rows: np.ndarray
) -> np.ndarray:
    """The mixture m_i = Σ_k w_k p_k(· | x_i) on the observations at ``rows``, masked: (L, A)."""
    mixture = claims.mixture(np.asarray(allocations, dtype=np.float64))[rows]
    return apply_mask(mixture, None if masks is None else masks[rows])
