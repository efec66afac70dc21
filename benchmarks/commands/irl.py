"""``assembly-gym irl fit | explain | predict``: learn, read and use countries' reward functions.

Examples:
    $ assembly-gym irl fit --synthetic --out models/synthetic
    $ assembly-gym irl fit --data ../shared/data/unvotes --sessions 1-60 --all --out models/un
    $ assembly-gym irl explain models/un --country France
    $ assembly-gym irl predict --model models/un --data ../shared/data/unvotes --out votes.csv

``predict`` reads only the folder's roll-call attribute files (``un_roll_calls.csv.gz``,
``un_roll_call_issues.csv.gz``), never its vote table: a forecast of votes not yet cast.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd

from assembly_gym.benchmarks.commands import add_data_source
from assembly_gym.benchmarks.commands.arguments import (
    NON_NEGATIVE,
    ArtifactFolder,
    output_file,
    output_folder,
)
from assembly_gym.core.errors import DataError
from assembly_gym.core.persist import atomic_write_text
from assembly_gym.envs.legislative.data import UNVOTES_FILES, load_roll_call_attributes
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.envs.legislative.sources import roll_call_data
from assembly_gym.irl.reward_model import MODEL_FILE, MODEL_KIND

__all__ = ["register", "run_explain", "run_fit", "run_predict"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``irl`` subcommand with ``fit``, ``explain`` and ``predict``."""
    parser = subparsers.add_parser(
        "irl",
        help="learn each country's reward function from its votes (MaxEnt IRL)",
        description="MaxEnt inverse RL on RollCall-v0: fit, explain and forecast with rewards.",
    )
    actions = parser.add_subparsers(dest="irl_command", required=True, metavar="ACTION")

    fit = actions.add_parser("fit", help="fit rewards and save a model folder")
    add_data_source(fit, "an unvotes folder (or UNDL CSV); default: the synthetic assembly")
    fit.add_argument(
        "--sessions",
        default=None,
        metavar="A-B",
        help="train on sessions A to B inclusive (default: all)",
    )
    who = fit.add_mutually_exclusive_group()
    who.add_argument(
        "--country",
        nargs="+",
        default=None,
        metavar="NAME",
        help="countries to fit (names, aliases or ISO codes)",
    )
    who.add_argument("--all", action="store_true", help="every country with votes (the default)")
    fit.add_argument(
        "--out",
        required=True,
        type=ArtifactFolder(MODEL_FILE, MODEL_KIND),
        metavar="MODEL_DIR",
        help="folder to write the model into (a new or empty folder, or an earlier model's)",
    )
    fit.add_argument(
        "--l2",
        type=NON_NEGATIVE,
        default=None,
        help="prior precision on standardised weights (default: the validated "
        "value for real data, 10 otherwise)",
    )
    fit.add_argument(
        "--shrinkage",
        choices=("none", "global"),
        default="global",
        help="shrink each country toward the pooled fit of all countries",
    )
    fit.add_argument(
        "--plain-features",
        action="store_true",
        help="the env's default features only (default: also the log-scaled vote shares, "
        "FeatureConfig(log_shares=True), which forecast better)",
    )
    fit.add_argument(
        "--no-standard-errors",
        action="store_true",
        help="skip the Laplace standard errors (faster)",
    )
    fit.add_argument("--quiet", action="store_true", help="no progress bar")
    fit.set_defaults(run=run_fit)

    explain = actions.add_parser("explain", help="print a model's weights table")
    explain.add_argument("model", type=Path, metavar="MODEL_DIR")
    explain.add_argument(
        "--country",
        default=None,
        metavar="NAME",
        help="one country's weights with standard errors (default: the "
        "mean and spread across countries)",
    )
    explain.add_argument(
        "--plots",
        type=output_folder,
        default=None,
        metavar="DIR",
        help="also write weights_heatmap.png and dendrogram.png of all countries into DIR",
    )
    explain.set_defaults(run=run_explain)

    predict = actions.add_parser("predict", help="forecast votes on a folder's roll calls")
    predict.add_argument("--model", required=True, type=Path, metavar="MODEL_DIR")
    predict.add_argument(
        "--data",
        required=True,
        type=Path,
        metavar="DIR",
        help="folder with un_roll_calls.csv.gz and un_roll_call_issues.csv.gz",
    )
    predict.add_argument("--out", required=True, type=output_file, metavar="PREDICTIONS.csv")
    predict.add_argument("--quiet", action="store_true", help="no progress bar")
    predict.set_defaults(run=run_predict)


def parse_sessions(text: str | None) -> tuple[int | None, int | None]:
    """``"A-B"`` → (A, B); ``"A"`` → (A, A); None → (None, None).

    Raises:
        DataError: for anything else, or A > B.
    """
    if text is None:
        return None, None
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not match:
        raise DataError("--sessions", f"expected A-B (e.g. 1-60), got {text!r}")
    first, last = int(match.group(1)), int(match.group(2) or match.group(1))
    if first > last:
        raise DataError("--sessions", f"first session {first} is after last session {last}")
    return first, last


def run_fit(args: argparse.Namespace) -> int:
    """Fit and save; prints a one-paragraph summary."""
    from assembly_gym.irl.rollcall import fit_reward_model

    first, last = parse_sessions(args.sessions)
    data = roll_call_data(None if args.synthetic else args.data)
    if first is not None:
        data = data.select_sessions(first, last)
    l2 = args.l2 if args.l2 is not None else (DEFAULT_REAL_L2 if args.data else 10.0)
    config = FeatureConfig(log_shares=not args.plain_features)
    model = fit_reward_model(
        data,
        args.country,
        feature_config=config,
        l2=l2,
        shrinkage=args.shrinkage,
        standard_errors=not args.no_standard_errors,
        progress=not args.quiet,
    )
    model.save(args.out)
    info = model.info
    print(
        f"Fitted {len(model.countries)} countries on {data.source}, sessions "
        f"{info['sessions'][0]}–{info['sessions'][1]} ({sum(info['n_votes'].values())} votes; "
        f"l2={l2}, shrinkage={args.shrinkage}, {info['fit_seconds']:.1f} s, "
        f"converged={info['converged']}).\nSaved to {args.out}"
    )
    return 0


DEFAULT_REAL_L2 = 1000.0
"""λ for real data, chosen by ``assembly-gym experiment irl_forecast`` inside the training
sessions only (fit on sessions ≤ 55, best log-loss on 56–60 among 30, 100, …, 10,000)."""


def run_explain(args: argparse.Namespace) -> int:
    """Print the weights table of one country or the summary across countries."""
    from assembly_gym.irl.reward_model import RewardModel

    model = RewardModel.load(args.model)
    table = model.explain(args.country)
    with pd.option_context("display.max_rows", None, "display.width", 160):
        if args.country is not None:
            name = model.countries[model.country_index(args.country)]
            print(f"Reward weights of {name} (original feature scale; se: Laplace standard error)")
        else:
            print(f"Mean and spread of reward weights across {len(model.countries)} countries")
        print(table.to_string(float_format=lambda v: f"{v:+.3f}"))
    if args.plots is not None:
        from assembly_gym.irl.analysis import plot_dendrogram, plot_weights_heatmap

        args.plots.mkdir(parents=True, exist_ok=True)
        heatmap = plot_weights_heatmap(
            model.theta, model.countries, model.weight_names, args.plots / "weights_heatmap.png"
        )
        print(f"Wrote {heatmap}")
        if len(model.countries) > 1:
            tree = plot_dendrogram(model.theta, model.countries, args.plots / "dendrogram.png")
            print(f"Wrote {tree}")
    return 0


def run_predict(args: argparse.Namespace) -> int:
    """Forecast every known country's votes on every roll call of ``--data``."""
    from assembly_gym.irl.reward_model import RewardModel

    model = RewardModel.load(args.model)
    folder = args.data
    if not (folder / UNVOTES_FILES["roll_calls"]).exists() and (folder / "unvotes").is_dir():
        folder = folder / "unvotes"
    if not (folder / UNVOTES_FILES["roll_calls"]).exists():
        raise DataError(folder, f"no {UNVOTES_FILES['roll_calls']} in this folder")
    roll_calls = load_roll_call_attributes(folder)
    predictions = model.forecast(roll_calls, progress=not args.quiet)
    atomic_write_text(args.out, predictions.to_csv(index=False, float_format="%.6f"))
    print(
        f"Wrote {len(predictions)} forecasts ({len(roll_calls)} roll calls × "
        f"{len(model.countries)} countries) to {args.out}"
    )
    return 0
