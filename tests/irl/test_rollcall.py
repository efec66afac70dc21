"""``fit_reward_model``: any kind by name, the default configuration, errors, separable votes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, Vote
from assembly_gym.irl import fit_reward_model
from assembly_gym.irl.base import reward_kind
from assembly_gym.irl.maxent import SeparationWarning
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, DEFAULT_KIND

FEATURES = ["year", "important"]  # few enough that the other country's votes are not separable


def test_the_default_is_the_chosen_kind_on_the_chosen_features(small_assembly) -> None:
    data = small_assembly.data
    model = fit_reward_model(data, data.country_names[:2])
    assert isinstance(model, reward_kind(DEFAULT_KIND)) and model.kind == DEFAULT_KIND
    assert model.feature_config == DEFAULT_FEATURES and model.obs_names == model.layout
    assert model.history is data and model.countries == data.country_names[:2]
    assert model.info["source"] == data.source and model.info["sessions"] == [1, 6]


def test_unknown_kinds_countries_features_and_no_votes_are_errors(small_assembly) -> None:
    data = small_assembly.data
    with pytest.raises(ValueError, match="unknown reward kind 'oak'"):
        fit_reward_model(data, kind="oak")
    with pytest.raises(DataError, match="unknown country"):
        fit_reward_model(data, ["Atlantis"], kind="linear")
    with pytest.raises(ValueError, match="unknown reward features"):
        fit_reward_model(data, kind="linear", reward_features=["votes_of_mars"])
    silent = type(data)(data.countries, data.roll_calls, np.full(data.votes.shape, -1, np.int8))
    with pytest.raises(DataError, match="no votes to learn from"):
        fit_reward_model(silent, kind="linear")


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
            data, countries, kind="linear", l2=0.0, shrinkage="none", reward_features=FEATURES
        )
    assert model.info["separated"] == [countries[0]]
    assert model.info["converged"] is False


def test_a_prior_holds_the_weights_and_nothing_is_flagged(one_always_yes, recwarn):
    data, countries = one_always_yes
    model = fit_reward_model(
        data, countries, kind="linear", l2=1.0, shrinkage="none", reward_features=FEATURES
    )
    assert model.info["separated"] == [] and model.info["converged"] is True
    assert not [w for w in recwarn if issubclass(w.category, SeparationWarning)]
    unchecked = fit_reward_model(
        data, countries, kind="linear", l2=1.0, standard_errors=False, reward_features=FEATURES
    )
    assert unchecked.info["separated"] is None
