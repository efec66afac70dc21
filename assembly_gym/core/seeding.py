"""Seeding third-party code that draws from process-wide generators, without leaking the seed.

Randomness in this package is passed in (a seed, a ``np.random.Generator`` or a
``torch.Generator``). Some libraries we wrap take no generator: imitation's BC and reward
nets, and Stable-Baselines3's policies, draw their initial weights (and BC its batch
order, a shuffling ``torch.utils.data.DataLoader``) from torch's global generator, and
SB3's ``seed=`` reseeds Python's, NumPy's and torch's global generators. :func:`isolated_seed`
runs such code seeded and gives the caller's global generators back unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["isolated_seed"]


@contextmanager
def isolated_seed(seed: int) -> Iterator[None]:
    """Seed torch's global generator for a block; restore every global generator after it.

    On exit torch's, NumPy's legacy and Python's global states are as they were before
    (whatever the block did to them).

    Args:
        seed: seed of torch's global generator inside the block.

    Example:
        >>> import torch
        >>> with isolated_seed(0):
        ...     first = torch.rand(1)
        >>> with isolated_seed(0):
        ...     bool(torch.rand(1) == first)
        True
    """
    import torch

    # NumPy's legacy global state is saved on purpose: SB3's seed= reseeds it.
    python_state, numpy_state = random.getstate(), np.random.get_state()  # noqa: NPY002
    with torch.random.fork_rng(devices=[]):  # the CPU generator only: no CUDA state is touched
        torch.random.default_generator.manual_seed(seed)
        try:
            yield
        finally:
            random.setstate(python_state)
            np.random.set_state(numpy_state)  # noqa: NPY002
