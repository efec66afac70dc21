"""Atomic, versioned saving: write to a temporary file beside the target, then rename."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from assembly_gym.core.errors import CheckpointError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance  # typeshed's dataclass protocol (no runtime module)

T = TypeVar("T", bound="DataclassInstance")

__all__ = [
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "dataclass_from_dict",
    "read_versioned_json",
]


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates the file private (0o600); give it the permissions a plain open() would:
    # those of the file it replaces, else 0o666 minus the umask.
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666 & ~_umask()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            os.chmod(temporary, mode)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask (reading it means setting it, so it is set straight back)."""
    umask = os.umask(0)
    os.umask(umask)
    return umask


def atomic_write_text(path: str | Path, text: str) -> None:
    """Atomically write UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(
    path: str | Path, payload: dict[str, Any], *, kind: str, version: int
) -> None:
    """Atomically write a JSON document tagged with its ``kind`` and format ``version``."""
    document = {"kind": kind, "format_version": version, **payload}
    atomic_write_text(path, json.dumps(document, indent=2, sort_keys=False) + "\n")


def read_versioned_json(path: str | Path, *, kind: str, version: int) -> dict[str, Any]:
    """Read a document written by :func:`atomic_write_json`, checking kind and version.

    Raises:
        CheckpointError: missing file, invalid JSON, another kind or an unsupported version.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: file not found")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{path}: corrupted ({error})") from error
    if not isinstance(document, dict):
        raise CheckpointError(f"{path}: not a {kind!r} file")
    if document.get("kind") != kind:
        raise CheckpointError(f"{path}: expected a {kind!r} file, found {document.get('kind')!r}")
    if document.get("format_version") != version:
        raise CheckpointError(
            f"{path}: format version {document.get('format_version')!r}, this code reads {version}"
        )
    return document


def dataclass_from_dict(cls: type[T], values: dict[str, Any], *, what: str) -> T:
    """``cls(**values)`` for a saved config; unknown keys raise ValueError naming the known ones."""
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown {what} options {unknown}; known: {sorted(known)}")
    return cls(**values)
