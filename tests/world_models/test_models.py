"""Protocol conformance of EmpiricalModel and MLPEnsemble; save/load; seeds; learning."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assembly_gym.core.errors import CheckpointError
from assembly_gym.world_models.base import Prediction, WorldModel, load_world_model
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.evaluation import evaluate_world_model
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.transitions import split_transitions

KINDS = ["empirical", "mlp"]


@pytest.fixture(params=KINDS)
def model(request, models):
    return models[request.param]


def test_models_follow_the_protocol(model, delib_split):
    assert isinstance(model, WorldModel)
    _, _, test = delib_split
    obs, acts = test.obs[:200], test.acts[:200]
    prediction = model.predict(obs, acts)
    assert isinstance(prediction, Prediction)
    assert prediction.mean.shape == obs.shape and prediction.std.shape == obs.shape
    for name, probs in prediction.distributions.items():
        assert probs.shape == (200, model.schema.heads[name])
        assert np.all(probs >= 0) and np.allclose(probs.sum(1), 1.0), name
    assert np.allclose(prediction.std, 0.0)  # every changing Deliberation dim is categorical
    copied = model.schema.copied
    assert np.array_equal(prediction.mean[:, copied], obs[:, copied])
    if isinstance(model, MLPEnsemble):
        assert prediction.epistemic_std.shape == obs.shape
        assert prediction.epistemic_std.max() > 0  # members disagree somewhere
    else:
        assert prediction.epistemic_std is None


def test_categorical_heads_are_proper_distributions(model, delib_split):
    _, _, test = delib_split
    stage = model.predict(test.obs, test.acts).distributions["stage"]
    truth = test.next_obs[
        :, [test.obs_names.index(n) for n in test.obs_names if n.startswith("stage_")]
    ]
    assert np.mean(stage.argmax(1) == truth.argmax(1)) > 0.99  # the stage advances


def test_sample_is_seeded_and_inside_the_bounds(model, delib_split):
    _, _, test = delib_split
    obs, acts = test.obs[:300], test.acts[:300]
    first = model.sample(obs, acts, np.random.default_rng(7))
    assert np.array_equal(first, model.sample(obs, acts, np.random.default_rng(7)))
    assert not np.array_equal(first, model.sample(obs, acts, np.random.default_rng(8)))
    low, high = model.observation_bounds
    assert first.dtype == np.float32 and np.all(first >= low) and np.all(first <= high)


def test_log_prob_is_finite(model, delib_split):
    _, _, test = delib_split
    log_prob = model.log_prob(test.obs, test.acts, test.next_obs)
    assert log_prob.shape == (len(test),) and np.all(np.isfinite(log_prob))


def test_save_and_load_reproduce_predictions(model, delib_split, tmp_path):
    _, _, test = delib_split
    model.save(tmp_path / "model")
    loaded = load_world_model(tmp_path / "model", layout=test.obs_names)
    assert type(loaded) is type(model) and loaded.obs_names == model.obs_names
    a, b = model.predict(test.obs, test.acts), loaded.predict(test.obs, test.acts)
    assert np.array_equal(a.mean, b.mean)
    for name in a.distributions:
        assert np.array_equal(a.distributions[name], b.distributions[name])
    rng = lambda: np.random.default_rng(3)  # noqa: E731
    assert np.array_equal(model.sample(test.obs, test.acts, rng()),
                          loaded.sample(test.obs, test.acts, rng()))  # fmt: skip
    assert np.array_equal(loaded.start_states, model.start_states)
    assert loaded.noop_action == model.noop_action == 4
    assert np.array_equal(loaded.action_masks(test.obs), model.action_masks(test.obs))
    assert type(model).load(tmp_path / "model").n_actions == 5


def test_load_of_another_kind_is_refused(models, tmp_path):
    models["empirical"].save(tmp_path / "empirical")
    with pytest.raises(CheckpointError, match="holds a EmpiricalModel, not a MLPEnsemble"):
        MLPEnsemble.load(tmp_path / "empirical")


def test_bad_inputs_are_refused(models, delib_split):
    _, _, test = delib_split
    model = models["empirical"]
    with pytest.raises(ValueError, match=r"obs must have shape \(N, 75\)"):
        model.predict(test.obs[:, :10], test.acts)
    with pytest.raises(ValueError, match=r"actions must lie in 0..4"):
        model.predict(test.obs[:2], np.array([0, 9]))
    with pytest.raises(RuntimeError, match="not fitted"):
        EmpiricalModel().predict(test.obs[:2], test.acts[:2])
    with pytest.raises(ValueError, match="smoothing must be > 0"):
        EmpiricalModel(smoothing=0)
    with pytest.raises(ValueError, match="dropout must be in"):
        MLPEnsemble(dropout=1.0)


def test_action_masks_follow_the_stage(model, delib):
    masks = model.action_masks(delib.obs)
    assert np.array_equal(masks, delib.masks)


def test_empirical_model_backs_off_for_unseen_contexts(models, delib):
    model = models["empirical"]
    obs = delib.obs[:1].copy()  # a DRAFT state
    unseen = obs.copy()
    for name in ("issue_me", "issue_nu", "issue_di", "issue_hr", "issue_co", "issue_ec"):
        unseen[0, delib.obs_names.index(name)] = 1.0  # an issue combination never seen
    stage = model.predict(unseen, [4]).distributions["stage"]
    assert stage[0].argmax() == 1  # still DRAFT → COMMITTEE


def test_mlp_is_seeded_and_leaves_global_random_state_alone(delib_split, mlp_factory):
    train, validation, test = delib_split
    torch_state, numpy_state = torch.get_rng_state(), np.random.get_state()[1].copy()  # noqa: NPY002
    a = mlp_factory(max_epochs=2).fit(train, validation=validation)
    b = mlp_factory(max_epochs=2).fit(train, validation=validation)
    c = mlp_factory(max_epochs=2, seed=1).fit(train, validation=validation)
    assert torch.equal(torch_state, torch.get_rng_state())
    assert np.array_equal(numpy_state, np.random.get_state()[1])  # noqa: NPY002
    pa, pb, pc = (m.predict(test.obs, test.acts).mean for m in (a, b, c))
    assert np.array_equal(pa, pb) and not np.array_equal(pa, pc)


def test_mlp_early_stopping_and_tensorboard(delib_split, tmp_path, mlp_factory):
    train, validation, _ = delib_split
    model = mlp_factory(max_epochs=30, patience=1, dropout=0.0, weight_decay=0.0).fit(
        train, validation=validation, log_dir=tmp_path / "tb"
    )
    assert len(model.history) < 30  # stopped before the limit
    assert any((tmp_path / "tb").iterdir())


def test_mlp_splits_off_its_own_validation(delib_split, mlp_factory):
    train, _, _ = delib_split
    model = mlp_factory(max_epochs=1).fit(train)
    assert len(model.history) == 1
    with pytest.raises(ValueError, match="at least one transition each"):
        mlp_factory(max_epochs=1).fit(train.select(train.groups == train.groups[0]))


def test_rollcall_models_predict_done_and_gaussians(rollcall_models, rollcall):
    for model in rollcall_models.values():
        prediction = model.predict(rollcall.obs[:50], rollcall.acts[:50])
        assert prediction.distributions["done"].shape == (50, 2)
        assert (prediction.std[:, model.schema.gaussian.dims] > 0).all()
        assert model.max_episode_steps == 12 and model.noop_action == 2


@pytest.mark.slow
def test_the_ensemble_beats_the_frequency_tables_on_held_out_nll(mlp_factory):
    from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    from assembly_gym.envs.legislative.transitions import deliberation_transitions

    config = SyntheticConfig(n_countries=12, n_sessions=8, roll_calls_per_session=20, seed=5)
    train, validation, test = split_transitions(
        deliberation_transitions(generate_assembly(config)), seed=0
    )
    empirical = evaluate_world_model(EmpiricalModel().fit(train), test).metrics
    mlp = mlp_factory(batch_size=128, max_epochs=10).fit(train, validation=validation)
    mlp = evaluate_world_model(mlp, test)
    assert mlp.metrics["nll"] < empirical["nll"] - 0.5
    assert mlp.metrics["vote_share_mae_pp"] < empirical["vote_share_mae_pp"]


def test_one_state_paths_equal_the_batch_paths(model, delib_split):
    """The one-state context code, mask and head probabilities equal the batch ones, also
    for states no training context matches (random values)."""
    _, _, test = delib_split
    rng = np.random.default_rng(0)
    noise = rng.random((100, test.obs.shape[1])).astype(np.float32)
    obs = np.concatenate([test.obs[:200], noise])
    acts = rng.integers(model.n_actions, size=len(obs))
    member = rng.integers(model.n_members, size=len(obs))
    cdfs, mean, std = model._member_cumulative(obs, acts, member)
    for i in range(len(obs)):
        row, row_mean, row_std = model._row_cumulative(obs[i], int(acts[i]), int(member[i]))
        for name, cdf in cdfs.items():  # float32 products differ with their shapes a bit
            np.testing.assert_allclose(_probs(np.array(row[name])), _probs(cdf[i]), atol=1e-5,
                                       err_msg=name)  # fmt: skip
        np.testing.assert_allclose(row_mean, mean[i], rtol=1e-5)
        np.testing.assert_allclose(row_std, std[i], rtol=1e-5)
        assert model.action_mask_one(obs[i]).tolist() == model.action_masks(obs[i])[0].tolist()
    if isinstance(model, EmpiricalModel):
        codes = model._finest_codes(obs, acts)
        assert codes.tolist() == [model._row_code(o.tolist(), int(a))
                                  for o, a in zip(obs, acts, strict=True)]  # fmt: skip
        columns = model._context(obs, acts)  # the codes the tables were counted with
        assert np.array_equal(codes, list(model._level_codes(columns, len(obs)))[-1])
        assert all(np.array_equal(cdfs[name], np.cumsum(p[0], axis=1))
                   for name, p in model._outputs(obs, acts).probs.items())  # fmt: skip


def test_mlp_samples_with_numpy_what_torch_predicts(models, delib_split):
    """Sampling's NumPy forward pass gives the probabilities of predict's torch pass."""
    model = models["mlp"]
    _, _, test = delib_split
    member = np.random.default_rng(1).integers(model.n_members, size=len(test))
    probs, _, _ = model._member_outputs(test.obs, test.acts, member)
    cdfs, _, _ = model._member_cumulative(test.obs, test.acts, member)
    for name, p in probs.items():
        np.testing.assert_allclose(_probs(cdfs[name]), p, atol=1e-5, err_msg=name)


def _probs(cdf):
    """Class probabilities of cumulative ones (..., K)."""
    return np.diff(cdf, axis=-1, prepend=0) / cdf[..., -1:]


def test_one_row_sample_is_sample_one(model, delib_split):
    _, _, test = delib_split
    for i in range(20):
        rows = model.sample(test.obs[i : i + 1], test.acts[i : i + 1], np.random.default_rng(i))
        one = model.sample_one(test.obs[i], int(test.acts[i]), np.random.default_rng(i))
        assert np.array_equal(rows[0], one)
    with pytest.raises(ValueError, match="action"):
        model.sample_one(test.obs[0], model.n_actions, np.random.default_rng(0))
