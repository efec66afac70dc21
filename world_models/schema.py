"""What a world model predicts of the next observation: copied, classified or regressed parts.

The env family's :class:`~assembly_gym.core.state.StateDeclaration` says which dimensions
form a stage, a one-hot group, the shares of a vote or a single share, and which outcome a
vote decides; the training transitions say which dimensions change within an episode.
:meth:`StateSchema.fit` splits the dimensions into:

* **copied**: dimensions that never change within a training episode (the roll-call features
  of a resolution in ``Deliberation-v0``, and stages a source does not record): s'_j = s_j,
  exactly, never learned.
* **one-hot parts** (categorical): the declared stage one-hot (head ``stage``), each
  declared one-hot group (e.g. an own vote: yes / no / abstain or none yet), and every other
  changing dimension that only takes the values 0 and 1 in the data (e.g. ``adopted``,
  issue flags of the next roll call): 2 classes.
* **vote-share parts** (classification, not regression): the declared shares of a vote
  (yes / no / abstain) as two binned categoricals: the yes share in K bins plus a "no vote
  yet" class, and the no share of the non-yes votes, no / (no + abstain), in K bins
  (stick-breaking, so that sampled shares are ≥ 0 and sum to 1); each declared single share
  as one binned share. Bin edges are quantiles of the training values; a sampled share is
  drawn from the training values' quantiles inside its bin, so that point masses (unanimous
  votes, no sponsors) are reproduced.
* **Gaussian**: every other changing dimension, with mean and standard deviation in units
  normalised by the training mean and standard deviation; samples are clipped to the
  observation bounds.

A ``done`` head (2 classes) models the end of an episode, for envs without a stage.

Heads are independent given (s, a), except in sampling: a declared outcome is drawn first
and the tally of the vote that decides it then given it, so that they agree (the
declaration's :class:`~assembly_gym.core.state.OutcomeRule`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from assembly_gym.core.state import StateDeclaration
from assembly_gym.envs.declarations import declaration_for_layout
from assembly_gym.world_models.base import Transitions

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
_CANDIDATES = 8  # tallies drawn per sample to agree with the sampled outcome
_BY_COLUMN = 64  # rows from which a draw runs column by column


def _log(p: np.ndarray) -> np.ndarray:
    return np.log(np.clip(p, 1e-12, None))


def _draw(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One class per row of (N, K) probabilities, by the inverse CDF; shape (N,)."""
    n, k = len(probs), probs.shape[1]
    if n < _BY_COLUMN:
        cdf = np.cumsum(probs, axis=1)
        u = rng.random(n)[:, None] * cdf[:, -1:]
        return np.minimum((u >= cdf).sum(axis=1), k - 1)
    # A batch: column by column, the same sums in the same order (so the same classes),
    # several times faster than cumsum along short rows.
    cdf = np.array(probs, order="F")
    for j in range(1, k):
        np.add(cdf[:, j - 1], cdf[:, j], out=cdf[:, j])
    u = rng.random(n) * cdf[:, -1]
    classes = np.zeros(n, dtype=np.int64)
    for j in range(k - 1):  # the last column counts only where the minimum below clips it
        classes += u >= cdf[:, j]
    return classes


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
        n_levels = self.quantiles.shape[1]
        position = rng.random(len(bins)) * (n_levels - 1)
        low = np.minimum(position.astype(np.int64), n_levels - 2)
        fraction = position - low
        below, above = self.quantiles[bins, low], self.quantiles[bins, low + 1]
        return below + fraction * (above - below)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"edges": self.edges.tolist(), "means": self.means.tolist(),
                "quantiles": self.quantiles.tolist()}  # fmt: skip

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

    def sample(self, probs: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        """Sampled values of the dims, shape (N, len(dims))."""
        classes = _draw(probs[self.name], rng) - int(self.has_none)
        out = np.zeros((len(classes), len(self.dims)))
        hot = classes >= 0
        out[np.flatnonzero(hot), classes[hot]] = 1.0
        return out

    def log_likelihood(self, values: np.ndarray, probs: Mapping[str, np.ndarray]) -> np.ndarray:
        """Log p of each row's class (nats), shape (N,); 0 where the class is undefined."""
        classes, valid = self.targets(values)[self.name]
        return np.where(valid, _log(probs[self.name][np.arange(len(classes)), classes]), 0.0)

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

    def sample(self, probs: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        """Sampled share, shape (N, 1)."""
        return self.codec.sample(_draw(probs[f"{self.name}_bin"], rng), rng)[:, None]

    def log_likelihood(self, values: np.ndarray, probs: Mapping[str, np.ndarray]) -> np.ndarray:
        """Log p of each row's bin (nats), shape (N,)."""
        bins = self.codec.encode(values[:, self.dim])
        return _log(probs[f"{self.name}_bin"][np.arange(len(bins)), bins])

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

    def sample(self, probs: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        """Sampled shares, shape (N, 3): all zero, or non-negative and summing to 1."""
        yes_class = _draw(probs[f"{self.prefix}_yes_bin"], rng)
        voted = yes_class > 0
        yes = np.where(voted, self.yes.sample(np.maximum(yes_class - 1, 0), rng), 0.0)
        rest = self.rest.sample(_draw(probs[f"{self.prefix}_no_rest_bin"], rng), rng)
        not_yes = np.where(voted, 1.0 - yes, 0.0)
        return np.column_stack([yes, not_yes * rest, not_yes * (1.0 - rest)])

    def log_likelihood(self, values: np.ndarray, probs: Mapping[str, np.ndarray]) -> np.ndarray:
        """Log p of the yes class plus, where defined, of the rest bin (nats), shape (N,)."""
        total = np.zeros(len(values))
        rows = np.arange(len(values))
        for name, (classes, valid) in self.targets(values).items():
            total += np.where(valid, _log(probs[name][rows, classes]), 0.0)
        return total

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
        return {
            "dims": self.dims.tolist(),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
        }


Part = OneHotPart | ShareBinsPart | VoteSharesPart


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
        declaration: the state declaration of the env family the layout belongs to.
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
        declaration: StateDeclaration | None = None,
        n_bins: int = 20,
        n_quantiles: int = 17,
    ) -> StateSchema:
        """Decide every dimension's treatment from the declaration and the training data.

        Args:
            transitions: training transitions with ``obs_names``.
            declaration: the env family's state declaration; None: the one of the family
                the layout belongs to (see :mod:`assembly_gym.envs.declarations`).
            n_bins: bins of each binned share.
            n_quantiles: quantiles kept inside each bin.
        """
        names = transitions.obs_names
        if not names:
            raise ValueError("transitions need obs_names (the env's layout) to fit a schema")
        if declaration is None:
            declaration = declaration_for_layout(names)
        if len(transitions) == 0:
            raise ValueError("no transitions to fit on")
        if n_bins < 1:
            raise ValueError(f"n_bins must be ≥ 1, got {n_bins}")
        obs, nxt = transitions.obs, transitions.next_obs
        index = {name: i for i, name in enumerate(names)}
        changes = (obs != nxt).any(axis=0)
        claimed: set[int] = set()
        parts: list[Part] = []

        def modelled(group: Sequence[str]) -> list[int] | None:
            if not all(n in index for n in group):
                return None
            dims = [index[n] for n in group]
            return dims if changes[dims].any() else None

        one_hot = [(group.name, group.dims, group.has_none) for group in declaration.one_hot]
        if declaration.stages is not None:
            one_hot.insert(0, (STAGE, declaration.stages.dims, False))
        for name, group, has_none in one_hot:
            if (dims := modelled(group)) is not None:
                parts.append(OneHotPart(name, tuple(dims), has_none))
                claimed.update(dims)
        for vote in declaration.votes:
            if (dims := modelled(vote.dims)) is not None:
                voted, yes, rest = VoteSharesPart.split(nxt[:, dims])
                rest = rest[~np.isnan(rest)]
                yes_no_abstain = cast("tuple[int, int, int]", tuple(dims))  # as vote.dims
                parts.append(VoteSharesPart(
                    vote.prefix, yes_no_abstain, BinCodec.fit(yes[voted], n_bins, n_quantiles),
                    BinCodec.fit(rest, n_bins, n_quantiles),
                ))  # fmt: skip
                claimed.update(dims)
        for name in declaration.shares:
            if (dims := modelled((name,))) is not None:
                parts.append(
                    ShareBinsPart(name, dims[0], BinCodec.fit(nxt[:, dims[0]], n_bins, n_quantiles))
                )
                claimed.update(dims)
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
        out = np.array(obs, dtype=np.float64)
        for part in self.parts:
            out[:, list(part.dims)] = part.sample(probs, rng)
        out[:, self.gaussian.dims] = mean + std * rng.standard_normal(mean.shape)
        self._sample_consistent_outcome(out, probs, rng)
        return np.clip(out, self.low, self.high).astype(np.float32)

    def _sample_consistent_outcome(
        self, out: np.ndarray, probs: Mapping[str, np.ndarray], rng: np.random.Generator
    ) -> None:
        """Draw the declared outcome, then a tally of its vote that agrees with it.

        Independent heads would sometimes sample, e.g., an adopted resolution with a losing
        tally. The outcome is drawn from its own head (trained on outcomes, so its rate is
        calibrated), then the tally from the tally heads given that outcome, by rejection:
        the first of :data:`_CANDIDATES` draws that agrees; when none does, the first draw
        and the outcome it implies (:meth:`~assembly_gym.core.state.OutcomeRule.passed`).
        """
        rule = self.declaration.outcome
        if rule is None:
            return
        vote, outcome = self.part(f"{rule.votes}_yes_bin"), self.part(rule.outcome)
        if not isinstance(vote, VoteSharesPart) or not isinstance(outcome, OneHotPart):
            return
        n = out.shape[0]
        repeated = {name: np.tile(probs[name], (_CANDIDATES, 1)) for name in vote.heads}
        tallies = vote.sample(repeated, rng).reshape(_CANDIDATES, n, 3)  # one call for K draws
        implied = rule.passed(tallies[..., 0], tallies[..., 1])  # (K, N)
        wanted = _draw(probs[rule.outcome], rng) == 1
        agrees = implied == wanted[None, :]
        pick = np.where(agrees.any(axis=0), agrees.argmax(axis=0), 0)
        rows = np.arange(out.shape[0])
        out[:, list(vote.dims)] = tallies[pick, rows]
        out[:, outcome.dims[0]] = implied[pick, rows]

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
            total = total + part.log_likelihood(next_obs, probs)
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
        """Inverse of :meth:`to_dict`.

        A schema saved before declarations were saved (no ``declaration``) gets the one of
        the family its layout belongs to, which is what it was fitted with.
        """
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
            StateDeclaration.from_dict(data["declaration"]) if "declaration" in data
            else declaration_for_layout(data["obs_names"]),
        )  # fmt: skip
