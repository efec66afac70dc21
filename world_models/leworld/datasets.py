"""The episodes LeWorld learns from: training, validation and held-out test sets of a world.

Every set comes from its own stream of one seed (NumPy generators, no global state), so a
saved model's evaluation regenerates exactly the episodes it was judged on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from assembly_gym.envs.memory.world import Episodes, MemoryWorld
from assembly_gym.world_models.leworld.config import LeWorldConfig

__all__ = ["Datasets", "held_out_episodes", "make_datasets", "training_episodes"]


@dataclass(frozen=True)
class Datasets:
    """Training, validation and held-out test episodes of one world."""

    train: Episodes
    val: Episodes
    test: Episodes


def make_datasets(world: MemoryWorld, config: LeWorldConfig, seed: int) -> Datasets:
    """Episodes for training, validation and test, each from its own stream of ``seed``.

    The test episodes depend only on ``seed`` and ``num_test_sequences``, so an evaluation
    of a saved model regenerates exactly the episodes it was judged on.
    """
    streams = np.random.SeedSequence(seed).spawn(3)
    sizes = (config.num_train_sequences, config.num_val_sequences, config.num_test_sequences)
    parts = [
        world.sample_episodes(n, np.random.default_rng(s))
        for n, s in zip(sizes, streams, strict=True)
    ]
    return Datasets(*parts)


def held_out_episodes(world: MemoryWorld, config: LeWorldConfig, seed: int) -> Episodes:
    """The test part of :func:`make_datasets` alone (the same episodes)."""
    stream = np.random.SeedSequence(seed).spawn(3)[2]
    return world.sample_episodes(config.num_test_sequences, np.random.default_rng(stream))


def training_episodes(
    world: MemoryWorld, config: LeWorldConfig, first: Episodes, seed: int
) -> Callable[[int], Episodes]:
    """Training episodes of each epoch: ``first`` at epoch 0, then fresh ones if resampling.

    Every phase restarts at epoch 0; the fresh episodes of epoch e come from a stream seeded
    by (seed, e), so each phase (and a baseline trained alongside) sees the same sequence of
    training sets.
    """
    if not config.resample_train:
        return lambda epoch: first

    def draw(epoch: int) -> Episodes:
        if epoch == 0:
            return first
        return world.sample_episodes(
            config.num_train_sequences, np.random.default_rng([seed, 1 + epoch])
        )

    return draw
