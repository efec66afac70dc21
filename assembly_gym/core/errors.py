"""Errors raised by assembly-gym for bad input, bad actions and bad checkpoints."""

from __future__ import annotations

import numbers

__all__ = [
    "AssemblyGymError",
    "CheckpointError",
    "DataError",
    "InvalidActionError",
    "MissingDependencyError",
    "RewardFunctionError",
]


class AssemblyGymError(Exception):
    """Base class of every error this project raises on purpose."""


class DataError(AssemblyGymError, ValueError):
    """Input data that cannot be used: names the source, the row or record, the field and why.

    Attributes:
        source: file path (or a description of an in-memory table).
        row: 1-based line number in the file (header is line 1) or a record id; None if global.
        field: column or field name; None if the problem is not about one field.
        problem: what is wrong and what was expected.
    """

    def __init__(
        self,
        source: object,
        problem: str,
        *,
        row: int | str | None = None,
        field: str | None = None,
    ) -> None:
        self.source = str(source)
        self.row = int(row) if isinstance(row, numbers.Integral) else row
        self.field = field
        self.problem = problem
        where = self.source
        if self.row is not None:
            where += f", line {self.row}" if isinstance(self.row, int) else f", record {self.row}"
        if field is not None:
            where += f", field '{field}'"
        super().__init__(f"{where}: {problem}")

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only arguments: rebuild through a helper so that the error pickles
        # (worker processes send errors back to the parent).
        return _rebuild_data_error, (type(self), self.source, self.problem, self.row, self.field)


def _rebuild_data_error(
    cls: type[DataError], source: str, problem: str, row: int | str | None, field: str | None
) -> DataError:
    return cls(source, problem, row=row, field=field)


class InvalidActionError(AssemblyGymError, ValueError):
    """An action that is outside the action space or masked out in the current state."""


class RewardFunctionError(AssemblyGymError, ValueError):
    """A reward function returned a value that is not a finite number (NaN or ±inf).

    The message names the function and the value; the env that called it has not moved.
    """


class CheckpointError(AssemblyGymError, ValueError):
    """A saved model that is missing, corrupted, of another version or of another layout."""


class MissingDependencyError(AssemblyGymError, ImportError):
    """An optional dependency is not installed; the message says which pip command fixes it."""

    def __init__(self, package: str, extra: str | None = None, purpose: str = "") -> None:
        self.package, self.extra, self.purpose = package, extra, purpose
        fix = f"pip install 'assembly-gym[{extra}]'" if extra else f"pip install {package}"
        what = f" for {purpose}" if purpose else ""
        super().__init__(f"{package} is needed{what} but is not installed: run `{fix}`")

    def __reduce__(self) -> tuple[object, ...]:
        return type(self), (self.package, self.extra, self.purpose)
