"""Reward recovery on the synthetic assembly: learned against planted weights, and blocs found.

The synthetic assembly (default 200 countries in 8 blocs, 2,000 roll calls) votes by the
softmax of planted weights θ_c over φ(s, a) = e_a ⊗ [1, x(s)]. One batched MaxEnt fit
learns every country's weights over the content features the planted reward reads; printed:
the Pearson correlation of learned and planted weights (median and 10th percentile over
countries) and the adjusted Rand index of a Ward clustering of the learned weights against
the planted blocs, for three priors: shrinkage toward the global fit, toward the blocs found
by clustering it, and toward the planted blocs (oracle). λ is chosen by the held-out
likelihood of the last quarter of the sessions (no ground truth used).

Run: ``assembly-gym experiment irl_recovery [--countries 200] [--blocs 8] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score

from assembly_gym.benchmarks.commands.arguments import NON_NEGATIVE, POSITIVE_INT, Number
from assembly_gym.core.errors import AssemblyGymError
from assembly_gym.envs.legislative.data import RollCallData
from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
from assembly_gym.envs.legislative.observation import content_names
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.analysis import cluster_rewards, reward_correlations
from assembly_gym.irl.rollcall import fit_reward_model

__all__ = ["add_arguments", "run"]


def _heldout_loglik(model, train: RollCallData, test: RollCallData) -> float:
    """Mean log-probability of the test votes (described by the training history)."""
    demos = rollcall_demonstrations(
        test, model.countries, history=train, feature_config=model.feature_config, with_infos=False
    )
    total, count = 0.0, 0
    for demo in demos:
        probs = model.action_probs(demo.country, demo.obs[:-1])
        total += np.log(probs[np.arange(len(demo.acts)), demo.acts]).sum()
        count += len(demo.acts)
    return total / count


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The synthetic assembly's sizes and the λ grid."""
    parser.add_argument("--countries", type=POSITIVE_INT, default=200)
    parser.add_argument("--blocs", type=POSITIVE_INT, default=8, help="at most --countries")
    # λ is chosen on held-out sessions: at least one to fit on and one to score
    parser.add_argument("--sessions", type=Number(int, low=2), default=20)
    parser.add_argument("--per-session", type=POSITIVE_INT, default=100)
    parser.add_argument(
        "--l2-grid", type=NON_NEGATIVE, nargs="+", default=[10.0, 30.0, 100.0, 300.0]
    )


def run(args: argparse.Namespace) -> None:
    """Generate, choose λ on held-out sessions, fit three ways, print correlations and ARI."""
    if args.blocs > args.countries:
        raise AssemblyGymError(f"--blocs {args.blocs} is more than --countries {args.countries}")
    config = SyntheticConfig(
        n_countries=args.countries,
        n_blocs=args.blocs,
        n_sessions=args.sessions,
        roll_calls_per_session=args.per_session,
        seed=args.seed,
    )
    assembly = generate_assembly(config)
    data = assembly.data
    print(
        f"Synthetic assembly: {data.n_countries} countries, {args.blocs} blocs, "
        f"{data.n_roll_calls} roll calls, {int((data.votes >= 0).sum())} votes, seed {args.seed}."
    )
    content = content_names(config.features)
    planted = assembly.theta[:, :, : 1 + len(content)]  # bias + content (history weights are 0)

    def fit(on: RollCallData, l2: float, **options):
        return fit_reward_model(
            on, kind="linear", l2=l2, reward_features=content, standard_errors=False, **options
        )

    # Blocs without the truth: cluster a global-shrinkage fit.
    first = fit(data, args.l2_grid[0], shrinkage="global")
    found = dict(
        zip(first.countries, cluster_rewards(first.theta, args.blocs).tolist(), strict=True)
    )
    # λ without the truth: held-out likelihood of the last quarter of the sessions.
    last_train = int(data.sessions[int(len(data.sessions) * 0.75) - 1])
    train, test = data.temporal_split(last_train)
    scores = {
        l2: _heldout_loglik(fit(train, l2, shrinkage="bloc", blocs=found), train, test)
        for l2 in args.l2_grid
    }
    l2 = max(scores, key=scores.__getitem__)
    listed = ", ".join(f"λ={k:g}: {v:.4f}" for k, v in scores.items())
    print(
        f"λ by held-out log-likelihood (fit ≤ {last_train}, score the rest): {listed} → λ = {l2:g}"
    )
    label = f"prior (λ = {l2:g})"
    print(f"{label:<34} {'median r':>9} {'p10 r':>7} {'ARI':>6} {'fit s':>7}")

    truth = {c: assembly.bloc_of(c) for c in data.country_names}
    for label, options in (
        ("global mean", {"shrinkage": "global"}),
        ("bloc mean (blocs from clustering)", {"shrinkage": "bloc", "blocs": found}),
        ("bloc mean (planted blocs, oracle)", {"shrinkage": "bloc", "blocs": truth}),
    ):
        began = time.perf_counter()
        model = fit(data, l2, **options)
        seconds = time.perf_counter() - began
        corr = reward_correlations(model.theta, planted)
        ari = adjusted_rand_score(assembly.blocs, cluster_rewards(model.theta, args.blocs))
        print(
            f"{label:<34} {np.median(corr):>9.3f} {np.percentile(corr, 10):>7.3f} {ari:>6.3f} "
            f"{seconds:>7.1f}",
            flush=True,
        )
    print("\nr: Pearson correlation of a country's learned and planted weights (bias + content);")
    print("ARI: Ward clustering of the learned weights against the planted blocs.")
    print("Goals: median r ≥ 0.95, ARI ≥ 0.9.")
