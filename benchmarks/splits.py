"""Splits of roll calls, folds of resolutions, who can be scored.

Temporal: train on earlier sessions, test on later ones. Masked: a seeded share of the votes
hidden inside observed roll calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.resolutions import NOT_RECORDED, ResolutionRecords
from assembly_gym.envs.legislative.sources import first_three_quarters

__all__ = [
    "MASKED_FRACTION",
    "MaskedSplit",
    "TemporalSplit",
    "eligible_countries",
    "record_folds",
    "resolution_folds",
]

MASKED_FRACTION = 0.10
"""The share of the cast votes a :class:`MaskedSplit` hides (the ideal-point literature's 10%)."""


def resolution_folds(
    n_resolutions: int, folds: int, seed: int = 0, *, strata: np.ndarray | None = None
) -> list[np.ndarray]:
    """K test folds of resolution indices: disjoint, covering all, sizes within one, seeded.

    Args:
        n_resolutions: how many resolutions (indices 0 … n − 1).
        folds: K ≥ 2.
        seed: seed of the shuffle (the same seed gives the same folds).
        strata: a label per resolution, shape (n,) (e.g. whether its votes are recorded):
            each label's resolutions are dealt evenly over the folds, so that a rare kind
            is not all in one test fold. None: one stratum.

    Returns:
        K sorted index arrays.

    Raises:
        DataError: K < 2 or more folds than resolutions.
    """
    if not 2 <= folds <= n_resolutions:
        raise DataError("--folds", f"need 2 ≤ K ≤ {n_resolutions} (the resolutions), got {folds}")
    rng = np.random.default_rng(seed)
    labels = np.zeros(n_resolutions, dtype=np.int64) if strata is None else np.asarray(strata)
    if labels.shape != (n_resolutions,):
        raise DataError("--folds", f"strata of shape {labels.shape}, expected ({n_resolutions},)")
    # Each stratum shuffled, then all dealt in turn: fold sizes stay within one of each other.
    order = np.concatenate(
        [rng.permutation(np.flatnonzero(labels == v)) for v in np.unique(labels)]
    )
    fold_of = np.empty(n_resolutions, dtype=np.int64)
    fold_of[order] = (np.arange(n_resolutions) + rng.integers(folds)) % folds
    return [np.flatnonzero(fold_of == k) for k in range(folds)]


def record_folds(records: ResolutionRecords, folds: int, seed: int = 0) -> list[np.ndarray]:
    """:func:`resolution_folds` of resolution records, stratified by whether votes are recorded.

    Real trajectory folders record votes on few resolutions (the rest: sponsor lists): dealt
    evenly, they leave votes in every training part (the dynamics are fitted on them).
    """
    voted = ((records.committee != NOT_RECORDED) | (records.plenary != NOT_RECORDED)).any(axis=0)
    return resolution_folds(records.n_resolutions, folds, seed, strata=voted)


@dataclass(frozen=True)
class TemporalSplit:
    """Train on sessions up to ``last_train_session``, test on the sessions after it."""

    train: RollCallData
    test: RollCallData
    last_train_session: int

    @classmethod
    def of(cls, data: RollCallData, last_train_session: int | None = None) -> TemporalSplit:
        """Split data; the default trains on the first three quarters of its sessions."""
        sessions = data.sessions
        if len(sessions) < 2:
            raise DataError(data.source, "a temporal split needs at least two sessions")
        if last_train_session is None:
            last_train_session = first_three_quarters(sessions)
        if not sessions[0] <= last_train_session < sessions[-1]:
            raise DataError(
                data.source,
                f"last training session {last_train_session} leaves no training or no test "
                f"sessions (sessions {sessions[0]}–{sessions[-1]})",
            )
        train, test = data.temporal_split(last_train_session)
        return cls(train, test, last_train_session)

    def describe(self) -> str:
        """One line: which sessions train and which test."""
        train, test = self.train.sessions, self.test.sessions
        return (
            f"train sessions {train[0]}–{train[-1]} ({self.train.n_roll_calls} roll calls), "
            f"test sessions {test[0]}–{test[-1]} ({self.test.n_roll_calls} roll calls)"
        )


@dataclass(frozen=True)
class MaskedSplit:
    """A seeded share of the cast votes hidden, drawn uniformly from all sessions; the rest seen.

    The classic test of ideal points: every roll call stays in view, with most of its
    votes, and the hidden votes are forecast from the visible ones.

    Attributes:
        train: the visible votes: the data with the hidden cells set to ``ABSENT`` (same
            roll calls, same countries).
        test: the hidden votes alone: the same roll calls and countries, every other cell
            ``ABSENT`` (its cast cells are the hidden (country row, roll-call column) cells).
        seed: the seed of the draw.
        fraction: the share of the cast votes hidden.
    """

    train: RollCallData
    test: RollCallData
    seed: int
    fraction: float

    @classmethod
    def of(
        cls, data: RollCallData, seed: int = 0, fraction: float = MASKED_FRACTION
    ) -> MaskedSplit:
        """Hide ``round(fraction × cast votes)`` cast votes drawn uniformly (seeded).

        Raises:
            DataError: a fraction that hides no vote or every vote.
        """
        votes = data.votes
        cast = np.flatnonzero(votes.ravel() != ABSENT)
        n_hidden = round(fraction * len(cast))
        if not 0 < n_hidden < len(cast):
            raise DataError(data.source, f"hiding {fraction:.0%} of {len(cast)} cast votes "
                                         "leaves none hidden or none seen")  # fmt: skip
        hidden = np.zeros(votes.shape, dtype=bool)
        hidden.flat[np.random.default_rng(seed).choice(cast, n_hidden, replace=False)] = True
        visible = np.where(hidden, ABSENT, votes).astype(np.int8)
        return cls(replace(data, votes=visible),
                   replace(data, votes=np.where(hidden, votes, ABSENT).astype(np.int8)),
                   seed, fraction)  # fmt: skip

    def describe(self) -> str:
        """One line: how many votes are hidden, of how many roll calls, and the seed."""
        hidden = int((self.test.votes != ABSENT).sum())
        seen = int((self.train.votes != ABSENT).sum())
        sessions = self.train.sessions
        return (
            f"{self.fraction:.0%} of the cast votes hidden (seed {self.seed}): {hidden:,} hidden "
            f"and {seen:,} seen, on {self.train.n_roll_calls:,} roll calls of sessions "
            f"{sessions[0]}–{sessions[-1]}"
        )


def eligible_countries(
    split: TemporalSplit | MaskedSplit, countries: Sequence[str] | None = None
) -> list[str]:
    """The given countries (validated), or all with votes in both periods, in data order."""
    if countries is not None:
        names = [split.train.country_names[split.train.country_index(c)] for c in countries]
        for data, period in ((split.train, "training"), (split.test, "test")):
            silent = [n for n in names if (data.votes[data.country_index(n)] == ABSENT).all()]
            if silent:
                raise DataError(
                    data.source,
                    f"{silent} cast no vote in the {period} sessions; leave them out",
                    field="country",
                )
        return names
    voted_train = (split.train.votes != ABSENT).any(axis=1)
    test_rows = {n: i for i, n in enumerate(split.test.country_names)}
    names = [
        name for name, voted in zip(split.train.country_names, voted_train, strict=True)
        if voted and name in test_rows and (split.test.votes[test_rows[name]] != ABSENT).any()
    ]  # fmt: skip
    if not names:
        raise DataError(
            split.train.source, "no country voted in both the training and test sessions"
        )
    return names
