"""Rollout consistency: PPO trained in ``Simulator-v0`` and in the data-driven env.

An ``MLPEnsemble`` is trained on 60 % of the synthetic default assembly's resolutions (20 %
for early stopping; ``--sessions``: a shorter assembly) and run as ``Simulator-v0``;
``Deliberation-v0`` is the data-driven env. Reward in both: vote with the winning side of s'
(+1 for a YES or NO vote on it, −1 on the losing side, else 0; at most 2 per episode). SB3
PPO (``--learning-rate``, ``--n-steps``, ``--ent-coef``, ``--gamma``, or ``--config`` with
``assembly-gym sweep ppo``'s best.json) is trained in each env per seed of ``--seeds``;
every agent and two baselines (a random valid action; always YES) are evaluated for
``--episodes`` episodes in both envs. Goal: the agent trained in the simulator is within 5 %
of the agent trained in the data env, both evaluated there.

Run: ``assembly-gym experiment worldmodel_ppo [--seeds 0 1 2] [--timesteps 30000]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3 import PPO

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.benchmarks.commands.arguments import (
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    SEED,
    Number,
    add_config_flag,
)
from assembly_gym.benchmarks.experiments import add_model_arguments, synthetic_assembly
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.data import ADOPTION
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.legislative.transitions import deliberation_transitions
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.transitions import split_transitions

__all__ = ["WinningSide", "add_arguments", "evaluate_policy", "ppo_settings", "run"]

Policy = Callable[[np.ndarray, np.ndarray, np.random.Generator], int]


class WinningSide:
    """+1 for a YES or NO vote on the winning side of s', −1 on the losing side, else 0."""

    def __init__(self, layout: ObservationLayout) -> None:
        self.stage = {name: layout.index(f"stage_{name}") for name in ("committee", "plenary")}
        self.shares = {name: layout.indices([f"{name}_yes", f"{name}_no"]) for name in self.stage}

    def __call__(self, obs: np.ndarray, action: int, next_obs: np.ndarray, info: dict) -> float:
        """The reward of one step (the env signature)."""
        for name, index in self.stage.items():
            if obs[index] > 0.5:
                yes, no = next_obs[self.shares[name]]
                if action in (Action.YES, Action.NO):
                    return 1.0 if (action == Action.YES) == ADOPTION.passed(yes, no) else -1.0
        return 0.0


def evaluate_policy(
    env: gym.Env,
    policy: Policy,
    episodes: int,
    seed: int,
    resolutions: Sequence[int] | None = None,
) -> tuple[float, float]:
    """Mean return and its standard error over ``episodes`` episodes (seeded).

    Args:
        env: the env (``Deliberation-v0`` when ``resolutions`` is given).
        policy: the actions.
        episodes: how many episodes.
        seed: seed of the episodes and of the policy's draws.
        resolutions: resolution ids that the episodes go through in turn (None: the env's
            random choice).
    """
    rng = np.random.default_rng(seed)
    returns = []
    for episode in range(episodes):
        options = {"resolution": resolutions[episode % len(resolutions)]} if resolutions else None
        obs, info = env.reset(seed=seed * 100_000 + episode, options=options)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(
                policy(obs, info["action_mask"], rng)
            )
            total, done = total + float(reward), terminated or truncated
        returns.append(total)
    values = np.asarray(returns)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))


def ppo_policy(agent: PPO) -> Policy:
    """The agent's deterministic action."""
    return lambda obs, mask, rng: int(agent.predict(obs, deterministic=True)[0])


def random_policy(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    """A valid action at random."""
    return int(rng.choice(np.flatnonzero(mask)))


def always_yes(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    """YES at votes, not cosponsoring at the draft."""
    return int(Action.YES if mask[Action.YES] else Action.NO_ACTION)


def ppo_settings(
    learning_rate: float = 3e-4, n_steps: int = 512, ent_coef: float = 0.0, gamma: float = 0.99
) -> dict[str, Any]:
    """PPO's keyword arguments: the four tuned (``assembly-gym sweep ppo``) and the fixed ones."""
    return dict(n_steps=int(n_steps), batch_size=128, n_epochs=10, learning_rate=learning_rate,
                ent_coef=ent_coef, gamma=gamma, device="cpu", verbose=0)  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """PPO seeds, steps and hyperparameters, evaluation episodes, the model's epochs."""
    parser.add_argument("--seeds", type=SEED, nargs="+", default=[0, 1, 2], help="PPO seeds")
    parser.add_argument(
        "--timesteps", type=POSITIVE_INT, default=30_000, help="PPO steps per agent"
    )
    parser.add_argument(
        "--episodes",
        type=Number(int, low=2),  # the standard error needs two
        default=2000,
        help="evaluation episodes",
    )
    add_model_arguments(parser, sessions="sessions of the synthetic assembly (default 20)")
    ppo = parser.add_argument_group("PPO hyperparameters (`assembly-gym sweep ppo` tunes them)")
    ppo.add_argument("--learning-rate", type=POSITIVE, default=3e-4, help="(default 3e-4)")
    ppo.add_argument("--n-steps", type=Number(int, low=2), default=512,
                     help="steps per rollout (default 512)")  # fmt: skip
    ppo.add_argument("--ent-coef", type=NON_NEGATIVE, default=0.0, help="entropy bonus (default 0)")
    ppo.add_argument("--gamma", type=Number(float, low=0, high=1), default=0.99,
                     help="discount (default 0.99)")  # fmt: skip
    add_config_flag(parser, "experiment worldmodel_ppo")
    parser.set_defaults(threads=1)  # small nets gain nothing from a second thread


def run(args: argparse.Namespace) -> None:
    """Train, evaluate and print the returns table and the goal."""
    start = time.perf_counter()
    data = synthetic_assembly(args)
    train, validation, _ = split_transitions(deliberation_transitions(data), seed=args.seed)
    model = MLPEnsemble(seed=args.seed, max_epochs=args.max_epochs).fit(
        train, validation=validation
    )
    print(f"MLPEnsemble fitted on {len(train):,} synthetic transitions in "
          f"{time.perf_counter() - start:.1f} s (validation {len(validation):,})")  # fmt: skip
    reward = WinningSide(ObservationLayout(model.obs_names))
    make: dict[str, Callable[[], gym.Env]] = {
        "Deliberation-v0": lambda: gym.make(
            "assembly/Deliberation-v0", data=data, reward_fn=reward
        ),
        "Simulator-v0": lambda: gym.make("assembly/Simulator-v0", model=model, reward_fn=reward),
    }
    hyper = ppo_settings(args.learning_rate, args.n_steps, args.ent_coef, args.gamma)
    print(f"PPO {hyper}, {args.timesteps:,} steps per agent; evaluation: {args.episodes} "
          f"episodes per (policy, env), deterministic agents")  # fmt: skip
    rows: list[dict[str, Any]] = []
    for seed in args.seeds:
        policies: dict[str, Policy] = {}
        for trained_in, factory in make.items():
            begin = time.perf_counter()
            agent = PPO("MlpPolicy", factory(), seed=seed, **hyper).learn(args.timesteps)
            policies[f"PPO trained in {trained_in}"] = ppo_policy(agent)
            seconds = time.perf_counter() - begin
            print(f"seed {seed}: PPO in {trained_in} trained in {seconds:.0f} s", flush=True)
        if seed == args.seeds[0]:
            policies |= {"random valid action": random_policy, "always YES": always_yes}
        for name, policy in policies.items():
            row = {"seed": seed, "policy": name}
            for env_name, factory in make.items():
                row[env_name] = evaluate_policy(factory(), policy, args.episodes, seed=1000 + seed)
            rows.append(row)

    print("\n| seed | policy | return in Deliberation-v0 | return in Simulator-v0 |")
    print("|---:|:---|---:|---:|")
    for row in rows:
        cells = [f"{row[e][0]:.4f} ± {row[e][1]:.4f}" for e in make]
        print(f"| {row['seed']} | {row['policy']} | {cells[0]} | {cells[1]} |")
    data_agent = [r["Deliberation-v0"][0] for r in rows if r["policy"].endswith("Deliberation-v0")]
    sim_agent = [r["Deliberation-v0"][0] for r in rows if r["policy"].endswith("Simulator-v0")]
    sim_view = [r["Simulator-v0"][0] for r in rows if r["policy"].endswith("Simulator-v0")]
    gap = (np.mean(sim_agent) - np.mean(data_agent)) / np.mean(data_agent)
    print(f"\nmean over seeds {args.seeds}: agent trained in the data env "
          f"{np.mean(data_agent):.4f}, agent trained in the simulator {np.mean(sim_agent):.4f} "
          f"(both evaluated in Deliberation-v0): relative gap {100 * gap:+.2f} %")  # fmt: skip
    model_gap = (np.mean(sim_view) - np.mean(sim_agent)) / np.mean(sim_agent)
    print(f"the simulator's own estimate of its agent's return: {np.mean(sim_view):.4f} "
          f"({100 * model_gap:+.2f} % against the data env)")  # fmt: skip
    print(f"goal (within 5 %): {'met' if abs(gap) <= 0.05 else 'NOT met'}")
