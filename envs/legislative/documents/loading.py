"""Loading any of the three layouts: a file's layout told by name or content, or a folder."""

from __future__ import annotations

from pathlib import Path

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import CountryTable, default_country_table
from assembly_gym.envs.legislative.data.reading import read_bytes
from assembly_gym.envs.legislative.data.unvotes import UNVOTES_FILES
from assembly_gym.envs.legislative.documents.genealogy import genealogy_trajectory
from assembly_gym.envs.legislative.documents.marc import load_marc_drafts
from assembly_gym.envs.legislative.documents.parsing import parse_json
from assembly_gym.envs.legislative.documents.stage_json import stage_trajectory
from assembly_gym.envs.legislative.documents.trajectory import Trajectory

__all__ = ["DATA_KINDS", "data_kind", "load_trajectories"]

DATA_KINDS = ("roll calls", "trajectories")
"""What a data folder holds: roll calls (``un_votes.csv.gz``) or resolution trajectory files."""

# Layout by file-name suffix: the files a folder loads, then also what a single file may be.
_FOLDER_SUFFIXES = {
    ".trajectory.json": "stage",
    ".genealogy.json": "genealogy",
    ".marcxml": "marc",
    ".marcxml.gz": "marc",
}
_FILE_SUFFIXES = {**_FOLDER_SUFFIXES, ".xml": "marc", ".xml.gz": "marc"}


def _format_from_name(name: str, suffixes: dict[str, str]) -> str | None:
    """The layout whose suffix ends ``name`` (longest suffix first), else None."""
    lowered = name.lower()
    for suffix, kind in sorted(suffixes.items(), key=lambda item: -len(item[0])):
        if lowered.endswith(suffix):
            return kind
    return None


def _trajectory_files(folder: Path) -> list[Path]:
    """The trajectory files of a folder (not its subfolders), in sorted name order."""
    return sorted(
        p for p in folder.iterdir() if p.is_file() and _format_from_name(p.name, _FOLDER_SUFFIXES)
    )


def data_kind(path: str | Path) -> str:
    """What a ``--data`` folder (or file) holds, told by its contents: one of :data:`DATA_KINDS`.

    Roll calls: a folder with ``un_votes.csv.gz`` (directly or in ``unvotes/``), or a file
    that is not a trajectory file (a UNDL voting CSV). Trajectories: a folder with
    ``*.trajectory.json``, ``*.genealogy.json``, ``*.marcxml`` or ``*.marcxml.gz`` files, or
    one such file. A folder with both is roll calls.

    Raises:
        DataError: the path does not exist, or is a folder of neither kind (the message names
            the folder and the files looked for).
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise DataError(path, "file or folder not found")
    if path.is_file():
        return "trajectories" if _format_from_name(path.name, _FILE_SUFFIXES) else "roll calls"
    votes = UNVOTES_FILES["votes"]
    if (path / votes).exists() or (path / "unvotes" / votes).exists():
        return "roll calls"
    if _trajectory_files(path):
        return "trajectories"
    raise DataError(
        path,
        f"neither roll calls nor trajectories: looked for {votes} (roll calls) and for "
        "*.trajectory.json, *.genealogy.json, *.marcxml or *.marcxml.gz files (trajectories)",
    )


def load_trajectories(path: str | Path, *, table: CountryTable | None = None) -> list[Trajectory]:
    """Load a file in any of the three layouts, or every such file of a folder.

    A file's layout is told by its name (``*.trajectory.json``, ``*.genealogy.json``,
    ``*.marcxml``, ``*.marcxml.gz``, ``*.xml``, ``*.xml.gz``), else by its content (XML, or
    a JSON object with ``timesteps`` or with ``stages``). A folder loads every
    ``*.trajectory.json``, ``*.genealogy.json``, ``*.marcxml`` and ``*.marcxml.gz`` in it
    (not its subfolders), in sorted file-name order.

    Args:
        path: a file or a folder.
        table: country table (default: the shipped one).

    Returns:
        All trajectories, file by file, each file's records in file order.

    Raises:
        DataError: the path does not exist, a folder holds no such file, a file's layout
            cannot be told, or any loader's error.
    """
    path = Path(path)
    table = table or default_country_table()
    if path.is_dir():
        files = _trajectory_files(path)
        if not files:
            raise DataError(
                path,
                "no trajectory files: expected *.trajectory.json, "
                "*.genealogy.json, *.marcxml or *.marcxml.gz",
            )
        return [trajectory for file in files for trajectory in _load_file(file, table)]
    return _load_file(path, table)


def _load_file(path: Path, table: CountryTable) -> list[Trajectory]:
    """Trajectories of one file, its layout told by its name, else by its content."""
    kind = _format_from_name(path.name, _FILE_SUFFIXES)
    if kind == "marc":
        return load_marc_drafts(path, table=table)
    raw = read_bytes(path)
    if kind is None and raw.lstrip()[:1] == b"<":
        return load_marc_drafts(path, table=table)
    data = parse_json(path, raw)
    if kind is None:
        if isinstance(data, dict) and "timesteps" in data:
            kind = "stage"
        elif isinstance(data, dict) and "stages" in data:
            kind = "genealogy"
        else:
            raise DataError(
                path,
                "unknown layout: expected MARC21-XML or a JSON object with 'timesteps' "
                "(stage schema) or 'stages' (genealogy schema)",
            )
    if kind == "stage":
        return [stage_trajectory(data, path, table)]
    return [genealogy_trajectory(data, path, table)]
