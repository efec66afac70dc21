"""Per-observation owner forecasts of unlabelled observations, from the tendencies' claims.

Each tendency is described by the words of the training observations it claimed: a
multinomial naive Bayes model over scikit-learn's ``CountVectorizer`` counts, soft-labelled by
the mixture's responsibilities (docs/debate.md, "Validation"). A held-out text h scores
ℓ_hk = Σ_v c_hv log θ_kv; the held-out relevance never enters it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer

__all__ = ["SMOOTHING", "ClaimProfiles"]

SMOOTHING = 0.5
"""α, the pseudo-count of every word of every tendency's profile."""


class ClaimProfiles:
    """Word profiles of the tendencies' training claims, scoring held-out texts.

    Args:
        train_texts: the training observations' texts (N).
        held_out_texts: the texts to forecast (H).
    """

    def __init__(self, train_texts: Sequence[str], held_out_texts: Sequence[str]) -> None:
        vectorizer = CountVectorizer(stop_words="english", strip_accents="unicode")
        try:
            self._train = vectorizer.fit_transform(train_texts)  # (N, V) sparse counts
            self._held_out = vectorizer.transform(held_out_texts)  # (H, V)
        except ValueError:  # no word outside the stop words: every tendency scores 0
            self._train = sparse.csr_matrix((len(train_texts), 1))
            self._held_out = sparse.csr_matrix((len(held_out_texts), 1))

    def log_likelihood(self, relevance: np.ndarray, allocations: np.ndarray) -> np.ndarray:
        """ℓ: each held-out text's log-likelihood under each tendency's profile.

        Args:
            relevance: the tendencies' relevance on the training observations, shape (K, N).
            allocations: the current allocations w, shape (K,).

        Returns:
            shape (K, H), in nats (zeros when the training texts have no word).
        """
        relevance = np.asarray(relevance, dtype=np.float64)
        weighted = np.asarray(allocations, dtype=np.float64)[:, None] * relevance  # (K, N)
        total = weighted.sum(axis=0, keepdims=True)
        responsibility = np.divide(weighted, total, out=np.zeros_like(weighted), where=total > 0)
        counts = np.asarray(self._train.T @ responsibility.T).T + SMOOTHING  # (K, V)
        log_theta = np.log(counts / counts.sum(axis=1, keepdims=True))
        return np.asarray(self._held_out @ log_theta.T).T
