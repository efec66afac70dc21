"""Neural MaxEnt IRL: learns a non-linear preference the linear reward cannot express."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assembly_gym.irl.maxent import ExpertStatistics, decision_problem, fit_maxent
from assembly_gym.irl.mdp import random_mdp, sample_trajectories, soft_value_iteration
from assembly_gym.irl.neural import NeuralReward


def _xor_votes(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    x = rng.random((n, 2))
    agree = (x[:, 0] > 0.5) == (x[:, 1] > 0.5)
    logits = np.where(agree[:, None], [2.0, -2.0], [-2.0, 2.0])
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return x, (rng.random(n) > probs[:, 0]).astype(np.int64)


def test_neural_reward_beats_the_linear_one_on_a_non_linear_preference() -> None:
    rng = np.random.default_rng(0)
    x, acts = _xor_votes(rng, 500)
    x_test, acts_test = _xor_votes(rng, 500)
    mdp, features, expert = decision_problem([x], [acts], n_actions=2)
    neural = NeuralReward(2, 2, hidden=(16,), epochs=200, lr=5e-2).fit(mdp, x, expert)
    linear = fit_maxent(mdp, features, expert, l2=1.0, shrinkage="none", standard_errors=False)
    rows = np.arange(len(acts_test))
    neural_ll = np.log(neural.action_probs(x_test)[rows, acts_test]).mean()
    logits = np.column_stack([np.ones(len(x_test)), x_test]) @ linear.theta[0].T
    linear_ll = (logits[rows, acts_test] - np.log(np.exp(logits).sum(axis=1))).mean()
    assert neural_ll > linear_ll + 0.2
    assert neural.history_[-1] > neural.history_[0]


def test_multistep_training_increases_the_likelihood() -> None:
    rng = np.random.default_rng(1)
    mdp = random_mdp(10, 3, 4, rng, branching=2)
    inputs = rng.normal(size=(10, 3))
    truth = np.tanh(inputs) @ rng.normal(size=(3, 3))
    states, actions = sample_trajectories(
        mdp, soft_value_iteration(mdp, truth), np.ones(10), 500, rng
    )
    expert = ExpertStatistics.from_trajectories(states, actions, 10, 3)
    reward = NeuralReward(3, 3, epochs=60).fit(mdp, inputs, expert)
    assert reward.history_[-1] > reward.history_[0] + 0.05
    assert reward.rewards(inputs).shape == (10, 3)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="n_inputs"):
        NeuralReward(0, 2)
    x, acts = _xor_votes(np.random.default_rng(2), 10)
    mdp, _, expert = decision_problem([x], [acts], n_actions=2)
    with pytest.raises(ValueError, match="inputs must have shape"):
        NeuralReward(2, 2).fit(mdp, np.zeros((5, 2)), expert)


def test_the_cpu_fit_is_the_default_here_and_a_missing_gpu_is_a_clear_error() -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert NeuralReward(2, 2).device == torch.device("cpu")
    with pytest.raises(ValueError, match="CUDA is not available"):
        NeuralReward(2, 2, device="cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_the_fit_on_a_gpu_equals_the_cpu_within_1e6() -> None:
    """float64 throughout: the GPU's reward table and gradients differ by rounding only."""
    x = np.random.default_rng(0).random((80, 2))
    acts = (x[:, 0] > 0.5).astype(int)
    mdp, _, expert = decision_problem([x], [acts], n_actions=2)
    cpu = NeuralReward(2, 2, epochs=30, device="cpu").fit(mdp, x, expert)
    gpu = NeuralReward(2, 2, epochs=30, device="cuda").fit(mdp, x, expert)
    np.testing.assert_allclose(gpu.history_, cpu.history_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gpu.rewards(x), cpu.rewards(x), rtol=1e-6, atol=1e-9)
