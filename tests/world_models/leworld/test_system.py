import numpy as np
import pytest
import torch

from assembly_gym.envs.memory import build_memory
from assembly_gym.world_models.leworld import LeWorldConfig, LeWorldSystem
from assembly_gym.world_models.leworld.batches import SequenceBatch

T = 4  # the sequence length of the conftest world


@pytest.fixture(scope="module")
def system(world, tiny_config):
    return LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)


def test_system_takes_its_sizes_from_the_world_and_checks_the_memory(world):
    system = LeWorldSystem(world.config, world.memory, LeWorldConfig())
    assert system.slms.sequence_length == T and system.slms.sizes == (4, 256, 128)
    assert system.residual_std.shape == (64,)
    other = build_memory("random", num_words=2048, word_size=32, seed=0)
    with pytest.raises(ValueError, match="does not match the world"):
        LeWorldSystem(world.config, other, LeWorldConfig())
    with pytest.raises(TypeError, match="sequence_length"):
        LeWorldConfig(sequence_length=T)  # the world's sizes are no hyperparameters
    with pytest.raises(ValueError, match="must be positive"):
        LeWorldConfig(num_slms=0)
    with pytest.raises(ValueError, match="unknown LeWorld options"):
        LeWorldConfig.from_dict({"depth": 3})


def test_shapes_and_read_modes(system, world, episodes):
    batch = SequenceBatch.from_episodes(episodes)
    out = system.run(batch)
    assert out.predictions.shape == (8, T, 64)
    assert out.gates.shape == out.gate_probs.shape == (2, 8, T)
    oracle = system.run(batch, read_mode="oracle")
    reads = oracle.reads.numpy()  # SLM i reads the window of region i mod K
    for e in range(2):
        page, offset, length = episodes.regions[:, e % 2].T
        starts = (page[:, None] ^ np.arange(T)) * 256 + offset[:, None]  # pages hop: h XOR t
        assert np.array_equal(reads[e, ..., 0] * 256 + reads[e, ..., 1], starts)
        assert np.array_equal(reads[e, ..., 2], np.broadcast_to(length[:, None] - 1, (8, T)))
    first = system.run(batch, read_mode="random", generator=torch.Generator().manual_seed(1)).reads
    again = system.run(batch, read_mode="random", generator=torch.Generator().manual_seed(1)).reads
    assert torch.equal(first, again) and not torch.equal(first, oracle.reads)
    with pytest.raises(ValueError, match="read_mode"):
        system.run(batch, read_mode="psychic")
    with pytest.raises(ValueError, match="Generator"):
        system.run(batch, read_mode="random")


def test_parallel_and_stepwise_runs_agree_without_a_query(system, episodes):
    batch = SequenceBatch.from_episodes(episodes)
    with torch.no_grad():
        parallel = system.run(batch, use_query=False).predictions
        rows = batch.steps()
        stepwise = torch.stack(
            [
                system.step(
                    rows.s_prev[t::T], rows.s[t::T], rows.c[t::T], rows.step[t::T]
                ).prediction
                for t in range(T)
            ],
            dim=1,
        )
        one_step, targets = system.rollout(batch, 1)
    torch.testing.assert_close(parallel, stepwise)
    torch.testing.assert_close(one_step[:, :, 0], parallel)
    torch.testing.assert_close(targets[:, :, 0], batch.states[:, 1:])
    with torch.no_grad():
        predictions, targets = system.rollout(batch, 3)
    assert predictions.shape == targets.shape == (8, T - 2, 3, 64)
    with pytest.raises(ValueError, match="horizon"):
        system.rollout(batch, T + 1)


def test_building_a_system_leaves_the_global_random_state_alone(world, tiny_config):
    before = torch.random.get_rng_state()
    LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    assert torch.equal(before, torch.random.get_rng_state())
