"""Steps the document loaders share: JSON values and containers, failures as DataError.

The file bytes come from :func:`assembly_gym.envs.legislative.data.reading.read_bytes`, the
one reader of every data file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from assembly_gym.core.errors import DataError

__all__ = ["build", "parse_json"]

_T = TypeVar("_T")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not allowed (NaN and infinities are not data)")


def parse_json(path: Path, raw: bytes) -> Any:
    """The JSON value of a file's bytes (UTF-8, optionally with a byte-order mark).

    Args:
        path: the file the bytes came from, named in errors.
        raw: its content.

    Returns:
        The parsed value.

    Raises:
        DataError: not UTF-8, invalid JSON (with its line), or a NaN or infinity.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DataError(path, f"not UTF-8 text ({error})") from error
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise DataError(path, f"invalid JSON: {error.msg}", row=error.lineno) from error
    except (ValueError, RecursionError) as error:
        raise DataError(path, f"invalid JSON: {error}") from error


def build(
    factory: Callable[..., _T],
    source: str | Path,
    row: str | None,
    field: str | None,
    /,
    **kwargs: Any,
) -> _T:
    """Construct a container; its validation errors become a DataError at row and field.

    Args:
        factory: the container class (or any callable that validates its arguments).
        source: the file, named in the error.
        row: the record id or JSON path of the record, or None.
        field: the field, or None.
        **kwargs: the container's arguments.

    Returns:
        ``factory(**kwargs)``.

    Raises:
        DataError: the factory raised TypeError or ValueError.
    """
    try:
        return factory(**kwargs)
    except DataError:
        raise
    except (TypeError, ValueError) as error:
        raise DataError(source, str(error), row=row, field=field) from error
