"""Evaluation metrics against models of known output: a perfect oracle and a blind one."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.world_models.base import Prediction
from assembly_gym.world_models.evaluation import evaluate_world_model, evaluation_table
from assembly_gym.world_models.schema import StateSchema


class Oracle:
    """Knows every test transition: predicts and samples the truth with certainty."""

    def __init__(self, test):
        self.obs_names = test.obs_names
        self.schema = StateSchema.fit(test)
        rows = zip(test.obs, test.acts, test.next_obs, test.dones, strict=True)
        self._next = {(o.tobytes(), int(a)): (n, d) for o, a, n, d in rows}

    def fit(self, transitions):
        return self

    def _truth(self, obs, action):
        pairs = [self._next[(o.tobytes(), int(a))] for o, a in zip(obs, action, strict=True)]
        return np.stack([n for n, _ in pairs]), np.array([d for _, d in pairs])

    def predict(self, obs, action):
        truth, dones = self._truth(obs, action)
        targets = self.schema.targets(truth, dones)
        distributions = {name: np.eye(self.schema.heads[name])[classes]
                         for name, (classes, _) in targets.items()}  # fmt: skip
        return Prediction(mean=truth, std=np.zeros_like(truth), distributions=distributions)

    def sample(self, obs, action, rng):
        return self._truth(obs, action)[0]

    def save(self, path):
        raise NotImplementedError


def test_a_perfect_model_scores_perfectly(delib_split):
    _, _, test = delib_split
    result = evaluate_world_model(Oracle(test), test)
    m = result.metrics
    assert np.isnan(m["nll"])  # no log_prob: NLL is not claimed
    assert m["rmse"] == 0 and m["stage_accuracy"] == 1 and m["outcome_accuracy"] == 1
    assert m["vote_share_mae_pp"] == 0 and m["count_mae"] == 0 and m["count_within_1"] == 1
    assert m["rollout_rmse_h3"] == 0 and m["adoption_gap_pp"] == 0 and m["yes_share_gap_pp"] == 0
    assert m["yes_share_ks_p"] == pytest.approx(1.0) and m["yes_share_kl"] == pytest.approx(0.0)
    assert m["outcome_consistency"] == 1 and m["ece"] == 0
    assert m["groups_simulated"] == len(np.unique(test.groups))
    assert m["episode_rmse_worst"] == 0 and m["spread_same_start"] == m["spread_to_real"] == 0
    assert m["spread_between_sim"] == m["spread_between_real"] > 0
    assert set(result.per_dim_rmse) >= {"stage_terminal", "plenary_yes", "adopted"}
    assert all(v == 0 for v in result.per_head_nll.values())


def test_fitted_models_have_sensible_scores(models, delib_split):
    _, _, test = delib_split
    results = {name: evaluate_world_model(model, test) for name, model in models.items()}
    for result in results.values():
        m = result.metrics
        assert np.isfinite(m["nll"]) and m["nll"] > 0
        assert 0 < m["vote_share_mae_pp"] < 30 and 0 <= m["yes_share_ks_p"] <= 1
        assert m["rollout_rmse_h1"] <= m["rollout_rmse_h3"]  # errors compound
    table = evaluation_table(results, {"fit seconds": {"empirical": 0.1, "mlp": 2.0}})
    assert "| NLL (nats / transition)" in table and "empirical" in table and "fit seconds" in table
    assert "rollout RMSE, step 2" in table


def test_rollcall_evaluation_skips_what_does_not_apply(rollcall_models, rollcall):
    result = evaluate_world_model(rollcall_models["empirical"], rollcall.select(np.arange(400)))
    assert "stage_accuracy" not in result.metrics and "adoption_gap_pp" not in result.metrics
    assert np.isfinite(result.metrics["nll"]) and "rollout_rmse_h5" in result.metrics
    table = evaluation_table({"empirical": result})  # horizons 1, 2, 3, 5, 10 and the last
    assert "step 10 " in table and "step 4 " not in table and "step 12 " in table


def test_no_test_transitions(models, delib):
    with pytest.raises(ValueError, match="no test transitions"):
        evaluate_world_model(models["empirical"], delib.select(np.zeros(len(delib), bool)))


def test_per_episode_scores_add_up_to_the_overall_ones(models, delib_split):
    _, _, test = delib_split
    result = evaluate_world_model(models["empirical"], test, max_rollouts=50)
    m, episodes = result.metrics, result.episodes
    assert len(episodes) == len(test.episode_starts()) and episodes["steps"].sum() == len(test)
    weighted = (episodes["nll"] * episodes["steps"]).sum() / len(test)
    assert weighted == pytest.approx(m["nll"])
    assert m["episode_nll_median"] <= m["episode_nll_p90"] <= m["episode_nll_worst"]
    assert m["episode_nll_worst"] == episodes["nll"].max()
    assert episodes["rollout_rmse"].notna().sum() == 50
    assert m["episode_rmse_worst"] == episodes["rollout_rmse"].max()


class MeanSampler:
    """A model too sure of itself: its "samples" are its mean prediction."""

    def __init__(self, model):
        self.model, self.obs_names, self.schema = model, model.obs_names, model.schema

    def predict(self, obs, action):
        return self.model.predict(obs, action)

    def sample(self, obs, action, rng):
        return self.model.predict(obs, action).mean


def test_diversity_tells_a_model_that_varies_like_the_data_from_a_sure_one(models, delib_split):
    _, _, test = delib_split
    fitted = evaluate_world_model(models["empirical"], test).metrics
    sure = evaluate_world_model(MeanSampler(models["empirical"]), test).metrics
    assert fitted["spread_same_start"] == pytest.approx(fitted["spread_to_real"], rel=0.2)
    assert fitted["spread_between_sim"] == pytest.approx(fitted["spread_between_real"], rel=0.2)
    assert sure["spread_same_start"] == 0 < sure["spread_to_real"]
