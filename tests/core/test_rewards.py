"""Reward functions below the families: checked for finiteness, evaluated in batches."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.core.errors import RewardFunctionError
from assembly_gym.core.rewards import batch_rewards, checked_reward


class Batched:
    """A reward with a ``batch`` form that disagrees with its single form (to tell them apart)."""

    def __call__(self, obs, action, next_obs, info):
        return 0.0

    def batch(self, obs, actions, next_obs, infos):
        return actions * 2


def per_row(obs, action, next_obs, info):
    return float(obs[0] + action + info["tally"]["yes"] + info["recorded_action"])


def test_a_batch_form_is_used_when_there_is_one_else_each_row_gets_its_info():
    obs, actions = np.array([[1.0], [2.0]]), np.array([0, 1])
    assert batch_rewards(Batched(), obs, actions, obs, {}).tolist() == [0.0, 2.0]
    infos = {"tally": {"yes": np.array([10, 20])}, "recorded_action": np.array([-1, 2])}
    assert batch_rewards(per_row, obs, actions, obs, infos).tolist() == [10.0, 25.0]


def test_a_reward_that_is_not_finite_is_named_with_its_value_and_row():
    assert checked_reward(per_row, 1.5) == 1.5
    with pytest.raises(RewardFunctionError, match=r"\.per_row returned inf: rewards must"):
        checked_reward(per_row, float("inf"))
    with pytest.raises(RewardFunctionError, match="returned nan for row 1 of a batch of 3"):
        checked_reward(Batched(), np.array([0.0, np.nan, 1.0]))
