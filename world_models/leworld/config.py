"""The one configuration of the LeWorld system: architecture, losses and the three phases.

The sizes of the world (state, characteristics, sequence length, memory) are not here: the
system takes them from the world's description,
:class:`~assembly_gym.envs.memory.config.MemoryWorldConfig`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from assembly_gym.core.persist import dataclass_from_dict

__all__ = ["LeWorldConfig"]


_MAY_BE_ZERO = (
    "phase1_gate_dropout",
    "weight_decay",
    "phase2_warmup_steps",
    "phase2_freeze_slm_epochs",
    "temperature_anneal_rate",
)


@dataclass(frozen=True)
class LeWorldConfig:
    """Architecture, loss weights and training schedule (defaults as the issue lists them).

    Attributes:
        phase1_lr: learning rate of phase 1 (SLMs on address targets, BLM on oracle reads).
        phase1_epochs: epochs of phase 1.
        phase1_batch_size: sequences per batch in phase 1.
        phase1_request: phase 1 runs whole sequences step by step with the info request
            passed between steps (reads teacher-forced to the oracle's windows), so that the
            request learns to tell the SLMs where to read next from phase 1 on. Needed where
            the next read depends on what was read (``pointer_chasing`` worlds, see
            :meth:`for_pointer_chasing`): there phase 1 can teach the addresses after the
            first step only through the request; slower per epoch (the steps of a sequence
            run one after another).
        phase1_gate_dropout: probability that phase 1 drops each read (closes its gate), so
            that the BLM learns to predict from any subset of the reads and a read the world
            does not need stops helping it (0: every read open).
        phase2_lr: peak learning rate of phase 2.
        phase2_epochs: epochs of phase 2.
        phase2_batch_size: sequences per batch in phase 2.
        phase2_warmup_steps: linear warm-up steps before the cosine schedule of phase 2.
        phase2_restart_epochs: epochs of the first cosine cycle of phase 2 (warm restarts;
            each next cycle as long).
        phase2_freeze_slm_epochs: the first epochs of phase 2 during which the SLMs (their
            address heads and confidence) are frozen, so that the BLM, the router and the
            read encoder adapt to the SLMs' own reads before the reads move (0: none;
            ≥ ``phase2_epochs``: the whole phase, the default: measured, the end-to-end
            address gradient moves the reads off the regions within an epoch, see
            docs/leworld.md).
        phase3_lr: learning rate of phase 3 (every parameter).
        phase3_epochs: epochs of phase 3.
        phase3_batch_size: sequences per batch in phase 3.
        weight_decay: AdamW weight decay (all phases).
        grad_clip: maximum global gradient norm (all phases).
        lambda_balance: weight of the routing-balance loss (CV² of the SLMs' mean gate).
        lambda_diversity: weight of the address-diversity loss (overlap of the SLMs' page
            distributions).
        lambda_entropy: weight of the routing-entropy loss (binary entropy of the gates).
        lambda_usefulness: weight of the usefulness loss of phase 2: the binary
            cross-entropy between each gate's probability and whether its read lowered the
            row's error (:func:`~assembly_gym.world_models.leworld.losses.read_usefulness`).
        router_lr_scale: the router's learning rate in phases 2 and 3 as a multiple of the
            phase's (a gate must be able to travel from open to closed within a phase).
        temperature_anneal_rate: router temperature τ = max(τ_min, exp(−rate · step)).
        temperature_min: τ_min.
        num_slms: number of small models.
        slm_hidden: hidden width of each SLM.
        blm_hidden: hidden width of the BLM's predictor.
        read_dim: size of a read's learned encoding.
        query_dim: size of the info-request query.
        straight_through_top_k: alternatives per address factor the straight-through
            gradient looks up (the most probable ones).
        num_train_sequences: training sequences drawn from the world.
        resample_train: draw ``num_train_sequences`` fresh sequences from the world every
            epoch (the world is a simulator: an address decoder trained on one fixed set of
            characteristics memorises them); False trains on one fixed set.
        num_val_sequences: validation sequences (best state of each phase is kept).
        num_test_sequences: held-out sequences of the evaluation tables.
    """

    phase1_lr: float = 1e-3
    phase1_epochs: int = 50
    phase1_batch_size: int = 32
    phase1_request: bool = False
    phase1_gate_dropout: float = 0.0
    phase2_lr: float = 3e-4
    phase2_epochs: int = 100
    phase2_batch_size: int = 16
    phase2_warmup_steps: int = 500
    phase2_restart_epochs: int = 25
    phase2_freeze_slm_epochs: int = 100
    phase3_lr: float = 1e-4
    phase3_epochs: int = 50
    phase3_batch_size: int = 16
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    lambda_balance: float = 0.01
    lambda_diversity: float = 0.001
    lambda_entropy: float = 0.01
    lambda_usefulness: float = 1.0
    router_lr_scale: float = 30.0
    temperature_anneal_rate: float = 3e-5
    temperature_min: float = 0.1
    num_slms: int = 4
    slm_hidden: int = 128
    blm_hidden: int = 256
    read_dim: int = 32
    query_dim: int = 16
    straight_through_top_k: int = 32
    num_train_sequences: int = 1000
    resample_train: bool = True
    num_val_sequences: int = 200
    num_test_sequences: int = 500

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool):
                continue
            if item.name.startswith("lambda_") or item.name in _MAY_BE_ZERO:
                if value < 0:
                    raise ValueError(f"{item.name} must be non-negative, got {value}")
            elif value <= 0:
                raise ValueError(f"{item.name} must be positive, got {value}")
        if self.temperature_min > 1:
            raise ValueError(f"temperature_min must be at most 1, got {self.temperature_min}")

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-serialisable dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> LeWorldConfig:
        """Inverse of :meth:`to_dict`; unknown keys raise ValueError naming the known ones."""
        return dataclass_from_dict(cls, values, what="LeWorld")

    def quick(self) -> LeWorldConfig:
        """The ``--quick`` profile: a tenth of the epochs of phases 2 and 3.

        Phase 1 stays whole: it is cheap, and the SLMs' address decoders need its steps;
        with ``phase1_request`` it runs half its epochs (:meth:`for_pointer_chasing`'s 200
        → 100: enough for a 16,384-word memory, not for 65,536). Wall times in
        docs/leworld.md, "Figures".
        """
        phase1 = max(1, self.phase1_epochs // 2) if self.phase1_request else self.phase1_epochs
        return replace(
            self,
            phase1_epochs=phase1,
            phase2_epochs=max(1, self.phase2_epochs // 10),
            phase2_restart_epochs=max(1, self.phase2_restart_epochs // 10),
            phase2_freeze_slm_epochs=self.phase2_freeze_slm_epochs // 10,
            phase3_epochs=max(1, self.phase3_epochs // 10),
        )

    def for_pointer_chasing(self) -> LeWorldConfig:
        """The profile for worlds whose next read depends on the last (``pointer_chasing``).

        Phase 1 with the info request (``phase1_request``), at 3× the learning rate and for
        200 epochs: the SLMs first learn the first page from c, and only then (after about
        50 epochs on 16,384 words, 100 on 65,536) does the request learn to carry the
        pointer (docs/leworld.md, "Pointer chasing").
        """
        return replace(self, phase1_request=True, phase1_lr=3e-3, phase1_epochs=200)
