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


def test_no_test_transitions(models, delib):
    with pytest.raises(ValueError, match="no test transitions"):
        evaluate_world_model(models["empirical"], delib.select(np.zeros(len(delib), bool)))
