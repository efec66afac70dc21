"""Real held-out forecast: ``irl fit`` on sessions ≤ 60, ``irl predict`` on 61–69, one table.

1. Features and λ are chosen inside the training sessions: fit ≤ 55, score log-loss on
   56–60 (a forecast), for each of ``FEATURE_SETS`` at λ = ``DEFAULT_L2``, then the kinds
   (trees, linear, their mixtures: :func:`kind_losses`), then each λ of ``--l2-grid`` on
   ``DEFAULT_FEATURES`` (the bench's).
2. ``assembly-gym irl fit --data DIR --sessions 1-60`` with the bench's features and that λ,
   then ``assembly-gym irl predict MODEL --data DIR`` (which never opens the vote table).
3. The forecasts are scored on every vote of sessions 61–69 by the countries that voted in
   both periods, beside the cheap rows of ``assembly-gym bench --data DIR`` (the ``unvotes``
   suite's baselines and its linear MaxEnt IRL agent) on the same features and votes.

Sessions 60 and 55 are ``--last-train-session`` and ``--last-fit-session``.

Run: ``assembly-gym experiment irl_forecast [--l2-grid 3 10 30 100] [--data DIR]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from assembly_gym.benchmarks.cli import main as cli
from assembly_gym.benchmarks.commands.arguments import NON_NEGATIVE, SESSION
from assembly_gym.benchmarks.experiments import add_data_argument, real_votes
from assembly_gym.benchmarks.harness import TemporalSplit
from assembly_gym.benchmarks.suites import Options, SuiteResult, run_suite
from assembly_gym.benchmarks.suites.rollcall import UNVOTES
from assembly_gym.benchmarks.sweep.votes import forecast_log_loss
from assembly_gym.core.errors import AssemblyGymError
from assembly_gym.core.metrics import classification_metrics
from assembly_gym.envs.legislative.data import ABSENT, RollCallData, load_unvotes
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.irl.base import RewardModel
from assembly_gym.irl.linear import DEFAULT_L2
from assembly_gym.irl.mixture import DEFAULT_MEMBERS, MEMBER_SETTINGS, MixtureRewardModel
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, fit_reward_model

__all__ = ["FEATURE_SETS", "add_arguments", "bench_rows", "kind_losses", "run",
           "validation_losses"]  # fmt: skip
TREE_WEIGHTS = (0.4, 0.5, 0.6, 0.7, 0.8)
"""The trees' weights in the mixtures compared on validation sessions."""

METRICS = ("accuracy", "macro_f1", "log_loss")
BENCH_AGENTS = ("random", "always-yes", "majority", "issue-majority", "last-similar-vote",
                "logistic (sklearn)", "maxent-irl (linear)")  # fmt: skip
CLI_AGENT = "maxent-irl (linear), irl fit + irl predict"
FEATURE_SETS = {
    "log shares": FeatureConfig(log_shares=True),
    "log shares + agree_*": FeatureConfig(log_shares=True, relations=True),
    "log shares + allies_*": FeatureConfig(log_shares=True, allies=DEFAULT_FEATURES.allies),
    "log shares + agree_* + allies_*": replace(DEFAULT_FEATURES, lineage=False),
    "log shares + agree_* + allies_* + lineage_* (DEFAULT_FEATURES)": DEFAULT_FEATURES,
}
"""The feature sets compared on validation sessions; the bench runs ``DEFAULT_FEATURES``."""


def validation_losses(
    train: RollCallData, candidates: dict[str, tuple[FeatureConfig, float]], last_fit_session: int
) -> dict[str, float]:
    """Validation log-loss of linear MaxEnt IRL for each (features, λ), by name; printed.

    Fitted on the sessions up to ``last_fit_session``, scored on the later training sessions
    (described by the fit sessions only, as a forecast).
    """
    fit_part, validation = train.temporal_split(last_fit_session)
    losses = {}
    for name, (config, l2) in candidates.items():
        model = fit_reward_model(fit_part, kind="linear", l2=l2, feature_config=config,
                                 standard_errors=False)  # fmt: skip
        losses[name] = forecast_log_loss(model, validation, fit_part)
        print(f"  validation {name}: log-loss {losses[name]:.4f}", flush=True)
    return losses


def kind_losses(train: RollCallData, last_fit_session: int) -> dict[str, float]:
    """Validation log-loss of the trees, the linear reward and their mixtures, printed.

    Both members are fitted once (their default settings, ``DEFAULT_FEATURES``) on the
    sessions up to ``last_fit_session``; each mixture weight of :data:`TREE_WEIGHTS` pools them.
    """
    fit_part, validation = train.temporal_split(last_fit_session)
    trees = fit_reward_model(fit_part, kind="trees", **MEMBER_SETTINGS["trees"])
    linear = fit_reward_model(fit_part, kind="linear", **MEMBER_SETTINGS["linear"])
    models: dict[str, RewardModel] = {"trees": trees, "linear": linear}
    for weight in TREE_WEIGHTS:
        models[f"mixture, trees {weight:g}"] = MixtureRewardModel(
            trees.countries, trees.action_names, trees.obs_names, members=(trees, linear),
            weights=(weight, 1 - weight), feature_config=trees.feature_config,
            history=fit_part, layout=trees.layout,
        )  # fmt: skip
    losses = {}
    for name, model in models.items():
        losses[name] = forecast_log_loss(model, validation, fit_part)
        print(f"  validation {name}: log-loss {losses[name]:.4f}", flush=True)
    return losses


def bench_rows(folder: Path, last_train_session: int) -> SuiteResult:
    """The ``unvotes`` suite of ``assembly-gym bench --data folder``, its cheap rows only.

    ``BENCH_AGENTS``: the baselines and linear MaxEnt IRL (λ = ``DEFAULT_L2``), seed 0.
    """
    suite = replace(
        UNVOTES,
        agents=lambda task, options: [
            spec for spec in UNVOTES.agents(task, options) if spec.name in BENCH_AGENTS
        ],
    )
    options = Options(data=str(folder), last_train_session=last_train_session)
    return run_suite(suite, options, progress=False)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The λ grid, the sessions and the data."""
    parser.add_argument("--l2-grid", type=NON_NEGATIVE, nargs="+",
                        default=[30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0])  # fmt: skip
    parser.add_argument("--last-train-session", type=SESSION, default=60, help="(default 60)")
    parser.add_argument(
        "--last-fit-session", type=SESSION, default=55, help="λ's fit part ends here (default 55)"
    )
    add_data_argument(parser)


def run(args: argparse.Namespace) -> None:
    """Validate λ, fit and predict through the CLI, score beside the baselines."""
    last_train, last_fit = args.last_train_session, args.last_fit_session
    if last_fit >= last_train:
        raise AssemblyGymError(
            f"--last-fit-session {last_fit} leaves no validation sessions: it must be before "
            f"--last-train-session {last_train}"
        )
    folder = real_votes(args)
    data = load_unvotes(folder)
    split = TemporalSplit.of(data, last_train)
    print(f"Data {folder}; {split.describe()}")
    print(f"Choosing the features: fit ≤ {last_fit}, validate {last_fit + 1}–{last_train}, "
          f"λ = {DEFAULT_L2:g}:")  # fmt: skip
    validation_losses(split.train, {k: (v, DEFAULT_L2) for k, v in FEATURE_SETS.items()}, last_fit)
    print(f"Choosing the kind: fit ≤ {last_fit}, validate {last_fit + 1}–{last_train} "
          f"(the default: mixture, trees {DEFAULT_MEMBERS['trees']:g}):")  # fmt: skip
    kind_losses(split.train, last_fit)
    print(f"Choosing λ: fit ≤ {last_fit}, validate {last_fit + 1}–{last_train}:")
    grid = {f"λ={l2:g}": (DEFAULT_FEATURES, l2) for l2 in args.l2_grid}
    losses = validation_losses(split.train, grid, last_fit)
    l2 = grid[min(losses, key=losses.__getitem__)][1]
    same = "the λ of `bench` and `irl fit`" if l2 == DEFAULT_L2 else f"`bench` uses {DEFAULT_L2:g}"
    print(f"  chosen λ = {l2:g} ({same})")

    with tempfile.TemporaryDirectory() as tmp:
        model_dir, out = Path(tmp) / "model", Path(tmp) / "predictions.csv"
        began = time.perf_counter()
        cli(["irl", "fit", "--data", str(folder), "--sessions", f"1-{last_train}", "--all",
             "--kind", "linear", "--l2", str(l2),
             "--no-standard-errors", "--quiet", "--out", str(model_dir)])  # fmt: skip
        fit_seconds = time.perf_counter() - began
        began = time.perf_counter()
        cli(["irl", "predict", str(model_dir), "--data", str(folder), "--out", str(out), "--quiet"])
        predict_seconds = time.perf_counter() - began
        forecasts = pd.read_csv(out, keep_default_na=False)

    bench = bench_rows(folder, last_train)
    countries = bench.countries
    test = split.test.select_countries(countries)
    code = {c.name: c.iso2 or c.name for c in test.countries}
    truth = pd.DataFrame(
        {
            "rcid": np.tile(test.roll_calls["rcid"].to_numpy(), len(countries)),
            "country_code": np.repeat([code[c] for c in test.country_names], test.n_roll_calls),
            "vote": test.votes.reshape(-1),
        }
    )
    truth = truth[truth["vote"] != ABSENT]
    joined = truth.merge(forecasts, on=["rcid", "country_code"], how="left", validate="one_to_one")
    if joined["p_yes"].isna().any():
        raise AssemblyGymError("predictions are missing for some test votes")
    probs = joined[["p_yes", "p_no", "p_abstain"]].to_numpy()
    probs = probs / probs.sum(axis=1, keepdims=True)  # the CSV keeps 6 decimals
    ours = classification_metrics(joined["vote"].to_numpy(), probs)
    rows = bench.table[["agent", *METRICS]].to_dict(orient="records")
    rows.append({"agent": CLI_AGENT, **{m: ours[m] for m in METRICS}})
    balance = ", ".join(f"{k} {v:.1%}" for k, v in bench.class_balance.items())
    print(f"\nTest: {split.describe()}; {len(countries)} countries, {ours['n']} votes; {balance}.")
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".3f"))
    print(
        f"{CLI_AGENT}: λ = {l2:g}; CLI fit {fit_seconds:.1f} s, predict {predict_seconds:.1f} s "
        "(loading, features and saving included)."
    )
    print("Goal (issue 18): accuracy ≥ 0.90, macro-F1 ≥ 0.76, log-loss ≤ 0.34.")
