"""Subcommands of ``assembly-gym``, one module each (found by :mod:`assembly_gym.benchmarks.cli`).

Here: flags that several subcommands share, and flags made from a settings dataclass.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from typing import TYPE_CHECKING, Any, TypeVar

from assembly_gym.benchmarks.commands.arguments import Number

__all__ = ["add_data_source", "add_dataclass_flags", "dataclass_from_flags"]

if TYPE_CHECKING:
    from _typeshed import DataclassInstance  # typeshed's dataclass protocol (no runtime module)

Settings = TypeVar("Settings", bound="DataclassInstance")


def add_data_source(parser: argparse.ArgumentParser, data_help: str) -> argparse._ActionsContainer:
    """``--data DIR | --synthetic``, exclusive; returns the group so a command can add a source."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--data", default=None, metavar="DIR", help=data_help)
    source.add_argument(
        "--synthetic", action="store_true", help="the embedded synthetic assembly (the default)"
    )
    return source


def add_dataclass_flags(parser: argparse.ArgumentParser, settings: type) -> None:
    """One flag per field of a settings dataclass, documented by the field's metadata.

    A field ``name`` becomes ``--name`` (underscores as hyphens; metadata ``flag`` overrides),
    with the field's default and the metadata's ``help`` (and ``metavar``). A ``bool`` is a
    switch; ``X | None`` takes an X; ``tuple[X, ...]`` takes one or more. An ``int`` or
    ``float`` takes a finite number within metadata ``minimum`` and ``maximum`` (when given),
    checked as the flags are parsed (:class:`~.arguments.Number`). Metadata ``type`` replaces
    the field's type as the parser of its text (e.g. :func:`~.arguments.device`).

    Args:
        parser: the command's parser.
        settings: a dataclass whose fields all have defaults.
    """
    hints = typing.get_type_hints(settings)
    for item in dataclasses.fields(settings):
        flag = item.metadata.get("flag", "--" + item.name.replace("_", "-"))
        help_text = item.metadata["help"]
        kind = _without_none(hints[item.name])
        if kind is bool:
            parser.add_argument(flag, dest=item.name, action="store_true", help=help_text)
            continue
        nargs = None
        if typing.get_origin(kind) is tuple:
            kind, nargs = typing.get_args(kind)[0], "+"
        if kind in (int, float):
            kind = Number(kind, low=item.metadata.get("minimum"), high=item.metadata.get("maximum"))
        kind = item.metadata.get("type", kind)
        parser.add_argument(
            flag,
            dest=item.name,
            type=kind,
            nargs=nargs,
            default=item.default,
            metavar=item.metadata.get("metavar"),
            help=help_text,
        )


def dataclass_from_flags(settings: type[Settings], args: argparse.Namespace) -> Settings:
    """The settings that :func:`add_dataclass_flags`'s flags were given (lists as tuples)."""
    values: dict[str, Any] = {}
    for item in dataclasses.fields(settings):
        value = getattr(args, item.name)
        values[item.name] = tuple(value) if isinstance(value, list) else value
    return settings(**values)


def _without_none(kind: Any) -> Any:
    """``X`` for ``X | None``, else the type itself."""
    if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union:
        (kind,) = [arg for arg in typing.get_args(kind) if arg is not type(None)]
    return kind
