"""Checkpoint folders of world models: files written atomically, a versioned manifest last.

A saved model is a folder::

    MODEL_DIR/
        world_model.json    manifest: kind, format version, observation names, config,
                            state, and the SHA-256 of every other file
        <parameter files>   whatever the model kind needs (npz arrays, torch state dicts)
        start_states.npy    start-state distribution of the simulator (optional)

Every file goes through :mod:`assembly_gym.core.persist` (temporary file, then rename), and the
manifest is written last: a reader sees either a whole old checkpoint, or a manifest whose
checksums expose the half-written one. Any model kind (including LeWorld) can use these helpers and
:func:`assembly_gym.world_models.base.register_world_model` to be loadable by
:func:`assembly_gym.world_models.base.load_world_model`.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import atomic_write_bytes, atomic_write_json, read_versioned_json

__all__ = [
    "FORMAT_VERSION",
    "MANIFEST",
    "START_STATES",
    "array_from_bytes",
    "array_to_bytes",
    "arrays_from_bytes",
    "arrays_to_bytes",
    "check_layout",
    "load_start_states",
    "read_checkpoint_file",
    "read_manifest",
    "save_checkpoint",
]

MANIFEST = "world_model.json"
START_STATES = "start_states.npy"
FORMAT_VERSION = 1
_KIND = "world_model"


def save_checkpoint(
    folder: str | Path,
    *,
    model_kind: str,
    module: str,
    obs_names: Sequence[str],
    payload: Mapping[str, Any],
    files: Mapping[str, bytes],
) -> None:
    """Write a checkpoint folder: the files first, then the manifest with their checksums.

    Args:
        folder: the model folder (created if needed).
        model_kind: the kind :func:`~assembly_gym.world_models.base.load_world_model` dispatches on.
        module: the module that registers ``model_kind`` (imported on load if needed).
        obs_names: the observation layout the model was trained on.
        payload: JSON-serialisable config and state, stored in the manifest.
        files: file name → content.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise CheckpointError(f"{folder}: exists and is not a folder")
    for name, data in files.items():
        atomic_write_bytes(folder / name, data)
    manifest = {
        "model_kind": model_kind,
        "module": module,
        "obs_names": list(obs_names),
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()},
        **payload,
    }
    atomic_write_json(folder / MANIFEST, manifest, kind=_KIND, version=FORMAT_VERSION)


def read_manifest(folder: str | Path, *, layout: Sequence[str] | None = None) -> dict[str, Any]:
    """Read and check a checkpoint's manifest and the checksums of its files.

    Args:
        folder: the model folder.
        layout: observation names the model must have, or None.

    Raises:
        CheckpointError: no such folder, a missing, corrupted or truncated file, another
            format version, or another layout.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: no saved world model here (folder not found)")
    manifest = read_versioned_json(folder / MANIFEST, kind=_KIND, version=FORMAT_VERSION)
    missing = [key for key in ("model_kind", "obs_names", "files") if key not in manifest]
    if missing:
        raise CheckpointError(f"{folder / MANIFEST}: corrupted (no {', '.join(missing)})")
    if layout is not None:
        check_layout(manifest["obs_names"], layout, folder)
    for name, digest in manifest["files"].items():
        if hashlib.sha256(read_checkpoint_file(folder, name)).hexdigest() != digest:
            raise CheckpointError(
                f"{folder / name}: corrupted or truncated (checksum differs from the one saved "
                "in the manifest); restore the folder or train the model again"
            )
    return manifest


def read_checkpoint_file(folder: str | Path, name: str) -> bytes:
    """The bytes of one file of a checkpoint; :class:`CheckpointError` when it is missing."""
    path = Path(folder) / name
    if not path.is_file():
        raise CheckpointError(f"{path}: file not found (the checkpoint is incomplete)")
    return path.read_bytes()


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


def load_start_states(folder: str | Path) -> np.ndarray | None:
    """The start states saved beside a model, shape (N0, d) float32, or None if there are none."""
    path = Path(folder) / START_STATES
    if not path.is_file():
        return None
    return array_from_bytes(path.read_bytes(), path)


def array_to_bytes(array: np.ndarray) -> bytes:
    """An array in ``.npy`` format."""
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def array_from_bytes(data: bytes, source: object) -> np.ndarray:
    """Read ``.npy`` bytes; :class:`CheckpointError` when they are not a valid array."""
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise CheckpointError(f"{source}: corrupted array ({error})") from error


def arrays_to_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    """Named arrays in ``.npz`` format."""
    buffer = io.BytesIO()
    contiguous = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    np.savez(buffer, **contiguous)  # type: ignore[arg-type]  # numpy's stub: a name may be allow_pickle
    return buffer.getvalue()


def arrays_from_bytes(data: bytes, source: object) -> dict[str, np.ndarray]:
    """Read ``.npz`` bytes; :class:`CheckpointError` when they are not valid."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
        raise CheckpointError(f"{source}: corrupted arrays ({error})") from error
