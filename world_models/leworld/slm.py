"""Small LeWorld models (SLMs): each chooses which address range of the memory to read."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from assembly_gym.envs.memory.memory import PAGE_SIZE
from assembly_gym.world_models.leworld.layers import StackedLinear

__all__ = ["STATE_SCALE", "SLMOutput", "SmallLeWorldModel", "step_features"]

STATE_SCALE = 0.1
"""Factor on the states entering the SLMs. Where to read depends on c and t; the states
carry 0.25·tile(c) plus noise in the steady state, and at full scale that noisy copy lures
the early gradient away from c (measured: page accuracy 0.75 instead of 1.0 after 960 steps).
"""


def step_features(step: torch.Tensor, sequence_length: int, bits: int) -> torch.Tensor:
    """Step t as a one-hot vector and as ±1 bits (least significant first), (B, T + bits)."""
    one_hot = F.one_hot(step, sequence_length).to(torch.float32)
    shifts = torch.arange(bits, device=step.device)
    binary = ((step.unsqueeze(-1) >> shifts) & 1).to(torch.float32) * 2 - 1
    return torch.cat([one_hot, binary], dim=-1)


@dataclass
class SLMOutput:
    """What the small models output for a batch (E models, B rows).

    Attributes:
        page_logits: logits over the page (high byte), shape (E, B, num_pages).
        offset_logits: logits over the offset (low byte), shape (E, B, 256).
        length_logits: logits over length − 1, shape (E, B, max_read_range).
        confidence: each model's confidence that its read is right, shape (E, B) in (0, 1).
        hidden: each model's hidden state (last hidden layer), shape (E, B, hidden).
        page, offset, length_code: the chosen read (argmax of each factor), (E, B) int64.
    """

    page_logits: torch.Tensor
    offset_logits: torch.Tensor
    length_logits: torch.Tensor
    confidence: torch.Tensor
    hidden: torch.Tensor
    page: torch.Tensor
    offset: torch.Tensor
    length_code: torch.Tensor

    def probs(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Softmax of the three factors' logits."""
        return (
            self.page_logits.softmax(-1),
            self.offset_logits.softmax(-1),
            self.length_logits.softmax(-1),
        )

    def choice(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(page, offset, length_code)."""
        return self.page, self.offset, self.length_code


class SmallLeWorldModel(nn.Module):
    """``count`` small models with their own weights, evaluated together.

    Each is an MLP over (s_{t−1}, s_t, c) whose first hidden layer is modulated (FiLM:
    h·(1 + γ) + β) by the step t (one-hot and ±1 bits) and by the info query, with heads
    for the page, offset and length of its read and its confidence. The step tells a model
    where the regions have hopped (page h XOR t: with the modulation one unit per bit
    suffices; an unmodulated MLP learned it several times slower, measured); the query is
    the BLM's info request of the previous step, entering through its own modulation weights
    (:attr:`query_film`, zero at first so that switching the request on changes nothing
    until phase 3 trains it with the info head).

    Args:
        count: number of small models E.
        state_dim, char_dim, sequence_length, query_dim: input sizes.
        hidden: hidden width.
        num_pages: values of the page factor.
        max_read_range: values of the length factor.
        generator: initialises the weights.
    """

    def __init__(
        self,
        *,
        count: int,
        state_dim: int,
        char_dim: int,
        sequence_length: int,
        query_dim: int,
        hidden: int,
        num_pages: int,
        max_read_range: int,
        generator: torch.Generator,
    ) -> None:
        super().__init__()
        self.count, self.sequence_length, self.query_dim = count, sequence_length, query_dim
        self.sizes = (num_pages, PAGE_SIZE, max_read_range)
        self.step_bits = max(1, (sequence_length - 1).bit_length())
        self.layer1 = StackedLinear(count, 2 * state_dim + char_dim, hidden, generator)
        self.step_film = StackedLinear(
            count, sequence_length + self.step_bits, 2 * hidden, generator
        )
        self.query_film = StackedLinear(count, query_dim, 2 * hidden, generator)
        with torch.no_grad():  # drawn, then zeroed: until trained, the request changes no read
            self.query_film.weight.zero_()
            self.query_film.bias.zero_()
        self.layer2 = StackedLinear(count, hidden, hidden, generator)
        self.heads = StackedLinear(count, hidden, sum(self.sizes) + 1, generator)

    def forward(
        self,
        s_prev: torch.Tensor,
        s: torch.Tensor,
        c: torch.Tensor,
        step: torch.Tensor,
        query: torch.Tensor | None = None,
    ) -> SLMOutput:
        """Choose reads for a batch.

        Args:
            s_prev: s_{t−1}, shape (B, state_dim).
            s: s_t, shape (B, state_dim).
            c: characteristics, shape (B, char_dim).
            step: t, shape (B,) int64 (clamped to the sequence).
            query: the info request, shape (B, query_dim), or None for none.
        """
        step = step.clamp(0, self.sequence_length - 1)
        x = torch.cat([STATE_SCALE * s_prev, STATE_SCALE * s, c], -1)
        steps = step_features(step, self.sequence_length, self.step_bits)
        film = self.step_film(self._per_model(steps))
        if query is not None:
            film = film + self.query_film(self._per_model(query))
        gamma, beta = film.chunk(2, dim=-1)
        hidden = F.relu(self.layer1(self._per_model(x)) * (1 + gamma) + beta)
        hidden = F.relu(self.layer2(hidden))
        page, offset, length, confidence = self.heads(hidden).split([*self.sizes, 1], dim=-1)
        return SLMOutput(
            page,
            offset,
            length,
            torch.sigmoid(confidence[..., 0]),
            hidden,
            page.argmax(-1),
            offset.argmax(-1),
            length.argmax(-1),
        )

    def _per_model(self, x: torch.Tensor) -> torch.Tensor:
        """The same input for every model: (B, n) → (E, B, n) (a view)."""
        return x.unsqueeze(0).expand(self.count, *x.shape)
