"""Neural MaxEnt IRL: an MLP reward r_ψ(s, a), trained with the exact MaxEnt gradient.

The MaxEnt log-likelihood's gradient with respect to the reward table is
``counts(s, a) − occupancy(s, a)`` (:func:`assembly_gym.irl.mdp.occupancy`); the chain rule
carries it into the network: ∇_ψ ℓ = Σ_{s,a} (counts − occupancy) ∇_ψ r_ψ(s, a). Each step
runs the exact soft value iteration of the current reward on the same MDPs, demonstrations
and feature inputs as :func:`assembly_gym.irl.maxent.fit_maxent` (at horizon 1: a neural
multinomial logit).

The network lives on ``device`` (``"auto"``: the GPU when there is one); the soft value
iteration is NumPy on the CPU. Each epoch the reward table crosses to the CPU once and its
gradient signal back once.

Example:
    >>> import numpy as np
    >>> from assembly_gym.irl.maxent import decision_problem
    >>> x = np.random.default_rng(0).random((50, 2))
    >>> acts = (x[:, 0] > 0.5).astype(int)
    >>> mdp, features, expert = decision_problem([x], [acts], n_actions=2)
    >>> reward = NeuralReward(2, 2, epochs=50).fit(mdp, x, expert)
    >>> reward.action_probs(x[:3]).shape
    (3, 2)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import softmax
from tqdm.auto import tqdm

from assembly_gym.core.device import resolve_device
from assembly_gym.irl.maxent import ExpertStatistics
from assembly_gym.irl.mdp import TabularMDP, occupancy, soft_value_iteration

if TYPE_CHECKING:
    import torch

__all__ = ["NeuralReward"]


class NeuralReward:
    """An MLP from state inputs x(s) to one reward per action, fitted by MaxEnt IRL.

    Args:
        n_inputs: width k of the inputs x(s) (observation or state features).
        n_actions: number of actions A.
        hidden: hidden layer widths (tanh).
        l2: weight decay of the network parameters (per demonstrated step).
        lr: Adam learning rate.
        epochs: full-batch gradient steps (each runs one exact soft value iteration).
        seed: seed of the initial weights (drawn on the CPU: the same on every device).
        device: where the network runs (:func:`~assembly_gym.core.device.resolve_device`).
    """

    def __init__(
        self,
        n_inputs: int,
        n_actions: int,
        hidden: Sequence[int] = (32,),
        *,
        l2: float = 1e-4,
        lr: float = 1e-2,
        epochs: int = 300,
        seed: int = 0,
        device: str | torch.device = "auto",
    ) -> None:
        import torch

        if n_inputs < 1 or n_actions < 1 or epochs < 1 or l2 < 0 or lr <= 0:
            raise ValueError("n_inputs, n_actions and epochs must be ≥ 1, l2 ≥ 0 and lr > 0")
        generator = torch.Generator().manual_seed(seed)
        layers: list[torch.nn.Module] = []
        width = n_inputs
        for size in hidden:
            layers += [torch.nn.Linear(width, size), torch.nn.Tanh()]
            width = size
        layers.append(torch.nn.Linear(width, n_actions))
        self.net = torch.nn.Sequential(*layers).double()
        with torch.no_grad():
            for parameter in self.net.parameters():
                parameter.copy_(
                    torch.randn(parameter.shape, generator=generator, dtype=torch.float64)
                    * (0.5 / np.sqrt(max(parameter.shape[-1], 1)))
                )
        self.device = resolve_device(device)
        self.net.to(self.device)
        self.n_inputs, self.n_actions = n_inputs, n_actions
        self.l2, self.lr, self.epochs = l2, lr, epochs
        self.mean_ = np.zeros(n_inputs)
        self.scale_ = np.ones(n_inputs)
        self.history_: list[float] = []

    @classmethod
    def from_arrays(
        cls,
        parameters: Sequence[np.ndarray],
        mean: np.ndarray,
        scale: np.ndarray,
        *,
        device: str | torch.device = "cpu",
    ) -> NeuralReward:
        """A fitted reward from its :meth:`arrays` and input standardisation (no training).

        Args:
            parameters: weight (out, in) and bias (out,) of each layer, input to output.
            mean: the inputs' mean, (k,).
            scale: the inputs' scale, (k,).
            device: where the network runs.

        Raises:
            ValueError: arrays whose shapes do not make one MLP over k inputs.
        """
        import torch

        mean, scale = np.asarray(mean, dtype=np.float64), np.asarray(scale, dtype=np.float64)
        biases = parameters[1::2]
        if len(parameters) % 2 or mean.ndim != 1 or {np.ndim(b) for b in biases} != {1}:
            raise ValueError("parameters must be a weight and a bias (out,) per layer, mean (k,)")
        reward = cls(len(mean), len(biases[-1]), [len(b) for b in biases[:-1]], device=device)
        shapes = [tuple(p.shape) for p in reward.net.parameters()]
        given = [np.shape(p) for p in parameters]
        if given != shapes or scale.shape != mean.shape:
            raise ValueError(f"parameter shapes {given}, expected {shapes} (scale: {mean.shape})")
        with torch.no_grad():
            for parameter, value in zip(reward.net.parameters(), parameters, strict=True):
                parameter.copy_(torch.as_tensor(np.asarray(value, dtype=np.float64)))
        reward.mean_, reward.scale_ = mean, scale
        return reward

    def arrays(self) -> list[np.ndarray]:
        """The network's parameters on the CPU: weight (out, in) and bias (out,) of each layer."""
        return [p.detach().cpu().numpy().copy() for p in self.net.parameters()]

    def rewards(self, inputs: np.ndarray) -> np.ndarray:
        """r_ψ(s, a) for inputs (S, k) → (S, A)."""
        import torch

        with torch.no_grad():
            x = torch.as_tensor(self._standardise(inputs), device=self.device)
            return self.net(x).cpu().numpy()

    def action_probs(self, inputs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """One-decision MaxEnt policy softmax_a r_ψ(s, a), (N, k) → (N, A)."""
        logits = self.rewards(np.atleast_2d(inputs))
        if mask is not None:
            logits = np.where(np.broadcast_to(mask, logits.shape), logits, -np.inf)
        return softmax(logits, axis=1)

    def fit(
        self,
        mdp: TabularMDP,
        inputs: np.ndarray,
        expert: ExpertStatistics,
        *,
        progress: bool = False,
    ) -> NeuralReward:
        """Full-batch Adam on the MaxEnt log-likelihood per demonstrated step (all epochs).

        Args:
            mdp: the MDP (or the horizon-1 decisions of
                :func:`assembly_gym.irl.maxent.decision_problem`).
            inputs: x(s) of every state, shape (S, k).
            expert: the demonstrations' visit and start counts.
            progress: show a progress bar over epochs.

        Raises:
            ValueError: when the inputs do not fit the MDP.
        """
        for _ in tqdm(
            self.steps(mdp, inputs, expert), total=self.epochs, desc="neural MaxEnt IRL",
            disable=not progress, leave=False,
        ):  # fmt: skip
            pass
        return self

    def steps(
        self, mdp: TabularMDP, inputs: np.ndarray, expert: ExpertStatistics
    ) -> Iterator[float]:
        """:meth:`fit` one epoch at a time: yields each epoch's log-likelihood per step.

        The log-likelihood is the one before the epoch's update. The inputs are checked and
        standardised on the first ``next``; ``epochs`` steps in all.
        """
        import torch

        inputs = np.asarray(inputs, dtype=np.float64)
        if inputs.shape != (mdp.n_states, self.n_inputs) or expert.counts.shape != mdp.mask.shape:
            raise ValueError(
                f"inputs must have shape ({mdp.n_states}, {self.n_inputs}) and the "
                "expert statistics the MDP's (S, A)"
            )
        visits = expert.counts.sum(axis=1)
        weights = visits / max(visits.sum(), 1e-300)
        self.mean_ = weights @ inputs
        spread = np.sqrt(weights @ (inputs - self.mean_) ** 2)
        self.scale_ = np.where(spread > 1e-12, spread, 1.0)
        x = torch.as_tensor(self._standardise(inputs), device=self.device)
        mask = torch.as_tensor(mdp.mask, device=self.device)
        optimiser = torch.optim.Adam(self.net.parameters(), lr=self.lr)
        n_steps = expert.n_steps
        self.history_ = []
        for _ in range(self.epochs):
            reward = self.net(x)
            table = reward.detach().cpu().numpy()  # the epoch's one copy to the CPU
            policy = soft_value_iteration(mdp, table)
            # ℓ per step and its gradient with respect to the reward table.
            loglik = (
                (expert.counts * np.where(mdp.mask, table, 0.0)).sum()
                - expert.start @ policy.values[0]
            ) / n_steps
            signal = torch.as_tensor(
                (expert.counts - occupancy(mdp, policy, expert.start)) / n_steps,
                device=self.device,
            )
            decay = sum((p**2).sum() for p in self.net.parameters())
            loss = -(signal * torch.where(mask, reward, 0.0)).sum() + self.l2 * decay
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            self.history_.append(float(loglik))
            yield float(loglik)

    def _standardise(self, inputs: np.ndarray) -> np.ndarray:
        return (np.asarray(inputs, dtype=np.float64) - self.mean_) / self.scale_
