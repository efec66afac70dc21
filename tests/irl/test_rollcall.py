"""``fit_reward_model`` on separable votes: a country that always votes yes, without a prior."""

from __future__ import annotations

import dataclasses

import pytest

from assembly_gym.envs.legislative.data import ABSENT, Vote
from assembly_gym.irl import fit_reward_model
from assembly_gym.irl.maxent import SeparationWarning

FEATURES = ["year", "important"]  # few enough that the other country's votes are not separable


@pytest.fixture()
def one_always_yes(small_assembly):
    data = small_assembly.data
    votes = data.votes.copy()
    votes[0][votes[0] != ABSENT] = Vote.YES
    return dataclasses.replace(data, votes=votes), data.country_names[:2]


def test_a_country_that_always_votes_yes_is_named_and_not_called_converged(one_always_yes):
    data, countries = one_always_yes
    with pytest.warns(SeparationWarning, match=rf"weights of {countries[0]} diverge.*--l2"):
        model = fit_reward_model(
            data, countries, l2=0.0, shrinkage="none", reward_features=FEATURES
        )
    assert model.info["separated"] == [countries[0]]
    assert model.info["converged"] is False


def test_a_prior_holds_the_weights_and_nothing_is_flagged(one_always_yes, recwarn):
    data, countries = one_always_yes
    model = fit_reward_model(data, countries, l2=1.0, shrinkage="none", reward_features=FEATURES)
    assert model.info["separated"] == [] and model.info["converged"] is True
    assert not [w for w in recwarn if issubclass(w.category, SeparationWarning)]
    unchecked = fit_reward_model(
        data, countries, l2=1.0, standard_errors=False, reward_features=FEATURES
    )
    assert unchecked.info["separated"] is None
