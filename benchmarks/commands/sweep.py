"""``assembly-gym sweep SPACE``: a Ray Tune sweep, scored on validation data, best flags saved.

Examples:
    $ assembly-gym sweep irl --samples 8 --out sweeps/irl
    $ assembly-gym irl fit --config sweeps/irl/best.json --out models/synthetic
    $ assembly-gym sweep debate --seeds 0 1 2 --address auto --out sweeps/debate
"""

from __future__ import annotations

import argparse

from assembly_gym.benchmarks.commands import add_data_source
from assembly_gym.benchmarks.commands.arguments import (
    POSITIVE,
    POSITIVE_INT,
    SEED,
    ArtifactFolder,
)
from assembly_gym.benchmarks.commands.irl import parse_sessions
from assembly_gym.benchmarks.sweep import SPACES, SweepSettings, run_sweep, write_sweep
from assembly_gym.benchmarks.sweep.report import SWEEP_KIND, SWEEP_MANIFEST
from assembly_gym.core.optional import require

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``sweep`` subcommand."""
    spaces = "; ".join(f"{s.name}: {s.summary}" for s in SPACES.values())
    parser = subparsers.add_parser(
        "sweep",
        help=help_text,
        description=f"A Ray Tune sweep over a named space, scored on validation data (never "
        f"the test sessions); writes the best flags as a --config file. Spaces: {spaces}.",
    )
    parser.add_argument("space", choices=sorted(SPACES), metavar="SPACE",
                        help=f"one of {', '.join(SPACES)}")  # fmt: skip
    add_data_source(parser, "an unvotes folder (or UNDL CSV); default: the synthetic assembly")
    parser.add_argument(
        "--sessions", default=None, metavar="A-B",
        help="the training sessions (default: the bench's, the first three quarters); later "
        "sessions are never loaded",
    )  # fmt: skip
    parser.add_argument("--countries", nargs="+", default=None, metavar="NAME",
                        help="countries (default: all with votes; debate: the first)")  # fmt: skip
    parser.add_argument(
        "--validation-sessions", type=POSITIVE_INT, default=None, metavar="N",
        help="the last N training sessions validate (default: a sixth of them)",
    )  # fmt: skip
    parser.add_argument("--samples", type=POSITIVE_INT, default=8,
                        help="configurations tried (default 8)")  # fmt: skip
    parser.add_argument("--seeds", type=SEED, nargs="+", default=[0],
                        help="seeds each configuration runs with (default 0)")  # fmt: skip
    parser.add_argument(
        "--search", choices=("auto", "optuna", "random"), default="auto",
        help="Optuna where installed (auto, the default), or Tune's random search",
    )  # fmt: skip
    parser.add_argument("--address", default=None, metavar="ADDR",
                        help="a Ray cluster to join (default: a local Ray)")  # fmt: skip
    parser.add_argument("--cpus-per-trial", type=POSITIVE, default=1.0, metavar="N",
                        help="CPUs each trial reserves (default 1)")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--out", required=True, type=ArtifactFolder(SWEEP_MANIFEST, SWEEP_KIND), metavar="DIR",
        help="folder for trials.csv, best.json, sweep.md and scores.png (saved whole)",
    )  # fmt: skip
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Sweep, print the table, save the folder."""
    require("ray", extra="ray", purpose="assembly-gym sweep")
    first, last = parse_sessions(args.sessions)
    settings = SweepSettings(
        data=None if args.synthetic else args.data,
        sessions=None if first is None or last is None else (first, last),
        countries=None if args.countries is None else tuple(args.countries),
        validation_sessions=args.validation_sessions,
        quick=args.quick,
    )
    result = run_sweep(
        SPACES[args.space], settings, samples=args.samples, seeds=args.seeds,
        search=args.search, address=args.address, cpus_per_trial=args.cpus_per_trial,
        progress=not args.quiet,
    )  # fmt: skip
    print(write_sweep(args.out, result))
    print(f"Saved {args.out} (best.json: `assembly-gym {result.space.command} --config "
          f"{args.out / 'best.json'}`)")  # fmt: skip
    return 0
