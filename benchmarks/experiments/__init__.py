"""One-off benchmark programs, each run as ``assembly-gym experiment NAME [args]``.

Every module of this package is an experiment, the program behind a figure of the README or
the guides: a docstring whose first line says what it measures (``--list`` prints it,
``--help`` the whole), ``add_arguments(parser)`` (its own flags; ``parser.set_defaults`` may
change a common flag's default) and ``run(args)``, which prints its report. The common flags
are added here: ``--seed``, ``--threads``, ``--out`` (the printed report also written to a
file, whole once the run is done) and ``--quiet``. Every flag is checked while parsing (a bad
one: one line on stderr, exit code 2); checks that need several flags come first in ``run``.

Example:
    >>> from assembly_gym.benchmarks.experiments import EXPERIMENTS, build_parser
    >>> "throughput" in EXPERIMENTS
    True
    >>> build_parser("throughput").parse_args(["--seconds", "0.5"]).seconds
    0.5
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import io
import pkgutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TextIO

from threadpoolctl import threadpool_limits

from assembly_gym.benchmarks.cli import Parser
from assembly_gym.benchmarks.commands.arguments import POSITIVE_INT, SEED, THREADS, OutputFile
from assembly_gym.core.errors import AssemblyGymError
from assembly_gym.core.paths import real_data_missing, unvotes_dir
from assembly_gym.core.persist import atomic_write_text

if TYPE_CHECKING:
    from assembly_gym.envs.legislative.synthetic import SyntheticAssembly

__all__ = [
    "EXPERIMENTS",
    "add_data_argument",
    "add_model_arguments",
    "build_parser",
    "describe",
    "load",
    "main",
    "real_votes",
    "synthetic_assembly",
]

EXPERIMENTS: tuple[str, ...] = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)))
"""The experiments' names: the modules of this package."""

REPORT_HEADER = "<!-- assembly-gym experiment report -->\n"
"""The first line of every ``--out`` report (invisible in rendered Markdown): a file that
begins with it is an earlier report and may be replaced; any other file is refused."""


def load(name: str) -> ModuleType:
    """The module of an experiment.

    Raises:
        AssemblyGymError: when there is no experiment of that name.
    """
    if name not in EXPERIMENTS:
        raise AssemblyGymError(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}")
    return importlib.import_module(f"{__name__}.{name}")


def describe(name: str) -> str:
    """An experiment's one-line description (the first line of its docstring)."""
    return _docstring(load(name)).partition("\n")[0]


def _docstring(module: ModuleType) -> str:
    """A module's docstring without reST's double backquotes."""
    return (inspect.getdoc(module) or "").replace("``", "")


def build_parser(name: str) -> argparse.ArgumentParser:
    """An experiment's parser: the common flags, then its own; ``run`` is its default."""
    module = load(name)
    parser = Parser(
        prog=f"assembly-gym experiment {name}",
        description=_docstring(module),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common = parser.add_argument_group("common flags")
    common.add_argument(
        "--seed", type=SEED, default=0, help="seed of its random choices (default: %(default)s)"
    )
    common.add_argument(
        "--threads",
        type=THREADS,
        default=None,
        metavar="N",
        help="BLAS and OpenMP (torch) threads while it runs (default: %(default)s; None: "
        "the libraries' own)",
    )
    common.add_argument(
        "--out",
        type=OutputFile(REPORT_HEADER.encode()),
        default=None,
        metavar="FILE",
        help="also write its report to FILE (a new file or an earlier report, written once the "
        "run is done)",
    )
    common.add_argument("--quiet", action="store_true", help="no progress bars")
    module.add_arguments(parser)
    parser.set_defaults(run=module.run)
    return parser


def main(name: str, argv: Sequence[str] = ()) -> int:
    """Parse an experiment's flags and run it; returns the exit code (0).

    A bad flag exits with one line on stderr and ``SystemExit(2)`` before the experiment runs.
    """
    args = build_parser(name).parse_args(list(argv))
    with threadpool_limits(limits=args.threads), _report(args.out):  # None: no limit
        args.run(args)
    return 0


def add_data_argument(parser: argparse.ArgumentParser) -> None:
    """``--data DIR``: the real votes (an unvotes folder), for an experiment that needs them."""
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        metavar="DIR",
        help="the real votes, an unvotes folder (default: the unvotes folder of "
        "$ASSEMBLY_GYM_DATA or ../shared/data)",
    )


def add_model_arguments(parser: argparse.ArgumentParser, *, sessions: str | None = None) -> None:
    """``--max-epochs N``, the MLP ensemble's epoch limit; with ``sessions``, also ``--sessions N``.

    ``sessions`` is the help of ``--sessions``: a synthetic assembly shorter than the default
    (:func:`synthetic_assembly`).
    """
    parser.add_argument("--max-epochs", type=POSITIVE_INT, default=40,
                        help="the ensemble's epoch limit (default 40)")  # fmt: skip
    if sessions is not None:
        parser.add_argument("--sessions", type=POSITIVE_INT, default=None, help=sessions)


def synthetic_assembly(args: argparse.Namespace) -> SyntheticAssembly | None:
    """The synthetic assembly of ``--sessions`` sessions (None: the embedded default's)."""
    from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

    if args.sessions is None:
        return None
    return generate_assembly(SyntheticConfig(n_sessions=args.sessions))


def real_votes(args: argparse.Namespace) -> Path:
    """The unvotes folder of ``--data``, else the data folder's.

    Raises:
        AssemblyGymError: when neither exists.
    """
    folder = args.data if args.data is not None else unvotes_dir()
    if folder is None or not Path(folder).is_dir():
        if args.data is not None:
            raise AssemblyGymError(f"real votes not found at {args.data}: give --data DIR")
        raise AssemblyGymError(real_data_missing("unvotes", "un_votes.csv.gz") + ", or --data DIR")
    return Path(folder)


class _Tee(io.TextIOBase):
    """A text stream that writes to several."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


@contextlib.contextmanager
def _report(out: Path | None) -> Iterator[None]:
    """What is printed also goes to ``out`` (folders created), when given.

    ``out`` is written whole, in one rename, when the run is done: a run that fails or is
    killed leaves an earlier report there as it was.
    """
    if out is None:
        yield
        return
    report = io.StringIO()
    with contextlib.redirect_stdout(_Tee(sys.stdout, report)):
        yield
    atomic_write_text(out, REPORT_HEADER + report.getvalue())
