"""``MLPEnsemble``: a probabilistic ensemble of MLPs with categorical and Gaussian heads.

Each member maps [standardised s, one-hot a] through SiLU layers with dropout to

* logits of every categorical head of the :class:`~assembly_gym.world_models.schema.StateSchema`,
  trained by cross-entropy;
* a mean and a bounded log standard deviation per Gaussian dimension, in units normalised
  by the training statistics of s' (trained by Gaussian negative log-likelihood).

Members start from different seeded weights and see the data in different seeded orders (as
in Chua et al. 2018, "Deep reinforcement learning in a handful of trials using
probabilistic dynamics models", without the bootstrap). Training: see docs/world_models.md,
section "Models".
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from tqdm.auto import tqdm

from assembly_gym.core.device import resolve_device
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import checked_field
from assembly_gym.core.tensorboard import summary_writer
from assembly_gym.core.transitions import Transitions
from assembly_gym.world_models.base import register_world_model
from assembly_gym.world_models.checkpoint import MANIFEST, load_torch_weights
from assembly_gym.world_models.heads import HeadModel, HeadOutputs
from assembly_gym.world_models.schema import Cumulative, RowCumulative

__all__ = ["MLPEnsemble"]

_WEIGHTS = "weights.pt"
_LOG_STD_BOUNDS = (-6.0, 1.0)  # normalised units: std from 0.25 % to 2.7 training stds
_CHUNK = 32_768  # rows per forward pass at prediction time


class _EnsembleNet(nn.Module):
    """M independent MLPs evaluated as batched matrix products: (M, B, n_in) → (M, B, n_out)."""

    def __init__(self, members: int, sizes: Sequence[int], generator: torch.Generator) -> None:
        super().__init__()
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for n_in, n_out in zip(sizes[:-1], sizes[1:], strict=True):
            bound = 1.0 / math.sqrt(n_in)  # PyTorch's default nn.Linear initialisation range
            weight = (torch.rand(members, n_in, n_out, generator=generator) * 2 - 1) * bound
            bias = (torch.rand(members, 1, n_out, generator=generator) * 2 - 1) * bound
            self.weights.append(nn.Parameter(weight))
            self.biases.append(nn.Parameter(bias))

    def forward(
        self, x: torch.Tensor, dropout: float = 0.0, generator: torch.Generator | None = None
    ) -> torch.Tensor:
        last = len(self.weights) - 1
        for i, (weight, bias) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = torch.baddbmm(bias, x, weight)
            if i < last:
                x = F.silu(x)
                if dropout > 0:  # drawn from our CPU generator (any device: the same masks)
                    keep = (torch.rand(x.shape, generator=generator) >= dropout).to(x.device)
                    x = x * keep / (1.0 - dropout)
        return x


class MLPEnsemble(HeadModel):
    """An ensemble of MLPs predicting the schema's categorical and Gaussian heads.

    Args:
        members: ensemble size M.
        hidden: hidden layer widths.
        dropout: dropout probability of hidden units while training.
        weight_decay: AdamW weight decay.
        learning_rate: AdamW learning rate.
        batch_size: rows per gradient step (per member).
        epoch_rows: rows per epoch: each member sees a fresh random subset of this many
            training rows (all of them when there are fewer), and validation uses at most
            this many rows; on large data early stopping then checks often.
        max_epochs: upper bound on epochs.
        patience: epochs without a member improving on validation before stopping.
        n_bins: bins of each binned share
            (see :class:`~assembly_gym.world_models.schema.StateSchema`).
        seed: seed of initialisation, data order, dropout, the validation split (when none
            is given) and the start-state subsample.
        threads: torch intra-op threads while this model fits and predicts (restored
            afterwards; not saved); None leaves torch's setting. One thread is often faster
            on a busy machine: small batched products gain little from a second thread.
        device: where it trains and predicts
            (:func:`~assembly_gym.core.device.resolve_device`; not saved; docs/world_models.md,
            section "Devices").

    Example:
        >>> from assembly_gym.envs.legislative.transitions import deliberation_transitions
        >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
        >>> assembly = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=2))
        >>> data = deliberation_transitions(assembly)
        >>> model = MLPEnsemble(members=2, max_epochs=2).fit(data)
        >>> prediction = model.predict(data.obs[:3], data.acts[:3])
        >>> prediction.distributions["stage"].shape, prediction.epistemic_std.shape
        ((3, 4), (3, 75))
    """

    kind = "mlp_ensemble"

    def __init__(
        self,
        *,
        members: int = 5,
        hidden: Sequence[int] = (32, 32),
        dropout: float = 0.3,
        weight_decay: float = 1e-2,
        learning_rate: float = 1e-2,
        batch_size: int = 256,
        epoch_rows: int = 65_536,
        max_epochs: int = 40,
        patience: int = 3,
        n_bins: int = 20,
        seed: int = 0,
        threads: int | None = None,
        device: str | torch.device = "auto",
    ) -> None:
        super().__init__(n_bins=n_bins, seed=seed)
        if min(members, batch_size, epoch_rows, max_epochs, patience) < 1:
            raise ValueError("members, batch_size, epoch_rows, max_epochs, patience must be ≥ 1")
        if not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.members = members
        self.hidden = tuple(int(h) for h in hidden)
        self.dropout = dropout
        self.weight_decay = weight_decay
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.epoch_rows = epoch_rows
        self.max_epochs = max_epochs
        self.patience = patience
        self.threads = threads
        self.device = resolve_device(device)
        self.history: list[dict[str, float]] = []
        self._net: _EnsembleNet | None = None
        self._obs_mean = np.zeros(0, dtype=np.float32)
        self._obs_scale = np.ones(0, dtype=np.float32)
        self._temperatures = torch.ones(0)

    def to(self, device: str | torch.device) -> MLPEnsemble:
        """Move the model to ``device`` (see :func:`~assembly_gym.core.device.resolve_device`)."""
        self.device = resolve_device(device)
        if self._net is not None:
            self._net.to(self.device)
        self._temperatures = self._temperatures.to(self.device)
        return self

    # ------------------------------------------------------------------ network layout

    def _sizes(self) -> list[int]:
        schema = self._fitted_schema()
        n_out = sum(schema.heads.values()) + 2 * schema.n_continuous
        return [len(self.obs_names) + self.n_actions, *self.hidden, n_out]

    def _inputs(self, obs: np.ndarray, action: np.ndarray) -> torch.Tensor:
        scaled = (obs - self._obs_mean) / self._obs_scale
        one_hot = np.eye(self.n_actions, dtype=np.float32)[action]
        x = np.concatenate([scaled, one_hot], axis=1).astype(np.float32)
        return torch.from_numpy(x).to(self.device)

    def _split(
        self, out: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
        """Head logits, Gaussian means and log stds (normalised units) of raw outputs."""
        schema = self._fitted_schema()
        logits, start = {}, 0
        for h, (name, size) in enumerate(schema.heads.items()):
            logits[name] = out[..., start : start + size] / self._temperatures[h]
            start += size
        n = schema.n_continuous
        mean, raw = out[..., start : start + n], out[..., start + n : start + 2 * n]
        low, high = _LOG_STD_BOUNDS
        log_std = high - F.softplus(high - raw)
        log_std = low + F.softplus(log_std - low)
        return logits, mean, log_std

    def _loss(
        self, out: torch.Tensor, classes: torch.Tensor, valid: torch.Tensor, z: torch.Tensor
    ) -> torch.Tensor:
        """Per-member mean negative log-likelihood of a batch, shape (M,).

        Args:
            out: raw outputs, shape (M, B, n_out).
            classes: target class per head, shape (M, B, H) int64.
            valid: where each head's target is defined, shape (M, B, H) bool.
            z: normalised Gaussian targets, shape (M, B, n_continuous).
        """
        logits, mean, log_std = self._split(out)
        total = torch.zeros(out.shape[:2], device=out.device)
        for h, head in enumerate(logits.values()):
            picked = F.log_softmax(head, dim=-1).gather(-1, classes[..., h : h + 1]).squeeze(-1)
            total = total - picked * valid[..., h]
        if z.shape[-1]:
            total = total + (0.5 * ((z - mean) / log_std.exp()) ** 2 + log_std).sum(-1)
        return total.mean(dim=1)

    # ------------------------------------------------------------------ fitting

    def _targets(self, data: Transitions) -> tuple[torch.Tensor, ...]:
        schema = self._fitted_schema()
        targets = schema.targets(data.next_obs, data.dones)
        classes = np.stack([targets[name][0] for name in schema.heads], axis=1)
        valid = np.stack([targets[name][1] for name in schema.heads], axis=1)
        z = schema.gaussian.normalise(data.next_obs).astype(np.float32)
        return (self._inputs(data.obs, np.asarray(data.acts, dtype=np.int64)),
                torch.from_numpy(classes).to(self.device),
                torch.from_numpy(valid.astype(np.float32)).to(self.device),
                torch.from_numpy(z).to(self.device))  # fmt: skip

    def _fit(
        self,
        train: Transitions,
        validation: Transitions | None,
        *,
        progress: bool = False,
        log_dir: str | Path | None = None,
    ) -> None:
        """Train with early stopping.

        Args:
            train: training transitions.
            validation: early-stopping transitions (default: 20 % of the training groups,
                drawn with ``seed``).
            progress: show a tqdm bar over epochs.
            log_dir: write TensorBoard scalars (losses per epoch) into this folder.
        """
        with _torch_threads(self.threads):
            self._train(train, validation, progress, log_dir)

    def _train(
        self,
        train: Transitions,
        validation: Transitions | None,
        progress: bool,
        log_dir: str | Path | None,
    ) -> None:
        if validation is None:
            train, validation = train.split_by_episode((0.8, 0.2), np.random.default_rng(self.seed))
        if len(train) == 0 or len(validation) == 0:
            raise ValueError("training and validation need at least one transition each")
        self._temperatures = torch.ones(len(self._fitted_schema().heads), device=self.device)
        self._obs_mean = train.obs.mean(axis=0).astype(np.float32)
        self._obs_scale = np.where(train.obs.std(axis=0) > 1e-6, train.obs.std(axis=0), 1.0)
        self._obs_scale = self._obs_scale.astype(np.float32)
        generator = torch.Generator().manual_seed(self.seed)
        net = _EnsembleNet(self.members, self._sizes(), generator).to(self.device)
        optimiser = torch.optim.AdamW(net.parameters(), lr=self.learning_rate,
                                      weight_decay=self.weight_decay)  # fmt: skip
        x, classes, valid, z = self._targets(train)
        val = self._targets(validation)
        if len(val[0]) > self.epoch_rows:
            keep = torch.randperm(len(val[0]), generator=generator)[: self.epoch_rows]
            val = tuple(t[keep.to(self.device)] for t in val)
        per_epoch = min(len(x), self.epoch_rows)
        writer = summary_writer(log_dir)
        best = torch.full((self.members,), math.inf, device=self.device)
        best_state = [p.detach().clone() for p in net.parameters()]
        self.history, stale = [], 0
        epochs = tqdm(
            range(self.max_epochs), desc="MLPEnsemble", unit="epoch", disable=not progress
        )
        for epoch in epochs:
            net.train()
            order = torch.stack([torch.randperm(len(x), generator=generator)[:per_epoch]
                                 for _ in range(self.members)]).to(self.device)  # fmt: skip
            running, batches = torch.zeros((), dtype=torch.float64, device=self.device), 0
            for start in range(0, per_epoch, self.batch_size):
                rows = order[:, start : start + self.batch_size]
                out = net(x[rows], self.dropout, generator)
                loss = self._loss(out, classes[rows], valid[rows], z[rows]).sum()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                running, batches = running + loss.detach().double() / self.members, batches + 1
            val_loss = self._validation_loss(net, *val)
            improved = val_loss < best - 1e-4
            best = torch.where(improved, val_loss, best)
            with torch.no_grad():
                for saved, parameter in zip(best_state, net.parameters(), strict=True):
                    saved[improved] = parameter[improved]
            stale = 0 if improved.any() else stale + 1
            record = {"epoch": epoch + 1, "train": running.item() / batches,
                      "validation": float(val_loss.mean())}  # fmt: skip
            self.history.append(record)
            epochs.set_postfix(train=f"{record['train']:.3f}", val=f"{record['validation']:.3f}")
            if writer is not None:
                writer.add_scalar("loss/train", record["train"], epoch + 1)
                writer.add_scalar("loss/validation", record["validation"], epoch + 1)
            if stale >= self.patience:
                break
        if writer is not None:
            writer.close()
        with torch.no_grad():
            for saved, parameter in zip(best_state, net.parameters(), strict=True):
                parameter.copy_(saved)
        net.eval()
        self._calibrate(net, *val[:3])
        self._net = net

    def _calibrate(
        self, net: _EnsembleNet, x: torch.Tensor, classes: torch.Tensor, valid: torch.Tensor
    ) -> None:
        """Temperature scaling of every head on the validation rows (Guo et al. 2017).

        One temperature per head divides the logits of every member; it minimises the
        validation NLL of the members' average, with the weights fixed.
        """
        heads = list(self._fitted_schema().heads)
        parts: dict[str, list[torch.Tensor]] = {name: [] for name in heads}
        with torch.no_grad():
            for start in range(0, len(x), _CHUNK):
                out = net(x[start : start + _CHUNK].expand(self.members, -1, -1))
                for name, head in self._split(out)[0].items():
                    parts[name].append(head)
        logits = {name: torch.cat(chunks, dim=1) for name, chunks in parts.items()}
        log_t = torch.zeros(len(heads), device=self.device, requires_grad=True)
        optimiser = torch.optim.LBFGS([log_t], lr=0.5, max_iter=50)

        def closure() -> torch.Tensor:
            optimiser.zero_grad()
            loss = torch.zeros((), device=self.device)
            for h, name in enumerate(heads):
                mixture = torch.softmax(logits[name] / log_t[h].exp(), dim=-1).mean(dim=0)
                picked = mixture.gather(1, classes[:, h : h + 1]).squeeze(1).clamp_min(1e-12)
                loss = loss - (picked.log() * valid[:, h]).sum() / valid[:, h].sum().clamp_min(1)
            loss.backward()
            return loss

        optimiser.step(closure)
        self._temperatures = log_t.detach().exp()

    def _validation_loss(
        self, net: _EnsembleNet, x: torch.Tensor, *targets: torch.Tensor
    ) -> torch.Tensor:
        """Mean loss of every member on the validation transitions, shape (M,)."""
        net.eval()
        total = torch.zeros(self.members, device=self.device)
        with torch.no_grad():
            for start in range(0, len(x), _CHUNK):
                rows = slice(start, start + _CHUNK)
                out = net(x[rows].expand(self.members, -1, -1))
                batch = [t[rows].expand(self.members, *t[rows].shape) for t in targets]
                total += self._loss(out, *batch) * len(x[rows])
        return total / len(x)

    # ------------------------------------------------------------------ prediction

    @property
    def n_members(self) -> int:
        """Ensemble size M."""
        return self.members

    def _outputs(self, obs: np.ndarray, action: np.ndarray) -> HeadOutputs:
        probs, mean, std = self._heads(obs, action, None, axis=1)
        return HeadOutputs(probs=probs, mean=mean, std=std)

    def _member_outputs(
        self, obs: np.ndarray, action: np.ndarray, member: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
        """Every member's forward pass, then the heads of the chosen one per row only."""
        return self._heads(obs, action, member, axis=0)

    def _row_cumulative(
        self, obs: np.ndarray, action: int, member: int
    ) -> tuple[RowCumulative, Sequence[float], Sequence[float]]:
        """One member's forward pass of one state in NumPy (:meth:`_numpy_forward`)."""
        out = self._numpy_forward(obs, action, member)
        numpy_net = self._numpy_net
        starts = numpy_net.starts
        logits = (out[: starts[-1]] / numpy_net.temperatures).astype(np.float64)
        top = np.maximum.reduceat(logits, starts[:-1])  # softmax: each head less its maximum
        weights = np.exp(logits - np.repeat(top, numpy_net.sizes)).tolist()
        bounds = zip(numpy_net.heads, starts[:-1], starts[1:], strict=True)
        cdfs = {name: list(itertools.accumulate(weights[a:b])) for name, a, b in bounds}
        if not numpy_net.n_continuous:
            return cdfs, [], []
        mean, std = self._gaussian(out[starts[-1] :])
        return cdfs, mean.tolist(), std.tolist()

    def _member_cumulative(
        self, obs: np.ndarray, action: np.ndarray, member: np.ndarray
    ) -> tuple[Cumulative, np.ndarray, np.ndarray]:
        """On the CPU: each member's rows only, in NumPy; on another device: torch's pass."""
        if self.device.type != "cpu":
            return super()._member_cumulative(obs, action, member)
        numpy_net = self._numpy_net
        starts = numpy_net.starts
        out = np.empty((len(obs), self._sizes()[-1]), dtype=np.float32)
        order = np.argsort(member, kind="stable")
        ends = np.searchsorted(member[order], np.arange(self.members + 1))
        for m in range(self.members):
            rows = order[ends[m] : ends[m + 1]]
            if rows.size:
                out[rows] = self._numpy_forward(obs[rows], action[rows], m)
        # transposed, (logits, N): each head's softmax and sums then run along whole rows
        logits = (out[:, : starts[-1]] / numpy_net.temperatures).T.astype(np.float64, order="C")
        cdfs = {}
        for name, a, b in zip(numpy_net.heads, starts[:-1], starts[1:], strict=True):
            cdf = np.exp(logits[a:b] - logits[a:b].max(axis=0))  # (K, N), unnormalised
            for j in range(1, b - a):
                np.add(cdf[j - 1], cdf[j], out=cdf[j])
            cdfs[name] = cdf.T
        mean, std = self._gaussian(out[:, starts[-1] :])
        return cdfs, mean, std

    def _numpy_forward(self, obs: np.ndarray, action: Any, member: int) -> np.ndarray:
        """Raw outputs of member ``member`` for states (k, d) or one (d,), float32, in NumPy.

        Sampling runs the network here, not in torch: at one row torch's per-call overhead
        (tens of microseconds for the layers, the softmaxes and the copies) dominates the
        arithmetic, and a batch needs only each row's own member (1/M of torch's pass of
        every member). The outputs agree with torch's (:meth:`predict`) to float32 rounding.
        """
        weights, biases = self._numpy_net.weights, self._numpy_net.biases
        d = obs.shape[-1]
        x = (obs - self._obs_mean) / self._obs_scale
        last = len(weights) - 1
        for i, (weight, bias) in enumerate(zip(weights, biases, strict=True)):
            if i == 0:  # [x, one-hot action] @ W: the action's row instead of the one-hot
                x = x @ weight[member, :d] + weight[member, d + action] + bias[member]
            else:
                x = x @ weight[member] + bias[member]
            if i < last:
                x = x / (1.0 + np.exp(-x))  # SiLU
        return x

    def _gaussian(self, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Means and stds (raw units, float64), each (..., n), of Gaussian outputs (..., 2n).

        The log stds are bounded as :meth:`_split` bounds them.
        """
        n = out.shape[-1] // 2
        low, high = _LOG_STD_BOUNDS

        def softplus(v: np.ndarray) -> np.ndarray:  # torch's, with its threshold of 20
            return np.where(v > 20, v, np.log1p(np.exp(np.minimum(v, 20))))

        log_std = low + softplus(high - softplus(high - out[..., n:]) - low)
        gaussian = self._fitted_schema().gaussian
        return (out[..., :n].astype(np.float64) * gaussian.scale + gaussian.mean,
                np.exp(log_std.astype(np.float64)) * gaussian.scale)  # fmt: skip

    @property
    def _numpy_net(self) -> _NumpyNet:
        """The fitted network as NumPy arrays (made once per fitted or loaded network)."""
        net = self._fitted_net()
        cached = self.__dict__.get("_numpy_cache")
        if cached is None or cached[0] is not net:
            heads = self._fitted_schema().heads
            sizes = list(heads.values())
            temperatures = self._temperatures.cpu().numpy().astype(np.float32)
            cached = (net, _NumpyNet(
                [w.detach().cpu().numpy() for w in net.weights],
                [b.detach().cpu().numpy()[:, 0] for b in net.biases],
                np.repeat(temperatures, sizes), np.cumsum([0, *sizes]).tolist(),
                np.array(sizes), list(heads), self._fitted_schema().n_continuous,
            ))  # fmt: skip
            self.__dict__["_numpy_cache"] = cached
        return cached[1]

    def _heads(
        self, obs: np.ndarray, action: np.ndarray, member: np.ndarray | None, axis: int
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
        """Probabilities, means and stds (raw units) from one forward pass per chunk of rows.

        Of every member, (M, N, …), when ``member`` is None; else of member ``member[i]`` for
        row i, (N, …). The inputs cross to the device once, the results back once per head.
        """
        net = self._fitted_net()
        x = self._inputs(obs, action)
        chosen = None if member is None else torch.from_numpy(member).to(self.device)
        schema = self._fitted_schema()
        probs: dict[str, list[np.ndarray]] = {name: [] for name in schema.heads}
        means, stds = [], []
        gaussian = schema.gaussian
        with torch.inference_mode(), _torch_threads(self.threads):
            for start in range(0, len(x), _CHUNK):
                out = net(x[start : start + _CHUNK].expand(self.members, -1, -1))
                logits, mean, log_std = self._split(out)
                std = log_std.double().exp()
                if chosen is not None:  # (M, n, …) → the chosen member's row, (n, …)
                    rows = torch.arange(out.shape[1], device=self.device)
                    pick = (chosen[start : start + _CHUNK], rows)
                    logits = {name: head[pick] for name, head in logits.items()}
                    mean, std = mean[pick], std[pick]
                for name, head in logits.items():  # softmax, the costly part: chosen rows only
                    probs[name].append(torch.softmax(head.double(), dim=-1).cpu().numpy())
                means.append(mean.double().cpu().numpy() * gaussian.scale + gaussian.mean)
                stds.append(std.cpu().numpy() * gaussian.scale)
        return (
            {name: np.concatenate(parts, axis=axis) for name, parts in probs.items()},
            np.concatenate(means, axis=axis),
            np.concatenate(stds, axis=axis),
        )

    # ------------------------------------------------------------------ persistence

    @classmethod
    def parameter_files(cls) -> tuple[str, ...]:
        """The torch state dict."""
        return (_WEIGHTS,)

    def export_parameters(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The settings and the network's state dict."""
        config = {
            "members": self.members, "hidden": list(self.hidden), "dropout": self.dropout,
            "weight_decay": self.weight_decay, "learning_rate": self.learning_rate,
            "batch_size": self.batch_size, "epoch_rows": self.epoch_rows,
            "max_epochs": self.max_epochs,
            "patience": self.patience, "n_bins": self.n_bins, "seed": self.seed,
            "obs_mean": self._obs_mean.tolist(), "obs_scale": self._obs_scale.tolist(),
            "temperatures": self._temperatures.cpu().tolist(),
            "history": self.history,
        }  # fmt: skip
        buffer = io.BytesIO()
        state = {name: tensor.cpu() for name, tensor in self._fitted_net().state_dict().items()}
        torch.save(state, buffer)  # CPU tensors: a checkpoint loads on any device
        return config, {_WEIGHTS: buffer.getvalue()}

    def _fitted_net(self) -> _EnsembleNet:
        if self._net is None:
            raise RuntimeError("MLPEnsemble is not fitted: call fit() or load()")
        return self._net

    def restore_parameters(
        self, config: dict[str, Any], files: dict[str, bytes], source: Path
    ) -> None:
        """Rebuild the network from :meth:`export_parameters` output."""
        manifest, problem, number = source / MANIFEST, "corrupted config", (int, float)
        for key in ("members", "batch_size", "epoch_rows", "max_epochs", "patience"):
            setattr(self, key, checked_field(config, key, int, manifest, problem=problem))
        for key in ("dropout", "weight_decay", "learning_rate"):
            setattr(self, key, checked_field(config, key, number, manifest, problem=problem))
        self.hidden = tuple(checked_field(config, "hidden", list, manifest, items=int,
                                          problem=problem))  # fmt: skip
        self.history = checked_field(config, "history", list, manifest, default=[], problem=problem)
        vectors = {key: checked_field(config, key, list, manifest, items=number, problem=problem)
                   for key in ("obs_mean", "obs_scale", "temperatures")}  # fmt: skip
        for key in ("obs_mean", "obs_scale"):
            if len(vectors[key]) != len(self.obs_names):
                raise CheckpointError(
                    f"{manifest}: {problem} (field {key!r} has "
                    f"{len(vectors[key])} values, not {len(self.obs_names)})"
                )
        self._obs_mean = np.asarray(vectors["obs_mean"], dtype=np.float32)
        self._obs_scale = np.asarray(vectors["obs_scale"], dtype=np.float32)
        self._temperatures = torch.tensor(vectors["temperatures"], dtype=torch.float32)
        try:
            net = _EnsembleNet(self.members, self._sizes(), torch.Generator().manual_seed(0))
        except (ValueError, RuntimeError) as error:
            raise CheckpointError(f"{source}: cannot restore the ensemble ({error})") from error
        load_torch_weights(net, files[_WEIGHTS], source / _WEIGHTS)  # onto the CPU
        net.eval()
        self._net = net
        self.to(self.device)


@dataclass(frozen=True)
class _NumpyNet:
    """The fitted network in NumPy, for sampling (see :meth:`MLPEnsemble._numpy_forward`).

    Attributes:
        weights: each layer's weights, (M, n_in, n_out) float32.
        biases: each layer's biases, (M, n_out) float32.
        temperatures: each logit's head's temperature, (n_logits,) float32.
        starts: each head's first logit, and the logits' end.
        sizes: each head's classes, (H,).
        heads: the heads' names.
        n_continuous: Gaussian dimensions.
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    temperatures: np.ndarray
    starts: list[int]
    sizes: np.ndarray
    heads: list[str]
    n_continuous: int


@contextlib.contextmanager
def _torch_threads(threads: int | None) -> Iterator[None]:
    """Run with ``threads`` torch intra-op threads, then restore the previous setting."""
    if threads is None:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


register_world_model(MLPEnsemble.kind, MLPEnsemble.from_checkpoint)
