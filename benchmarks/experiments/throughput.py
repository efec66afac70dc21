"""Env steps per second of every ``assembly/`` env, single and vectorised, beside CartPole-v1.

Single envs are made with ``gym.make``. Each env with a native batched version is also run
vectorised, at each ``--num-envs`` size, two ways under the statistics wrapper
(``RecordEpisodeStatistics``, as in training) and the same-step autoreset rule (the one both
Gymnasiums have): the native version (:func:`assembly_gym.envs.registration.make_native_vec`)
and Gymnasium's ``SyncVectorEnv`` of the single env; the ratio of the two is printed. All in
the same run. Each env is stepped with a fixed action that is valid in every state, so the
loop measures the env, not an agent; a vectorised step of N sub-envs counts as N steps. Ratios
are to CartPole-v1. A Deliberation-v0 step also draws the response of every other country
(about 190 on the real data, 40 on the synthetic default): its rate is also printed in
country decisions per second. The multi-agent ``assembly_v0`` (every member state votes at
each step) is measured in agent decisions per second (:func:`measure_agents`).
Last, the cost of recording: milliseconds per "rgb_array" frame
of each single env, one frame after every step, beside its milliseconds per step.

Run: ``assembly-gym experiment throughput [--seconds 3] [--num-envs 64 1024]``
"""

from __future__ import annotations

import argparse
import copy
import time
from typing import Any

import gymnasium as gym
import numpy as np

import assembly_gym  # noqa: F401  (registers the assembly/ ids)
from assembly_gym.benchmarks.commands.arguments import POSITIVE, POSITIVE_INT
from assembly_gym.envs import assembly_v0
from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.sources import DataSpec
from assembly_gym.envs.registration import make_native_vec
from assembly_gym.envs.vector_api import SAME_STEP, VectorEpisodeStatistics, sync_vector_env

__all__ = ["add_arguments", "measure", "measure_agents", "measure_frames", "measure_vector", "run"]

ENVS: dict[str, Any] = {  # env id → an action valid in every state
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


def measure_frames(env_id: str, action: Any, seconds: float = 3.0, seed: int = 0) -> float:
    """Milliseconds per "rgb_array" frame of one env, rendered after every step, as recorded.

    Only the ``render()`` calls are timed, over ``seconds`` of wall time, after a first frame
    (which builds the env's cached background).
    """
    env = gym.make(env_id, render_mode="rgb_array", **_env_kwargs(env_id))
    env.reset(seed=seed)
    env.render()
    frames, spent, start = 0, 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
        before = time.perf_counter()
        env.render()
        spent += time.perf_counter() - before
        frames += 1
    return 1e3 * spent / max(frames, 1)


def measure_vector(
    env_id: str, action: int, num_envs: int, seconds: float = 3.0, seed: int = 0,
    native: bool = True,
) -> float:  # fmt: skip
    """Sub-env steps per second of a vector env under ``RecordEpisodeStatistics``.

    Args:
        env_id: an id with a native batched version.
        action: the action of every sub-env at every step.
        num_envs: number of sub-envs N.
        seconds: wall time measured, after 10 warm-up steps.
        seed: reset seed.
        native: the native batched version, or Gymnasium's ``SyncVectorEnv`` of N single
            envs (copies of one made env: making each takes about 0.1 s); both same-step.
    """
    if native:
        venv = make_native_vec(env_id, num_envs, autoreset_mode=SAME_STEP)
    else:
        template = gym.make(env_id)
        venv = sync_vector_env([lambda: copy.deepcopy(template)] * num_envs, SAME_STEP)
    venv = VectorEpisodeStatistics(venv)
    venv.reset(seed=seed)
    actions = np.full(num_envs, action)
    for _ in range(10):
        venv.step(actions)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(actions)
        steps += num_envs
    rate = steps / (time.perf_counter() - start)
    venv.close()
    return rate


def measure_agents(
    seconds: float = 3.0, seed: int = 0, data: DataSpec = None
) -> tuple[float, float]:
    """Agent decisions per second of ``assembly_v0``'s parallel form, and agents per step.

    Every agent votes YES at every step; the whole session is played, episode after episode,
    over ``seconds`` of wall time after one warm-up episode (its features are then cached).
    """
    env = assembly_v0.parallel_env(data=data)
    env.reset(seed=seed)
    decisions, steps, start = 0, 0, None
    while True:
        if not env.agents:
            env.reset()
            if start is None:
                start, decisions, steps = time.perf_counter(), 0, 0
                continue
        decisions += len(env.agents)
        steps += 1
        env.step(dict.fromkeys(env.agents, 0))
        if start is not None and time.perf_counter() - start >= seconds:
            return decisions / (time.perf_counter() - start), decisions / steps


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The wall time per env and the vector envs' size."""
    parser.add_argument("--seconds", type=POSITIVE, default=3.0, help="wall time per env")
    parser.add_argument(
        "--num-envs",
        type=POSITIVE_INT,
        nargs="+",
        default=[64, 1024],
        help="sizes of the vector envs",
    )


def run(args: argparse.Namespace) -> None:
    """Print steps per second and the ratio to CartPole-v1."""
    rates = {
        env_id: measure(env_id, action, args.seconds, args.seed) for env_id, action in ENVS.items()
    }
    speedups = {}
    for env_id in VECTOR_ENVS:
        for n in args.num_envs:
            for native, kind in ((True, "vector"), (False, "SyncVectorEnv")):
                rates[f"{env_id} ×{n} ({kind})"] = measure_vector(
                    env_id, ENVS[env_id], n, args.seconds, args.seed, native=native
                )
            speedups[f"{env_id} ×{n}"] = (
                rates[f"{env_id} ×{n} (vector)"] / rates[f"{env_id} ×{n} (SyncVectorEnv)"]
            )
    reference = rates["CartPole-v1"]
    print(f"Gymnasium {gym.__version__}; vector envs under RecordEpisodeStatistics, same-step")
    print(f"{'env':<50} {'steps/s':>12} {'× CartPole-v1':>14}")
    for env_id, rate in rates.items():
        print(f"{env_id:<50} {rate:>12,.0f} {rate / reference:>14.2f}")
    for label, speedup in speedups.items():
        print(f"{label}: native vector env {speedup:,.1f}× SyncVectorEnv")
    voters = DeliberationEnv().records.n_countries  # gym.make's default data
    for env_id in [e for e in rates if e.startswith("assembly/Deliberation-v0")]:
        print(f"{env_id}: {rates[env_id] * voters:,.0f} country decisions/s ({voters} countries)")
    decisions, agents = measure_agents(args.seconds, args.seed)
    print(f"assembly_v0 (parallel, {agents:.0f} agents a step): {decisions:,.0f} agent decisions/s")
    print(f"{'env (rgb_array, a frame per step)':<50} {'ms/step':>10} {'ms/frame':>10}")
    for env_id, action in ENVS.items():
        try:
            frame = measure_frames(env_id, action, args.seconds, args.seed)
        except gym.error.DependencyNotInstalled:  # CartPole-v1 draws with pygame
            continue
        print(f"{env_id:<50} {1e3 / rates[env_id]:>10.3f} {frame:>10.3f}")
