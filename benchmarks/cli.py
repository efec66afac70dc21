"""The ``assembly-gym`` command line.

Each subcommand is a module of :mod:`assembly_gym.benchmarks.commands` with
``register(subparsers, help_text)``, which adds its parser (with the one-line ``help_text``
of :data:`COMMANDS`) and sets ``run(args) -> int`` as the parser's default. Only the module of
the subcommand named on the command line is imported: ``assembly-gym --help`` lists the
subcommands from :data:`COMMANDS` without importing any (so it starts without torch).

Commands that take ``--config FILE`` (a flag file, e.g. ``assembly-gym sweep``'s best.json)
read it as they parse: the file's flags count as typed before the command line's own
(:func:`assembly_gym.benchmarks.commands.arguments.add_config_flag`).

Exit codes: 0 done; 2 bad input (a flag's value, an output path, the data, a saved model)
or a file-system error (a full disk, no permission): one line on stderr, flags checked before
any data is read; 130 interrupted (Ctrl-C, at any moment after the package is imported).
Other errors are bugs and keep their traceback.

Example:
    $ assembly-gym bench                              # synthetic default
    $ assembly-gym bench --data ../shared/data/unvotes
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Collection, Sequence
from typing import Any, NoReturn

from assembly_gym.benchmarks.commands.arguments import add_config_flag, config_defaults
from assembly_gym.core.errors import AssemblyGymError

__all__ = ["COMMANDS", "Parser", "build_parser", "main", "subcommand_parsers"]

COMMANDS = {
    "bench": "compare every agent on held-out data (suites, tables, plots)",
    "debate": "explain an actor as a debate-calibrated mixture of tendencies",
    "experiment": "run a benchmark program of the guides (--list shows them)",
    "irl": "learn each country's reward function from its votes (MaxEnt IRL)",
    "leworld": "train or evaluate the LeWorld memory-reading world model",
    "play": "play a country in the terminal",
    "simulate": "play sessions with every country acting by its learned reward; counterfactuals",
    "sweep": "tune a command's hyperparameters on Ray Tune (validation data only)",
    "worldmodel": "train and evaluate learned world models",
}
"""Every subcommand (the module of :mod:`assembly_gym.benchmarks.commands` of that name) and
its one-line help, the only copy of it: the module's ``register`` receives it."""

CONFIG_COMMANDS = ("bench", "irl fit", "debate train")
"""The subcommands that take ``--config FILE`` (``experiment worldmodel_ppo`` adds its own)."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, with a usage error on one line: ``PROG: error: MESSAGE (see --help)``.

    A parser given ``--config`` (:func:`~.arguments.add_config_flag`) applies the file's
    flags as defaults and parses again, so the flags typed on the command line win.
    """

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE (see PROG --help)`` on stderr and exit with code 2."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Argparse's parse; then, when ``--config FILE`` was given, again over its flags."""
        given = None if args is None else list(args)
        first = None if namespace is None else argparse.Namespace(**vars(namespace))
        parsed, extras = super().parse_known_args(given, first)
        path, command = getattr(parsed, "config", None), self.get_default("config_command")
        if path is None or command is None:
            return parsed, extras
        try:
            values = config_defaults(self, path, command)
        except AssemblyGymError as error:
            self.error(str(error))
        saved: dict[str, Any] = {dest: self.get_default(dest) for dest in values}
        self.set_defaults(**values)
        try:
            return super().parse_known_args(given, namespace)
        finally:
            self.set_defaults(**saved)


def build_parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand of :data:`COMMANDS`.

    Args:
        load: the subcommands whose modules are imported and whose flags are added (None:
            all); the others are listed by name and help only, enough for ``--help``.
    """
    parser = Parser(prog="assembly-gym", description="Environments, world models, inverse RL "
                    "and benchmarks of UN General Assembly behaviour.")  # fmt: skip
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        if load is None or name in load:
            module = importlib.import_module(f"assembly_gym.benchmarks.commands.{name}")
            module.register(subparsers, help_text)
        else:
            subparsers.add_parser(name, help=help_text)
    for command_parser in subcommand_parsers(parser):
        command_parser.set_defaults(prog=command_parser.prog)  # the innermost one wins
        command = command_parser.prog.removeprefix(f"{parser.prog} ")
        if command in CONFIG_COMMANDS:
            add_config_flag(command_parser, command)
    return parser


def subcommand_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """Every parser under ``parser`` (``assembly-gym irl``, ``assembly-gym irl fit``, …)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases share a parser
                found += [child, *subcommand_parsers(child)]
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run a subcommand; bad input ends with a one-line error and exit code 2.

    A bad flag (argparse's check, at parse time) exits with ``SystemExit(2)``; an error met
    later is returned as 2: the project's errors, and every file-system error (a full disk,
    no permission, a read-only file system). Ctrl-C returns 130, from start-up on: the
    subcommand's module, torch included, is imported inside. Anything else keeps its
    traceback.
    """
    args = argparse.Namespace(prog="assembly-gym")  # until the flags are parsed
    try:
        given = sys.argv[1:] if argv is None else list(argv)
        named = next((word for word in given if not word.startswith("-")), None)
        args = build_parser(load=[named] if named else []).parse_args(given)
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print(f"{args.prog}: interrupted", file=sys.stderr)
        return 130
    except AssemblyGymError as error:
        return _fail(args, str(error))
    except OSError as error:
        return _fail(args, _os_error_text(error))


def _fail(args: argparse.Namespace, message: str) -> int:
    print(f"{args.prog}: error: {message}", file=sys.stderr)
    return 2


def _os_error_text(error: OSError) -> str:
    """``PATH: reason`` (e.g. ``out/model.json: No space left on device``), or the reason."""
    reason, name = error.strerror or str(error) or type(error).__name__, error.filename
    if name is None:
        return reason
    return f"{os.fsdecode(name) if isinstance(name, bytes) else name}: {reason}"


if __name__ == "__main__":
    sys.exit(main())
