"""The straight-through estimators: exact forward values and the gradients they promise."""

import numpy as np
import pytest
import torch

from assembly_gym.envs.memory import build_memory
from assembly_gym.world_models.leworld.blm import straight_through_sigmoid
from assembly_gym.world_models.leworld.losses import routing_losses
from assembly_gym.world_models.leworld.memory import (
    ArtificialMemory,
    range_means,
    read_alternatives,
    straight_through_read,
)

R = 16  # max read range of these tests


@pytest.fixture(scope="module")
def memory():
    bits = build_memory("random", num_words=1024, word_size=8, seed=0)
    return ArtificialMemory(
        bits, max_read_range=R, read_dim=4, generator=torch.Generator().manual_seed(0)
    )


def test_range_means_match_numpy(memory):
    starts, ends = torch.tensor([0, 100, 1000]), torch.tensor([1, 116, 1024])
    got = range_means(memory.prefix, starts, ends).numpy()
    expected = memory.bits.mean_bits(starts.numpy(), (ends - starts).numpy())
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_hard_read_and_clipping(memory):
    page, offset, code = torch.tensor([3, 0]), torch.tensor([250, 7]), torch.tensor([15, 3])
    bits = memory.read(page, offset, code).numpy()
    np.testing.assert_allclose(
        bits, memory.bits.mean_bits(np.array([1018, 7]), np.array([16, 4])), atol=1e-6
    )
    assert memory.clipped_length(page, offset, code).tolist() == [6, 4]  # 1018 + 6 = 1024


def _surrogate(memory, logits, choice):
    """Σ_f Σ_j p_f[j]·content_f[j] over *all* alternatives, written out with autograd."""
    probs = [lg.softmax(-1) for lg in logits]
    everything = tuple(torch.arange(p.shape[-1]).expand_as(p) for p in probs)
    contents = read_alternatives(memory.prefix, *choice, everything)
    return sum(torch.einsum("bj,bjw->bw", p, c) for p, c in zip(probs, contents, strict=True))


def test_straight_through_read_forward_is_the_hard_read_and_backward_the_surrogate(memory):
    generator = torch.Generator().manual_seed(1)
    logits = [torch.randn(5, n, generator=generator, requires_grad=True) for n in (4, 256, R)]
    choice = tuple(lg.argmax(-1) for lg in logits)
    weights = torch.randn(5, 8, generator=generator)
    read = straight_through_read(memory.prefix, tuple(lg.softmax(-1) for lg in logits), choice)
    torch.testing.assert_close(read, memory.read(*choice))
    (read * weights).sum().backward()
    got = [lg.grad.clone() for lg in logits]
    for lg in logits:
        lg.grad = None
    (_surrogate(memory, logits, choice) * weights).sum().backward()
    for a, lg in zip(got, logits, strict=True):
        assert lg.grad.abs().max() > 1e-4  # not vacuous
        torch.testing.assert_close(a, lg.grad, atol=1e-6, rtol=1e-5)


def test_top_k_straight_through_gives_no_gradient_outside_the_candidates(memory):
    generator = torch.Generator().manual_seed(2)
    logits = torch.randn(3, 256, generator=generator, requires_grad=True)
    others = [torch.randn(3, n, generator=generator) for n in (4, R)]
    probs = (others[0].softmax(-1), logits.softmax(-1), others[1].softmax(-1))
    choice = (probs[0].argmax(-1), probs[1].argmax(-1), probs[2].argmax(-1))
    read = straight_through_read(memory.prefix, probs, choice, top_k=5)
    read.sum().backward()
    top = logits.softmax(-1).topk(5, dim=-1).indices
    outside = torch.ones_like(logits, dtype=torch.bool).scatter(-1, top, False)
    assert logits.grad[outside].abs().max() < 1e-7
    assert logits.grad.gather(-1, top).abs().max() > 1e-5


def test_straight_through_sigmoid_is_hard_forward_and_tempered_sigmoid_backward():
    logits = torch.tensor([-2.0, -0.1, 0.3, 4.0], requires_grad=True)
    for temperature in (1.0, 0.25):
        gates, probs = straight_through_sigmoid(logits, temperature)
        assert gates.tolist() == [0.0, 0.0, 1.0, 1.0]
        (grad,) = torch.autograd.grad(gates.sum(), logits)
        s = torch.sigmoid(logits / temperature)
        torch.testing.assert_close(grad, (s * (1 - s) / temperature).detach())
        torch.testing.assert_close(probs, s)


def test_routing_losses():
    equal = routing_losses(torch.full((3, 10), 0.5), torch.full((3, 10, 4), 0.25))
    assert equal["balance"].item() == pytest.approx(0.0)
    assert equal["entropy"].item() == pytest.approx(np.log(2))
    assert equal["diversity"].item() == pytest.approx(0.25)
    same_page = torch.zeros(2, 10, 4)
    same_page[..., 1] = 1
    skewed = routing_losses(torch.tensor([[1.0] * 10, [0.0] * 10]), same_page)
    assert skewed["diversity"].item() == pytest.approx(1.0)
    assert skewed["balance"].item() == pytest.approx(1.0)  # usage (1, 0): variance 1/4, mean 1/2
    assert skewed["entropy"].item() < 1e-4
