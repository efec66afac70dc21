"""Benchmark: does debate training move synthetic persons toward their planted mixtures?

One synthetic person per seed, as ``assembly-gym debate generate --seed S`` writes it: free-text
observations whose owners are drawn from a planted mixture w* ~ Dirichlet(1) of the seven
person tendencies, with w* in the file as ``"planted"``. Each is read back from the file and
trained with the default :class:`~assembly_gym.agents.debate.TrainConfig` (trainer seed S).
Printed per seed: the L1 distance ‖w − w*‖₁ of the equal start (epoch 0) and of the trained
allocations, and the least the bounds [3%, 50%] allow (‖Π(w*) − w*‖₁); the best epoch (highest
held-out log-likelihood) and the held-out log-likelihood (nats per observation) of the equal
start, of epoch 1 and of the last epoch; the owner accuracy of epoch 1 and of the last; epochs,
convergence, and in how many epochs the winner gained share.

Run: ``assembly-gym experiment debate_planted [--persons 10] [--observations 400] [--seed 0]``
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from assembly_gym.agents.debate.allocation import project_bounded_simplex
from assembly_gym.agents.debate.model import create_debate_model
from assembly_gym.agents.debate.synthetic import synthetic_person
from assembly_gym.agents.debate.tendencies import compute_claims
from assembly_gym.agents.debate.trainer import TrainConfig, Trainer
from assembly_gym.agents.debate.validator import Validator
from assembly_gym.benchmarks.commands.arguments import POSITIVE_INT

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Persons (seeds from ``--seed`` on) and observations per person."""
    parser.add_argument(
        "--persons", type=POSITIVE_INT, default=10,
        help="synthetic persons, seeds --seed, --seed + 1, … (default 10)",
    )  # fmt: skip
    parser.add_argument(
        "--observations", type=POSITIVE_INT, default=400,
        help="observations per person (default 400, as debate generate)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> None:
    """Print one row per person and the counts."""
    config = TrainConfig()
    lower, upper = config.min_allocation, config.max_allocation
    print(
        f"{args.persons} synthetic persons (seeds {args.seed}–{args.seed + args.persons - 1}), "
        f"{args.observations} observations each, noise 0.3; TrainConfig defaults "
        f"(validation split {config.validation_split:.0%}, allocations in "
        f"[{lower:.0%}, {upper:.0%}])."
    )
    print()
    print("| seed | L1 start | L1 end | L1 least (bounds) | best epoch | held-out log-lik. "
          "equal / epoch 1 / last | owner acc. epoch 1 / last | epochs | converged "
          "| winner gained |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---|---|---:|---|---:|")
    fell = converged = gained = epochs = 0
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.seed, args.seed + args.persons):
            document, _, _ = synthetic_person(args.observations, rng=np.random.default_rng(seed))
            path = Path(folder) / f"person-{seed}.json"
            path.write_text(json.dumps(document))
            model = create_debate_model(None, path)
            trainer = Trainer(config, seed=seed)
            history, _ = trainer.train(model.observations, model.agents)
            names = [agent.name for agent in model.agents]
            planted = np.array([(model.planted or {}).get(name, 0.0) for name in names])
            start = np.full(len(names), 1 / len(names))
            trained = np.array([agent.allocation for agent in model.agents])
            _, held_out = trainer.split(len(model.observations))
            claims = compute_claims(model.observations, model.agents).take(held_out)
            outcomes = model.observations.actions[held_out]
            equal = Validator(seed=seed).validate(claims, outcomes, start).log_likelihood
            first, last = history.validation_results[0], history.validation_results[-1]
            l1_start, l1_end = np.abs(start - planted).sum(), np.abs(trained - planted).sum()
            least = np.abs(project_bounded_simplex(planted, lower, upper) - planted).sum()
            wins = sum(
                m.allocation_changes[m.winner] > 0 or m.allocations[m.winner] >= upper
                for m in history.metrics
            )
            fell += l1_end < l1_start
            converged += history.converged
            gained += wins
            epochs += history.epochs_run
            print(
                f"| {seed} | {l1_start:.3f} | {l1_end:.3f} | {least:.3f} | {history.best_epoch} "
                f"| {equal:.4f} / {first.log_likelihood:.4f} / {last.log_likelihood:.4f} "
                f"| {first.accuracy:.3f} / {last.accuracy:.3f} | {history.epochs_run} "
                f"| {history.converged} | {wins}/{history.epochs_run} |"
            )
    print()
    print(
        f"L1 to the planted mixture fell on {fell} of {args.persons} persons (goal: at least "
        f"8 of 10); converged on {converged} of {args.persons}; the epoch's winner gained share "
        f"(or sat at the {upper:.0%} cap) in {gained} of {epochs} epochs."
    )
