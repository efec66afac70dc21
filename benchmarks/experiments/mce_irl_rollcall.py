"""imitation's MCE-IRL on roll calls against our linear MaxEnt IRL: same model, same votes.

The synthetic suite's ``imitation MCE-IRL`` row
(:class:`assembly_gym.agents.imitation_agents.MCEIRLAgent`) learns a multinomial logit from
each country's last ``--max-decisions`` training roll calls. On the embedded synthetic
assembly (``--quick``: the suite's small one) for its first ``--countries`` countries, all on
the same decisions: imitation's MCEIRL as the agent runs it (prior precision ``--l2``); our
exact L-BFGS fit with the same prior (the optimum imitation should reach: the gap of its
penalised log-likelihood per vote and the largest weight difference); the linear reward
(``maxent-irl (linear)``, :class:`~assembly_gym.agents.irl_agent.RewardModelAgent`) on the
same windows and on all training votes; the majority and a uniform guess. Printed: held-out
log-loss, accuracy and fit time per method (one thread each, ``--threads 1``).

Run: ``assembly-gym experiment mce_irl_rollcall [--countries 10] [--max-decisions 200] [--seed 0]``
"""

from __future__ import annotations

import argparse
import functools
import time
from dataclasses import replace
from typing import cast

import numpy as np

from assembly_gym.agents.baselines import MajorityAgent
from assembly_gym.agents.imitation_agents import MCEIRLAgent
from assembly_gym.agents.irl_agent import LinearRewardAgent, RewardModelAgent
from assembly_gym.benchmarks.commands.arguments import NON_NEGATIVE, POSITIVE_INT
from assembly_gym.benchmarks.suites import SUITES, Options
from assembly_gym.benchmarks.suites.base import Task, build_task
from assembly_gym.envs.legislative.demonstrations import Demonstration
from assembly_gym.irl.maxent import decision_problem, fit_maxent

__all__ = ["add_arguments", "run"]


def _window(task: Task, country: str, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A country's last ``size`` training decisions: obs (N, d), actions (N,), masks (N, A)."""
    obs, acts, masks = Demonstration.stack(task.train[country])
    return obs[-size:], acts[-size:], masks[-size:]


def _as_demo(task: Task, country: str, window: tuple[np.ndarray, np.ndarray, np.ndarray]):
    """The window as one demonstration (the batched fit takes demonstrations)."""
    obs, acts, masks = window
    first = task.train[country][0]
    return replace(first, obs=np.vstack([obs, obs[-1:]]), acts=acts, masks=masks, infos=())


def _penalised_loglik(theta: np.ndarray, obs: np.ndarray, acts: np.ndarray, l2: float) -> float:
    """Mean log-likelihood per vote minus the prior's λ/2 ‖θ‖² / N (the common objective)."""
    agent = LinearRewardAgent(theta.shape[0])
    agent.theta_ = theta - theta.mean(axis=0)
    probs = agent.action_probs(obs)
    loglik = np.log(probs[np.arange(len(acts)), acts]).mean()
    return float(loglik - 0.5 * l2 * np.sum(agent.theta_**2) / len(acts))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Countries, the training window and the prior; one thread by default."""
    parser.add_argument(
        "--countries", type=POSITIVE_INT, default=10, help="the suite's first K countries"
    )
    parser.add_argument(
        "--max-decisions", type=POSITIVE_INT, default=200, help="training window (votes)"
    )
    parser.add_argument(
        "--l2", type=NON_NEGATIVE, default=1.0, help="prior precision (raw weights)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="the synthetic suite's small assembly (a smoke test)"
    )
    parser.set_defaults(threads=1)


def run(args: argparse.Namespace) -> None:
    """Fit every method on the same windows and print one table."""
    task = build_task(SUITES["synthetic"], Options(seed=args.seed, quick=args.quick))
    countries = task.countries[: args.countries]
    windows = {c: _window(task, c, args.max_decisions) for c in countries}
    rows: dict[str, dict[str, list]] = {}

    def record(name: str, country: str, agent, seconds: float) -> None:
        obs, acts, masks = task.test_arrays(country)
        probs = agent.action_probs(obs, masks)
        row = rows.setdefault(name, {"loss": [], "hit": [], "seconds": []})
        row["loss"].append(-np.log(probs[np.arange(len(acts)), acts]))
        row["hit"].append(probs.argmax(axis=1) == acts)
        row["seconds"].append(seconds)

    gaps, differences = [], []
    linear = functools.partial(
        RewardModelAgent.fit_countries, layout=task.layout, kind="linear", standard_errors=False
    )
    began = time.perf_counter()
    window_fit = linear({c: [_as_demo(task, c, windows[c])] for c in countries})
    window_seconds = (time.perf_counter() - began) / len(countries)
    began = time.perf_counter()
    full_fit = linear({c: task.train[c] for c in countries})
    full_seconds = (time.perf_counter() - began) / len(countries)
    for country in countries:
        obs, acts, masks = windows[country]
        test_obs, _, test_masks = task.test_arrays(country)
        began = time.perf_counter()
        mce = MCEIRLAgent(
            task.n_actions, max_decisions=args.max_decisions, l2=args.l2, seed=args.seed
        ).fit(task.train[country])
        record("imitation MCE-IRL", country, mce, time.perf_counter() - began)
        began = time.perf_counter()
        fit = fit_maxent(
            *decision_problem([obs], [acts], [masks]), l2=args.l2, shrinkage="none",
            standardise=False, standard_errors=False, tol=1e-8,
        )  # fmt: skip
        exact = LinearRewardAgent(task.n_actions)
        exact.theta_ = fit.theta[0]
        record("ours (exact L-BFGS), same prior", country, exact, time.perf_counter() - began)
        exact_theta, mce_theta = fit.theta[0], cast(np.ndarray, mce.theta_)  # both fitted
        gaps.append(
            _penalised_loglik(exact_theta, obs, acts, args.l2)
            - _penalised_loglik(mce_theta, obs, acts, args.l2)
        )
        differences.append(np.abs(mce_theta - mce_theta.mean(axis=0) - exact_theta).max())
        record("maxent-irl (linear), same window", country, window_fit[country], window_seconds)
        record("maxent-irl (linear), all training votes", country, full_fit[country],
               full_seconds)  # fmt: skip
        record("majority", country, MajorityAgent(task.n_actions).fit(task.train[country]), 0.0)
    n_test = sum(len(task.test_arrays(c)[1]) for c in countries)
    print(
        f"Synthetic assembly (seed {args.seed}): {task.split}. Countries: the suite's first "
        f"{len(countries)}; training window: each one's last {args.max_decisions} votes; "
        f"{n_test} held-out votes. Prior precision {args.l2} on raw weights (both fits). "
        f"Uniform guess: log-loss {np.log(task.n_actions):.4f}."
    )
    print("\n| method | held-out log-loss | accuracy | fit s (sum) |\n|:--|--:|--:|--:|")
    for name, row in rows.items():
        loss, hit = np.concatenate(row["loss"]).mean(), np.concatenate(row["hit"]).mean()
        print(f"| {name} | {loss:.4f} | {hit:.3f} | {np.sum(row['seconds']):.2f} |")
    print(
        f"\nimitation's gap to the exact optimum, penalised log-likelihood per vote: median "
        f"{np.median(gaps):.1e}, max {np.max(gaps):.1e} nats; largest weight difference: "
        f"median {np.median(differences):.1e}, max {np.max(differences):.1e}."
    )
