"""The same tabular MDP and demonstrations handed to imitation's ``MCEIRL``, for comparison.

imitation (1.0) learns a *state-only* reward r(s) = net(obs(s)) on a dense (S, A, S)
transition tensor. :func:`decision_mdp` encodes one-step decisions with a reward over
(s, a) — a country's roll calls — as such a tabular MDP, so that imitation's state-only
reward learns the multinomial logit; :func:`train_mce_irl` trains MCEIRL in this process,
:func:`run_mce_irl` in a child process with a time limit, returning the learned state
reward so that both methods can be scored by the same exact likelihood.
"""

from __future__ import annotations

import multiprocessing
import queue
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from assembly_gym.core.optional import require
from assembly_gym.core.seeding import isolated_seed
from assembly_gym.irl.mdp import TabularMDP

__all__ = [
    "MCEIRLResult",
    "decision_mdp",
    "run_mce_irl",
    "state_rewards",
    "to_imitation_env",
    "train_mce_irl",
]


@dataclass(frozen=True)
class MCEIRLResult:
    """What imitation's MCEIRL learned.

    Attributes:
        state_reward: learned r(s), shape (S,), or None when it did not finish in time.
        seconds: wall time of ``MCEIRL.train`` (or the time limit).
        finished: whether training returned within the time limit.
    """

    state_reward: np.ndarray | None
    seconds: float
    finished: bool


def to_imitation_env(mdp: TabularMDP, observations: np.ndarray, start: np.ndarray):
    """Imitation's ``TabularModelPOMDP`` of an MDP (dense transitions, zero true reward).

    Args:
        mdp: the MDP (every action valid: imitation has no masks).
        observations: the state features imitation's reward reads, shape (S, k).
        start: initial-state distribution, shape (S,).
    """
    require("imitation", extra="imitation", purpose="the MCEIRL comparison")
    from seals.base_envs import TabularModelPOMDP  # installed with imitation

    if not mdp.mask.all():
        raise ValueError("imitation's MCEIRL has no action masks: every action must be valid")
    if mdp.transitions is None:
        raise ValueError("imitation's MCEIRL needs the MDP's transitions")
    dense = mdp.transitions.toarray().reshape(mdp.n_states, mdp.n_actions, mdp.n_states)
    return TabularModelPOMDP(
        transition_matrix=dense,
        observation_matrix=np.asarray(observations, dtype=np.float32),
        reward_matrix=np.zeros(mdp.n_states),
        horizon=mdp.horizon,
        initial_state_dist=np.asarray(start, dtype=np.float64) / np.sum(start),
    )


def decision_mdp(
    action_features: np.ndarray, actions: np.ndarray
) -> tuple[TabularMDP, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """N one-step decisions with a reward over (s, a), as a tabular MDP with a state reward.

    imitation's MCEIRL learns a reward r(s) of the state's observation only. Decision i
    (of N, A actions) becomes the state i ("decision i pending", observation 0); action a
    moves it to the state N + i·A + a ("a chosen at i", observation φ(s_i, a)), which any
    action moves to one absorbing state S − 1 (observation 0); S = N·(1 + A) + 1, horizon 2,
    start uniform over the N pending states (each decision is demonstrated once).

    Why horizon 2 (π_0(a | i) = softmax_a r(φ(s_i, a)), the logit of a reward over (s, a)),
    and why imitation's default l∞ stopping rule does not fit this encoding:
    docs/irl_agents.md, section "imitation's MCE-IRL on roll calls".

    Args:
        action_features: φ(s_i, a) of every decision and action, shape (N, A, k).
        actions: the demonstrated action of each decision, shape (N,) ints.

    Returns:
        The arguments of :func:`run_mce_irl` and :func:`train_mce_irl`: the MDP (S states),
        the observations (S, k), the start distribution (S,), the demonstrated states (N, 3)
        and actions (N, 2).

    Raises:
        ValueError: for no decisions, shapes that disagree or actions outside 0..A − 1.
    """
    action_features = np.asarray(action_features, dtype=np.float64)
    actions = np.asarray(actions, dtype=np.int64)
    if action_features.ndim != 3 or len(action_features) == 0:
        raise ValueError(
            f"action_features must have shape (N ≥ 1, A, k), got {action_features.shape}"
        )
    n, n_actions, width = action_features.shape
    if actions.shape != (n,) or actions.min() < 0 or actions.max() >= n_actions:
        raise ValueError(f"actions must be {n} ints in 0..{n_actions - 1}")
    n_states = n * (1 + n_actions) + 1
    absorbing = n_states - 1
    chosen = n + np.arange(n * n_actions)  # state of (decision i, action a) at i·A + a
    targets = np.concatenate([chosen, np.full((n_states - n) * n_actions, absorbing)])
    rows = np.arange(n_states * n_actions)
    transitions = sp.csr_matrix(
        (np.ones(len(rows)), (rows, targets)), shape=(n_states * n_actions, n_states)
    )
    mdp = TabularMDP(n_actions, 2, np.ones((n_states, n_actions), dtype=bool), transitions)
    observations = np.zeros((n_states, width))
    observations[chosen] = action_features.reshape(-1, width)
    start = np.zeros(n_states)
    start[:n] = 1.0 / n
    decisions = np.arange(n)
    states = np.column_stack(
        [decisions, n + decisions * n_actions + actions, np.full(n, absorbing)]
    )
    return mdp, observations, start, states, np.column_stack([actions, np.zeros(n, np.int64)])


def train_mce_irl(
    mdp: TabularMDP,
    observations: np.ndarray,
    start: np.ndarray,
    states: np.ndarray,
    actions: np.ndarray,
    *,
    seed: int = 0,
    max_iter: int = 1000,
    lr: float = 1e-2,
    weight_decay: float = 0.0,
    linf_eps: float = 1e-3,
    grad_l2_eps: float = 1e-4,
):
    """Train imitation's MCEIRL in this process; returns its reward net and training seconds.

    The net is imitation's ``BasicRewardNet`` with no hidden layer and the state only: a
    linear reward w·obs(s) + b. The defaults are imitation's (Adam, lr 0.01, no weight
    decay, stop at an l∞ occupancy gap of 1e-3 or a gradient norm of 1e-4, 1,000 iterations).

    Args:
        mdp: the MDP (every action valid).
        observations: state features, shape (S, k).
        start: initial-state distribution, shape (S,).
        states: demonstrated states, shape (N, H + 1).
        actions: demonstrated actions, shape (N, H).
        seed: seed of the net's initial weights and of imitation's generator.
        max_iter: maximum gradient steps.
        lr: Adam's learning rate.
        weight_decay: Adam's L2 weight decay (per demonstration: the gradient is an average).
        linf_eps: stop when the l∞ distance between expert and model occupancy is below it.
        grad_l2_eps: stop when the gradient's norm is below it.

    Returns:
        The trained net (read it with :func:`state_rewards`) and the wall time of
        ``MCEIRL.train`` in seconds.
    """
    require("imitation", extra="imitation", purpose="imitation's MCEIRL")
    from imitation.algorithms.mce_irl import MCEIRL
    from imitation.data.types import Trajectory
    from imitation.rewards.reward_nets import BasicRewardNet

    env = to_imitation_env(mdp, observations, start)
    demos = [
        Trajectory(obs=s, acts=a, infos=None, terminal=True)
        for s, a in zip(states, actions, strict=True)
    ]
    # The net's initial weights come from torch's global generator (imitation's nets take
    # no torch.Generator): seed it for the construction only.
    with isolated_seed(seed):
        net = BasicRewardNet(
            env.observation_space,
            env.action_space,
            hid_sizes=[],
            use_action=False,
            use_next_state=False,
            use_done=False,
        )
    trainer = MCEIRL(
        demos,
        env,
        net,
        rng=np.random.default_rng(seed),
        optimizer_kwargs={"lr": lr, "weight_decay": weight_decay},
        linf_eps=linf_eps,
        grad_l2_eps=grad_l2_eps,
        log_interval=None,
    )
    began = time.perf_counter()
    trainer.train(max_iter=max_iter)
    return net, time.perf_counter() - began


def state_rewards(net, observations: np.ndarray) -> np.ndarray:
    """The reward a state-only imitation reward net gives observations (N, k) → (N,)."""
    import torch

    with torch.no_grad():
        obs = torch.as_tensor(np.asarray(observations), dtype=net.dtype)
        return net(obs, None, None, None).reshape(-1).numpy().astype(np.float64)


def _train(mdp, observations, start, states, actions, seed, results) -> None:
    net, seconds = train_mce_irl(mdp, observations, start, states, actions, seed=seed)
    results.put((state_rewards(net, observations), seconds))


def run_mce_irl(
    mdp: TabularMDP,
    observations: np.ndarray,
    start: np.ndarray,
    states: np.ndarray,
    actions: np.ndarray,
    *,
    seed: int = 0,
    time_limit: float = 300.0,
) -> MCEIRLResult:
    """Train imitation's MCEIRL (defaults) in a child process, stopped after ``time_limit``.

    The arguments are :func:`train_mce_irl`'s; ``time_limit`` is in seconds, after which the
    child process is terminated.

    Raises:
        RuntimeError: when the child process fails.
    """
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    process = context.Process(
        target=_train, args=(mdp, observations, start, states, actions, seed, results)
    )
    began = time.perf_counter()
    process.start()
    while True:
        try:
            reward, seconds = results.get(timeout=0.5)
            break
        except queue.Empty:
            if process.exitcode not in (None, 0):
                message = f"imitation's MCEIRL failed (exit code {process.exitcode})"
                raise RuntimeError(message) from None
            if time.perf_counter() - began > time_limit:
                process.terminate()
                process.join()
                return MCEIRLResult(None, time.perf_counter() - began, False)
    process.join()
    return MCEIRLResult(reward, seconds, True)
