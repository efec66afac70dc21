"""The big LeWorld model (BLM): routes between the SLMs' reads, predicts, and asks for info."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from assembly_gym.world_models.leworld.layers import linear, mlp

__all__ = ["BLMOutput", "BigLeWorldModel", "straight_through_sigmoid"]

_ROUTER_BIAS = 2.0  # initial gate logit: every SLM starts routed (σ(2) ≈ 0.88)


def straight_through_sigmoid(
    logits: torch.Tensor, temperature: float | torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Hard 0/1 gates forward, the gradient of σ(logits / τ) backward.

    Returns:
        (gates, probs): gates equal 1[σ(logits/τ) > 1/2] in value, and have
        ∂gates/∂logits = σ'(logits/τ)/τ; probs = σ(logits/τ). Both shaped like logits.
    """
    probs = torch.sigmoid(logits / temperature)
    hard = (probs > 0.5).to(probs.dtype)
    return hard + (probs - probs.detach()), probs


@dataclass
class BLMOutput:
    """What the BLM outputs for a batch of B rows and E small models.

    Attributes:
        prediction: the predicted next state, shape (B, state_dim).
        gates: routed (1) or not (0), straight-through, shape (E, B).
        gate_probs: σ(router logit / τ), shape (E, B).
        query: the info request for the SLMs' next step, shape (B, query_dim) in [−1, 1].
    """

    prediction: torch.Tensor
    gates: torch.Tensor
    gate_probs: torch.Tensor
    query: torch.Tensor


class BigLeWorldModel(nn.Module):
    """Router over the SLMs' reads, next-state predictor and info-request head.

    The router scores each SLM from (s_t, c, its read's encoding, its confidence) with
    shared weights plus a per-SLM bias; gates are straight-through sigmoids at the
    annealed temperature τ. The predictor is an MLP with a linear skip over (s_t, c, the
    gated read encodings side by side). The info head maps the predictor's last hidden layer
    to a query in [−1, 1] that the SLMs receive at the next step.

    Args:
        num_slms: E.
        state_dim, char_dim, read_dim, query_dim: sizes.
        hidden: hidden width of the predictor.
        generator: initialises the weights.
        router_hidden: hidden width of the router.
    """

    def __init__(
        self,
        *,
        num_slms: int,
        state_dim: int,
        char_dim: int,
        read_dim: int,
        query_dim: int,
        hidden: int,
        generator: torch.Generator,
        router_hidden: int = 64,
    ) -> None:
        super().__init__()
        context = state_dim + char_dim
        self.router = mlp([context + read_dim + 1, router_hidden, 1], generator)
        self.router_bias = nn.Parameter(torch.full((num_slms,), _ROUTER_BIAS))
        inputs = context + num_slms * read_dim
        self.trunk = mlp([inputs, hidden, hidden], generator)
        self.head = linear(hidden, state_dim, generator)
        self.skip = linear(inputs, state_dim, generator)
        self.info_head = linear(hidden, query_dim, generator)
        # Whether the gates' gradients reach the router's inputs (the reads' encodings and the
        # SLMs' confidences). Phase 1 lets them (the info request then learns the pointer
        # better: page accuracy 0.81 against 0.70 without); phases 2 and 3 do not, else the
        # balance loss reshapes the reads of unneeded SLMs to keep their gates open.
        self.router_shapes_reads = True

    def forward(
        self,
        s: torch.Tensor,
        c: torch.Tensor,
        reads: torch.Tensor,
        confidence: torch.Tensor,
        *,
        temperature: float | torch.Tensor,
        gates: torch.Tensor | None = None,
    ) -> BLMOutput:
        """Route, predict and ask.

        Args:
            s: s_t, shape (B, state_dim).
            c: characteristics, shape (B, char_dim).
            reads: read encodings, shape (E, B, read_dim).
            confidence: the SLMs' confidences, shape (E, B).
            temperature: router temperature τ (a float, or a 0-dim tensor on the device: no
                host sync).
            gates: fixed gates (E, B) instead of the router's (phase 1: all ones).
        """
        context = torch.cat([s, c], dim=-1)
        logits = self.gate_logits(s, c, reads, confidence)
        if gates is None:
            gates, probs = straight_through_sigmoid(logits, temperature)
        else:
            probs = torch.sigmoid(logits / temperature)
        gated = (gates.unsqueeze(-1) * reads).permute(1, 0, 2).reshape(len(s), -1)
        x = torch.cat([context, gated], dim=-1)
        hidden = F.relu(self.trunk(x))
        prediction = self.head(hidden) + self.skip(x)
        return BLMOutput(prediction, gates, probs, torch.tanh(self.info_head(hidden)))

    def gate_logits(
        self, s: torch.Tensor, c: torch.Tensor, reads: torch.Tensor, confidence: torch.Tensor
    ) -> torch.Tensor:
        """The router's logit for each SLM and row, shape (E, B) (shapes as in :meth:`forward`)."""
        context = torch.cat([s, c], dim=-1)
        expanded = context.unsqueeze(0).expand(reads.shape[0], *context.shape)
        scored = torch.cat([expanded, reads, confidence.unsqueeze(-1)], -1)
        logits = self.router(scored if self.router_shapes_reads else scored.detach())[..., 0]
        return logits + self.router_bias.unsqueeze(-1)
