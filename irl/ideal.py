"""Dynamic ideal points as a reward kind: each country a position drifting by session.

Country c in session t stands at x_ct (one to three dimensions); roll call j cuts through
the space with intercept a_j, direction b_j and abstention level κ_j, and the country's own
abstention level γ_ct drifts with it. Its rewards are r(yes) = η/2, r(no) = −η/2,
r(abstain) = κ_j + γ_ct with η = a_j + b_j · x_ct, and its vote their softmax: MaxEnt IRL
of an ordinal (adjacent-category) spatial vote, fitted by MAP with a random walk between
sessions (:mod:`assembly_gym.irl.spatial`, docs/irl.md, "Ideal points").

Identification, as the field fixes it: the scale by the N(0, 1) prior on each country's first
position, the rotation by the principal axes of all positions (x1 spreads the countries
most), and each axis's sign by a reference country (default the United States) standing on
its positive side.

As a reward on new roll calls (``logits``, the env ``reward_fn`` s, forecasts), a roll call
is read through its nearest training roll calls by issue codes and text: its policy is the
average of the policies under their cuts, each country standing where it stood in the roll
call's year (after the training sessions: its last position, the random walk's forecast).

Example:
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> from assembly_gym.irl.rollcall import fit_reward_model
    >>> data = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=3)).data
    >>> model = fit_reward_model(data, kind="ideal", dims=1)
    >>> model.positions.shape, list(model.position_table().columns[:5])
    ((6, 3, 1), ['country', 'country_code', 'session', 'x1', 'x1_lo'])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import log_softmax, logsumexp

from assembly_gym.core.artifact import Artifact
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import (
    arrays_from_bytes,
    arrays_to_bytes,
    checked_field,
    dataclass_from_dict,
)
from assembly_gym.envs.legislative.countries import default_country_table
from assembly_gym.envs.legislative.data import ISSUE_CODES
from assembly_gym.irl.base import Z95, Decisions, RewardModel
from assembly_gym.irl.spatial import SpatialVotes, fit_spatial, position_errors, vote_logits

__all__ = ["DEFAULT_DIMS", "DEFAULT_WALK", "IDEAL_FILE", "NEIGHBOURS", "POSITIONS_FILE",
           "IdealPointModel", "IdealSettings"]  # fmt: skip

DEFAULT_DIMS = 3
"""Dimensions of the default fit (chosen on validation votes, docs/irl.md)."""
DEFAULT_WALK = 0.5
"""The random walk's step standard deviation per session (chosen on validation votes)."""
NEIGHBOURS = 25
"""How many nearest training roll calls a new roll call is read through (chosen on validation
sessions: fit ≤ 55, scored 56–60; docs/irl.md)."""
IDEAL_FILE = "ideal.npz"
"""The fitted arrays of a saved ideal-point reward."""
POSITIONS_FILE = "ideal_points.csv"
"""The positions with 95% intervals, one row per (country, session with votes)."""
_REFERENCE = "United States"
_DESCRIBING = (*(f"issue_{code}" for code in ISSUE_CODES), "important", "amend", "para")
_EXACT = 1 - 1e-6
"""Cosine similarity of a roll call to itself (its keys are stored as float32 observations)."""


def _item_columns(obs_names: tuple[str, ...]) -> np.ndarray:
    """The inputs that describe a roll call itself (issues, flags, text or topics).

    Not ``issue_yes`` / ``issue_no`` / ``issue_abstain``: those are the voter's own history.
    """
    return np.array([i for i, name in enumerate(obs_names)
                      if name.startswith(("text_", "topic")) or name in _DESCRIBING],
                     dtype=np.int64)  # fmt: skip


def _unit_rows(values: np.ndarray) -> np.ndarray:
    return values / np.maximum(np.linalg.norm(values, axis=1, keepdims=True), 1e-12)


@dataclass(frozen=True)
class IdealSettings:
    """How the ideal points are fitted.

    Raises:
        ValueError: a setting out of its range.
    """

    dims: int = DEFAULT_DIMS
    """D, one to three dimensions."""
    walk: float = DEFAULT_WALK
    """The random walk's step standard deviation per session, > 0."""
    max_iter: int = 3000
    """The most L-BFGS iterations (the real votes' fits converge in about 1,000 to 1,400)."""
    reference: str = _REFERENCE
    """The country on the positive side of every axis (where absent: the one with most votes)."""

    def __post_init__(self) -> None:
        if not 1 <= self.dims <= 3:
            raise ValueError(f"dims must be 1, 2 or 3, got {self.dims}")
        if self.walk <= 0 or self.max_iter < 0:
            raise ValueError(f"need walk > 0 and max_iter ≥ 0, got {self.walk}, {self.max_iter}")


@dataclass(frozen=True)
class IdealPointModel(RewardModel):
    """Every country's position per session and every training roll call's cut.

    Attributes:
        sessions: the fitted sessions, (T,) int64, increasing.
        positions: x_ct, (C, T, D); NaN before a country's first and after its last vote.
        position_se: their Laplace standard errors, (C, T, D).
        abstention: γ_ct, each country's own abstention level, (C, T).
        voted: whether the country voted in the session, (C, T) bool.
        rcids: the training roll calls, (J,) int64.
        a: their intercepts, (J,); b: their directions, (J, D); kappa: abstention, (J,).
        item_session: each roll call's session, (J,) int64.
        item_keys: each roll call's description (issue codes, flags, text), unit rows (J, k).
        session_start: each session's first ``year`` input, (T,).
        reference: the country on the positive side of every axis.
    """

    kind = "ideal"

    sessions: np.ndarray
    positions: np.ndarray
    position_se: np.ndarray
    abstention: np.ndarray
    voted: np.ndarray
    rcids: np.ndarray
    a: np.ndarray
    b: np.ndarray
    kappa: np.ndarray
    item_session: np.ndarray
    item_keys: np.ndarray
    session_start: np.ndarray
    reference: str = _REFERENCE

    @property
    def dims(self) -> int:
        """D, the dimensions of the space."""
        return int(self.positions.shape[2])

    @classmethod
    def fit(
        cls, decisions: Decisions, *, progress: bool = False, **settings: Any
    ) -> IdealPointModel:
        """MAP positions, roll-call cuts and their intervals from every country's votes.

        Args:
            decisions: one-step votes with their roll calls and sessions (``rcids``,
                ``sessions``: :func:`~assembly_gym.irl.rollcall.fit_reward_model` sets them).
            progress: unused (L-BFGS runs as one call).
            **settings: the fields of :class:`IdealSettings` (its defaults otherwise).

        Raises:
            ValueError: decisions without roll calls or sessions, actions other than yes,
                no and abstain, or unknown settings or out of range.
        """
        chosen = dataclass_from_dict(IdealSettings, settings, what="ideal-point")
        dims, reference = chosen.dims, chosen.reference
        if decisions.rcids is None or decisions.sessions is None:
            raise ValueError("ideal points need each vote's roll call and session: fit them "
                             "with fit_reward_model(data, kind='ideal')")  # fmt: skip
        if decisions.action_names != ("yes", "no", "abstain"):
            found = decisions.action_names
            raise ValueError(f"ideal points read yes, no, abstain votes, not {found}")
        rcids, items = np.unique(decisions.rcids, return_inverse=True)
        sessions, periods = np.unique(decisions.sessions, return_inverse=True)
        votes = SpatialVotes(decisions.rows, items, periods, decisions.actions,
                             (len(decisions.countries), len(rcids), len(sessions)))  # fmt: skip
        anchor = (decisions.countries.index(reference) if reference in decisions.countries
                  else int(np.bincount(decisions.rows).argmax()))  # fmt: skip
        spatial = fit_spatial(votes, dims=dims, walk=chosen.walk, max_iter=chosen.max_iter,
                              reference=anchor)  # fmt: skip
        first = np.unique(items, return_index=True)[1]
        keys = decisions.obs[first][:, _item_columns(decisions.obs_names)]
        year = decisions.obs[:, decisions.obs_names.index("year")]
        start = np.full(len(sessions), np.inf)
        np.minimum.at(start, periods, year)
        voted = np.zeros((len(decisions.countries), len(sessions)), dtype=bool)
        voted[decisions.rows, periods] = True
        return cls(
            decisions.countries, decisions.action_names, decisions.obs_names,
            sessions=sessions, positions=spatial.positions,
            position_se=position_errors(spatial, votes), abstention=spatial.abstention,
            voted=voted, rcids=rcids, a=spatial.a, b=spatial.b, kappa=spatial.kappa,
            item_session=sessions[periods[first]], item_keys=_unit_rows(keys),
            session_start=start, reference=decisions.countries[anchor],
            info={**asdict(chosen), "iterations": spatial.iterations,
                  "converged": spatial.converged},
        )  # fmt: skip

    # ------------------------------------------------------------------ the reward

    def items_of(self, rcids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of :attr:`rcids` of roll-call ids (N,), and which ids the model was fitted on.

        Returns:
            Items (N,) (valid where known) and known (N,) bool.
        """
        rcids = np.asarray(rcids, dtype=np.int64)
        items = np.minimum(np.searchsorted(self.rcids, rcids), len(self.rcids) - 1)
        return items, self.rcids[items] == rcids

    def item_logits(self, rows: np.ndarray, items: np.ndarray,
                    periods: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """Rewards on training roll calls, (N, 3).

        Args:
            rows: country rows (N,).
            items: roll calls (N,), rows of :attr:`rcids` (:meth:`items_of`).
            periods: sessions (N,), rows of :attr:`sessions` (default: each roll call's). A
                country stands where it last stood there (or first, before its first vote).
        """
        if periods is None:
            periods = np.searchsorted(self.sessions, self.item_session[items])
        return self._cut_logits(items, *self._standing(rows, periods))

    def _cut_logits(self, items: np.ndarray, x: np.ndarray, gamma: np.ndarray) -> np.ndarray:
        """Rewards under roll calls' cuts (N,) of countries at x (N, D), γ (N,) → (N, 3)."""
        eta = self.a[items] + np.einsum("nd,nd->n", self.b[items], x)
        return vote_logits(eta, self.kappa[items] + gamma)

    def logits(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """Rewards on any roll call, (N, d) → (N, 3): log Σ_n w_n π_n over its neighbours.

        π_n is the policy under the cut of one of its :data:`NEIGHBOURS` nearest training
        roll calls (by issue codes, flags and text; w_n ∝ similarity), so its policy is their
        average, as the mixture kind's is its members'. A training roll call (the same
        description) gets its own cut.
        """
        obs = np.atleast_2d(obs)
        keys, inverse = np.unique(obs[:, _item_columns(self.obs_names)], axis=0,
                                  return_inverse=True)  # fmt: skip
        inverse = inverse.ravel()
        similarity = _unit_rows(keys) @ self.item_keys.T  # (K, J)
        k = min(NEIGHBOURS, len(self.rcids))
        nearest = np.argpartition(-similarity, k - 1, axis=1)[:, :k]
        weights = np.maximum(np.take_along_axis(similarity, nearest, axis=1), 0) + 1e-9
        exact = weights > _EXACT  # a training roll call: its own cut (ties: theirs)
        weights = np.where(exact.any(axis=1, keepdims=True), exact, weights)
        weights /= weights.sum(axis=1, keepdims=True)
        periods = self._period_of_year(obs[:, self.obs_names.index("year")])
        x, gamma = self._standing(np.asarray(rows), periods)  # once, for every neighbour
        with np.errstate(divide="ignore"):  # log 0: the other neighbours of an exact match
            log_weights = np.log(weights)
        parts = [
            log_weights[inverse, i, None] + log_softmax(
                self._cut_logits(nearest[inverse, i], x, gamma), axis=1)
            for i in range(k)
        ]  # fmt: skip
        return logsumexp(np.stack(parts), axis=0)

    def _period_of_year(self, year: np.ndarray) -> np.ndarray:
        """The latest session that began by this ``year`` input (after the last: the last)."""
        found = np.searchsorted(self.session_start, year, side="right") - 1
        return np.clip(found, 0, len(self.sessions) - 1)

    def _standing(self, rows: np.ndarray, periods: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions (N, D) and abstention levels (N,), filled from the nearest session."""
        filled = _filled(np.concatenate([self.positions, self.abstention[..., None]], axis=2))
        both = filled[rows, periods]
        return both[:, : self.dims], both[:, self.dims]

    def shifted(self, country: str, delta: np.ndarray) -> IdealPointModel:
        """The model with one country moved by ``delta`` (D,) in every session."""
        positions = self.positions.copy()
        positions[self.country_index(country)] += np.asarray(delta, dtype=np.float64)
        return replace(self, positions=positions)

    def profile(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """Each country's position in its last session, (C, D), named x1 … xD."""
        filled = _filled(self.positions)
        return filled[:, -1], tuple(f"x{k + 1}" for k in range(self.dims))

    # ------------------------------------------------------------------ tables and saving

    def position_table(self) -> pd.DataFrame:
        """One row per (country, session it voted in): x1 … xD and their 95% intervals.

        Columns ``country``, ``country_code`` (ISO-2, empty for the few historical states
        without one), ``session``, then per axis k ``xk``, ``xk_lo``, ``xk_hi``.
        """
        country, period = np.nonzero(self.voted)
        codes = _country_codes(self)
        table = pd.DataFrame({"country": np.array(self.countries)[country],
                              "country_code": np.array(codes)[country],
                              "session": self.sessions[period]})  # fmt: skip
        for k in range(self.dims):
            x, se = self.positions[country, period, k], self.position_se[country, period, k]
            table[f"x{k + 1}"] = x
            table[f"x{k + 1}_lo"], table[f"x{k + 1}_hi"] = x - Z95 * se, x + Z95 * se
        return table

    def _parts(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        arrays = {name: getattr(self, name) for name in _ARRAYS}
        text = self.position_table().to_csv(index=False, float_format="%.4f")
        payload = {"dims": self.dims, "n_sessions": len(self.sessions),
                   "n_roll_calls": len(self.rcids), "n_keys": self.item_keys.shape[1],
                   "reference": self.reference}  # fmt: skip
        return payload, {IDEAL_FILE: arrays_to_bytes(arrays, compress=True),
                         POSITIONS_FILE: text.encode()}  # fmt: skip

    @classmethod
    def _from_parts(cls, common: dict[str, Any], saved: Artifact, source: Path) -> IdealPointModel:
        manifest = saved.manifest
        dims = checked_field(manifest, "dims", int, source)
        sizes = [checked_field(manifest, key, int, source)
                 for key in ("n_sessions", "n_roll_calls", "n_keys")]  # fmt: skip
        if not 1 <= dims <= 3 or min(sizes) < 1:
            raise CheckpointError(f"{source}: dims {dims} or sizes {sizes} out of range")
        path = saved.folder / IDEAL_FILE
        if IDEAL_FILE not in saved.files:
            raise CheckpointError(f"{path}: missing (the arrays of an ideal-point reward)")
        n, (t, j, k) = len(common["countries"]), sizes
        expected = {"sessions": ((t,), np.int64), "positions": ((n, t, dims), np.float64),
                    "position_se": ((n, t, dims), np.float64), "abstention": ((n, t), np.float64),
                    "voted": ((n, t), np.bool_), "rcids": ((j,), np.int64), "a": ((j,), np.float64),
                    "b": ((j, dims), np.float64), "kappa": ((j,), np.float64),
                    "item_session": ((j,), np.int64), "item_keys": ((j, k), np.float64),
                    "session_start": ((t,), np.float64)}  # fmt: skip
        arrays = arrays_from_bytes(saved.files[IDEAL_FILE], path)
        if sorted(arrays) != sorted(expected):
            raise CheckpointError(f"{path}: arrays {sorted(arrays)}, expected {sorted(expected)}")
        for name, (shape, dtype) in expected.items():
            if arrays[name].shape != shape or arrays[name].dtype != dtype:
                found, wanted = f"{arrays[name].dtype} {arrays[name].shape}", np.dtype(dtype)
                raise CheckpointError(f"{path}: {name!r} is {found}, expected {wanted} {shape}")
        fields: dict[str, Any] = {**arrays, "reference": checked_field(manifest, "reference", str,
                                                                        source)}  # fmt: skip
        return cls(**fields, **common)


_ARRAYS = ("sessions", "positions", "position_se", "abstention", "voted", "rcids", "a", "b",
           "kappa", "item_session", "item_keys", "session_start")  # fmt: skip


def _filled(values: np.ndarray) -> np.ndarray:
    """(C, T, k) with each NaN run replaced by the nearest session's values of its country."""
    valid = ~np.isnan(values[..., 0])
    t = np.arange(values.shape[1])
    last = np.maximum.accumulate(np.where(valid, t, -1), axis=1)
    following = np.minimum.accumulate(np.where(valid, t, len(t))[:, ::-1], axis=1)[:, ::-1]
    source = np.where(last >= 0, last, np.minimum(following, len(t) - 1))
    return np.take_along_axis(values, source[..., None], axis=1)


def _country_codes(model: RewardModel) -> list[str]:
    table = default_country_table()
    if model.history is not None:
        by_name = {c.name: c.iso2 or "" for c in model.history.countries}
        return [by_name.get(name, "") for name in model.countries]
    return [(found.iso2 or "") if (found := table.find(name)) else "" for name in model.countries]
