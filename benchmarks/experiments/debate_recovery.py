"""Benchmark: does debate recover a planted mixture of tendencies?

Synthetic actors face a synthetic assembly's roll calls but vote by a planted mixture w* of
the seven legislative tendencies (each decision's tendency drawn from w*, its vote from that
tendency's claim); debate training (default :class:`~assembly_gym.agents.debate.TrainConfig`)
should recover w*. Printed per ``--countries`` size (the situations of the first K
countries): the L1 distance ‖w − w*‖₁ of the debate's allocations, of the equal start and of
the debate's limit, the market allocation v* of the training votes (the bounded
maximum-likelihood mixture, :meth:`~assembly_gym.agents.debate.arena.Arena.market`);
validation owner accuracy, its binomial p-value and the majority-owner rate; how
often the posterior owner argmax_k w_k p_k(y | x) is the tendency that cast the vote (with
w*: the ceiling); epochs and seconds per run.

Run: ``assembly-gym experiment debate_recovery [--actors 20] [--countries 1 5] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from assembly_gym.agents.debate.allocation import project_bounded_simplex
from assembly_gym.agents.debate.arena import Arena
from assembly_gym.agents.debate.observations import observations_from_demonstrations
from assembly_gym.agents.debate.synthetic import plant_mixture
from assembly_gym.agents.debate.tendencies import compute_claims, tendency_agents
from assembly_gym.agents.debate.trainer import TrainConfig, Trainer
from assembly_gym.benchmarks.commands.arguments import POSITIVE_INT, Number
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.metrics import argmax_random_ties
from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

__all__ = ["ASSEMBLY", "add_arguments", "recover", "run"]

ASSEMBLY = SyntheticConfig(n_countries=10, n_sessions=40, roll_calls_per_session=100, seed=3)


def recover(n_countries: int, actors: int, seed: int) -> tuple[int, dict[str, np.ndarray]]:
    """Train on ``actors`` planted actors over the situations of ``n_countries`` countries.

    Returns:
        The number of situations, and each measure's values over the actors, shape (actors,).
    """
    assembly = generate_assembly(ASSEMBLY)
    countries = list(assembly.data.country_names[:n_countries])
    demos = rollcall_demonstrations(assembly.data, countries, with_infos=False)
    situations = observations_from_demonstrations(demos, ObservationLayout(feature_names()))
    claims = compute_claims(situations, tendency_agents())
    config = TrainConfig()
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(actors):
        planted = project_bounded_simplex(
            rng.dirichlet(np.ones(len(claims.probs))), config.min_allocation, config.max_allocation
        )
        actor, owners = plant_mixture(situations, claims, planted, rng=rng)
        trainer = Trainer(config, seed=seed)
        agents = tendency_agents()
        start = time.perf_counter()
        history, _ = trainer.train(actor, agents)
        seconds = time.perf_counter() - start
        learned = np.array([a.allocation for a in agents])
        train, _ = trainer.split(len(actor))
        equal = np.full(len(agents), 1.0 / len(agents))
        limit = Arena().market(claims.take(train), actor.actions[train], equal,
                               config.min_allocation, config.max_allocation)  # fmt: skip
        evidence_all = claims.evidence(actor.actions)
        posterior = argmax_random_ties((learned[:, None] * evidence_all).T, seed)
        oracle = argmax_random_ties((planted[:, None] * evidence_all).T, seed)
        last = history.validation_results[-1]
        rows.append(
            {
                "debate": np.abs(learned - planted).sum(),
                "uniform": np.abs(1 / 7 - planted).sum(),
                "limit": np.abs(limit - planted).sum(),
                "accuracy": last.accuracy,
                "p": last.p_value,
                "majority": last.majority_rate,
                "planted_owner": (posterior == owners).mean(),
                "oracle_owner": (oracle == owners).mean(),
                "epochs": history.epochs_run,
                "converged": history.converged,
                "seconds": seconds,
                "n_validation": last.n,
            }
        )
    table = {key: np.array([row[key] for row in rows], dtype=float) for key in rows[0]}
    return len(situations), table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Actors per size and the sizes."""
    parser.add_argument("--actors", type=POSITIVE_INT, default=20, help="planted actors per size")
    parser.add_argument(
        "--countries", type=Number(int, low=1, high=ASSEMBLY.n_countries), nargs="+",
        default=[1, 5], metavar="K",
        help="sizes: the situations of the first K countries (default 1 5)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> None:
    """Print the recovery table."""
    print(
        f"Synthetic assembly {ASSEMBLY.n_countries} countries × {ASSEMBLY.n_sessions} sessions × "
        f"{ASSEMBLY.roll_calls_per_session} roll calls (seed {ASSEMBLY.seed}); {args.actors} "
        f"planted actors per size, mixtures ~ Dirichlet(1) projected into [3%, 50%], seed "
        f"{args.seed}; TrainConfig defaults (validation split 20%)."
    )
    print()
    print(
        "| decisions | L1 debate (mean / median / max) | L1 equal start | L1 limit v* (MLE) "
        "| val. owner acc. | majority owner | p < 0.001 | median p | planted owner: w (w*) "
        "| epochs (mean / max) | converged | s / run |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for n_countries in args.countries:
        n, r = recover(n_countries, args.actors, args.seed)
        d = r["debate"]
        print(
            f"| {n:,} | {d.mean():.3f} / {np.median(d):.3f} / {d.max():.3f} "
            f"| {r['uniform'].mean():.3f} | {r['limit'].mean():.3f} | {r['accuracy'].mean():.3f} "
            f"| {r['majority'].mean():.3f} | {(r['p'] < 1e-3).mean():.0%} "
            f"| {np.median(r['p']):.1e} | {r['planted_owner'].mean():.3f} "
            f"({r['oracle_owner'].mean():.3f}) "
            f"| {r['epochs'].mean():.1f} / {r['epochs'].max():.0f} | {r['converged'].mean():.0%} "
            f"| {r['seconds'].mean():.2f} |"
        )
    print()
    print("Chance owner accuracy 1/7 = 0.143. Goal: L1 ≤ 0.10 and p < 0.001.")
