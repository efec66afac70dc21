"""The neural reward kind: one MLP r_ψc(s, a) per country, fitted by neural MaxEnt IRL.

Each country's network (:class:`~assembly_gym.irl.neural.NeuralReward`) is trained
full-batch with the exact MaxEnt gradient of its horizon-1 decisions: a neural multinomial
logit. Saved as every country's parameters and input standardisation in ``networks.npz``
(plain arrays, no pickle); loaded networks run on the CPU. The rewards are evaluated in
NumPy, one matrix product per layer and country in the batch.

Example:
    >>> import numpy as np
    >>> from assembly_gym.irl.base import Decisions
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random((60, 2))
    >>> decisions = Decisions(("France",), np.zeros(60, dtype=np.int64), x,
    ...                       (x[:, 0] > 0.5).astype(np.int64), np.ones((60, 2), dtype=bool),
    ...                       ("issue_hr", "issue_me"), ("yes", "no"))
    >>> model = NeuralRewardModel.fit(decisions, hidden=(8,), epochs=20, device="cpu")
    >>> model.action_probs("France", x[:3]).shape
    (3, 2)
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from assembly_gym.core.artifact import Artifact
from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import arrays_from_bytes, arrays_to_bytes, checked_field
from assembly_gym.irl.base import Decisions, RewardModel
from assembly_gym.irl.maxent import decision_problem
from assembly_gym.irl.neural import NeuralReward

__all__ = ["NETWORKS_FILE", "NeuralRewardModel", "NeuralSettings"]

_GATHERED = 4
"""With at most this many rows per country (an env step), :meth:`NeuralRewardModel.logits`
gathers each row's weights (one batched product per layer); with more, one per country."""
NETWORKS_FILE = "networks.npz"
"""Every country's network in a saved model: ``weight_k`` (C, out, in) and ``bias_k``
(C, out) of each layer k, input to output, and ``mean``, ``scale`` (C, d) of the inputs."""


@dataclass(frozen=True)
class NeuralSettings:
    """How each country's network is trained (the ``settings`` of the "neural" kind)."""

    hidden: tuple[int, ...] = (32,)
    """Hidden layer widths (tanh)."""
    l2: float = 10.0
    """Prior precision on the parameters over a country's whole record (weakens as it grows)."""
    lr: float = 1e-2
    """Adam learning rate."""
    epochs: int = 300
    """Full-batch gradient steps."""
    seed: int = 0
    """Seed of every network's initial weights."""
    device: str = "auto"
    """Where the networks train (``"auto"``: the GPU when there is one)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hidden", tuple(int(width) for width in self.hidden))
        if min(self.hidden, default=1) < 1 or self.l2 < 0:
            raise ValueError(f"hidden widths must be ≥ 1 and l2 ≥ 0, got {self.hidden}, {self.l2}")

    def fit_reward(self, obs: np.ndarray, actions: np.ndarray, masks: np.ndarray) -> NeuralReward:
        """One country's network from its decisions: obs (N, d), actions (N,), masks (N, A)."""
        mdp, _, expert = decision_problem([obs], [actions], [masks])
        reward = NeuralReward(
            obs.shape[1], mdp.n_actions, self.hidden, l2=self.l2 / expert.n_steps, lr=self.lr,
            epochs=self.epochs, seed=self.seed, device=self.device,
        )  # fmt: skip
        # One thread (torch's OpenMP and BLAS): the network is small, and on a busy 2-core
        # machine a second torch thread made this fit about 20× slower.
        with threadpool_limits(limits=1):
            return reward.fit(mdp, obs, expert)


@dataclass(frozen=True)
class NeuralRewardModel(RewardModel):
    """Learned MLP rewards, one network per country, all of the same widths.

    Attributes:
        networks: each country's fitted network, (C,), inputs ``obs_names``, outputs
            ``action_names``.

    Raises:
        ValueError: networks that do not fit the names, of different widths, or not finite.
    """

    kind = "neural"
    one_step = True

    networks: tuple[NeuralReward, ...]
    _stacked: dict[str, np.ndarray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "networks", tuple(self.networks))
        if len(self.networks) != len(self.countries):
            raise ValueError(f"{len(self.networks)} networks for {len(self.countries)} countries")
        inputs, actions = len(self.obs_names), len(self.action_names)
        if any((n.n_inputs, n.n_actions) != (inputs, actions) for n in self.networks):
            raise ValueError(f"every network must map {inputs} inputs to {actions} actions")
        parameters = [network.arrays() for network in self.networks]
        if len({tuple(p.shape for p in arrays) for arrays in parameters}) != 1:
            raise ValueError("the countries' networks have different widths")
        stacked = {"mean": np.stack([n.mean_ for n in self.networks]),
                   "scale": np.stack([n.scale_ for n in self.networks])}  # fmt: skip
        for k in range(len(parameters[0]) // 2):
            stacked[f"weight_{k}"] = np.stack([arrays[2 * k] for arrays in parameters])
            stacked[f"bias_{k}"] = np.stack([arrays[2 * k + 1] for arrays in parameters])
        if not all(np.isfinite(array).all() for array in stacked.values()):
            raise ValueError("the networks' parameters must be finite")
        object.__setattr__(self, "_stacked", stacked)

    @property
    def hidden(self) -> tuple[int, ...]:
        """The networks' hidden layer widths."""
        return tuple(len(self._stacked[f"bias_{k}"][0]) for k in range(self._n_layers - 1))

    @property
    def _n_layers(self) -> int:
        return (len(self._stacked) - 2) // 2

    @classmethod
    def fit(
        cls, decisions: Decisions, *, progress: bool = False, **settings: Any
    ) -> NeuralRewardModel:
        """Train every country's network (``settings``: the fields of :class:`NeuralSettings`).

        The model's ``info`` has the settings, seconds, votes and last epoch's
        log-likelihood per vote of each country.

        Raises:
            DataError: a country without decisions.
            TypeError: an unknown setting.
        """
        options = NeuralSettings(**settings)
        start, networks, votes, loglik = time.perf_counter(), [], {}, {}
        for row, country in enumerate(
            tqdm(decisions.countries, desc="neural rewards", disable=not progress)
        ):
            obs, actions, masks = decisions.of(row)
            if not len(obs):
                raise DataError("demonstrations", f"{country!r} has no decision to fit on")
            networks.append(options.fit_reward(obs, actions, masks))
            votes[country], loglik[country] = len(obs), networks[-1].history_[-1]
        info = {"settings": {**asdict(options), "hidden": list(options.hidden)},
                "fit_seconds": round(time.perf_counter() - start, 3), "n_votes": votes,
                "log_likelihood_per_vote": loglik}  # fmt: skip
        return cls(decisions.countries, decisions.action_names, decisions.obs_names,
                   tuple(networks), info=info)  # fmt: skip

    def logits(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """r_ψc(s, a): rows (N,), inputs (N, d) → (N, A); each country's rows through its net."""
        rows = np.asarray(rows, dtype=np.int64)
        obs = np.atleast_2d(np.asarray(obs, dtype=np.float64))
        groups = np.unique(rows)
        if len(rows) <= _GATHERED * len(groups):  # e.g. an env step: every row its own weights
            return self._forward(rows, obs[:, None, :])[:, 0]
        out = np.empty((len(rows), len(self.action_names)))
        for row in groups:  # one matrix product per layer and country
            mine = rows == row
            out[mine] = self._forward(row, obs[mine])
        return out

    def _forward(self, index: int | np.ndarray, obs: np.ndarray) -> np.ndarray:
        """The networks (tanh hidden layers) in NumPy.

        Args:
            index: a country's row, or each input's row (n,).
            obs: the inputs: (n, d) for a row → (n, A); (n, 1, d) for rows → (n, 1, A).
        """
        p, lifted = self._stacked, np.asarray(index)[..., None]  # broadcasts against the inputs
        hidden = (obs - p["mean"][lifted]) / p["scale"][lifted]
        for k in range(self._n_layers):
            if k:
                hidden = np.tanh(hidden)
            hidden = hidden @ p[f"weight_{k}"][index].swapaxes(-1, -2) + p[f"bias_{k}"][lifted]
        return hidden

    # ------------------------------------------------------------------ persistence

    def _parts(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The widths in the manifest; every network's arrays in :data:`NETWORKS_FILE`."""
        return {"hidden": list(self.hidden)}, {NETWORKS_FILE: arrays_to_bytes(self._stacked)}

    @classmethod
    def _from_parts(
        cls, common: dict[str, Any], saved: Artifact, source: Path
    ) -> NeuralRewardModel:
        hidden = checked_field(saved.manifest, "hidden", list, source, items=int)
        if min(hidden, default=1) < 1:
            raise CheckpointError(f"{source}: hidden widths {hidden} (each must be ≥ 1)")
        path = saved.folder / NETWORKS_FILE
        if NETWORKS_FILE not in saved.files:
            raise CheckpointError(f"{path}: missing (the networks of a neural reward)")
        arrays = arrays_from_bytes(saved.files[NETWORKS_FILE], path)
        n, d = len(common["countries"]), len(common["obs_names"])
        widths = (d, *hidden, len(common["action_names"]))
        expected: dict[str, tuple[int, ...]] = {"mean": (n, d), "scale": (n, d)}
        for k, (n_in, n_out) in enumerate(zip(widths[:-1], widths[1:], strict=True)):
            expected |= {f"weight_{k}": (n, n_out, n_in), f"bias_{k}": (n, n_out)}
        if sorted(arrays) != sorted(expected):
            raise CheckpointError(f"{path}: arrays {sorted(arrays)}, expected {sorted(expected)}")
        for name, shape in expected.items():
            array = arrays[name]
            if array.shape != shape or array.dtype != np.float64 or not np.isfinite(array).all():
                raise CheckpointError(f"{path}: {name!r} is {array.dtype} {array.shape}, "
                                      f"expected finite float64 {shape}")  # fmt: skip
        layers = [name for k in range(len(widths) - 1) for name in (f"weight_{k}", f"bias_{k}")]
        networks = tuple(
            NeuralReward.from_arrays([arrays[name][c] for name in layers], arrays["mean"][c],
                                     arrays["scale"][c], device="cpu")  # fmt: skip
            for c in range(n)
        )
        return cls(networks=networks, **common)
