"""``assembly-gym irl fit | explain | predict``: learn, read and use countries' reward functions.

Examples:
    $ assembly-gym irl fit --synthetic --out models/synthetic
    $ assembly-gym irl fit --data ../shared/data/unvotes --sessions 1-60 --all --out models/un
    $ assembly-gym irl explain models/un --country France
    $ assembly-gym irl fit --data ../shared/data/un_documents --folds 5 --out models/docs
    $ assembly-gym irl explain models/docs --country France   # relative to no_action
    $ assembly-gym irl predict --model models/un --data ../shared/data/unvotes --out votes.csv

``predict`` reads only the folder's roll-call attribute files (``un_roll_calls.csv.gz``,
``un_roll_call_issues.csv.gz``), never its vote table: a forecast of votes not yet cast.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pandas as pd

from assembly_gym.benchmarks.commands import add_data_source
from assembly_gym.benchmarks.commands.arguments import (
    NON_NEGATIVE,
    SEED,
    ArtifactFolder,
    Number,
    output_file,
    output_folder,
)
from assembly_gym.core.errors import DataError
from assembly_gym.core.persist import atomic_write_text
from assembly_gym.envs.legislative.data import UNVOTES_FILES, load_roll_call_attributes
from assembly_gym.envs.legislative.documents import data_kind, load_trajectories
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.envs.legislative.resolutions import ResolutionRecords, records_from_trajectories
from assembly_gym.envs.legislative.sources import roll_call_data
from assembly_gym.irl.maxent import Shrinkage
from assembly_gym.irl.reward_model import MODEL_FILE, MODEL_KIND, RewardModel

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
    add_data_source(
        fit,
        "an unvotes folder (or UNDL CSV): RollCall-v0 rewards; a folder of trajectory files "
        "(*.trajectory.json, *.genealogy.json, *.marcxml[.gz]): multi-step Deliberation-v0 "
        "rewards, partial trajectories included; default: the synthetic assembly",
    )
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
    fit.add_argument(
        "--folds",
        type=Number(int, low=2),
        default=None,
        metavar="K",
        help="trajectory folders: also K-fold cross-validation by resolution (seeded by "
        "--seed): held-out log-likelihood per recorded decision, per fold, mean and spread",
    )
    fit.add_argument("--seed", type=SEED, default=0, help="seed of the folds")
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
        "--relative-to",
        default=None,
        metavar="ACTION",
        help="report each action's weights minus this action's (default: no_action for "
        "Deliberation-v0 models, whose weights are identified only relative to an action; "
        "'none': the raw weights)",
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

    if args.data is not None and data_kind(args.data) == "trajectories":
        return _fit_trajectories(args)
    if args.folds is not None:
        raise DataError("--folds", "cross-validates trajectory folders; for roll calls use "
                        "`assembly-gym bench --suite unvotes` (a temporal split)")  # fmt: skip
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


def _fit_trajectories(args: argparse.Namespace) -> int:
    """Multi-step Deliberation IRL on a trajectory folder; optional K-fold validation."""
    from assembly_gym.irl.deliberation import fit_deliberation_rewards

    records = records_from_trajectories(load_trajectories(args.data))
    l2 = args.l2 if args.l2 is not None else 10.0
    shrinkage: Shrinkage = "global" if args.shrinkage == "global" else "none"
    if args.folds is not None:
        _print_folds(records, args.folds, args.seed, l2, shrinkage, args.country)
    model = fit_deliberation_rewards(records, args.country, l2=l2, shrinkage=shrinkage,
                                     progress=not args.quiet)  # fmt: skip
    model.save(args.out)
    info = model.info
    print(
        f"Fitted {len(model.countries)} countries' Deliberation-v0 rewards on {args.data} "
        f"({records.n_resolutions} resolutions, {sum(info['n_decisions'].values())} recorded "
        f"decisions, {info['n_partial']} partial episodes; l2={l2}, shrinkage={shrinkage}, "
        f"{info['fit_seconds']:.1f} s, log-likelihood {info['log_likelihood']:.3f} nats per "
        f"decision).\nSaved to {args.out}"
    )
    return 0


def _print_folds(
    records: ResolutionRecords,
    folds: int,
    seed: int,
    l2: float,
    shrinkage: Shrinkage,
    countries: list[str] | None,
) -> None:
    """Held-out log-likelihood per recorded decision on K folds of the resolutions."""
    from assembly_gym.benchmarks.splits import record_folds
    from assembly_gym.irl.deliberation import DELIBERATION_LAYOUT, held_out_log_likelihood

    rows = []
    for k, test in enumerate(record_folds(records, folds, seed)):
        train = np.setdiff1d(np.arange(records.n_resolutions), test)
        score = held_out_log_likelihood(
            records, train, test, countries, l2=l2, shrinkage=shrinkage, layout=DELIBERATION_LAYOUT
        )
        rows.append({"fold": k + 1, "train resolutions": len(train),
                     "test resolutions": len(test), **score})  # fmt: skip
    table = pd.DataFrame(rows).set_index("fold")
    print(
        f"{folds}-fold cross-validation by resolution (seed {seed}): held-out recorded "
        "decisions, log-likelihood per decision (nats; uniform: over the valid actions)"
    )
    print(table.to_string(float_format=lambda v: f"{v:.3f}"))
    scored = table["log-lik (IRL)"]
    uniform = table["log-lik (uniform)"]
    print(f"mean ± sd across folds: IRL {scored.mean():.3f} ± {scored.std(ddof=1):.3f}, "
          f"uniform {uniform.mean():.3f} ± {uniform.std(ddof=1):.3f}\n")  # fmt: skip


DEFAULT_REAL_L2 = 1000.0
"""λ for real data, chosen by ``assembly-gym experiment irl_forecast`` inside the training
sessions only (fit on sessions ≤ 55, best log-loss on 56–60 among 30, 100, …, 10,000)."""


def run_explain(args: argparse.Namespace) -> int:
    """Print the weights table of one country or the summary across countries."""
    model = RewardModel.load(args.model)
    reference = args.relative_to or model.info.get("reference_action")
    reference = None if reference == "none" else reference
    table = model.explain(args.country, relative_to=reference)
    relative = f", relative to {reference}" if reference else ""
    with pd.option_context("display.max_rows", None, "display.width", 160):
        if args.country is not None:
            name = model.countries[model.country_index(args.country)]
            errors = "; se: Laplace standard error" if "_se" in "".join(table.columns) else ""
            print(f"Reward weights of {name} (original feature scale{relative}{errors})")
        else:
            print(f"Mean and spread of reward weights across {len(model.countries)} countries"
                  f"{relative}")  # fmt: skip
        print(table.to_string(float_format=lambda v: f"{v:+.3f}"))
        if reference:
            _print_reference(model, reference, args.country)
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


def _print_reference(model: RewardModel, reference: str, country: str | None) -> None:
    """The reference action's own weights (mean over countries when no country is named)."""
    a = model.action_names.index(reference)
    weights = model.weights(country)[a] if country else model.theta[:, a].mean(axis=0)
    shown = ", ".join(
        f"{name} {w:+.3f}" for name, w in zip(("bias", *model.obs_names), weights, strict=True)
        if w != 0
    )  # fmt: skip
    print(f"{reference}'s own weights (0 where not shown; a multi-step policy reads them "
          f"through the later stages): {shown or 'all 0'}")  # fmt: skip


def run_predict(args: argparse.Namespace) -> int:
    """Forecast every known country's votes on every roll call of ``--data``."""
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
