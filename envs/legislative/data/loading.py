"""Either layout of roll-call data, detected: an ``unvotes`` folder or a UNDL voting CSV."""

from __future__ import annotations

from pathlib import Path

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data.reading import read_bytes
from assembly_gym.envs.legislative.data.schema import RollCallData
from assembly_gym.envs.legislative.data.undl import load_undl_votes
from assembly_gym.envs.legislative.data.unvotes import UNVOTES_FILES, load_unvotes

__all__ = ["load_roll_calls"]


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
        if (path / UNVOTES_FILES["votes"]).exists():
            return load_unvotes(path)
        if (path / "unvotes" / UNVOTES_FILES["votes"]).exists():
            return load_unvotes(path / "unvotes")
        raise DataError(path, f"no {UNVOTES_FILES['votes']} in this folder")
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
