"""Env steps per second of every ``assembly/`` env, single and vectorised, beside CartPole-v1.

Each env is stepped with a fixed action valid in every state (the loop measures the env);
``Simulator-v0`` runs with an empirical model and a small MLP ensemble. Every id of
:data:`~assembly_gym.envs.registration.VECTOR_ENTRY_POINTS` is also run at each
``--num-envs`` size, native and as Gymnasium's ``SyncVectorEnv``, both same-step under
``RecordEpisodeStatistics`` (a step of N sub-envs counts as N). ``assembly_v0`` is measured in
agent decisions per second, as ``parallel_env`` and ``vector_env``. Every rate is printed as a
ratio to CartPole-v1's single-env rate, beside issue 16's goal; then Deliberation-v0 in
country decisions per second, and the milliseconds per "rgb_array" frame of each single env.

Run: ``assembly-gym experiment throughput [--seconds 3] [--num-envs 64 1024]``
"""

from __future__ import annotations

import argparse
import copy
import functools
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

import assembly_gym  # noqa: F401  (registers the assembly/ ids)
from assembly_gym.benchmarks.commands.arguments import POSITIVE, POSITIVE_INT
from assembly_gym.envs import assembly_v0
from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.sources import DataSpec
from assembly_gym.envs.registration import VECTOR_ENTRY_POINTS, make_native_vec
from assembly_gym.envs.vector_api import SAME_STEP, VectorEpisodeStatistics, sync_vector_env

__all__ = [
    "ENVS",
    "MODELS",
    "Row",
    "add_arguments",
    "cases",
    "env_kwargs",
    "measure",
    "measure_agents",
    "measure_agents_vector",
    "measure_frames",
    "measure_vector",
    "run",
    "vector_ids",
]

ENVS: dict[str, Any] = {  # env id → an action valid in every state
    "CartPole-v1": 0,
    "assembly/RollCall-v0": 0,  # YES
    "assembly/Deliberation-v0": 4,  # NO_ACTION
    "assembly/Simulator-v0": 4,  # NO_ACTION, in a simulator of Deliberation-v0
    "assembly/MemoryDynamics-v0": np.array([0, 0, 15]),  # read words 0–15
}
SIMULATOR = "assembly/Simulator-v0"
MODELS = ("empirical", "MLP ensemble")
"""The world models ``Simulator-v0`` runs: each id with a model is measured once per model."""

SINGLE_GOALS = {  # issue 16's goals, × CartPole-v1's single-env rate
    "assembly/RollCall-v0": 1.5,
    "assembly/Deliberation-v0": 0.5,
    "assembly/MemoryDynamics-v0": 0.5,
    f"{SIMULATOR} (empirical)": 0.2,
    f"{SIMULATOR} (MLP ensemble)": 0.05,
}
VECTOR_GOAL = (1024, 20.0)
"""(sub-envs, × CartPole-v1): every native vector env at 1,024 sub-envs."""
_DECISIONS = " (agent decisions)"  # the label of rows in agent decisions per second
AGENT_GOAL = 1_000_000
"""Agent decisions per second of the multi-agent env, batched at 1,024 sub-envs."""


@functools.lru_cache(maxsize=2)
def _model(kind: str) -> Any:
    """A world model of the synthetic resolutions, fitted once per process.

    The MLP ensemble has the default architecture (5 members, 32 × 32) and trains one short
    epoch on a tenth of the resolutions: its step costs what a fully trained one's costs.
    """
    from assembly_gym.envs.legislative.transitions import deliberation_transitions
    from assembly_gym.world_models import EmpiricalModel, MLPEnsemble

    data = deliberation_transitions()
    if kind == "empirical":
        return EmpiricalModel().fit(data)
    subset, _ = data.split_by_episode((0.1, 0.9), np.random.default_rng(0))
    return MLPEnsemble(max_epochs=1, epoch_rows=8192, threads=1).fit(subset)


def env_kwargs(env_id: str, model: str | None = None) -> dict[str, Any]:
    """The env's arguments, single and vectorised alike: Simulator-v0 gets its world model."""
    return {} if model is None else {"model": _model(model)}


def _label(env_id: str, model: str | None) -> str:
    return env_id if model is None else f"{env_id} ({model})"


def cases(env_ids: Any = ENVS) -> Iterator[tuple[str, str | None]]:
    """(env id, world model or None) of each env to measure: Simulator-v0 once per model."""
    for env_id in env_ids:
        yield from ((env_id, m) for m in MODELS) if env_id == SIMULATOR else [(env_id, None)]


def vector_ids() -> list[str]:
    """The ids with a native vector version that this experiment knows an action of."""
    return [env_id for env_id in VECTOR_ENTRY_POINTS if env_id in ENVS]


def measure(
    env_id: str, action: Any, seconds: float = 3.0, seed: int = 0, model: str | None = None
) -> float:
    """Steps per second of one env over ``seconds`` of wall time (after one warm-up episode)."""
    env = gym.make(env_id, **env_kwargs(env_id, model))
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


def measure_frames(
    env_id: str, action: Any, seconds: float = 3.0, seed: int = 0, model: str | None = None
) -> float:
    """Milliseconds per "rgb_array" frame of one env, rendered after every step, as recorded.

    Only the ``render()`` calls are timed, over ``seconds`` of wall time, after a first frame
    (which builds the env's cached background).
    """
    env = gym.make(env_id, render_mode="rgb_array", **env_kwargs(env_id, model))
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
    env_id: str, action: Any, num_envs: int, seconds: float = 3.0, seed: int = 0,
    native: bool = True, model: str | None = None,
) -> float:  # fmt: skip
    """Sub-env steps per second of a vector env under ``RecordEpisodeStatistics``.

    Args:
        env_id: an id with a native batched version.
        action: the action of every sub-env at every step.
        num_envs: number of sub-envs N.
        seconds: wall time measured, after 10 warm-up steps.
        seed: reset seed.
        native: the native batched version, or Gymnasium's ``SyncVectorEnv`` of N single
            envs (copies of one made env, sharing its world model: making each takes about
            0.1 s); both same-step.
        model: Simulator-v0's world model (see :data:`MODELS`).
    """
    kwargs = env_kwargs(env_id, model)
    if native:
        venv = make_native_vec(env_id, num_envs, autoreset_mode=SAME_STEP, **kwargs)
    else:
        template = gym.make(env_id, **kwargs)
        shared = {id(value): value for value in kwargs.values()}  # not copied per sub-env
        venv = sync_vector_env(
            [lambda: copy.deepcopy(template, dict(shared))] * num_envs, SAME_STEP
        )
    venv = VectorEpisodeStatistics(venv)
    venv.reset(seed=seed)
    actions = np.stack([np.asarray(action)] * num_envs)
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


def measure_agents_vector(
    num_envs: int, seconds: float = 3.0, seed: int = 0
) -> tuple[float, float]:
    """Agent decisions and assembly steps per second of ``assembly_v0.vector_env(num_envs=N)``.

    Every agent slot votes YES at every step; a step counts the agents present before it (the
    slots of non-members are not decisions) and N assembly steps (one per sub-env).
    """
    venv = assembly_v0.vector_env(num_envs=num_envs)
    _, infos = venv.reset(seed=seed)
    actions = np.zeros(infos["agents"].shape, dtype=np.int64)
    decisions, steps, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        decisions += int(infos["agents"].sum())
        steps += num_envs
        *_, infos = venv.step(actions)
    elapsed = time.perf_counter() - start
    return decisions / elapsed, steps / elapsed


@dataclass(frozen=True)
class Row:
    """One line of the table.

    Attributes:
        env: the env (Simulator-v0 with its world model).
        mode: ``single``, ``native vector ×N``, ``SyncVectorEnv ×N`` or ``parallel, …``.
        rate: steps (agent decisions for the multi-agent env) per second.
        goal: the goal, × CartPole-v1's single-env rate (None: no goal).
        goal_rate: the goal in steps (or decisions) per second instead.
    """

    env: str
    mode: str
    rate: float
    goal: float | None = None
    goal_rate: float | None = None

    def line(self, reference: float) -> str:
        """The row printed, with its ratio to ``reference`` (CartPole-v1's rate)."""
        ratio = self.rate / reference
        goal, met = "", ""
        if self.goal is not None:
            goal, met = f"≥ {self.goal:g}×", "met" if ratio >= self.goal else "NOT met"
        elif self.goal_rate is not None:
            goal = f"≥ {self.goal_rate:,.0f}/s"
            met = "met" if self.rate >= self.goal_rate else "NOT met"
        shown = "" if self.decisions else f"{ratio:.3f}×"  # decisions are not env steps
        return (f"{self.env:<42} {self.mode:<22} {self.rate:>13,.0f} {shown:>14} "
                f"{goal:>14} {met}")  # fmt: skip

    @property
    def decisions(self) -> bool:
        """The rate counts agent decisions (no ratio to CartPole-v1's steps)."""
        return self.env.endswith(_DECISIONS)


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
    """Print steps per second, the ratio to CartPole-v1 and the goal of every env."""
    rows = [
        Row(_label(env_id, model), "single",
            measure(env_id, ENVS[env_id], args.seconds, args.seed, model),
            SINGLE_GOALS.get(_label(env_id, model)))
        for env_id, model in cases()
    ]  # fmt: skip
    speedups = []
    for env_id, model in cases(vector_ids()):
        for n in args.num_envs:
            native, sync = (
                measure_vector(env_id, ENVS[env_id], n, args.seconds, args.seed, kind, model)
                for kind in (True, False)
            )
            goal = VECTOR_GOAL[1] if n == VECTOR_GOAL[0] else None
            rows += [Row(_label(env_id, model), f"native vector ×{n}", native, goal),
                     Row(_label(env_id, model), f"SyncVectorEnv ×{n}", sync)]  # fmt: skip
            speedups.append(f"{_label(env_id, model)} ×{n} (vector): {native / sync:,.1f}× "
                            "its SyncVectorEnv")  # fmt: skip
    decisions, agents = measure_agents(args.seconds, args.seed)
    rows.append(Row(f"assembly_v0{_DECISIONS}", f"parallel, {agents:.0f} agents", decisions))
    for n in args.num_envs:
        decisions, steps = measure_agents_vector(n, args.seconds, args.seed)
        goal = VECTOR_GOAL[1] if n == VECTOR_GOAL[0] else None
        rows += [Row("assembly_v0", f"vector_env ×{n}", steps, goal),
                 Row(f"assembly_v0{_DECISIONS}", f"vector_env ×{n}", decisions,
                     goal_rate=AGENT_GOAL if goal else None)]  # fmt: skip
    reference = rows[0].rate  # CartPole-v1, single
    print(f"Gymnasium {gym.__version__}; vector envs under RecordEpisodeStatistics, same-step; "
          "assembly_v0 also in agent decisions/s\n")  # fmt: skip
    print(f"{'env':<42} {'mode':<22} {'steps/s':>13} {'× CartPole-v1':>14} {'goal':>14} met")
    for row in rows:
        print(row.line(reference))
    print("\n".join(["", *speedups]))
    voters = DeliberationEnv().records.n_countries  # gym.make's default data
    for row in rows:
        if row.env == "assembly/Deliberation-v0":
            print(f"{row.env} {row.mode}: {row.rate * voters:,.0f} country decisions/s "
                  f"({voters} countries)")  # fmt: skip
    print(f"\n{'env (rgb_array, a frame per step)':<50} {'ms/step':>10} {'ms/frame':>10}")
    singles = {row.env: row.rate for row in rows if row.mode == "single"}
    for env_id, model in cases():
        if model not in (None, MODELS[0]):
            continue  # a frame draws the same picture whatever the model
        try:
            frame = measure_frames(env_id, ENVS[env_id], args.seconds, args.seed, model)
        except gym.error.DependencyNotInstalled:  # CartPole-v1 draws with pygame
            continue
        label = _label(env_id, model)
        print(f"{label:<50} {1e3 / singles[label]:>10.3f} {frame:>10.3f}")
