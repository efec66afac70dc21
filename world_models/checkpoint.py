"""Checkpoint folders of world models: artifacts saved whole, with a versioned manifest.

A saved model is a folder, written and read by :mod:`assembly_gym.core.artifact`
(docs/world_models.md, section "Checkpoints")::

    MODEL_DIR/
        world_model.json    manifest: kind, format version, artifact id, observation names,
                            config, state, and the SHA-256 and size of every other file
        <parameter files>   whatever the model kind needs (npz arrays, torch state dicts)
        start_states.npy    start-state distribution of the simulator (optional)

Any model kind registers with :func:`assembly_gym.world_models.base.register_world_model`
to be loadable by :func:`assembly_gym.world_models.base.load_world_model`.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assembly_gym.core.artifact import Artifact, read_artifact, write_artifact
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import checked_field

if TYPE_CHECKING:
    from torch import nn

__all__ = [
    "FORMAT_VERSION",
    "MANIFEST",
    "CHECKPOINT_KIND",
    "START_STATES",
    "Artifact",
    "check_layout",
    "checkpoint_file",
    "load_torch_weights",
    "load_weights_only",
    "read_checkpoint",
    "read_manifest",
    "save_checkpoint",
]

MANIFEST = "world_model.json"
START_STATES = "start_states.npy"
FORMAT_VERSION = 1
CHECKPOINT_KIND = "world_model"
"""The manifest's ``kind`` of every world-model checkpoint."""


def save_checkpoint(
    folder: str | Path,
    *,
    model_kind: str,
    module: str,
    obs_names: Sequence[str],
    payload: Mapping[str, Any],
    files: Mapping[str, bytes],
) -> str:
    """Save a checkpoint folder whole; returns its artifact id.

    Args:
        folder: the model folder (created if needed, replaced whole if it holds a checkpoint).
        model_kind: the kind :func:`~assembly_gym.world_models.base.load_world_model` dispatches on.
        module: the module that registers ``model_kind`` (imported on load if needed).
        obs_names: the observation layout the model was trained on.
        payload: JSON-serialisable config and state, stored in the manifest.
        files: file name → content.

    Raises:
        CheckpointError: ``folder`` is a file or a folder of other files.
    """
    manifest = {"model_kind": model_kind, "module": module, "obs_names": list(obs_names)}
    return write_artifact(
        folder,
        files,
        manifest=MANIFEST,
        payload={**manifest, **payload},
        kind=CHECKPOINT_KIND,
        version=FORMAT_VERSION,
    )


def read_checkpoint(folder: str | Path, *, layout: Sequence[str] | None = None) -> Artifact:
    """Read a checkpoint whole: its checked manifest and the bytes of every file it lists.

    Args:
        folder: the model folder.
        layout: observation names the model must have, or None.

    Raises:
        CheckpointError: no such folder, a missing, corrupted or truncated file, a manifest
            field of the wrong type, another format version, or another layout.
    """
    checkpoint = read_artifact(
        folder, manifest=MANIFEST, kind=CHECKPOINT_KIND, version=FORMAT_VERSION
    )
    manifest, source = checkpoint.manifest, checkpoint.folder / MANIFEST
    checked_field(manifest, "model_kind", str, source)
    checked_field(manifest, "module", str, source)
    checked_field(manifest, "obs_names", list, source, items=str)
    if layout is not None:
        check_layout(manifest["obs_names"], layout, checkpoint.folder)
    return checkpoint


def read_manifest(folder: str | Path, *, layout: Sequence[str] | None = None) -> dict[str, Any]:
    """The checked manifest of a checkpoint (see :func:`read_checkpoint`)."""
    return read_checkpoint(folder, layout=layout).manifest


def checkpoint_file(checkpoint: Artifact, name: str) -> bytes:
    """The bytes of one file of a checkpoint; :class:`CheckpointError` when it has none."""
    if name not in checkpoint.files:
        raise CheckpointError(
            f"{checkpoint.folder / name}: not in the checkpoint (its {MANIFEST} lists "
            f"{sorted(checkpoint.files)})"
        )
    return checkpoint.files[name]


def load_torch_weights(module: nn.Module, data: bytes, source: object) -> None:
    """Load a saved state dict into ``module``, refusing anything but named tensors.

    Raises:
        CheckpointError: ``data`` is not a state dict of tensors, or not ``module``'s.
    """
    import torch

    state = load_weights_only(data, source)
    if not isinstance(state, dict) or not all(
        isinstance(key, str) and isinstance(value, torch.Tensor) for key, value in state.items()
    ):
        raise CheckpointError(f"{source}: corrupted weights (not a state dict of tensors)")
    try:
        module.load_state_dict(state)
    except RuntimeError as error:  # torch's message lists the keys on several lines
        detail = " ".join(str(error).split())
        raise CheckpointError(f"{source}: weights of another layout ({detail})") from error


def load_weights_only(data: bytes, source: object) -> Any:
    """What ``torch.save`` wrote into ``data``, if only tensors and plain values (onto the CPU).

    ``torch.load(weights_only=True)`` refuses pickled code, but reports it (and garbage,
    truncated or hostile bytes) with whatever the unpickler or zip reader raises, in messages
    of many lines that suggest loading the file unsafely; here all become one line.

    Raises:
        CheckpointError: "refused: not a weights-only tensor file", naming ``source``.
    """
    import torch

    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # untrusted bytes: whatever torch raises means the same
        raise CheckpointError(f"{source}: refused: not a weights-only tensor file") from error


def check_layout(saved: Sequence[str], layout: Sequence[str], source: object) -> None:
    """Raise :class:`CheckpointError` unless a model's observation names equal an env's.

    Args:
        saved: the names the model was trained on.
        layout: the env's names (an ``ObservationLayout`` or a sequence of names).
        source: the checkpoint, for the message.
    """
    saved, names = tuple(saved), tuple(layout)
    if saved == names:
        return
    where = next((i for i, (a, b) in enumerate(zip(saved, names, strict=False)) if a != b),
                 min(len(saved), len(names)))  # fmt: skip
    model_name = saved[where] if where < len(saved) else "(none)"
    env_name = names[where] if where < len(names) else "(none)"
    raise CheckpointError(
        f"{source}: observation layout does not match: the model was trained on {len(saved)} "
        f"dimensions, the env has {len(names)}; first difference at dimension {where}: "
        f"{model_name!r} in the model, {env_name!r} in the env. Train a model on this env "
        "(`assembly-gym worldmodel train`)"
    )
