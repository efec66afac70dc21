"""EmpiricalModel's Gaussian dims: values shared by a group count once, changes extrapolate."""

from __future__ import annotations

import numpy as np

from assembly_gym.core.transitions import Transitions
from assembly_gym.world_models.empirical import EmpiricalModel


def sessions(
    first: int, n_sessions: int, countries: int = 10, steps: int = 5, *, flag: int = 0,
    seed: int = 0,
) -> Transitions:  # fmt: skip
    """Sessions where every country votes on the same roll calls, like RollCall-v0's.

    Dims: ``year`` (0.01 per session, one more at step 3), ``text`` (the roll call's, the
    same for every country) and ``flag`` (copied, a context of the tables); one action.
    """
    rng = np.random.default_rng(seed)
    obs, nxt, episodes, groups = [], [], [], []
    for session in range(first, first + n_sessions):
        text = rng.random(steps + 1)
        year = 0.01 * (session + (np.arange(steps + 1) > 3))
        for country in range(countries):
            obs.append(np.column_stack([year[:-1], text[:-1], np.full(steps, flag)]))
            nxt.append(np.column_stack([year[1:], text[1:], np.full(steps, flag)]))
            episodes += [session * countries + country] * steps
            groups += [session] * steps
    n = len(episodes)
    dones = np.tile(np.arange(steps) == steps - 1, n // steps)
    return Transitions(
        np.concatenate(obs).astype(np.float32), np.zeros(n, np.int64),
        np.concatenate(nxt).astype(np.float32), dones, np.array(episodes),
        obs_names=("year", "text", "flag"), groups=np.array(groups),
    )  # fmt: skip


def test_a_roll_call_seen_by_many_countries_counts_once():
    """σ of a context seen on one roll call does not shrink with the countries voting on it."""
    stds = []
    for countries in (5, 200):
        rare = sessions(30, 1, countries, steps=1, flag=1)
        model = EmpiricalModel().fit(Transitions.concatenate([sessions(0, 20), rare]))
        stds.append(model.predict(rare.obs[:1], rare.acts[:1]).std[0, 1])
    assert stds[0] > 0.05 and np.isclose(stds[0], stds[1])


def test_a_later_year_is_predicted_as_a_change():
    """Test years beyond training: s' tracks s, σ stays at least half a year's step."""
    model = EmpiricalModel().fit(sessions(0, 20))
    later = sessions(50, 2, seed=1)
    prediction = model.predict(later.obs, later.acts)
    assert np.abs(prediction.mean[:, 0] - later.obs[:, 0]).max() < 0.01
    assert prediction.std[:, 0].min() > 0.005 - 1e-6  # half the step, in float32
    nll = -model.log_prob(later.obs, later.acts, later.next_obs)
    assert np.isfinite(nll).all() and nll.mean() < 5
