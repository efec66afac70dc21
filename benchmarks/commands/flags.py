"""Flags made from settings dataclasses (CleanRL's ``Args``), and the flags commands share.

A command declares its flags as the fields of a frozen dataclass whose docstring is its
description: each field is made by :func:`option`, :func:`switch` or :func:`positional` (its
help, and how its text is parsed and checked), or by the factory of a flag that several
commands take, the one place each of those is declared: :func:`out`, :func:`quiet`,
:func:`seed`, :func:`data` and :func:`synthetic`, :func:`sessions`, :func:`device`.
:func:`add_command` makes the command's parser from them.

Example:
    >>> import argparse
    >>> from dataclasses import dataclass
    >>> from assembly_gym.benchmarks.commands import flags
    >>> @dataclass(frozen=True)
    ... class Count:
    ...     '''Count to a number.'''
    ...     steps: int = flags.option("how far", 3, minimum=1)
    ...     quiet: bool = flags.quiet()
    >>> parser = argparse.ArgumentParser()
    >>> flags.add_dataclass_flags(parser, Count)
    >>> flags.dataclass_from_flags(Count, parser.parse_args(["--steps", "5"]))
    Count(steps=5, quiet=False)
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from assembly_gym.benchmarks.commands import arguments
from assembly_gym.benchmarks.commands.arguments import Number

__all__ = [
    "add_actions",
    "add_command",
    "add_dataclass_flags",
    "data",
    "dataclass_from_flags",
    "device",
    "option",
    "out",
    "positional",
    "quiet",
    "seed",
    "sessions",
    "switch",
    "synthetic",
]

if TYPE_CHECKING:
    from _typeshed import DataclassInstance  # typeshed's dataclass protocol (no runtime module)

Settings = TypeVar("Settings", bound="DataclassInstance")

_OURS = ("flags", "minimum", "maximum", "group", "positional")
"""Metadata keys that :func:`add_dataclass_flags` reads itself; the others go to argparse."""


def option(help: str, default: Any = None, *, required: bool = False, **spec: Any) -> Any:
    """A settings field that is a flag: ``--name`` (the field's name, ``_`` as ``-``).

    Args:
        help: the flag's help text (``%`` written ``%%``).
        default: its value when not given (ignored when ``required``).
        required: the flag must be given (the field has no default).
        spec: ``flags`` (its option strings, when not ``--name``), ``minimum`` and
            ``maximum`` (a number's range), ``group`` (flags of one group exclude each
            other), and any keyword of ``add_argument`` (``type``, ``metavar``, ``action``).
    """
    metadata = {"help": help, **spec}
    if required:
        return dataclasses.field(metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def switch(help: str, **spec: Any) -> Any:
    """A flag that takes no value: False unless given."""
    return option(help, False, **spec)


def positional(help: str, **spec: Any) -> Any:
    """A positional argument (required unless ``spec`` gives ``nargs`` and ``default``)."""
    default = spec.pop("default", dataclasses.MISSING)
    return dataclasses.field(default=default, metadata={"help": help, "positional": True, **spec})


def out(kind: Callable[[str], Path], help: str, *, required: bool = True, **spec: Any) -> Any:
    """``--out``: where a command writes, checked by ``kind`` before any work (arguments.py)."""
    return option(help, required=required, type=kind, **spec)


def quiet(help: str = "no progress bars") -> Any:
    """``--quiet``."""
    return switch(help)


def seed(what: str = "every random draw") -> Any:
    """``--seed`` (default 0), the seed of ``what``."""
    return option(f"seed of {what} (default 0)", 0, type=arguments.SEED)


def data(help: str, **spec: Any) -> Any:
    """``--data``: the data to read (None: the synthetic assembly, unless ``help`` says else)."""
    return option(help, **{"group": "source", **spec})


def synthetic() -> Any:
    """``--synthetic``, the alternative to ``--data``."""
    return switch("the embedded synthetic assembly (the default)", group="source")


def sessions(help: str) -> Any:
    """``--sessions A-B``: a range of sessions, as ``(A, B)`` (None when not given)."""
    return option(help, type=arguments.session_range, metavar="A-B")


def device(what: str = "torch runs") -> Any:
    """``--device``: where ``what``, checked as it is parsed."""
    return option(
        f"where {what}: auto (the GPU when there is one, else the CPU; default), cpu, cuda or "
        "cuda:N", "auto", type=arguments.device,
    )  # fmt: skip


def add_command(
    subparsers: argparse._SubParsersAction, name: str, run: Callable[..., int], help: str,
    *settings: type,
) -> argparse.ArgumentParser:  # fmt: skip
    """A command's parser: the flags of each ``settings``, the first's docstring its description."""
    parser = subparsers.add_parser(name, help=help, description=inspect.getdoc(settings[0]))
    add_dataclass_flags(parser, *settings)
    parser.set_defaults(run=run)
    return parser


def add_actions(
    subparsers: argparse._SubParsersAction, name: str, help: str, description: str
) -> argparse._SubParsersAction:
    """A command of several actions (``irl fit``, ``irl explain``, …): where to add them."""
    parser = subparsers.add_parser(name, help=help, description=description)
    return parser.add_subparsers(dest=f"{name}_action", required=True, metavar="ACTION")


def add_dataclass_flags(parser: argparse.ArgumentParser, *settings: type) -> None:
    """One flag per field of each settings dataclass, documented by the field's metadata.

    A field ``name`` becomes ``--name`` (metadata ``flags`` overrides; ``positional`` makes it
    an argument without a dash), required when the field has no default, with the metadata's
    ``help`` and other argparse keywords. From the field's type: a ``bool`` is a switch (given:
    not its default); ``X | None`` takes an X; ``tuple[X, ...]`` takes one or more (or one per
    flag, with ``action="append"``); a ``Literal`` takes one of its values; an ``int`` or
    ``float`` a finite number within metadata ``minimum`` and ``maximum``, checked as the flags
    are parsed (:class:`~.arguments.Number`). Metadata ``type`` replaces the parser of the
    text (e.g. :func:`~.arguments.device`); fields of one metadata ``group`` exclude each other.
    """
    groups: dict[str, argparse._ActionsContainer] = {}
    for cls in settings:
        hints = typing.get_type_hints(cls)
        for item in dataclasses.fields(cls):
            meta, kind = item.metadata, _without_none(hints[item.name])
            keywords = {k: v for k, v in meta.items() if k not in _OURS}
            _parse_as(keywords, kind, item.default, meta)
            if kind is not bool and item.default is not dataclasses.MISSING:
                keywords["default"] = item.default
                if keywords.get("action") == "append":  # argparse appends to a copy of a list
                    keywords["default"] = list(item.default)
            where: argparse._ActionsContainer = parser
            if group := meta.get("group"):
                if group not in groups:
                    groups[group] = parser.add_mutually_exclusive_group()
                where = groups[group]
            if meta.get("positional"):
                where.add_argument(item.name, **keywords)
            else:
                flags = meta.get("flags", ("--" + item.name.replace("_", "-"),))
                required = item.default is dataclasses.MISSING
                where.add_argument(*flags, dest=item.name, required=required, **keywords)


def _parse_as(keywords: dict[str, Any], kind: Any, default: Any, meta: Any) -> None:
    """Set ``keywords``'s ``action``, ``nargs``, ``type`` and ``choices`` from a field's type."""
    if kind is bool:
        keywords.setdefault("action", "store_false" if default is True else "store_true")
        return
    if typing.get_origin(kind) is tuple and typing.get_args(kind)[1:] == (Ellipsis,):
        kind = typing.get_args(kind)[0]
        if "action" not in keywords:  # else one value per flag ("append")
            keywords.setdefault("nargs", "+")
    if typing.get_origin(kind) is typing.Literal:
        keywords.setdefault("choices", typing.get_args(kind))
    elif kind in (int, float):
        keywords.setdefault("type", Number(kind, low=meta.get("minimum"), high=meta.get("maximum")))
    elif kind is Path:
        keywords.setdefault("type", Path)


def dataclass_from_flags(settings: type[Settings], args: argparse.Namespace) -> Settings:
    """The settings that :func:`add_dataclass_flags`'s flags were given (lists as tuples)."""
    values = {item.name: getattr(args, item.name) for item in dataclasses.fields(settings)}
    return settings(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


def _without_none(kind: Any) -> Any:
    """``X`` for ``X | None``, else the type itself."""
    if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union:
        (kind,) = [arg for arg in typing.get_args(kind) if arg is not type(None)]
    return kind
