"""``assembly-gym bench``: every agent of every suite on the same held-out data, one report.

The suites, the harness and the report are imported by :func:`run`, not here, so that
``bench --help`` starts without torch (its lists of names come from
:mod:`~assembly_gym.benchmarks.options`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from assembly_gym.benchmarks.commands import flags
from assembly_gym.benchmarks.commands.arguments import JOBS, ArtifactFolder
from assembly_gym.benchmarks.options import AGENTS, RESULTS, SUITE_NAMES, Options
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


@dataclass(frozen=True)
class Bench:
    """Every agent of each suite, fitted on the same data, scored on the same held-out decisions.

    Accuracy, macro-F1, log-loss, Brier, calibration, 95% bootstrap intervals over roll calls,
    paired tests of every row against the default reward (``maxent-irl (mixture)``; where a
    suite has none, the best baseline) on accuracy, macro-F1 and log-loss, timings.
    """

    suite: tuple[str, ...] | None = flags.option(
        f"suites to run: {', '.join(SUITE_NAMES)} (default: synthetic, or unvotes when --data "
        "is given)", choices=SUITE_NAMES, metavar="NAME",
    )  # fmt: skip
    agents: tuple[str, ...] | None = flags.option(
        "run only these agents (names as in the table, quoted where they hold spaces); the "
        f"synthetic suite's: {', '.join(AGENTS['synthetic'])}; another suite refuses a name it "
        "lacks and lists its own", metavar="AGENT",
    )  # fmt: skip
    out: Path | None = flags.out(
        ArtifactFolder(RESULTS, RESULTS_KIND), "folder for results.json, results.md, "
        "report.html and PNG plots (a new or empty folder, or an earlier report's)",
        required=False,
    )  # fmt: skip
    jobs: int | None = flags.option(
        "parallel worker processes (-1: all cores; default 1); with --executor ray, the CPUs of "
        "the local Ray it starts (default: all cores; a cluster's CPUs are its own)", type=JOBS,
    )  # fmt: skip
    executor: Literal["local", "ray"] | None = flags.option(
        "where the work units run: local (this process, or --jobs processes) or ray (Ray tasks; "
        "a failing unit is run again once, then shown as a failed row) (default: local, or ray "
        "with --address)"
    )
    address: str | None = flags.option(
        "join this running Ray cluster (auto: the one this machine is part of; HOST:6379) "
        "instead of starting a local Ray; implies --executor ray", metavar="ADDR",
    )  # fmt: skip
    quiet: bool = flags.quiet()


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``bench`` subcommand."""
    flags.add_command(subparsers, "bench", run, help_text, Bench, Options)


def _only(
    agents: Callable[[Any, Options], Sequence[AgentSpec | EpisodicAgent]], names: tuple[str, ...],
    task: Any, options: Options,
) -> list[AgentSpec | EpisodicAgent]:  # fmt: skip
    """The suite's agents of these names (a module function: picklable for worker processes)."""
    return [spec for spec in agents(task, options) if spec.name in names]


def _restricted(suite: Suite, names: tuple[str, ...] | None) -> Suite:
    return suite if names is None else replace(suite, agents=partial(_only, suite.agents, names))


def _check_agents(wanted: tuple[str, ...], suite: str, available: Sequence[str]) -> None:
    """Refuse the names of ``wanted`` that ``suite`` does not run, listing those it does."""
    unknown = sorted(set(wanted) - set(available))
    if unknown:
        raise AssemblyGymError(
            f"unknown agents {unknown} in suite {suite}; choose from {list(available)}"
        )


def _executor(args: argparse.Namespace) -> Executor:
    """The executor the flags ask for (Ray: connected now, before any work)."""
    from assembly_gym.benchmarks.executor import LocalExecutor

    kind = args.executor or ("ray" if args.address else "local")
    if kind == "local":
        if args.address:
            raise AssemblyGymError("--address names a Ray cluster: use it with --executor ray")
        return LocalExecutor(1 if args.jobs is None else args.jobs)
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
    options = flags.dataclass_from_flags(Options, args)
    wanted = tuple(args.agents) if args.agents else None
    if options.folds is None and options.fold is not None:
        raise AssemblyGymError("--fold picks one fold of --folds K: give --folds too")
    if options.folds is not None and (other := [n for n in names if n not in FOLD_SUITES]):
        raise AssemblyGymError(
            f"--folds cross-validates the {', '.join(FOLD_SUITES)} suite only, not "
            f"{', '.join(other)}: run those with their temporal split"
        )
    if wanted:  # every name a suite may run, before any data is read
        for name in names:
            _check_agents(wanted, name, AGENTS[name])
    executor = _executor(args)
    if wanted:  # those the data lets it run, before the first suite runs
        for name in names:
            task = build_task(SUITES[name], options)
            _check_agents(wanted, name, [spec.name for spec in SUITES[name].agents(task, options)])
    results = []
    runs: Sequence[int | None] = [options.fold]  # one run, or each fold of --folds K
    if options.folds is not None and options.fold is None:
        runs = range(options.folds)
    every_fold = len(runs) > 1
    for name in names:
        suite = _restricted(SUITES[name], wanted)
        folds = []
        for k, fold in enumerate(runs, 1):
            result = run_suite(suite, replace(options, fold=fold), executor=executor,
                               progress=not args.quiet)  # fmt: skip
            title = name
            if every_fold:
                result = replace(result, suite=f"{name}-fold{k}")
                title = f"{name}, fold {k} of {options.folds}"
            print(f"## {title}\n\n{result.to_markdown()}\n")
            folds.append(result)
        if every_fold:
            table = fold_summary(folds, suite.metrics).to_markdown(index=False, floatfmt=".4f")
            print(f"## {name}: mean and sd across {options.folds} folds by resolution "
                  f"(seed {options.seed})\n\n{table}\n")  # fmt: skip
        results.extend(folds)
    if args.out is not None:
        written = write_report(
            results, args.out, options=asdict(options), kind=RESULTS_KIND, version=RESULTS_VERSION
        )
        print(f"wrote {', '.join(sorted(written))} to {args.out}")
    return 0
