"""The LeWorld system as a :class:`~assembly_gym.world_models.base.WorldModel`.

:class:`LeWorldModel` wraps a :class:`~assembly_gym.world_models.leworld.system.LeWorldSystem`
and speaks the protocol on the observations of ``assembly/MemoryDynamics-v0``:
``predict(obs, action)`` predicts s_{t+1} from the observation (one step, no info request: a
simulator keeps no recurrent state) and fills in the read part of the next observation from
the action's read of the memory; ``fit`` is phase 2 of the training, on transitions;
``save``/``load`` write and read a checkpoint folder (kind ``"leworld"``).

The model runs on ``device`` (docs/leworld.md, section "Command line"): a call's
observations cross to it once and its outputs come back once.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from assembly_gym.core.device import resolve_device
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import array_from_bytes, array_to_bytes, checked_field
from assembly_gym.core.transitions import Transitions
from assembly_gym.envs.memory.config import MemoryWorldConfig
from assembly_gym.envs.memory.memory import PAGE_SIZE, BitMemory, clip_read, join_address
from assembly_gym.envs.memory.world import MemoryWorld
from assembly_gym.world_models.base import Prediction, register_world_model
from assembly_gym.world_models.checkpoint import (
    MANIFEST,
    START_STATES,
    Artifact,
    checkpoint_file,
    load_torch_weights,
    read_checkpoint,
    save_checkpoint,
)
from assembly_gym.world_models.leworld.batches import StepBatch
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.system import LeWorldSystem
from assembly_gym.world_models.leworld.training import fit_transitions

__all__ = ["MODEL_KIND", "LeWorldModel"]

MODEL_KIND = "leworld"
"""The ``model_kind`` of LeWorld checkpoints."""
_PARAMETERS = "parameters.pt"
_PHASE_FILE = "{}.pt"  # the parameters after a phase: "phase 1" → phase1.pt
_MEMORY = "memory_words.npy"
_START_STATES_COUNT = 256
_START_STATES_SEED = 0


class LeWorldModel:
    """A LeWorld system seen through the observations and actions of ``MemoryDynamics-v0``.

    Args:
        system: the system (trained or not); the model predicts with it and trains it in
            place (:meth:`fit`).
        extra: JSON-serialisable facts kept with the model (e.g. the training report).
        device: where the system runs, moved there in place
            (:func:`~assembly_gym.core.device.resolve_device`).
        phase_states: the system's parameters after each training phase, "phase N" → state
            dict (:attr:`TrainingReport.states
            <assembly_gym.world_models.leworld.training.TrainingReport>`); saved with the model
            for :meth:`phase_systems`.

    Attributes:
        world: a :class:`~assembly_gym.envs.memory.world.MemoryWorld` of the system's
            description and memory (to draw episodes or build the env).
        layout: the observation layout of the world.
        obs_names: the names of the observation dimensions.
        phase_states: the parameters after each phase, "phase N" → state dict of CPU tensors
            (empty for a system saved without them).

    Example:
        >>> from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
        >>> world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024,
        ...                                       sequence_length=4))
        >>> model = LeWorldModel(LeWorldSystem(world.config, world.memory, seed=0))
        >>> obs = model.start_states[:2]
        >>> model.predict(obs, np.array([[0, 0, 15], [1, 32, 7]])).mean.shape
        (2, 196)
    """

    def __init__(
        self,
        system: LeWorldSystem,
        *,
        extra: dict[str, Any] | None = None,
        device: str | torch.device = "auto",
        phase_states: Mapping[str, Mapping[str, torch.Tensor]] | None = None,
    ) -> None:
        self.system = system.to(resolve_device(device))
        self.phase_states = {
            name: {key: value.detach().cpu() for key, value in state.items()}
            for name, state in (phase_states or {}).items()
        }
        self.world = MemoryWorld(system.world_config, memory=system.memory.bits)
        self.layout = self.world.layout
        self.obs_names: tuple[str, ...] = self.layout.names.names
        self.extra: dict[str, Any] = extra or {}

    @property
    def world_config(self) -> MemoryWorldConfig:
        """The world's description."""
        return self.system.world_config

    @property
    def memory(self) -> BitMemory:
        """The world's memory content."""
        return self.system.memory.bits

    def phase_systems(self) -> dict[str, LeWorldSystem]:
        """The system after each phase it was trained in, "phase N" → a system on its device.

        A copy of :attr:`system` (same world, config and seed) with the parameters the phase
        ended with; every phase of a config with ``phase1_request`` passes the info request
        (``use_query``), and "phase 3", always the last, when the system does (phase 3 may
        have kept phase 2's parameters without the request).
        Empty when the checkpoint holds no per-phase parameters.
        """
        systems = {}
        for name, state in self.phase_states.items():
            system = LeWorldSystem(
                self.world_config, self.memory, self.system.config, seed=self.system.seed
            )
            system.load_state_dict(state)
            system.use_query = self.system.config.phase1_request or (
                name == "phase 3" and self.system.use_query
            )
            systems[name] = system.to(self.system.device).eval()
        return systems

    # ------------------------------------------------------------------ for the simulator

    @property
    def max_episode_steps(self) -> int:
        """Steps of an episode of the world."""
        return self.world_config.sequence_length

    @property
    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of the observation space, each shape (d,)."""
        return self.layout.low.copy(), self.layout.high.copy()

    @property
    def start_states(self) -> np.ndarray:
        """First observations of 256 episodes of the world (seed 0), shape (256, d) float32."""
        rng = np.random.default_rng(_START_STATES_SEED)
        episodes = self.world.sample_episodes(_START_STATES_COUNT, rng)
        layout = self.layout
        obs = np.zeros((len(episodes), len(layout)), dtype=np.float32)
        s0 = episodes.states[:, 0]
        obs[:, layout.slices["s_prev"]] = s0
        obs[:, layout.slices["s"]] = s0
        obs[:, layout.slices["c"]] = episodes.c
        return obs

    @property
    def n_actions(self) -> int:
        """Reads as one Discrete index (for ``Simulator-v0``): num_pages · 256 · max_read_range.

        Index = (page · 256 + offset) · max_read_range + (length − 1).
        """
        return int(np.prod(self.system.slms.sizes))

    # ------------------------------------------------------------------ WorldModel protocol

    def fit(self, transitions: Transitions) -> LeWorldModel:
        """End-to-end training (phase 2) on transitions of ``MemoryDynamics-v0``.

        Phases 1 and 3 need the world's episodes (their regions, whole sequences): use
        :func:`assembly_gym.world_models.leworld.training.train_leworld` for them.
        """
        if transitions.obs_names and tuple(transitions.obs_names) != self.obs_names:
            raise ValueError("transitions do not have the observation layout of this world")
        fit_transitions(self.system, transitions)
        return self

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
        layout, cfg = self.layout, self.world_config
        rows = StepBatch.from_observations(layout, cfg.sequence_length, obs, obs)
        ends = rows.step.numpy() + 1 >= cfg.sequence_length
        rows = rows.to(self.system.device)
        with torch.no_grad():
            prediction = self.system.step(rows.s_prev, rows.s, rows.c, rows.step).prediction
        state = prediction.cpu().numpy()
        start, length = clip_read(
            join_address(action[:, 0], action[:, 1]), action[:, 2] + 1, cfg.num_words
        )
        mean = np.empty_like(obs)
        mean[:, layout.slices["s_prev"]] = layout.part(obs, "s")
        mean[:, layout.slices["s"]] = state
        mean[:, layout.slices["c"]] = layout.part(obs, "c")
        mean[:, layout.slices["read_bits"]] = self.memory.mean_bits(start, length)
        mean[:, layout.slices["read_address"]] = np.column_stack(
            [action[:, 0] / cfg.num_pages, action[:, 1] / PAGE_SIZE, length / cfg.max_read_range]
        )
        mean[:, layout.slices["step"]] = layout.part(obs, "step") + 1.0 / cfg.sequence_length
        std = np.zeros_like(mean)
        std[:, layout.slices["s"]] = self.system.residual_std.cpu().numpy()
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
        part = self.layout.slices["s"]
        z = (next_obs[:, part] - prediction.mean[:, part]) / prediction.std[:, part]
        log_norm = np.log(prediction.std[:, part]) + 0.5 * np.log(2 * np.pi)
        return -(0.5 * z**2 + log_norm).sum(axis=1)

    def choose_reads(self, obs: np.ndarray) -> np.ndarray:
        """The read of the most confident SLM for observations (N, d): actions (N, 3)."""
        obs = np.asarray(obs, dtype=np.float32).reshape(-1, len(self.obs_names))
        rows = StepBatch.from_observations(self.layout, self.world_config.sequence_length, obs, obs)
        rows = rows.to(self.system.device)
        with torch.no_grad():
            slm = self.system.slms(rows.s_prev, rows.s, rows.c, rows.step)
        best = slm.confidence.argmax(dim=0)
        columns = torch.arange(len(obs), device=best.device)
        reads = torch.stack(slm.choice(), dim=-1)[best, columns]
        return reads.cpu().numpy().astype(np.int64)

    def _check(self, obs: np.ndarray, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.asarray(obs, dtype=np.float32)
        action = np.asarray(action, dtype=np.int64).reshape(len(obs), -1)
        if obs.ndim != 2 or obs.shape[1] != len(self.obs_names):
            raise ValueError(f"obs must have shape (N, {len(self.obs_names)}), got {obs.shape}")
        nvec = np.array(self.system.slms.sizes)
        if action.shape[1] == 1 and np.all((action >= 0) & (action < self.n_actions)):
            action = np.column_stack(np.unravel_index(action[:, 0], tuple(nvec)))
        if action.shape[1] != 3 or np.any(action < 0) or np.any(action >= nvec):
            raise ValueError(
                f"actions must be (N, 3) reads below {nvec.tolist()}, got {action.shape}"
            )
        return obs, action

    # ------------------------------------------------------------------ persistence

    def save(
        self,
        path: str | Path,
        *,
        extra: dict[str, Any] | None = None,
        files: dict[str, bytes] | None = None,
    ) -> None:
        """Save into the folder ``path`` whole (see assembly_gym.world_models.checkpoint).

        Args:
            path: the folder.
            extra: JSON-serialisable facts stored with the model (e.g. the training report).
            files: more files of the checkpoint, name → content (e.g. the printed results),
                saved in the same swap as the model.

        Raises:
            ValueError: a file of ``files`` has the name of one of the model's own.
        """
        system = self.system
        state = system.state_dict()
        for name, value in state.items():  # CPU tensors: the checkpoint loads on any device
            state[name] = value.cpu()
        buffer = io.BytesIO()
        torch.save(state, buffer)
        own = {
            _PARAMETERS: buffer.getvalue(),
            _MEMORY: array_to_bytes(self.memory.words),
            START_STATES: array_to_bytes(self.start_states),
        }
        for name, phase_state in self.phase_states.items():
            buffer = io.BytesIO()
            torch.save(dict(phase_state), buffer)
            own[_phase_file(name)] = buffer.getvalue()
        clashes = sorted(set(own) & set(files or {}))
        if clashes:
            raise ValueError(f"files {clashes} are the model's own")
        payload = {
            "config": system.config.to_dict(),
            "world": self.world_config.to_dict(),
            "seed": system.seed,
            "use_query": system.use_query,
            "phases": list(self.phase_states),
            "extra": extra or {},
        }
        save_checkpoint(
            path,
            model_kind=MODEL_KIND,
            module=__name__,
            obs_names=self.obs_names,
            payload=payload,
            files={**own, **(files or {})},
        )

    @classmethod
    def load(cls, path: str | Path, *, device: str | torch.device = "auto") -> LeWorldModel:
        """Load a model saved by :meth:`save` onto ``device`` (as in :class:`LeWorldModel`).

        It loads on any device, wherever it was trained.

        Raises:
            CheckpointError: a missing, corrupted or foreign folder.
        """
        checkpoint = read_checkpoint(path)
        kind = checkpoint.manifest["model_kind"]
        if kind != MODEL_KIND:
            raise CheckpointError(f"{checkpoint.folder}: a {kind!r} model, not LeWorld")
        return cls.from_checkpoint(checkpoint, device=device)

    @classmethod
    def from_checkpoint(
        cls, checkpoint: Artifact, *, device: str | torch.device = "auto"
    ) -> LeWorldModel:
        """Loader registered with :func:`assembly_gym.world_models.base.register_world_model`.

        The weights are read onto the CPU, then the system moves to ``device``.
        """
        folder, manifest = checkpoint.folder, checkpoint.manifest
        source = folder / MANIFEST
        world = checked_field(manifest, "world", dict, source)
        saved_config = checked_field(manifest, "config", dict, source)
        seed = checked_field(manifest, "seed", int, source)
        use_query = checked_field(manifest, "use_query", bool, source)
        extra = checked_field(manifest, "extra", dict, source)
        phases = checked_field(manifest, "phases", list, source, items=str)
        try:
            world_config = MemoryWorldConfig.from_dict(world)
            config = LeWorldConfig.from_dict(saved_config)
            words = array_from_bytes(checkpoint_file(checkpoint, _MEMORY), folder / _MEMORY)
            memory = BitMemory(words.astype(np.uint32), world_config.word_size)
            system = LeWorldSystem(world_config, memory, config, seed=seed)
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            if isinstance(error, CheckpointError):
                raise
            raise CheckpointError(f"{folder}: not a valid LeWorld checkpoint ({error})") from error
        phase_states = {}
        for name in phases:  # each read into the system to check it, then kept on the CPU
            file = _phase_file(name)
            load_torch_weights(system, checkpoint_file(checkpoint, file), folder / file)
            phase_states[name] = copy.deepcopy(system.state_dict())
        load_torch_weights(system, checkpoint_file(checkpoint, _PARAMETERS), folder / _PARAMETERS)
        system.use_query = use_query
        return cls(system.eval(), extra=extra, device=device, phase_states=phase_states)


def _phase_file(name: str) -> str:
    """The file of a phase's parameters: "phase 2" → "phase2.pt"."""
    return _PHASE_FILE.format(name.replace(" ", ""))


register_world_model(MODEL_KIND, LeWorldModel.from_checkpoint)
