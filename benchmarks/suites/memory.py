"""The memory suite: which memory range to read in ``MemoryDynamics-v0`` (the LeWorld world).

The world is fixed by the seed; every agent learns from its own kind of training data and
plays the same held-out episodes. The world's size, the scores (``reward``, ``hit_rate``,
``next_state_mse``) and the agents: docs/leworld.md, "The `memory` suite of `assembly-gym
bench`".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch

from assembly_gym.agents.base import EpisodeScores, EpisodicAgent
from assembly_gym.benchmarks.suites.base import Options, Suite, single_threaded
from assembly_gym.benchmarks.suites.episodic import EpisodicRunner, EpisodicSpec
from assembly_gym.envs.memory import MemoryDynamicsEnv, MemoryWorld, MemoryWorldConfig
from assembly_gym.world_models.leworld.baselines import fit_memoryless
from assembly_gym.world_models.leworld.batches import StepBatch
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.datasets import Datasets, make_datasets
from assembly_gym.world_models.leworld.model import LeWorldModel
from assembly_gym.world_models.leworld.system import LeWorldSystem
from assembly_gym.world_models.leworld.training import train_leworld

__all__ = ["MEMORY", "MemoryTask", "first_window", "memory_task", "play"]

EVAL_SEED = 10_000
"""Env seed of the first held-out episode."""

Decide = Callable[[np.ndarray, MemoryDynamicsEnv], np.ndarray]
"""A read (page, offset, length − 1) from an observation (the env is for oracles only)."""
Predict = Callable[[np.ndarray, np.ndarray, MemoryDynamicsEnv], np.ndarray]
"""s_{t+1} from the observation and the read, before the env steps (shape (state_dim,))."""


@dataclass(frozen=True)
class MemoryTask:
    """The world, its training data and the held-out episodes of the memory suite.

    Attributes:
        world: the world (memory, difficulty, sizes).
        config: the LeWorld system's config (also sizes the memory-less MLP).
        data: training and validation episodes of the world (for the learned predictors).
        eval_seeds: env seeds of the held-out episodes.
        ppo_steps: PPO's training steps. ppo_batch: its rollout length (``n_steps``).
        memoryless_epochs: epochs of the memory-less MLP.
        split: a one-line description of the evaluation.
        source: a one-line description of the world.
        seed: the run's seed.
    """

    world: MemoryWorld
    config: LeWorldConfig
    data: Datasets
    eval_seeds: tuple[int, ...]
    ppo_steps: int
    ppo_batch: int
    memoryless_epochs: int
    split: str
    source: str
    seed: int


def memory_task(options: Options) -> MemoryTask:
    """The task of the memory suite (``options.quick``: tiny sizes, under a minute).

    The world is synthetic: ``options.data``, ``countries`` and ``last_train_session``
    do not apply and are ignored.
    """
    world = MemoryWorld(
        MemoryWorldConfig(
            difficulty="medium", num_words=8192 if options.quick else 65_536,
            memory_seed=options.seed,
        )
    )  # fmt: skip
    cfg = world.config
    base = LeWorldConfig()
    if options.quick:
        config = replace(
            base, num_slms=2, slm_hidden=32, blm_hidden=64, read_dim=8, query_dim=4,
            straight_through_top_k=8, num_train_sequences=200, num_val_sequences=20,
            num_test_sequences=20, phase1_epochs=6, phase2_epochs=3, phase2_warmup_steps=10,
            phase2_restart_epochs=3, phase3_epochs=1,
        )  # fmt: skip
        episodes, ppo_steps, ppo_batch, memoryless_epochs = 20, 1024, 256, 20
    else:
        config = replace(
            base, num_val_sequences=100, num_test_sequences=100, phase2_epochs=4,
            phase2_warmup_steps=100, phase2_restart_epochs=4, phase3_epochs=1,
        )  # fmt: skip
        episodes, ppo_steps, ppo_batch, memoryless_epochs = 200, 50_000, 2048, 50
    seeds = tuple(range(EVAL_SEED, EVAL_SEED + episodes))
    return MemoryTask(
        world, config, make_datasets(world, config, options.seed), seeds, ppo_steps, ppo_batch,
        memoryless_epochs,
        split=f"{episodes} held-out episodes × {cfg.sequence_length} steps "
        f"(env seeds {EVAL_SEED}–{EVAL_SEED + episodes - 1}); learners see "
        f"{config.num_train_sequences} training episodes per epoch or PPO's {ppo_steps:,} "
        "env steps",
        source=f"MemoryDynamics-v0, {cfg.difficulty} ({cfg.num_regions} hopping regions), "
        f"{cfg.population} memory of {cfg.num_words:,} × {cfg.word_size} bits "
        f"(memory seed {cfg.memory_seed})",
        seed=options.seed,
    )  # fmt: skip


def play(world: MemoryWorld, seeds: Sequence[int], decide: Decide, predict: Predict | None = None,
         *, reads: bool = True, fit_seconds: float = 0.0) -> EpisodeScores:  # fmt: skip
    """Play one episode per env seed: per-episode reward, hit rate, next-state MSE, noise floor.

    Args:
        world: the world the env plays.
        seeds: the env seeds of the episodes.
        decide: chooses each read.
        predict: the agent's own prediction of s_{t+1} (None: the analytic prediction of its
            read, whose MSE is −reward).
        reads: False for agents that do not read (their reward and hit rate are NaN; the
            env still needs a read to step, ``decide``'s, which nothing scores).
        fit_seconds: the agent's training time, as the scores report it.

    Returns:
        Scores with the time spent in ``decide`` and ``predict`` as ``predict_seconds``.
    """
    env = MemoryDynamicsEnv(world=world)
    state = world.layout.slices["s"]
    reward, hit_rate, mse, floor = (np.zeros(len(seeds)) for _ in range(4))
    seconds = 0.0
    for e, seed in enumerate(seeds):
        obs, _ = env.reset(seed=seed)
        rewards, hits, errors, floors, done = [], [], [], [], False
        while not done:
            start = time.perf_counter()
            action = np.asarray(decide(obs, env), dtype=np.int64)
            prediction = None if predict is None else predict(obs, action, env)
            seconds += time.perf_counter() - start
            next_obs, r, done, _, info = env.step(action)
            rewards.append(r)
            hits.append(info["hit"])
            floors.append(info["noise_floor"])
            if prediction is None:
                errors.append(-r)
            else:
                errors.append(float(np.mean((prediction - next_obs[state]) ** 2)))
            obs = next_obs
        reward[e], hit_rate[e], mse[e] = np.mean(rewards), np.mean(hits), np.mean(errors)
        floor[e] = np.mean(floors)
    if not reads:
        reward[:], hit_rate[:] = np.nan, np.nan
    scores = {"reward": reward, "hit_rate": hit_rate, "next_state_mse": mse, "noise_floor": floor}
    return EpisodeScores(scores, fit_seconds, seconds)


def first_window(obs: np.ndarray, env: MemoryDynamicsEnv) -> np.ndarray:
    """The oracle read: the window of the first relevant region (the best single read)."""
    start, length = env.relevant_windows()[0]
    return np.array([start // 256, start % 256, length - 1])


def _random_reads(task: MemoryTask, options: Options) -> EpisodeScores:
    rng = np.random.default_rng(options.seed)
    nvec = MemoryDynamicsEnv(world=task.world).action_space.nvec
    return play(task.world, task.eval_seeds, lambda obs, env: rng.integers(nvec))


def _oracle(task: MemoryTask, options: Options) -> EpisodeScores:
    world = task.world
    layout = world.layout

    def true_mean(obs: np.ndarray, action: np.ndarray, env: MemoryDynamicsEnv) -> np.ndarray:
        windows = env.relevant_windows()
        seeds = world.seed(world.memory.mean_bits(windows[:, 0], windows[:, 1]))
        term = world.tile(seeds.mean(axis=0))
        return world.transition_mean(layout.part(obs, "s"), term, layout.part(obs, "c"))

    return play(world, task.eval_seeds, first_window, true_mean)


@single_threaded
def _memoryless(task: MemoryTask, options: Options) -> EpisodeScores:
    cfg = task.world.config
    start = time.perf_counter()
    sized_like = LeWorldSystem(task.world.config, task.world.memory, task.config,
                               seed=options.seed)  # fmt: skip
    model = fit_memoryless(task.world, sized_like, task.data, epochs=task.memoryless_epochs,
                           seed=options.seed, progress=False)  # fmt: skip
    fit_seconds = time.perf_counter() - start

    def predict(obs: np.ndarray, action: np.ndarray, env: MemoryDynamicsEnv) -> np.ndarray:
        rows = StepBatch.from_observations(task.world.layout, cfg.sequence_length, obs[None],
                                           obs[None])  # fmt: skip
        with torch.no_grad():
            return model(rows.s_prev, rows.s, rows.c, rows.step)[0].numpy()

    no_read = np.zeros(3, dtype=np.int64)
    return play(task.world, task.eval_seeds, lambda obs, env: no_read, predict, reads=False,
                fit_seconds=fit_seconds)  # fmt: skip


@single_threaded
def _ppo(task: MemoryTask, options: Options) -> EpisodeScores:
    from stable_baselines3 import PPO

    start = time.perf_counter()
    model = PPO("MlpPolicy", MemoryDynamicsEnv(world=task.world), n_steps=task.ppo_batch,
                batch_size=64, seed=options.seed, verbose=0, device="cpu")  # fmt: skip
    model.learn(total_timesteps=task.ppo_steps)
    fit_seconds = time.perf_counter() - start
    return play(
        task.world, task.eval_seeds, lambda obs, env: model.predict(obs, deterministic=True)[0],
        fit_seconds=fit_seconds,
    )  # fmt: skip


@single_threaded
def _leworld(task: MemoryTask, options: Options) -> EpisodeScores:
    start = time.perf_counter()
    system, _ = train_leworld(task.world, task.config, seed=options.seed, data=task.data,
                              progress=False, evaluate=False)  # fmt: skip
    fit_seconds = time.perf_counter() - start
    model = LeWorldModel(system)
    state = task.world.layout.slices["s"]

    def predict(obs: np.ndarray, action: np.ndarray, env: MemoryDynamicsEnv) -> np.ndarray:
        return model.predict(obs[None], action[None]).mean[0, state]

    return play(task.world, task.eval_seeds, lambda obs, env: model.choose_reads(obs)[0], predict,
                fit_seconds=fit_seconds)  # fmt: skip


def _agents(task: MemoryTask, options: Options) -> list[EpisodicAgent]:
    return [
        EpisodicSpec("random reads", _random_reads, baseline=True),
        EpisodicSpec("memory-less MLP", _memoryless, baseline=True),
        EpisodicSpec(f"SB3 PPO ({task.ppo_steps:,} steps)", _ppo),
        EpisodicSpec("LeWorld (trained in-suite)", _leworld),
        EpisodicSpec("oracle reads (noise floor)", _oracle),
    ]


MEMORY = Suite(
    "memory",
    "MemoryDynamics-v0: choose which memory range to read to predict the next state",
    memory_task,
    _agents,
    metrics=("reward", "hit_rate", "next_state_mse"),
    runner=EpisodicRunner("next_state_mse", lower_is_better=True),
)
