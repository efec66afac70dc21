"""Dirichlet shrinkage and its nested back-off: the posterior means, level by level."""

from __future__ import annotations

import numpy as np

from assembly_gym.core.backoff import nested_backoff, smoothed


def test_smoothed_is_the_dirichlet_posterior_mean_and_the_prior_where_nothing_was_counted():
    counts = np.array([[3.0, 1.0], [0.0, 0.0]])
    p = smoothed(counts, np.array([0.5, 0.5]), strength=2.0)
    np.testing.assert_allclose(p, [[4 / 6, 2 / 6], [0.5, 0.5]])


def test_each_level_shrinks_toward_its_parent_and_an_unseen_key_takes_it_entirely():
    country = np.array([0, 0, 0, 1, -1])  # -1: not counted per country; country 2: never seen
    outcome = np.array([0, 0, 1, 1, 1])
    levels = [(np.zeros(5, dtype=np.int64), np.zeros(1, dtype=np.int64)),
              (country, np.zeros(3, dtype=np.int64))]  # fmt: skip
    everyone, countries = nested_backoff(levels, outcome, 2, 1.0, np.array([0.5, 0.5]))
    np.testing.assert_allclose(everyone, [[2.5 / 6, 3.5 / 6]])
    np.testing.assert_allclose(countries[0], (np.array([2, 1]) + everyone[0]) / 4)
    np.testing.assert_allclose(countries[2], everyone[0])
    np.testing.assert_allclose(countries.sum(axis=1), 1)


def test_weights_count_as_that_many_observations():
    key, parent, prior = np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64), np.ones(2) / 2
    weighted = nested_backoff([(key, parent)], np.array([0, 1]), 2, 1.0, prior, np.array([3.0, 1]))
    repeated = nested_backoff([(np.zeros(4, dtype=np.int64), parent)], np.array([0, 0, 0, 1]), 2,
                              1.0, prior)  # fmt: skip
    np.testing.assert_allclose(weighted[0], repeated[0])
