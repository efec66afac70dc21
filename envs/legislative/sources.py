"""Turn what a user passes as ``data`` into roll-call data: synthetic default, "unvotes", a path."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Union

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import real_data_missing, unvotes_dir
from assembly_gym.envs.legislative.data import RollCallData, load_roll_calls_cached
from assembly_gym.envs.legislative.synthetic import (
    SyntheticAssembly,
    SyntheticConfig,
    generate_assembly,
)

__all__ = ["DataSpec", "default_assembly", "roll_call_data"]

DataSpec = Union[RollCallData, SyntheticAssembly, str, Path, None]  # noqa: UP007


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
    if isinstance(spec, str) and spec == "unvotes":
        folder = unvotes_dir()
        if folder is None:
            raise DataError("unvotes", real_data_missing("unvotes", "un_votes.csv.gz"))
        spec = folder
    if isinstance(spec, (str, Path)):
        path = Path(spec).expanduser().resolve()
        if not path.exists():
            raise DataError(path, "file or folder not found")
        return load_roll_calls_cached(path)
    raise TypeError(f"data must be None, 'synthetic', 'unvotes', a path or data, not {type(spec)}")
