"""The losses of the LeWorld system and of its three training phases.

* :func:`system_losses`: next-state MSE plus the weighted routing losses
  (:func:`routing_losses`).
* Phase 1 (:func:`phase1_loss`): the SLMs learn to hit the relevant regions (cross-entropy
  on the page, offset and length of the window of region i mod K for SLM i, and a binary
  cross-entropy for their confidence: was the whole read exactly right?); the memory
  encoder and the BLM learn to predict from oracle reads of those windows, all gates open.
  :func:`phase1_request_loss` does the same along whole sequences with the info request,
  so the request learns where to read next when that depends on what was read.
* Phase 2 (:func:`phase2_loss`): end to end, :func:`system_losses`.
* Phase 3 (:func:`phase3_loss`): paired branches on the same sequences, with the info
  request passed from step to step and without it. Loss
  ½ (L_with + L_without) − λ_info · (sg(MSE_without) − MSE_with): both branches stay good,
  and the request is rewarded by the improvement it brings.

Each phase loss returns ``(loss, parts)``: the parts are detached 0-dim tensors on the
system's device (for the logs), so a training step asks the device for no number.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

from assembly_gym.world_models.leworld.batches import SequenceBatch, StepBatch
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.system import LeWorldSystem

__all__ = [
    "phase1_loss",
    "phase1_request_loss",
    "phase2_loss",
    "phase3_loss",
    "routing_losses",
    "system_losses",
]


def routing_losses(gate_probs: torch.Tensor, page_probs: torch.Tensor) -> dict[str, torch.Tensor]:
    """Routing balance, address diversity and routing entropy.

    Args:
        gate_probs: σ(router logit / τ), shape (E, N).
        page_probs: the SLMs' page distributions, shape (E, N, num_pages).

    Returns:
        ``balance``: squared coefficient of variation of the SLMs' mean gate (0 when every
        SLM is used equally); ``diversity``: mean over SLM pairs of the probability that both
        pick the same page (Σ_j p_i[j]·p_k[j]); ``entropy``: mean binary entropy of the gates
        in nats.
    """
    usage = gate_probs.mean(dim=1)
    balance = usage.var(unbiased=False) / usage.mean().clamp_min(1e-6) ** 2
    e = len(page_probs)
    if e > 1:
        overlap = torch.einsum("inp,knp->ikn", page_probs, page_probs).mean(-1)
        diversity = overlap.triu(diagonal=1).sum() / (e * (e - 1) / 2)
    else:
        diversity = gate_probs.new_zeros(())
    p = gate_probs.clamp(1e-6, 1 - 1e-6)
    entropy = -(p * p.log() + (1 - p) * (1 - p).log()).mean()
    return {"balance": balance, "diversity": diversity, "entropy": entropy}


def system_losses(
    config: LeWorldConfig,
    prediction: torch.Tensor,
    target: torch.Tensor,
    gate_probs: torch.Tensor,
    page_probs: torch.Tensor,
) -> dict[str, torch.Tensor]:
    """Next-state MSE, the routing losses and their ``total``, weighted as ``config`` says.

    Args:
        config: the system's hyperparameters (the weights λ of the routing losses).
        prediction: predicted next states, shape (N, state_dim).
        target: true next states, shape (N, state_dim).
        gate_probs: shape (E, N).
        page_probs: shape (E, N, num_pages).
    """
    cfg = config
    parts = {
        "mse": ((prediction - target) ** 2).mean(),
        **routing_losses(gate_probs, page_probs),
    }
    parts["total"] = (
        parts["mse"]
        + cfg.lambda_balance * parts["balance"]
        + cfg.lambda_diversity * parts["diversity"]
        + cfg.lambda_entropy * parts["entropy"]
    )
    return parts


def phase1_loss(
    system: LeWorldSystem, rows: StepBatch
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Address cross-entropy + confidence BCE of the SLMs, MSE of the BLM on oracle reads."""
    if rows.regions is None:
        raise ValueError("phase 1 needs the episodes' regions (its targets are their windows)")
    slm = system.slms(rows.s_prev, rows.s, rows.c, rows.step)
    targets = system.oracle_reads(rows.regions, rows.step)
    ones = torch.ones_like(slm.confidence)
    out = system.step(
        rows.s_prev,
        rows.s,
        rows.c,
        rows.step,
        read_mode="oracle",
        regions=rows.regions,
        gates=ones,
        slm=slm,
    )
    mse = ((out.prediction - rows.target) ** 2).mean()
    logits = (slm.page_logits, slm.offset_logits, slm.length_logits)
    return _phase1_losses(logits, slm.confidence, targets, mse)


def phase1_request_loss(
    system: LeWorldSystem, batch: SequenceBatch
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """:func:`phase1_loss` along whole sequences with the info request (teacher-forced reads).

    Every step reads the oracle's windows and passes the BLM's request to the SLMs' next
    step, so the address loss of step t + 1 reaches the request made at step t.
    """
    rows = batch.steps()  # sequence-major rows, as out's (E, B, T) flatten to (E, B·T)
    if rows.regions is None:
        raise ValueError("phase 1 needs the episodes' regions (its targets are their windows)")
    out = system.run(batch, use_query=True, read_mode="oracle")
    targets = system.oracle_reads(rows.regions, rows.step)
    logits = tuple(value.flatten(1, 2) for value in out.slm_logits)
    mse = ((out.predictions - batch.states[:, 1:]) ** 2).mean()
    return _phase1_losses(logits, out.confidence.flatten(1), targets, mse)


def _phase1_losses(
    logits: tuple[torch.Tensor, ...],
    confidence: torch.Tensor,
    targets: tuple[torch.Tensor, ...],
    mse: torch.Tensor,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Address cross-entropy + confidence BCE + ``mse``, and the detached parts.

    Logits (page, offset, length), each (E, N, ·), against the oracle's targets (E, N); the
    confidences (E, N) are trained to say whether the argmax read is exact.
    """
    address = sum(
        (
            F.cross_entropy(lg.flatten(0, 1), tg.flatten())
            for lg, tg in zip(logits, targets, strict=True)
        ),
        start=confidence.new_zeros(()),
    )
    exact = torch.stack([lg.argmax(-1) == tg for lg, tg in zip(logits, targets, strict=True)]).all(
        dim=0
    )
    bce = F.binary_cross_entropy(confidence, exact.to(confidence.dtype))
    return address + bce + mse, _detached(
        address_ce=address, confidence_bce=bce, mse=mse, exact_reads=exact.float().mean()
    )


def phase2_loss(
    system: LeWorldSystem, data: StepBatch | SequenceBatch
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Next-state MSE + routing balance, address diversity and routing entropy.

    Rows of steps (one step each), or whole sequences run with the system's info request
    (:attr:`LeWorldSystem.use_query`).
    """
    if isinstance(data, SequenceBatch):
        parts = _sequence_losses(system, data, use_query=system.use_query)
    else:
        out = system.step(data.s_prev, data.s, data.c, data.step)
        parts = system_losses(
            system.config,
            out.prediction,
            data.target,
            out.blm.gate_probs,
            out.slm.page_logits.softmax(-1),
        )
    return parts["total"], _detached(**parts)


def _sequence_losses(
    system: LeWorldSystem, batch: SequenceBatch, *, use_query: bool
) -> dict[str, torch.Tensor]:
    """:func:`system_losses` of whole sequences, with or without the info request."""
    target = batch.states[:, 1:].reshape(-1, batch.states.shape[-1])
    out = system.run(batch, use_query=use_query)
    e = out.gate_probs.shape[0]
    return system_losses(
        system.config,
        out.predictions.reshape(target.shape),
        target,
        out.gate_probs.reshape(e, -1),
        out.page_probs.reshape(e, -1, out.page_probs.shape[-1]),
    )


def phase3_loss(
    system: LeWorldSystem, batch: SequenceBatch
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Paired branches with and without the info request (see the module docstring)."""
    branches = [_sequence_losses(system, batch, use_query=q) for q in (True, False)]
    totals = [parts["total"] for parts in branches]
    mses = [parts["mse"] for parts in branches]
    utility = mses[1].detach() - mses[0]
    loss = 0.5 * (totals[0] + totals[1]) - system.config.lambda_info * utility
    return loss, _detached(mse_with=mses[0], mse_without=mses[1], info_utility=utility)


def _detached(**parts: torch.Tensor) -> dict[str, torch.Tensor]:
    """The parts without their graphs (still on the device: reading them is the caller's)."""
    return {name: value.detach() for name, value in parts.items()}
