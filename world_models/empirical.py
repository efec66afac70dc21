"""``EmpiricalModel``: conditional frequency tables, the baseline any learned model must beat.

For every head of the :class:`~assembly_gym.world_models.schema.StateSchema` (stage, own votes,
binned vote shares, adopted, …) the model counts the classes of s' per *context* of (s, a),
and for every Gaussian dimension it keeps the mean and variance. Contexts are nested, coarse
to fine, and each level is smoothed toward the one before it with ``smoothing``
pseudo-observations (:func:`~assembly_gym.core.backoff.nested_backoff`). Level 0 is
nothing (the training frequencies, smoothed toward uniform); each further level adds one
context variable, in this order:

1. the action;
2. the class of each categorical part of s (stage, own votes, 0/1 state dimensions);
3. each copied dimension that is 0/1 (issue codes and flags of the resolution);
4. a coarse bin of each share in s (sponsor share, committee yes share, …).

A context never seen in training takes the finest level that was seen, so an unseen
combination loses only the variables after the first one that makes it unseen. Counts are
weighted so that every group (resolution, or session) weighs as one observation for the
heads whose class is the same for every episode of a group at a step (the tallies,
adopted): the views of one resolution by every country repeat one tally. Heads that
differ between countries (own votes) count every transition.

A Gaussian dimension is kept as the change s'_j − s_j where that varies less than s'_j in
training (a year, the session's progress, running agreement rates: their next value tracks
the current one, so a year later than any in training is still predicted), else as s'_j.
Its moments always weigh every group as one observation, because the next roll call's text
is the same for every country that votes on it: counted per country, a context seen on one
roll call would have σ ≈ 0 for what is one draw. σ is at least half the dimension's
resolution (the smallest step between its distinct training values: 0.01 for a year),
the precision of the recorded values.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assembly_gym.core.backoff import nested_backoff
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import arrays_from_bytes, arrays_to_bytes, checked_field
from assembly_gym.core.transitions import Transitions
from assembly_gym.world_models.base import register_world_model
from assembly_gym.world_models.checkpoint import MANIFEST
from assembly_gym.world_models.heads import HeadModel, HeadOutputs
from assembly_gym.world_models.schema import (
    Cumulative,
    OneHotPart,
    RowCumulative,
    ShareBinsPart,
    VoteSharesPart,
    cumulative,
)

__all__ = ["EmpiricalModel"]

_TABLES = "tables.npz"
_MAX_CODE = 2**62
_UNSEEN_REMEMBERED = 1 << 16
"""Finest context codes unseen in training whose rows are remembered once resolved, at most."""


class EmpiricalModel(HeadModel):
    """Smoothed conditional frequency tables of s' given nested contexts of (s, a).

    Args:
        smoothing: pseudo-observations given to the coarser level's estimate.
        coarse_bins: bins of each share of s in the finest context.
        n_bins: bins of each binned share of s' (see :class:`StateSchema`).
        seed: seed of the start-state subsample.

    Example:
        >>> from assembly_gym.envs.legislative.transitions import deliberation_transitions
        >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
        >>> assembly = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=2))
        >>> model = EmpiricalModel().fit(deliberation_transitions(assembly))
        >>> model.predict(model.start_states[:2], [0, 4]).distributions["stage"].shape
        (2, 4)
    """

    kind = "empirical"

    def __init__(
        self, *, smoothing: float = 2.0, coarse_bins: int = 4, n_bins: int = 20, seed: int = 0
    ) -> None:
        super().__init__(n_bins=n_bins, seed=seed)
        _check_settings(smoothing, coarse_bins)
        self.smoothing = smoothing
        self.coarse_bins = coarse_bins
        self._binary_copied = np.zeros(0, dtype=np.int64)
        self._change = np.zeros(0)  # 1 where a Gaussian dim is kept as s'_j − s_j, else 0
        self._tables: list[dict[str, np.ndarray]] = []

    # ------------------------------------------------------------------ contexts

    def _context(self, obs: np.ndarray, action: np.ndarray) -> list[tuple[np.ndarray, int]]:
        """Columns (values, radix) of the finest context, coarse to fine; levels cut it."""
        parts = self._fitted_schema().parts
        columns = [(action, self.n_actions)]
        for part in parts:
            if isinstance(part, OneHotPart):
                classes, valid = part.targets(obs)[part.name]
                columns.append((np.where(valid, classes, 0), part.heads[part.name]))
        columns += [((obs[:, j] > 0.5).astype(np.int64), 2) for j in self._binary_copied]
        for part in parts:
            if isinstance(part, (ShareBinsPart, VoteSharesPart)):
                name, size = next(iter(part.heads.items()))  # the (yes) share head
                if isinstance(part, VoteSharesPart):  # class 0 = no vote yet
                    classes = part.yes_classes(obs)
                    coarse = np.where(
                        classes > 0, 1 + (classes - 1) * self.coarse_bins // (size - 1), 0
                    )
                    columns.append((coarse, self.coarse_bins + 1))
                else:
                    classes, _ = part.targets(obs)[name]
                    columns.append((classes * self.coarse_bins // size, self.coarse_bins))
        return columns

    def _row_code(self, obs: Sequence[float], action: int) -> int:
        """:meth:`_finest_codes` of one state as Python floats, in Python ints."""
        coder = self._coder
        code = action
        for dims, none, radix in coder.row_groups:
            for i, j in enumerate(dims):
                if obs[j] > 0.5:
                    code += (i + none) * radix
                    break
        for part, coarse, radix in coder.row_shares:
            if isinstance(part, VoteSharesPart):
                code += coarse[part.yes_class(obs)] * radix
            else:
                code += coarse[part.codec.encode_one(obs[part.dim])] * radix
        return code

    def _level_ends(self) -> list[int]:
        """How many context columns each level uses: none, then one more per level."""
        parts = self._fitted_schema().parts
        n_one_hot = sum(isinstance(p, OneHotPart) for p in parts)
        n_shares = sum(isinstance(p, (ShareBinsPart, VoteSharesPart)) for p in parts)
        return list(range(2 + n_one_hot + len(self._binary_copied) + n_shares))

    def _level_codes(
        self, columns: list[tuple[np.ndarray, int]], n_rows: int
    ) -> Iterator[np.ndarray]:
        """Mixed-radix code of each row's context at every level, coarsest first: (N,) int64.

        Level k uses the first ``self._level_ends()[k]`` columns; each code extends the last.
        """
        code, radix, used = np.zeros(n_rows, dtype=np.int64), 1, 0
        for end in self._level_ends():
            for values, size in columns[used:end]:
                code = code + values.astype(np.int64) * radix
                radix *= size
                if radix >= _MAX_CODE:
                    raise ValueError("the context has too many combinations for int64 codes")
            used = end
            yield code

    # ------------------------------------------------------------------ fitting

    def _fit(self, train: Transitions, validation: Transitions | None, **options: Any) -> None:
        """Count, level by level (``validation`` is not needed by a frequency table)."""
        obs, schema = train.obs, self._fitted_schema()
        copied = schema.copied
        binary = [j for j in copied if np.isin(obs[:, j], (0, 1)).all()]
        self._binary_copied = np.array(binary, dtype=np.int64)
        columns = self._context(obs, np.asarray(train.acts, dtype=np.int64))
        targets = schema.targets(train.next_obs, train.dones)
        gaussian, floor = self._gaussian_targets(train)
        group_weight = _group_weights(train)
        weighted = group_weight[:, None] * gaussian
        cells = _group_steps(train)
        s = self.smoothing
        tables: list[dict[str, np.ndarray]] = []
        levels: list[tuple[np.ndarray, np.ndarray]] = []  # (key of each row, parent of each key)
        parent_codes = np.zeros(0, dtype=np.int64)  # the previous level's (none before the first)
        for codes in self._level_codes(columns, len(obs)):
            unique, inverse = np.unique(codes, return_inverse=True)
            n_keys = len(unique)
            parent: np.ndarray = np.zeros(n_keys, dtype=np.int64)
            if tables:
                any_row = np.zeros(n_keys, dtype=np.int64)
                any_row[inverse] = np.arange(len(obs))  # finer keys nest in coarser ones
                parent = np.searchsorted(tables[-1]["codes"], parent_codes[any_row])
            levels.append((inverse, parent))
            n, sums, squares = (_sums(inverse, values, n_keys) for values in
                                (group_weight[:, None], weighted, weighted * gaussian))  # fmt: skip
            if tables:
                prior_mean, prior_std = tables[-1]["mean"][parent], tables[-1]["std"][parent]
            else:
                prior_mean = np.average(gaussian, axis=0, weights=group_weight)[None]
                prior_std = np.sqrt(np.average((gaussian - prior_mean) ** 2, axis=0,
                                               weights=group_weight))[None]  # fmt: skip
            mean = (sums + s * prior_mean) / (n + s)
            second = (squares + s * (prior_std**2 + prior_mean**2)) / (n + s)
            std = np.maximum(np.sqrt(np.maximum(second - mean**2, 0.0)), floor)
            tables.append({"codes": unique, "mean": mean, "std": std})
            parent_codes = codes
        heads: dict[str, list[np.ndarray]] = {}
        for name, (classes, valid) in targets.items():
            shared = _constant_within(np.where(valid, classes, -1), cells)
            size = schema.heads[name]
            heads[name] = nested_backoff(
                [(np.where(valid, key, -1), parent) for key, parent in levels],
                np.where(valid, classes, 0), size, s, np.full(size, 1 / size),
                group_weight if shared else None,
            )  # fmt: skip
        self._forget()
        self._tables = [
            {"codes": table["codes"], **{name: heads[name][k] for name in heads},
             "mean": table["mean"], "std": table["std"]}
            for k, table in enumerate(tables)
        ]  # fmt: skip

    def _gaussian_targets(self, train: Transitions) -> tuple[np.ndarray, np.ndarray]:
        """Choose :attr:`_change`; each Gaussian dim's target (N, n) and σ floor (n,).

        The target is s'_j − s_j or s'_j; the floor half the smallest step between distinct
        training values of s'_j (its schema scale when it has a single value).
        """
        gaussian = self._fitted_schema().gaussian
        after = train.next_obs[:, gaussian.dims].astype(np.float64)
        before = train.obs[:, gaussian.dims].astype(np.float64)
        self._change = (np.var(after - before, axis=0) < np.var(after, axis=0)).astype(float)
        floor = np.array([
            np.diff(np.unique(train.next_obs[:, j])).min(initial=2 * scale) / 2
            for j, scale in zip(gaussian.dims, gaussian.scale, strict=True)
        ])  # fmt: skip
        return after - self._change * before, floor

    # ------------------------------------------------------------------ prediction

    @property
    def n_members(self) -> int:
        """One table."""
        return 1

    def _outputs(self, obs: np.ndarray, action: np.ndarray) -> HeadOutputs:
        """The stacked tables' row of each (s, a) (:meth:`_rows`) as one member's outputs."""
        rows = self._rows(obs, action)
        flat, _ = self._lookup
        return HeadOutputs(
            probs={name: flat[name][rows][None] for name in self._fitted_schema().heads},
            mean=self._mean(obs, flat["mean"][rows])[None],
            std=flat["std"][rows][None],
        )

    def _mean(self, obs: np.ndarray, table_mean: np.ndarray) -> np.ndarray:
        """Gaussian means (..., n) in raw units: the tables' plus s_j where they hold a change."""
        return table_mean + self._change * obs[..., self._fitted_schema().gaussian.dims]

    def _rows(self, obs: np.ndarray, action: np.ndarray) -> np.ndarray:
        """The stacked tables' row of each (s, a), (N,): its finest context seen in training.

        Finest codes met before are looked up at once (:attr:`_known`, which remembers
        those resolved here, up to :data:`_UNSEEN_REMEMBERED` unseen in training); the others
        back off level by level (:meth:`_back_off`).
        """
        codes = self._finest_codes(obs, action)
        known, known_rows = self._known
        position = np.minimum(np.searchsorted(known, codes), len(known) - 1)
        rows = known_rows[position]
        missing = np.flatnonzero(known[position] != codes)
        if missing.size:
            new, inverse = np.unique(codes[missing], return_inverse=True)
            resolved = self._back_off(new)
            rows[missing] = resolved[inverse.reshape(-1)]
            if len(known) + len(new) > self._tables[-1]["codes"].size + _UNSEEN_REMEMBERED:
                return rows  # remembered enough: a long run's memory stays flat
            merged = np.concatenate([known, new])
            order = np.argsort(merged, kind="stable")
            self._known = merged[order], np.concatenate([known_rows, resolved])[order]
        return rows

    def _back_off(self, codes: np.ndarray) -> np.ndarray:
        """The stacked row of each finest code (N,) at the finest level that knows it.

        A level's code is the finest code modulo the product of its columns' sizes (the
        mixed radix of :meth:`_level_codes`), so one code per row serves every level.
        """
        _, offsets = self._lookup
        rows = np.zeros(len(codes), dtype=np.int64)
        todo = np.arange(len(codes))  # rows whose finest seen level is not found yet
        for k in range(len(self._tables) - 1, -1, -1):  # finest first; level 0 knows every row
            known, wanted = self._tables[k]["codes"], codes[todo] % self._coder.radices[k]
            position = np.minimum(np.searchsorted(known, wanted), len(known) - 1)
            found = known[position] == wanted
            rows[todo[found]] = offsets[k] + position[found]
            todo = todo[~found]
            if not todo.size:
                break
        return rows

    @functools.cached_property
    def _known(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted finest codes, their stacked rows): the finest level's, then those met."""
        _, offsets = self._lookup
        codes = self._tables[-1]["codes"]
        return codes, offsets[-1] + np.arange(len(codes), dtype=np.int64)

    def _finest_codes(self, obs: np.ndarray, action: np.ndarray) -> np.ndarray:
        """The finest context code of each row, (N,) int64: :meth:`_context`'s, in a few calls.

        The 0/1 columns (one-hot classes, binary copied dims) come from one table: each
        column's bits, as an integer, index the class they stand for.
        """
        coder = self._coder
        bits = (np.take(obs, coder.bit_dims, axis=1) > 0.5).astype(np.float32)
        patterns = (bits @ coder.bit_weights).astype(np.int64)  # exact: small integers
        values = np.take(coder.classes, patterns + coder.class_offsets)
        codes = action + values @ coder.bit_radices
        for part, coarse, radix in coder.shares:
            if isinstance(part, VoteSharesPart):
                classes = part.yes_classes(obs)
            else:
                classes = part.codec.encode(obs[:, part.dim])
            codes += np.take(coarse, classes) * radix
        return codes

    @functools.cached_property
    def _coder(self) -> _Coder:
        """What :meth:`_finest_codes` needs, from the schema and the context columns."""
        parts = self._fitted_schema().parts
        groups = [(p.dims, int(p.has_none)) for p in parts if isinstance(p, OneHotPart)]
        groups += [((int(j),), 1) for j in self._binary_copied]  # 0/1: the "none" class is 0
        sizes = [self.n_actions] + [len(dims) + none for dims, none in groups]
        bit_dims = [j for dims, _ in groups for j in dims]
        weights = np.zeros((len(bit_dims), len(groups)), dtype=np.float32)
        tables, row = [], 0
        for c, (dims, none) in enumerate(groups):
            weights[row : row + len(dims), c] = 2.0 ** np.arange(len(dims))
            row += len(dims)
            patterns = np.arange(2 ** len(dims))
            lowest = np.array([(p & -p).bit_length() - 1 for p in patterns.tolist()])
            tables.append(np.where(patterns > 0, lowest + none, 0))  # first hot dim, as argmax
        shares: list[tuple[ShareBinsPart | VoteSharesPart, np.ndarray, int]] = []
        for part in parts:
            if isinstance(part, VoteSharesPart):
                classes = np.arange(1 + part.yes.n_bins)
                coarse = np.where(classes > 0, 1 + (classes - 1) * self.coarse_bins
                                  // part.yes.n_bins, 0)  # fmt: skip
                shares.append((part, coarse, self.coarse_bins + 1))
            elif isinstance(part, ShareBinsPart):
                coarse = np.arange(part.codec.n_bins) * self.coarse_bins // part.codec.n_bins
                shares.append((part, coarse, self.coarse_bins))
        sizes += [size for _, _, size in shares]
        radices = np.cumprod([1] + sizes).astype(np.int64)
        return _Coder(
            row_groups=[(dims, none, int(radix)) for (dims, none), radix
                        in zip(groups, radices[1 : 1 + len(groups)], strict=True)],
            row_shares=[(part, coarse.tolist(), int(radices[1 + len(groups) + i]))
                        for i, (part, coarse, _) in enumerate(shares)],
            bit_dims=np.array(bit_dims, dtype=np.int64), bit_weights=weights,
            classes=np.concatenate(tables).astype(np.int64),
            class_offsets=np.cumsum([0] + [len(t) for t in tables[:-1]]).astype(np.int64),
            bit_radices=radices[1 : 1 + len(groups)],
            shares=[(part, coarse.astype(np.int64), int(radices[1 + len(groups) + i]))
                    for i, (part, coarse, _) in enumerate(shares)],
            radices=radices,
        )  # fmt: skip

    def _member_cumulative(
        self, obs: np.ndarray, action: np.ndarray, member: np.ndarray
    ) -> tuple[Cumulative, np.ndarray, np.ndarray]:
        """Cumulative tables gathered at each row's context (computed once per model)."""
        flat, _ = self._lookup
        rows = self._rows(obs, action)
        cdfs = self._cumulative_tables
        mean = self._mean(obs, np.take(flat["mean"], rows, axis=0))
        std = np.take(flat["std"], rows, axis=0)
        return {name: np.take(cdfs[name], rows, axis=0) for name in cdfs}, mean, std

    def _row_cumulative(
        self, obs: np.ndarray, action: int, member: int
    ) -> tuple[RowCumulative, Sequence[float], Sequence[float]]:
        """One state's context → its table row (remembered per code) → its lists.

        The row's lists are read afresh at every call (a dozen ``tolist`` of short rows, a few
        µs): remembering them per row would hold about 6 KB for every row a long run visits.
        """
        code = self._row_code(obs.tolist(), action)
        row = self._row_of_code.get(code)
        if row is None:
            row = int(self._back_off(np.array([code]))[0])
            if len(self._row_of_code) < self._tables[-1]["codes"].size + _UNSEEN_REMEMBERED:
                self._row_of_code[code] = row
        flat, _ = self._lookup
        cdfs = self._cumulative_tables
        return (
            {name: cdfs[name][row].tolist() for name in cdfs},
            self._mean(obs, flat["mean"][row]).tolist(), flat["std"][row].tolist(),
        )  # fmt: skip

    @functools.cached_property
    def _cumulative_tables(self) -> dict[str, np.ndarray]:
        """Every head's cumulative class probabilities per stacked row, (rows, K) float64."""
        flat, _ = self._lookup
        heads = self._fitted_schema().heads  # row-major: a gather of rows reads each whole
        return {name: np.ascontiguousarray(cumulative(flat[name])) for name in heads}

    @functools.cached_property
    def _row_of_code(self) -> dict[int, int]:
        """Finest context code → stacked row: the finest level's, then unseen ones as met.

        At most :data:`_UNSEEN_REMEMBERED` unseen ones, so that a long run's memory stays flat.
        """
        _, offsets = self._lookup
        codes = self._tables[-1]["codes"].tolist()
        return dict(zip(codes, range(int(offsets[-1]), int(offsets[-1]) + len(codes)), strict=True))

    def _forget(self) -> None:
        """Drop everything computed from the tables (after :meth:`fit` or :meth:`load`)."""
        for name in ("_lookup", "_cumulative_tables", "_row_of_code", "_coder", "_known"):
            self.__dict__.pop(name, None)

    @functools.cached_property
    def _lookup(self) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Every level's rows stacked per table, float64, and each level's first row.

        Built once after :meth:`fit` or :meth:`load`: a prediction is then one gather per
        table whatever the levels its rows fell back to.
        """
        keys = self._tables[0].keys() - {"codes"}
        flat = {key: np.concatenate([t[key] for t in self._tables]).astype(np.float64)
                for key in keys}  # fmt: skip
        offsets = np.cumsum([0] + [len(t["codes"]) for t in self._tables[:-1]])
        return flat, offsets.astype(np.int64)

    # ------------------------------------------------------------------ persistence

    @classmethod
    def parameter_files(cls) -> tuple[str, ...]:
        """The tables."""
        return (_TABLES,)

    def export_parameters(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The settings and the tables."""
        config = {"smoothing": self.smoothing, "coarse_bins": self.coarse_bins,
                  "n_bins": self.n_bins, "seed": self.seed,
                  "binary_copied": self._binary_copied.tolist(),
                  "change": self._change.tolist()}  # fmt: skip
        arrays = {f"{k}/{key}": value for k, table in enumerate(self._tables)
                  for key, value in table.items()}  # fmt: skip
        return config, {_TABLES: arrays_to_bytes(arrays)}

    def restore_parameters(
        self, config: dict[str, Any], files: dict[str, bytes], source: Path
    ) -> None:
        """Rebuild the tables from :meth:`export_parameters` output."""
        manifest, problem = source / MANIFEST, "corrupted config"
        smoothing = checked_field(config, "smoothing", (int, float), manifest, problem=problem)
        coarse_bins = checked_field(config, "coarse_bins", int, manifest, problem=problem)
        try:
            _check_settings(smoothing, coarse_bins)
        except ValueError as error:
            raise CheckpointError(f"{manifest}: {problem} ({error})") from error
        self.smoothing, self.coarse_bins = smoothing, coarse_bins
        copied = checked_field(config, "binary_copied", list, manifest, items=int, problem=problem)
        change = checked_field(config, "change", list, manifest, items=(int, float),
                               problem=problem)  # fmt: skip
        self._binary_copied = np.asarray(copied, dtype=np.int64)
        self._change = np.asarray(change, dtype=np.float64)
        arrays = arrays_from_bytes(files[_TABLES], source / _TABLES)
        n_levels = len(self._level_ends())
        keys = ("codes", "mean", "std", *self._fitted_schema().heads)
        self._forget()
        try:
            self._tables = [{key: arrays[f"{k}/{key}"] for key in keys} for k in range(n_levels)]
        except KeyError as error:
            raise CheckpointError(f"{source / _TABLES}: missing table {error}") from error


def _check_settings(smoothing: float, coarse_bins: int) -> None:
    """Raise ValueError unless ``smoothing`` > 0 (finite) and ``coarse_bins`` ≥ 1."""
    if not 0 < smoothing < math.inf or coarse_bins < 1:
        raise ValueError(
            f"smoothing must be > 0 and coarse_bins ≥ 1, got {smoothing}, {coarse_bins}"
        )


@dataclass(frozen=True)
class _Coder:
    """How :meth:`EmpiricalModel._finest_codes` computes context codes.

    Attributes:
        row_groups: (dims, 1 if class 0 is "none", radix) of each 0/1 column, for one row.
        row_shares: :attr:`shares` with Python lists, for one row.
        bit_dims: the dims of every 0/1 column (one-hot parts, binary copied dims), in order.
        bit_weights: (len(bit_dims), columns) float32: a column's bits → their integer.
        classes: every column's class per bit pattern, concatenated; ``class_offsets`` its
            start per column.
        bit_radices: the 0/1 columns' radices (the action's is 1).
        shares: (part, coarse bin of each of its classes, radix) of each share column.
        radices: the product of the first k columns' sizes, k = 0 … all, (levels + 1,).
    """

    row_groups: list[tuple[tuple[int, ...], int, int]]
    row_shares: list[tuple[ShareBinsPart | VoteSharesPart, list[int], int]]
    bit_dims: np.ndarray
    bit_weights: np.ndarray
    classes: np.ndarray
    class_offsets: np.ndarray
    bit_radices: np.ndarray
    shares: list[tuple[ShareBinsPart | VoteSharesPart, np.ndarray, int]]
    radices: np.ndarray


def _group_steps(transitions: Transitions) -> np.ndarray:
    """Id of each transition's (group, step within its episode) cell, shape (N,)."""
    starts = transitions.episode_starts()
    lengths = np.diff(np.r_[starts, len(transitions)])
    step = np.arange(len(transitions)) - np.repeat(starts, lengths)
    pairs = np.column_stack([transitions.split_units, step])
    return np.unique(pairs, axis=0, return_inverse=True)[1].reshape(-1)


def _sums(keys: np.ndarray, values: np.ndarray, n_keys: int) -> np.ndarray:
    """Sum of the rows of ``values`` (N, k) per key (N,) in ``0..n_keys - 1``, (n_keys, k)."""
    out = np.zeros((n_keys, values.shape[1]))
    for k, column in enumerate(values.T):
        out[:, k] = np.bincount(keys, column, minlength=n_keys)
    return out


def _constant_within(values: np.ndarray, cells: np.ndarray) -> bool:
    """Whether ``values`` are the same for every transition of each cell."""
    order = np.lexsort((values, cells))
    same_cell = cells[order][1:] == cells[order][:-1]
    return bool(np.all(values[order][1:][same_cell] == values[order][:-1][same_cell]))


def _group_weights(transitions: Transitions) -> np.ndarray:
    """1 / (episodes in the transition's group), shape (N,): every group weighs as one."""
    groups = transitions.split_units
    labels, inverse = np.unique(groups, return_inverse=True)
    starts = groups[transitions.episode_starts()]
    episodes = np.bincount(np.searchsorted(labels, starts), minlength=len(labels))
    return 1.0 / episodes[inverse.reshape(-1)]


register_world_model(EmpiricalModel.kind, EmpiricalModel.from_checkpoint)
