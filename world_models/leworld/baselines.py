"""The memory-less baseline: an MLP as large as the LeWorld system that never reads memory."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F
from tqdm.auto import tqdm

from assembly_gym.envs.memory.world import Episodes, MemoryWorld
from assembly_gym.world_models.leworld.batches import SequenceBatch
from assembly_gym.world_models.leworld.datasets import Datasets, training_episodes
from assembly_gym.world_models.leworld.layers import linear, mlp
from assembly_gym.world_models.leworld.system import LeWorldSystem

__all__ = ["MemorylessMLP", "fit_memoryless", "train_memoryless"]


@dataclass
class _Predictions:
    predictions: torch.Tensor


class MemorylessMLP(nn.Module):
    """s_{t+1} from (s_{t−1}, s_t, c, one-hot t): the SLMs' inputs, without any read.

    Two hidden layers of width ``hidden`` plus a linear skip (the shape of the BLM's
    predictor). :meth:`like` picks the width that matches another model's parameter count.
    Built on the CPU (a seed gives the same weights everywhere); move it with ``.to(device)``.

    Args:
        state_dim, char_dim, sequence_length: input sizes.
        hidden: hidden width.
        seed: initialises the weights.
    """

    def __init__(
        self, *, state_dim: int, char_dim: int, sequence_length: int, hidden: int, seed: int = 0
    ) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.sequence_length = sequence_length
        inputs = 2 * state_dim + char_dim + sequence_length
        self.trunk = mlp([inputs, hidden, hidden], generator)
        self.head = linear(hidden, state_dim, generator)
        self.skip = linear(inputs, state_dim, generator)

    @classmethod
    def like(
        cls, model: nn.Module, *, state_dim: int, char_dim: int, sequence_length: int, seed: int = 0
    ) -> MemorylessMLP:
        """A memory-less MLP with about as many parameters as ``model``."""
        target = sum(p.numel() for p in model.parameters())
        inputs = 2 * state_dim + char_dim + sequence_length
        # params(h) = (in+1)h + (h+1)h + (h+1)S + (in+1)S: solve the quadratic for h.
        b = inputs + 2 + state_dim
        c = (inputs + 2) * state_dim - target
        hidden = max(1, round((-b + math.sqrt(b * b - 4 * c)) / 2))
        return cls(
            state_dim=state_dim,
            char_dim=char_dim,
            sequence_length=sequence_length,
            hidden=hidden,
            seed=seed,
        )

    @property
    def device(self) -> torch.device:
        """Where the weights lie."""
        return self.skip.weight.device

    def forward(
        self, s_prev: torch.Tensor, s: torch.Tensor, c: torch.Tensor, step: torch.Tensor
    ) -> torch.Tensor:
        """Predicted s_{t+1}, shape (B, state_dim)."""
        step = F.one_hot(step.clamp(0, self.sequence_length - 1), self.sequence_length)
        x = torch.cat([s_prev, s, c, step.to(s.dtype)], dim=-1)
        return self.head(F.relu(self.trunk(x))) + self.skip(x)

    def run(self, batch: SequenceBatch, **unused: Any) -> _Predictions:
        """One-step predictions along sequences, shape (B, T, state_dim) (as the system's run)."""
        rows = batch.to(self.device).steps()
        prediction = self(rows.s_prev, rows.s, rows.c, rows.step)
        return _Predictions(prediction.reshape(len(batch), batch.sequence_length, -1))


def train_memoryless(
    model: MemorylessMLP,
    train: Episodes | Callable[[int], Episodes],
    val: Episodes,
    *,
    epochs: int,
    lr: float = 1e-3,
    batch_size: int = 32,
    weight_decay: float = 0.01,
    grad_clip: float = 1.0,
    seed: int = 0,
    progress: bool = True,
) -> list[float]:
    """Train on the next-state MSE (AdamW); keep the best validation epoch.

    Trains where the model lies: the episodes cross to its device once per epoch.

    Args:
        model: the baseline to train (in place).
        train: training episodes, or a function of the epoch that returns them (fresh
            data every epoch, as the LeWorld training draws them).
        val: validation episodes.
        epochs: passes over the training episodes.
        lr: AdamW learning rate.
        batch_size: sequences per batch.
        weight_decay: AdamW weight decay.
        grad_clip: maximum gradient norm.
        seed: shuffles the batches (a CPU generator: the same order on any device).
        progress: tqdm bar over the epochs.

    Returns:
        The validation MSE after each epoch.
    """
    source = train if callable(train) else (lambda epoch: train)
    device = model.device
    val_rows = SequenceBatch.from_episodes(val).to(device).steps()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    generator = torch.Generator().manual_seed(seed)
    size = batch_size * val.sequence_length
    best, history = (math.inf, copy.deepcopy(model.state_dict())), []
    for epoch in tqdm(range(epochs), desc="memory-less MLP", unit="epoch", disable=not progress):
        rows = SequenceBatch.from_episodes(source(epoch)).to(device).steps()
        model.train()
        for index in torch.randperm(len(rows), generator=generator).to(device).split(size):
            batch = rows.select(index)
            loss = ((model(batch.s_prev, batch.s, batch.c, batch.step) - batch.target) ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            optimizer.step()
        model.eval()
        with torch.no_grad():
            prediction = model(val_rows.s_prev, val_rows.s, val_rows.c, val_rows.step)
            history.append(float(((prediction - val_rows.target) ** 2).mean()))
        if history[-1] < best[0]:
            best = (history[-1], copy.deepcopy(model.state_dict()))
    model.load_state_dict(best[1])
    model.eval()
    return history


def fit_memoryless(
    world: MemoryWorld,
    system: LeWorldSystem,
    data: Datasets,
    *,
    epochs: int,
    seed: int = 0,
    progress: bool = True,
) -> MemorylessMLP:
    """The memory-less baseline: an MLP as large as ``system``, trained on ``data`` of ``world``.

    It sees the same sequence of training sets as the system's phases
    (:func:`~assembly_gym.world_models.leworld.datasets.training_episodes`, drawn from
    ``world``), trains on the system's device and keeps its best validation epoch.
    """
    wc = world.config
    model = MemorylessMLP.like(
        system, state_dim=wc.state_dim, char_dim=wc.char_dim,
        sequence_length=wc.sequence_length, seed=seed,
    ).to(system.device)  # fmt: skip
    episodes = training_episodes(world, system.config, data.train, seed)
    train_memoryless(model, episodes, data.val, epochs=epochs, seed=seed, progress=progress)
    return model
