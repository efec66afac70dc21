r"""``assembly-gym simulate``: play whole sessions with every country acting by its learned reward.

Every simulated country votes on every roll call of sessions A–B by the soft-optimal policy
of its learned reward (a saved ``irl fit`` model), from the roll calls' attributes only
(:mod:`assembly_gym.benchmarks.simulation`); the real votes of those sessions are read only
to score the play (:mod:`assembly_gym.benchmarks.simulation_report`), beside a play where
each country always casts its historical majority vote. Interventions make a counterfactual,
played with the baseline's draws.

Examples:
    $ assembly-gym irl fit --data ../shared/data/unvotes --sessions 1-60 --out models/un
    $ assembly-gym simulate models/un --data ../shared/data/unvotes --sessions 61-69 \
          --out runs/p5 --force P5=no --set important=1
    $ assembly-gym irl fit --sessions 1-15 --out models/synthetic
    $ assembly-gym simulate models/synthetic --sessions 16-20 --out runs/synthetic

``--out`` is one artifact folder: ``results.json`` (its manifest: options, scores,
counterfactual), ``results.md``, ``roll_calls.csv``, ``countries.csv`` and PNG plots.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assembly_gym.benchmarks.commands import add_data_source
from assembly_gym.benchmarks.commands.arguments import SEED, ArtifactFolder, Number
from assembly_gym.benchmarks.commands.irl import parse_sessions
from assembly_gym.benchmarks.report import figure_png, markdown_table
from assembly_gym.benchmarks.simulation import (
    GROUPS,
    VOTE_NAMES,
    Interventions,
    Simulation,
    check_interventions,
    check_settings,
    count_votes,
    majority_play,
    members,
    simulate,
    yes_shares,
)
from assembly_gym.benchmarks.simulation_report import (
    compare,
    counterfactual_figure,
    country_scores,
    distribution_figure,
    score,
    yes_share_figure,
)
from assembly_gym.core.artifact import write_artifact
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.sources import roll_call_data

__all__ = ["RESULTS", "RESULTS_KIND", "register", "run"]

RESULTS = "results.json"
RESULTS_KIND = "assembly-gym simulation"
"""``kind`` of the results.json that ``--out`` writes."""
_VERSION = 1
BOOTSTRAP = Number(int, low=10)
"""Bootstrap resamples (as ``bench --bootstrap``)."""


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``simulate`` subcommand."""
    parser = subparsers.add_parser(
        "simulate",
        help=help_text,
        description=(
            "Every country votes on every roll call of --sessions by the soft-optimal policy of "
            "its learned reward (from the roll calls' attributes only), scored against the real "
            "votes beside a historical-majority play; interventions give a counterfactual with "
            "the same draws."
        ),
    )
    parser.add_argument("model", type=Path, metavar="MODEL_DIR",
                        help="a reward model folder written by `irl fit`")  # fmt: skip
    parser.set_defaults(positional_flag="--model")  # the old spelling, still taken
    add_data_source(parser, "an unvotes folder (or UNDL CSV); default: the synthetic assembly")
    parser.add_argument("--sessions", required=True, metavar="A-B",
                        help="simulate sessions A to B inclusive")  # fmt: skip
    parser.add_argument(
        "--out",
        required=True,
        type=ArtifactFolder(RESULTS, RESULTS_KIND),
        metavar="DIR",
        help="folder for results.json, results.md, CSVs and PNG plots (a new or empty folder, "
        "or an earlier simulation's)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the votes drawn")
    parser.add_argument("--bootstrap", type=BOOTSTRAP, default=1000, metavar="N",
                        help="bootstrap resamples (over roll calls) of the intervals")  # fmt: skip
    parser.add_argument(
        "--replace-reward",
        type=_pair("A=B"),
        action="append",
        default=[],
        metavar="A=B",
        help="country A acts by country B's learned reward (repeatable)",
    )
    parser.add_argument(
        "--force",
        type=_pair("WHO=VOTE", right=VOTE_NAMES),
        action="append",
        default=[],
        metavar="WHO=VOTE",
        help=f"WHO always votes VOTE ({'/'.join(VOTE_NAMES)}); WHO: all, "
        f"{', '.join(GROUPS)}, or countries joined by + (repeatable)",
    )
    parser.add_argument(
        "--set",
        "--set-feature",
        dest="set_features",
        type=_setting,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a roll-call attribute on every simulated roll call: issue=CODE "
        "(me/nu/di/hr/co/ec/none), important=0|1, amend=0|1, para=0|1 (repeatable)",
    )
    parser.set_defaults(run=run)


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
        check_settings((pair,))
    except DataError as error:
        raise argparse.ArgumentTypeError(error.problem) from None
    return pair


def run(args: argparse.Namespace) -> int:
    """Simulate, score, print the tables and the counterfactual, write the artifact."""
    from assembly_gym.irl.reward_model import RewardModel

    first, last = parse_sessions(args.sessions)
    interventions = Interventions(
        tuple(args.replace_reward), tuple(args.force), tuple(args.set_features)
    )
    model = RewardModel.load(args.model)
    voters = members(model)
    check_interventions(model, interventions, voters)
    data = roll_call_data(None if args.synthetic else args.data)
    real = data.select_sessions(first, last)  # DataError when it holds no roll call
    trained = model.info.get("sessions", [None, None])
    in_sample = trained[1] is not None and first <= trained[1]

    roll_calls = real.roll_calls  # attributes only: the simulation never sees real.votes
    played = simulate(model, roll_calls, seed=args.seed, countries=voters)
    majority = majority_play(model, roll_calls, voters)
    rng = np.random.default_rng(args.seed)
    table = pd.DataFrame(
        [
            {"policy": name} | score(run_, real, args.bootstrap, rng)
            for name, run_ in (("learned rewards", played), ("historical majority", majority))
        ]
    )
    reproduce = _command(args, interventions)
    header = (
        f"Simulated sessions {first}–{last} of {data.source}: {len(voters)} voters × "
        f"{real.n_roll_calls} roll calls, model {args.model} (trained on sessions "
        f"{trained[0]}–{trained[1]}{', IN-SAMPLE' if in_sample else ''}), seed {args.seed}; "
        f"95% bootstrap intervals over roll calls ({args.bootstrap} resamples)"
    )
    shown = markdown_table(table.drop(columns=["votes", "roll_calls"]).rename(columns=_HEADERS))
    speed = (
        f"{played.votes.size} agent-decisions: policies {played.policy_seconds:.2f} s "
        f"(features and softmax), batched draws and tallies {played.decision_seconds * 1e3:.2f} "
        f"ms = {played.decisions_per_second:,.0f} agent-decisions/s "
        f"({played.votes.size / (played.policy_seconds + played.decision_seconds):,.0f}/s "
        "with the policies)"
    )
    print(f"{header}\n\n{shown}\n\n{speed}")

    real_share = yes_shares(count_votes(real.votes))
    files = {
        "yes_share.png": figure_png(yes_share_figure(real_share, _shares(played, majority))),
        "yes_share_distributions.png": figure_png(
            distribution_figure(real_share, _shares(played, majority))
        ),
    }
    counterfactual, change_text = None, ""
    frame = pd.DataFrame({"rcid": roll_calls["rcid"], "session": roll_calls["session"],
                          "real_yes_share": real_share, "simulated_yes_share": played.yes_share,
                          "simulated_adopted": played.adopted,
                          "majority_yes_share": majority.yes_share})  # fmt: skip
    if interventions:
        intervened = simulate(
            model, roll_calls, seed=args.seed, interventions=interventions, countries=voters
        )
        counterfactual = compare(played, intervened)
        change_text = _counterfactual_text(counterfactual, interventions, args.seed, reproduce)
        print(f"\n{change_text}")
        title = f"{interventions.describe()} (seed {args.seed})"
        files["counterfactual.png"] = figure_png(counterfactual_figure(played, intervened, title))
        frame["intervened_yes_share"] = intervened.yes_share
        frame["intervened_adopted"] = intervened.adopted
    files["roll_calls.csv"] = frame.to_csv(index=False, float_format="%.6f").encode()
    files["countries.csv"] = (
        country_scores(played, real).to_csv(index=False, float_format="%.6f").encode()
    )
    text = f"# Simulation\n\n{header}\n\n{shown}\n\n{speed}\n\n{change_text}\n"
    files["results.md"] = text.encode()
    payload = {
        "options": {"model": str(args.model), "data": data.source, "sessions": [first, last],
                    "seed": args.seed, "bootstrap": args.bootstrap,
                    "interventions": interventions.describe(), "command": reproduce},
        "model_sessions": trained, "in_sample": in_sample, "voters": list(voters),
        "results": [{k: list(v) if isinstance(v, tuple) else v for k, v in row.items()}
                    for row in table.to_dict(orient="records")],
        "agent_decisions_per_second": played.decisions_per_second,
        "counterfactual": counterfactual,
    }  # fmt: skip
    write_artifact(args.out, files, manifest=RESULTS, payload=payload, kind=RESULTS_KIND,
                   version=_VERSION)  # fmt: skip
    print(f"\nwrote {', '.join(sorted([*files, RESULTS]))} to {args.out}")
    return 0


_HEADERS = {
    f"{name}{suffix}": f"{label}{suffix}"
    for name, label in (("outcome_accuracy", "outcome acc."), ("yes_share_mae", "yes-share MAE"),
                        ("ks", "KS"))
    for suffix in ("", "_ci")
}  # fmt: skip
"""Column headers of the printed table (the intervals' columns follow their metric's)."""


def _shares(played: Simulation, majority: Simulation) -> dict[str, np.ndarray]:
    return {"learned rewards": played.yes_share, "historical majority": majority.yes_share}


def _command(args: argparse.Namespace, interventions: Interventions) -> str:
    """The command line that repeats this run."""
    data = f" --data {args.data}" if args.data else ""
    flags = f" {interventions.describe()}" if interventions else ""
    return (
        f"assembly-gym simulate {args.model}{data} --sessions {args.sessions} "
        f"--seed {args.seed}{flags} --out {args.out}"
    )


def _counterfactual_text(
    change: dict[str, Any], interventions: Interventions, seed: int, reproduce: str
) -> str:
    """The counterfactual's table of mean tallies and outcomes, and how to reproduce it."""
    rows = [
        f"| mean {name} votes per roll call | {a:.2f} | {b:.2f} | {b - a:+.2f} |"
        for name, (a, b) in change["mean_tally"].items()
    ]
    (a, b), n = change["adopted"], change["roll_calls"]
    share_a, share_b = change["mean_yes_share"]
    rows += [
        f"| mean yes share | {share_a:.3f} | {share_b:.3f} | {share_b - share_a:+.3f} |",
        f"| roll calls adopted | {a}/{n} | {b}/{n} | {b - a:+d} |",
    ]
    return "\n".join(
        [
            f"Counterfactual {interventions.describe()} (seed {seed}: the baseline's draws)",
            "",
            "| | baseline | intervened | change |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
            f"outcomes flipped: {len(change['flipped_to_rejected'])} adopted → rejected, "
            f"{len(change['flipped_to_adopted'])} rejected → adopted; "
            f"{change['votes_changed']:.1%} of votes changed",
            f"reproduce: {reproduce}",
        ]
    )
