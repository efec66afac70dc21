"""The council as an env family: its transitions, its bench suite, and its registration."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from assembly_gym.agents.base import EpisodeScores
from assembly_gym.benchmarks.suites import EpisodicRunner, EpisodicSpec, Options, Suite
from assembly_gym.core.state import Vote
from assembly_gym.core.transitions import Transitions
from assembly_gym.envs.family import EnvFamily, register_family

from .env import DECLARATION, DRAWS, STATE_NAMES, CouncilEnv, council_step, start_states
from .vector import CouncilVectorEnv


def council_transitions(data: int | None = None) -> Transitions:
    """``data`` drafts (default 3,000) played at random (seed 0): what world models learn."""
    n, rng = 3000 if data is None else data, np.random.default_rng(0)
    draws, acts = rng.random((n, DRAWS)), rng.integers(0, len(Vote), (n, 2))
    first = start_states(draws)
    second, _, _ = council_step(first, acts[:, 0], draws)
    third, _, _ = council_step(second, acts[:, 1], draws)
    d = len(STATE_NAMES)
    return Transitions(
        np.stack([first, second], axis=1).reshape(2 * n, d), acts.reshape(-1),
        np.stack([second, third], axis=1).reshape(2 * n, d), np.tile([False, True], n),
        np.repeat(np.arange(n), 2), STATE_NAMES, masks=np.ones((2 * n, len(Vote)), bool),
        bounds=(np.zeros(d, np.float32), np.ones(d, np.float32)), declaration=DECLARATION,
    )  # fmt: skip


@dataclass(frozen=True)
class CouncilTask:
    """Held-out drafts: those of ``episodes`` seeds from ``seed``."""

    episodes: int = 400
    seed: int = 10_000
    split: str = "400 held-out drafts (seeds 10,000 on)"
    source: str = "Council-v0"


def _policy(name: str, choose: Callable[[np.ndarray], np.ndarray], baseline: bool) -> EpisodicSpec:
    """An agent that acts by ``choose(obs (N, d)) -> actions (N,)``, scored by its returns."""

    def play(task: CouncilTask, options: Options) -> EpisodeScores:
        start = time.perf_counter()
        venv = CouncilVectorEnv(task.episodes)
        obs, _ = venv.reset(seed=task.seed)
        returns = np.zeros(task.episodes)
        for _ in range(2):  # draft, vote
            obs, rewards, *_ = venv.step(choose(obs))
            returns += rewards
        return EpisodeScores({"reward": returns}, 0.0, time.perf_counter() - start)

    return EpisodicSpec(name, play, baseline=baseline)


def _agents(task: CouncilTask, options: Options) -> list[EpisodicSpec]:
    def likely(obs: np.ndarray) -> np.ndarray:
        return np.where(obs[:, STATE_NAMES.index("support")] > 0.6, Vote.YES, Vote.NO)

    return [
        _policy("always-yes", lambda obs: np.full(len(obs), Vote.YES), baseline=True),
        _policy("always-no", lambda obs: np.full(len(obs), Vote.NO), baseline=True),
        _policy("backs-the-likely", likely, baseline=False),
    ]


COUNCIL_SUITE = Suite(
    "council", "Council-v0: vote with the outcome of a council with a veto",
    lambda options: CouncilTask(), _agents, metrics=("reward",),
    runner=EpisodicRunner("reward", lower_is_better=False),
)  # fmt: skip

COUNCIL = EnvFamily(
    "council/Council-v0",
    entry_point=CouncilEnv,
    vector_entry_point=CouncilVectorEnv,
    declaration=DECLARATION,
    transitions=council_transitions,
    suites={"council": COUNCIL_SUITE},
)

register_family(COUNCIL)
