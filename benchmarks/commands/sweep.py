"""``assembly-gym sweep SPACE``: a Ray Tune sweep, scored on validation data, best flags saved.

Examples:
    $ assembly-gym sweep irl --samples 8 --out sweeps/irl
    $ assembly-gym irl fit --config sweeps/irl/best.json --out models/synthetic
    $ assembly-gym sweep debate --seeds 0 1 2 --address auto --out sweeps/debate
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assembly_gym.benchmarks.commands import flags
from assembly_gym.benchmarks.commands.arguments import POSITIVE, SEED, ArtifactFolder
from assembly_gym.benchmarks.sweep import SPACES, SweepSettings, run_sweep, write_sweep
from assembly_gym.benchmarks.sweep.report import SWEEP_KIND, SWEEP_MANIFEST
from assembly_gym.core.optional import require

__all__ = ["register", "run"]


@dataclass(frozen=True, kw_only=True)
class Sweep:
    """A Ray Tune sweep over a named space, scored on validation data (never the test sessions).

    Writes the best flags as a --config file.
    """

    space: str = flags.positional(
        f"one of {', '.join(SPACES)}", choices=sorted(SPACES), metavar="SPACE"
    )
    data: str | None = flags.data(
        "an unvotes folder (or UNDL CSV); default: the synthetic assembly", metavar="DIR"
    )
    synthetic: bool = flags.synthetic()
    sessions: tuple[int, int] | None = flags.sessions(
        "the training sessions (default: the bench's, the first three quarters); later sessions "
        "are never loaded"
    )
    countries: tuple[str, ...] | None = flags.option(
        "countries (default: all with votes; debate: the first)", metavar="NAME"
    )
    validation_sessions: int | None = flags.option(
        "the last N training sessions validate (default: a sixth of them)", metavar="N", minimum=1
    )
    samples: int = flags.option("configurations tried (default 8)", 8, minimum=1)
    seeds: tuple[int, ...] = flags.option(
        "seeds each configuration runs with (default 0)", (0,), type=SEED
    )
    search: Literal["auto", "optuna", "random"] = flags.option(
        "Optuna where installed (auto, the default), or Tune's random search", "auto"
    )
    address: str | None = flags.option(
        "a Ray cluster to join (default: a local Ray)", metavar="ADDR"
    )
    cpus_per_trial: float = flags.option(
        "CPUs each trial reserves (default 1)", 1.0, type=POSITIVE, metavar="N"
    )
    quick: bool = flags.switch("tiny sizes: a smoke test")
    quiet: bool = flags.quiet("no progress bar")
    out: Path = flags.out(
        ArtifactFolder(SWEEP_MANIFEST, SWEEP_KIND), "folder for trials.csv, best.json, sweep.md "
        "and scores.png (saved whole)", metavar="DIR",
    )  # fmt: skip


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``sweep`` subcommand."""
    parser = flags.add_command(subparsers, "sweep", run, help_text, Sweep)
    spaces = "; ".join(f"{s.name}: {s.summary}" for s in SPACES.values())
    parser.description = f"{parser.description} Spaces: {spaces}."


def run(args: argparse.Namespace) -> int:
    """Sweep, print the table, save the folder."""
    require("ray", extra="ray", purpose="assembly-gym sweep")
    settings = flags.dataclass_from_flags(SweepSettings, args)
    result = run_sweep(
        SPACES[args.space], settings, samples=args.samples, seeds=args.seeds,
        search=args.search, address=args.address, cpus_per_trial=args.cpus_per_trial,
        progress=not args.quiet,
    )  # fmt: skip
    print(write_sweep(args.out, result))
    print(f"Saved {args.out} (best.json: `assembly-gym {result.space.command} --config "
          f"{args.out / 'best.json'}`)")  # fmt: skip
    return 0
