import numpy as np
import pytest

from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
from assembly_gym.world_models.leworld import LeWorldConfig
from assembly_gym.world_models.leworld.datasets import make_datasets

T = 4


def _tiny_config(**overrides) -> LeWorldConfig:
    """A system small enough to train in seconds."""
    values = dict(
        num_slms=2,
        slm_hidden=32,
        blm_hidden=32,
        read_dim=8,
        query_dim=4,
        straight_through_top_k=8,
        num_train_sequences=48,
        num_val_sequences=16,
        num_test_sequences=16,
        phase1_epochs=3,
        phase2_epochs=3,
        phase3_epochs=2,
        phase2_warmup_steps=2,
        phase2_restart_epochs=3,
    )
    return LeWorldConfig(**{**values, **overrides})


@pytest.fixture(scope="session")
def world() -> MemoryWorld:
    return MemoryWorld(MemoryWorldConfig(difficulty="medium", num_words=1024, sequence_length=T))


@pytest.fixture(scope="session")
def episodes(world):
    return world.sample_episodes(8, np.random.default_rng(0))


@pytest.fixture(scope="session")
def tiny_config():
    """Factory of tiny configs: ``tiny_config(phase2_epochs=6)``."""
    return _tiny_config


@pytest.fixture(scope="module")
def data(world, tiny_config):
    """Training, validation and test sequences of the tiny configuration, seed 0 (per module)."""
    return make_datasets(world, tiny_config(), seed=0)


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """These small matrices run fastest on one thread (and the CI machine has two cores)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
