"""Atomic, versioned saving (temporary file beside the target, then rename); checked reading.

Reading back refuses what a tampered or truncated file may hold: a ``format_version`` that is not
an int, a field of the wrong JSON type (:func:`checked_field`), arrays that are not plain ``.npy`` /
``.npz`` data (:func:`arrays_from_bytes`); each raises :class:`CheckpointError` naming the file.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import stat
import uuid
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from assembly_gym.core.errors import CheckpointError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance  # typeshed's dataclass protocol (no runtime module)

T = TypeVar("T", bound="DataclassInstance")

__all__ = [
    "array_from_bytes",
    "array_to_bytes",
    "arrays_from_bytes",
    "arrays_to_bytes",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "check_versioned_document",
    "checked_field",
    "current_umask",
    "dataclass_from_dict",
    "mode_of",
    "read_versioned_json",
    "write_synced",
]

_REQUIRED: Any = object()
_CORRUPTED = (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error)
"""What numpy raises on truncated or altered ``.npy`` / ``.npz`` bytes."""


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write_synced(temporary, data, mode_of(path, 0o666))
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_synced(path: Path, data: bytes, mode: int) -> None:
    """Write a new file (never one that exists) with permissions ``mode``, flushed to disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "xb") as file:
        os.chmod(path, mode)
        file.write(data)
        file.flush()
        os.fsync(file.fileno())


def mode_of(path: Path, default: int) -> int:
    """The permissions of the entry a write replaces, else ``default`` minus the umask.

    A plain ``open()`` gives a new file 0o666 minus the umask; a write that replaces a file
    keeps that file's permissions.
    """
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return default & ~current_umask()


def current_umask() -> int:
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
    check_versioned_document(document, path, kind=kind, version=version)
    return document


def check_versioned_document(document: object, path: Path, *, kind: str, version: int) -> None:
    """Raise :class:`CheckpointError` unless ``document`` is a dict of ``kind`` and ``version``.

    ``format_version`` must be an int (JSON ``true`` equals 1 in Python, and is refused).
    """
    if not isinstance(document, dict):
        raise CheckpointError(f"{path}: not a {kind!r} file")
    if document.get("kind") != kind:
        raise CheckpointError(f"{path}: expected a {kind!r} file, found {document.get('kind')!r}")
    found = document.get("format_version")
    if type(found) is not int or found != version:
        raise CheckpointError(f"{path}: format version {found!r}, this code reads {version}")


def checked_field(
    document: Mapping[str, Any],
    key: str,
    expected: type | tuple[type, ...],
    source: object,
    *,
    items: type | tuple[type, ...] | None = None,
    default: Any = _REQUIRED,
    problem: str = "corrupted",
) -> Any:
    """``document[key]``, checked to be of a JSON type (a saved file may have been edited).

    Args:
        document: a decoded JSON object.
        key: the field.
        expected: its allowed types (``type(None)`` for null). ``bool`` is never taken for an
            ``int`` or ``float`` (JSON ``true`` is not 1) unless ``expected`` names it.
        source: the file, for the message.
        items: the allowed types of every element (a list) or value (a dict), or None.
        default: returned when the field is absent; without it an absent field is an error.
        problem: how the message names what is wrong with the file.

    Raises:
        CheckpointError: the field is absent (and has no default) or of another type.
    """
    if key not in document:
        if default is _REQUIRED:
            raise CheckpointError(f"{source}: {problem} (no field {key!r})")
        return default
    value = document[key]
    if not _is_a(value, expected):
        raise CheckpointError(
            f"{source}: {problem} (field {key!r} is {_json_type(value)}, expected "
            f"{' or '.join(_json_type_name(t) for t in _as_tuple(expected))})"
        )
    if items is not None and isinstance(value, list | dict):
        elements = value.values() if isinstance(value, dict) else value
        wrong = next((e for e in elements if not _is_a(e, items)), _REQUIRED)
        if wrong is not _REQUIRED:
            raise CheckpointError(
                f"{source}: {problem} (field {key!r} holds {_json_type(wrong)}, expected only "
                f"{' or '.join(_json_type_name(t) for t in _as_tuple(items))})"
            )
    return value


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _is_a(value: object, types: type | tuple[type, ...]) -> bool:
    types = _as_tuple(types)
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


_JSON_NAMES = {dict: "an object", list: "a list", str: "a string", int: "an integer",
               float: "a number", bool: "true or false", type(None): "null"}  # fmt: skip


def _json_type_name(kind: type) -> str:
    return _JSON_NAMES.get(kind, kind.__name__)


def _json_type(value: object) -> str:
    return _json_type_name(type(value))


def array_to_bytes(array: np.ndarray) -> bytes:
    """An array in ``.npy`` format."""
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array, order="C"), allow_pickle=False)
    return buffer.getvalue()


def array_from_bytes(data: bytes, source: object) -> np.ndarray:
    """Read ``.npy`` bytes; :class:`CheckpointError` when they are not a plain array."""
    try:
        loaded = np.load(io.BytesIO(data), allow_pickle=False)
        if isinstance(loaded, np.ndarray):
            return loaded
    except _CORRUPTED as error:
        raise CheckpointError(f"{source}: corrupted array ({error})") from error
    raise CheckpointError(f"{source}: corrupted array (an .npz archive, not an .npy array)")


def arrays_to_bytes(arrays: Mapping[str, np.ndarray], *, compress: bool = False) -> bytes:
    """Named arrays in ``.npz`` format (deflated with ``compress``)."""
    buffer = io.BytesIO()
    contiguous = {name: np.asarray(a, order="C") for name, a in arrays.items()}  # 0-d stays 0-d
    save = np.savez_compressed if compress else np.savez
    save(buffer, **contiguous)  # type: ignore[arg-type]  # numpy's stub: a name may be allow_pickle
    return buffer.getvalue()


def arrays_from_bytes(data: bytes, source: object) -> dict[str, np.ndarray]:
    """Read ``.npz`` bytes; :class:`CheckpointError` when they are not plain named arrays.

    A truncated or altered archive raises ``BadZipFile`` or ``zlib.error`` deep in numpy; an
    ``.npy`` where an archive belongs comes back as one array: both are refused here.
    """
    try:
        loaded = np.load(io.BytesIO(data), allow_pickle=False)
        if isinstance(loaded, np.lib.npyio.NpzFile):
            with loaded:
                return {name: loaded[name] for name in loaded.files}
    except _CORRUPTED as error:
        raise CheckpointError(f"{source}: corrupted arrays ({error})") from error
    raise CheckpointError(f"{source}: corrupted arrays (an .npy array, not an .npz archive)")


def dataclass_from_dict(cls: type[T], values: dict[str, Any], *, what: str) -> T:
    """``cls(**values)`` for a saved config; unknown keys raise ValueError naming the known ones."""
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown {what} options {unknown}; known: {sorted(known)}")
    return cls(**values)
