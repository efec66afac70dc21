"""The losses of the LeWorld system and of its three training phases.

* :func:`system_losses`: next-state MSE plus the weighted routing losses
  (:func:`routing_losses`).
* Phase 1 (:func:`phase1_loss`): the SLMs learn to hit the relevant regions (cross-entropy
  on the page, offset and length of the window of region i mod K for SLM i, and a binary
  cross-entropy for their confidence: was the whole read exactly right?); the memory
  encoder and the BLM learn to predict from oracle reads of those windows, all gates open.
  :func:`phase1_request_loss` does the same along whole sequences with the info request,
  so the request learns where to read next when that depends on what was read.
* Phase 2 (:func:`phase2_loss`): :func:`system_losses` on the SLMs' own reads.
* Phase 3 (:func:`phase3_loss`): cooperative refinement with the info-request loop: along
  whole sequences, the BLM's request passed to the SLMs' next step, the SLMs and the
  request learn the next addresses (phase 1's address losses, reads teacher-forced to the
  oracle's windows) while the BLM and its router learn from the SLMs' own reads.

Each phase loss returns ``(loss, parts)``: the parts are detached 0-dim tensors on the
system's device (for the logs), so a training step asks the device for no number.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

from assembly_gym.world_models.leworld.batches import SequenceBatch, StepBatch
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.system import LeWorldSystem, SequenceOutput

__all__ = [
    "phase1_loss",
    "phase1_request_loss",
    "phase2_loss",
    "phase3_loss",
    "read_usefulness",
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
    system: LeWorldSystem, rows: StepBatch, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Address cross-entropy + confidence BCE of the SLMs, MSE of the BLM on oracle reads.

    With a ``generator`` (training, not validation), each read is dropped (its gate closed)
    with probability ``phase1_gate_dropout``.
    """
    if rows.regions is None:
        raise ValueError("phase 1 needs the episodes' regions (its targets are their windows)")
    slm = system.slms(rows.s_prev, rows.s, rows.c, rows.step)
    targets = system.oracle_reads(rows.regions, rows.step)
    ones = torch.ones_like(slm.confidence)
    if generator is not None and system.config.phase1_gate_dropout:
        kept = torch.rand(ones.shape, generator=generator) >= system.config.phase1_gate_dropout
        ones = kept.to(ones)
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
    address, parts = _address_losses(logits, slm.confidence, targets)
    return address + mse, {**parts, "mse": mse.detach()}


def _address_losses(
    logits: tuple[torch.Tensor, ...], confidence: torch.Tensor, targets: tuple[torch.Tensor, ...]
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Address cross-entropy + confidence BCE, and the detached parts.

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
    return address + bce, _detached(
        address_ce=address, confidence_bce=bce, exact_reads=exact.float().mean()
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
        rows = (data.s, data.c, data.target)
        _add_usefulness(system, parts, out.blm.gates, out.encoded, out.slm.confidence, rows)
    return parts["total"], _detached(**parts)


def read_usefulness(
    system: LeWorldSystem,
    gates: torch.Tensor,
    encoded: torch.Tensor,
    confidence: torch.Tensor,
    rows: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
) -> torch.Tensor:
    """Whether each read lowers its row's squared error, measured by closing it.

    For SLM i, the BLM predicts from the same reads with read i and without it, the other
    gates as routed (E + 1 passes: the routed one serves every SLM). The straight-through
    gradient of a gate (the derivative of scaling its read at 1) does not tell what removing
    the read costs (docs/leworld.md, "Routing"), so the router is taught this measured
    answer instead.

    Args:
        system: the system whose BLM predicts.
        gates: the hard gates as routed, (E, N).
        encoded: the reads' encodings, (E, N, read_dim).
        confidence: the SLMs' confidences, (E, N).
        rows: s_t (N, state_dim), c (N, char_dim) and the true s_{t+1} (N, state_dim).

    Returns:
        1.0 where the error with read i is below the error without it, else 0.0, (E, N).
    """
    s, c, target = rows
    gates = gates.detach()

    def error(routed: torch.Tensor) -> torch.Tensor:
        blm = system.blm(s, c, encoded, confidence, temperature=system.temperature, gates=routed)
        return ((blm.prediction - target) ** 2).mean(-1)

    useful = torch.empty_like(gates)
    with torch.no_grad():
        as_routed = error(gates)  # one pass as routed, then one with each gate flipped
        for i in range(len(gates)):
            flipped = gates.clone()
            flipped[i] = 1.0 - gates[i]
            other = error(flipped)
            with_read = torch.where(gates[i] > 0, as_routed, other)
            without = torch.where(gates[i] > 0, other, as_routed)
            useful[i] = (with_read < without).to(useful)
    return useful


def _add_usefulness(
    system: LeWorldSystem,
    parts: dict[str, torch.Tensor],
    gates: torch.Tensor,
    encoded: torch.Tensor,
    confidence: torch.Tensor,
    rows: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
) -> None:
    """Add the usefulness loss (weight ``lambda_usefulness``) to ``parts`` and its total.

    The router scores detached reads here: the loss teaches the router, and moves neither
    the reads' encoding nor the SLMs' confidence (measured: when it did, the held-out MSE
    rose by 1.4 % in the decoy world).
    """
    weight = system.config.lambda_usefulness
    if not weight:
        return
    useful = read_usefulness(system, gates, encoded, confidence, rows)
    s, c, _ = rows
    logits = system.blm.gate_logits(s, c, encoded.detach(), confidence.detach())
    probs = torch.sigmoid(logits / system.temperature).clamp(1e-6, 1 - 1e-6)
    parts["usefulness"] = F.binary_cross_entropy(probs, useful)
    parts["total"] = parts["total"] + weight * parts["usefulness"]


def _sequence_losses(
    system: LeWorldSystem, batch: SequenceBatch, *, use_query: bool, slm_gradient: bool = True
) -> dict[str, torch.Tensor]:
    """:func:`system_losses` of whole sequences, with or without the info request."""
    target = batch.states[:, 1:].reshape(-1, batch.states.shape[-1])
    out = system.run(batch, use_query=use_query, slm_gradient=slm_gradient)
    e = out.gate_probs.shape[0]
    parts = system_losses(
        system.config,
        out.predictions.reshape(target.shape),
        target,
        out.gate_probs.reshape(e, -1),
        out.page_probs.reshape(e, -1, out.page_probs.shape[-1]),
    )
    t = batch.sequence_length
    rows = (batch.states[:, :-1].reshape(target.shape), batch.c.repeat_interleave(t, 0), target)
    _add_usefulness(system, parts, out.gates.reshape(e, -1),
                    out.encoded.reshape(e, len(target), -1), out.confidence.reshape(e, -1),
                    rows)  # fmt: skip
    return parts


def phase1_request_loss(
    system: LeWorldSystem, batch: SequenceBatch
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """:func:`phase1_loss` along whole sequences with the info request (teacher-forced reads).

    Every step reads the oracle's windows and passes the BLM's request to the SLMs' next
    step, so the address loss of step t + 1 reaches the request made at step t.
    """
    address, parts, forced = _request_address_losses(system, batch)
    mse = ((forced.predictions - batch.states[:, 1:]) ** 2).mean()
    return address + mse, {**parts, "mse": mse.detach()}


def phase3_loss(
    system: LeWorldSystem, batch: SequenceBatch
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Cooperative refinement with the info-request loop (see the module docstring).

    The address losses of :func:`phase1_request_loss` (oracle reads, the request passed
    between steps) train the SLMs and the request; the next-state MSE and routing losses of
    :func:`system_losses` on a second run with the SLMs' own reads (taken as chosen) and the
    request train the BLM, its router and the read encoder on what they will see.
    """
    address, parts, _ = _request_address_losses(system, batch)
    own = _sequence_losses(system, batch, use_query=True, slm_gradient=False)
    total = own.pop("total")
    return address + total, {**parts, **_detached(**own)}


def _request_address_losses(
    system: LeWorldSystem, batch: SequenceBatch
) -> tuple[torch.Tensor, dict[str, torch.Tensor], SequenceOutput]:
    """Address losses of whole sequences run with the oracle's reads and the info request."""
    rows = batch.steps()  # sequence-major rows, as out's (E, B, T) flatten to (E, B·T)
    if rows.regions is None:
        raise ValueError("the address losses need the episodes' regions (their windows)")
    forced = system.run(batch, use_query=True, read_mode="oracle")
    logits = tuple(value.flatten(1, 2) for value in forced.slm_logits)
    targets = system.oracle_reads(rows.regions, rows.step)
    address, parts = _address_losses(logits, forced.confidence.flatten(1), targets)
    return address, parts, forced


def _detached(**parts: torch.Tensor) -> dict[str, torch.Tensor]:
    """The parts without their graphs (still on the device: reading them is the caller's)."""
    return {name: value.detach() for name, value in parts.items()}
