"""The world-model protocol: fit on transitions, predict distributions, sample, save and load.

Every learned transition model (frequency tables, MLP ensembles, the LeWorld memory system)
implements :class:`WorldModel`, so that ``assembly/Simulator-v0`` and the evaluation code
can run any of them. A saved model is a folder; :func:`load_world_model` reads the kind it
was saved as and hands the folder to the loader that kind registered with
:func:`register_world_model`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.transitions import Transitions
from assembly_gym.world_models.checkpoint import Artifact, read_checkpoint

__all__ = [
    "Prediction",
    "WorldModel",
    "load_world_model",
    "register_world_model",
]


@dataclass(frozen=True)
class Prediction:
    """A model's predictive distribution of s' for a batch of (s, a).

    Attributes:
        mean: expected next observation, shape (N, d).
        std: aleatoric standard deviation per dimension, shape (N, d) (0 where a dimension
            is predicted by a categorical distribution).
        epistemic_std: disagreement between ensemble members, shape (N, d), or None.
        distributions: named categorical distributions over discrete parts of the state
            (e.g. "stage", "adopted", "plenary_yes_bin"), each of shape (N, K) with rows
            summing to 1.
    """

    mean: np.ndarray
    std: np.ndarray
    epistemic_std: np.ndarray | None = None
    distributions: dict[str, np.ndarray] = field(default_factory=dict)


@runtime_checkable
class WorldModel(Protocol):
    """What a simulator needs from a learned transition model.

    Optional, used where present: ``log_prob(obs, action, next_obs)`` (log-likelihood of
    s', shape (N,), for the held-out NLL), ``n_actions``, ``start_states`` (N0, d),
    ``observation_bounds`` ((d,), (d,)), ``action_masks(obs)`` (N, n_actions),
    ``noop_action``, ``max_episode_steps`` and ``state_declaration`` (the modelled env
    family's :class:`~assembly_gym.core.state.StateDeclaration`, as its training
    transitions carried it; else the empty one) (see ``assembly_gym.world_models.simulator``).
    """

    obs_names: tuple[str, ...]

    def fit(self, transitions: Transitions) -> WorldModel:
        """Learn from transitions; returns self."""
        ...

    def predict(self, obs: np.ndarray, action: np.ndarray) -> Prediction:
        """Predictive distribution of s' for a batch: obs (N, d), action (N,) or (N, k)."""
        ...

    def sample(self, obs: np.ndarray, action: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One sampled s' per row, shape (N, d)."""
        ...

    def save(self, path: str | Path) -> None:
        """Save atomically into the folder ``path`` (config, layout, parameters, version)."""
        ...


Loader = Callable[[Artifact], WorldModel]
_LOADERS: dict[str, Loader] = {}


def register_world_model(kind: str, loader: Loader) -> None:
    """Make :func:`load_world_model` read checkpoints saved as ``kind``.

    Args:
        kind: the ``model_kind`` written in the checkpoint's manifest.
        loader: ``loader(checkpoint) -> model``; the checkpoint
            (:class:`~assembly_gym.core.artifact.Artifact`: ``folder``, ``manifest``, ``files``)
            is read whole and checked (format version, layout, file checksums).
    """
    _LOADERS[kind] = loader


def load_world_model(path: str | Path, *, layout: Sequence[str] | None = None) -> WorldModel:
    """Load any saved world model from its folder.

    Args:
        path: the folder the model was saved into.
        layout: observation names the model must have been trained on (an env's
            ``layout``), or None to accept any.

    Raises:
        CheckpointError: missing or corrupted files, another format version, an unknown
            kind, or a layout that differs from ``layout``.
    """
    checkpoint = read_checkpoint(path, layout=layout)
    folder, manifest = checkpoint.folder, checkpoint.manifest
    kind = manifest["model_kind"]
    if kind not in _LOADERS:
        module = manifest["module"]
        if not module.startswith("assembly_gym.world_models."):
            raise CheckpointError(f"{folder}: unknown world-model kind {kind!r}")
        try:
            importlib.import_module(module)  # registers its kinds
        except ImportError as error:
            raise CheckpointError(
                f"{folder}: cannot import {module} for {kind!r}: {error}"
            ) from error
        if kind not in _LOADERS:
            raise CheckpointError(f"{folder}: {module} registers no kind {kind!r}")
    return _LOADERS[kind](checkpoint)
