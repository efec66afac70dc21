"""Held-out metrics of the LeWorld system and the paired comparisons of the benchmarks.

* MSE and MAE of one-step predictions (true states as inputs), over all steps and dims;
* per-horizon MSE: open-loop predictions 1 … 5 steps ahead from every possible start;
* routing entropy (mean binary entropy of the gates, nats) and SLM usage (fraction of
  steps each SLM's gate is open);
* address hit rate (fraction of SLM reads that overlap a relevant window of their step)
  and IoU (mean over reads of the best intersection over union with one);
* the noise floor: MSE of the true transition mean, i.e. mean ε², the best any model can do.

The metrics are computed where the system lies: each batch of sequences crosses to its device
once, and its outputs come back once.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np
import torch
from scipy import stats

from assembly_gym.envs.memory.config import MemoryWorldConfig
from assembly_gym.envs.memory.memory import PAGE_SIZE
from assembly_gym.envs.memory.world import Episodes
from assembly_gym.world_models.leworld.batches import SequenceBatch
from assembly_gym.world_models.leworld.system import LeWorldSystem

__all__ = [
    "LeWorldMetrics",
    "PairedDifference",
    "ablation_table",
    "always_open",
    "evaluate_system",
    "metrics_table",
    "noise_floor",
    "paired_difference",
    "phase_ablation",
    "sequence_mse",
]

HORIZONS = 5
_BATCH = 100  # sequences per forward pass


@dataclass(frozen=True)
class LeWorldMetrics:
    """Held-out metrics of one system (see the module docstring).

    Attributes:
        mse, mae: one-step errors.
        horizon_mse: MSE at 1 … min(5, T) steps ahead (open loop).
        routing_entropy: nats per gate.
        slm_usage: fraction of steps each SLM is routed, length E.
        hit_rate, iou: address quality of the SLMs' reads.
        noise_floor: mean ε² of the same episodes.
    """

    mse: float
    mae: float
    horizon_mse: tuple[float, ...]
    routing_entropy: float
    slm_usage: tuple[float, ...]
    hit_rate: float
    iou: float
    noise_floor: float

    def to_dict(self) -> dict[str, object]:
        """JSON-serialisable form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> LeWorldMetrics:
        """Inverse of :meth:`to_dict`."""
        return cls(
            **{
                **values,
                "horizon_mse": tuple(values["horizon_mse"]),
                "slm_usage": tuple(values["slm_usage"]),
            }
        )


def noise_floor(episodes: Episodes) -> np.ndarray:
    """Per-sequence MSE of the true transition mean (mean ε²), shape (n,)."""
    return (episodes.noise.astype(np.float64) ** 2).mean(axis=(1, 2))


class _Predicted(Protocol):
    predictions: torch.Tensor  # ŝ_{t+1}, shape (B, T, state_dim)


class _SequenceModel(Protocol):
    """One-step predictions along whole sequences (the system's ``run``), on ``device``."""

    @property
    def device(self) -> torch.device: ...

    def run(
        self,
        batch: SequenceBatch,
        *,
        use_query: bool | None = ...,
        read_mode: str = ...,
        generator: torch.Generator | None = ...,
    ) -> _Predicted: ...


def sequence_mse(
    system: _SequenceModel,
    episodes: Episodes,
    *,
    use_query: bool | None = None,
    read_mode: str = "model",
    seed: int = 0,
) -> np.ndarray:
    """Per-sequence one-step MSE of a system, shape (n,) (the unit of paired comparisons).

    Args:
        system: a :class:`~assembly_gym.world_models.leworld.system.LeWorldSystem`, or a
            model with the same ``run`` (the memory-less MLP).
        episodes: held-out episodes.
        use_query: with or without the info request (default: the system's setting).
        read_mode: "model", "oracle" or "random".
        seed: seeds the random reads (a generator on the system's device: on the CPU the
            reads of earlier versions, on a GPU others).
    """
    generator = torch.Generator(device=system.device).manual_seed(seed)  # reads drawn there
    out = []
    with torch.no_grad():
        for first in range(0, len(episodes), _BATCH):
            part = episodes.select(slice(first, first + _BATCH))
            batch = SequenceBatch.from_episodes(part).to(system.device)
            run = system.run(batch, use_query=use_query, read_mode=read_mode, generator=generator)
            error = ((run.predictions - batch.states[:, 1:]) ** 2).mean(dim=(1, 2))
            out.append(error.cpu().numpy())
    return np.concatenate(out).astype(np.float64)


def evaluate_system(
    system: LeWorldSystem,
    episodes: Episodes,
    *,
    use_query: bool | None = None,
    read_mode: str = "model",
    seed: int = 0,
) -> LeWorldMetrics:
    """All held-out metrics of a system on episodes (arguments as in :func:`sequence_mse`)."""
    world_config, device = system.world_config, system.device
    generator = torch.Generator(device=device).manual_seed(seed)
    sq, ab, gates, probs, hits, ious = [], [], [], [], [], []
    horizons = min(HORIZONS, episodes.sequence_length)
    horizon_sq, horizon_n = np.zeros(horizons), np.zeros(horizons)
    was_training = system.training
    system.eval()
    with torch.no_grad():
        for first in range(0, len(episodes), _BATCH):
            part = episodes.select(slice(first, first + _BATCH))
            batch = SequenceBatch.from_episodes(part).to(device)
            run = system.run(batch, use_query=use_query, read_mode=read_mode, generator=generator)
            error = (run.predictions - batch.states[:, 1:]).cpu().numpy().astype(np.float64)
            sq.append((error**2).ravel())
            ab.append(np.abs(error).ravel())
            gates.append(run.gates.flatten(1).cpu().numpy())
            probs.append(run.gate_probs.flatten(1).cpu().numpy())
            hit, iou = _read_quality(world_config, run.reads.cpu().numpy(), part.regions)
            hits.append(hit.ravel())
            ious.append(iou.ravel())
            for h in range(1, horizons + 1):
                predictions, targets = system.rollout(
                    batch, h, read_mode=read_mode, generator=generator
                )
                errors = (predictions[:, :, -1] - targets[:, :, -1]) ** 2
                horizon_sq[h - 1] += float(errors.sum())
                horizon_n[h - 1] += errors.numel()
    system.train(was_training)
    p = np.clip(np.concatenate(probs, axis=1), 1e-6, 1 - 1e-6)
    entropy = float(np.mean(-(p * np.log(p) + (1 - p) * np.log(1 - p))))
    horizon = tuple(float(s / n) for s, n in zip(horizon_sq, horizon_n, strict=True))
    return LeWorldMetrics(
        mse=float(np.concatenate(sq).mean()),
        mae=float(np.concatenate(ab).mean()),
        horizon_mse=horizon,
        routing_entropy=entropy,
        slm_usage=tuple(float(u) for u in np.concatenate(gates, axis=1).mean(axis=1)),
        hit_rate=float(np.concatenate(hits).mean()),
        iou=float(np.concatenate(ious).mean()),
        noise_floor=float(noise_floor(episodes).mean()),
    )


def _read_quality(
    world_config: MemoryWorldConfig, reads: np.ndarray, regions: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Hit and IoU of reads (E, B, T, 3) against the windows of their step."""
    starts = reads[..., 0] * PAGE_SIZE + reads[..., 1]
    lengths = np.minimum(reads[..., 2] + 1, world_config.num_words - starts)
    steps = np.arange(reads.shape[2])[None, None, :]
    return world_config.read_quality(starts, lengths, regions[None, :, None], steps)


@dataclass(frozen=True)
class PairedDifference:
    """Mean of a − b over paired units with a t confidence interval.

    Attributes:
        mean_a, mean_b: the two means. difference: mean of a − b.
        low, high: the confidence interval of the difference. n: pairs. confidence: level.
    """

    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    n: int
    confidence: float


def paired_difference(a: np.ndarray, b: np.ndarray, confidence: float = 0.95) -> PairedDifference:
    """Paired t interval of mean(a − b) (a, b: one value per held-out sequence)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise ValueError(
            f"need two paired 1-D samples of at least 2 values, got {a.shape}, {b.shape}"
        )
    d = a - b
    half = stats.t.ppf(0.5 + confidence / 2, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    return PairedDifference(
        float(a.mean()),
        float(b.mean()),
        float(d.mean()),
        float(d.mean() - half),
        float(d.mean() + half),
        len(d),
        confidence,
    )


def metrics_table(rows: dict[str, LeWorldMetrics]) -> str:
    """A Markdown table, one row per system or phase."""
    horizons = max((len(m.horizon_mse) for m in rows.values()), default=0)
    header = [
        "",
        "MSE",
        "MAE",
        *[f"MSE@{h}" for h in range(1, horizons + 1)],
        "route H",
        "SLM usage",
        "hit rate",
        "IoU",
        "MSE / floor",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, m in rows.items():
        cells = [
            name,
            f"{m.mse:.4f}",
            f"{m.mae:.4f}",
            *[f"{v:.4f}" for v in m.horizon_mse],
            f"{m.routing_entropy:.3f}",
            " ".join(f"{u:.2f}" for u in m.slm_usage),
            f"{m.hit_rate:.3f}",
            f"{m.iou:.3f}",
            f"{m.mse / m.noise_floor:.2f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def phase_ablation(
    systems: Mapping[str, LeWorldSystem], episodes: Episodes
) -> dict[str, PairedDifference]:
    """What each phase and the info request change, paired by held-out sequence.

    Args:
        systems: the system after each phase, "phase N" → system, in order
            (:meth:`LeWorldModel.phase_systems
            <assembly_gym.world_models.leworld.model.LeWorldModel.phase_systems>`).
        episodes: held-out episodes.

    Returns:
        "phase b vs phase a" for consecutive phases (MSE after b − MSE after a: negative when
        phase b helps), "info request on vs off" (the last system that passes the request,
        with − without it) when one does, and "router vs always open" (the last system, its
        router's gates − every read routed). Per-sequence one-step MSE, 95 % t intervals.
    """
    mse = {name: sequence_mse(system, episodes) for name, system in systems.items()}
    names = list(mse)
    out = {
        f"{later} vs {earlier}": paired_difference(mse[later], mse[earlier])
        for earlier, later in zip(names, names[1:], strict=False)
    }
    asking = [name for name, system in systems.items() if system.use_query]
    if asking:
        off = sequence_mse(systems[asking[-1]], episodes, use_query=False)
        out["info request on vs off"] = paired_difference(mse[asking[-1]], off)
    last = systems[names[-1]]
    out["router vs always open"] = paired_difference(
        mse[names[-1]], sequence_mse(always_open(last), episodes)
    )
    return out


def always_open(system: LeWorldSystem) -> LeWorldSystem:
    """A copy of the system that routes every read (:attr:`LeWorldSystem.open_router`)."""
    opened = deepcopy(system)
    opened.open_router = True
    return opened


def ablation_table(comparisons: Mapping[str, PairedDifference]) -> str:
    """A Markdown table of paired differences (a − b; negative: a is better)."""
    lines = [
        "| comparison (a vs b) | MSE a | MSE b | a − b | 95 % CI | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for name, d in comparisons.items():
        verdict = "a better" if d.high < 0 else "a worse" if d.low > 0 else "no difference"
        lines.append(
            f"| {name} | {d.mean_a:.5f} | {d.mean_b:.5f} | {d.difference:+.6f} | "
            f"[{d.low:+.6f}, {d.high:+.6f}] | {verdict} |"
        )
    return "\n".join(lines)
