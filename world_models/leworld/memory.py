"""The artificial memory of the LeWorld system: the world's bits, reads and a learned encoder.

A read is chosen as three discrete factors (page, offset, length − 1; see
:mod:`assembly_gym.envs.memory.memory`). Its content is the mean of every bit position over the
words read, computed in O(1) from prefix sums of the bits. The straight-through estimator
(:func:`straight_through_read`) returns that hard content in the forward pass and, in the
backward pass, the gradient of the factorised surrogate

    read ≈ Σ_f Σ_j p_f[j] · content(alternative j of factor f, other factors as chosen)

with respect to each factor's probabilities p_f: the gradient every alternative page,
offset or length would have received (the straight-through softmax estimator, with the
alternatives' contents looked up in the memory rather than assumed). To keep the backward
pass cheap only the ``top_k`` most probable alternatives of each factor are looked up; the
others get no gradient on their logits (theirs would be scaled by their small probability).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from assembly_gym.envs.memory.memory import PAGE_SIZE, BitMemory
from assembly_gym.world_models.leworld.layers import mlp

__all__ = ["ArtificialMemory", "range_means", "read_alternatives", "straight_through_read"]


def range_means(prefix: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
    """Mean of each bit position over words [start, end) from prefix sums.

    Args:
        prefix: cumulative bit counts, shape (num_words + 1, word_size), row i = bits of
            words [0, i).
        starts: first word of each range, shape (…,).
        ends: one past the last word, same shape, ``ends > starts``.

    Returns:
        Shape (…, word_size).
    """
    counts = prefix[ends] - prefix[starts]
    return counts / (ends - starts).unsqueeze(-1).to(prefix.dtype)


def _ends(starts: torch.Tensor, lengths: torch.Tensor, num_words: int) -> torch.Tensor:
    return torch.clamp(starts + lengths, max=num_words)


def read_alternatives(
    prefix: torch.Tensor,
    page: torch.Tensor,
    offset: torch.Tensor,
    length_code: torch.Tensor,
    candidates: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Contents of alternative values of each factor, the other two factors as chosen.

    Args:
        prefix: (num_words + 1, word_size) cumulative bit counts.
        page: the chosen page, shape (…,) int64.
        offset: the chosen offset, shape (…,) int64.
        length_code: the chosen length − 1, shape (…,) int64.
        candidates: the alternative pages, offsets and length codes to look up, each
            (…, J_f) int64.

    Returns:
        Mean bits of each alternative, shapes (…, J_page, W), (…, J_offset, W), (…, J_length, W).
    """
    num_words = prefix.shape[0] - 1
    pages, offsets, length_codes = candidates
    length = (length_code + 1).unsqueeze(-1)
    page_starts = pages * PAGE_SIZE + offset.unsqueeze(-1)
    offset_starts = page.unsqueeze(-1) * PAGE_SIZE + offsets
    start = (page * PAGE_SIZE + offset).unsqueeze(-1).expand_as(length_codes)
    return (
        range_means(prefix, page_starts, _ends(page_starts, length, num_words)),
        range_means(prefix, offset_starts, _ends(offset_starts, length, num_words)),
        range_means(prefix, start, _ends(start, length_codes + 1, num_words)),
    )


class _StraightThroughRead(torch.autograd.Function):
    """Forward: the hard read. Backward: gradients of the factorised surrogate (module doc)."""

    @staticmethod
    def forward(
        ctx: Any,  # torch's context object, a namespace (it gets top_k)
        page_probs: torch.Tensor,
        offset_probs: torch.Tensor,
        length_probs: torch.Tensor,
        page: torch.Tensor,
        offset: torch.Tensor,
        length_code: torch.Tensor,
        prefix: torch.Tensor,
        top_k: int | None,
    ) -> torch.Tensor:
        ctx.save_for_backward(
            page_probs, offset_probs, length_probs, page, offset, length_code, prefix
        )
        ctx.top_k = top_k
        start = page * PAGE_SIZE + offset
        return range_means(prefix, start, _ends(start, length_code + 1, prefix.shape[0] - 1))

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        *probs, page, offset, length_code, prefix = ctx.saved_tensors
        candidates = tuple(_candidates(p, ctx.top_k) for p in probs)
        alternatives = read_alternatives(prefix, page, offset, length_code, candidates)  # type: ignore[arg-type]
        grads = []
        for p, index, content in zip(probs, candidates, alternatives, strict=True):
            partial = torch.einsum("...w,...jw->...j", grad, content)
            if index.shape[-1] == p.shape[-1]:  # every value, in order
                grads.append(partial)
                continue
            # Alternatives outside the candidates get the candidates' probability-weighted
            # mean gradient: after the softmax, their logits then receive no gradient.
            weights = p.gather(-1, index)
            mean = (weights * partial).sum(-1, keepdim=True) / weights.sum(
                -1, keepdim=True
            ).clamp_min(1e-12)
            grads.append(mean.expand_as(p).scatter(-1, index, partial))
        return (*grads, None, None, None, None, None)


def _candidates(probs: torch.Tensor, top_k: int | None) -> torch.Tensor:
    """All values of a factor, or its ``top_k`` most probable ones, (…, J) int64."""
    if top_k is None or top_k >= probs.shape[-1]:
        values = torch.arange(probs.shape[-1], device=probs.device)
        return values.expand(*probs.shape[:-1], probs.shape[-1])
    return probs.topk(top_k, dim=-1).indices


def straight_through_read(
    prefix: torch.Tensor,
    probs: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    choice: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    *,
    top_k: int | None = None,
) -> torch.Tensor:
    """Hard read forward, factorised straight-through gradient backward.

    Args:
        prefix: (num_words + 1, word_size) cumulative bit counts.
        probs: probabilities of page (…, num_pages), offset (…, 256), length (…, R).
        choice: the chosen page, offset and length − 1, each (…,) int64.
        top_k: look up only the k most probable alternatives of each factor (the others,
            whose gradient after the softmax is scaled by their small probability, get
            none); None looks up all of them.

    Returns:
        Mean bits of the chosen reads, shape (…, word_size).
    """
    return _StraightThroughRead.apply(*probs, *choice, prefix, top_k)


class ArtificialMemory(nn.Module):
    """The world's bit memory (as prefix sums) and a learned encoder of a read's content.

    Args:
        memory: the world's memory.
        max_read_range: longest read in words.
        read_dim: size of a read's encoding.
        hidden: hidden width of the encoder.
        top_k: alternatives per factor the straight-through gradient looks up (None: all).
        generator: initialises the encoder.
    """

    prefix: torch.Tensor  # a buffer: declared for the type checker (nn.Module.__getattr__)

    def __init__(
        self,
        memory: BitMemory,
        *,
        max_read_range: int,
        read_dim: int,
        hidden: int = 64,
        top_k: int | None = 32,
        generator: torch.Generator,
    ) -> None:
        super().__init__()
        self.bits = memory
        self.max_read_range = max_read_range
        self.top_k = top_k
        counts = torch.from_numpy(memory.unpack()).to(torch.float32).cumsum(dim=0)
        prefix = torch.cat([torch.zeros(1, memory.word_size), counts])
        # Not in the state dict: rebuilt from the memory, which is saved as words (32× smaller).
        self.register_buffer("prefix", prefix, persistent=False)
        self.encoder = mlp([2 * memory.word_size + 1, hidden, read_dim], generator)

    @property
    def num_pages(self) -> int:
        """Pages of the memory."""
        return self.bits.num_pages

    def clipped_length(
        self, page: torch.Tensor, offset: torch.Tensor, length_code: torch.Tensor
    ) -> torch.Tensor:
        """Words a read covers after clipping at the end of memory, int64 (…,)."""
        start = page * PAGE_SIZE + offset
        return _ends(start, length_code + 1, self.bits.num_words) - start

    def read(
        self, page: torch.Tensor, offset: torch.Tensor, length_code: torch.Tensor
    ) -> torch.Tensor:
        """Mean bits of hard reads (no gradient), shape (…, word_size)."""
        start = page * PAGE_SIZE + offset
        return range_means(self.prefix, start, _ends(start, length_code + 1, self.bits.num_words))

    def read_straight_through(
        self,
        probs: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
        choice: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    ) -> torch.Tensor:
        """:func:`straight_through_read` on this memory (with :attr:`top_k`)."""
        return straight_through_read(self.prefix, probs, choice, top_k=self.top_k)

    def encode(self, mean_bits: torch.Tensor, length: torch.Tensor) -> torch.Tensor:
        """Learned encoding of reads: mean bits (…, W) and clipped lengths (…,) → (…, read_dim).

        The encoder sees each bit position's mean in ±1 scale, its majority (+1 above one
        half, else −1: a binary memory's natural summary of a range) and the length. The
        majority is a step no small ReLU network fits sharply from the mean (with oracle
        reads a BLM without it stayed at 1.46× the noise floor); gradients reach the read
        through the mean.
        """
        scaled = (length.to(mean_bits.dtype) / self.max_read_range).unsqueeze(-1)
        signed = 2.0 * mean_bits - 1.0
        majority = torch.where(mean_bits > 0.5, 1.0, -1.0).to(mean_bits.dtype)
        return self.encoder(torch.cat([signed, majority, scaled], dim=-1))
