"""The state schema: which dims are copied, classified or regressed; proper distributions."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from assembly_gym.core.state import OneHotGroup, OutcomeRule, Stages, StateDeclaration, VoteGroup
from assembly_gym.core.transitions import Transitions
from assembly_gym.envs.legislative.deliberation import STATE_DECLARATION, STATE_NAMES
from assembly_gym.envs.legislative.observation import content_names
from assembly_gym.world_models.schema import (
    DONE,
    BinCodec,
    OneHotPart,
    ShareBinsPart,
    StateSchema,
    VoteSharesPart,
    cumulative,
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
    from assembly_gym.envs.legislative.transitions import deliberation_transitions

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


# ---------------------------------------------------------------------- declarations

FAKE = StateDeclaration(
    names=("phase_open", "phase_vote", "phase_closed", "own_for", "own_against",
           "ballot_for", "ballot_against", "ballot_none", "turnout", "passed"),
    stages=Stages(("phase_open", "phase_vote", "phase_closed"), ("OPEN", "VOTE", "CLOSED"),
                  "CLOSED"),
    one_hot=(OneHotGroup("own_ballot", ("own_for", "own_against"), True),),
    votes=(VoteGroup("ballot", ("ballot_for", "ballot_against", "ballot_none")),),
    shares=("turnout",),
    outcome=OutcomeRule("passed", "ballot", majority=2 / 3),
)  # fmt: skip
"""Another env family: three phases, a ballot that passes with a two-thirds majority."""


def fake_transitions(n_episodes=300, seed=0):
    """Episodes OPEN → VOTE (turnout known) → CLOSED (ballot, own vote, passed)."""
    rng = np.random.default_rng(seed)
    names = ("feature", *FAKE.names)
    index = {name: i for i, name in enumerate(names)}
    states = np.zeros((n_episodes, 3, len(names)), np.float32)
    states[:, :, index["feature"]] = rng.random(n_episodes)[:, None]  # never changes
    for t, phase in enumerate(FAKE.stages.dims):
        states[:, t, index[phase]] = 1
    states[:, 1:, index["turnout"]] = rng.random(n_episodes)[:, None]
    ballot = rng.dirichlet(np.ones(3), n_episodes)
    states[:, 2, [index[n] for n in FAKE.vote("ballot").dims]] = ballot
    states[:, 2, index["passed"]] = FAKE.outcome.passed(ballot[:, 0], ballot[:, 1])
    acts = np.zeros((n_episodes, 2), np.int64)
    acts[:, 1] = rng.integers(0, 3, n_episodes)  # for, against or none
    for own, action in (("own_for", 0), ("own_against", 1)):
        states[acts[:, 1] == action, 2, index[own]] = 1
    return Transitions(
        states[:, :2].reshape(-1, len(names)), acts.reshape(-1),
        states[:, 1:].reshape(-1, len(names)), np.tile([False, True], n_episodes),
        np.repeat(np.arange(n_episodes), 2), names,
    )  # fmt: skip


def test_another_family_is_modelled_as_it_declares():
    data = dataclasses.replace(fake_transitions(), declaration=FAKE)
    schema = StateSchema.fit(data)
    assert schema.declaration == FAKE
    assert [(p.name if hasattr(p, "name") else p.prefix, type(p)) for p in schema.parts] == [
        ("stage", OneHotPart), ("own_ballot", OneHotPart), ("ballot", VoteSharesPart),
        ("turnout", ShareBinsPart), ("passed", OneHotPart),
    ]  # fmt: skip
    assert schema.heads["stage"] == 3 and schema.heads["own_ballot"] == 3
    assert [data.obs_names[j] for j in schema.copied] == ["feature"]
    n = 2000
    obs = np.repeat(data.obs[1:2], n, axis=0)  # a VOTE-phase state
    sample = schema.sample(obs, uniform_probs(schema, n), np.zeros((n, 0)), np.zeros((n, 0)),
                           np.random.default_rng(0))  # fmt: skip
    column = {name: sample[:, data.obs_names.index(name)] for name in data.obs_names}
    passed = column["ballot_for"] > 2 * column["ballot_against"]  # the two-thirds rule
    assert np.array_equal(column["passed"] == 1, passed)
    assert (passed.any() and not passed.all()
            and (~passed & (column["ballot_for"] > column["ballot_against"])).any())  # fmt: skip
    again = StateSchema.from_dict(schema.to_dict())
    assert again.declaration == FAKE and again.heads == schema.heads


def test_without_its_declaration_a_layout_is_only_data():
    schema = StateSchema.fit(fake_transitions())  # no family names these dims
    assert schema.declaration == StateDeclaration() and "stage" not in schema.heads
    assert {"phase_vote", "passed", "own_for"} <= set(schema.heads)  # 0/1 dims: 2 classes


def test_a_model_keeps_the_declaration_it_was_fitted_with(tmp_path):
    from assembly_gym.world_models.base import load_world_model
    from assembly_gym.world_models.empirical import EmpiricalModel

    model = EmpiricalModel().fit(dataclasses.replace(fake_transitions(), declaration=FAKE))
    model.save(tmp_path / "fake")
    loaded = load_world_model(tmp_path / "fake")
    assert model.state_declaration == loaded.state_declaration == FAKE
    stage = loaded.predict(loaded.start_states[:1], [0]).distributions["stage"]
    assert stage.shape == (1, 3) and stage[0].argmax() == FAKE.stages.labels.index("VOTE")


def test_deliberation_declares_what_the_schema_used_to_hard_code(schema, delib):
    assert schema.declaration == STATE_DECLARATION == delib.declaration
    named = [(getattr(p, "name", getattr(p, "prefix", None)),
              tuple(delib.obs_names[j] for j in p.dims)) for p in schema.parts]  # fmt: skip
    votes = ("yes", "no", "abstain")
    assert named[:6] == [
        ("stage", ("stage_draft", "stage_committee", "stage_plenary", "stage_terminal")),
        ("own_committee_vote", tuple(f"own_committee_{v}" for v in votes)),
        ("own_plenary_vote", tuple(f"own_plenary_{v}" for v in votes)),
        ("committee", tuple(f"committee_{v}" for v in votes)),
        ("plenary", tuple(f"plenary_{v}" for v in votes)),
        ("sponsor_share", ("sponsor_share",)),
    ]  # fmt: skip
    assert STATE_DECLARATION.outcome == OutcomeRule("adopted", "plenary", majority=0.5)


def dirichlet_probs(schema, n, seed=0):
    """Random class probabilities, one draw per row and head."""
    rng = np.random.default_rng(seed)
    return {name: rng.dirichlet(np.ones(k), size=n) for name, k in schema.heads.items()}


def test_one_row_sampler_draws_what_the_batch_sampler_draws(schema, delib):
    """sample_row (Python floats) equals sample_cumulative of that one row, draw for draw."""
    n = 300
    probs = dirichlet_probs(schema, n)
    cdfs = {name: cumulative(p) for name, p in probs.items()}
    empty = np.zeros((1, 0))
    for i in range(n):
        rows = {name: c[i : i + 1] for name, c in cdfs.items()}
        batch = schema.sample_cumulative(delib.obs[i : i + 1], rows, empty, empty,
                                         np.random.default_rng(i))  # fmt: skip
        lists = {name: c[0].tolist() for name, c in rows.items()}
        row = schema.sample_row(delib.obs[i], lists, [], [], np.random.default_rng(i))
        assert row.dtype == np.float32 and np.array_equal(row, batch[0]), i


def test_one_row_sampler_with_gaussians_equals_the_batch(rollcall):
    schema = StateSchema.fit(rollcall)
    n, c = 50, schema.n_continuous
    probs = dirichlet_probs(schema, n, seed=1)
    rng = np.random.default_rng(2)
    mean, std = rng.normal(size=(n, c)), rng.uniform(0.1, 1, size=(n, c))
    for i in range(n):
        rows = {name: cumulative(p[i : i + 1]) for name, p in probs.items()}
        batch = schema.sample_cumulative(rollcall.obs[i : i + 1], rows, mean[i : i + 1],
                                         std[i : i + 1], np.random.default_rng(i))  # fmt: skip
        lists = {name: c[0].tolist() for name, c in rows.items()}
        row = schema.sample_row(rollcall.obs[i], lists, mean[i].tolist(), std[i].tolist(),
                                np.random.default_rng(i))  # fmt: skip
        assert np.array_equal(row, batch[0]), i


def test_the_outcome_follows_the_rejection_law(schema, delib):
    """P(adopted) = q (1 − (1 − p)^8) + (1 − q) p^8 — q: the outcome head's probability of
    adopted, p: a tally's of passing — whatever random numbers a sampler draws."""
    n = 40_000
    state = delib.obs[2:3]  # a plenary-stage state
    rng = np.random.default_rng(3)
    probs = {name: np.tile(p[0], (n, 1)) for name, p in dirichlet_probs(schema, 1, 4).items()}
    q = probs["adopted"][0, 1]
    vote = schema.part("plenary_yes_bin")
    cdfs = {name: cumulative(probs[name]) for name in vote.heads}
    tallies = vote.draw(cdfs, rng.random((n, vote.n_uniforms)))
    p = np.mean(schema.declaration.outcome.passed(tallies[:, 0], tallies[:, 1]))
    assert 0.1 < p < 0.9  # the rule redraws often
    empty = np.zeros((n, 0))
    sample = schema.sample(np.repeat(state, n, axis=0), probs, empty, empty, rng)
    adopted = sample[:, delib.obs_names.index("adopted")].mean()
    expected = q * (1 - (1 - p) ** 8) + (1 - q) * p**8
    assert adopted == pytest.approx(expected, abs=0.015)
