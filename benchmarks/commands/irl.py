"""``assembly-gym irl fit | explain | compare | predict | ideal``: learn, read and use rewards.

Examples:
    $ assembly-gym irl fit --synthetic --out models/synthetic
    $ assembly-gym irl fit --data ../shared/data/unvotes --sessions 1-60 --all --out models/un
    $ assembly-gym irl explain models/un --country France
    $ assembly-gym irl fit --synthetic --kind linear --out models/linear
    $ assembly-gym irl explain models/linear --country "Country 001" --weights
    $ assembly-gym irl fit --data ../shared/data/un_documents --folds 5 --out models/docs
    $ assembly-gym irl explain models/docs --country France   # effects at each stage
    $ assembly-gym irl predict models/un --data ../shared/data/unvotes --sessions 61-69 --out v.csv
    $ assembly-gym irl fit --data ../shared/data/unvotes --kind ideal --out models/ideal
    $ assembly-gym irl ideal models/ideal --plots figures --separate France "United States"
    $ assembly-gym irl ideal models/ideal --shift France=+0.5,-0.2 --sessions 60-69

``predict`` reads only an unvotes folder's roll-call attribute files (``un_roll_calls.csv.gz``,
``un_roll_call_issues.csv.gz``), never its vote table: a forecast of votes not yet cast.
"""

from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from assembly_gym.benchmarks.commands import arguments, flags
from assembly_gym.core.errors import DataError
from assembly_gym.core.persist import atomic_write_text
from assembly_gym.envs.legislative.combined import combine_roll_calls
from assembly_gym.envs.legislative.data import RollCallData
from assembly_gym.envs.legislative.documents.loading import data_kind, load_trajectories
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.envs.legislative.resolutions import ResolutionRecords, records_from_trajectories
from assembly_gym.envs.legislative.sources import roll_call_attributes, roll_call_data
from assembly_gym.irl import report
from assembly_gym.irl.base import MODEL_FILE, MODEL_KIND, RewardModel, reward_kinds
from assembly_gym.irl.deliberation import DEFAULT_PRIOR, Prior
from assembly_gym.irl.ideal import DEFAULT_DIMS, DEFAULT_WALK, IdealPointModel
from assembly_gym.irl.linear import DEFAULT_L2, LinearRewardModel
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, DEFAULT_KIND

__all__ = ["register", "run_compare", "run_explain", "run_fit", "run_ideal", "run_predict"]


class _ModelFolder(arguments.ArtifactFolder):
    """An artifact folder, or a folder of earlier ``--by-period`` models (replaced)."""

    def __call__(self, text: str) -> Path:
        """The folder, if a model (or period models) may be saved there."""
        return Path(text) if report.period_models(Path(text)) else super().__call__(text)


def _model() -> Any:
    return flags.positional("a model folder written by `irl fit`", metavar="MODEL_DIR")


def _top() -> Any:
    return flags.option("rows per section (default 8)", 8, metavar="K", minimum=1)


def _csv() -> Any:
    return flags.option(
        "also write the whole table (every feature) as CSV", type=arguments.output_file,
        metavar="FILE",
    )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Fit:
    """Fit each country's reward by maximum entropy IRL and save it as a model folder.

    On its recorded votes, by default the configuration chosen on validation sessions (the
    bench's default reward); or a trajectory folder's decisions (linear, multi-step).
    """

    kind: str | None = flags.option(
        f"the reward kind (default: {DEFAULT_KIND}, chosen on validation; linear for a "
        "trajectory folder)", choices=reward_kinds(),
    )  # fmt: skip
    data: str | None = flags.data(
        "an unvotes folder (or UNDL CSV): RollCall-v0 rewards; a folder of trajectory files "
        "(*.trajectory.json, *.genealogy.json, *.marcxml[.gz]): multi-step Deliberation-v0 "
        "rewards, partial trajectories included; default: the synthetic assembly", metavar="DIR",
    )  # fmt: skip
    synthetic: bool = flags.synthetic()
    sessions: tuple[int, int] | None = flags.sessions("train on sessions A to B inclusive "
                                                      "(default: all)")  # fmt: skip
    country: tuple[str, ...] | None = flags.option("countries to fit (names, aliases or ISO codes)",
                                                   metavar="NAME", group="who")  # fmt: skip
    all: bool = flags.switch("every country with votes (the default)", group="who")
    out: Path = flags.out(
        _ModelFolder(MODEL_FILE, MODEL_KIND), "folder to write the model into (a new or empty "
        "folder, or an earlier model's)", metavar="MODEL_DIR",
    )  # fmt: skip
    by_period: int | None = flags.option(
        "roll calls: one model per block of N sessions (10: by decade), each in "
        f"MODEL_DIR/{report.PERIOD_PREFIX}A-B, for `irl explain --over-time`",
        metavar="N", minimum=1,
    )  # fmt: skip
    plain_features: bool = flags.switch(
        "the env's default features only, FeatureConfig() (default: the validated ones, also "
        "the log-scaled vote shares, the agreement with the United States, Russia, China, "
        "India and the majority, the 20 closest allies' votes and the resolution's lineage)"
    )
    text: Literal["hashed", "topics"] = flags.option(
        "how a roll call's text is described: hashed word buckets (default) or topics fitted on "
        "the training texts, each named by its top words, which `irl explain` then reads out "
        "(FeatureConfig.text)", "hashed",
    )  # fmt: skip
    l2: float | None = flags.option(
        f"--kind linear: prior precision on standardised weights (default {DEFAULT_L2:g}, "
        "chosen on validation sessions of the real votes); a trajectory folder: of every "
        "weight (default: 3 on the draft's, 100 on the votes', chosen on validation folds)",
        minimum=0,
    )  # fmt: skip
    shrinkage: Literal["none", "global"] | None = flags.option(
        "--kind linear: shrink each country toward the pooled fit of all countries (global, "
        "the default) or not (none); a trajectory folder's fit has a shared term always"
    )
    no_standard_errors: bool = flags.switch(
        "--kind linear: skip the Laplace standard errors (faster; no CIs)"
    )
    dims: int | None = flags.option(
        f"--kind ideal: dimensions of the space, 1 to 3 (default {DEFAULT_DIMS}, chosen on "
        "validation votes)", metavar="D", minimum=1, maximum=3,
    )  # fmt: skip
    walk: float | None = flags.option(
        f"--kind ideal: the random walk's step standard deviation per session (default "
        f"{DEFAULT_WALK:g})", type=arguments.POSITIVE, metavar="W",
    )  # fmt: skip
    folds: int | None = flags.option(
        "trajectory folders: also K-fold cross-validation by resolution (seeded by --seed): "
        "held-out log-likelihood per recorded decision (all, and votes alone), per fold, mean "
        "and spread",
        metavar="K", minimum=2,
    )  # fmt: skip
    seed: int = flags.seed("the folds")
    quiet: bool = flags.quiet("no progress bar")


@dataclass(frozen=True, kw_only=True)
class Explain:
    """Read a fitted model of any kind: the features that move a country's votes most.

    Each feature's effect (with a 95% CI where the kind gives one), how its effects moved
    between periods, or all countries at once (the mean and spread of their weights, or of what
    describes their rewards); a linear model's weights table.
    """

    model: Path = flags.positional(
        "a model folder (with --over-time: a folder of `fit --by-period` "
        "models)", metavar="MODEL_DIR",
    )  # fmt: skip
    country: str | None = flags.option(
        "one country: the features that move its votes most, each's effect on P(yes / no / "
        "abstain) (linear: with 95%% CIs), preferences apart from habits (default: the mean "
        "and spread across countries of the weights, or of the kind's profile)", metavar="NAME",
    )  # fmt: skip
    weights: bool = flags.switch("a linear model: print the weights table (weights, standard "
                                 "errors, z) instead")  # fmt: skip
    over_time: bool = flags.switch("MODEL_DIR holds one model per period (`irl fit --by-period`): "
                                   "how the country's effects moved")  # fmt: skip
    top: int = _top()
    csv: Path | None = _csv()
    plot: Path | None = flags.option(
        "with --over-time: also draw the top preferences' effects by period",
        type=arguments.output_file, metavar="FILE.png",
    )  # fmt: skip
    relative_to: str | None = flags.option(
        "the weights table of a linear model (--weights, or no --country): each action's minus "
        "this action's (default: no_action for Deliberation-v0 models, whose reward is 0; "
        "'none': the raw weights)", metavar="ACTION",
    )  # fmt: skip
    plots: Path | None = flags.option(
        "also write reward_heatmap.png of what describes each reward (the weights of a linear "
        "model; countries: see --plot-countries) and dendrogram.png (every country) into DIR",
        type=arguments.output_folder, metavar="DIR",
    )  # fmt: skip
    plot_countries: int = flags.option(  # irl.analysis.TOP_COUNTRIES: --help imports no matplotlib
        "with --plots: the heatmap draws the N countries with the largest norms "
        "(default: 30; 0: all of them)", 30, type=arguments.Number(int, low=1, special=0),
        metavar="N",
    )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Compare:
    """Compare two countries of a fitted model: where their rewards differ most, and agree.

    A linear model by its weights (with 95% CIs), other kinds by their effects on the votes.
    """

    model: Path = _model()
    first: str = flags.positional("a country (name, alias or ISO code)", metavar="A")
    second: str = flags.positional("another country", metavar="B")
    top: int = _top()
    csv: Path | None = _csv()


@dataclass(frozen=True, kw_only=True)
class Predict:
    """Forecast every country the model knows on every roll call of --data (of --sessions).

    P(yes), P(no), P(abstain) per (roll call, country), written as CSV with the roll call's
    session. Reads the roll calls only, never their votes; features come from the model's
    training votes of strictly earlier sessions.
    """

    model: Path = _model()
    data: tuple[str, ...] = flags.data(
        "the roll calls, as `bench --data` takes them: an unvotes folder (its "
        "un_roll_calls.csv.gz and un_roll_call_issues.csv.gz only), a UN Digital Library CSV, "
        "'unvotes' or 'synthetic'; give it again to combine sources (a roll call in two is kept "
        "from the first given, and counted)",
        required=True, action="append", metavar="SRC", group=None,
    )  # fmt: skip
    sessions: tuple[int, int] | None = flags.sessions(
        "forecast the roll calls of sessions A to B inclusive (default: all)"
    )
    out: Path = flags.out(
        arguments.OutputFile(b"rcid,session,country_code,"),  # how run_predict's CSV begins
        "the CSV file to write (a new file or earlier forecasts)", metavar="PREDICTIONS.csv",
    )  # fmt: skip
    quiet: bool = flags.quiet("no progress bar")


def _shift(text: str) -> tuple[str, tuple[float, ...]]:
    """``NAME=DELTA`` (DELTA: one to three comma-separated numbers) as ``(NAME, numbers)``."""
    name, equals, numbers = text.rpartition("=")
    try:
        delta = tuple(float(number) for number in numbers.split(","))
    except ValueError:
        delta = ()
    if not (name.strip() and equals and 1 <= len(delta) <= 3 and np.isfinite(delta).all()):
        raise argparse.ArgumentTypeError(
            f"expected NAME=DELTA, DELTA one finite number per dimension (e.g. France=+0.5 or "
            f"France=+0.5,-0.2), got {text!r}"
        )
    return name.strip(), delta


@dataclass(frozen=True, kw_only=True)
class Ideal:
    """Read an ideal-point model (`irl fit --kind ideal`): where countries stand, how it fits.

    Each chosen country's position at the first session of every decade (1946, 1956, …) with
    its 95% interval, and the in-sample APRE, GMP and share correctly classified (on the
    training votes, as W-NOMINATE reports them); plots, the roll calls that separate two
    countries, the outcomes that change when a country moves.
    """

    model: Path = _model()
    country: tuple[str, ...] = flags.option(
        "a country to show (repeat the flag for more; default: France, the United States, "
        "India, China and Brazil where the model knows them, else the five with most votes)",
        (), action="append", metavar="NAME",
    )  # fmt: skip
    plots: Path | None = flags.option(
        "also write into DIR: positions.png (the chosen countries), maps.png (every country, "
        "per 10 sessions), agreement.csv, distances.csv and agreement.png (the chosen "
        "countries and those with most votes, 30 in all), fit_by_roll_call.csv",
        type=arguments.output_folder, metavar="DIR",
    )  # fmt: skip
    separate: tuple[str, ...] | None = flags.option(
        "the training roll calls that best separate countries A and B", nargs=2,
        metavar=("A", "B"),
    )  # fmt: skip
    top: int = flags.option("rows of --separate (default 10)", 10, metavar="K", minimum=1)
    shift: tuple[str, tuple[float, ...]] | None = flags.option(
        "move a country by DELTA (one number per dimension, comma-separated; fewer: the rest "
        "0) in every session: the training roll calls whose predicted outcome changes",
        type=_shift, metavar="NAME=DELTA",
    )  # fmt: skip
    sessions: tuple[int, int] | None = flags.sessions(
        "--shift's roll calls and --plots' agreement and distances: sessions A to B inclusive "
        "(default: all)"
    )


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``irl`` subcommand: ``fit``, ``explain``, ``compare``, ``predict``, ``ideal``."""
    actions = flags.add_actions(subparsers, "irl", help_text, "MaxEnt inverse RL on RollCall-v0: "
                                "fit, explain and forecast with rewards.")  # fmt: skip
    flags.add_command(actions, "fit", run_fit, "fit rewards and save a model folder", Fit)
    explain = "what moves a country's votes (effects, 95%% CIs where the kind gives them)"
    flags.add_command(actions, "explain", run_explain, explain, Explain)
    compare = "where two countries' rewards differ most and where they agree"
    flags.add_command(actions, "compare", run_compare, compare, Compare)
    predict = "forecast votes on roll calls from one or more sources"
    flags.add_command(actions, "predict", run_predict, predict, Predict)
    ideal = "an ideal-point model: positions, fit, maps, separating roll calls, shifts"
    flags.add_command(actions, "ideal", run_ideal, ideal, Ideal)


def run_fit(args: argparse.Namespace) -> int:
    """Fit and save; prints a one-paragraph summary."""
    trajectories = args.data is not None and data_kind(args.data) == "trajectories"
    kind = args.kind or ("linear" if trajectories else DEFAULT_KIND)
    own = {"--l2": ("linear", args.l2 is not None),
           "--shrinkage": ("linear", args.shrinkage is not None),
           "--no-standard-errors": ("linear", args.no_standard_errors),
           "--dims": ("ideal", args.dims is not None), "--walk": ("ideal", args.walk is not None)}
    for flag, (owner, given) in own.items():
        if given and kind != owner:
            default = "" if args.kind else f" (the default): add --kind {owner}"
            raise DataError(flag, f"applies to --kind {owner} only, not --kind {kind}{default}")
    if trajectories:
        if kind != "linear":
            raise DataError("--kind", f"{kind} rewards are one-step only (RollCall-v0); a "
                            "trajectory folder's Deliberation-v0 rewards are linear")  # fmt: skip
        if args.by_period is not None:
            raise DataError("--by-period", "splits roll calls by session; trajectory folders "
                            "are fitted whole")  # fmt: skip
        return _fit_trajectories(args)
    if args.folds is not None:
        raise DataError("--folds", "cross-validates trajectory folders; for roll calls use "
                        "`assembly-gym bench --suite unvotes` (a temporal split)")  # fmt: skip
    periods = report.period_models(args.out)
    if periods and args.by_period is None:
        raise DataError(args.out, "holds models of --by-period: name another folder")
    if args.by_period is not None and not periods and args.out.is_dir() and any(args.out.iterdir()):
        raise DataError(args.out, "--by-period writes one model per period into sub-folders: "
                        "name a new or empty folder")  # fmt: skip
    data = roll_call_data(None if args.synthetic else args.data)
    if args.sessions is not None:
        data = data.select_sessions(*args.sessions)
    if args.by_period is None:
        _fit_and_save(data, args.country, kind, args, args.out)
        return 0
    for old in periods:
        shutil.rmtree(old)
    for name, block, countries in report.period_blocks(data, args.by_period, args.country):
        if countries == []:
            first, last = block.sessions[0], block.sessions[-1]
            print(f"Sessions {first}–{last}: none of the countries voted; skipped")
        else:
            _fit_and_save(block, countries, kind, args, args.out / name)
    return 0


def _fit_and_save(
    data: RollCallData, countries: list[str] | None, kind: str, args: argparse.Namespace,
    out: Path,
) -> None:  # fmt: skip
    """Fit ``countries`` (None: all with votes) on ``data``, save to ``out``, print a summary."""
    from assembly_gym.irl.rollcall import fit_reward_model

    config = FeatureConfig() if args.plain_features else DEFAULT_FEATURES
    settings: dict[str, Any] = {}
    if kind == "linear":
        settings = {"l2": DEFAULT_L2 if args.l2 is None else args.l2,
                    "shrinkage": args.shrinkage or "global",
                    "standard_errors": not args.no_standard_errors}  # fmt: skip
    if kind == "ideal":
        settings = {"dims": args.dims or DEFAULT_DIMS, "walk": args.walk or DEFAULT_WALK}
    model = fit_reward_model(
        data, countries, kind=kind, feature_config=replace(config, text=args.text),
        progress=not args.quiet, **settings,
    )  # fmt: skip
    model.save(out)
    print(report.fit_summary(model))
    if isinstance(model, IdealPointModel):
        from assembly_gym.irl.ideal_analysis import fit_statistics

        print(_ideal_fit_text(model, fit_statistics(model)[0]))
    print(f"Saved to {out}")


def _fit_trajectories(args: argparse.Namespace) -> int:
    """Multi-step Deliberation IRL on a trajectory folder; optional K-fold validation."""
    from assembly_gym.irl.deliberation import fit_deliberation_rewards

    if args.shrinkage is not None:
        raise DataError("--shrinkage", "a trajectory folder's fit always shrinks each country "
                        "toward a shared term")  # fmt: skip
    records = records_from_trajectories(load_trajectories(args.data))
    prior = DEFAULT_PRIOR if args.l2 is None else Prior(args.l2, args.l2)
    if args.folds is not None:
        _print_folds(records, args.folds, args.seed, prior, args.country)
    model = fit_deliberation_rewards(records, args.country, prior=prior)
    model.save(args.out)
    print(f"{report.fit_summary(model, args.data)}\nSaved to {args.out}")
    return 0


def _print_folds(
    records: ResolutionRecords, folds: int, seed: int, prior: Prior,
    countries: list[str] | None,
) -> None:  # fmt: skip
    """Held-out log-likelihood per recorded decision on K folds of the resolutions."""
    from assembly_gym.benchmarks.splits import record_folds
    from assembly_gym.irl.deliberation import cross_validate

    tests = record_folds(records, folds, seed)
    rows = cross_validate(records, tests, countries, prior=prior)
    table = pd.DataFrame(rows).set_index("fold")
    print(
        f"{folds}-fold cross-validation by resolution (seed {seed}): held-out recorded "
        "decisions, mean log-likelihood per decision (nats) under the fit, uniform choice among "
        "the valid actions and the training decisions' frequencies; then the votes alone"
    )
    print(table.to_string(float_format=lambda v: f"{v:.3f}"))
    scored, uniform = table["IRL"], table["uniform"]
    print(f"mean ± sd across folds: IRL {scored.mean():.3f} ± {scored.std(ddof=1):.3f}, "
          f"uniform {uniform.mean():.3f} ± {uniform.std(ddof=1):.3f}\n")  # fmt: skip


def _write_csv(path: Path | None, table: pd.DataFrame, **options: Any) -> None:
    """Write ``table`` as CSV to ``path`` (``--csv``), when given, and say so."""
    if path is not None:
        atomic_write_text(path, table.to_csv(float_format="%.6g", **options))
        print(f"Wrote {path}")


def run_explain(args: argparse.Namespace) -> int:
    """One country's effects (or weights), the summary across countries, or effects over time."""
    if args.plot is not None and not args.over_time:
        raise DataError("--plot", "draws --over-time's effects; --plots DIR draws the heatmap "
                        "and dendrogram")  # fmt: skip
    if args.over_time:
        return _explain_over_time(args)
    if report.period_models(args.model):
        raise DataError(args.model, "holds one model per period: add --over-time, or name one "
                        "of its sessions-A-B folders")  # fmt: skip
    model = RewardModel.load(args.model)
    linear = isinstance(model, LinearRewardModel)
    for flag, given in (("--weights", args.weights), ("--relative-to", args.relative_to)):
        if given and not linear:
            raise DataError(flag, f"reads a linear model's weights; a {model.kind} model has "
                            "none (its effects: --country NAME)")  # fmt: skip
    deliberation = linear and "effects" in model.info and not args.weights  # multi-step
    effects = (args.country is not None and not args.weights and not deliberation
               and (report.has_decisions(model) or not linear))  # fmt: skip
    if args.relative_to is not None and (deliberation or effects):
        raise DataError("--relative-to", "applies to the weights table: add --weights")
    if isinstance(model, LinearRewardModel) and deliberation:
        from assembly_gym.irl.explanation import deliberation_effects

        text, table = deliberation_effects(model, args.country)
    elif effects:
        text, table = report.effects_text(model, args.country, args.top)
    elif isinstance(model, LinearRewardModel):
        text, table = report.weights_text(model, args.country, args.relative_to)
    else:
        text, table = report.profile_text(model)
    print(text)
    _write_csv(args.csv, table)
    if args.plots is not None:
        _plot_profile(model, args.plots, args.plot_countries or None)
    return 0


def _plot_profile(model: RewardModel, folder: Path, max_countries: int | None) -> None:
    """``--plots``: the heatmap and dendrogram of the countries' profiles, into ``folder``."""
    from assembly_gym.irl.analysis import plot_dendrogram, plot_weights_heatmap

    values, names = model.profile()
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(model, LinearRewardModel):
        title, label = "Learned reward weights", "weight (red: favours the action)"
    else:
        title, label = f"What describes each country's {model.kind} reward", "profile value"
    heatmap = plot_weights_heatmap(values, model.countries, names, folder / "reward_heatmap.png",
                                   actions=model.action_names, max_countries=max_countries,
                                   title=title, label=label)  # fmt: skip
    shown = max_countries or len(model.countries)
    if shown < len(model.countries):
        print(f"Wrote {heatmap} (the {shown} of {len(model.countries)} countries with the "
              "largest norms; --plot-countries 0 draws every one)")  # fmt: skip
    else:
        print(f"Wrote {heatmap} (all {len(model.countries)} countries)")
    if len(model.countries) > 1:
        print(f"Wrote {plot_dendrogram(values, model.countries, folder / 'dendrogram.png')}")


def _explain_over_time(args: argparse.Namespace) -> int:
    """Effects of one country in every period model of ``irl fit --by-period``."""
    if args.country is None:
        raise DataError("--over-time", "name the country with --country")
    found = report.effects_over_time(args.model, args.country, progress=True)
    print(report.over_time_text(found, args.top))
    _write_csv(args.csv, found.table, index=False)
    if args.plot is not None:
        from assembly_gym.irl.analysis import plot_effects_over_time

        chosen = found.top("preference", min(args.top, 6))
        path = plot_effects_over_time(found.table, found.country, chosen, found.actions, args.plot)
        print(f"Wrote {path}")
    return 0


def run_compare(args: argparse.Namespace) -> int:
    """Where two countries' rewards differ most and where they agree."""
    model = RewardModel.load(args.model)
    text, table = report.comparison_text(model, args.first, args.second, args.top)
    print(text)
    _write_csv(args.csv, table)
    return 0


def run_predict(args: argparse.Namespace) -> int:
    """Forecast every known country's votes on every roll call of ``--data`` (``--sessions``)."""
    first, last = args.sessions or (None, None)
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


def run_ideal(args: argparse.Namespace) -> int:
    """Positions once a decade and the in-sample fit; plots, separating roll calls, a shift."""
    from assembly_gym.irl import ideal_analysis

    model = RewardModel.load(args.model)
    if not isinstance(model, IdealPointModel):
        raise DataError(args.model, f"holds a {model.kind} reward model; `irl ideal` reads "
                        "ideal points (fit them with `irl fit --kind ideal`)")  # fmt: skip
    if args.sessions is not None and args.shift is None and args.plots is None:
        raise DataError("--sessions", "chooses the sessions of --shift and --plots: add one")
    for name in [*(args.separate or ()), *(args.shift[:1] if args.shift else ())]:
        model.country_index(name)  # an unknown country: one line, before any work
    if args.shift is not None and len(args.shift[1]) > model.dims:
        raise DataError("--shift", f"{len(args.shift[1])} numbers for a model of {model.dims} "
                        "dimensions")  # fmt: skip
    countries = ideal_analysis.pick_countries(model, args.country)
    overall, by_roll_call = ideal_analysis.fit_statistics(model)
    print(f"{report.fit_summary(model)}\n{_ideal_fit_text(model, overall)}")
    print(_positions_text(model, ideal_analysis.positions_by_decade(model, countries)))
    if args.separate is not None:
        first, second = (model.countries[model.country_index(c)] for c in args.separate)
        table = ideal_analysis.separating_roll_calls(model, first, second, args.top)
        print(f"\nThe roll calls that best separate {first} (a) and {second} (b): the cut lies "
              "between them; margin = P(yes) − P(no) at the roll call's session, largest "
              "difference first; their recorded votes")  # fmt: skip
        print(_table_text(table))
    if args.shift is not None:
        name, delta = args.shift
        table = ideal_analysis.shift_outcomes(model, name, delta, args.sessions)
        moved = ", ".join(f"{d:+g}" for d in (*delta, *[0.0] * (model.dims - len(delta))))
        where = "" if args.sessions is None else " of sessions {}–{}".format(*args.sessions)
        print(f"\nMoving {model.countries[model.country_index(name)]} by ({moved}) changes the "
              f"predicted outcome of {len(table)} training roll calls{where} (adopted iff the "
              "expected yes votes of the countries that voted exceed their expected no votes)")
        if len(table):
            print(_table_text(table))
    if args.plots is not None:
        _ideal_plots(model, args.plots, countries, args.sessions, by_roll_call)
    return 0


def _ideal_fit_text(model: IdealPointModel, overall: dict[str, float]) -> str:
    """Dimensions, iterations, and the in-sample APRE, GMP and share correctly classified."""
    info = model.info
    return (
        f"{model.dims}-dimensional ideal points (random walk {info['walk']:g} per session), "
        f"{info['iterations']} L-BFGS iterations, converged: {info['converged']}. In-sample "
        f"fit on its {overall['n_votes']:,} training votes (as W-NOMINATE reports it): APRE "
        f"{overall['apre']:.3f}, GMP {overall['gmp']:.3f}, correctly classified "
        f"{overall['correct']:.3f}."
    )


def _positions_text(model: IdealPointModel, table: pd.DataFrame) -> str:
    """The positions of :func:`~assembly_gym.irl.ideal_analysis.positions_by_decade`."""
    shown = table[["country", "session", "year"]].copy()
    for k in range(1, model.dims + 1):
        shown[f"x{k} [95% interval]"] = [
            f"{x:+.2f} [{lo:+.2f}, {hi:+.2f}]"
            for x, lo, hi in table[[f"x{k}", f"x{k}_lo", f"x{k}_hi"]].itertuples(index=False)
        ]
    return (
        f"\nPositions at the first session of each decade (95% intervals: Laplace, given the "
        f"roll calls; {model.reference} on the positive side of every axis)\n"
        + shown.to_string(index=False)
    )


def _table_text(table: pd.DataFrame) -> str:
    """Every row, descriptions cut to 40 characters, numbers to 3 decimals."""
    shown = table.assign(short=table["short"].str.slice(0, 40))
    return shown.to_string(index=False, float_format=lambda v: f"{v:.3f}")


def _ideal_plots(
    model: IdealPointModel, folder: Path, countries: list[str],
    sessions: tuple[int, int] | None, by_roll_call: pd.DataFrame,
) -> None:  # fmt: skip
    """``irl ideal --plots``: positions, maps, agreement and distances, the fit per roll call."""
    from assembly_gym.irl import ideal_analysis

    folder.mkdir(parents=True, exist_ok=True)
    many = ideal_analysis.pick_countries(model, countries, total=30)
    agreement = ideal_analysis.agreement(model.require_history(), many, sessions)
    distances = ideal_analysis.distances(model, many, sessions)
    atomic_write_text(folder / "agreement.csv", agreement.to_csv(float_format="%.4f"))
    atomic_write_text(folder / "distances.csv", distances.to_csv(float_format="%.4f"))
    text = by_roll_call.to_csv(index=False, float_format="%.4f")
    atomic_write_text(folder / "fit_by_roll_call.csv", text)
    written = [ideal_analysis.plot_positions(model, countries, folder / "positions.png"),
               ideal_analysis.plot_maps(model, folder / "maps.png"),
               ideal_analysis.plot_agreement(agreement, folder / "agreement.png")]  # fmt: skip
    names = ", ".join(path.name for path in written)
    print(f"\nWrote {names}, agreement.csv, distances.csv and fit_by_roll_call.csv to {folder} "
          f"(agreement and distances: {len(many)} countries)")
