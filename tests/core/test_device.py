import pytest
import torch

from assembly_gym.core.device import resolve_device


def test_auto_is_the_gpu_when_there_is_one_else_the_cpu():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected
    assert resolve_device().type == expected


def test_names_and_devices_pass_through():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")


@pytest.mark.parametrize("name", ["gpu", "tpu", "mps"])
def test_unknown_or_unsupported_names_are_refused(name):
    with pytest.raises(ValueError, match="auto, cpu, cuda"):
        resolve_device(name)


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
def test_cuda_without_a_gpu_says_so():
    with pytest.raises(ValueError, match="CUDA is not available"):
        resolve_device("cuda")
