"""Atomic, versioned saving (temporary file beside the target, then rename); checked reading.

Reading back refuses what a tampered or truncated file may hold: a ``format_version`` that is not
an int, a field of the wrong JSON type (:func:`checked_field`) or not of its dataclass field's
annotation (:func:`dataclass_from_dict`), arrays that are not plain ``.npy`` / ``.npz`` data or
claim more than the file holds (:func:`arrays_from_bytes`); each raises :class:`CheckpointError`
naming the file and the field.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import numbers
import os
import re
import shutil
import stat
import sys
import time
import types
import typing
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import numpy as np

from assembly_gym.core.errors import CheckpointError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance  # typeshed's dataclass protocol (no runtime module)

if sys.platform == "win32":  # no advisory locks: leftovers are not cleaned up
    fcntl = None
else:
    import fcntl

T = TypeVar("T", bound="DataclassInstance")

__all__ = [
    "array_from_bytes",
    "array_to_bytes",
    "arrays_from_bytes",
    "arrays_to_bytes",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "check_output_file",
    "check_versioned_document",
    "checked_field",
    "current_umask",
    "MAX_INFLATED_BYTES",
    "dataclass_from_dict",
    "json_header",
    "leftovers",
    "lock",
    "mode_of",
    "read_versioned_json",
    "remove_leftovers",
    "temporary_sibling",
    "write_synced",
]

_REQUIRED: Any = object()
_CORRUPTED = (ValueError, OSError, EOFError, NotImplementedError, RuntimeError,
              zipfile.BadZipFile, zlib.error)  # fmt: skip
"""What numpy and zipfile raise on truncated or altered ``.npy`` / ``.npz`` bytes (an unknown
compression method: NotImplementedError; an encrypted member: RuntimeError)."""
_ZIP_MAGIC = b"PK\x03\x04"
_NPY_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0,
                (2, 0): np.lib.format.read_array_header_2_0}  # fmt: skip
MAX_INFLATED_BYTES = 1 << 30
"""The most bytes the arrays of one ``.npz`` file may inflate to (a few MB of zeros can claim
gigabytes); the largest that this library saves, a reward model's history of every UN roll
call, inflates from 1 MB to 41 MB."""


_LEFTOVER_AGE_S = 10.0


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one.

    The bytes go to a temporary sibling (:func:`temporary_sibling`), renamed over ``path``; the
    siblings that killed writes of ``path`` left are deleted first (:func:`remove_leftovers`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(path)
    temporary = temporary_sibling(path)
    try:
        write_synced(temporary, data, mode_of(path, 0o666))
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_synced(path: Path, data: bytes, mode: int) -> None:
    """Write a new file (never one that exists) with permissions ``mode``, flushed to disk.

    The file is locked while it is written (see :func:`leftovers`).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "xb") as file:
        if sys.platform != "win32":
            fcntl.flock(file.fileno(), fcntl.LOCK_EX)
        os.chmod(path, mode)
        file.write(data)
        file.flush()
        os.fsync(file.fileno())


def temporary_sibling(path: Path) -> Path:
    """A new name beside ``path`` for one save's temporary file or folder, ``.NAME.<32 hex>.tmp``.

    Only names of this form are ever deleted as leftovers: a user's ``.NAME.backup.tmp`` is not.
    """
    return path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")


def leftovers(path: Path, *, min_age_s: float | None = None) -> Iterator[Path]:
    """The temporary siblings of ``path`` that saves which died left, each locked while yielded.

    Yields names from :func:`temporary_sibling`, at least ``min_age_s`` old (default 10 s: a
    younger one may still be taking its lock), whose advisory lock no live process holds (a
    live save holds its sibling's lock from its first bytes to its end); none where there are
    no advisory locks (Windows).
    """
    if sys.platform == "win32":
        return
    min_age_s = _LEFTOVER_AGE_S if min_age_s is None else min_age_s
    pattern = re.compile(rf"\.{re.escape(path.name)}\.[0-9a-f]{{32}}\.tmp")
    try:
        siblings = sorted(path.parent.iterdir())
    except OSError:  # no such folder yet, or not readable
        return
    for leftover in siblings:
        if not pattern.fullmatch(leftover.name):
            continue
        try:
            if time.time() - leftover.lstat().st_mtime < min_age_s:
                continue
            descriptor = os.open(leftover, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            continue  # a live save holds it
        try:
            yield leftover
        finally:
            os.close(descriptor)


def remove_leftovers(path: Path) -> None:
    """Delete the temporary siblings that killed saves of ``path`` left (see :func:`leftovers`)."""
    for leftover in leftovers(path):
        if leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)


def lock(path: Path) -> int | None:
    """Hold an exclusive advisory lock on a folder until the returned descriptor is closed.

    None where there are no advisory locks (Windows). A lock ends with its process.
    """
    if sys.platform == "win32":
        return None
    descriptor = os.open(path, os.O_RDONLY)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    return descriptor


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
    """Atomically write a JSON document tagged with its ``kind`` and format ``version``.

    Raises:
        CheckpointError: ``path`` is a file that is not such a document of ``kind`` (a user's
            file is never replaced; see :func:`check_output_file`).
    """
    check_output_file(path, header=json_header(kind))
    document = {"kind": kind, "format_version": version, **payload}
    atomic_write_text(path, json.dumps(document, indent=2, sort_keys=False) + "\n")


def check_output_file(path: str | Path, *, header: bytes | None) -> Path:
    """Check that a single-file output may be written at ``path``, before any work.

    Allowed: a path where nothing exists, or a file that begins with ``header``, the first bytes
    of every file of this output (an earlier one: it is replaced; :func:`json_header` for a
    document of :func:`atomic_write_json`). An output without a ``header`` (a PNG figure, a
    Markdown report) cannot be told apart from a user's file, so it replaces none.

    Raises:
        CheckpointError: ``path`` is a folder or another file.
    """
    path = Path(path)
    if path.is_dir():
        raise CheckpointError(f"{path}: is a folder; name a file")
    if not os.path.lexists(path):
        return path
    if header is not None and path.is_file():  # never opens a FIFO
        try:
            with open(path, "rb") as file:
                if file.read(len(header)) == header:
                    return path
        except OSError as error:
            raise CheckpointError(f"{path}: cannot read ({error.strerror or error})") from error
    earlier = "" if header is None else f", and does not begin as this output does ({header!r})"
    raise CheckpointError(f"{path}: exists{earlier}; a file that may be yours is never "
                          "replaced: move it away or name a new file")  # fmt: skip


def json_header(kind: str) -> bytes:
    """The first bytes of every document of ``kind`` that :func:`atomic_write_json` writes."""
    return f'{{\n  "kind": {json.dumps(kind)},\n'.encode()


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
    """Read ``.npy`` bytes; :class:`CheckpointError` when they are not a plain array.

    The header is checked before anything is allocated: an array must fill the bytes present
    exactly (a header that claims 10¹² rows is refused, not a ``MemoryError``).
    """
    if data.startswith(_ZIP_MAGIC):
        raise CheckpointError(f"{source}: corrupted array (an .npz archive, not an .npy array)")
    try:
        return _npy_array(io.BytesIO(data), len(data))
    except _CORRUPTED as error:
        raise CheckpointError(f"{source}: corrupted array ({error})") from error


def arrays_to_bytes(arrays: Mapping[str, np.ndarray], *, compress: bool = False) -> bytes:
    """Named arrays in ``.npz`` format (deflated with ``compress``)."""
    buffer = io.BytesIO()
    contiguous = {name: np.asarray(a, order="C") for name, a in arrays.items()}  # 0-d stays 0-d
    save = np.savez_compressed if compress else np.savez
    save(buffer, **contiguous)  # type: ignore[arg-type]  # numpy's stub: a name may be allow_pickle
    return buffer.getvalue()


def arrays_from_bytes(data: bytes, source: object) -> dict[str, np.ndarray]:
    """Read ``.npz`` bytes; :class:`CheckpointError` when they are not plain named arrays.

    Sizes are checked before anything is inflated: the members together at most
    :data:`MAX_INFLATED_BYTES` (a small archive of zeros may claim gigabytes), each member
    exactly the array its header declares.
    """
    if not data.startswith(_ZIP_MAGIC):
        raise CheckpointError(f"{source}: corrupted arrays (not an .npz archive)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            inflated = sum(member.file_size for member in members)
            if inflated > MAX_INFLATED_BYTES:
                raise ValueError(f"they inflate to {inflated:,} bytes, more than the "
                                 f"{MAX_INFLATED_BYTES:,} this library reads")  # fmt: skip
            arrays = {}
            for member in members:
                name = member.filename.removesuffix(".npy")
                if name == member.filename:
                    raise ValueError(f"member {name!r} is not an .npy array")
                with archive.open(member) as file:
                    arrays[name] = _npy_array(file, member.file_size)
            return arrays
    except _CORRUPTED as error:
        raise CheckpointError(f"{source}: corrupted arrays ({error})") from error


def _npy_array(file: IO[bytes], size: int) -> np.ndarray:
    """The array of ``size`` ``.npy`` bytes in ``file``, its header checked before reading on.

    Raises:
        ValueError: another ``.npy`` version, objects, or data that does not fill ``size``.
    """
    version = np.lib.format.read_magic(file)
    read_header = _NPY_HEADERS.get(version)
    if read_header is None:
        raise ValueError(f".npy format version {version}, this code reads 1.0 and 2.0")
    shape, _, dtype = read_header(file)
    if dtype.hasobject:
        raise ValueError(f"dtype {dtype} holds Python objects")
    declared, present = math.prod(shape) * dtype.itemsize, size - file.tell()
    if declared != present:
        raise ValueError(f"its header declares shape {shape} of {dtype}, {declared:,} bytes; "
                         f"{present:,} are present")  # fmt: skip
    file.seek(0)
    return np.lib.format.read_array(file, allow_pickle=False)


def dataclass_from_dict(
    cls: type[T], values: Mapping[str, Any], *, what: str, source: object = None
) -> T:
    """``cls(**values)`` for given or saved settings, every value checked against its annotation.

    An annotation says what a value may be: ``int``, ``float`` (an int too), ``bool``, ``str``,
    ``None``, a ``Literal``, a union, ``tuple[X, ...]`` or ``list[X]`` (a list), ``dict[str, X]``,
    a nested dataclass (a dict, built the same way) or any other class (an instance); JSON
    ``true`` is not 1, nor ``1`` true. Absent fields take their defaults.

    Args:
        cls: the dataclass.
        values: its fields by name.
        what: the settings' name in messages ("world", "feature_config").
        source: the file the values were read from, or None for values a caller gave.

    Raises:
        ValueError: unknown keys (the message names the known ones), a missing field, a value
            of another type, or one that ``cls`` refuses; with ``source``, a
            :class:`CheckpointError` naming the file and the field.
    """
    try:
        if not isinstance(values, Mapping):
            raise ValueError(f"{_json_type(values)}, expected an object")
        return _dataclass(cls, values, what, "")
    except (ValueError, TypeError) as error:
        if source is None:
            raise
        raise CheckpointError(f"{source}: corrupted {what} ({error})") from error


def _dataclass(cls: type[T], values: Mapping[str, Any], what: str, path: str) -> T:
    fields = [f for f in dataclasses.fields(cls) if f.init]
    unknown = sorted(set(values) - {f.name for f in fields})
    if unknown:
        known = sorted(f.name for f in fields)
        raise ValueError(f"unknown {what} options {[path + u for u in unknown]}; known: {known}")
    hints = typing.get_type_hints(cls)
    chosen = {}
    for field in fields:
        if field.name in values:
            where = path + field.name
            chosen[field.name] = _typed(values[field.name], hints[field.name], what, where)
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise ValueError(f"no field {path + field.name!r}")
    return cls(**chosen)


def _typed(value: Any, hint: Any, what: str, where: str) -> Any:
    """``value`` as the annotation ``hint`` takes it (a list as a tuple, a dict as a dataclass)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        for option in args:
            with contextlib.suppress(ValueError):
                return _typed(value, option, what, where)
    elif origin is typing.Literal:
        if any(type(value) is type(a) and value == a for a in args):
            return value
        raise ValueError(f"field {where!r} is {value!r}, expected one of {list(args)}")
    elif dataclasses.is_dataclass(hint) and isinstance(value, Mapping):
        return _dataclass(hint, value, what, f"{where}.")  # type: ignore[arg-type]
    elif origin in (tuple, list):
        if isinstance(value, list | tuple):
            if origin is list or args[-1:] == (Ellipsis,):
                args = args[:1] * len(value)
            if len(args) == len(value):
                return origin(
                    _typed(v, a, what, f"{where}[{i}]")
                    for i, (v, a) in enumerate(zip(value, args, strict=True))
                )
    elif origin in (dict, Mapping):
        if isinstance(value, Mapping):
            return {k: _typed(v, args[1], what, f"{where}.{k}") for k, v in value.items()}
    elif hint in _CHECKS:
        if _CHECKS[hint](value):
            return value
    elif hint is Any or not isinstance(hint, type) or isinstance(value, hint):
        return value  # a class's instance, or an annotation this check does not read
    raise ValueError(f"field {where!r} is {_json_type(value)}, expected {_hint_name(hint)}")


def _hint_name(hint: Any) -> str:
    origin = typing.get_origin(hint) or hint
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_hint_name(a) for a in typing.get_args(hint))
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if dataclasses.is_dataclass(origin) or origin is Mapping:
        return _json_type_name(dict)
    return _json_type_name(list if origin is tuple else origin)


_CHECKS: dict[Any, Callable[[Any], bool]] = {
    bool: lambda v: isinstance(v, bool | np.bool_),
    int: lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool),
    float: lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_),
    str: lambda v: isinstance(v, str),
    type(None): lambda v: v is None,
}  # fmt: skip
