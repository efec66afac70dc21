"""Env steps per second of every ``assembly/`` env, single and vectorised, beside CartPole-v1.

Single envs are made with ``gym.make``, vectorised ones with ``gym.make_vec`` in the mode
that builds the native batched versions (:func:`assembly_gym.envs.registration.make_native_vec`),
all in the same run. Each is stepped with a fixed action that is valid in every state, so the
loop measures the env, not an agent; a vectorised step of N sub-envs counts as N steps. Ratios
are to CartPole-v1. A Deliberation-v0 step also draws the response of every other country
(about 190 on the real data, 40 on the synthetic default): its rate is also printed in
country decisions per second.

Run: ``assembly-gym experiment throughput [--seconds 3] [--num-envs 1024]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium as gym
import numpy as np

import assembly_gym  # noqa: F401  (registers the assembly/ ids)
from assembly_gym.envs.registration import make_native_vec

__all__ = ["add_arguments", "measure", "measure_vector", "run"]

ENVS = {  # env id → an action valid in every state
    "CartPole-v1": 0,
    "assembly/RollCall-v0": 0,  # YES
    "assembly/Deliberation-v0": 4,  # NO_ACTION
    "assembly/Simulator-v0": 4,  # NO_ACTION, in a simulator of Deliberation-v0
    "assembly/MemoryDynamics-v0": np.array([0, 0, 15]),  # read words 0–15
}
VECTOR_ENVS = ("assembly/RollCall-v0", "assembly/Deliberation-v0")


def _env_kwargs(env_id: str) -> dict[str, Any]:
    """Arguments of ``gym.make``: Simulator-v0 runs an EmpiricalModel of the synthetic data."""
    if env_id != "assembly/Simulator-v0":
        return {}
    from assembly_gym.world_models import EmpiricalModel, deliberation_transitions

    return {"model": EmpiricalModel().fit(deliberation_transitions())}


def measure(env_id: str, action: Any, seconds: float = 3.0, seed: int = 0) -> float:
    """Steps per second of one env over ``seconds`` of wall time (after one warm-up episode)."""
    env = gym.make(env_id, **_env_kwargs(env_id))
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


def measure_vector(
    env_id: str, action: int, num_envs: int, seconds: float = 3.0, seed: int = 0
) -> float:
    """Sub-env steps per second of a native vector env (after a few warm-up steps)."""
    venv = make_native_vec(env_id, num_envs)
    venv.reset(seed=seed)
    actions = np.full(num_envs, action)
    for _ in range(10):
        venv.step(actions)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(actions)
        steps += num_envs
    return steps / (time.perf_counter() - start)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The wall time per env and the vector envs' size."""
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per env")
    parser.add_argument("--num-envs", type=int, default=1024, help="sub-envs of the vector envs")


def run(args: argparse.Namespace) -> None:
    """Print steps per second and the ratio to CartPole-v1."""
    rates = {
        env_id: measure(env_id, action, args.seconds, args.seed) for env_id, action in ENVS.items()
    }
    for env_id in VECTOR_ENVS:
        label = f"{env_id} ×{args.num_envs} (vector)"
        rates[label] = measure_vector(env_id, ENVS[env_id], args.num_envs, args.seconds, args.seed)
    reference = rates["CartPole-v1"]
    print(f"{'env':<44} {'steps/s':>12} {'× CartPole-v1':>14}")
    for env_id, rate in rates.items():
        print(f"{env_id:<44} {rate:>12,.0f} {rate / reference:>14.2f}")
    voters = gym.make("assembly/Deliberation-v0").unwrapped.records.n_countries
    for env_id in [e for e in rates if e.startswith("assembly/Deliberation-v0")]:
        print(f"{env_id}: {rates[env_id] * voters:,.0f} country decisions/s ({voters} countries)")
