"""Shared machinery of models that predict a :class:`~assembly_gym.world_models.schema.StateSchema`.

A :class:`HeadModel` subclass only says how it fits and what each of its members predicts
for a batch: per categorical head a probability table, per Gaussian dimension a mean and a
standard deviation (:class:`HeadOutputs`). This class turns that into the
:class:`~assembly_gym.world_models.base.WorldModel` protocol: means, distributions and epistemic
spread (:meth:`predict`), samples (:meth:`sample`), the log-likelihood of s' (:meth:`log_prob`),
action masks and start states for the simulator, and checkpoints (:meth:`save`,
:meth:`load`).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from scipy.special import logsumexp

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import array_from_bytes, array_to_bytes, checked_field
from assembly_gym.core.state import StateDeclaration
from assembly_gym.core.transitions import Transitions
from assembly_gym.world_models.base import Prediction, load_world_model
from assembly_gym.world_models.checkpoint import (
    MANIFEST,
    START_STATES,
    Artifact,
    checkpoint_file,
    save_checkpoint,
)
from assembly_gym.world_models.schema import (
    Cumulative,
    OneHotPart,
    RowCumulative,
    StateSchema,
    cumulative,
)

__all__ = ["HeadModel", "HeadOutputs"]

_SIMULATOR_FIELDS: dict[str, type | tuple[type, ...]] = {
    "n_actions": int, "mask_table": list, "noop_action": (int, type(None)),
    "max_episode_steps": int,
}  # fmt: skip


@dataclass(frozen=True)
class HeadOutputs:
    """What every member of a model predicts for a batch of (s, a).

    Attributes:
        probs: head name → probabilities, shape (M, N, K), rows summing to 1.
        mean: Gaussian means in raw units, shape (M, N, n_continuous).
        std: Gaussian standard deviations in raw units, shape (M, N, n_continuous).
    """

    probs: dict[str, np.ndarray]
    mean: np.ndarray
    std: np.ndarray

    @property
    def n_members(self) -> int:
        """Number of members M."""
        return self.mean.shape[0]


class HeadModel(abc.ABC):
    """Base of the world models that predict the parts of a :class:`StateSchema`.

    Attributes:
        obs_names: the observation layout the model was trained on.
        schema: how each dimension is predicted (None before :meth:`fit`).
        n_actions: number of discrete actions.
        start_states: first observations of training episodes (at most
            ``max_start_states``, drawn with the model's seed), shape (N0, d).
        noop_action: an action valid in every non-terminal state of the data, or None.
        mask_table: the actions the data allowed, by stage (one row without stages), (K, A).
        max_episode_steps: the longest training episode.
        metadata: free JSON-serialisable notes saved with the model (the CLI records the
            env, the data and the split here).
    """

    kind: ClassVar[str]
    """The ``model_kind`` of the checkpoint."""
    max_start_states: ClassVar[int] = 20_000

    def __init__(self, *, n_bins: int = 20, seed: int = 0) -> None:
        self.n_bins = n_bins
        self.seed = seed
        self.obs_names: tuple[str, ...] = ()
        self.schema: StateSchema | None = None
        self.n_actions = 0
        self.start_states: np.ndarray | None = None
        self.noop_action: int | None = None
        self.max_episode_steps = 0
        self.metadata: dict[str, Any] = {}
        self.mask_table = np.ones((1, 0), dtype=bool)

    # ------------------------------------------------------------------ subclass hooks

    @abc.abstractmethod
    def _fit(
        self, train: Transitions, validation: Transitions | None, *args: Any, **options: Any
    ) -> None:
        """Learn the member outputs (the schema is already fitted).

        ``*args, **options`` let each model name its own options (``fit`` passes them on).
        """

    @abc.abstractmethod
    def _outputs(self, obs: np.ndarray, action: np.ndarray) -> HeadOutputs:
        """Member predictions for validated obs (N, d) float32 and actions (N,) int64."""

    @property
    @abc.abstractmethod
    def n_members(self) -> int:
        """Number of members M (1 for a single model)."""

    def _member_outputs(
        self, obs: np.ndarray, action: np.ndarray, member: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
        """One member's predictions per row (``member``: (N,)): probs (N, K), mean, std (N, c).

        A model may work out only the chosen members' heads (the sampler's hot path).
        """
        out, rows = self._outputs(obs, action), np.arange(len(obs))
        probs = {name: p[member, rows] for name, p in out.probs.items()}
        return probs, out.mean[member, rows], out.std[member, rows]

    def _member_cumulative(
        self, obs: np.ndarray, action: np.ndarray, member: np.ndarray
    ) -> tuple[Cumulative, np.ndarray, np.ndarray]:
        """:meth:`_member_outputs` with cumulative class probabilities per head (N, K)."""
        probs, mean, std = self._member_outputs(obs, action, member)
        return {name: cumulative(p) for name, p in probs.items()}, mean, std

    def _row_cumulative(
        self, obs: np.ndarray, action: int, member: int
    ) -> tuple[RowCumulative, Sequence[float], Sequence[float]]:
        """:meth:`_member_cumulative` of one state (d,): lists of Python floats."""
        cdfs, mean, std = self._member_cumulative(obs[None], np.array([action]), np.array([member]))
        return {name: c[0].tolist() for name, c in cdfs.items()}, mean[0].tolist(), std[0].tolist()

    @abc.abstractmethod
    def export_parameters(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """(JSON config, parameter files): what :meth:`restore_parameters` rebuilds it from."""

    @abc.abstractmethod
    def restore_parameters(
        self, config: dict[str, Any], files: dict[str, bytes], source: Path
    ) -> None:
        """Rebuild the learned parameters from :meth:`export_parameters` output."""

    @classmethod
    @abc.abstractmethod
    def parameter_files(cls) -> tuple[str, ...]:
        """Names of the files :meth:`export_parameters` writes."""

    # ------------------------------------------------------------------ protocol

    def fit(
        self,
        transitions: Transitions,
        *,
        validation: Transitions | None = None,
        **options: Any,
    ) -> HeadModel:
        """Fit the schema, the simulator facts (masks, start states) and the model.

        Args:
            transitions: training transitions with ``obs_names`` and their family's
                declaration (see :meth:`StateSchema.fit`).
            validation: held-out transitions for early stopping (if the model uses any).
            **options: model-specific options (e.g. ``progress``, ``log_dir``).
        """
        self.schema = StateSchema.fit(transitions, n_bins=self.n_bins)
        self.obs_names = transitions.obs_names
        acts = np.asarray(transitions.acts)
        if acts.ndim != 1:
            raise ValueError(f"{type(self).__name__} needs Discrete actions of shape (N,)")
        self.n_actions = (
            transitions.masks.shape[1] if transitions.masks is not None else int(acts.max()) + 1
        )
        self._fit_simulator_facts(transitions)
        self._fit(transitions, validation, **options)
        return self

    def predict(self, obs: np.ndarray, action: np.ndarray) -> Prediction:
        """Means, aleatoric and epistemic spread, and head distributions of s'.

        Args:
            obs: observations, shape (N, d).
            action: actions, shape (N,).

        Returns:
            A :class:`Prediction`; with several members, distributions are the members'
            average and ``epistemic_std`` the standard deviation of the members' means.
        """
        obs, action = self._check(obs, action)
        out = self._outputs(obs, action)
        schema = self._fitted_schema()
        means = np.stack([
            schema.expectation(obs, {k: v[m] for k, v in out.probs.items()}, out.mean[m])
            for m in range(out.n_members)
        ])  # fmt: skip
        std = np.zeros(obs.shape, dtype=np.float64)
        std[:, schema.gaussian.dims] = np.sqrt((out.std**2).mean(axis=0))
        return Prediction(
            mean=means.mean(axis=0),
            std=std,
            epistemic_std=means.std(axis=0) if out.n_members > 1 else None,
            distributions={name: p.mean(axis=0) for name, p in out.probs.items()},
        )

    def sample(self, obs: np.ndarray, action: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One s' per row from a member drawn per row (the ensemble mixture), (N, d) float32.

        A batch of one row is :meth:`sample_one`'s draw (the same random numbers).
        """
        obs, action = self._check(obs, action)
        if len(obs) == 1:
            return self.sample_one(obs[0], int(action[0]), rng)[None]
        n = len(obs)
        member = rng.integers(self.n_members, size=n) if self.n_members > 1 else np.zeros(n, int)
        cdfs, mean, std = self._member_cumulative(obs, action, member)
        return self._fitted_schema().sample_cumulative(obs, cdfs, mean, std, rng)

    def sample_one(self, obs: np.ndarray, action: int, rng: np.random.Generator) -> np.ndarray:
        """One s' of one state: what :meth:`sample` draws for it alone, with less overhead.

        Args:
            obs: the state, shape (d,) float32.
            action: the action, an int in ``0..n_actions - 1``.
            rng: the generator (a member from it, with several, then the state's draws).

        Returns:
            s', shape (d,) float32.
        """
        schema = self._fitted_schema()
        if obs.shape != (len(self.obs_names),) or not 0 <= action < self.n_actions:
            raise ValueError(f"expected a state ({len(self.obs_names)},) and an action in "
                             f"0..{self.n_actions - 1}, got {obs.shape} and {action}")  # fmt: skip
        member = int(rng.integers(self.n_members)) if self.n_members > 1 else 0
        cdfs, mean, std = self._row_cumulative(obs, action, member)
        return schema.sample_row(obs, cdfs, mean, std, rng)

    def log_prob(self, obs: np.ndarray, action: np.ndarray, next_obs: np.ndarray) -> np.ndarray:
        """Log p(s' | s, a) of the members' mixture in nats, shape (N,).

        Categorical parts count as class probabilities (a binned share: its bin), Gaussian
        dimensions as densities; copied dimensions are not part of it.
        """
        obs, action = self._check(obs, action)
        next_obs = np.asarray(next_obs, dtype=np.float32)
        if next_obs.shape != obs.shape:
            raise ValueError(f"next_obs must have shape {obs.shape}, got {next_obs.shape}")
        out, schema = self._outputs(obs, action), self._fitted_schema()
        per_member = np.stack([
            schema.log_likelihood(
                next_obs, {k: v[m] for k, v in out.probs.items()}, out.mean[m], out.std[m]
            )
            for m in range(out.n_members)
        ])  # fmt: skip
        return logsumexp(per_member, axis=0) - np.log(out.n_members)

    def action_masks(self, obs: np.ndarray) -> np.ndarray:
        """Valid actions in each state, as recorded in the training data, shape (N, A) bool.

        Keyed by the stage when the layout has one (no action at TERMINAL), else the same
        mask everywhere.
        """
        obs = np.atleast_2d(np.asarray(obs, dtype=np.float32))
        return self.mask_table[self._mask_keys(obs)]

    def action_mask_one(self, obs: np.ndarray) -> np.ndarray:
        """:meth:`action_masks` of one state (d,), shape (A,) bool, a fresh array."""
        schema, dims = self.__dict__.get("_stage_dims", (None, ()))
        if schema is not self.schema:  # the stage's dims, looked up once per schema
            stage = self._stage_part()
            schema, dims = self.__dict__["_stage_dims"] = (
                self.schema, () if stage is None else stage.dims
            )  # fmt: skip
        values = obs.tolist() if dims else []
        key = next((i for i, j in enumerate(dims) if values[j] > 0.5), 0)
        return self.mask_table[key].copy()

    @property
    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of every observation dimension, shape (d,) each."""
        schema = self._fitted_schema()
        return schema.low, schema.high

    @property
    def state_declaration(self) -> StateDeclaration:
        """The state declaration of the env family the model learned."""
        return self._fitted_schema().declaration

    # ------------------------------------------------------------------ persistence

    def save(self, path: str | Path) -> None:
        """Save into the folder ``path`` whole (see :mod:`~assembly_gym.world_models.checkpoint`).

        The manifest holds the config, the observation layout and the schema; beside it
        are the parameters and the start states.
        """
        schema = self._fitted_schema()
        config, files = self.export_parameters()
        if self.start_states is not None:
            files[START_STATES] = array_to_bytes(self.start_states)
        payload = {
            "config": config,
            "schema": schema.to_dict(),
            "simulator": {
                "n_actions": self.n_actions, "mask_table": self.mask_table.tolist(),
                "noop_action": self.noop_action, "max_episode_steps": self.max_episode_steps,
            },
            "metadata": self.metadata,
        }  # fmt: skip
        save_checkpoint(path, model_kind=self.kind, module=type(self).__module__,
                        obs_names=self.obs_names, payload=payload, files=files)  # fmt: skip

    @classmethod
    def load(cls, path: str | Path, *, layout: Sequence[str] | None = None) -> HeadModel:
        """Load a model saved by :meth:`save`.

        See :func:`~assembly_gym.world_models.base.load_world_model`.

        Raises:
            CheckpointError: corrupted, another version, another kind or another layout.
        """
        model = load_world_model(path, layout=layout)
        if not isinstance(model, cls):
            raise CheckpointError(f"{path}: holds a {type(model).__name__}, not a {cls.__name__}")
        return model

    @classmethod
    def from_checkpoint(cls, checkpoint: Artifact) -> HeadModel:
        """The loader registered for :attr:`kind` (the checkpoint is read whole and checked)."""
        folder, manifest = checkpoint.folder, checkpoint.manifest
        source = folder / MANIFEST
        config = checked_field(manifest, "config", dict, source)
        simulator = checked_field(manifest, "simulator", dict, source)
        schema = checked_field(manifest, "schema", dict, source)
        metadata = checked_field(manifest, "metadata", dict, source, default={})
        n_bins, seed = (checked_field(config, key, int, source, problem="corrupted config")
                        for key in ("n_bins", "seed"))  # fmt: skip
        facts = {key: checked_field(simulator, key, types, source, problem="corrupted simulator")
                 for key, types in _SIMULATOR_FIELDS.items()}  # fmt: skip
        try:
            model = cls(n_bins=n_bins, seed=seed)
            model.schema = StateSchema.from_dict(schema)
            model.mask_table = np.asarray(facts["mask_table"], dtype=bool)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise CheckpointError(f"{source}: corrupted manifest ({error!r})") from error
        model.obs_names = tuple(manifest["obs_names"])
        model.metadata = dict(metadata)
        model.n_actions, model.noop_action = facts["n_actions"], facts["noop_action"]
        model.max_episode_steps = facts["max_episode_steps"]
        model._check_restored(source)
        files = {name: checkpoint_file(checkpoint, name) for name in cls.parameter_files()}
        model.restore_parameters(config, files, folder)
        if START_STATES in checkpoint.files:
            starts = array_from_bytes(checkpoint.files[START_STATES], folder / START_STATES)
            d = len(model.obs_names)
            if starts.ndim != 2 or starts.shape[1] != d or starts.dtype.kind != "f":
                raise CheckpointError(
                    f"{folder / START_STATES}: corrupted (start states of shape {starts.shape} "
                    f"and dtype {starts.dtype}, expected (N, {d}) floats)"
                )
            model.start_states = starts
        return model

    def _check_restored(self, source: Path) -> None:
        """Raise :class:`CheckpointError` unless the restored facts agree with each other."""
        schema, d, table = self._fitted_schema(), len(self.obs_names), self.mask_table
        checks = [
            (self.obs_names == schema.obs_names, "obs_names",
             f"{d} names, not the schema's {len(schema.obs_names)}"),
            (schema.low.shape == schema.high.shape == (d,), "schema",
             f"bounds of shapes {schema.low.shape} and {schema.high.shape} for {d} names"),
            (self.n_actions >= 1, "simulator.n_actions", f"{self.n_actions}, below 1"),
            (table.ndim == 2 and len(table) > 0 and table.shape[1] == self.n_actions,
             "simulator.mask_table", f"of shape {table.shape}, not (K, {self.n_actions})"),
            (self.noop_action is None or 0 <= self.noop_action < self.n_actions,
             "simulator.noop_action", f"{self.noop_action}, not an action"),
            (self.max_episode_steps >= 1, "simulator.max_episode_steps",
             f"{self.max_episode_steps}, below 1"),
        ]  # fmt: skip
        for holds, field, problem in checks:
            if not holds:
                raise CheckpointError(f"{source}: corrupted (field {field!r} is {problem})")

    # ------------------------------------------------------------------ helpers

    def _fit_simulator_facts(self, transitions: Transitions) -> None:
        """Masks per stage, the no-op action, the longest episode and the start states."""
        keys = self._mask_keys(transitions.obs)
        stage = self._stage_part()
        n_keys = 1 if stage is None else stage.heads["stage"]
        table = np.zeros((n_keys, self.n_actions), dtype=bool)
        if transitions.masks is None:
            table[np.unique(keys)] = True
        else:
            np.logical_or.at(table, keys, transitions.masks)
        self.mask_table = table
        seen = table[table.any(axis=1)]
        always = np.flatnonzero(seen.all(axis=0))
        self.noop_action = int(always[-1]) if len(always) else None
        starts = transitions.episode_starts()
        lengths = np.diff(np.r_[starts, len(transitions)])
        self.max_episode_steps = int(lengths.max())
        rng = np.random.default_rng(self.seed)
        if len(starts) > self.max_start_states:
            starts = np.sort(rng.choice(starts, self.max_start_states, replace=False))
        self.start_states = transitions.obs[starts].astype(np.float32)

    def _stage_part(self) -> OneHotPart | None:
        part = self.schema.part("stage") if self.schema is not None else None
        return part if isinstance(part, OneHotPart) else None

    def _mask_keys(self, obs: np.ndarray) -> np.ndarray:
        stage = self._stage_part()
        if stage is None:
            return np.zeros(len(obs), dtype=np.int64)
        classes, valid = stage.targets(obs)["stage"]
        return np.where(valid, classes, 0)

    def _check(self, obs: np.ndarray, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self._fitted_schema()  # raises before fit() or load()
        obs = np.asarray(obs, dtype=np.float32)
        action = np.asarray(action).reshape(-1).astype(np.int64)
        if obs.ndim != 2 or obs.shape[1] != len(self.obs_names):
            raise ValueError(f"obs must have shape (N, {len(self.obs_names)}), got {obs.shape}")
        if len(action) != len(obs):
            raise ValueError(f"{len(action)} actions for {len(obs)} observations")
        if len(action) and (action.min() < 0 or action.max() >= self.n_actions):
            raise ValueError(f"actions must lie in 0..{self.n_actions - 1}")
        return obs, action

    def _fitted_schema(self) -> StateSchema:
        """The schema; a RuntimeError before :meth:`fit` or :meth:`load`."""
        if self.schema is None:
            raise RuntimeError(f"{type(self).__name__} is not fitted: call fit() or load()")
        return self.schema
