"""``device="auto"`` on the MLP ensemble, the vector Simulator-v0 and ``worldmodel --device``.

On a CPU-only machine "auto" is the CPU and nothing changes; where CUDA is available, GPU
predictions equal the CPU's within 1e-5 (float32 products in another order).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assembly_gym.benchmarks.cli import main
from assembly_gym.core.device import resolve_device
from assembly_gym.world_models.base import load_world_model
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.simulator_vector import SimulatorVectorEnv

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
TOLERANCE = 1e-5  # probabilities and means, GPU vs CPU


def _predictions(model, data):
    prediction = model.predict(data.obs[:256], data.acts[:256])
    return prediction.mean, prediction.distributions


def test_auto_is_the_default_and_cpu_results_are_those_of_device_cpu(delib_split, mlp_factory):
    train, validation, _ = delib_split
    auto = mlp_factory(max_epochs=2).fit(train, validation=validation)
    cpu = mlp_factory(max_epochs=2, device="cpu").fit(train, validation=validation)
    assert auto.device == resolve_device("auto")
    if auto.device.type == "cpu":  # here: the same numbers, bit for bit
        np.testing.assert_array_equal(_predictions(auto, train)[0], _predictions(cpu, train)[0])
        assert auto.history == cpu.history


def test_checkpoints_load_on_any_device(models, tmp_path):
    models["mlp"].save(tmp_path / "mlp")
    loaded = load_world_model(tmp_path / "mlp")
    assert isinstance(loaded, MLPEnsemble) and loaded.device == resolve_device("auto")
    assert loaded.to("cpu").device == torch.device("cpu")
    saved = torch.load(tmp_path / "mlp" / "weights.pt", weights_only=True)
    assert all(tensor.device.type == "cpu" for tensor in saved.values())


def test_the_vector_simulator_moves_a_torch_model(models):
    venv = SimulatorVectorEnv(2, model=models["mlp"], device="cpu")
    assert models["mlp"].device == torch.device("cpu")
    obs, _ = venv.reset(seed=0)
    assert obs.shape == (2, len(models["mlp"].obs_names))


@CUDA
def test_gpu_predictions_equal_the_cpu_ones(models, delib_split, tmp_path):
    train = delib_split[0]
    model = models["mlp"]
    model.save(tmp_path / "mlp")
    cpu_mean, cpu_probs = _predictions(load_world_model(tmp_path / "mlp").to("cpu"), train)
    gpu = load_world_model(tmp_path / "mlp").to("cuda")
    gpu_mean, gpu_probs = _predictions(gpu, train)
    np.testing.assert_allclose(gpu_mean, cpu_mean, atol=TOLERANCE)
    for name, probs in cpu_probs.items():
        np.testing.assert_allclose(gpu_probs[name], probs, atol=TOLERANCE, err_msg=name)
    venv = SimulatorVectorEnv(64, model=gpu, device="cuda", autoreset_mode="SameStep")
    venv.reset(seed=0)
    obs, *_ = venv.step(np.full(64, 4))
    assert obs.shape == (64, len(gpu.obs_names)) and np.isfinite(obs).all()


@CUDA
def test_training_on_the_gpu_draws_what_the_cpu_draws(delib_split, mlp_factory):
    """Same seed: the same initialisation, data order and dropout; losses within 1e-3."""
    train, validation, _ = delib_split
    cpu = mlp_factory(max_epochs=2, device="cpu").fit(train, validation=validation)
    gpu = mlp_factory(max_epochs=2, device="cuda").fit(train, validation=validation)
    for a, b in zip(cpu.history, gpu.history, strict=True):
        assert a["train"] == pytest.approx(b["train"], abs=1e-3)


def test_worldmodel_cli_takes_a_device(tmp_path, capsys):
    out = tmp_path / "delib"
    args = ["worldmodel", "train", "--synthetic", "--env", "Deliberation-v0", "--out", str(out),
            "--model", "mlp", "--members", "2", "--max-epochs", "1", "--quiet"]  # fmt: skip
    assert main([*args, "--device", "cpu"]) == 0
    assert main(["worldmodel", "eval", str(out), "--device", "cpu", "--quiet"]) == 0
    capsys.readouterr()
    if not torch.cuda.is_available():
        with pytest.raises(SystemExit) as error:
            main(["worldmodel", "eval", str(out), "--device", "cuda"])
        assert error.value.code == 2
        assert "CUDA is not available" in capsys.readouterr().err
