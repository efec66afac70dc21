"""World models on held-out resolutions: ``EmpiricalModel`` and ``MLPEnsemble`` side by side.

Two data sets: the synthetic default (all ``Deliberation-v0`` transitions of the embedded
assembly, ``--sessions`` a shorter one; split 60/20/20 by resolution) and, when there are,
the real votes (``--data``; train and validation 80/20 by resolution on sessions ≤ 60,
test 61–69). Both models fit on the training part (the ensemble stops early on the
validation part) and are scored by
:func:`~assembly_gym.world_models.evaluation.evaluate_world_model` on the test part, with
issue 4's goals; the synthetic goal figures are repeated for ``--spread-seeds``, and the
real test is put beside the shift of the real yes shares over time.

Run: ``assembly-gym experiment worldmodel_eval [--env Deliberation-v0] [--seed 0] [--threads 1]``
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from scipy import stats

from assembly_gym.benchmarks.commands.arguments import SEED
from assembly_gym.benchmarks.experiments import (
    add_data_argument,
    add_model_arguments,
    real_votes,
    synthetic_assembly,
)
from assembly_gym.core.errors import AssemblyGymError
from assembly_gym.core.paths import real_data_missing, unvotes_dir
from assembly_gym.core.transitions import Transitions
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.evaluation import (
    METRIC_LABELS,
    Evaluation,
    evaluate_world_model,
    evaluation_table,
)
from assembly_gym.world_models.heads import HeadModel
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.transitions import env_transitions, modelled_envs, split_transitions

__all__ = ["add_arguments", "compare", "goal_lines", "run", "seed_spread"]


def compare(
    train: Transitions, validation: Transitions, test: Transitions, *, seed: int,
    threads: int | None, max_epochs: int = 40, progress: bool = True,
) -> tuple[dict[str, Evaluation], dict[str, float]]:  # fmt: skip
    """Fit both models on ``train`` (the ensemble stops on ``validation``), score on ``test``.

    Returns:
        Evaluations and fit seconds, by model name.
    """
    models: dict[str, HeadModel] = {
        "EmpiricalModel": EmpiricalModel(seed=seed),
        "MLPEnsemble": MLPEnsemble(seed=seed, threads=threads, max_epochs=max_epochs),
    }
    results, seconds = {}, {}
    for name, model in models.items():
        start = time.perf_counter()
        model.fit(train, validation=validation, progress=progress)
        seconds[name] = time.perf_counter() - start
        results[name] = evaluate_world_model(model, test, seed=seed)
    return results, seconds


def goal_lines(results: dict[str, Evaluation]) -> list[str]:
    """The goals of issue 4, each with its figures and whether it is met."""
    empirical, mlp = results["EmpiricalModel"].metrics, results["MLPEnsemble"].metrics

    def line(met: bool, text: str) -> str:
        return f"  [{'met' if met else 'NOT met'}] {text}"

    lines = [
        line(mlp["nll"] < empirical["nll"],
             f"ensemble NLL {mlp['nll']:.3f} < empirical {empirical['nll']:.3f} nats"),
    ]  # fmt: skip
    if "vote_share_mae_pp" in mlp:
        lines.append(line(
            mlp["vote_share_mae_pp"] < empirical["vote_share_mae_pp"],
            f"ensemble vote-share MAE {mlp['vote_share_mae_pp']:.2f} < empirical "
            f"{empirical['vote_share_mae_pp']:.2f} pp",
        ))  # fmt: skip
    for name, result in results.items():
        if "adoption_gap_pp" not in result.metrics:
            continue
        m = result.metrics
        lines += [
            line(abs(m["adoption_gap_pp"]) <= 2,
                 f"{name}: simulated adoption {m['adoption_sim_pct']:.2f}% vs real "
                 f"{m['adoption_real_pct']:.2f}% (gap {m['adoption_gap_pp']:+.2f} pp, "
                 f"s.e. {m['adoption_gap_se_pp']:.2f}) within 2 pp"),
            line(abs(m["yes_share_gap_pp"]) <= 2,
                 f"{name}: simulated mean yes share {m['yes_share_sim_pct']:.2f}% vs real "
                 f"{m['yes_share_real_pct']:.2f}% (gap {m['yes_share_gap_pp']:+.2f} pp) "
                 "within 2 pp"),
            line(m["yes_share_ks_p"] > 0.05,
                 f"{name}: yes-share distribution KS p = {m['yes_share_ks_p']:.3g} > 0.05"),
        ]  # fmt: skip
    return lines


def _shift_reference(transitions: Transitions, last_train_session: int, window: int = 5) -> str:
    """KS of the real final yes shares: the last training sessions against the test ones."""
    name = "plenary_yes"
    if name not in transitions.obs_names:
        return ""
    ends = np.flatnonzero(transitions.dones)
    _, first = np.unique(transitions.split_units[ends], return_index=True)
    rows = ends[first]
    share = transitions.next_obs[rows, transitions.obs_names.index(name)]
    session = transitions.extras["session"][rows]
    test = share[session > last_train_session]
    parts = []
    for low in (1, last_train_session - window + 1):
        past = share[(session >= low) & (session <= last_train_session)]
        p = stats.ks_2samp(past, test).pvalue
        parts.append(
            f"sessions {low}–{last_train_session} ({len(past)} resolutions): KS p = {p:.2g}"
        )
    return (f"reference: the real yes shares themselves shift; against the {len(test)} test "
            f"resolutions, " + "; ".join(parts))  # fmt: skip


def report(env: str, data: Any, args: argparse.Namespace, *, real: bool) -> None:
    """Build, split, compare, print one data set (the real votes, or a synthetic assembly)."""
    seed, start = args.seed, time.perf_counter()
    transitions = env_transitions(env, data, progress=not args.quiet)
    built = time.perf_counter() - start
    last = 60 if real else None
    train, validation, test = split_transitions(transitions, last_train_session=last, seed=seed)
    label = "real votes (unvotes, sessions 1–69)" if real else _synthetic_label(args.sessions)
    split = ("train+validation sessions ≤ 60 (80/20 by resolution), test sessions 61–69"
             if real else "60/20/20 by resolution")  # fmt: skip
    print(f"\n## {env} — {label}")
    print(f"transitions: {len(transitions):,} (built in {built:.1f} s); split {split}, "
          f"seed {seed}: train {len(train):,}, validation {len(validation):,}, "
          f"test {len(test):,}")  # fmt: skip
    results, seconds = compare(train, validation, test, seed=seed, threads=args.threads,
                               max_epochs=args.max_epochs, progress=not args.quiet)  # fmt: skip
    print(evaluation_table(results, {"fit seconds": seconds}))
    print("goals:")
    print("\n".join(goal_lines(results)))
    if last is not None:  # the real votes
        print(_shift_reference(transitions, last))


def seed_spread(env: str, data: Any, seeds: Sequence[int], args: argparse.Namespace) -> None:
    """The goal figures on a synthetic assembly for several split and model seeds."""
    transitions = env_transitions(env, data)
    keys = ("nll", "vote_share_mae_pp", "adoption_gap_pp", "yes_share_gap_pp", "yes_share_ks_p")
    label = _synthetic_label(args.sessions).removesuffix(" assembly")
    print(f"\n## {env} — {label}, goal figures over split/model seeds {list(seeds)}")
    print("| seed | model | " + " | ".join(METRIC_LABELS[k] for k in keys) + " |")
    print("|---:|:---|" + "---:|" * len(keys))
    for seed in seeds:
        train, validation, test = split_transitions(transitions, seed=seed)
        results, _ = compare(train, validation, test, seed=seed, threads=args.threads,
                             max_epochs=args.max_epochs, progress=False)  # fmt: skip
        for name, result in results.items():
            cells = " | ".join(f"{result.metrics[k]:.3g}" for k in keys)
            print(f"| {seed} | {name} | {cells} |", flush=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The env, the extra seeds, the real data and the ensemble's epoch limit."""
    parser.add_argument("--env", default="Deliberation-v0", choices=modelled_envs("assembly"))
    parser.add_argument("--spread-seeds", type=SEED, nargs="*", default=[1, 2],
                        help="more seeds for the synthetic goal figures (none: skip)")  # fmt: skip
    add_data_argument(parser)
    parser.add_argument("--no-real", action="store_true", help="skip the real votes")
    add_model_arguments(
        parser, sessions="sessions of the synthetic assembly (default 20; RollCall-v0: at least 4)"
    )


def _synthetic_label(sessions: int | None) -> str:
    return (
        "synthetic default assembly"
        if sessions is None
        else f"synthetic assembly ({sessions} sessions)"
    )


def run(args: argparse.Namespace) -> None:
    """Print the evaluation tables on the synthetic default and, if present, the real votes."""
    if args.env == "RollCall-v0" and args.sessions is not None and args.sessions < 4:
        # a RollCall-v0 split keeps sessions whole: 60/20/20 of fewer than 4 leaves a part empty
        raise AssemblyGymError(f"--env RollCall-v0 needs --sessions ≥ 4, got {args.sessions}")
    folder = None if args.no_real else real_votes(args) if args.data else unvotes_dir()
    print(f"# World models on held-out data ({args.env})")
    print(f"machine: {os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f}; torch "
          f"{torch.__version__}, {args.threads or torch.get_num_threads()} thread(s)")  # fmt: skip
    synthetic = synthetic_assembly(args)
    report(args.env, synthetic, args, real=False)
    if args.spread_seeds:
        seed_spread(args.env, synthetic, [args.seed, *args.spread_seeds], args)
    if folder is not None:
        report(args.env, folder, args, real=True)
    elif not args.no_real:
        print(f"\n{real_data_missing('unvotes', 'un_votes.csv.gz')}: skipped")
