"""The LeWorld system: SLMs choose reads, the memory answers, the BLM routes and predicts.

One step (:meth:`LeWorldSystem.step`): the SLMs see (s_{t−1}, s_t, c, t, the BLM's last info
request), each chooses a read; the memory returns the reads' mean bits (straight-through in
training) and encodes them; the BLM gates the reads and predicts s_{t+1}, and emits the
query for the next step. :meth:`LeWorldSystem.run` does this over whole sequences (in
parallel over steps when there is no info request, step by step otherwise), and
:meth:`LeWorldSystem.rollout` predicts several steps ahead from its own predictions.

The system implements :class:`assembly_gym.world_models.base.WorldModel` on the observations of
``assembly/MemoryDynamics-v0``: ``predict(obs, action)`` predicts s_{t+1} from the
observation (one step, no info request: a simulator keeps no recurrent state) and fills in
the read part of the next observation from the action's read of the memory.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from assembly_gym.core.errors import CheckpointError
from assembly_gym.envs.memory.memory import PAGE_SIZE, BitMemory, clip_read, join_address
from assembly_gym.envs.memory.world import MemoryWorld, MemoryWorldConfig
from assembly_gym.world_models.base import Prediction, Transitions, register_world_model
from assembly_gym.world_models.checkpoint import (
    START_STATES,
    array_from_bytes,
    array_to_bytes,
    read_checkpoint_file,
    read_manifest,
    save_checkpoint,
)
from assembly_gym.world_models.leworld.batches import SequenceBatch, StepBatch
from assembly_gym.world_models.leworld.blm import BigLeWorldModel, BLMOutput
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.memory import ArtificialMemory
from assembly_gym.world_models.leworld.slm import SLMOutput, SmallLeWorldModel

__all__ = ["READ_MODES", "LeWorldSystem", "SequenceOutput", "StepOutput", "routing_losses"]

READ_MODES = ("model", "oracle", "random")
"""Where reads come from: the SLMs' choices, the relevant windows, or uniform draws."""
MODEL_KIND = "leworld"
_PARAMETERS = "parameters.pt"
_MEMORY = "memory_words.npy"
_START_STATES_COUNT = 256


@dataclass
class StepOutput:
    """One step of the system for a batch of B rows and E small models.

    Attributes:
        prediction: s_{t+1}, shape (B, state_dim).
        slm: the SLMs' outputs (logits, confidence, hidden state, their chosen reads).
        blm: the BLM's outputs (gates, gate probabilities, query).
        reads: the reads used (the SLMs' choice, the oracle's or random), (E, B, 3) int64:
            page, offset, length − 1.
    """

    prediction: torch.Tensor
    slm: SLMOutput
    blm: BLMOutput
    reads: torch.Tensor


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
    """

    predictions: torch.Tensor
    gate_probs: torch.Tensor
    gates: torch.Tensor
    page_probs: torch.Tensor
    reads: torch.Tensor
    slm_logits: tuple[torch.Tensor, torch.Tensor, torch.Tensor]
    confidence: torch.Tensor


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


class LeWorldSystem(nn.Module):
    """SLMs, artificial memory and BLM of one world; a :class:`~world_models.base.WorldModel`.

    Args:
        world: the world whose memory the system reads (its dimensions must match config).
        config: architecture, losses and training schedule.
        seed: initialises the weights (a ``torch.Generator``; no global random state).

    Attributes:
        obs_names: the names of ``MemoryDynamics-v0``'s observation dimensions.
        use_query: whether :meth:`run` passes the info request between steps (set by
            phase 3 of training).

    Example:
        >>> from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
        >>> world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024,
        ...                                       sequence_length=4))
        >>> system = LeWorldSystem(world, LeWorldConfig(sequence_length=4), seed=0)
        >>> episodes = world.sample_episodes(2, np.random.default_rng(0))
        >>> system.run(SequenceBatch.from_episodes(episodes)).predictions.shape
        torch.Size([2, 4, 64])
    """

    def __init__(
        self, world: MemoryWorld, config: LeWorldConfig | None = None, *, seed: int = 0
    ) -> None:
        super().__init__()
        config = config or LeWorldConfig()
        wc = world.config
        mismatch = [
            name
            for name in ("state_dim", "char_dim", "sequence_length")
            if getattr(config, name) != getattr(wc, name)
        ]
        if mismatch:
            raise ValueError(
                "LeWorldConfig and the world disagree on "
                + ", ".join(f"{n} ({getattr(config, n)} vs {getattr(wc, n)})" for n in mismatch)
                + "; build the config with the world's values"
            )
        self.world, self.config, self.seed = world, config, seed
        self.obs_names: tuple[str, ...] = world.layout.names.names
        self.use_query = False
        self.extra: dict[str, Any] = {}
        generator = torch.Generator().manual_seed(seed)
        self.memory = ArtificialMemory(
            world.memory,
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
            gates: fixed gates (E, B) instead of the router's.
            slm: the SLMs' outputs for these rows when already computed.
        """
        if slm is None:
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
        blm = self.blm(
            s, c, encoded, slm.confidence, temperature=float(self.temperature), gates=gates
        )
        return StepOutput(blm.prediction, slm, blm, torch.stack(choice, dim=-1))

    def oracle_reads(
        self, regions: torch.Tensor, step: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The relevant windows as reads: SLM i reads region i mod K; each (E, B) int64."""
        slots = torch.arange(self.config.num_slms) % regions.shape[1]
        chosen = regions[:, slots].permute(1, 0, 2)  # (E, B, 3)
        page = self.world.window_pages(chosen[..., 0], step)
        return page, chosen[..., 1], chosen[..., 2] - 1

    def random_reads(
        self, n: int, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Uniform reads for every SLM, each (E, n) int64."""
        shape = (self.config.num_slms, n)
        sizes = self.slms.sizes
        return tuple(torch.randint(size, shape, generator=generator) for size in sizes)  # type: ignore[return-value]

    def losses(
        self,
        prediction: torch.Tensor,
        target: torch.Tensor,
        gate_probs: torch.Tensor,
        page_probs: torch.Tensor,
    ) -> dict[str, torch.Tensor]:
        """Next-state MSE, the routing losses and their weighted ``total``.

        Args:
            prediction: predicted next states, shape (N, state_dim).
            target: true next states, shape (N, state_dim).
            gate_probs: shape (E, N).
            page_probs: shape (E, N, num_pages).
        """
        cfg = self.config
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

    # ------------------------------------------------------------------ sequences

    def run(
        self,
        batch: SequenceBatch,
        *,
        use_query: bool | None = None,
        read_mode: str = "model",
        generator: torch.Generator | None = None,
    ) -> SequenceOutput:
        """One-step predictions along whole sequences (true states as inputs).

        Args:
            batch: B sequences of T steps.
            use_query: pass the info request from step to step (default :attr:`use_query`);
                without it all steps run at once.
            read_mode: as in :meth:`step` (the regions come from ``batch``).
            generator: as in :meth:`step`.
        """
        use_query = self.use_query if use_query is None else use_query
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
            )
            return _sequence_output([out], b, t)
        outputs, query = [], None
        for k in range(t):
            at = torch.arange(b) * t + k
            out = self.step(
                rows.s_prev[at],
                rows.s[at],
                rows.c[at],
                rows.step[at],
                query=query,
                read_mode=read_mode,
                generator=generator,
                regions=None if rows.regions is None else rows.regions[at],
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
        starts = torch.arange(t - horizon + 1)
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
        index = starts[:, None] + torch.arange(1, horizon + 1)
        targets = states[:, index]
        return torch.stack(predictions, dim=1).reshape(b, n, horizon, -1), targets

    # ------------------------------------------------------------------ WorldModel protocol

    @property
    def max_episode_steps(self) -> int:
        """Steps of an episode of the world."""
        return self.world.config.sequence_length

    @property
    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of the observation space, each shape (d,)."""
        return self.world.layout.low.copy(), self.world.layout.high.copy()

    @property
    def start_states(self) -> np.ndarray:
        """First observations of 256 episodes of the world (seed 0), shape (256, d) float32."""
        episodes = self.world.sample_episodes(_START_STATES_COUNT, np.random.default_rng(0))
        layout = self.world.layout
        obs = np.zeros((len(episodes), len(layout)), dtype=np.float32)
        s0 = episodes.states[:, 0]
        obs[:, layout.slices["s_prev"]] = s0
        obs[:, layout.slices["s"]] = s0
        obs[:, layout.slices["c"]] = episodes.c
        return obs

    def fit(self, transitions: Transitions) -> LeWorldSystem:
        """End-to-end training (phase 2) on transitions of ``MemoryDynamics-v0``.

        Phases 1 and 3 need the world's episodes (their regions, whole sequences): use
        :func:`assembly_gym.world_models.leworld.training.train_leworld` for them.
        """
        from assembly_gym.world_models.leworld.training import fit_transitions

        if transitions.obs_names and tuple(transitions.obs_names) != self.obs_names:
            raise ValueError("transitions do not have the observation layout of this world")
        fit_transitions(self, transitions)
        return self

    @property
    def n_actions(self) -> int:
        """Reads as one Discrete index (for ``Simulator-v0``): num_pages · 256 · max_read_range.

        Index = (page · 256 + offset) · max_read_range + (length − 1).
        """
        return int(np.prod(self.slms.sizes))

    def predict(self, obs: np.ndarray, action: np.ndarray) -> Prediction:
        """Next observation: predicted s_{t+1}; the read part from the action's read.

        Args:
            obs: observations (N, d) of ``MemoryDynamics-v0``.
            action: reads (N, 3) (page, offset, length − 1), or (N,) indices < :attr:`n_actions`.

        Returns:
            Mean and std of the next observation, and ``distributions["done"]`` (N, 2): the
            probability that the episode ends (1 after the last step of the sequence).
        """
        obs, action = self._check(obs, action)
        layout, cfg = self.world.layout, self.world.config
        rows = StepBatch.from_observations(layout, cfg.sequence_length, obs, obs)
        with torch.no_grad():
            state = self.step(rows.s_prev, rows.s, rows.c, rows.step).prediction.numpy()
        start, length = clip_read(
            join_address(action[:, 0], action[:, 1]), action[:, 2] + 1, cfg.num_words
        )
        mean = np.empty_like(obs)
        mean[:, layout.slices["s_prev"]] = layout.part(obs, "s")
        mean[:, layout.slices["s"]] = state
        mean[:, layout.slices["c"]] = layout.part(obs, "c")
        mean[:, layout.slices["read_bits"]] = self.world.memory.mean_bits(start, length)
        mean[:, layout.slices["read_address"]] = np.column_stack(
            [action[:, 0] / cfg.num_pages, action[:, 1] / PAGE_SIZE, length / cfg.max_read_range]
        )
        mean[:, layout.slices["step"]] = layout.part(obs, "step") + 1.0 / cfg.sequence_length
        std = np.zeros_like(mean)
        std[:, layout.slices["s"]] = self.residual_std.numpy()
        ends = rows.step.numpy() + 1 >= cfg.sequence_length
        done = np.column_stack([~ends, ends]).astype(np.float64)
        return Prediction(mean=mean, std=std, distributions={"done": done})

    def sample(self, obs: np.ndarray, action: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One sampled next observation per row: Gaussian s_{t+1}, the rest as predicted."""
        prediction = self.predict(obs, action)
        noise = rng.standard_normal(prediction.mean.shape)
        return (prediction.mean + prediction.std * noise).astype(np.float32)

    def log_prob(self, obs: np.ndarray, action: np.ndarray, next_obs: np.ndarray) -> np.ndarray:
        """Gaussian log-likelihood of s_{t+1} (the only uncertain part), shape (N,)."""
        prediction = self.predict(obs, action)
        part = self.world.layout.slices["s"]
        z = (next_obs[:, part] - prediction.mean[:, part]) / prediction.std[:, part]
        log_norm = np.log(prediction.std[:, part]) + 0.5 * np.log(2 * np.pi)
        return -(0.5 * z**2 + log_norm).sum(axis=1)

    def choose_reads(self, obs: np.ndarray) -> np.ndarray:
        """The read of the most confident SLM for observations (N, d): actions (N, 3)."""
        obs = np.asarray(obs, dtype=np.float32).reshape(-1, len(self.obs_names))
        rows = StepBatch.from_observations(
            self.world.layout, self.world.config.sequence_length, obs, obs
        )
        with torch.no_grad():
            slm = self.slms(rows.s_prev, rows.s, rows.c, rows.step)
        best = slm.confidence.argmax(dim=0)
        columns = torch.arange(len(obs))
        reads = torch.stack(slm.choice(), dim=-1)[best, columns]
        return reads.numpy().astype(np.int64)

    def _check(self, obs: np.ndarray, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.asarray(obs, dtype=np.float32)
        action = np.asarray(action, dtype=np.int64).reshape(len(obs), -1)
        if obs.ndim != 2 or obs.shape[1] != len(self.obs_names):
            raise ValueError(f"obs must have shape (N, {len(self.obs_names)}), got {obs.shape}")
        nvec = np.array(self.slms.sizes)
        if action.shape[1] == 1 and np.all((action >= 0) & (action < self.n_actions)):
            action = np.column_stack(np.unravel_index(action[:, 0], tuple(nvec)))
        if action.shape[1] != 3 or np.any(action < 0) or np.any(action >= nvec):
            raise ValueError(
                f"actions must be (N, 3) reads below {nvec.tolist()}, got {action.shape}"
            )
        return obs, action

    # ------------------------------------------------------------------ persistence

    def save(self, path: str | Path, *, extra: dict[str, Any] | None = None) -> None:
        """Save into the folder ``path`` atomically (manifest last; see world_models.checkpoint).

        Args:
            path: the folder.
            extra: JSON-serialisable facts stored with the model (e.g. the training report).
        """
        buffer = io.BytesIO()
        torch.save(self.state_dict(), buffer)
        files = {
            _PARAMETERS: buffer.getvalue(),
            _MEMORY: array_to_bytes(self.world.memory.words),
            START_STATES: array_to_bytes(self.start_states),
        }
        payload = {
            "config": self.config.to_dict(),
            "world": self.world.config.to_dict(),
            "seed": self.seed,
            "use_query": self.use_query,
            "extra": extra or {},
        }
        save_checkpoint(
            path,
            model_kind=MODEL_KIND,
            module=__name__,
            obs_names=self.obs_names,
            payload=payload,
            files=files,
        )

    @classmethod
    def load(cls, path: str | Path) -> LeWorldSystem:
        """Load a system saved by :meth:`save`.

        Raises:
            CheckpointError: a missing, corrupted or foreign folder.
        """
        folder = Path(path)
        manifest = read_manifest(folder)
        if manifest.get("model_kind") != MODEL_KIND:
            raise CheckpointError(f"{folder}: a {manifest.get('model_kind')!r} model, not LeWorld")
        return cls.from_checkpoint(folder, manifest)

    @classmethod
    def from_checkpoint(cls, folder: Path, manifest: dict[str, Any]) -> LeWorldSystem:
        """Loader registered with :func:`assembly_gym.world_models.base.register_world_model`."""
        try:
            world_config = MemoryWorldConfig.from_dict(manifest["world"])
            config = LeWorldConfig.from_dict(manifest["config"])
            words = array_from_bytes(read_checkpoint_file(folder, _MEMORY), folder / _MEMORY)
            memory = BitMemory(words.astype(np.uint32), world_config.word_size)
            system = cls(MemoryWorld(world_config, memory=memory), config, seed=manifest["seed"])
            state = torch.load(
                io.BytesIO(read_checkpoint_file(folder, _PARAMETERS)), weights_only=True
            )
            system.load_state_dict(state)
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            if isinstance(error, CheckpointError):
                raise
            raise CheckpointError(f"{folder}: not a valid LeWorld checkpoint ({error})") from error
        system.use_query = bool(manifest.get("use_query", False))
        system.extra = manifest.get("extra", {})
        return system.eval()


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
    )


register_world_model(MODEL_KIND, LeWorldSystem.from_checkpoint)
