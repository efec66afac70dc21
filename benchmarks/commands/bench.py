"""``assembly-gym bench``: every agent on the same temporal split, one table."""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.baselines import PlantedAgent
from benchmarks.harness import TemporalSplit, default_agents, evaluate
from envs.errors import AssemblyGymError
from envs.legislative.sources import default_assembly, roll_call_data
from envs.persist import atomic_write_json, atomic_write_text

RESULTS_KIND = "assembly-gym bench results"
"""``kind`` of the results.json that ``--out`` writes (read it with ``read_versioned_json``)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    parser = subparsers.add_parser(
        "bench",
        help="compare agents on held-out sessions",
        description="Fit every agent per country on earlier sessions and score it on later ones.",
    )
    parser.add_argument(
        "--data", default=None,
        help="an unvotes folder or UNDL CSV (default: the synthetic assembly)",
    )  # fmt: skip
    parser.add_argument(
        "--last-train-session", type=int, default=None,
        help="last training session (default: 60 on real data, else 3/4 of the sessions)",
    )  # fmt: skip
    parser.add_argument(
        "--countries", nargs="+", default=None, metavar="NAME",
        help="countries to evaluate (default: all with votes in both periods)",
    )  # fmt: skip
    parser.add_argument(
        "--agents", nargs="+", default=None, metavar="AGENT",
        help=f"agents to run (default: all of {', '.join(default_agents())})",
    )  # fmt: skip
    parser.add_argument(
        "--out", type=Path, default=None,
        help="folder to write results.md and results.json into",
    )  # fmt: skip
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print the table."""
    data = roll_call_data(args.data)
    last = args.last_train_session
    if last is None and args.data is not None and data.sessions.max() >= 61:
        last = 60
    agents = default_agents()
    if args.data is None:  # the synthetic default knows the truth: show the ceiling
        assembly = default_assembly()
        agents["planted (oracle)"] = lambda layout: PlantedAgent(assembly, layout)
    if args.agents:
        unknown = sorted(set(args.agents) - set(agents))
        if unknown:
            raise AssemblyGymError(f"unknown agents {unknown}; choose from {sorted(agents)}")
        agents = {name: agents[name] for name in args.agents}
    result = evaluate(agents, TemporalSplit.of(data, last), countries=args.countries,
                      progress=not args.quiet)  # fmt: skip
    markdown = f"Data: {data.source}\n{result.to_markdown()}"
    print(markdown)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.out / "results.md", markdown + "\n")
        payload = {
            "data": data.source, "split": result.split, "class_balance": result.class_balance,
            "countries": list(result.countries), "results": result.table.to_dict(orient="records"),
        }  # fmt: skip
        atomic_write_json(args.out / "results.json", payload, kind=RESULTS_KIND, version=1)
    return 0
