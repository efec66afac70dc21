"""isolated_seed: seeded inside the block, the caller's global generators untouched outside."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from assembly_gym.core.seeding import isolated_seed


def test_the_block_is_seeded_and_the_global_generators_are_restored():
    torch.manual_seed(123)
    random.seed(5)
    np.random.seed(7)  # noqa: NPY002 - the legacy global state is what is checked
    expected = (torch.rand(3), random.random(), np.random.random())  # noqa: NPY002
    torch.manual_seed(123)
    random.seed(5)
    np.random.seed(7)  # noqa: NPY002
    with isolated_seed(0):
        first = torch.rand(3)
        random.seed(99)  # what SB3's seed= does to the other global generators
        np.random.seed(99)  # noqa: NPY002
    with isolated_seed(0):
        torch.testing.assert_close(torch.rand(3), first)
    torch.testing.assert_close(torch.rand(3), expected[0])
    assert random.random() == expected[1]
    assert np.random.random() == expected[2]  # noqa: NPY002


def test_the_state_is_restored_when_the_block_raises():
    torch.manual_seed(1)
    expected = torch.rand(2)
    torch.manual_seed(1)
    with pytest.raises(RuntimeError, match="boom"), isolated_seed(0):
        raise RuntimeError("boom")
    torch.testing.assert_close(torch.rand(2), expected)
