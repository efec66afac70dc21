"""The LeWorld world: a bit memory, hidden hopping regions, and ``assembly/MemoryDynamics-v0``.

Example:
    >>> import numpy as np
    >>> from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
    >>> world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024,
    ...                                       sequence_length=4))
    >>> world.sample_episodes(3, np.random.default_rng(0)).states.shape
    (3, 5, 64)
"""

from assembly_gym.envs.memory.config import DIFFICULTIES, MemoryWorldConfig
from assembly_gym.envs.memory.env import MemoryDynamicsEnv
from assembly_gym.envs.memory.layout import MemoryLayout
from assembly_gym.envs.memory.memory import (
    MAX_WORDS,
    PAGE_SIZE,
    BitMemory,
    clip_read,
    join_address,
    match_windows,
    read_iou,
    read_overlap,
    split_address,
)
from assembly_gym.envs.memory.population import (
    POPULATIONS,
    build_memory,
    from_experience,
    random_bits,
    roll_call_experience,
    structured_patterns,
)
from assembly_gym.envs.memory.world import Episodes, MemoryWorld, ReadPredictionReward

__all__ = [
    "DIFFICULTIES",
    "MAX_WORDS",
    "PAGE_SIZE",
    "POPULATIONS",
    "BitMemory",
    "Episodes",
    "MemoryDynamicsEnv",
    "MemoryLayout",
    "MemoryWorld",
    "MemoryWorldConfig",
    "ReadPredictionReward",
    "build_memory",
    "clip_read",
    "from_experience",
    "join_address",
    "match_windows",
    "random_bits",
    "read_iou",
    "read_overlap",
    "roll_call_experience",
    "split_address",
    "structured_patterns",
]
