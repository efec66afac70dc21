"""``assembly-gym bench``: every agent of every suite on the same held-out data, one report.

The suites, the harness and the report are imported by :func:`run`, not here, so that
``bench --help`` starts without torch (its lists of names come from
:mod:`~assembly_gym.benchmarks.options`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from assembly_gym.benchmarks.commands import add_dataclass_flags, dataclass_from_flags
from assembly_gym.benchmarks.commands.arguments import JOBS, ArtifactFolder
from assembly_gym.benchmarks.options import RESULTS, SUITE_NAMES, SYNTHETIC_AGENTS, Options
from assembly_gym.core.errors import AssemblyGymError

if TYPE_CHECKING:  # imported where used: the suites import every learner, torch included
    from assembly_gym.agents.base import EpisodicAgent
    from assembly_gym.benchmarks.executor import Executor
    from assembly_gym.benchmarks.suites import AgentSpec, Suite

RESULTS_KIND = "assembly-gym bench results"
"""``kind`` of the results.json that ``--out`` writes (read it with ``read_versioned_json``)."""
RESULTS_VERSION = 2
FOLD_SUITES = ("deliberation",)
"""Suites that ``--folds K`` cross-validates by resolution."""


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``bench`` subcommand."""
    parser = subparsers.add_parser(
        "bench",
        help=help_text,
        description=(
            "Fit every agent of each suite on the same training data and score it on the same "
            "held-out decisions: accuracy, macro-F1, log-loss, Brier, calibration, 95% bootstrap "
            "intervals over roll calls, a paired test against the best baseline, timings."
        ),
    )
    parser.add_argument(
        "--suite",
        nargs="+",
        default=None,
        choices=SUITE_NAMES,
        metavar="NAME",
        help=f"suites to run: {', '.join(SUITE_NAMES)} (default: synthetic, "
        "or unvotes when --data is given)",
    )
    add_dataclass_flags(parser, Options)
    parser.add_argument(
        "--agents",
        nargs="+",
        default=None,
        metavar="AGENT",
        help="run only these agents (names as in the table, quoted where they hold spaces); "
        f"the synthetic suite's: {', '.join(SYNTHETIC_AGENTS)}; another suite refuses a name it "
        "lacks and lists its own",
    )
    parser.add_argument(
        "--out",
        type=ArtifactFolder(RESULTS, RESULTS_KIND),
        default=None,
        help="folder for results.json, results.md, report.html and PNG plots (a new or empty "
        "folder, or an earlier report's)",
    )
    parser.add_argument(
        "--jobs",
        type=JOBS,
        default=None,
        help="parallel worker processes (-1: all cores; default 1); with --executor ray, the "
        "CPUs of the local Ray it starts (default: all cores; a cluster's CPUs are its own)",
    )
    parser.add_argument(
        "--executor",
        choices=("local", "ray"),
        default=None,
        help="where the work units run: local (this process, or --jobs processes) or ray (Ray "
        "tasks; a failing unit is run again once, then shown as a failed row) (default: local, "
        "or ray with --address)",
    )
    parser.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="join this running Ray cluster (auto: the one this machine is part of; "
        "HOST:6379) instead of starting a local Ray; implies --executor ray",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(run=run)


class _Only:
    """A suite's agents restricted to some names (a picklable callable, for worker processes)."""

    def __init__(
        self, agents: Callable[[Any, Options], Sequence[AgentSpec | EpisodicAgent]],
        names: tuple[str, ...],
    ) -> None:  # fmt: skip
        self.agents, self.names = agents, names

    def __call__(self, task: Any, options: Options) -> list[AgentSpec | EpisodicAgent]:
        return [spec for spec in self.agents(task, options) if spec.name in self.names]


def _restricted(suite: Suite, names: tuple[str, ...] | None) -> Suite:
    return suite if names is None else replace(suite, agents=_Only(suite.agents, names))


def _executor(args: argparse.Namespace) -> Executor:
    """The executor the flags ask for (Ray: connected now, before any work)."""
    from assembly_gym.benchmarks.executor import make_executor

    kind = args.executor or ("ray" if args.address else "local")
    if kind == "local":
        if args.address:
            raise AssemblyGymError("--address names a Ray cluster: use it with --executor ray")
        return make_executor(1 if args.jobs is None else args.jobs)
    from assembly_gym.benchmarks.ray_executor import RayExecutor

    cpus = None if args.jobs in (None, -1) else args.jobs
    try:
        return RayExecutor(args.address, num_cpus=cpus)
    except ConnectionError as error:
        reason = (str(error).strip() or type(error).__name__).splitlines()[0]
        raise AssemblyGymError(f"cannot join Ray at {args.address}: {reason}") from error


def run(args: argparse.Namespace) -> int:
    """Run the suites, print their tables, write the report."""
    from assembly_gym.benchmarks.harness import fold_summary
    from assembly_gym.benchmarks.report import write_report
    from assembly_gym.benchmarks.suites import SUITES, run_suite
    from assembly_gym.benchmarks.suites.base import build_task

    names = args.suite or (["unvotes"] if args.data else ["synthetic"])
    options = dataclass_from_flags(Options, args)
    wanted = tuple(args.agents) if args.agents else None
    if options.folds is None and options.fold is not None:
        raise AssemblyGymError("--fold picks one fold of --folds K: give --folds too")
    if options.folds is not None and (other := [n for n in names if n not in FOLD_SUITES]):
        raise AssemblyGymError(
            f"--folds cross-validates the {', '.join(FOLD_SUITES)} suite only, not "
            f"{', '.join(other)}: run those with their temporal split"
        )
    executor = _executor(args)
    if wanted:  # every suite's names checked before the first suite runs
        for name in names:
            task = build_task(SUITES[name], options)
            available = [spec.name for spec in SUITES[name].agents(task, options)]
            unknown = sorted(set(wanted) - set(available))
            if unknown:
                raise AssemblyGymError(
                    f"unknown agents {unknown} in suite {name}; choose from {available}"
                )
    results = []
    for name in names:
        suite = _restricted(SUITES[name], wanted)
        if options.folds is None or options.fold is not None:
            result = run_suite(suite, options, executor=executor, progress=not args.quiet)
            print(f"## {name}\n\n{result.to_markdown()}\n")
            results.append(result)
            continue
        folds = []
        for fold in range(options.folds):
            result = run_suite(suite, replace(options, fold=fold), executor=executor,
                               progress=not args.quiet)  # fmt: skip
            result = replace(result, suite=f"{name}-fold{fold + 1}")
            print(f"## {name}, fold {fold + 1} of {options.folds}\n\n{result.to_markdown()}\n")
            folds.append(result)
        summary = fold_summary(folds, suite.metrics)
        table = summary.to_markdown(index=False, floatfmt=".4f")
        print(f"## {name}: mean and sd across {options.folds} folds by resolution "
              f"(seed {options.seed})\n\n{table}\n")  # fmt: skip
        results.extend(folds)
    if args.out is not None:
        written = write_report(
            results, args.out, options=asdict(options), kind=RESULTS_KIND, version=RESULTS_VERSION
        )
        print(f"wrote {', '.join(sorted(written))} to {args.out}")
    return 0
