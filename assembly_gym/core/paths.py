"""Where the real data lives: ``$ASSEMBLY_GYM_DATA``, else ``../shared/data`` beside the project."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_ENV_VAR", "find_data_dir", "unvotes_dir", "documents_dir"]

DATA_ENV_VAR = "ASSEMBLY_GYM_DATA"
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


def find_data_dir() -> Path | None:
    """Return the real-data folder, or None when there is none.

    Looks at ``$ASSEMBLY_GYM_DATA`` first, then ``../shared/data`` relative to the current
    directory and to the project root. Nothing is ever downloaded.
    """
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        path = Path(env).expanduser()
        return path if path.is_dir() else None
    for base in (Path.cwd(), _PROJECT_ROOT):
        candidate = base.parent / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return None


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
