"""Env steps per second of every ``assembly/`` env beside Gymnasium's CartPole-v1.

All envs are made with ``gym.make`` and stepped in the same run with a fixed action that
is always valid (so the loop measures the env, not an agent), resetting when an episode ends.

Run: ``python -m benchmarks.throughput [--seconds 3]``
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import envs  # noqa: F401  (registers the assembly/ ids)

__all__ = ["measure", "main"]

ENVS = {  # env id → an action valid in every state
    "CartPole-v1": 0,
    "assembly/RollCall-v0": 0,  # YES
    "assembly/Deliberation-v0": 4,  # NO_ACTION
}


def measure(env_id: str, action: int, seconds: float = 3.0, seed: int = 0) -> float:
    """Steps per second of one env over ``seconds`` of wall time (after one warm-up episode)."""
    env = gym.make(env_id)
    env.reset(seed=seed)
    steps, start = 0, None
    while True:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
            if start is None:  # first episode done: caches are warm
                start, steps = time.perf_counter(), 0
                continue
        steps += 1
        if start is not None and time.perf_counter() - start >= seconds:
            return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    """Print steps per second and the ratio to CartPole-v1."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per env")
    args = parser.parse_args(argv)
    rates = {env_id: measure(env_id, action, args.seconds) for env_id, action in ENVS.items()}
    reference = rates["CartPole-v1"]
    print(f"{'env':<28} {'steps/s':>12} {'× CartPole-v1':>14}")
    for env_id, rate in rates.items():
        print(f"{env_id:<28} {rate:>12,.0f} {rate / reference:>14.2f}")


if __name__ == "__main__":
    main()
