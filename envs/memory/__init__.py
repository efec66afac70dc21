"""The LeWorld world: a bit memory, hidden hopping regions, and ``assembly/MemoryDynamics-v0``.

Example:
    >>> import numpy as np
    >>> from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
    >>> world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024,
    ...                                       sequence_length=4))
    >>> world.sample_episodes(3, np.random.default_rng(0)).states.shape
    (3, 5, 64)
"""

from assembly_gym.envs.memory.config import MemoryWorldConfig
from assembly_gym.envs.memory.env import MemoryDynamicsEnv
from assembly_gym.envs.memory.memory import BitMemory
from assembly_gym.envs.memory.population import build_memory
from assembly_gym.envs.memory.world import Episodes, MemoryWorld, ReadPredictionReward

__all__ = [
    "BitMemory",
    "Episodes",
    "MemoryDynamicsEnv",
    "MemoryWorld",
    "MemoryWorldConfig",
    "ReadPredictionReward",
    "build_memory",
]
