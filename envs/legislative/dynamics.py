"""Empirical dynamics of the other countries in ``Deliberation-v0``, fitted on records.

Other countries' behaviour comes from smoothed conditional frequency tables:

* sponsorship: P(sponsor | country, issue);
* votes: P(yes / no / abstain / absent | country, issue, sponsored, stage, support bin
  (:func:`~assembly_gym.envs.legislative.spaces.support_bin`)), so the agent's own choices
  move the others' behaviour.

Each table backs off to the coarser one before it (Dirichlet smoothing with ``smoothing``
pseudo-observations, :func:`~assembly_gym.core.backoff.nested_backoff`): a key
with little data takes the coarser estimate, a context the data never records (e.g.
committee votes in roll-call data) takes the coarser one entirely.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass

import numpy as np

from assembly_gym.core.backoff import nested_backoff
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, ISSUE_CODES, Vote
from assembly_gym.envs.legislative.resolutions import NOT_RECORDED, ResolutionRecords
from assembly_gym.envs.legislative.spaces import (
    SPONSOR_SHARE_EDGES,
    YES_SHARE_EDGES,
    Action,
    Stage,
    support_bin,
)

__all__ = ["OUTCOMES", "OWN_THRESHOLDS", "EmpiricalDynamics", "issue_keys", "own_outcomes"]

N_BINS = len(SPONSOR_SHARE_EDGES) + 1
N_ISSUE_KEYS = 7
N_OUTCOMES = 4  # yes, no, abstain, absent
_ABSENT_OUTCOME = 3
_VOTE_STAGES = (Stage.COMMITTEE_VOTE, Stage.PLENARY_VOTE)
OUTCOMES = np.array([Vote.YES, Vote.NO, Vote.ABSTAIN, ABSENT], dtype=np.int8)
"""The :class:`Vote` code (or ``ABSENT``) of each outcome index 0..3."""
OWN_THRESHOLDS = np.where(np.arange(N_OUTCOMES - 1) < np.arange(N_OUTCOMES)[:, None], -1.0, 2.0)
"""Thresholds that a uniform in [0, 1) exceeds exactly the first k of, by outcome index k, (4, 3):
an agent's own vote read as the others' are (:meth:`EmpiricalDynamics.context_thresholds`)."""
OWN_THRESHOLDS.setflags(write=False)
_EDGES = {stage: tuple(edges.tolist()) for stage, edges in zip(
    _VOTE_STAGES, (SPONSOR_SHARE_EDGES, YES_SHARE_EDGES), strict=True)}  # fmt: skip


def issue_keys(issues: np.ndarray) -> np.ndarray:
    """Key of each resolution: its first issue code 0..5, or 6 when it has none. (R, 6) → (R,)."""
    issues = np.asarray(issues, dtype=bool)
    return np.where(issues.any(axis=1), issues.argmax(axis=1), N_ISSUE_KEYS - 1)


def _backoff(
    keys: list[tuple[np.ndarray, int]], outcome: np.ndarray, n_outcomes: int, smoothing: float,
    prior: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Nested smoothed frequency table over dense keys, coarse to fine.

    Args:
        keys: (values, size) per level, coarse first; a value of -1 (unknown) excludes the
            observation from that level and every finer one.
        outcome: outcome index of each observation, shape (n,).
        n_outcomes: number of outcomes O.
        smoothing: pseudo-observations given to the coarser estimate at each level.
        prior: top-level prior over outcomes, shape (O,).

    Returns:
        Probabilities of shape (*sizes, O): every combination of keys, seen or not.
    """
    known = np.ones(len(outcome), dtype=bool)
    levels = [(np.zeros(len(outcome), dtype=np.int64), np.zeros(1, dtype=np.int64))]
    flat, n_keys = np.zeros(len(outcome), dtype=np.int64), 1
    for values, size in keys:
        known &= values >= 0
        flat = flat * size + np.where(known, values, 0)
        n_keys *= size
        levels.append((np.where(known, flat, -1), np.arange(n_keys) // size))
    table = nested_backoff(levels, outcome, n_outcomes, smoothing, prior)[-1]
    return table.reshape(*(size for _, size in keys), n_outcomes)


@dataclass(frozen=True)
class EmpiricalDynamics:
    """Fitted behaviour of every country at every stage.

    Attributes:
        countries: names in row order, shape (C,).
        sponsor: P(sponsor), shape (C, 7).
        votes: P(yes, no, abstain, absent), shape (C, 7, 2, 2, 5, 4) over
            (country, issue key, sponsored, stage − 1, support bin, outcome).
    """

    countries: tuple[str, ...]
    sponsor: np.ndarray
    votes: np.ndarray

    @classmethod
    def fit(
        cls, records: ResolutionRecords, *, smoothing: float = 2.0, sponsor_prior: float = 0.15
    ) -> EmpiricalDynamics:
        """Fit the tables on every recorded stage of the records.

        Args:
            records: the resolution records.
            smoothing: pseudo-observations for the coarser estimate at each level.
            sponsor_prior: sponsorship rate assumed before any data (about one country in
                seven sponsors a typical draft); it matters only where nothing is recorded.
        """
        if smoothing <= 0:
            raise ValueError(f"smoothing must be > 0, got {smoothing}")
        n_countries, n_resolutions = records.sponsors.shape
        country = np.repeat(np.arange(n_countries), n_resolutions)
        issue = np.tile(issue_keys(records.resolutions[_issue_columns()].to_numpy()), n_countries)

        sponsored = records.sponsors.reshape(-1)
        known = sponsored != NOT_RECORDED
        sponsor = _backoff(
            [(country[known], n_countries), (issue[known], N_ISSUE_KEYS)],
            sponsored[known].astype(np.int64), 2, smoothing,
            np.array([1.0 - sponsor_prior, sponsor_prior]),
        )[..., 1]  # fmt: skip

        observations = []
        sponsor_share = _share(records.sponsors == 1, records.sponsors != NOT_RECORDED)
        voting = (records.committee != NOT_RECORDED) & (records.committee != ABSENT)
        yes_share = _share(records.committee == Vote.YES, voting)
        for stage, matrix, share in (
            (Stage.COMMITTEE_VOTE, records.committee, sponsor_share),
            (Stage.PLENARY_VOTE, records.plenary, yes_share),
        ):
            flat = matrix.reshape(-1)
            recorded = flat != NOT_RECORDED
            bins = np.where(np.isnan(share), -1, support_bin(stage, np.nan_to_num(share)))
            observations.append(
                (
                    country[recorded], issue[recorded],
                    np.where(sponsored == NOT_RECORDED, -1, sponsored)[recorded],
                    np.full(recorded.sum(), stage - 1), np.tile(bins, n_countries)[recorded],
                    np.where(flat == ABSENT, _ABSENT_OUTCOME, flat)[recorded],
                )
            )  # fmt: skip
        c, k, s, st, b, o = (np.concatenate(parts) for parts in zip(*observations, strict=True))
        if len(o) == 0:
            raise DataError(records.source, "no recorded votes to fit the dynamics on")
        votes = _backoff(
            [(c, n_countries), (k, N_ISSUE_KEYS), (s.astype(np.int64), 2), (st, 2), (b, N_BINS)],
            o.astype(np.int64), N_OUTCOMES, smoothing, np.full(N_OUTCOMES, 1.0 / N_OUTCOMES),
        )  # fmt: skip
        return cls(records.country_names, sponsor, votes)

    def sponsor_probs(self, issue_key: int) -> np.ndarray:
        """P(sponsor) of every country for a resolution's issue key, shape (C,)."""
        return self.sponsor[:, issue_key]

    def vote_probs(
        self, stage: Stage, issue_key: int, sponsored: np.ndarray, bin_: int
    ) -> np.ndarray:
        """P(yes, no, abstain, absent) of every country, shape (C, 4).

        Args:
            stage: COMMITTEE_VOTE or PLENARY_VOTE.
            issue_key: the resolution's issue key.
            sponsored: whether each country sponsored, shape (C,) bool.
            bin_: the support bin (:func:`support_bin`).
        """
        if stage not in _VOTE_STAGES:
            raise ValueError(f"votes happen at {_VOTE_STAGES}, not {stage!r}")
        rows = np.arange(len(self.countries))
        return self.votes[rows, issue_key, sponsored.astype(np.int64), stage - 1, bin_]

    def respond(
        self, stage: Stage, issues: np.ndarray, rows: np.ndarray, actions: np.ndarray,
        sponsored: np.ndarray, support: np.ndarray, uniforms: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """What every country does at a stage, in a batch of N episodes.

        The other countries act by the fitted tables, each with its own uniform draw; the
        country of each episode (``rows``) does what its agent chose (``actions``).

        Args:
            stage: DRAFT, COMMITTEE_VOTE or PLENARY_VOTE.
            issues: issue key of each episode's resolution, shape (N,).
            rows: the agent's country in each episode, shape (N,).
            actions: the agents' :class:`~assembly_gym.envs.legislative.spaces.Action` values,
                shape (N,).
            sponsored: who sponsored, shape (N, C) bool (updated in place at DRAFT).
            support: the support share before this stage (:func:`support_bin`), shape (N,) float64.
            uniforms: one uniform draw per country, shape (N, C).

        Returns:
            Choices, shape (N, C) int8: at DRAFT 1/0 (sponsored or not), at a vote a
            :class:`Vote` value or ``ABSENT``.
        """
        episodes = np.arange(len(rows))
        if stage == Stage.DRAFT:
            sponsored[:] = uniforms < self.sponsor[:, issues].T
            sponsored[episodes, rows] = actions == Action.COSPONSOR
            return sponsored.astype(np.int8)
        outcomes = self.vote_outcomes(stage, issues, sponsored, support, uniforms)
        outcomes[episodes, rows] = own_outcomes(actions)
        return OUTCOMES[outcomes]

    def vote_outcomes(
        self, stage: Stage, issues: np.ndarray, sponsored: np.ndarray, support: np.ndarray,
        uniforms: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """Every country's vote by the tables in N episodes, agents' countries included.

        Country c votes the first outcome whose cumulative probability reaches its uniform.

        Args:
            stage: COMMITTEE_VOTE or PLENARY_VOTE.
            issues: issue key of each episode's resolution, shape (N,).
            sponsored: who sponsored, shape (N, C) bool.
            support: the support share before this stage, shape (N,) float64.
            uniforms: one uniform draw per country, shape (N, C).

        Returns:
            Outcomes, shape (N, C) uint8: 0 yes, 1 no, 2 abstain, 3 absent (:data:`OUTCOMES`).
        """
        keys = self._vote_keys(stage, issues, self.threshold_rows(sponsored), support)
        outcomes = (uniforms > self._row_thresholds[0].take(keys)).view(np.uint8)
        for thresholds in self._row_thresholds[1:]:
            outcomes += (uniforms > thresholds.take(keys)).view(np.uint8)
        return outcomes

    def vote_tallies(
        self, stage: Stage, issues: np.ndarray, threshold_rows: np.ndarray, support: np.ndarray,
        uniforms: np.ndarray, rows: np.ndarray, outcomes: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """Yes, no and abstain counts of a vote in N episodes, (N, 3) int64.

        The counts of :meth:`vote_outcomes`, except that the country of each episode
        (``rows``) votes its agent's outcome; without every country's vote (a vector env's
        step needs only the tallies).

        Args:
            stage: COMMITTEE_VOTE or PLENARY_VOTE.
            issues: issue key of each episode's resolution, shape (N,).
            threshold_rows: :meth:`threshold_rows` of who sponsored, shape (N, C).
            support: the support share before this stage, shape (N,) float64.
            uniforms: one uniform draw per country, shape (N, C).
            rows: the agent's country in each episode, shape (N,).
            outcomes: the agents' outcome indices (:func:`own_outcomes`), shape (N,).
        """
        keys = self._vote_keys(stage, issues, threshold_rows, support)
        keys[np.arange(len(rows)), rows] = self._context_rows.size // (N_OUTCOMES - 1) + outcomes
        ones = np.ones(uniforms.shape[1])
        above = np.empty((len(rows), N_OUTCOMES))  # countries past no threshold, then each
        above[:, 0] = uniforms.shape[1]
        for k, thresholds in enumerate(self._row_thresholds, start=1):
            above[:, k] = (uniforms > thresholds.take(keys)) @ ones
        return (above[:, :-1] - above[:, 1:]).astype(np.int64)

    def _vote_keys(
        self, stage: Stage, issues: np.ndarray, threshold_rows: np.ndarray, support: np.ndarray
    ) -> np.ndarray:
        """Each country's row of the flat :attr:`_row_thresholds` in N episodes, (N, C)."""
        if stage not in _VOTE_STAGES:
            raise ValueError(f"nobody acts at {stage!r}")
        contexts = ((stage - 1) * N_ISSUE_KEYS + issues) * N_BINS + support_bin(stage, support)
        return threshold_rows + (contexts * (2 * len(self.countries)))[:, None]

    def context_thresholds(self, stage: Stage, issue: int, support: float) -> np.ndarray:
        """The cumulative vote probabilities of one episode's context, shape (3, 2 · C).

        Column 2c is country c when it did not sponsor, column 2c + 1 when it did
        (:meth:`threshold_rows`); a country votes outcome k when its uniform exceeds exactly
        the first k of its column's three thresholds. A read-only view.
        """
        if stage not in _VOTE_STAGES:
            raise ValueError(f"nobody acts at {stage!r}")
        bin_ = bisect.bisect_right(_EDGES[stage], support)  # support_bin of a float
        return self._context_rows[((stage - 1) * N_ISSUE_KEYS + issue) * N_BINS + bin_]

    def threshold_rows(self, sponsored: np.ndarray) -> np.ndarray:
        """Each country's column of :meth:`context_thresholds`, (..., C) int: 2c + sponsored."""
        return self._even_rows + sponsored

    @functools.cached_property
    def sponsor_by_issue(self) -> np.ndarray:
        """:attr:`sponsor` by issue key, contiguous rows, shape (7, C) (read-only)."""
        table = np.ascontiguousarray(self.sponsor.T)
        table.setflags(write=False)
        return table

    @functools.cached_property
    def _cdf(self) -> np.ndarray:
        """Cumulative vote probabilities over outcomes, same shape as :attr:`votes`."""
        return np.cumsum(self.votes, axis=-1)

    @functools.cached_property
    def _context_thresholds(self) -> np.ndarray:
        """The first three cumulative probabilities by context, (2 · 7 · 5, 2, C, 3).

        A context is (stage − 1, issue key, support bin), flat; then sponsored, country. The
        fourth (1, up to rounding) is left out: a uniform above the third is absent.
        """
        by_context = self._cdf[..., : N_OUTCOMES - 1].transpose(3, 1, 4, 2, 0, 5)
        return np.ascontiguousarray(by_context).reshape(-1, 2, len(self.countries), 3)

    @functools.cached_property
    def _row_thresholds(self) -> tuple[np.ndarray, ...]:
        """:attr:`_context_rows` flat, then :data:`OWN_THRESHOLDS`: one (K + 4,) per threshold."""
        by_threshold = self._context_rows.transpose(1, 0, 2).reshape(N_OUTCOMES - 1, -1)
        flat = np.concatenate([by_threshold, OWN_THRESHOLDS.T], axis=1)
        return tuple(np.ascontiguousarray(thresholds) for thresholds in flat)

    @functools.cached_property
    def _context_rows(self) -> np.ndarray:
        """:attr:`_context_thresholds` by context, threshold, 2c + sponsored: (70, 3, 2 · C)."""
        by_country = np.ascontiguousarray(self._context_thresholds.transpose(0, 3, 2, 1))
        rows = by_country.reshape(len(by_country), N_OUTCOMES - 1, -1)
        rows.setflags(write=False)
        return rows

    @functools.cached_property
    def _even_rows(self) -> np.ndarray:
        """2c of every country c, (C,) (:meth:`threshold_rows`)."""
        return 2 * np.arange(len(self.countries), dtype=np.intp)


def own_outcomes(actions: np.ndarray) -> np.ndarray:
    """Outcome index of the agents' votes (:data:`OUTCOMES`), (N,): YES/NO/ABSTAIN, else absent."""
    voted = (actions >= Action.YES) & (actions <= Action.ABSTAIN)
    return np.where(voted, actions - Action.YES, _ABSENT_OUTCOME)


def _issue_columns() -> list[str]:
    return [f"issue_{c}" for c in ISSUE_CODES]


def _share(hits: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Per-resolution share of hits among known entries, NaN where nothing is known, (R,)."""
    n_known = known.sum(axis=0)
    share = (hits & known).sum(axis=0) / np.maximum(n_known, 1)
    return np.where(n_known > 0, share, np.nan)
