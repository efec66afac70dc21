"""Either layout of roll-call data, detected: an ``unvotes`` folder or a UNDL voting CSV.

:func:`load_roll_calls` reads the data afresh; :func:`load_roll_calls_cached` keeps the
last few loads of the process, keyed on the files read (paths, modification times in
nanoseconds, sizes and inodes), so that an edit of any of them is seen on the next call.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data.reading import read_bytes
from assembly_gym.envs.legislative.data.schema import RollCallData
from assembly_gym.envs.legislative.data.undl import load_undl_votes
from assembly_gym.envs.legislative.data.unvotes import UNVOTES_FILES, load_unvotes

__all__ = ["load_roll_calls", "load_roll_calls_cached"]

_Stamp = tuple[str, int, int, int]  # path, mtime_ns, size, inode; -1 for a missing file


def _unvotes_folder(folder: Path) -> Path:
    """The folder holding ``un_votes.csv.gz``: ``folder`` itself or its ``unvotes/``."""
    for candidate in (folder, folder / "unvotes"):
        if (candidate / UNVOTES_FILES["votes"]).exists():
            return candidate
    raise DataError(folder, f"no {UNVOTES_FILES['votes']} in this folder")


def load_roll_calls(path: str | Path) -> RollCallData:
    """Load either layout: an ``unvotes`` folder, or a UN Digital Library voting CSV file.

    Args:
        path: a folder holding ``un_votes.csv.gz`` (directly or in ``unvotes/``), or a UNDL
            voting CSV (plain or gzip; its header names ``ms_vote``).

    Raises:
        DataError: the path is missing, unreadable or of neither layout.
    """
    path = Path(path)
    if path.is_dir():
        return load_unvotes(_unvotes_folder(path))
    if not path.exists():
        raise DataError(path, "file or folder not found")
    raw = read_bytes(path)
    if b"ms_vote" in raw.split(b"\n", 1)[0]:
        return load_undl_votes(path, raw=raw)
    raise DataError(
        path,
        "not a known layout: expected an unvotes folder or a UNDL CSV (with ms_vote)",
        row=1,
    )


def load_roll_calls_cached(path: str | Path) -> RollCallData:
    """:func:`load_roll_calls`, cached per process on the files it reads.

    The key is each file's path, ``st_mtime_ns``, ``st_size`` and ``st_ino``: editing,
    replacing or removing any file the load reads (the three CSVs of an ``unvotes`` folder,
    found directly or in ``unvotes/``) loads afresh. A folder and its parent share the
    entry. The cached data is shared: treat it as read-only.

    Raises:
        DataError: as :func:`load_roll_calls`.
    """
    path = Path(path)
    target = _unvotes_folder(path) if path.is_dir() else path
    files = [target / name for name in UNVOTES_FILES.values()] if path.is_dir() else [target]
    return _load_once(str(target), tuple(_stamp(file) for file in files))


def _stamp(path: Path) -> _Stamp:
    try:
        status = os.stat(path)
    except OSError:
        return (str(path), -1, -1, -1)
    return (str(path), status.st_mtime_ns, status.st_size, status.st_ino)


@functools.lru_cache(maxsize=4)
def _load_once(path: str, stamps: tuple[_Stamp, ...]) -> RollCallData:
    """The load of ``path`` whose files carried ``stamps`` (the cache key) when asked for."""
    return load_roll_calls(path)
