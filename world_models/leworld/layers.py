"""Small building blocks of the LeWorld networks, initialised from an explicit generator."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn
from torch.nn.utils import skip_init

__all__ = ["StackedLinear", "init_linear", "linear", "mlp"]


def linear(in_features: int, out_features: int, generator: torch.Generator) -> nn.Linear:
    """A linear layer initialised like PyTorch's default, but from ``generator``.

    Built with ``skip_init`` so that the global random state is neither used nor advanced.
    """
    return init_linear(skip_init(nn.Linear, in_features, out_features), generator)


def init_linear(layer: nn.Linear, generator: torch.Generator) -> nn.Linear:
    """Re-initialise a linear layer like PyTorch's default, but from ``generator``."""
    bound = 1.0 / math.sqrt(layer.in_features)
    with torch.no_grad():
        nn.init.uniform_(layer.weight, -bound, bound, generator=generator)
        if layer.bias is not None:
            nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
    return layer


def mlp(sizes: Sequence[int], generator: torch.Generator) -> nn.Sequential:
    """Linear layers of the given sizes with ReLU between them (none after the last)."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        layers.append(linear(a, b, generator))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class StackedLinear(nn.Module):
    """``count`` independent linear layers applied at once (one per small model).

    Args:
        count: number of layers E.
        in_features, out_features: sizes of each.
        generator: initialises the weights (PyTorch's default uniform bound 1/√in).

    Shapes: input (E, B, in_features) → output (E, B, out_features).
    """

    def __init__(
        self, count: int, in_features: int, out_features: int, generator: torch.Generator
    ) -> None:
        super().__init__()
        bound = 1.0 / math.sqrt(in_features)
        weight = torch.empty(count, in_features, out_features)
        bias = torch.empty(count, 1, out_features)
        nn.init.uniform_(weight, -bound, bound, generator=generator)
        nn.init.uniform_(bias, -bound, bound, generator=generator)
        self.weight, self.bias = nn.Parameter(weight), nn.Parameter(bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """X (E, B, in) → (E, B, out)."""
        return torch.baddbmm(self.bias, x, self.weight)
