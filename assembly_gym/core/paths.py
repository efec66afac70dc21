"""Where the real data lives: ``$ASSEMBLY_GYM_DATA``, else ``../shared/data`` beside the project."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "DATA_ENV_VAR",
    "data_dir_candidates",
    "documents_dir",
    "find_data_dir",
    "real_data_missing",
    "unvotes_dir",
]

DATA_ENV_VAR = "ASSEMBLY_GYM_DATA"
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


def data_dir_candidates() -> list[Path]:
    """The folders :func:`find_data_dir` tries, in order (no duplicates).

    ``$ASSEMBLY_GYM_DATA`` alone when set; else ``../shared/data`` relative to the current
    directory, then to the project root.
    """
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        return [Path(env).expanduser()]
    return list(
        dict.fromkeys(base.parent / "shared" / "data" for base in (Path.cwd(), _PROJECT_ROOT))
    )


def find_data_dir() -> Path | None:
    """Return the real-data folder, or None when there is none (nothing is ever downloaded)."""
    return next((path for path in data_dir_candidates() if path.is_dir()), None)


def real_data_missing(folder: str, example: str) -> str:
    """Why a folder of the real data was not found, naming every path that was tried.

    Args:
        folder: the subfolder of the data folder, e.g. "unvotes" or "un_documents".
        example: a file that folder holds, named in the advice, e.g. "un_votes.csv.gz".

    Returns:
        A one-line problem for an error or a skip reason.
    """
    env = os.environ.get(DATA_ENV_VAR)
    why = f"${DATA_ENV_VAR}={env}" if env else f"${DATA_ENV_VAR} is not set"
    where = " or ".join(str(path / folder) for path in data_dir_candidates())
    return (
        f"real data not found at {where} ({why}): "
        f"set ${DATA_ENV_VAR} to the folder that holds {folder}/{example}"
    )


def unvotes_dir() -> Path | None:
    """The folder of the Voeten/``unvotes`` CSVs inside the data folder, if present."""
    root = find_data_dir()
    path = root / "unvotes" if root else None
    return path if path is not None and path.is_dir() else None


def documents_dir() -> Path | None:
    """The folder of the UN documents (trajectories, MARC21-XML drafts), if present."""
    root = find_data_dir()
    path = root / "un_documents" if root else None
    return path if path is not None and path.is_dir() else None
