"""An RL agent (SB3 PPO) choosing reads on ``assembly/MemoryDynamics-v0``, beside fixed readers.

PPO learns from the env's reward in the world of a trained LeWorld ``--checkpoint``; every
reader (random reads, PPO, the trained SLM's most confident read, the oracle's first relevant
window) is scored on the same held-out episodes (env seeds 10,000 …): mean reward per step
with a 95 % t interval over episodes, hit rate, and the mean noise floor.

Run: ``assembly-gym experiment leworld_rl --checkpoint runs/leworld [--timesteps 200000]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from scipy import stats
from stable_baselines3 import PPO

from assembly_gym.benchmarks.commands.arguments import POSITIVE_INT, Number
from assembly_gym.benchmarks.suites.memory import EVAL_SEED, first_window, play
from assembly_gym.envs.memory import MemoryDynamicsEnv, MemoryWorld
from assembly_gym.world_models.leworld.model import LeWorldModel

__all__ = ["add_arguments", "evaluate_reader", "run"]

Reader = Callable[[np.ndarray, MemoryDynamicsEnv], np.ndarray]


def evaluate_reader(reader: Reader, world: MemoryWorld, episodes: int) -> dict[str, float]:
    """Mean reward per step (with a 95 % CI over episodes), hit rate and noise floor."""
    scores = play(world, range(EVAL_SEED, EVAL_SEED + episodes), reader).scores
    means = scores["reward"]  # one per episode
    half = stats.t.ppf(0.975, len(means) - 1) * means.std(ddof=1) / np.sqrt(len(means))
    return {
        "reward": float(means.mean()),
        "half_width": float(half),
        "hit_rate": float(scores["hit_rate"].mean()),
        "noise_floor": float(scores["noise_floor"].mean()),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The checkpoint, PPO's steps and the evaluation episodes; one thread by default."""
    parser.add_argument(
        "--checkpoint", required=True, help="a folder written by `assembly-gym leworld train`"
    )
    parser.add_argument("--timesteps", type=POSITIVE_INT, default=200_000,
                        help="PPO training steps (default 200,000)")  # fmt: skip
    # --episodes: the interval's standard deviation needs two
    parser.add_argument("--episodes", type=Number(int, low=2), default=200,
                        help="held-out evaluation episodes (default 200)")  # fmt: skip
    parser.set_defaults(threads=1)


def run(args: argparse.Namespace) -> None:
    """Train PPO, evaluate every reader on the same episodes, print the table."""
    leworld = LeWorldModel.load(args.checkpoint)
    started = time.perf_counter()
    model = PPO("MlpPolicy", MemoryDynamicsEnv(world=leworld.world), seed=args.seed, verbose=0,
                device="cpu")  # fmt: skip
    model.learn(total_timesteps=args.timesteps)
    ppo_minutes = (time.perf_counter() - started) / 60
    sample_rng = np.random.default_rng(args.seed)
    nvec = MemoryDynamicsEnv(world=leworld.world).action_space.nvec

    def ppo(obs: np.ndarray, env: MemoryDynamicsEnv) -> np.ndarray:
        return model.predict(obs, deterministic=True)[0]

    readers: dict[str, Reader] = {
        "random reads": lambda obs, env: (sample_rng.random(3) * nvec).astype(np.int64),
        f"PPO ({args.timesteps:,} steps)": ppo,
        "trained SLM (most confident)": lambda obs, env: leworld.choose_reads(obs)[0],
        "oracle (first relevant window)": first_window,
    }
    cfg = leworld.world_config
    print(
        f"MemoryDynamics-v0 ({cfg.difficulty}, {cfg.population} memory of {cfg.num_words} words), "
        f"{args.episodes} held-out episodes (env seeds {EVAL_SEED}…), PPO seed {args.seed}, "
        f"PPO training {ppo_minutes:.1f} min"
    )
    print("| reader | mean reward per step | 95 % CI | hit rate |")
    print("|---|---|---|---|")
    floor = None
    for name, reader in readers.items():
        result = evaluate_reader(reader, leworld.world, args.episodes)
        floor = result["noise_floor"]
        low, high = result["reward"] - result["half_width"], result["reward"] + result["half_width"]
        print(
            f"| {name} | {result['reward']:+.5f} | [{low:+.5f}, {high:+.5f}] "
            f"| {result['hit_rate']:.3f} |"
        )
    print(f"noise floor (mean −ε²): {floor:+.5f}")
