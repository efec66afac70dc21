"""The state schema: which dims are copied, classified or regressed; proper distributions."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.envs.legislative.deliberation import STATE_NAMES
from assembly_gym.envs.legislative.features import content_names
from assembly_gym.world_models.schema import (
    DONE,
    BinCodec,
    OneHotPart,
    ShareBinsPart,
    StateSchema,
    VoteSharesPart,
)


def test_deliberation_schema_classifies_the_state_and_copies_the_resolution(delib):
    schema = StateSchema.fit(delib)
    heads = schema.heads
    assert heads["stage"] == 4 and heads["own_committee_vote"] == 4 and heads["adopted"] == 2
    assert heads["plenary_yes_bin"] == 1 + schema.part("plenary_yes_bin").yes.n_bins
    assert {"committee_no_rest_bin", "sponsor_share_bin", DONE} <= set(heads)
    assert schema.n_continuous == 0  # nothing is regressed
    copied = {delib.obs_names[j] for j in schema.copied}
    assert copied == set(delib.obs_names) - set(STATE_NAMES)  # the roll-call features


def test_unrecorded_stages_are_copied(assembly):
    from assembly_gym.envs.legislative.resolutions import records_from_roll_calls
    from assembly_gym.world_models.transitions import deliberation_transitions

    schema = StateSchema.fit(deliberation_transitions(records_from_roll_calls(assembly.data)))
    copied = {schema.obs_names[j] for j in schema.copied}
    assert {"sponsor_share", "committee_yes", "own_committee_no"} <= copied
    assert schema.part("committee_yes_bin") is None and schema.part("plenary_yes_bin") is not None


def test_rollcall_schema_has_flags_and_gaussians(rollcall):
    schema = StateSchema.fit(rollcall)
    flags = [p.name for p in schema.parts if isinstance(p, OneHotPart)]
    assert "issue_hr" in flags and "amend" in flags
    gaussian = {rollcall.obs_names[j] for j in schema.gaussian.dims}
    assert {"progress", "text_00", "similar_yes"} <= gaussian
    assert set(content_names()) - {"year"} <= gaussian | set(flags)


def test_schema_needs_names_and_data(delib):
    with pytest.raises(ValueError, match="need obs_names"):
        StateSchema.fit(delib.select(np.arange(5)).__class__(
            delib.obs[:5], delib.acts[:5], delib.next_obs[:5], delib.dones[:5], delib.episodes[:5]
        ))  # fmt: skip
    with pytest.raises(ValueError, match="no transitions"):
        StateSchema.fit(delib.select(np.zeros(len(delib), bool)))


def test_bin_codec_reproduces_point_masses():
    rng = np.random.default_rng(0)
    values = np.r_[np.ones(400), rng.uniform(0.4, 1.0, 600)]  # 40 % unanimous
    codec = BinCodec.fit(values, n_bins=10)
    assert codec.edges[0] == 0 and codec.edges[-1] == 1
    bins = codec.encode(values)
    samples = codec.sample(bins, rng)
    assert np.all((samples >= codec.edges[bins]) & (samples <= codec.edges[bins + 1]))
    assert abs((samples == 1.0).mean() - 0.4) < 0.05


@pytest.fixture(scope="module")
def schema(delib):
    return StateSchema.fit(delib)


def uniform_probs(schema, n):
    return {name: np.full((n, k), 1.0 / k) for name, k in schema.heads.items()}


def test_targets_round_trip_and_likelihood(schema, delib):
    targets = schema.targets(delib.next_obs, delib.dones)
    assert set(targets) == set(schema.heads)
    for name, (classes, valid) in targets.items():
        assert classes.min() >= 0 and classes.max() < schema.heads[name], name
        assert valid.any()
    one_hot = {name: np.eye(k)[np.where(valid, classes, 0)] for name, ((classes, valid), k)
               in ((n, (targets[n], schema.heads[n])) for n in schema.heads)}  # fmt: skip
    empty = np.zeros((len(delib), 0))
    assert np.allclose(schema.log_likelihood(delib.next_obs, one_hot, empty, empty), 0.0)
    uniform = schema.log_likelihood(delib.next_obs, uniform_probs(schema, len(delib)), empty, empty)
    assert np.all(uniform < 0) and np.all(np.isfinite(uniform))


def test_samples_are_valid_states(schema, delib):
    n = 500
    obs = delib.obs[:n]
    sample = schema.sample(obs, uniform_probs(schema, n), np.zeros((n, 0)), np.zeros((n, 0)),
                           np.random.default_rng(0))  # fmt: skip
    names = delib.obs_names
    stage = sample[:, [names.index(f"stage_{s}") for s in ("draft", "committee", "plenary",
                                                           "terminal")]]  # fmt: skip
    assert np.array_equal(stage.sum(1), np.ones(n))
    for prefix in ("committee", "plenary"):
        shares = sample[:, [names.index(f"{prefix}_{v}") for v in ("yes", "no", "abstain")]]
        total = shares.sum(1)
        assert np.all(shares >= 0) and np.all(np.isclose(total, 1, atol=1e-5) | (total == 0))
    yes, no = sample[:, names.index("plenary_yes")], sample[:, names.index("plenary_no")]
    assert np.array_equal(sample[:, names.index("adopted")] == 1, yes > no)  # consistent
    assert np.array_equal(sample[:, schema.copied], obs[:, schema.copied])


def test_expectation_matches_sample_average(schema, delib):
    obs = np.repeat(delib.obs[2:3], 20_000, axis=0)  # a plenary-stage state
    rng = np.random.default_rng(1)
    probs = {name: np.tile(rng.dirichlet(np.ones(k)), (len(obs), 1))
             for name, k in schema.heads.items()}  # fmt: skip
    empty = np.zeros((len(obs), 0))
    mean = schema.expectation(obs, probs, empty)[0]
    part = schema.part("committee_yes_bin")
    sample = schema.sample(obs, probs, empty, empty, rng)
    dims = list(part.dims)
    assert np.allclose(sample[:, dims].mean(0), mean[dims], atol=0.01)


def test_schema_serialises(schema, delib):
    again = StateSchema.from_dict(schema.to_dict())
    assert again.heads == schema.heads and np.array_equal(again.copied, schema.copied)
    types = [type(p) for p in again.parts]
    assert VoteSharesPart in types and ShareBinsPart in types
    rng = np.random.default_rng(0)
    probs = {name: rng.dirichlet(np.ones(k), size=50) for name, k in schema.heads.items()}
    empty = np.zeros((50, 0))
    assert np.allclose(again.expectation(delib.obs[:50], probs, empty),
                       schema.expectation(delib.obs[:50], probs, empty))  # fmt: skip
