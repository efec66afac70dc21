"""Argument types of the ``assembly-gym`` flags: numbers in a range, paths that can be written.

Each is an argparse ``type=``: it returns the converted value or raises
``argparse.ArgumentTypeError``, so a bad value stops the command while its flags are parsed,
before any work, with one line on stderr and exit code 2.

Here too: flag files (``--config FILE``), JSON documents of kind ``"assembly-gym flags"``
that name a command and its flags (``assembly-gym sweep`` writes them as ``best.json``).
:func:`add_config_flag` gives a command the flag; :func:`config_defaults` reads a file into
checked values, which the parser applies as defaults (so flags typed on the command line win).

Example:
    >>> POSITIVE_INT("3"), UNIT_INTERVAL("0.5"), session_range("1-60")
    (3, 0.5, (1, 60))
    >>> NON_NEGATIVE("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a finite number ≥ 0, got 'nan'
"""

from __future__ import annotations

import argparse
import math
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assembly_gym.core.artifact import check_destination
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import check_output_file, checked_field, read_versioned_json

__all__ = [
    "FLAGS_KIND",
    "FLAGS_VERSION",
    "JOBS",
    "NON_NEGATIVE",
    "POSITIVE",
    "POSITIVE_INT",
    "SEED",
    "SESSION",
    "THREADS",
    "UNIT_INTERVAL",
    "ArtifactFolder",
    "Number",
    "OutputFile",
    "add_config_flag",
    "check_logs_outside",
    "config_defaults",
    "device",
    "flags_document",
    "output_file",
    "output_folder",
    "session_range",
]


@dataclass(frozen=True)
class Number:
    """An ``int`` or a finite ``float`` between ``low`` and ``high`` (None: unbounded).

    Attributes:
        kind: ``int`` or ``float``.
        low: the smallest value allowed (excluded when ``low_open``).
        high: the largest value allowed (excluded when ``high_open``).
        low_open: ``low`` itself is refused.
        high_open: ``high`` itself is refused.
        special: one more value accepted outside the range (e.g. -1: all cores).
    """

    kind: type[int] | type[float]
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    special: int | None = None

    def __call__(self, text: str) -> int | float:
        """The number that ``text`` spells, if it is allowed."""
        try:
            value = self.kind(text)
        except ValueError:
            value = None
        if value is None or not (value == self.special or self.allows(value)):
            raise argparse.ArgumentTypeError(f"expected {self.description}, got {text!r}")
        return value

    def allows(self, value: float) -> bool:
        """Whether ``value`` is finite and inside the range (``special`` aside)."""
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        below = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return math.isfinite(value) and above and below

    @property
    def description(self) -> str:
        """What the flag takes, e.g. "an integer ≥ 1" or "a number in (0, 1]"."""
        bounded = self.low is not None and self.high is not None
        what = "an integer" if self.kind is int else "a number" if bounded else "a finite number"
        if self.low is not None and self.high is not None:
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            what += f" in {left}{_show(self.low)}, {_show(self.high)}{right}"
        elif self.low is not None:
            what += f" {'>' if self.low_open else '≥'} {_show(self.low)}"
        elif self.high is not None:
            what += f" {'<' if self.high_open else '≤'} {_show(self.high)}"
        return what if self.special is None else f"{what} or {self.special}"


def _show(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


POSITIVE_INT = Number(int, low=1)
"""A count that must be at least 1 (epochs, members, sizes, steps)."""
SEED = Number(int, low=0, high=2**32 - 1)
"""A seed: what NumPy's and torch's generators all take."""
SESSION = Number(int, low=1)
"""A General Assembly session number (the first is 1)."""
THREADS = Number(int, low=1)
"""Threads of torch or BLAS."""
JOBS = Number(int, low=1, special=-1)
"""Worker processes; -1: one per core."""
NON_NEGATIVE = Number(float, low=0)
"""A finite number ≥ 0 (a penalty, a threshold)."""
POSITIVE = Number(float, low=0, low_open=True)
"""A finite number > 0 (a learning rate, a time limit)."""
UNIT_INTERVAL = Number(float, low=0, high=1)
"""A share or probability in [0, 1]."""


def session_range(text: str) -> tuple[int, int]:
    """Sessions ``A-B`` (A to B inclusive) as ``(A, B)``; ``A`` alone is ``(A, A)``."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected A-B (e.g. 1-60), got {text!r}")
    first, last = int(match.group(1)), int(match.group(2) or match.group(1))
    if first < 1:
        raise argparse.ArgumentTypeError(f"expected sessions ≥ 1 (the first is 1), got {text!r}")
    if first > last:
        raise argparse.ArgumentTypeError(f"first session {first} is after last session {last}")
    return first, last


@dataclass(frozen=True)
class ArtifactFolder:
    """An output folder for an artifact whose manifest ``manifest`` has JSON ``kind``.

    Accepted: a new path, an empty folder, or a folder holding an earlier artifact of the same
    kind (it is replaced); refused: a file, a folder of other files, a path under a file, a
    folder this process may not write in (:func:`~assembly_gym.core.artifact.check_destination`),
    or beside which it cannot create a file (the save writes the new artifact there first).
    """

    manifest: str
    kind: str

    def __call__(self, text: str) -> Path:
        """The folder, if the artifact may be saved there."""
        try:
            path = check_destination(text, manifest=self.manifest, kind=self.kind)
        except CheckpointError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        _check_writable(path, path.parent)
        return path


@dataclass(frozen=True)
class OutputFile:
    """A file to write, under a writable folder: a new path or an earlier output (replaced).

    An earlier output begins with ``header``; any other file may be a user's and is refused, as
    is every file when there is no ``header``
    (:func:`~assembly_gym.core.persist.check_output_file`).
    """

    header: bytes | None = None

    def __call__(self, text: str) -> Path:
        """The file, if the output may be written there."""
        try:
            path = check_output_file(text, header=self.header)
        except CheckpointError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        _check_writable(path, path.parent)
        return path


output_file = OutputFile()
"""A file to write whose earlier outputs cannot be told apart from a user's: a new path only."""


def output_folder(text: str) -> Path:
    """A folder to write files into (created if needed; files of others may stay in it)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path}: exists and is not a folder")
    _check_writable(path, path)
    return path


def _check_writable(path: Path, folder: Path) -> None:
    """Refuse ``path`` unless a file can be created in ``folder`` (or its nearest ancestor).

    Tried, not inferred from permission bits: root passes ``os.access`` on a read-only file
    system such as /sys, and a network file system may refuse what the bits allow. The file
    has no name (``O_TMPFILE`` where the file system has it), so nothing is left behind.
    """
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{path}: {folder} is a file, not a folder")
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise argparse.ArgumentTypeError(f"{path}: cannot write in {folder}: {reason}") from None


def check_logs_outside(logs: Path | None, out: Path) -> None:
    """Refuse a log folder inside an artifact folder, before any work.

    The artifact is saved whole at the end, and a folder holding other files is refused then:
    so a run that logs into its own ``--out`` would train, then fail to save.

    Raises:
        CheckpointError: ``logs`` is ``out`` or inside it.
    """
    if logs is not None and out.resolve() in (logs.resolve(), *logs.resolve().parents):
        raise CheckpointError(
            f"--tensorboard {logs} is inside --out {out}, which is saved whole at the end: "
            "write the logs beside it"
        )


FLAGS_KIND = "assembly-gym flags"
"""The ``kind`` of a flag file (``--config FILE``)."""
FLAGS_VERSION = 1
"""The ``format_version`` of a flag file that this code reads and writes."""


def flags_document(command: str, flags: Mapping[str, Any], **info: Any) -> dict[str, Any]:
    """A flag file's JSON document: ``command``'s ``flags`` (by dest, e.g. ``initial_lr``).

    Args:
        command: the command that reads it, as typed after ``assembly-gym`` (``"irl fit"``).
        flags: flag dest → value (JSON: a number, a string, a bool, or a list of them).
        info: more fields, kept for people (a score, the metric, the split, the seeds).
    """
    return {"kind": FLAGS_KIND, "format_version": FLAGS_VERSION, "command": command,
            "flags": dict(flags), **info}  # fmt: skip


def device(text: str) -> str:
    """The type of every ``--device`` flag: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``.

    ``auto`` is the GPU when there is one, else the CPU.
    Checked where the flag is parsed: a GPU asked for where CUDA is not available is a usage
    error, before any work.
    """
    from assembly_gym.core.device import resolve_device

    try:
        resolve_device(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_config_flag(parser: argparse.ArgumentParser, command: str) -> None:
    """Give ``parser`` the flag ``--config FILE``: a flag file for ``command``.

    The parser (:class:`assembly_gym.benchmarks.cli.Parser`) applies the file's flags as if
    they were typed before the command line's own: a flag typed on the command line wins.
    """
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"take flags from a flag file for `{command}` (e.g. `assembly-gym sweep`'s "
        "best.json); flags typed here win",
    )
    parser.set_defaults(config_command=command)


def config_defaults(parser: argparse.ArgumentParser, path: Path, command: str) -> dict[str, Any]:
    """The values of a flag file's flags, by dest, each checked as its flag's own type.

    Args:
        parser: the command's parser (its actions give each flag's type and choices).
        path: the flag file.
        command: the command the file must be for.

    Raises:
        CheckpointError: a missing, garbled or another command's file; an unknown flag; a
            value its flag refuses (the message names the file and the flag).
    """
    document = read_versioned_json(path, kind=FLAGS_KIND, version=FLAGS_VERSION)
    found = checked_field(document, "command", str, path)
    if found != command:
        raise CheckpointError(f"{path}: flags for `{found}`, not for `{command}`")
    flags = checked_field(document, "flags", dict, path)
    actions = {a.dest: a for a in parser._actions if a.option_strings}
    actions |= {s.lstrip("-"): a for a in parser._actions for s in a.option_strings}
    values = {}
    for name, value in flags.items():
        action = actions.get(name)
        if action is None or action.dest in ("config", "help"):
            raise CheckpointError(f"{path}: `{command}` has no flag {name!r}")
        try:
            values[action.dest] = _flag_value(action, value)
        except (argparse.ArgumentTypeError, TypeError, ValueError) as error:
            flag = action.option_strings[-1]
            raise CheckpointError(f"{path}: flag {flag}: {error}") from None
    return values


def _flag_value(action: argparse.Action, value: Any) -> Any:
    """A JSON value converted and checked as ``action`` would its typed text."""
    if action.nargs == 0:  # a switch: true or false
        if not isinstance(value, bool):
            raise TypeError(f"expected true or false, got {value!r}")
        return action.const if value else action.default
    many = action.nargs in ("+", "*") or isinstance(action.nargs, int)
    if isinstance(value, list) != many or (many and action.nargs == "+" and not value):
        raise TypeError(f"expected {'a list of values' if many else 'one value'}, got {value!r}")
    converted = [_one_value(action, item) for item in (value if many else [value])]
    return converted if many else converted[0]


def _one_value(action: argparse.Action, value: Any) -> Any:
    if isinstance(value, (dict, list)) or value is None or isinstance(value, bool):
        raise TypeError(f"expected a number or a string, got {value!r}")
    text = repr(value) if isinstance(value, float) else str(value)
    converted = action.type(text) if callable(action.type) else text
    if action.choices is not None and converted not in action.choices:
        choices = ", ".join(map(repr, action.choices))
        raise ValueError(f"invalid choice {converted!r} (choose from {choices})")
    return converted
