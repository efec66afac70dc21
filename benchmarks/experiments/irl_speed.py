"""Speed of exact MaxEnt IRL against imitation's ``MCEIRL`` on the same tabular MDPs and data.

Random MDPs (``--states``, 5 actions, 5 successors per (s, a), ``--horizons``), 8 Gaussian
state features, a known state reward r(s) = θ*·x(s), 1,000 training and 1,000 held-out
trajectories of its soft-optimal policy. Printed per MDP: wall time to the solution (ours:
``fit_maxent``, best of 3; imitation's ``MCEIRL.train`` with its defaults, in a child
process stopped after ``--time-limit`` s), the speed-up, each solution's training
log-likelihood gap to the exact optimum, and the held-out log-likelihood per step (beside
the true reward's). imitation's reward is state-only and its gradient counts H + 1 states
while its planner rewards H (a bias at short horizons).

Run: ``assembly-gym experiment irl_speed [--seed 0] [--time-limit 300] [--states 50 500 5000]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from assembly_gym.benchmarks.commands.arguments import POSITIVE, POSITIVE_INT
from assembly_gym.irl.imitation_compat import run_mce_irl
from assembly_gym.irl.maxent import ExpertStatistics, fit_maxent
from assembly_gym.irl.mdp import (
    LinearFeatures,
    TabularMDP,
    random_mdp,
    sample_trajectories,
    soft_value_iteration,
)

__all__ = ["add_arguments", "run", "run_one"]

N_ACTIONS, N_FEATURES, N_TRAJECTORIES, REPEATS = 5, 8, 1000, 3


def _loglik_per_step(
    mdp: TabularMDP, rewards: np.ndarray, states: np.ndarray, actions: np.ndarray
) -> tuple[float, float]:
    """(MaxEnt training objective, mean log π_t(a_t | s_t)) per step of trajectories."""
    policy = soft_value_iteration(mdp, rewards)
    horizon = actions.shape[1]
    steps = actions.size
    objective = (
        rewards[states[:, :horizon], actions].sum() - policy.values[0, states[:, 0]].sum()
    ) / steps
    t = np.arange(horizon)[None, :]
    heldout = policy.log_policy[t, states[:, :horizon], actions].sum() / steps
    return float(objective), float(heldout)


def run_one(n_states: int, horizon: int, seed: int, time_limit: float) -> dict[str, float]:
    """One MDP: both methods, timed and scored."""
    rng = np.random.default_rng(seed)
    mdp = random_mdp(n_states, N_ACTIONS, horizon, rng)
    observations = rng.normal(size=(n_states, N_FEATURES))
    true_theta = rng.normal(size=N_FEATURES)
    true_rewards = np.repeat((observations @ true_theta)[:, None], N_ACTIONS, axis=1)
    start = np.full(n_states, 1.0 / n_states)
    expert_policy = soft_value_iteration(mdp, true_rewards)
    train = sample_trajectories(mdp, expert_policy, start, N_TRAJECTORIES, rng)
    test = sample_trajectories(mdp, expert_policy, start, N_TRAJECTORIES, rng)

    features = LinearFeatures(np.repeat(observations[:, None, :], N_ACTIONS, axis=1), N_ACTIONS,
                              np.zeros(n_states, dtype=np.int64))  # fmt: skip
    ours_seconds = np.inf
    for _ in range(REPEATS):  # best of a few runs: ms-scale timings are noisy
        began = time.perf_counter()
        expert = ExpertStatistics.from_trajectories(*train, n_states, N_ACTIONS)
        ours = fit_maxent(mdp, features, expert, l2=0.0, shrinkage="none", standard_errors=False)
        ours_seconds = min(ours_seconds, time.perf_counter() - began)
    exact = fit_maxent(mdp, features, expert, l2=0.0, shrinkage="none", standard_errors=False,
                       tol=1e-10, max_iter=20000)  # fmt: skip

    def scores(theta: np.ndarray) -> tuple[float, float]:
        rewards = features.rewards(theta)
        return _loglik_per_step(mdp, rewards, *train)[0], _loglik_per_step(mdp, rewards, *test)[1]

    optimum, _ = scores(exact.theta)
    ours_train, ours_test = scores(ours.theta)
    _, truth_test = _loglik_per_step(mdp, true_rewards, *test)
    imitation = run_mce_irl(mdp, observations, start, *train, seed=seed, time_limit=time_limit)
    row = {
        "states": n_states,
        "horizon": horizon,
        "ours_s": ours_seconds,
        "imitation_s": imitation.seconds,
        "imitation_finished": imitation.finished,
        "ours_gap": optimum - ours_train,
        "ours_heldout": ours_test,
        "truth_heldout": truth_test,
        "imitation_gap": np.nan,
        "imitation_heldout": np.nan,
    }
    if imitation.state_reward is not None:  # it finished in time
        rewards = np.repeat(imitation.state_reward[:, None], N_ACTIONS, axis=1)
        row["imitation_gap"] = optimum - _loglik_per_step(mdp, rewards, *train)[0]
        row["imitation_heldout"] = _loglik_per_step(mdp, rewards, *test)[1]
    return row


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The MDP sizes and horizons, and imitation's time limit."""
    parser.add_argument("--time-limit", type=POSITIVE, default=300.0,
                        help="seconds before imitation's MCEIRL is stopped")  # fmt: skip
    parser.add_argument("--states", type=POSITIVE_INT, nargs="+", default=[50, 500, 5000])
    parser.add_argument("--horizons", type=POSITIVE_INT, nargs="+", default=[4, 20])


def run(args: argparse.Namespace) -> None:
    """Run every MDP size and horizon and print one table."""
    run_one(10, 2, args.seed, time_limit=60.0)  # warm-up: imports, BLAS discovery (both sides)
    print(
        f"Random tabular MDPs, {N_ACTIONS} actions, {N_FEATURES} features, "
        f"{N_TRAJECTORIES} training + {N_TRAJECTORIES} held-out trajectories, seed {args.seed}; "
        f"imitation MCEIRL defaults, stopped after {args.time_limit:.0f} s."
    )
    print(
        "gap = exact ML optimum − solution, training log-likelihood (nats/step); held-out: "
        "mean log π(a|s) per step.\n"
    )
    header = (
        f"{'states':>6} {'H':>3} {'ours s':>8} {'imit. s':>9} {'speed-up':>9} "
        f"{'ours gap':>9} {'imit. gap':>9} {'ours held-out':>13} {'imit. held-out':>14} "
        f"{'true held-out':>13}"
    )
    print(header)
    for n_states in args.states:
        for horizon in args.horizons:
            r = run_one(n_states, horizon, args.seed, args.time_limit)
            finished = r["imitation_finished"]
            imit_s = f"{r['imitation_s']:.2f}" if finished else f">{r['imitation_s']:.0f}"
            speed = ("" if finished else "≥") + f"{r['imitation_s'] / r['ours_s']:.0f}×"
            print(
                f"{r['states']:>6} {r['horizon']:>3} {r['ours_s']:>8.3f} {imit_s:>9} {speed:>9} "
                f"{r['ours_gap']:>9.1e} {r['imitation_gap']:>9.1e} {r['ours_heldout']:>13.5f} "
                f"{r['imitation_heldout']:>14.5f} {r['truth_heldout']:>13.5f}",
                flush=True,
            )
