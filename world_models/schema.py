"""What a world model predicts of the next observation: copied, classified or regressed parts.

:meth:`StateSchema.fit` splits the dimensions, from the env family's
:class:`~assembly_gym.core.state.StateDeclaration` and the training transitions, into copied
dimensions, one-hot parts, binned vote-share and share parts (bin edges and within-bin
values at quantiles of the training values), Gaussian dimensions and a ``done`` head; see
docs/world_models.md, section "What is predicted", for the table and the outcome rule.

Sampling draws every class by the inverse CDF from one ``rng.random((N, k))`` per batch
(:attr:`StateSchema.n_uniforms`), a few more only for tallies redrawn to agree with an
outcome, then the Gaussians' normals. :meth:`StateSchema.sample_row` draws one state with
the same random numbers in plain Python floats: at one row NumPy's per-call overhead would
cost more than the arithmetic.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from assembly_gym.core.state import OutcomeRule, StateDeclaration
from assembly_gym.core.transitions import Transitions

__all__ = [
    "BinCodec",
    "DONE",
    "GaussianPart",
    "OneHotPart",
    "STAGE",
    "ShareBinsPart",
    "StateSchema",
    "VoteSharesPart",
]

DONE = "done"
"""Name of the head that predicts the end of an episode."""
STAGE = "stage"
"""Name of the head that predicts the declared stage."""

_EMPTY = 1e-6  # a vote whose shares sum below this has not happened (all zero)
_CANDIDATES = 8  # tallies drawn per sample, at most, to agree with the sampled outcome
_BY_COLUMN = 64  # rows from which a cumulative sum runs column by column

Cumulative = Mapping[str, np.ndarray]
"""Head name → cumulative class probabilities of each row, (N, K) (a row's last: its total)."""
RowCumulative = Mapping[str, Sequence[float]]
"""Head name → cumulative class probabilities of one row, length K."""


def _log(p: np.ndarray) -> np.ndarray:
    return np.log(np.clip(p, 1e-12, None))


def cumulative(probs: np.ndarray) -> np.ndarray:
    """Cumulative sums along the rows of (N, K) probabilities, (N, K) float64."""
    if len(probs) < _BY_COLUMN:
        return np.cumsum(probs, axis=1)
    # A batch: column by column, the same sums in the same order (so the same classes),
    # several times faster than cumsum along short rows.
    cdf = np.array(probs, dtype=np.float64, order="F")
    for j in range(1, cdf.shape[1]):
        np.add(cdf[:, j - 1], cdf[:, j], out=cdf[:, j])
    return cdf


def _classes(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The class of each row by the inverse CDF: cumulative (N, K), uniforms (N,) → (N,)."""
    counts = np.count_nonzero(cdf <= (u * cdf[:, -1])[:, None], axis=1)
    return np.minimum(counts, cdf.shape[1] - 1)  # the last column counts only past the total


def _class(cdf: Sequence[float], u: float) -> int:
    """:func:`_classes` of one row."""
    return min(bisect.bisect_right(cdf, u * cdf[-1]), len(cdf) - 1)


@dataclass(frozen=True)
class BinCodec:
    """A share in [0, 1] as one of K bins, with the training values' quantiles in each bin.

    Attributes:
        edges: bin edges, shape (K + 1,), from 0 to 1; bin k is [edges[k], edges[k+1]).
        means: mean training value in each bin (its midpoint if empty), shape (K,).
        quantiles: training-value quantiles at evenly spaced levels in each bin, (K, Q).
    """

    edges: np.ndarray
    means: np.ndarray
    quantiles: np.ndarray

    @classmethod
    def fit(cls, values: np.ndarray, n_bins: int, n_quantiles: int = 17) -> BinCodec:
        """Edges at quantiles of ``values`` (merged where they coincide), within-bin quantiles."""
        values = np.asarray(values, dtype=np.float64)
        if len(values):
            inner = np.quantile(values, np.linspace(0, 1, n_bins + 1)[1:-1])
            inner = np.unique(inner[(inner > 0) & (inner < 1)])
        else:
            inner = np.linspace(0, 1, n_bins + 1)[1:-1]
        edges = np.r_[0.0, inner, 1.0]
        bins = np.searchsorted(edges[1:-1], values, side="right")
        levels = np.linspace(0, 1, n_quantiles)
        means, quantiles = [], []
        for k in range(len(edges) - 1):
            inside = values[bins == k]
            if len(inside):
                means.append(inside.mean())
                quantiles.append(np.quantile(inside, levels))
            else:
                means.append((edges[k] + edges[k + 1]) / 2)
                quantiles.append(np.linspace(edges[k], edges[k + 1], n_quantiles))
        return cls(edges, np.array(means), np.array(quantiles))

    @property
    def n_bins(self) -> int:
        """Number of bins K."""
        return len(self.means)

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Bin of each value, shape (N,) int64."""
        return np.searchsorted(self.edges[1:-1], values, side="right").astype(np.int64)

    def sample(self, bins: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A value inside each bin, drawn from the bin's training quantiles, shape (N,)."""
        return self.values(bins, rng.random(len(bins)))

    def values(self, bins: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The value inside each bin at uniform ``u`` (N,) of its quantile function, (N,)."""
        n_levels = self.quantiles.shape[1]
        position = u * (n_levels - 1)
        low = np.minimum(position.astype(np.int64), n_levels - 2)
        fraction = position - low
        below, above = self.quantiles[bins, low], self.quantiles[bins, low + 1]
        return below + fraction * (above - below)

    def value(self, k: int, u: float) -> float:
        """:meth:`values` of one bin ``k``, in Python floats (the same arithmetic)."""
        levels = self._levels[k]
        position = u * (len(levels) - 1)
        low = min(int(position), len(levels) - 2)
        fraction = position - low
        below = levels[low]
        return below + fraction * (levels[low + 1] - below)

    def encode_one(self, value: float) -> int:
        """:meth:`encode` of one value."""
        return bisect.bisect_right(self._inner, value)

    @functools.cached_property
    def _levels(self) -> list[list[float]]:
        return self.quantiles.tolist()

    @functools.cached_property
    def _inner(self) -> list[float]:
        return self.edges[1:-1].tolist()

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {key: getattr(self, key).tolist() for key in ("edges", "means", "quantiles")}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BinCodec:
        """Inverse of :meth:`to_dict`."""
        return cls(
            *(np.asarray(data[key], dtype=np.float64) for key in ("edges", "means", "quantiles"))
        )


@dataclass(frozen=True)
class OneHotPart:
    """Dimensions of which at most one is 1, as one categorical distribution.

    Class 0 is "all zero" when ``has_none``; class ``i + has_none`` sets ``dims[i]`` to 1.
    A single 0/1 dimension is a part with ``has_none`` and one dim: classes (0, 1).
    """

    name: str
    dims: tuple[int, ...]
    has_none: bool

    @property
    def heads(self) -> dict[str, int]:
        """Distribution name → number of classes."""
        return {self.name: len(self.dims) + self.has_none}

    def targets(self, values: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Class of each row of (N, d) observations and whether it is defined."""
        block = values[:, list(self.dims)] > 0.5
        hot = block.any(axis=1)
        classes = np.where(hot, block.argmax(axis=1) + self.has_none, 0).astype(np.int64)
        return {self.name: (classes, np.logical_or(hot, self.has_none))}

    def expectation(self, probs: Mapping[str, np.ndarray]) -> np.ndarray:
        """Expected values of the dims, shape (N, len(dims))."""
        return probs[self.name][:, int(self.has_none) :]

    n_uniforms = 1
    """Uniforms per sampled row: the class."""

    def draw(self, cdfs: Cumulative, u: np.ndarray) -> np.ndarray:
        """Sampled values of the dims from uniforms (N, 1), shape (N, len(dims))."""
        classes = _classes(cdfs[self.name], u[:, 0]) - int(self.has_none)
        out = np.zeros((len(classes), len(self.dims)))
        hot = classes >= 0
        out[np.flatnonzero(hot), classes[hot]] = 1.0
        return out

    def draw_row(self, out: list[float], cdfs: RowCumulative, u: Sequence[float], at: int) -> None:
        """:meth:`draw` of one row into the state ``out``, with the uniform ``u[at]``."""
        hot = _class(cdfs[self.name], u[at]) - self.has_none
        for j in self.dims:
            out[j] = 0.0
        if hot >= 0:
            out[self.dims[hot]] = 1.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"type": "one_hot", "name": self.name, "dims": list(self.dims),
                "has_none": self.has_none}  # fmt: skip


@dataclass(frozen=True)
class ShareBinsPart:
    """One share in [0, 1] (e.g. ``sponsor_share``) as a binned categorical ``<name>_bin``."""

    name: str
    dim: int
    codec: BinCodec

    @property
    def dims(self) -> tuple[int, ...]:
        """The one dimension."""
        return (self.dim,)

    @property
    def heads(self) -> dict[str, int]:
        """Distribution name → number of classes."""
        return {f"{self.name}_bin": self.codec.n_bins}

    def targets(self, values: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Bin of each row and whether it is defined (always)."""
        bins = self.codec.encode(values[:, self.dim])
        return {f"{self.name}_bin": (bins, np.ones(len(bins), dtype=bool))}

    def expectation(self, probs: Mapping[str, np.ndarray]) -> np.ndarray:
        """Expected share, shape (N, 1)."""
        return (probs[f"{self.name}_bin"] @ self.codec.means)[:, None]

    n_uniforms = 2
    """Uniforms per sampled row: the bin and the value inside it."""

    def draw(self, cdfs: Cumulative, u: np.ndarray) -> np.ndarray:
        """Sampled share from uniforms (N, 2), shape (N, 1)."""
        bins = _classes(cdfs[f"{self.name}_bin"], u[:, 0])
        return self.codec.values(bins, u[:, 1])[:, None]

    def draw_row(self, out: list[float], cdfs: RowCumulative, u: Sequence[float], at: int) -> None:
        """:meth:`draw` of one row into the state ``out``, with the uniforms ``u[at:at + 2]``."""
        out[self.dim] = self.codec.value(_class(cdfs[f"{self.name}_bin"], u[at]), u[at + 1])

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"type": "share_bins", "name": self.name, "dim": self.dim,
                "codec": self.codec.to_dict()}  # fmt: skip


@dataclass(frozen=True)
class VoteSharesPart:
    """Yes / no / abstain shares of a vote as two binned categoricals (stick-breaking).

    ``<prefix>_yes_bin``: class 0 = no vote yet (all shares 0), class 1 + k = yes share in
    bin k. ``<prefix>_no_rest_bin``: no / (no + abstain) in bins, defined when some voter did
    not vote yes. Then no = (1 − yes)·rest and abstain = (1 − yes)·(1 − rest).
    """

    prefix: str
    dims: tuple[int, int, int]
    yes: BinCodec
    rest: BinCodec

    @property
    def heads(self) -> dict[str, int]:
        """Distribution name → number of classes."""
        return {f"{self.prefix}_yes_bin": 1 + self.yes.n_bins,
                f"{self.prefix}_no_rest_bin": self.rest.n_bins}  # fmt: skip

    @staticmethod
    def split(block: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(voted, yes share, rest share) of (N, 3) shares; rest is NaN where undefined."""
        voted = block.sum(axis=1) > _EMPTY
        other = block[:, 1] + block[:, 2]
        rest = np.where(voted & (other > _EMPTY), block[:, 1] / np.maximum(other, _EMPTY), np.nan)
        return voted, block[:, 0], rest

    def yes_classes(self, values: np.ndarray) -> np.ndarray:
        """Class of the yes head of each row of (N, d) observations (0: no vote yet), (N,)."""
        block = values[:, list(self.dims)]
        return np.where(block.sum(axis=1) > _EMPTY, 1 + self.yes.encode(block[:, 0]), 0)

    def yes_class(self, obs: Sequence[float]) -> int:
        """:meth:`yes_classes` of one state (d,) as Python floats."""
        yes, no, abstain = (obs[j] for j in self.dims)
        return 1 + self.yes.encode_one(yes) if yes + no + abstain > _EMPTY else 0

    def targets(self, values: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Classes of both heads and where they are defined."""
        _, yes, rest = self.split(values[:, list(self.dims)])
        has_rest = ~np.isnan(rest)
        return {
            f"{self.prefix}_yes_bin": (self.yes_classes(values), np.ones(len(yes), dtype=bool)),
            f"{self.prefix}_no_rest_bin": (self.rest.encode(np.nan_to_num(rest)), has_rest),
        }  # fmt: skip

    def expectation(self, probs: Mapping[str, np.ndarray]) -> np.ndarray:
        """Expected shares, shape (N, 3) (heads independent given s and a)."""
        voted = probs[f"{self.prefix}_yes_bin"][:, 1:]
        yes = voted @ self.yes.means
        not_yes = voted @ (1.0 - self.yes.means)
        rest = probs[f"{self.prefix}_no_rest_bin"] @ self.rest.means
        return np.column_stack([yes, not_yes * rest, not_yes * (1.0 - rest)])

    n_uniforms = 4
    """Uniforms per sampled row: the yes bin, the yes share in it, the rest bin, the rest."""

    def draw(self, cdfs: Cumulative, u: np.ndarray) -> np.ndarray:
        """Sampled shares from uniforms (N, 4), shape (N, 3): all zero, or ≥ 0 summing to 1."""
        yes_class = _classes(cdfs[f"{self.prefix}_yes_bin"], u[:, 0])
        voted = yes_class > 0
        yes = np.where(voted, self.yes.values(np.maximum(yes_class - 1, 0), u[:, 1]), 0.0)
        rest = self.rest.values(_classes(cdfs[f"{self.prefix}_no_rest_bin"], u[:, 2]), u[:, 3])
        not_yes = np.where(voted, 1.0 - yes, 0.0)
        return np.column_stack([yes, not_yes * rest, not_yes * (1.0 - rest)])

    def tally(self, cdfs: RowCumulative, u: Sequence[float], at: int) -> tuple[float, float, float]:
        """:meth:`draw` of one row, with the uniforms ``u[at:at + 4]``: (yes, no, abstain)."""
        yes_class = _class(cdfs[f"{self.prefix}_yes_bin"], u[at])
        rest = self.rest.value(_class(cdfs[f"{self.prefix}_no_rest_bin"], u[at + 2]), u[at + 3])
        if yes_class == 0:
            return 0.0, 0.0, 0.0
        yes = self.yes.value(yes_class - 1, u[at + 1])
        return yes, (1.0 - yes) * rest, (1.0 - yes) * (1.0 - rest)

    def draw_row(self, out: list[float], cdfs: RowCumulative, u: Sequence[float], at: int) -> None:
        """:meth:`draw` of one row into the state ``out``, with the uniforms ``u[at:at + 4]``."""
        for j, value in zip(self.dims, self.tally(cdfs, u, at), strict=True):
            out[j] = value

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"type": "vote_shares", "prefix": self.prefix, "dims": list(self.dims),
                "yes": self.yes.to_dict(), "rest": self.rest.to_dict()}  # fmt: skip


@dataclass(frozen=True)
class GaussianPart:
    """Continuous dimensions as independent Gaussians, normalised by training statistics.

    Attributes:
        dims: the dimensions, shape (n,) int64.
        mean: training mean of s'_j, shape (n,).
        scale: training standard deviation of s'_j (at least 1e-3), shape (n,).
    """

    dims: np.ndarray
    mean: np.ndarray
    scale: np.ndarray

    def normalise(self, values: np.ndarray) -> np.ndarray:
        """Targets in normalised units, (N, d) → (N, n)."""
        return (values[:, self.dims] - self.mean) / self.scale

    def log_likelihood(self, values: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
        """Gaussian log density of the dims (nats, raw units), summed per row, shape (N,)."""
        z = (values[:, self.dims] - mean) / std
        return (-0.5 * z**2 - np.log(std) - 0.5 * np.log(2 * np.pi)).sum(axis=1)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {key: getattr(self, key).tolist() for key in ("dims", "mean", "scale")}


Part = OneHotPart | ShareBinsPart | VoteSharesPart


def _class_log_likelihood(
    part: Part, values: np.ndarray, probs: Mapping[str, np.ndarray]
) -> np.ndarray:
    """Log p of each row's class of every head of ``part``, summed (nats), shape (N,).

    A head whose class is undefined in a row (no rest bin without a vote) adds 0.
    """
    total = np.zeros(len(values))
    rows = np.arange(len(values))
    for name, (classes, valid) in part.targets(values).items():
        total += np.where(valid, _log(probs[name][rows, classes]), 0.0)
    return total


@dataclass(frozen=True)
class _Plan:
    """How a schema samples: the parts drawn independently and the outcome rule's parts.

    Attributes:
        independent: (part, first uniform column) of every part drawn on its own.
        n_uniforms: uniform columns drawn per row at first.
        rule: the declared outcome rule, or None when the schema lacks its parts.
        votes: the vote that decides the outcome, and ``votes_at`` its first column.
        outcome: the outcome part, and ``outcome_at`` its column.
        gaussian_dims: the Gaussian dimensions.
    """

    independent: tuple[tuple[Part, int], ...]
    n_uniforms: int
    rule: OutcomeRule | None
    votes: VoteSharesPart | None
    votes_at: int
    outcome: OneHotPart | None
    outcome_at: int
    gaussian_dims: tuple[int, ...]


@dataclass(frozen=True)
class StateSchema:
    """How each dimension of s' is predicted; shared by every model of :mod:`world_models`.

    Attributes:
        obs_names: the observation layout, length d.
        copied: dimensions copied from s, shape (n_copied,) int64.
        parts: the categorical parts (one-hot, binned shares, vote shares).
        gaussian: the continuous dimensions.
        low: lower observation bound per dimension, shape (d,).
        high: upper observation bound per dimension, shape (d,).
        declaration: the state declaration of the modelled env family.
    """

    obs_names: tuple[str, ...]
    copied: np.ndarray
    parts: tuple[Part, ...]
    gaussian: GaussianPart
    low: np.ndarray
    high: np.ndarray
    declaration: StateDeclaration

    @classmethod
    def fit(
        cls,
        transitions: Transitions,
        *,
        n_bins: int = 20,
        n_quantiles: int = 17,
    ) -> StateSchema:
        """Decide every dimension's treatment from the declaration and the training data.

        Args:
            transitions: training transitions with ``obs_names``, carrying the env family's
                state declaration.
            n_bins: bins of each binned share.
            n_quantiles: quantiles kept inside each bin.
        """
        names = transitions.obs_names
        if not names:
            raise ValueError("transitions need obs_names (the env's layout) to fit a schema")
        if len(transitions) == 0:
            raise ValueError("no transitions to fit on")
        declaration = transitions.declaration
        if n_bins < 1:
            raise ValueError(f"n_bins must be ≥ 1, got {n_bins}")
        obs, nxt = transitions.obs, transitions.next_obs
        index = {name: i for i, name in enumerate(names)}
        changes = (obs != nxt).any(axis=0)
        claimed: set[int] = set()
        parts: list[Part] = []

        def claim(group: Sequence[str]) -> list[int] | None:
            """The group's dims, claimed for a part; None if one is missing or none changes."""
            if not all(n in index for n in group):
                return None
            dims = [index[n] for n in group]
            if not changes[dims].any():
                return None
            claimed.update(dims)
            return dims

        one_hot = [(group.name, group.dims, group.has_none) for group in declaration.one_hot]
        if declaration.stages is not None:
            one_hot.insert(0, (STAGE, declaration.stages.dims, False))
        for name, group, has_none in one_hot:
            if (dims := claim(group)) is not None:
                parts.append(OneHotPart(name, tuple(dims), has_none))
        for vote in declaration.votes:
            if (dims := claim(vote.dims)) is not None:
                voted, yes, rest = VoteSharesPart.split(nxt[:, dims])
                rest = rest[~np.isnan(rest)]
                yes_no_abstain = cast("tuple[int, int, int]", tuple(dims))  # as vote.dims
                parts.append(VoteSharesPart(
                    vote.prefix, yes_no_abstain, BinCodec.fit(yes[voted], n_bins, n_quantiles),
                    BinCodec.fit(rest, n_bins, n_quantiles),
                ))  # fmt: skip
        for name in declaration.shares:
            if (dims := claim((name,))) is not None:
                codec = BinCodec.fit(nxt[:, dims[0]], n_bins, n_quantiles)
                parts.append(ShareBinsPart(name, dims[0], codec))
        free = [j for j in np.flatnonzero(changes) if j not in claimed]
        binary = [
            j for j in free if np.isin(obs[:, j], (0, 1)).all() and np.isin(nxt[:, j], (0, 1)).all()
        ]
        parts += [OneHotPart(names[j], (int(j),), True) for j in binary]
        continuous = np.array([j for j in free if j not in binary], dtype=np.int64)
        values = nxt[:, continuous].astype(np.float64)
        gaussian = GaussianPart(
            continuous,
            values.mean(axis=0) if len(continuous) else np.zeros(0),
            np.maximum(values.std(axis=0), 1e-3) if len(continuous) else np.zeros(0),
        )
        if transitions.bounds is not None:
            low, high = (np.asarray(b, dtype=np.float32) for b in transitions.bounds)
        else:
            low = np.minimum(obs.min(axis=0), nxt.min(axis=0)).astype(np.float32)
            high = np.maximum(obs.max(axis=0), nxt.max(axis=0)).astype(np.float32)
        copied = np.array(sorted(set(np.flatnonzero(~changes)) - claimed), dtype=np.int64)
        return cls(tuple(names), copied, tuple(parts), gaussian, low, high, declaration)

    # ------------------------------------------------------------------ layout

    @property
    def heads(self) -> dict[str, int]:
        """Every categorical distribution and its number of classes, ``done`` last."""
        sizes: dict[str, int] = {}
        for part in self.parts:
            sizes.update(part.heads)
        sizes[DONE] = 2
        return sizes

    @property
    def n_continuous(self) -> int:
        """Number of Gaussian dimensions."""
        return len(self.gaussian.dims)

    def part(self, head: str) -> Part | None:
        """The part that predicts the distribution named ``head``, or None."""
        return next((part for part in self.parts if head in part.heads), None)

    # ------------------------------------------------------------------ encoding

    def targets(
        self, next_obs: np.ndarray, dones: np.ndarray | None = None
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Class of every head for each row of s' (and ``done``) and where it is defined."""
        targets: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for part in self.parts:
            targets.update(part.targets(next_obs))
        if dones is not None:
            targets[DONE] = (np.asarray(dones, dtype=np.int64), np.ones(len(dones), dtype=bool))
        return targets

    def expectation(
        self, obs: np.ndarray, probs: Mapping[str, np.ndarray], mean: np.ndarray
    ) -> np.ndarray:
        """E[s'] given head probabilities and Gaussian means (raw units), shape (N, d)."""
        out = np.array(obs, dtype=np.float64)
        for part in self.parts:
            out[:, list(part.dims)] = part.expectation(probs)
        out[:, self.gaussian.dims] = mean
        return out

    def sample(
        self,
        obs: np.ndarray,
        probs: Mapping[str, np.ndarray],
        mean: np.ndarray,
        std: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """One s' per row, shape (N, d) float32, clipped to the observation bounds."""
        cdfs = {name: cumulative(probs[name]) for name in self.heads if name in probs}
        return self.sample_cumulative(obs, cdfs, mean, std, rng)

    def sample_cumulative(
        self, obs: np.ndarray, cdfs: Cumulative, mean: np.ndarray, std: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:  # fmt: skip
        """:meth:`sample` from cumulative class probabilities (N, K) per head (:func:`cumulative`).

        Draws ``rng.random((N, n_uniforms))``, then (with a declared outcome) a few more for
        the tallies redrawn to agree with it (:meth:`_consistent_outcome`), then the normals.
        """
        plan = self._plan
        # float32 at once: rounding, then clipping onto float32 bounds, is clipping, then rounding
        out = np.array(obs, dtype=np.float32)
        u = rng.random((len(out), plan.n_uniforms))
        for part, at in plan.independent:
            out[:, list(part.dims)] = part.draw(cdfs, u[:, at : at + part.n_uniforms])
        if plan.outcome is not None:
            self._consistent_outcome(out, cdfs, u, rng)
        out[:, self.gaussian.dims] = mean + std * rng.standard_normal(mean.shape)
        low, high = self._bounds_of(len(out))
        np.maximum(out, low, out=out)
        return np.minimum(out, high, out=out)

    def _bounds_of(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The bounds repeated for n rows, (n, d) each (those of the last n are kept).

        NumPy clips rows against a same-shape array several times faster than against a
        broadcast row.
        """
        tiled = self.__dict__.get("_tiled_bounds")
        if tiled is None or len(tiled[0]) != n:
            tiled = self.__dict__["_tiled_bounds"] = (
                np.tile(self.low, (n, 1)), np.tile(self.high, (n, 1))
            )  # fmt: skip
        return tiled

    def sample_row(
        self, obs: np.ndarray, cdfs: RowCumulative, mean: Sequence[float], std: Sequence[float],
        rng: np.random.Generator,
    ) -> np.ndarray:  # fmt: skip
        """One s' of one state (d,): what :meth:`sample_cumulative` draws for it as a batch.

        Args:
            obs: the state, shape (d,).
            cdfs: head name → cumulative class probabilities, length K.
            mean: Gaussian means (raw units), length n_continuous.
            std: Gaussian standard deviations (raw units), length n_continuous.
            rng: the generator.

        Returns:
            s', shape (d,) float32, clipped to the observation bounds.
        """
        plan = self._plan
        out = obs.tolist()
        u = rng.random(plan.n_uniforms).tolist()
        for part, at in plan.independent:
            part.draw_row(out, cdfs, u, at)
        if plan.outcome is not None and plan.votes is not None and plan.rule is not None:
            wanted, rule = _class(cdfs[plan.outcome.name], u[plan.outcome_at]) == 1, plan.rule
            vetoed = rule.vetoed(out, self.obs_names) if rule.veto else None
            tally = plan.votes.tally(cdfs, u, plan.votes_at)
            if rule.passed(tally[0], tally[1], vetoed=vetoed) != wanted:
                more = rng.random((_CANDIDATES - 1) * VoteSharesPart.n_uniforms).tolist()
                for at in range(0, len(more), VoteSharesPart.n_uniforms):
                    again = plan.votes.tally(cdfs, more, at)
                    if rule.passed(again[0], again[1], vetoed=vetoed) == wanted:
                        tally = again
                        break  # else none agrees: the first and the outcome it implies
            for j, value in zip(plan.votes.dims, tally, strict=True):
                out[j] = value
            out[plan.outcome.dims[0]] = float(rule.passed(tally[0], tally[1], vetoed=vetoed))
        if len(mean):
            normals = rng.standard_normal(len(mean)).tolist()
            for j, m, s, z in zip(plan.gaussian_dims, mean, std, normals, strict=True):
                out[j] = m + s * z
        state = np.array(out, dtype=np.float32)  # rounded, then clipped: as sample_cumulative
        np.maximum(state, self.low, out=state)
        return np.minimum(state, self.high, out=state)

    @property
    def n_uniforms(self) -> int:
        """Uniforms a sample draws per row at first (more only for redrawn tallies)."""
        return self._plan.n_uniforms

    @functools.cached_property
    def _plan(self) -> _Plan:
        """Which parts are drawn independently, which agree with the outcome; uniform columns."""
        rule = self.declaration.outcome
        votes: VoteSharesPart | None = None
        outcome: OneHotPart | None = None
        if rule is not None:
            vote_part, outcome_part = self.part(f"{rule.votes}_yes_bin"), self.part(rule.outcome)
            if isinstance(vote_part, VoteSharesPart) and isinstance(outcome_part, OneHotPart):
                votes, outcome = vote_part, outcome_part
        starts = np.cumsum([0] + [p.n_uniforms for p in self.parts]).tolist()
        first = dict(zip(map(id, self.parts), starts[:-1], strict=True))
        # the rule draws its vote's dims and a one-dim outcome's (a wider one is drawn too)
        replaced = [p is votes or (p is outcome and len(p.dims) == 1) for p in self.parts]
        return _Plan(
            independent=tuple(
                (p, first[id(p)]) for p, drop in zip(self.parts, replaced, strict=True) if not drop
            ),
            n_uniforms=starts[-1],
            rule=rule if outcome is not None else None,
            votes=votes,
            votes_at=first.get(id(votes), 0),
            outcome=outcome,
            outcome_at=first.get(id(outcome), 0),
            gaussian_dims=tuple(self.gaussian.dims.tolist()),
        )

    def _consistent_outcome(
        self, out: np.ndarray, cdfs: Cumulative, u: np.ndarray, rng: np.random.Generator
    ) -> None:
        """Draw the declared outcome, then a tally of its vote that agrees with it.

        Independent heads would sometimes sample, e.g., an adopted resolution with a losing
        tally. The outcome is drawn from its own head (trained on outcomes, so its rate is
        calibrated), then the tally from the tally heads given that outcome, by rejection:
        the first of :data:`_CANDIDATES` draws that agrees; when none does, the first draw
        and the outcome it implies (:meth:`~assembly_gym.core.state.OutcomeRule.passed`; a
        declared veto from the veto dimensions, drawn before).
        Only the rows whose first draw disagrees draw the other candidates, all at once
        (uniforms (n, candidates - 1, 4)).
        """
        plan = self._plan
        votes, outcome, rule = plan.votes, plan.outcome, plan.rule
        assert votes is not None and outcome is not None and rule is not None
        wanted = _classes(cdfs[outcome.name], u[:, plan.outcome_at]) == 1
        at = plan.votes_at
        tallies = votes.draw(cdfs, u[:, at : at + votes.n_uniforms])
        vetoed = rule.vetoed(out, self.obs_names)  # (N,): the veto dims are drawn already
        implied = rule.passed(tallies[:, 0], tallies[:, 1], vetoed=vetoed)
        todo = np.flatnonzero(implied != wanted)
        if todo.size:
            k = _CANDIDATES - 1
            u_more = rng.random((todo.size * k, votes.n_uniforms))  # row by row, k each
            repeated = {name: np.repeat(cdfs[name][todo], k, axis=0) for name in votes.heads}
            again = votes.draw(repeated, u_more).reshape(todo.size, k, 3)
            passed = rule.passed(again[..., 0], again[..., 1], vetoed=vetoed[todo, None])  # (n, k)
            agrees = passed == wanted[todo, None]
            hit, pick = agrees.any(axis=1), agrees.argmax(axis=1)  # the first that agrees
            rows, pick = todo[hit], pick[hit]
            tallies[rows], implied[rows] = again[hit, pick], passed[hit, pick]
        out[:, list(votes.dims)] = tallies
        out[:, outcome.dims[0]] = implied

    def log_likelihood(
        self, next_obs: np.ndarray, probs: Mapping[str, np.ndarray], mean: np.ndarray,
        std: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """Log-likelihood of each row of s' in nats, shape (N,).

        Categorical parts count as class probabilities (binned shares: the probability of
        the bin), Gaussian dimensions as densities. Copied dimensions and ``done`` are not
        part of it.
        """
        total = self.gaussian.log_likelihood(next_obs, mean, std)
        for part in self.parts:
            total = total + _class_log_likelihood(part, next_obs, probs)
        return total

    # ------------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {
            "obs_names": list(self.obs_names), "copied": self.copied.tolist(),
            "parts": [part.to_dict() for part in self.parts],
            "gaussian": self.gaussian.to_dict(),
            "low": self.low.tolist(), "high": self.high.tolist(),
            "declaration": self.declaration.to_dict(),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StateSchema:
        """Inverse of :meth:`to_dict`."""
        parts: list[Part] = []
        for item in data["parts"]:
            if item["type"] == "one_hot":
                parts.append(OneHotPart(item["name"], tuple(item["dims"]), bool(item["has_none"])))
            elif item["type"] == "share_bins":
                parts.append(
                    ShareBinsPart(item["name"], int(item["dim"]), BinCodec.from_dict(item["codec"]))
                )
            elif item["type"] == "vote_shares":
                parts.append(VoteSharesPart(
                    item["prefix"], tuple(item["dims"]), BinCodec.from_dict(item["yes"]),
                    BinCodec.from_dict(item["rest"]),
                ))  # fmt: skip
            else:
                raise ValueError(f"unknown schema part {item['type']!r}")
        gaussian = data["gaussian"]
        return cls(
            tuple(data["obs_names"]), np.asarray(data["copied"], dtype=np.int64), tuple(parts),
            GaussianPart(np.asarray(gaussian["dims"], dtype=np.int64),
                         np.asarray(gaussian["mean"], dtype=np.float64),
                         np.asarray(gaussian["scale"], dtype=np.float64)),
            np.asarray(data["low"], dtype=np.float32), np.asarray(data["high"], dtype=np.float32),
            StateDeclaration.from_dict(data["declaration"]),
        )  # fmt: skip
