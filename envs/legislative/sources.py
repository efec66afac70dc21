"""Turn what a user passes as ``data`` into roll-call data: synthetic default, "unvotes", a path."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal, Union

import numpy as np
import pandas as pd

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import real_data_missing, unvotes_dir
from assembly_gym.envs.legislative.data.loading import load_roll_calls_cached
from assembly_gym.envs.legislative.data.schema import RollCallData
from assembly_gym.envs.legislative.data.unvotes import UNVOTES_FILES, load_roll_call_attributes
from assembly_gym.envs.legislative.synthetic import (
    SyntheticAssembly,
    SyntheticConfig,
    generate_assembly,
)

__all__ = [
    "LAST_TRAIN_SESSION",
    "DataSpec",
    "Split",
    "default_assembly",
    "default_last_train_session",
    "first_three_quarters",
    "roll_call_attributes",
    "roll_call_data",
    "session_window",
]

DataSpec = Union[RollCallData, SyntheticAssembly, str, Path, None]  # noqa: UP007
Split = Literal["train", "test"]

LAST_TRAIN_SESSION = 60
"""The real votes' standard split (as ``bench``): train on sessions ≤ 60, test on 61–69."""


def first_three_quarters(sessions: np.ndarray) -> int:
    """The last of the first three quarters of these sessions (15 of the synthetic 20).

    Args:
        sessions: the data's distinct sessions, sorted, (S,).
    """
    return int(sessions[max(int(len(sessions) * 0.75) - 1, 0)])


def default_last_train_session(sessions: np.ndarray) -> int:
    """Last training session of the default temporal split of data with these sessions.

    :data:`LAST_TRAIN_SESSION` when the sessions reach past it (the real votes), else
    :func:`first_three_quarters` (the harness's default).

    Args:
        sessions: the data's distinct sessions, sorted, (S,).
    """
    if sessions[-1] > LAST_TRAIN_SESSION:
        return LAST_TRAIN_SESSION
    return first_three_quarters(sessions)


def session_window(
    sessions: np.ndarray, split: Split | None, window: tuple[int | None, int | None] | None
) -> tuple[int | None, int | None, int | None]:
    """Which sessions an env draws episodes from, and which describe the past.

    Args:
        sessions: the data's distinct sessions, sorted, (S,).
        split: "train" (sessions up to :func:`default_last_train_session`), "test" (the
            sessions after it, described by the training sessions only) or None.
        window: the ``sessions=`` argument, ``(first, last)`` inclusive (None: unbounded),
            for any other range; its roll calls are described by the whole data.

    Returns:
        ``(first, last, known)``: episodes come from sessions ``first..last`` and the
        features (and fitted dynamics) from sessions up to ``known``; None is unbounded.

    Raises:
        ValueError: an unknown ``split``, a malformed ``sessions=``, or both given.
    """
    if split is not None and window is not None:
        raise ValueError(
            f"pass split= or sessions=, not both (got split={split!r}, sessions={window!r})"
        )
    if window is not None:
        if not (isinstance(window, (tuple, list)) and len(window) == 2):
            raise ValueError(f"sessions= must be a (first, last) pair, got {window!r}")
        return window[0], window[1], None
    if split is None:
        return None, None, None
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train', 'test' or None, got {split!r}")
    last = default_last_train_session(sessions)
    return (None, last, last) if split == "train" else (last + 1, None, last)


@functools.cache
def default_assembly(seed: int = 0) -> SyntheticAssembly:
    """The embedded synthetic assembly (default settings), generated once per seed."""
    return generate_assembly(SyntheticConfig(seed=seed))


def roll_call_data(spec: DataSpec = None) -> RollCallData:
    """Resolve a data specification.

    Args:
        spec: None or "synthetic" (the embedded synthetic assembly), "unvotes" (the real
            votes found via ``$ASSEMBLY_GYM_DATA`` or ``../shared/data``), a path to an
            ``unvotes`` folder or a UN Digital Library CSV, a :class:`SyntheticAssembly` or
            a :class:`RollCallData`.

    Raises:
        DataError: when the real data is asked for but cannot be found or read.
    """
    if spec is None or (isinstance(spec, str) and spec == "synthetic"):
        return default_assembly().data
    if isinstance(spec, SyntheticAssembly):
        return spec.data
    if isinstance(spec, RollCallData):
        return spec
    if isinstance(spec, (str, Path)):
        return load_roll_calls_cached(_real_path(spec))
    raise TypeError(f"data must be None, 'synthetic', 'unvotes', a path or data, not {type(spec)}")


def roll_call_attributes(spec: DataSpec = None) -> pd.DataFrame:
    """The roll calls of a data specification, never reading votes kept apart from them.

    Takes what :func:`roll_call_data` takes. An ``unvotes`` folder (or a folder holding one in
    ``unvotes/``) is read through its roll-call files only
    (:func:`~assembly_gym.envs.legislative.data.unvotes.load_roll_call_attributes`), never
    ``un_votes.csv.gz``: it may hold roll calls whose votes are not cast yet. A UN Digital
    Library CSV holds each roll call in its vote rows: it is read whole and only its roll
    calls are returned.

    Returns:
        One row per roll call with
        :data:`~assembly_gym.envs.legislative.data.schema.ROLL_CALL_COLUMNS`, in time order.

    Raises:
        DataError: the source is missing, unreadable or of no known layout.
    """
    if not isinstance(spec, (str, Path)) or spec == "synthetic":
        return roll_call_data(spec).roll_calls
    path = _real_path(spec)
    if path.is_file():
        return load_roll_calls_cached(path).roll_calls
    for folder in (path, path / "unvotes"):
        if (folder / UNVOTES_FILES["roll_calls"]).is_file():
            return load_roll_call_attributes(folder)
    raise DataError(path, f"no {UNVOTES_FILES['roll_calls']} in this folder")


def _real_path(spec: str | Path) -> Path:
    """The existing path that ``"unvotes"`` or a path names.

    Raises:
        DataError: the real data or the path is not found (naming what was tried).
    """
    if isinstance(spec, str) and spec == "unvotes":
        folder = unvotes_dir()
        if folder is None:
            raise DataError("unvotes", real_data_missing("unvotes", "un_votes.csv.gz"))
        spec = folder
    path = Path(spec).expanduser().resolve()
    if not path.exists():
        raise DataError(path, "file or folder not found")
    return path
