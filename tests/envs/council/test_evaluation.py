"""World-model evaluation reads the council's declaration: its stages, its vote and its veto."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from assembly_gym.core.state import StateDeclaration
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.evaluation import evaluate_world_model
from assembly_gym.world_models.transitions import split_transitions

from .env import RULE, STATE_NAMES
from .family import council_transitions

AT = {name: i for i, name in enumerate(STATE_NAMES)}


class VetoBlind:
    """A fitted model whose sampled outcome ignores the veto: 9 of 15 yes and more yes than no."""

    def __init__(self, model: EmpiricalModel) -> None:
        self.model, self.obs_names = model, model.obs_names

    def predict(self, obs, action):
        return self.model.predict(obs, action)

    def sample(self, obs, action, rng):
        nxt = self.model.sample(obs, action, rng)
        yes, no = nxt[:, AT["council_yes"]], nxt[:, AT["council_no"]]
        nxt[:, AT["adopted"]] = RULE.passed(yes, no, vetoed=False)
        return nxt


@pytest.fixture(scope="module")
def split():
    return split_transitions(council_transitions(1000), seed=0)


@pytest.fixture(scope="module")
def model(split):
    return EmpiricalModel().fit(split[0])


def test_the_council_is_scored_on_its_stages_vote_and_outcome(model, split):
    test = split[2]
    m = evaluate_world_model(model, test).metrics
    assert m["stage_accuracy"] == 1 and 0 < m["vote_share_mae_pp"] < 30
    assert m["groups_simulated"] == m["rollouts_simulated"] == len(test.episode_starts())
    assert {"adoption_gap_pp", "yes_share_ks_p", "yes_share_kl"} <= set(m)
    closed = test.next_obs[:, AT["stage_closed"]] == 1  # the outcome is revealed at CLOSED
    p_adopted = model.predict(test.obs, test.acts).distributions["adopted"][closed, 1]
    truth = test.next_obs[closed, AT["adopted"]] == 1
    assert m["outcome_accuracy"] == np.mean((p_adopted > 0.5) == truth)


def test_outcome_consistency_applies_the_veto(model, split):
    test = split[2]
    assert evaluate_world_model(model, test).metrics["outcome_consistency"] == 1
    assert evaluate_world_model(VetoBlind(model), test).metrics["outcome_consistency"] < 1


def test_transitions_without_a_declaration_are_read_by_the_models(model, split):
    test = split[2]
    bare = dataclasses.replace(test, declaration=StateDeclaration())
    np.testing.assert_equal(
        evaluate_world_model(model, bare).metrics, evaluate_world_model(model, test).metrics
    )
