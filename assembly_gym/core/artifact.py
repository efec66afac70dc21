"""Artifacts: folders of files that are saved whole and read whole.

A saved model or report is a folder of files plus one JSON manifest (the artifact's id and the
SHA-256 and size of every other file). How a save swaps the folder in atomically, how a reader
never gets files of two saves, and what a killed save leaves: docs/reliability.md, "Saved artifacts
are whole". A save replaces a folder only when it holds nothing but an artifact of the same kind:
files that its manifest does not list (a user's notes, logs) are never deleted; the save is
refused instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import functools
import hashlib
import json
import os
import shutil
import stat
import sys
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import (
    check_versioned_document,
    checked_field,
    leftovers,
    lock,
    mode_of,
    remove_leftovers,
    temporary_sibling,
    write_synced,
)

__all__ = [
    "Artifact",
    "check_destination",
    "new_artifact_id",
    "read_artifact",
    "write_artifact",
]

_RESERVED = ("kind", "format_version", "artifact_id", "files")  # manifest fields of every artifact
_READ_ATTEMPTS = 5  # reads repeated when concurrent saves swap the folder mid-read
_OLD = "old"  # the old folder's name inside the folder aside of a save without exchange


@dataclass(frozen=True)
class Artifact:
    """A folder read whole: its manifest and the bytes of every file it lists."""

    folder: Path
    manifest: dict[str, Any]
    files: dict[str, bytes]

    @property
    def artifact_id(self) -> str:
        """The id shared by the files of one save."""
        return self.manifest["artifact_id"]


def new_artifact_id() -> str:
    """A fresh id for one save (32 hex digits)."""
    return uuid.uuid4().hex


def check_destination(path: str | Path, *, manifest: str, kind: str) -> Path:
    """Check, before any work, that an artifact of ``kind`` may be saved at ``path``.

    Allowed: a path that does not exist yet (under folders, or under nothing), an empty folder,
    or a folder holding an earlier artifact of the same kind and nothing else (it is replaced).

    Raises:
        CheckpointError: ``path`` is a file, a symbolic link, a folder of other files, a folder
            that holds files besides its artifact, the current folder or one above it, under a
            file, or in a folder this process may not write to.
    """
    path = Path(path)
    if path.is_symlink():  # a save would replace the link, not the folder it points to
        raise CheckpointError(f"{path}: is a symbolic link; name the folder it points to")
    if path.exists() and not path.is_dir():
        raise CheckpointError(f"{path}: exists and is not a folder")
    here = Path.cwd().resolve()
    if path.resolve() in (here, *here.parents):
        raise CheckpointError(f"{path}: the current folder or one above it; name a new folder")
    if path.is_dir():
        _check_replaceable(path, manifest, kind)
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise CheckpointError(f"{path}: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise CheckpointError(f"{path}: no permission to write in {ancestor}")
    return path


def _check_replaceable(folder: Path, manifest: str, kind: str) -> None:
    """Raise unless ``folder`` is empty or holds an artifact of ``kind`` and nothing else."""
    entries, data = _listing(folder, manifest)
    if not entries:
        return
    try:
        document = json.loads(data or b"")
    except ValueError:
        document = None
    if not isinstance(document, dict) or document.get("kind") != kind:
        raise CheckpointError(
            f"{folder}: the folder holds other files (no {kind!r} {manifest}); "
            "name a new or empty folder"
        )
    listed = document.get("files")
    own = {manifest} | {name.split("/")[0] for name in (listed if isinstance(listed, dict) else {})}
    foreign = sorted(entries - own)
    if foreign:
        shown = ", ".join(foreign[:5]) + (", …" if len(foreign) > 5 else "")
        raise CheckpointError(
            f"{folder}: holds files that are not part of its {kind!r} ({shown}); saving would "
            "delete them: move them away or name another folder"
        )


def _listing(folder: Path, manifest: str) -> tuple[set[str], bytes | None]:
    """The names in ``folder`` and its manifest's bytes, both of the same save."""
    for _attempt in range(_READ_ATTEMPTS):
        before = _read_file(folder, manifest)
        try:
            entries = set(os.listdir(folder))
        except FileNotFoundError:
            continue  # moved aside by a save without exchange
        except OSError as error:
            raise CheckpointError(f"{folder}: cannot read ({error.strerror or error})") from error
        if _read_file(folder, manifest) == before:
            return entries, before
    raise CheckpointError(f"{folder}: replaced again and again while being checked")


def write_artifact(
    folder: str | Path,
    files: Mapping[str, bytes],
    *,
    manifest: str,
    payload: Mapping[str, Any],
    kind: str,
    version: int,
    artifact_id: str | None = None,
) -> str:
    """Save a whole artifact folder atomically; returns its id.

    Args:
        folder: the artifact's folder (replaced whole if it holds an artifact of ``kind``).
        files: file name (relative, ``/`` between folders) → content; the manifest lists
            their checksums and sizes.
        manifest: the manifest's file name.
        payload: JSON-serialisable content of the manifest (not its own fields ``kind``,
            ``format_version``, ``artifact_id`` and ``files``).
        kind: the manifest's ``kind`` tag.
        version: the manifest's ``format_version``.
        artifact_id: the id the files were built with (from :func:`new_artifact_id`), or None
            for a fresh one.

    Raises:
        CheckpointError: the folder cannot hold this artifact (see :func:`check_destination`).
        ValueError: a file name that is not a plain relative path, or is the manifest's; a
            payload that sets a field of the manifest's own.
    """
    for name in files:
        problem = _name_problem(name)
        if problem or name == manifest:
            raise ValueError(f"file name {name!r}: {problem or 'the manifest has that name'}")
    clashes = [key for key in _RESERVED if key in payload]
    if clashes:
        raise ValueError(f"the payload may not set the manifest's own fields {clashes}")
    _restore(Path(os.path.abspath(folder)))
    folder = Path(os.path.abspath(check_destination(folder, manifest=manifest, kind=kind)))
    artifact_id = artifact_id or new_artifact_id()
    folder.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(folder)
    with _staging_folder(folder) as staging:
        for name, data in files.items():
            write_synced(staging / name, data, mode_of(folder / name, 0o666))
        listed = {name: _listed(data) for name, data in files.items()}
        document = {"kind": kind, "format_version": version, "artifact_id": artifact_id,
                    "files": listed, **payload}  # fmt: skip
        text = json.dumps(document, indent=2) + "\n"
        write_synced(staging / manifest, text.encode("utf-8"), mode_of(folder / manifest, 0o666))
        os.chmod(staging, mode_of(folder, 0o777))  # mkdtemp made it private while written
        _fsync_folder(staging)
        _swap_in(staging, folder)
        _fsync_folder(folder.parent)
    return artifact_id


def _listed(data: bytes) -> dict[str, Any]:
    """A file's entry in the manifest: its SHA-256 and size."""
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def _name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a file of an artifact (None when it can)."""
    if not isinstance(name, str):
        return "not a string"
    if "\\" in name or any(part in ("", ".", "..") for part in name.split("/")):
        return "not a plain relative path (parts joined by '/', none empty, '.' or '..')"
    return None


def read_artifact(folder: str | Path, *, manifest: str, kind: str, version: int) -> Artifact:
    """Read a folder written by :func:`write_artifact`, checking every file's size and checksum.

    The manifest (file name ``manifest``) must have this ``kind`` and ``format_version``. A
    save that swaps the folder while it is being read is detected and the read repeated. Inside
    the folder only plain files and folders are read, never a symbolic link (``folder`` itself
    may be one).

    Raises:
        CheckpointError: no such folder, a missing, corrupted or foreign manifest or file, a
            symbolic link or special file, a file that belongs to another save, another kind or
            another format version.
    """
    folder = Path(folder)
    _restore(folder)
    for _attempt in range(_READ_ATTEMPTS):
        try:
            return _read_once(folder, manifest, kind, version)
        except _SwappedWhileReading:
            continue
    raise CheckpointError(f"{folder}: replaced again and again while being read; try later")


class _SwappedWhileReading(Exception):
    """The folder was replaced by another save during a read."""


def _read_once(folder: Path, manifest: str, kind: str, version: int) -> Artifact:
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: no saved {kind!r} here (folder not found)")
    data = _read_file(folder, manifest)
    if data is None:
        if not folder.is_dir():  # moved aside by a save without exchange
            raise _SwappedWhileReading
        raise CheckpointError(f"{folder / manifest}: file not found")
    document = _decode_manifest(folder / manifest, data, kind, version)
    contents: dict[str, bytes] = {}
    for name, entry in document["files"].items():
        content = _read_file(folder, name, entry["size"])
        if content is None or _listed(content) != entry:
            if _read_file(folder, manifest) != data:
                raise _SwappedWhileReading
            if content is None:
                raise CheckpointError(f"{folder / name}: file not found (the save is incomplete)")
            raise CheckpointError(
                f"{folder / name}: corrupted or truncated, or from another save (its size or "
                f"checksum differs from the one in {manifest}); restore the folder or save it again"
            )
        contents[name] = content
    return Artifact(folder, document, contents)


def _decode_manifest(path: Path, data: bytes, kind: str, version: int) -> dict[str, Any]:
    """The manifest's JSON, with the types of its artifact fields checked."""
    try:
        document = json.loads(data.decode("utf-8"))
    except ValueError as error:  # UnicodeDecodeError too
        raise CheckpointError(f"{path}: corrupted ({error})") from error
    check_versioned_document(document, path, kind=kind, version=version)
    checked_field(document, "artifact_id", str, path)
    for name, entry in checked_field(document, "files", dict, path, items=dict).items():
        problem = _name_problem(name)
        size = entry.get("size")
        if not problem and (not isinstance(entry.get("sha256"), str) or type(size) is not int
                            or size < 0):  # fmt: skip
            problem = "listed without a 'sha256' checksum and a 'size' ≥ 0"
        if problem:
            raise CheckpointError(f"{path}: corrupted (file {name!r}: {problem})")
    return document


def _read_file(folder: Path, name: str, size: int | None = None) -> bytes | None:
    """The bytes of the file ``name`` in ``folder`` (at most ``size`` + 1, when given), or None.

    Raises:
        CheckpointError: the file, or a folder on its way from ``folder``, is a symbolic link or
            not a plain file or folder; the file cannot be read (None: it is missing).
    """
    parts = name.split("/")
    path = folder
    try:
        for depth, part in enumerate(parts, start=1):
            path = path / part
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) if depth == len(parts)
                                          else stat.S_ISDIR(mode)):  # fmt: skip
                what = "a symbolic link" if stat.S_ISLNK(mode) else "not a plain file or folder"
                raise CheckpointError(f"{path}: {what}; an artifact is read from plain files only")
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        with os.fdopen(os.open(path, flags), "rb") as file:
            return file.read(-1 if size is None else size + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:  # no permission
        raise CheckpointError(f"{path}: cannot read ({error.strerror or error})") from error


@contextlib.contextmanager
def _staging_folder(folder: Path) -> Iterator[Path]:
    """A new locked temporary sibling of ``folder``, deleted on exit."""
    staging = temporary_sibling(folder)
    staging.mkdir(mode=0o700)
    descriptor = lock(staging)
    try:
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if descriptor is not None:
            os.close(descriptor)


def _fsync_folder(folder: Path) -> None:
    """Make a folder's entries durable (a no-op where folders cannot be opened)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _swap_in(staging: Path, folder: Path) -> None:
    """Put ``staging`` at ``folder``; afterwards ``staging`` holds the old folder or nothing."""
    if not os.path.lexists(folder):
        try:
            os.rename(staging, folder)
            return
        except OSError as error:
            if error.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
    if _exchange(staging, folder):
        return
    # No atomic exchange: the old folder goes into a locked folder aside, then the new one in.
    # Killed between the two, the save leaves no folder: the next read or save restores it.
    with _staging_folder(folder) as aside:
        os.rename(folder, aside / _OLD)
        try:
            os.rename(staging, folder)
        except BaseException:
            os.rename(aside / _OLD, folder)
            raise


def _restore(folder: Path) -> None:
    """Put back the old folder that a save without exchange, killed mid-swap, left aside."""
    if os.path.lexists(folder):
        return
    for leftover in leftovers(folder, min_age_s=0):  # a live save holds its lock
        try:
            os.rename(leftover / _OLD, folder)
            return
        except OSError:
            continue


def _exchange(first: Path, second: Path) -> bool:
    """Atomically exchange two paths; False where the system or file system cannot."""
    call = _exchange_call()
    if call is None:
        return False
    function, flag = call
    if sys.platform == "darwin":
        result = function(os.fsencode(first), os.fsencode(second), flag)
    else:
        at_current = -100  # AT_FDCWD
        result = function(at_current, os.fsencode(first), at_current, os.fsencode(second), flag)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


@functools.cache
def _exchange_call() -> tuple[Any, int] | None:
    """The C function that exchanges two paths, and its flag, or None (looked up once)."""
    if sys.platform.startswith("linux"):
        name, flag = "renameat2", 2  # RENAME_EXCHANGE
    elif sys.platform == "darwin":
        name, flag = "renamex_np", 2  # RENAME_SWAP
    else:
        return None
    library = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return (getattr(library, name), flag) if hasattr(library, name) else None
