"""The same tabular MDP and demonstrations handed to imitation's ``MCEIRL``, for comparison.

imitation (1.0) learns a *state-only* reward r(s) = net(obs(s)) on a dense (S, A, S)
transition tensor; its gradient counts the H + 1 visited states of each trajectory while
its planner rewards H of them. :func:`run_mce_irl` runs it with its defaults (Adam, lr
0.01, ``linf_eps`` 1e-3, ``grad_l2_eps`` 1e-4, up to 1,000 iterations) and a linear reward
net (imitation's ``BasicRewardNet`` with no hidden layer, state only), and returns the
learned state reward so that both methods can be scored by the same exact likelihood.
"""

from __future__ import annotations

import multiprocessing
import queue
import time
from dataclasses import dataclass

import numpy as np

from envs.errors import MissingDependencyError
from irl.mdp import TabularMDP

__all__ = ["MCEIRLResult", "run_mce_irl", "to_imitation_env"]


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
    try:
        from seals.base_envs import TabularModelPOMDP
    except ImportError as error:  # pragma: no cover - imitation brings seals
        raise MissingDependencyError("imitation", purpose="the MCEIRL comparison") from error
    if not mdp.mask.all():
        raise ValueError("imitation's MCEIRL has no action masks: every action must be valid")
    dense = mdp.transitions.toarray().reshape(mdp.n_states, mdp.n_actions, mdp.n_states)
    return TabularModelPOMDP(
        transition_matrix=dense,
        observation_matrix=np.asarray(observations, dtype=np.float32),
        reward_matrix=np.zeros(mdp.n_states),
        horizon=mdp.horizon,
        initial_state_dist=np.asarray(start, dtype=np.float64) / np.sum(start),
    )


def _train(mdp, observations, start, states, actions, seed, results) -> None:
    import torch
    from imitation.algorithms.mce_irl import MCEIRL
    from imitation.data.types import Trajectory
    from imitation.rewards.reward_nets import BasicRewardNet

    torch.manual_seed(seed)
    env = to_imitation_env(mdp, observations, start)
    demos = [
        Trajectory(obs=s, acts=a, infos=None, terminal=True)
        for s, a in zip(states, actions, strict=True)
    ]
    net = BasicRewardNet(
        env.observation_space,
        env.action_space,
        hid_sizes=[],
        use_action=False,
        use_next_state=False,
        use_done=False,
    )
    trainer = MCEIRL(demos, env, net, rng=np.random.default_rng(seed), log_interval=None)
    began = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - began
    with torch.no_grad():
        obs = torch.as_tensor(env.observation_matrix, dtype=net.dtype)
        reward = net(obs, None, None, None).reshape(-1).numpy().astype(np.float64)
    results.put((reward, seconds))


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

    Args:
        mdp: the MDP.
        observations: state features, shape (S, k).
        start: initial-state distribution, shape (S,).
        states: demonstrated states, shape (N, H + 1).
        actions: demonstrated actions, shape (N, H).
        seed: seed of torch and of imitation's generator.
        time_limit: seconds before the child process is terminated.

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
