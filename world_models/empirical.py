"""``EmpiricalModel``: conditional frequency tables, the baseline any learned model must beat.

For every head of the :class:`~assembly_gym.world_models.schema.StateSchema` (stage, own votes,
binned vote shares, adopted, …) the model counts the classes of s' per *context* of (s, a),
and for every Gaussian dimension it keeps the mean and variance. Contexts are nested, coarse
to fine, and each level is smoothed toward the one before it with ``smoothing``
pseudo-observations (:func:`~assembly_gym.envs.legislative.backoff.nested_backoff`, the
back-off of the env's own :class:`~assembly_gym.envs.legislative.dynamics.EmpiricalDynamics`
too). Level 0 is nothing (the training
frequencies, smoothed toward uniform); each further level adds one context variable, in
this order:

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
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from assembly_gym.core.errors import CheckpointError
from assembly_gym.envs.legislative.backoff import nested_backoff
from assembly_gym.world_models.base import Transitions, register_world_model
from assembly_gym.world_models.checkpoint import arrays_from_bytes, arrays_to_bytes
from assembly_gym.world_models.heads import HeadModel, HeadOutputs
from assembly_gym.world_models.schema import OneHotPart, ShareBinsPart, VoteSharesPart

__all__ = ["EmpiricalModel"]

_TABLES = "tables.npz"
_MAX_CODE = 2**62


class EmpiricalModel(HeadModel):
    """Smoothed conditional frequency tables of s' given nested contexts of (s, a).

    Args:
        smoothing: pseudo-observations given to the coarser level's estimate.
        coarse_bins: bins of each share of s in the finest context.
        n_bins: bins of each binned share of s' (see :class:`StateSchema`).
        seed: seed of the start-state subsample.

    Example:
        >>> from assembly_gym.world_models.transitions import deliberation_transitions
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
        if smoothing <= 0 or coarse_bins < 1:
            raise ValueError(
                f"smoothing must be > 0 and coarse_bins ≥ 1, got {smoothing}, {coarse_bins}"
            )
        self.smoothing = smoothing
        self.coarse_bins = coarse_bins
        self._binary_copied = np.zeros(0, dtype=np.int64)
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
        gaussian = train.next_obs[:, schema.gaussian.dims].astype(np.float64)
        group_weight = _group_weights(train)
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
            n = np.bincount(inverse, minlength=n_keys)[:, None].astype(np.float64)
            sums = np.zeros((n_keys, gaussian.shape[1]))
            squares = np.zeros_like(sums)
            np.add.at(sums, inverse, gaussian)
            np.add.at(squares, inverse, gaussian**2)
            if tables:
                prior_mean, prior_std = tables[-1]["mean"][parent], tables[-1]["std"][parent]
            else:
                prior_mean, prior_std = gaussian.mean(0)[None], gaussian.std(0)[None]
            mean = (sums + s * prior_mean) / (n + s)
            second = (squares + s * (prior_std**2 + prior_mean**2)) / (n + s)
            std = np.sqrt(np.maximum(second - mean**2, 1e-8))
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
        self.__dict__.pop("_lookup", None)
        self._tables = [
            {"codes": table["codes"], **{name: heads[name][k] for name in heads},
             "mean": table["mean"], "std": table["std"]}
            for k, table in enumerate(tables)
        ]  # fmt: skip

    # ------------------------------------------------------------------ prediction

    @property
    def n_members(self) -> int:
        """One table."""
        return 1

    def _outputs(self, obs: np.ndarray, action: np.ndarray) -> HeadOutputs:
        columns = self._context(obs, action)
        n = len(obs)
        level = np.zeros(n, dtype=np.int64)
        index = np.zeros(n, dtype=np.int64)
        levels = list(self._level_codes(columns, n))
        todo = np.arange(n)  # rows whose finest seen level is not found yet
        for k in range(len(levels) - 1, -1, -1):  # finest first; level 0 knows every row
            known, codes = self._tables[k]["codes"], levels[k][todo]
            position = np.minimum(np.searchsorted(known, codes), len(known) - 1)
            found = known[position] == codes
            level[todo[found]], index[todo[found]] = k, position[found]
            todo = todo[~found]
            if not todo.size:
                break

        flat, offsets = self._lookup
        rows = offsets[level] + index  # one gather per table from the levels stacked
        return HeadOutputs(
            probs={name: flat[name][rows][None] for name in self._fitted_schema().heads},
            mean=flat["mean"][rows][None],
            std=flat["std"][rows][None],
        )

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

    def _parameters(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        config = {"smoothing": self.smoothing, "coarse_bins": self.coarse_bins,
                  "n_bins": self.n_bins, "seed": self.seed,
                  "binary_copied": self._binary_copied.tolist()}  # fmt: skip
        arrays = {f"{k}/{key}": value for k, table in enumerate(self._tables)
                  for key, value in table.items()}  # fmt: skip
        return config, {_TABLES: arrays_to_bytes(arrays)}

    def _restore(self, config: dict[str, Any], files: dict[str, bytes], source: Path) -> None:
        self.smoothing = float(config["smoothing"])
        self.coarse_bins = int(config["coarse_bins"])
        self._binary_copied = np.asarray(config["binary_copied"], dtype=np.int64)
        arrays = arrays_from_bytes(files[_TABLES], source / _TABLES)
        n_levels = len(self._level_ends())
        keys = ("codes", "mean", "std", *self._fitted_schema().heads)
        self.__dict__.pop("_lookup", None)
        try:
            self._tables = [{key: arrays[f"{k}/{key}"] for key in keys} for k in range(n_levels)]
        except KeyError as error:
            raise CheckpointError(f"{source / _TABLES}: missing table {error}") from error


def _group_steps(transitions: Transitions) -> np.ndarray:
    """Id of each transition's (group, step within its episode) cell, shape (N,)."""
    starts = transitions.episode_starts()
    lengths = np.diff(np.r_[starts, len(transitions)])
    step = np.arange(len(transitions)) - np.repeat(starts, lengths)
    pairs = np.column_stack([transitions.split_units, step])
    return np.unique(pairs, axis=0, return_inverse=True)[1].reshape(-1)


def _constant_within(values: np.ndarray, cells: np.ndarray) -> bool:
    """Whether ``values`` are the same for every transition of each cell."""
    order = np.lexsort((values, cells))
    same_cell = cells[order][1:] == cells[order][:-1]
    return bool(np.all(values[order][1:][same_cell] == values[order][:-1][same_cell]))


def _group_weights(transitions: Transitions) -> np.ndarray:
    """1 / (episodes in the transition's group), shape (N,): every group weighs as one.

    The views of one resolution by every country share its tallies; counted per view, one
    resolution would look like a hundred independent observations.
    """
    groups = transitions.split_units
    labels, inverse = np.unique(groups, return_inverse=True)
    starts = groups[transitions.episode_starts()]
    episodes = np.bincount(np.searchsorted(labels, starts), minlength=len(labels))
    return 1.0 / episodes[inverse.reshape(-1)]


register_world_model(EmpiricalModel.kind, EmpiricalModel.from_checkpoint)
