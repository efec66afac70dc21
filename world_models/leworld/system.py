"""The LeWorld system: SLMs choose reads, the memory answers, the BLM routes and predicts.

One step (:meth:`LeWorldSystem.step`): the SLMs see (s_{t−1}, s_t, c, t, the BLM's last info
request), each chooses a read; the memory returns the reads' mean bits (straight-through in
training) and encodes them; the BLM gates the reads and predicts s_{t+1}, and emits the
query for the next step. :meth:`LeWorldSystem.run` does this over whole sequences (in
parallel over steps when there is no info request, step by step otherwise), and
:meth:`LeWorldSystem.rollout` predicts several steps ahead from its own predictions.

The system is a pure ``nn.Module`` over tensors; its training is
:mod:`assembly_gym.world_models.leworld.training`, its ``WorldModel`` adapter
:class:`~assembly_gym.world_models.leworld.model.LeWorldModel`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from assembly_gym.envs.memory.config import MemoryWorldConfig
from assembly_gym.envs.memory.memory import BitMemory
from assembly_gym.world_models.leworld.batches import SequenceBatch
from assembly_gym.world_models.leworld.blm import BigLeWorldModel, BLMOutput
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.memory import ArtificialMemory
from assembly_gym.world_models.leworld.slm import SLMOutput, SmallLeWorldModel

__all__ = ["READ_MODES", "LeWorldSystem", "SequenceOutput", "StepOutput", "count_params"]

READ_MODES = ("model", "oracle", "random")
"""Where reads come from: the SLMs' choices, the relevant windows, or uniform draws."""


@dataclass
class StepOutput:
    """One step of the system for a batch of B rows and E small models.

    Attributes:
        prediction: s_{t+1}, shape (B, state_dim).
        slm: the SLMs' outputs (logits, confidence, hidden state, their chosen reads).
        blm: the BLM's outputs (gates, gate probabilities, query).
        reads: the reads used (the SLMs' choice, the oracle's or random), (E, B, 3) int64:
            page, offset, length − 1.
        encoded: the reads' encodings the BLM saw, shape (E, B, read_dim).
    """

    prediction: torch.Tensor
    slm: SLMOutput
    blm: BLMOutput
    reads: torch.Tensor
    encoded: torch.Tensor


@dataclass
class SequenceOutput:
    """The system run over B sequences of T steps (E small models).

    Attributes:
        predictions: ŝ_{t+1} for t = 0 … T − 1, shape (B, T, state_dim).
        gate_probs: shape (E, B, T). gates: hard gates, shape (E, B, T).
        page_probs: the SLMs' page distributions, shape (E, B, T, num_pages).
        reads: the reads used, shape (E, B, T, 3).
        slm_logits: (page, offset, length) logits, each (E, B, T, ·).
        confidence: shape (E, B, T).
        encoded: the reads' encodings the BLM saw, shape (E, B, T, read_dim).
    """

    predictions: torch.Tensor
    gate_probs: torch.Tensor
    gates: torch.Tensor
    page_probs: torch.Tensor
    reads: torch.Tensor
    slm_logits: tuple[torch.Tensor, torch.Tensor, torch.Tensor]
    confidence: torch.Tensor
    encoded: torch.Tensor


class LeWorldSystem(nn.Module):
    """SLMs, artificial memory and BLM of one world.

    Args:
        world_config: the world's description (sizes; where the regions lie at each step).
        memory: the world's memory content, ``world_config.num_words`` words of
            ``world_config.word_size`` bits.
        config: the model's hyperparameters (architecture, losses and training schedule).
        seed: initialises the weights (a ``torch.Generator``; no global random state).

    The system is built on the CPU, so a seed gives the same weights everywhere; move it with
    ``.to(device)`` (the entry points' ``device="auto"`` do). :meth:`run` and :meth:`rollout`
    move their batch to the system's device once; :meth:`step` takes tensors already there.

    Attributes:
        use_query: whether :meth:`run` passes the info request between steps (set by
            phase 3 of training when it keeps what it learned).
        open_router: route every read, whatever the router says (the always-open baseline
            the evaluation compares the router with; not saved).
        temperature: the router's temperature τ (buffer; annealed in training).
        residual_std: the predictive standard deviation of each state dimension, shape
            (state_dim,) (buffer; set from validation residuals after training).

    Example:
        >>> import numpy as np
        >>> from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
        >>> world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024,
        ...                                       sequence_length=4))
        >>> system = LeWorldSystem(world.config, world.memory, LeWorldConfig(), seed=0)
        >>> episodes = world.sample_episodes(2, np.random.default_rng(0))
        >>> system.run(SequenceBatch.from_episodes(episodes)).predictions.shape
        torch.Size([2, 4, 64])
    """

    temperature: torch.Tensor  # buffers: declared for the type checker (nn.Module.__getattr__)
    residual_std: torch.Tensor

    def __init__(
        self,
        world_config: MemoryWorldConfig,
        memory: BitMemory,
        config: LeWorldConfig | None = None,
        *,
        seed: int = 0,
    ) -> None:
        super().__init__()
        wc = world_config
        if (memory.num_words, memory.word_size) != (wc.num_words, wc.word_size):
            raise ValueError(
                f"a memory of {memory.num_words} × {memory.word_size} bits does not match the "
                f"world's {wc.num_words} × {wc.word_size}"
            )
        config = config or LeWorldConfig()
        self.world_config, self.config, self.seed = wc, config, seed
        self.use_query = False
        self.open_router = False
        generator = torch.Generator().manual_seed(seed)
        self.memory = ArtificialMemory(
            memory,
            max_read_range=wc.max_read_range,
            read_dim=config.read_dim,
            generator=generator,
            top_k=config.straight_through_top_k,
        )
        self.slms = SmallLeWorldModel(
            count=config.num_slms,
            state_dim=wc.state_dim,
            char_dim=wc.char_dim,
            sequence_length=wc.sequence_length,
            query_dim=config.query_dim,
            hidden=config.slm_hidden,
            num_pages=wc.num_pages,
            max_read_range=wc.max_read_range,
            generator=generator,
        )
        self.blm = BigLeWorldModel(
            num_slms=config.num_slms,
            state_dim=wc.state_dim,
            char_dim=wc.char_dim,
            read_dim=config.read_dim,
            query_dim=config.query_dim,
            hidden=config.blm_hidden,
            generator=generator,
        )
        self.register_buffer("temperature", torch.tensor(1.0))
        self.register_buffer("residual_std", torch.full((wc.state_dim,), wc.noise_std))

    @property
    def device(self) -> torch.device:
        """Where the system's parameters and buffers lie (move them with ``.to(device)``)."""
        return self.memory.prefix.device

    # ------------------------------------------------------------------ one step

    def step(
        self,
        s_prev: torch.Tensor,
        s: torch.Tensor,
        c: torch.Tensor,
        step: torch.Tensor,
        *,
        query: torch.Tensor | None = None,
        read_mode: str = "model",
        regions: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
        gates: torch.Tensor | None = None,
        slm: SLMOutput | None = None,
        slm_gradient: bool = True,
    ) -> StepOutput:
        """One step for a batch of rows.

        Args:
            s_prev: s_{t−1}, shape (B, state_dim).
            s: s_t, shape (B, state_dim).
            c: characteristics, shape (B, char_dim).
            step: t, shape (B,) int64.
            query: the previous step's info request (B, query_dim), or None.
            read_mode: "model" (the SLMs' choices, straight-through), "oracle" (SLM i reads
                the window of region i mod K; needs ``regions``) or "random" (uniform reads
                from ``generator``).
            regions: the episodes' regions (B, K, 3), for "oracle".
            generator: for "random".
            gates: fixed gates (E, B) instead of the router's (default: the router's, or
                all open with :attr:`open_router`).
            slm: the SLMs' outputs for these rows when already computed.
            slm_gradient: whether a loss reaches the SLMs (through the straight-through read
                and their confidence); False takes their reads as chosen.
        """
        if slm is None:
            with torch.set_grad_enabled(slm_gradient and torch.is_grad_enabled()):
                slm = self.slms(s_prev, s, c, step, query)
        if read_mode == "model":
            choice = slm.choice()
            bits = self.memory.read_straight_through(slm.probs(), choice)
        elif read_mode == "oracle":
            if regions is None:
                raise ValueError("read_mode='oracle' needs the episodes' regions")
            choice = self.oracle_reads(regions, step)
            bits = self.memory.read(*choice)
        elif read_mode == "random":
            if generator is None:
                raise ValueError("read_mode='random' needs a torch.Generator (no global state)")
            choice = self.random_reads(len(s), generator)
            bits = self.memory.read(*choice)
        else:
            raise ValueError(f"read_mode must be one of {READ_MODES}, got {read_mode!r}")
        encoded = self.memory.encode(bits, self.memory.clipped_length(*choice))
        if gates is None and self.open_router:
            gates = torch.ones_like(slm.confidence)
        blm = self.blm(s, c, encoded, slm.confidence, temperature=self.temperature, gates=gates)
        return StepOutput(blm.prediction, slm, blm, torch.stack(choice, dim=-1), encoded)

    def oracle_reads(
        self, regions: torch.Tensor, step: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The relevant windows as reads: SLM i reads region i mod K; each (E, B) int64."""
        slots = torch.arange(self.config.num_slms, device=regions.device) % regions.shape[1]
        chosen = regions[:, slots].permute(1, 0, 2)  # (E, B, 3), or 3 + T: pointer chasing
        page = self.world_config.region_pages(chosen, step)
        return page, chosen[..., 1], chosen[..., 2] - 1

    def random_reads(
        self, n: int, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Uniform reads for every SLM, each (E, n) int64, on the system's device.

        Drawn on the generator's device (a CPU generator gives the same reads on any device;
        one on the system's device avoids a copy).
        """
        shape, device = (self.config.num_slms, n), generator.device
        return tuple(  # type: ignore[return-value]
            torch.randint(size, shape, generator=generator, device=device).to(self.device)
            for size in self.slms.sizes
        )

    # ------------------------------------------------------------------ sequences

    def run(
        self,
        batch: SequenceBatch,
        *,
        use_query: bool | None = None,
        read_mode: str = "model",
        generator: torch.Generator | None = None,
        slm_gradient: bool = True,
    ) -> SequenceOutput:
        """One-step predictions along whole sequences (true states as inputs).

        Args:
            batch: B sequences of T steps.
            use_query: pass the info request from step to step (default :attr:`use_query`);
                without it all steps run at once.
            read_mode: as in :meth:`step` (the regions come from ``batch``).
            generator: as in :meth:`step`.
            slm_gradient: as in :meth:`step`.
        """
        use_query = self.use_query if use_query is None else use_query
        batch = batch.to(self.device)
        b, t = len(batch), batch.sequence_length
        rows = batch.steps()
        if not use_query:
            out = self.step(
                rows.s_prev,
                rows.s,
                rows.c,
                rows.step,
                read_mode=read_mode,
                regions=rows.regions,
                generator=generator,
                slm_gradient=slm_gradient,
            )
            return _sequence_output([out], b, t)
        outputs, query, first = [], None, torch.arange(b, device=self.device) * t
        for k in range(t):
            at = first + k
            out = self.step(
                rows.s_prev[at],
                rows.s[at],
                rows.c[at],
                rows.step[at],
                query=query,
                read_mode=read_mode,
                generator=generator,
                regions=None if rows.regions is None else rows.regions[at],
                slm_gradient=slm_gradient,
            )
            outputs.append(out)
            query = out.blm.query
        return _sequence_output(outputs, b, t, step_major=True)

    def rollout(
        self,
        batch: SequenceBatch,
        horizon: int,
        *,
        read_mode: str = "model",
        generator: torch.Generator | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Open-loop predictions ``horizon`` steps ahead from every start t0 ≤ T − horizon.

        From (s_{t0−1}, s_{t0}) the system predicts ŝ_{t0+1}, then feeds its predictions back
        (the info request, when :attr:`use_query`, is passed along the rollout).

        Returns:
            (predictions, targets), each shape (B, T − horizon + 1, horizon, state_dim).
        """
        b, t = len(batch), batch.sequence_length
        if not 1 <= horizon <= t:
            raise ValueError(f"horizon must be 1 … {t}, got {horizon}")
        batch = batch.to(self.device)
        starts = torch.arange(t - horizon + 1, device=self.device)
        n = len(starts)
        states = batch.states
        prev = states[:, (starts - 1).clamp_min(0)].reshape(b * n, -1)
        current = states[:, starts].reshape(b * n, -1)
        c = batch.c.repeat_interleave(n, dim=0)
        regions = None if batch.regions is None else batch.regions.repeat_interleave(n, dim=0)
        step, query, predictions = starts.repeat(b), None, []
        for _ in range(horizon):
            out = self.step(
                prev,
                current,
                c,
                step,
                query=query if self.use_query else None,
                read_mode=read_mode,
                regions=regions,
                generator=generator,
            )
            predictions.append(out.prediction)
            prev, current, step, query = current, out.prediction, step + 1, out.blm.query
        index = starts[:, None] + torch.arange(1, horizon + 1, device=self.device)
        targets = states[:, index]
        return torch.stack(predictions, dim=1).reshape(b, n, horizon, -1), targets


def count_params(system: LeWorldSystem) -> dict[str, int]:
    """Trainable parameters per component, and their ``"total"``.

    Components: ``"SLMs"`` (all E small models but their query modulation), ``"SLM query
    modulation"`` (the FiLM weights the info request enters by), ``"read encoder"``,
    ``"router"`` (its MLP and per-SLM biases), ``"BLM predictor"`` (trunk, head and skip)
    and ``"info-request head"``.

    Example:
        >>> from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
        >>> world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024,
        ...                                       sequence_length=4))
        >>> counts = count_params(LeWorldSystem(world.config, world.memory, seed=0))
        >>> counts["total"] == sum(v for k, v in counts.items() if k != "total")
        True
    """

    def size(*modules: nn.Module | nn.Parameter) -> int:
        return sum(
            p.numel()
            for m in modules
            for p in ([m] if isinstance(m, nn.Parameter) else m.parameters())
        )

    slms, blm = system.slms, system.blm
    counts = {
        "SLMs": size(slms) - size(slms.query_film),
        "SLM query modulation": size(slms.query_film),
        "read encoder": size(system.memory.encoder),
        "router": size(blm.router, blm.router_bias),
        "BLM predictor": size(blm.trunk, blm.head, blm.skip),
        "info-request head": size(blm.info_head),
    }
    counts["total"] = size(system)
    return counts


def _sequence_output(
    outputs: list[StepOutput], b: int, t: int, *, step_major: bool = False
) -> SequenceOutput:
    """Gather step outputs into (E, B, T, …) tensors.

    ``outputs`` is either one output over all B·T rows (sequence-major) or T outputs of B
    rows each (``step_major``).
    """

    def gather(values: list[torch.Tensor]) -> torch.Tensor:
        if step_major:
            return torch.stack(values, dim=2)  # (E, B, T, …)
        (value,) = values
        return value.reshape(value.shape[0], b, t, *value.shape[2:])

    predictions = (
        torch.stack([o.prediction for o in outputs], dim=1)
        if step_major
        else outputs[0].prediction.reshape(b, t, -1)
    )
    return SequenceOutput(
        predictions=predictions,
        gate_probs=gather([o.blm.gate_probs for o in outputs]),
        gates=gather([o.blm.gates for o in outputs]),
        page_probs=gather([o.slm.page_logits.softmax(-1) for o in outputs]),
        reads=gather([o.reads for o in outputs]),
        slm_logits=tuple(
            gather([getattr(o.slm, f"{name}_logits") for o in outputs])
            for name in ("page", "offset", "length")
        ),  # type: ignore[arg-type]
        confidence=gather([o.slm.confidence for o in outputs]),
        encoded=gather([o.encoded for o in outputs]),
    )
