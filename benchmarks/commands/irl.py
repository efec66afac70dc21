"""``assembly-gym irl fit | explain | predict``: learn, read and use countries' reward functions.

Examples:
    $ assembly-gym irl fit --synthetic --out models/synthetic
    $ assembly-gym irl fit --data ../shared/data/unvotes --sessions 1-60 --all --out models/un
    $ assembly-gym irl explain models/un --country France
    $ assembly-gym irl fit --data ../shared/data/un_documents --folds 5 --out models/docs
    $ assembly-gym irl explain models/docs --country France   # relative to no_action
    $ assembly-gym irl predict models/un --data ../shared/data/unvotes --sessions 61-69 --out v.csv

``predict`` reads only an unvotes folder's roll-call attribute files (``un_roll_calls.csv.gz``,
``un_roll_call_issues.csv.gz``), never its vote table: a forecast of votes not yet cast.
"""

from __future__ import annotations

import argparse
import re
import shutil
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
from assembly_gym.envs.legislative.combined import combine_roll_calls
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.documents import data_kind, load_trajectories
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.envs.legislative.resolutions import ResolutionRecords, records_from_trajectories
from assembly_gym.envs.legislative.sources import roll_call_attributes, roll_call_data
from assembly_gym.irl.maxent import Shrinkage
from assembly_gym.irl.reward_model import MODEL_FILE, MODEL_KIND, RewardModel

__all__ = ["period_models", "register", "run_compare", "run_explain", "run_fit", "run_predict"]


_MODEL_HELP = "a model folder written by `irl fit`"


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``irl`` subcommand with ``fit``, ``explain`` and ``predict``."""
    parser = subparsers.add_parser(
        "irl",
        help=help_text,
        description="MaxEnt inverse RL on RollCall-v0: fit, explain and forecast with rewards.",
    )
    actions = parser.add_subparsers(dest="irl_command", required=True, metavar="ACTION")

    fit = actions.add_parser(
        "fit",
        help="fit rewards and save a model folder",
        description="Fit each country's reward weights by maximum entropy IRL on its recorded "
        "votes (or a trajectory folder's decisions), with Laplace standard errors, and save "
        "them as a model folder.",
    )
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
        type=_ModelFolder(MODEL_FILE, MODEL_KIND),
        metavar="MODEL_DIR",
        help="folder to write the model into (a new or empty folder, or an earlier model's)",
    )
    fit.add_argument(
        "--by-period",
        type=Number(int, low=1),
        default=None,
        metavar="N",
        help="roll calls: one model per block of N sessions (10: by decade), each in "
        f"MODEL_DIR/{PERIOD_PREFIX}A-B, for `irl explain --over-time`",
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
        "--text",
        choices=("hashed", "topics"),
        default="hashed",
        help="how a roll call's text is described: hashed word buckets (default) or topics "
        "fitted on the training texts, each named by its top words, which `irl explain` "
        "then reads out (FeatureConfig.text)",
    )
    fit.add_argument(
        "--relations",
        action="store_true",
        help="also the country's agreement with the United States, Russia, China, India and "
        "the majority on similar earlier roll calls (FeatureConfig.relations)",
    )
    fit.add_argument(
        "--allies",
        type=Number(int, low=0),
        default=0,
        metavar="K",
        help="also how the country's K closest allies (by agreement in earlier sessions) voted "
        "on similar earlier roll calls (FeatureConfig.allies; the bench uses 20; default 0: none)",
    )
    fit.add_argument(
        "--lineage",
        action="store_true",
        help="also the country's vote on the resolution's latest earlier version, matched by "
        "title words (FeatureConfig.lineage); `--relations --allies 20 --lineage` are the "
        "bench's features",
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

    explain = actions.add_parser(
        "explain",
        help="what moves a country's votes (effects with 95%% CIs), or the weights",
        description="Read a fitted model: the features that move a country's votes most, "
        "each's effect with a 95% CI, its weights table, how its effects moved between "
        "periods, or the weights of all countries at once.",
    )
    explain.add_argument("model", type=Path, metavar="MODEL_DIR",
                         help="a model folder (with --over-time: a folder of `fit --by-period` "
                         "models)")  # fmt: skip
    explain.add_argument(
        "--country",
        default=None,
        metavar="NAME",
        help="one country: the features that move its votes most, each's effect on P(yes / "
        "no / abstain) with 95%% CIs, preferences apart from habits (default: the mean and "
        "spread of the weights across countries)",
    )
    explain.add_argument(
        "--weights",
        action="store_true",
        help="print the country's weights table (weights, standard errors, z) instead",
    )
    explain.add_argument(
        "--over-time",
        action="store_true",
        help="MODEL_DIR holds one model per period (`irl fit --by-period`): how the "
        "country's effects moved",
    )
    _add_top_and_csv(explain)
    explain.add_argument("--plot", type=output_file, default=None, metavar="FILE.png",
                         help="with --over-time: also draw the top preferences' effects by "
                         "period")  # fmt: skip
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
        help="also write weights_heatmap.png (countries: see --plot-countries) and "
        "dendrogram.png (every country) into DIR",
    )
    explain.add_argument(
        "--plot-countries",
        type=Number(int, low=1, special=0),
        default=30,  # irl.analysis.TOP_COUNTRIES, written out: --help imports no matplotlib
        metavar="N",
        help="with --plots: the heatmap draws the N countries with the largest weight norms "
        "(default: 30; 0: all of them)",
    )
    explain.set_defaults(run=run_explain)

    compare = actions.add_parser(
        "compare",
        help="where two countries' rewards differ most and where they agree",
        description="Compare two countries of a fitted model: the reward weights on which "
        "they differ most, and those on which they agree.",
    )
    compare.add_argument("model", type=Path, metavar="MODEL_DIR", help=_MODEL_HELP)
    compare.add_argument("first", metavar="A", help="a country (name, alias or ISO code)")
    compare.add_argument("second", metavar="B", help="another country")
    _add_top_and_csv(compare)
    compare.set_defaults(run=run_compare)

    predict = actions.add_parser(
        "predict",
        help="forecast votes on roll calls from one or more sources",
        description="Forecast every country the model knows on every roll call of --data (of "
        "--sessions): P(yes), P(no), P(abstain) per (roll call, country), written as CSV with "
        "the roll call's session. Reads the roll calls only, never their votes; features come "
        "from the model's training votes of strictly earlier sessions.",
    )
    predict.add_argument("model", type=Path, metavar="MODEL_DIR", help=_MODEL_HELP)
    predict.set_defaults(positional_flag="--model")  # the old spelling, still taken
    predict.add_argument(
        "--data",
        required=True,
        action="append",
        metavar="SRC",
        help="the roll calls, as `bench --data` takes them: an unvotes folder (its "
        "un_roll_calls.csv.gz and un_roll_call_issues.csv.gz only), a UN Digital Library CSV, "
        "'unvotes' or 'synthetic'; give it again to combine sources (a roll call in two is "
        "kept from the first given, and counted)",
    )
    predict.add_argument(
        "--sessions",
        default=None,
        metavar="A-B",
        help="forecast the roll calls of sessions A to B inclusive (default: all)",
    )
    predict.add_argument("--out", required=True, type=output_file, metavar="PREDICTIONS.csv",
                         help="the CSV file to write")  # fmt: skip
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


PERIOD_PREFIX = "sessions-"
"""Sub-folders of ``irl fit --by-period``: ``sessions-A-B``, one model each."""


def period_models(folder: Path) -> list[Path]:
    """The ``sessions-A-B`` model folders of ``irl fit --by-period``, in session order.

    Empty unless ``folder`` holds such sub-folders and nothing else.
    """
    if not folder.is_dir():
        return []
    entries = list(folder.iterdir())
    found = [e for e in entries if e.name.startswith(PERIOD_PREFIX) and (e / MODEL_FILE).is_file()]
    if not found or len(found) != len(entries):
        return []
    return sorted(found, key=lambda e: [int(n) for n in re.findall(r"\d+", e.name)])


class _ModelFolder(ArtifactFolder):
    """:class:`ArtifactFolder`, or a folder of earlier ``--by-period`` models (replaced)."""

    def __call__(self, text: str) -> Path:
        """The folder, if a model (or period models) may be saved there."""
        return Path(text) if period_models(Path(text)) else super().__call__(text)


def run_fit(args: argparse.Namespace) -> int:
    """Fit and save; prints a one-paragraph summary."""
    if args.data is not None and data_kind(args.data) == "trajectories":
        if args.by_period is not None:
            raise DataError("--by-period", "splits roll calls by session; trajectory folders "
                            "are fitted whole")  # fmt: skip
        return _fit_trajectories(args)
    if args.folds is not None:
        raise DataError("--folds", "cross-validates trajectory folders; for roll calls use "
                        "`assembly-gym bench --suite unvotes` (a temporal split)")  # fmt: skip
    periods = period_models(args.out)
    if periods and args.by_period is None:
        raise DataError(args.out, "holds models of --by-period: name another folder")
    occupied = args.out.is_dir() and any(args.out.iterdir())
    if args.by_period is not None and occupied and not periods:
        raise DataError(args.out, "--by-period writes one model per period into sub-folders: "
                        "name a new or empty folder")  # fmt: skip
    first, last = parse_sessions(args.sessions)
    data = roll_call_data(None if args.synthetic else args.data)
    if first is not None:
        data = data.select_sessions(first, last)
    if args.by_period is None:
        _fit_and_save(data, args.country, args, args.out)
        return 0
    for old in periods:
        shutil.rmtree(old)
    sessions = data.sessions
    for start in range(0, len(sessions), args.by_period):
        block = sessions[start : start + args.by_period]
        name = f"{PERIOD_PREFIX}{block[0]:02d}-{block[-1]:02d}"
        part = data.select_sessions(int(block[0]), int(block[-1]))
        countries = args.country
        if countries is not None:  # only those with votes in the period (members then)
            voted = part.votes != ABSENT
            countries = [c for c in countries if voted[part.country_index(c)].any()]
            if not countries:
                print(f"Sessions {block[0]}–{block[-1]}: none of the countries voted; skipped")
                continue
        _fit_and_save(part, countries, args, args.out / name)
    return 0


def _fit_and_save(
    data: RollCallData, countries: list[str] | None, args: argparse.Namespace, out: Path
) -> None:
    """Fit ``countries`` (None: all with votes) on ``data``, save to ``out``, print a summary."""
    from assembly_gym.irl.rollcall import fit_reward_model

    l2 = args.l2 if args.l2 is not None else (DEFAULT_REAL_L2 if args.data else 10.0)
    config = FeatureConfig(
        log_shares=not args.plain_features, text=args.text, relations=args.relations,
        allies=args.allies, lineage=args.lineage,
    )  # fmt: skip
    model = fit_reward_model(
        data,
        countries,
        feature_config=config,
        l2=l2,
        shrinkage=args.shrinkage,
        standard_errors=not args.no_standard_errors,
        progress=not args.quiet,
    )
    model.save(out)
    info = model.info
    print(
        f"Fitted {len(model.countries)} countries on {data.source}, sessions "
        f"{info['sessions'][0]}–{info['sessions'][1]} ({sum(info['n_votes'].values())} votes; "
        f"l2={l2}, shrinkage={args.shrinkage}, {info['fit_seconds']:.1f} s, "
        f"converged={info['converged']}).\nSaved to {out}"
    )


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


def _add_top_and_csv(parser: argparse.ArgumentParser) -> None:
    """``--top K`` and ``--csv FILE``, shared by explain and compare."""
    parser.add_argument("--top", type=Number(int, low=1), default=8, metavar="K",
                        help="rows per section (default 8)")  # fmt: skip
    parser.add_argument("--csv", type=output_file, default=None, metavar="FILE",
                        help="also write the whole table (every feature) as CSV")  # fmt: skip


_SECTIONS = (
    ("preference", "What it wants: the roll call's content"),
    ("alignment", "Whom it follows: other countries' earlier votes on similar roll calls"),
    ("habit", "Habit: its own earlier votes (apart: they say it repeats itself, not what "
              "it wants)"),
)  # fmt: skip


def _has_decisions(model: RewardModel) -> bool:
    """A RollCall-v0 model that kept its training votes (so effects can be computed)."""
    return model.history is not None and model.env_id == "assembly/RollCall-v0"


def run_explain(args: argparse.Namespace) -> int:
    """One country's effects (or weights), the summary across countries, or effects over time."""
    if args.plot is not None and not args.over_time:
        raise DataError("--plot", "draws --over-time's effects; --plots DIR draws the heatmap "
                        "and dendrogram")  # fmt: skip
    if args.over_time:
        return _explain_over_time(args)
    if period_models(args.model):
        raise DataError(args.model, "holds one model per period: add --over-time, or name one "
                        "of its sessions-A-B folders")  # fmt: skip
    model = RewardModel.load(args.model)
    if args.country is not None and not args.weights and _has_decisions(model):
        table = _print_effects(model, args.country, args.top)
    else:
        table = _print_weights(model, args)
    if args.csv is not None:
        atomic_write_text(args.csv, table.to_csv(float_format="%.6g"))
        print(f"Wrote {args.csv}")
    if args.plots is not None:
        from assembly_gym.irl.analysis import plot_dendrogram, plot_weights_heatmap

        args.plots.mkdir(parents=True, exist_ok=True)
        heatmap = plot_weights_heatmap(
            model.theta,
            model.countries,
            model.weight_names,
            args.plots / "weights_heatmap.png",
            max_countries=args.plot_countries or None,
        )
        shown = args.plot_countries or len(model.countries)
        if shown < len(model.countries):
            print(f"Wrote {heatmap} (the {shown} of {len(model.countries)} countries with the "
                  "largest weight norms; --plot-countries 0 draws every one)")  # fmt: skip
        else:
            print(f"Wrote {heatmap} (all {len(model.countries)} countries)")
        if len(model.countries) > 1:
            tree = plot_dendrogram(model.theta, model.countries, args.plots / "dendrogram.png")
            print(f"Wrote {tree}")
    return 0


def _print_weights(model: RewardModel, args: argparse.Namespace) -> pd.DataFrame:
    """The weights table of one country or the summary across countries; returns it."""
    reference = args.relative_to or model.info.get("reference_action")
    reference = None if reference == "none" else reference
    table = model.explain(args.country, relative_to=reference)
    relative = f", relative to {reference}" if reference else ""
    if args.country is not None:
        name = model.countries[model.country_index(args.country)]
        errors = "; se: Laplace standard error" if "_se" in "".join(table.columns) else ""
        print(f"Reward weights of {name} (original feature scale{relative}{errors})")
    else:
        print(f"Mean and spread of reward weights across {len(model.countries)} countries"
              f"{relative}")  # fmt: skip
    unsigned = {c: "{:.3f}".format for c in table.columns if c.endswith(("_se", "_sd"))}
    with pd.option_context("display.max_rows", None, "display.width", 160):
        print(table.to_string(formatters=unsigned, float_format=lambda v: f"{v:+.3f}"))
    if reference:
        _print_reference(model, reference, args.country)
    return table


def _possessive(name: str) -> str:
    """``"'s"``, or ``"'"`` after a final s (the United States' votes)."""
    return "'" if name.endswith("s") else "'s"


def _interval(value: float, low: float, high: float) -> str:
    """A change in probability as points with its 95% interval (none where NaN)."""
    text = f"{100 * value:+5.1f}"
    return text if np.isnan(low) else f"{text} [{100 * low:+5.1f}, {100 * high:+5.1f}]"


def _print_effects(model: RewardModel, country: str, top: int) -> pd.DataFrame:
    """The features that move ``country``'s votes most, by section; returns every feature."""
    from assembly_gym.irl.explanation import country_decisions, vote_effects

    name = model.countries[model.country_index(country)]
    obs = country_decisions(model, [name])[name]
    table = vote_effects(model, name, obs)
    first, last = model.info.get("sessions", ["?", "?"])
    ci = "95% CI by the delta method" if model.standard_errors is not None else "no CIs (fit "
    ci += "" if model.standard_errors is not None else "without standard errors)"
    print(
        f"What moves {name}{_possessive(name)} votes ({len(obs)} votes, sessions {first}–{last}): "
        "the change in the probability of each vote, in points, when a feature moves from its "
        "10th to its 90th percentile over these votes (smallest → largest where those "
        f"coincide), the others as they were; [{ci}]."
    )
    actions = model.action_names
    best = table[table["kind"] == "preference"].head(1)
    for _, row in best.iterrows():
        action = max(actions, key=lambda a: abs(row[a]))
        change = f"{100 * row[action]:+.1f} points"
        if not np.isnan(row[f"{action}_low"]):
            change += f" (95% CI {100 * row[f'{action}_low']:+.1f} to "
            change += f"{100 * row[f'{action}_high']:+.1f})"
        print(f"Strongest preference: {row['description']} ({row['low']:.3g} → "
              f"{row['high']:.3g}) changes P({action}) by {change}.")  # fmt: skip
    sections = [(title, table[table["kind"] == kind].head(top)) for kind, title in _SECTIONS]
    width = _feature_width(pd.concat([rows for _, rows in sections])["description"])
    for title, rows in sections:
        if rows.empty:
            continue
        print(f"\n{title}")
        header = "".join(f"{'Δ P(' + a + ')':>23}" for a in actions)
        print(f"{'':3}{'feature':<{width}}{'from → to':>14}{header}")
        for rank, (_, row) in enumerate(rows.iterrows(), 1):
            moves = "".join(
                f"{_interval(row[a], row[f'{a}_low'], row[f'{a}_high']):>23}" for a in actions
            )
            span = f"{row['low']:.2f} → {row['high']:.2f}"
            print(f"{rank:>2} {row['description']:<{width}}{span:>14}{moves}")
    return table


def _feature_width(descriptions: pd.Series) -> int:
    """Characters of the feature column: the longest description shown, whole, and a space."""
    return max((len(d) for d in descriptions), default=len("feature")) + 1


def run_compare(args: argparse.Namespace) -> int:
    """Where two countries' rewards differ most and where they agree."""
    from assembly_gym.irl.explanation import Z95, compare_weights, country_decisions

    model = RewardModel.load(args.model)
    names = [model.countries[model.country_index(c)] for c in (args.first, args.second)]
    if names[0] == names[1]:
        raise DataError("irl compare", f"A and B are both {names[0]}: name two countries")
    obs = None
    if _has_decisions(model):
        obs = np.concatenate(list(country_decisions(model, names).values()))
    table = compare_weights(model, names[0], names[1], obs)
    scale = "weight × the feature's 10th → 90th percentile span over both countries' votes"
    print(
        f"{names[0]} vs {names[1]}: per feature and vote, the difference of their reward weights "
        f"({names[0]} − {names[1]}; {scale if obs is not None else 'raw weights'}: log-odds "
        "units, centred over votes) with 95% CIs from both standard errors."
    )
    actions = model.action_names
    features = table[table["kind"] != "bias"]
    if model.standard_errors is not None:
        agree = features[features["z"] < Z95]
    else:
        agree = features
    header = "".join(f"{a:>24}" for a in actions)
    differ = features.head(args.top)
    agree = agree.sort_values("shared", ascending=False).head(args.top)
    width = _feature_width(pd.concat([differ, agree])["description"])
    print(f"\nWhere they differ most (largest |z| of the difference first)\n{'':3}"
          f"{'feature':<{width}}{'kind':<12}{header}{'|z|':>7}")  # fmt: skip
    for rank, (_, row) in enumerate(differ.iterrows(), 1):
        cells = "".join(f"{_difference(row, a):>24}" for a in actions)
        print(f"{rank:>2} {row['description']:<{width}}{row['kind']:<12}{cells}{row['z']:>7.1f}")
    print(f"\nWhere they agree (both weigh it, no difference at 95%; {names[0]} / {names[1]})"
          f"\n{'':3}{'feature':<{width}}{'kind':<12}{header}")  # fmt: skip
    for rank, (_, row) in enumerate(agree.iterrows(), 1):
        cells = "".join(
            f"{row[f'{a}_{names[0]}']:+.2f} / {row[f'{a}_{names[1]}']:+.2f}".rjust(24)
            for a in actions
        )
        print(f"{rank:>2} {row['description']:<{width}}{row['kind']:<12}{cells}")
    if args.csv is not None:
        atomic_write_text(args.csv, table.to_csv(float_format="%.6g"))
        print(f"Wrote {args.csv}")
    return 0


def _difference(row: pd.Series, action: str) -> str:
    """A weight difference with its 95% interval (none where NaN)."""
    text = f"{row[action]:+.2f}"
    low, high = row[f"{action}_low"], row[f"{action}_high"]
    return text if np.isnan(low) else f"{text} [{low:+.2f}, {high:+.2f}]"


def _explain_over_time(args: argparse.Namespace) -> int:
    """Effects of one country in every period model of ``irl fit --by-period``."""
    from tqdm.auto import tqdm

    from assembly_gym.irl.explanation import country_decisions, vote_effects

    folders = period_models(args.model)
    if not folders:
        raise DataError(args.model, f"no {PERIOD_PREFIX}A-B model folders: fit them with "
                        "`irl fit --by-period N`")  # fmt: skip
    if args.country is None:
        raise DataError("--over-time", "name the country with --country")
    frames, name = [], str(args.country)
    actions: tuple[str, ...] = ()
    for folder in tqdm(folders, desc="periods", leave=False):
        model = RewardModel.load(folder)
        try:
            name = model.countries[model.country_index(args.country)]
        except DataError:
            continue  # not a member (or no vote) in this period
        actions = model.action_names
        table = vote_effects(model, name, country_decisions(model, [name])[name]).reset_index()
        assert model.history is not None  # country_decisions refuses a model without it
        years = pd.to_datetime(model.history.roll_calls["date"]).dt.year
        table.insert(0, "period", f"{years.min()}–{years.max()}")
        table.insert(1, "sessions", "–".join(map(str, model.info.get("sessions", []))))
        frames.append(table)
    if not frames:
        raise DataError(args.model, f"no period model knows {args.country!r}")
    long = pd.concat(frames, ignore_index=True)
    print(f"How {name}{_possessive(name)} votes moved with each feature, by period: the change "
          "in P(yes), in points, for a 10th → 90th percentile move (within the period); every "
          "vote and 95% CIs in --csv")  # fmt: skip
    mean = long.groupby("feature", sort=False)["importance"].mean().sort_values(ascending=False)
    first_rows = long.drop_duplicates("feature").set_index("feature")
    kinds, describe = first_rows["kind"], first_rows["description"].get
    periods = list(dict.fromkeys(long["period"]))
    for kind, title in _SECTIONS:
        chosen = [f for f in mean.index if kinds[f] == kind][: args.top]
        if not chosen:
            continue
        wide = long[long["feature"].isin(chosen)].pivot(index="feature", columns="period",
                                                        values="yes")  # fmt: skip
        wide = 100 * wide.reindex(index=chosen, columns=periods)
        wide.index = [str(describe(f)) for f in chosen]
        print(f"\n{title}")
        with pd.option_context("display.width", 200, "display.max_columns", None):
            print(wide.to_string(float_format=lambda v: f"{v:+.1f}", na_rep="–"))
    if args.csv is not None:
        atomic_write_text(args.csv, long.to_csv(index=False, float_format="%.6g"))
        print(f"Wrote {args.csv}")
    if args.plot is not None:
        from assembly_gym.irl.analysis import plot_effects_over_time

        chosen = [f for f in mean.index if kinds[f] == "preference"][: min(args.top, 6)]
        path = plot_effects_over_time(long, name, chosen, actions, args.plot)
        print(f"Wrote {path}")
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
    """Forecast every known country's votes on every roll call of ``--data`` (``--sessions``)."""
    first, last = parse_sessions(args.sessions)
    model = RewardModel.load(args.model)
    combined = combine_roll_calls(
        [roll_call_attributes(source) for source in args.data], args.data, first=first, last=last
    )
    roll_calls = combined.roll_calls
    if len(args.data) > 1:
        parts = " + ".join(f"{n:,}" for n in combined.kept)
        print(f"Combined {len(args.data)} sources: {parts} roll calls; {sum(combined.overlaps):,} "
              "in more than one source (same session and symbol, or date and title) kept from "
              "the first given")  # fmt: skip
    if model.history is not None:
        trained = np.intersect1d(roll_calls["session"].unique(), model.history.sessions)
        if trained.size:
            print(f"Note: {trained.size} forecast sessions ({trained[0]}–{trained[-1]}) are "
                  "training sessions of the model: those forecasts are not held out")  # fmt: skip
    predictions = model.forecast(roll_calls, progress=not args.quiet)
    session = dict(zip(roll_calls["rcid"], roll_calls["session"], strict=True))
    predictions.insert(1, "session", predictions["rcid"].map(session))
    atomic_write_text(args.out, predictions.to_csv(index=False, float_format="%.6f"))
    print(
        f"Wrote {len(predictions)} forecasts ({len(roll_calls)} roll calls of sessions "
        f"{roll_calls['session'].min()}–{roll_calls['session'].max()} × "
        f"{len(model.countries)} countries) to {args.out}"
    )
    return 0
