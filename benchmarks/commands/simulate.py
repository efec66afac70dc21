r"""``assembly-gym simulate``: play whole sessions with every country acting by its learned reward.

The play: :mod:`assembly_gym.benchmarks.simulation`; its scores and plots:
:mod:`assembly_gym.benchmarks.simulation_report`.

Examples:
    $ assembly-gym irl fit --data ../shared/data/unvotes --sessions 1-60 --out models/un
    $ assembly-gym simulate models/un --data ../shared/data/unvotes --sessions 61-69 \
          --out runs/p5 --force P5=no --set important=1
    $ assembly-gym irl fit --sessions 1-15 --out models/synthetic
    $ assembly-gym simulate models/synthetic --out runs/synthetic   # sessions 16-20, after 1-15

``--out`` is one artifact folder: ``results.json`` (its manifest: options, scores,
counterfactual), ``results.md``, ``roll_calls.csv``, ``countries.csv`` and PNG plots.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assembly_gym.benchmarks import simulation
from assembly_gym.benchmarks.commands import flags
from assembly_gym.benchmarks.commands.arguments import ArtifactFolder
from assembly_gym.benchmarks.simulation_report import report_simulation
from assembly_gym.core.artifact import write_artifact
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import RollCallData
from assembly_gym.envs.legislative.sources import roll_call_data
from assembly_gym.irl.base import RewardModel

__all__ = ["RESULTS", "RESULTS_KIND", "register", "run"]

RESULTS = "results.json"
RESULTS_KIND = "assembly-gym simulation"
"""``kind`` of the results.json that ``--out`` writes."""
_VERSION = 1


def _pair(form: str, right: tuple[str, ...] | None = None) -> Any:
    """An argparse type for ``LEFT=RIGHT`` (``right``: the values RIGHT may take)."""

    def parse(text: str) -> tuple[str, str]:
        left, sign, value = text.partition("=")
        if not (sign and left.strip() and value.strip()):
            raise argparse.ArgumentTypeError(f"expected {form}, got {text!r}")
        if right is not None and value.strip() not in right:
            raise argparse.ArgumentTypeError(f"expected {form} with VOTE in {right}, got {text!r}")
        return left.strip(), value.strip()

    return parse


def _setting(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` of a roll-call attribute that a roll call can be given."""
    pair = _pair("NAME=VALUE")(text)
    try:
        simulation.check_settings((pair,))
    except DataError as error:
        raise argparse.ArgumentTypeError(error.problem) from None
    return pair


@dataclass(frozen=True, kw_only=True)
class Simulate:
    """Every country votes on every roll call of the sessions by its learned reward.

    Each by the soft-optimal policy of its learned reward (an `irl fit` model), from the roll
    calls' attributes only; the real votes are read only to score the play, beside a play where
    each country always casts its historical majority vote. Interventions give a counterfactual
    with the same draws.
    """

    model: Path = flags.positional(
        "a reward model folder written by `irl fit`", metavar="MODEL_DIR"
    )
    data: str | None = flags.data(
        "an unvotes folder (or UNDL CSV); default: the synthetic assembly", metavar="DIR"
    )
    synthetic: bool = flags.synthetic()
    sessions: tuple[int, int] | None = flags.sessions(
        "simulate sessions A to B inclusive (default: the sessions after the model's training "
        "sessions)"
    )
    out: Path = flags.out(
        ArtifactFolder(RESULTS, RESULTS_KIND), "folder for results.json, results.md, CSVs and "
        "PNG plots (a new or empty folder, or an earlier simulation's)", metavar="DIR",
    )  # fmt: skip
    seed: int = flags.seed("the votes drawn")
    bootstrap: int = flags.option("bootstrap resamples (over roll calls) of the intervals", 1000,
                                  metavar="N", minimum=10)  # fmt: skip
    replace_reward: tuple[tuple[str, str], ...] = flags.option(
        "country A acts by country B's learned reward (repeatable)", (), type=_pair("A=B"),
        action="append", metavar="A=B",
    )  # fmt: skip
    force: tuple[tuple[str, str], ...] = flags.option(
        f"WHO always votes VOTE ({'/'.join(simulation.VOTE_NAMES)}); WHO: all, "
        f"{', '.join(simulation.GROUPS)}, or countries joined by + (repeatable)", (),
        type=_pair("WHO=VOTE", right=simulation.VOTE_NAMES),
        action="append", metavar="WHO=VOTE",
    )  # fmt: skip
    set_features: tuple[tuple[str, str], ...] = flags.option(
        "set a roll-call attribute on every simulated roll call: issue=CODE "
        "(me/nu/di/hr/co/ec/none), important=0|1, amend=0|1, para=0|1 (repeatable)", (),
        flags=("--set", "--set-feature"), type=_setting, action="append", metavar="NAME=VALUE",
    )  # fmt: skip


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``simulate`` subcommand."""
    flags.add_command(subparsers, "simulate", run, help_text, Simulate)


def _later_sessions(data: RollCallData, trained: list[int | None]) -> tuple[int, int]:
    """The sessions of ``data`` after the model's training sessions, ``trained`` (first, last)."""
    later = data.sessions[data.sessions > (trained[1] if trained[1] is not None else np.inf)]
    if not later.size:
        raise DataError(data.source, f"no sessions after the model's training sessions "
                        f"{trained[0]}–{trained[1]}: give --sessions A-B")  # fmt: skip
    first, last = int(later[0]), int(later[-1])
    print(f"Simulating sessions {first}–{last}, those after the model's training sessions "
          f"{trained[0]}–{trained[1]} (--sessions A-B picks others)")  # fmt: skip
    return first, last


def run(args: argparse.Namespace) -> int:
    """Simulate, score, print the tables and the counterfactual, write the artifact."""
    interventions = flags.dataclass_from_flags(simulation.Interventions, args)
    model = RewardModel.load(args.model)
    voters = simulation.members(model)
    simulation.check_interventions(model, interventions, voters)
    data = roll_call_data(None if args.synthetic else args.data)
    trained = model.info.get("sessions", [None, None])
    first, last = args.sessions or _later_sessions(data, trained)
    real = data.select_sessions(first, last)  # DataError when it holds no roll call
    in_sample = trained[1] is not None and first <= trained[1]

    roll_calls = real.roll_calls  # attributes only: the simulation never sees real.votes
    played = simulation.simulate(model, roll_calls, seed=args.seed, countries=voters)
    intervened = None
    if interventions:
        intervened = simulation.simulate(model, roll_calls, seed=args.seed,
                                         interventions=interventions, countries=voters)
    result = report_simulation(
        real, played, simulation.majority_play(model, roll_calls, voters), intervened,
        n_resamples=args.bootstrap, rng=np.random.default_rng(args.seed),
        title=interventions.describe(),
    )  # fmt: skip
    reproduce = _command(args, (first, last), interventions)
    text = (
        f"Simulated sessions {first}–{last} of {data.source}: {len(voters)} voters × "
        f"{real.n_roll_calls} roll calls, model {args.model} (trained on sessions "
        f"{trained[0]}–{trained[1]}{', IN-SAMPLE' if in_sample else ''}), seed {args.seed}; "
        f"95% bootstrap intervals over roll calls ({args.bootstrap} resamples)\n\n{result.text}"
        + (f"\nreproduce: {reproduce}" if interventions else "")
    )
    print(text)
    files = {**result.files, "results.md": f"# Simulation\n\n{text}\n".encode()}
    payload = {
        "options": {"model": str(args.model), "data": data.source, "sessions": [first, last],
                    "seed": args.seed, "bootstrap": args.bootstrap,
                    "interventions": interventions.describe(), "command": reproduce},
        "model_sessions": trained, "in_sample": in_sample, "voters": list(voters),
        "results": [{k: list(v) if isinstance(v, tuple) else v for k, v in row.items()}
                    for row in result.scores.to_dict(orient="records")],
        "agent_decisions_per_second": played.decisions_per_second,
        "counterfactual": result.counterfactual,
    }  # fmt: skip
    write_artifact(args.out, files, manifest=RESULTS, payload=payload, kind=RESULTS_KIND,
                   version=_VERSION)  # fmt: skip
    print(f"\nwrote {', '.join(sorted([*files, RESULTS]))} to {args.out}")
    return 0


def _command(
    args: argparse.Namespace, sessions: tuple[int, int], interventions: simulation.Interventions
) -> str:
    """The command line that repeats this run."""
    data = f" --data {args.data}" if args.data else ""
    changes = f" {interventions.describe()}" if interventions else ""
    return (
        f"assembly-gym simulate {args.model}{data} --sessions {sessions[0]}-{sessions[1]} "
        f"--seed {args.seed}{changes} --out {args.out}"
    )
