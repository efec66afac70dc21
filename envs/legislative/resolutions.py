"""Resolution records: who sponsored each resolution and how all voted in committee and plenary.

This is the data behind ``Deliberation-v0``. Real records come from two sources that cover
different stages: roll calls (plenary votes, :func:`records_from_roll_calls`) and UN
documents (sponsors from draft records, committee and plenary votes where a document lists
them, :func:`records_from_trajectories`). A stage a source does not cover is
:data:`NOT_RECORDED`, which is different from :data:`~assembly_gym.envs.legislative.data.ABSENT`
("did not vote"). :func:`generate_resolution_records` simulates all three stages for the
synthetic assembly.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.special import softmax

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import Country, default_country_table
from assembly_gym.envs.legislative.data.schema import (
    ABSENT,
    ISSUE_CODES,
    ROLL_CALL_COLUMNS,
    RollCallData,
    Vote,
)
from assembly_gym.envs.legislative.observation import content_features
from assembly_gym.envs.legislative.synthetic import SyntheticAssembly

__all__ = [
    "NOT_RECORDED",
    "ResolutionRecords",
    "generate_resolution_records",
    "records_from_roll_calls",
    "records_from_trajectories",
]

NOT_RECORDED = -2
"""Code for a stage the source does not record (sponsorship or a vote)."""


@dataclass(frozen=True)
class ResolutionRecords:
    """Sponsorship and votes of countries on resolutions, with the resolutions' attributes.

    Attributes:
        countries: one per row of the matrices, shape (C,).
        resolutions: attributes in the roll-call layout (:data:`ROLL_CALL_COLUMNS`; ``rcid``
            is the resolution's id), time order, index 0..R-1.
        sponsors: shape (C, R) int8: 1 sponsored, 0 did not, :data:`NOT_RECORDED`.
        committee: shape (C, R) int8: a :class:`Vote`, ``ABSENT`` or :data:`NOT_RECORDED`.
        plenary: shape (C, R) int8: a :class:`Vote`, ``ABSENT`` or :data:`NOT_RECORDED`.
        source: where the records came from.
    """

    countries: tuple[Country, ...]
    resolutions: pd.DataFrame
    sponsors: np.ndarray
    committee: np.ndarray
    plenary: np.ndarray
    source: str = "in-memory"

    def __post_init__(self) -> None:
        shape = (len(self.countries), len(self.resolutions))
        for name in ("sponsors", "committee", "plenary"):
            matrix = getattr(self, name)
            if matrix.shape != shape or matrix.dtype != np.int8:
                raise DataError(
                    self.source,
                    f"{name} must be int8 of shape {shape}, got {matrix.dtype} {matrix.shape}",
                )
        if len(self.resolutions) == 0:
            raise DataError(self.source, "no resolutions")
        if not np.isin(self.sponsors, (0, 1, NOT_RECORDED)).all():
            raise DataError(self.source, "sponsors hold codes other than 0, 1, NOT_RECORDED")
        for name in ("committee", "plenary"):
            if not np.isin(getattr(self, name), (*Vote, ABSENT, NOT_RECORDED)).all():
                raise DataError(self.source, f"{name} holds codes outside the vote codes")

    @property
    def n_countries(self) -> int:
        """Number of countries C."""
        return len(self.countries)

    @property
    def n_resolutions(self) -> int:
        """Number of resolutions R."""
        return len(self.resolutions)

    @functools.cached_property
    def country_names(self) -> tuple[str, ...]:
        """Canonical names in row order."""
        return tuple(c.name for c in self.countries)

    def plenary_history(self) -> RollCallData:
        """The plenary votes as roll-call data (not recorded = did not vote)."""
        votes = np.where(self.plenary == NOT_RECORDED, ABSENT, self.plenary).astype(np.int8)
        return RollCallData(self.countries, self.resolutions, votes, self.source)

    def country_index(self, name: str) -> int:
        """Row of a country (any name or code); :class:`DataError` when unknown."""
        if name in self._rows:
            return self._rows[name]
        country = default_country_table().find(name)
        if country is not None and country.name in self._rows:
            return self._rows[country.name]
        raise DataError(self.source, f"unknown country {name!r}", field="country")

    @functools.cached_property
    def _rows(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.country_names)}

    def resolution_index(self, key: int | str) -> int:
        """Column of a resolution given its id (``rcid``) or symbol."""
        column = self.resolutions["rcid"] if isinstance(key, (int, np.integer)) else None
        matches = np.flatnonzero(
            (column == key) if column is not None else (self.resolutions["symbol"] == key)
        )
        if len(matches) == 0:
            raise DataError(self.source, f"unknown resolution {key!r}", field="resolution")
        return int(matches[0])

    def select(self, columns: np.ndarray) -> ResolutionRecords:
        """Only the given resolution columns."""
        return replace(
            self,
            resolutions=self.resolutions.iloc[columns].reset_index(drop=True),
            sponsors=self.sponsors[:, columns],
            committee=self.committee[:, columns],
            plenary=self.plenary[:, columns],
        )


def records_from_roll_calls(data: RollCallData) -> ResolutionRecords:
    """Votes on whole resolutions (not amendments or paragraphs) as plenary records only."""
    table = data.roll_calls
    whole = ~((table["amend"] == 1) | (table["para"] == 1)).to_numpy()
    if not whole.any():
        raise DataError(data.source, "no votes on whole resolutions")
    columns = np.flatnonzero(whole)
    unknown = np.full((data.n_countries, len(columns)), NOT_RECORDED, dtype=np.int8)
    return ResolutionRecords(
        data.countries,
        table.iloc[columns].reset_index(drop=True),
        unknown,
        unknown.copy(),
        np.ascontiguousarray(data.votes[:, columns]),
        source=data.source,
    )


def records_from_trajectories(
    trajectories: Sequence, countries: Sequence[Country] | None = None
) -> ResolutionRecords:
    """Records of UN document trajectories (see :mod:`assembly_gym.envs.legislative.documents`).

    A trajectory with a sponsor list records sponsorship for every country (listed = 1,
    others 0); a recorded vote with country lists records that stage (countries in no list
    did not vote); a tally without lists leaves the stage :data:`NOT_RECORDED`.

    Args:
        trajectories: :class:`~assembly_gym.envs.legislative.documents.Trajectory` objects.
        countries: rows of the records (default: every country named in the trajectories).
    """
    if not trajectories:
        raise DataError("trajectories", "no trajectories given")
    table = default_country_table()
    if countries is None:
        named: dict[str, Country] = {}
        for trajectory in trajectories:
            for name in _names_in(trajectory):
                named.setdefault(name, table.get(name))
        countries = tuple(named.values())
    countries = tuple(countries)
    row = {c.name: i for i, c in enumerate(countries)}
    shape = (len(countries), len(trajectories))
    sponsors = np.full(shape, NOT_RECORDED, dtype=np.int8)
    committee = np.full(shape, NOT_RECORDED, dtype=np.int8)
    plenary = np.full(shape, NOT_RECORDED, dtype=np.int8)
    rows = []
    for column, trajectory in enumerate(trajectories):
        listed = (*trajectory.sponsors, *trajectory.additional_sponsors)
        if listed:
            sponsors[:, column] = 0
            sponsors[[row[n] for n in listed if n in row], column] = 1
        for matrix, vote in (
            (committee, trajectory.committee_vote),
            (plenary, trajectory.plenary_vote),
        ):
            if vote is not None and (vote.in_favour or vote.against or vote.abstaining):
                matrix[:, column] = ABSENT
                for code, names in ((Vote.YES, vote.in_favour), (Vote.NO, vote.against),
                                    (Vote.ABSTAIN, vote.abstaining)):  # fmt: skip
                    matrix[[row[n] for n in names if n in row], column] = code
        rows.append(_trajectory_attributes(trajectory, column))
    return ResolutionRecords(
        countries, pd.DataFrame(rows)[list(ROLL_CALL_COLUMNS)], sponsors, committee, plenary,
        source="UN documents",
    )  # fmt: skip


def _names_in(trajectory) -> list[str]:
    names = [*trajectory.sponsors, *trajectory.additional_sponsors]
    for vote in (trajectory.committee_vote, trajectory.plenary_vote):
        if vote is not None:
            names += [*vote.in_favour, *vote.against, *vote.abstaining]
    return names


def _trajectory_attributes(trajectory, column: int) -> dict:
    text = " ".join(filter(None, [trajectory.title, *trajectory.subjects])).upper()
    date = pd.to_datetime(trajectory.date, errors="coerce")
    session = trajectory.session
    if session is None and not pd.isna(date):
        session = int(date.year - 1945 - (date.month < 9))
    row = {
        "rcid": column,
        "session": int(session or 0),
        "date": date if not pd.isna(date) else pd.Timestamp(1945 + int(session or 0), 9, 15),
        "symbol": trajectory.symbol,
        "important": np.nan,
        "amend": np.nan,
        "para": np.nan,
        "short": trajectory.title or "",
        "descr": (trajectory.draft_text or trajectory.title or "")[:2000],
    }
    keywords = {"me": "PALESTIN", "nu": "NUCLEAR", "di": "DISARMAMENT", "hr": "HUMAN RIGHTS",
                "co": "COLONIAL", "ec": "DEVELOPMENT"}  # fmt: skip
    for code in ISSUE_CODES:
        row[f"issue_{code}"] = keywords[code] in text
    return row


def generate_resolution_records(
    assembly: SyntheticAssembly,
    *,
    loyalty: float = 3.0,
    bandwagon: float = 4.0,
    sponsor_threshold: float = 3.5,
    seed: int | None = None,
) -> ResolutionRecords:
    """Simulate sponsorship, committee and plenary votes on the assembly's roll calls.

    A country sponsors with probability σ(m − ``sponsor_threshold``), where m is its planted
    preference margin for "yes" (its yes logit minus the log-sum-exp of the others). It votes
    by the softmax of its planted logits plus ``loyalty`` on "yes" if it sponsored, plus
    ``bandwagon`` × (sponsor share − 0.15) in committee and × (committee yes share − 0.7) in
    plenary on "yes". Absences follow the assembly's absence rate.

    Args:
        assembly: the synthetic assembly whose roll calls become resolutions.
        loyalty: extra "yes" logit of a country that sponsored.
        bandwagon: extra "yes" logit per unit of support already shown.
        sponsor_threshold: preference margin at which a country sponsors half the time.
        seed: seed of the simulation (default: the assembly's seed + 1).
    """
    rng = np.random.default_rng(assembly.config.seed + 1 if seed is None else seed)
    data = assembly.data
    content = content_features(data.roll_calls, assembly.config.features)
    augmented = np.column_stack([np.ones(len(content)), content])
    logits = np.einsum("cak,rk->cra", assembly.theta[:, :, : augmented.shape[1]], augmented)
    margin = logits[..., Vote.YES] - np.logaddexp(logits[..., Vote.NO], logits[..., Vote.ABSTAIN])
    sponsors = (rng.random(margin.shape) < 1 / (1 + np.exp(sponsor_threshold - margin))).astype(
        np.int8
    )
    share = sponsors.mean(axis=0)  # (R,)

    def votes(extra_yes: np.ndarray) -> np.ndarray:
        adjusted = logits.copy()
        adjusted[..., Vote.YES] += extra_yes
        probs = softmax(adjusted, axis=-1)
        draws = rng.random(probs.shape[:2])[..., None]
        cast = (draws > np.cumsum(probs, axis=-1)).sum(axis=-1).astype(np.int8)
        cast[rng.random(cast.shape) < assembly.config.absence_rate] = ABSENT
        return cast

    committee = votes(loyalty * sponsors + bandwagon * (share[None, :] - 0.15))
    voting = committee != ABSENT
    yes_share = ((committee == Vote.YES) & voting).sum(0) / np.maximum(voting.sum(0), 1)
    plenary = votes(loyalty * sponsors + bandwagon * (yes_share[None, :] - 0.7))
    return ResolutionRecords(
        data.countries, data.roll_calls, sponsors, committee, plenary,
        source=f"synthetic resolutions (seed {assembly.config.seed})",
    )  # fmt: skip
