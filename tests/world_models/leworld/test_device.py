"""Devices: LeWorld on the CPU (unchanged) and on a GPU (equal within stated tolerances).

The GPU tests run where CUDA is available and skip elsewhere. Tolerances (float32): forward
passes agree to 1e-4 (absolute; the same discrete reads), one training phase to 1e-3
(relative, on the validation loss and every parameter).
"""

import io

import numpy as np
import pytest
import torch

from assembly_gym.world_models.leworld import LeWorldModel, LeWorldSystem, evaluate_system
from assembly_gym.world_models.leworld.batches import SequenceBatch
from assembly_gym.world_models.leworld.training import train_phase

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _phase1(system: LeWorldSystem, data) -> float:
    """Two epochs of phase 1 (CPU-shuffled: the same order everywhere); its last val loss."""
    report = train_phase(
        system,
        phase=1,
        train=SequenceBatch.from_episodes(data.train),
        val=SequenceBatch.from_episodes(data.val),
        progress=False,
        generator=torch.Generator().manual_seed(0),
    )
    return report.val_loss[-1]


def test_on_the_cpu_the_device_setting_changes_nothing(world, tiny_config, data, tmp_path):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    model = LeWorldModel(system, device="cpu")
    assert model.system is system and system.device == torch.device("cpu")
    batch = SequenceBatch.from_episodes(data.val)
    assert batch.to("cpu").states is batch.states  # no copy where the data already is
    obs = model.start_states[:4]
    actions = np.array([[0, 1, 3]] * 4)
    model.save(tmp_path / "m")
    again = LeWorldModel.load(tmp_path / "m", device="cpu")
    np.testing.assert_array_equal(
        again.predict(obs, actions).mean, model.predict(obs, actions).mean
    )


def test_a_gpu_asked_for_where_there_is_none_is_a_clear_error(world, tiny_config):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    with pytest.raises(ValueError, match="CUDA is not available"):
        LeWorldModel(system, device="cuda")


@cuda
def test_the_forward_pass_on_the_gpu_equals_the_cpu_within_1e4(world, tiny_config, data):
    cpu = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0).eval()
    gpu = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0).eval().to("cuda")
    batch = SequenceBatch.from_episodes(data.val)
    with torch.no_grad():
        for read_mode in ("model", "oracle"):
            a = cpu.run(batch, read_mode=read_mode)
            b = gpu.run(batch, read_mode=read_mode)
            assert torch.equal(a.reads, b.reads.cpu())
            torch.testing.assert_close(b.predictions.cpu(), a.predictions, atol=1e-4, rtol=0)
    oracle = evaluate_system(cpu, data.test, read_mode="oracle")
    assert evaluate_system(gpu, data.test, read_mode="oracle").mse == pytest.approx(
        oracle.mse, rel=1e-4
    )


@cuda
def test_one_training_phase_on_the_gpu_equals_the_cpu_within_1e3(world, tiny_config, data):
    cpu = LeWorldSystem(world.config, world.memory, tiny_config(phase1_epochs=2), seed=0)
    gpu = LeWorldSystem(world.config, world.memory, tiny_config(phase1_epochs=2), seed=0)
    gpu.to("cuda")
    assert _phase1(gpu, data) == pytest.approx(_phase1(cpu, data), rel=1e-3)
    for (name, a), b in zip(cpu.state_dict().items(), gpu.state_dict().values(), strict=True):
        torch.testing.assert_close(b.cpu(), a, rtol=1e-3, atol=1e-3, msg=name)


@cuda
def test_a_gpu_checkpoint_holds_cpu_tensors_and_loads_on_the_cpu(world, tiny_config, tmp_path):
    model = LeWorldModel(
        LeWorldSystem(world.config, world.memory, tiny_config(), seed=0), device="cuda"
    )
    model.save(tmp_path / "m")
    state = torch.load(io.BytesIO((tmp_path / "m" / "parameters.pt").read_bytes()))
    assert all(value.device.type == "cpu" for value in state.values())
    loaded = LeWorldModel.load(tmp_path / "m", device="cpu")
    obs, actions = model.start_states[:4], np.array([[0, 1, 3]] * 4)
    np.testing.assert_allclose(
        loaded.predict(obs, actions).mean, model.predict(obs, actions).mean, atol=1e-4
    )
