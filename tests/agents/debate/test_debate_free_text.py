"""Free text about a person: person tendencies, per-observation owners, refreshed claims."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from scipy.stats import binomtest

from assembly_gym.agents.debate import (
    ClaimModel,
    DebateModel,
    TrainConfig,
    Trainer,
    TrainHistory,
    create_debate_model,
)
from assembly_gym.agents.debate.arena import ClaimSet
from assembly_gym.agents.debate.forecast import ClaimProfiles
from assembly_gym.agents.debate.observations import load_observations_json
from assembly_gym.agents.debate.synthetic import synthetic_person
from assembly_gym.agents.debate.tendencies import PersonTendency, Tendency
from assembly_gym.agents.debate.validator import Validator
from assembly_gym.core.errors import DataError

# A fake language model: every tendency claims every observation with relevance from a word
# it is named by; each request is logged.
FAKE = """
import json, sys
request = json.load(sys.stdin)
with open({log!r}, "a") as log:
    log.write(json.dumps(request) + "\\n")
claims = [{{"id": o["id"], "tendency": t["name"], "action": None, "strength": 0.0,
            "relevance": 0.9 if t["name"] in o["text"] else 0.1}}
          for o in request["observations"] for t in request["tendencies"]]
print(json.dumps({{"claims": claims}}))
"""


@pytest.fixture(scope="module")
def person(tmp_path_factory):
    """A planted synthetic person: (file, planted owners)."""
    document, owners, _ = synthetic_person(150, rng=np.random.default_rng(3))
    path = tmp_path_factory.mktemp("person") / "person.json"
    path.write_text(json.dumps(document))
    return path, owners


def write(tmp_path, document) -> str:
    path = tmp_path / "obs.json"
    path.write_text(json.dumps(document))
    return str(path)


def test_the_about_field_selects_the_person_tendencies(tmp_path, person):
    model = create_debate_model(None, person[0])
    assert [a.tendency for a in model.agents] == list(PersonTendency)
    assert [a.name for a in model.agents] == [t.value for t in PersonTendency]
    plain = write(tmp_path, {"observations": [{"text": "a b"}, {"text": "c d"}]})
    assert [a.tendency for a in create_debate_model(None, plain).agents] == list(Tendency)
    chosen = create_debate_model(None, plain, about="person")
    assert len(chosen.agents) == 7 and chosen.agents[0].name == "survival"


def test_a_bad_about_value_names_the_file_and_field(tmp_path):
    path = write(tmp_path, {"about": "robot", "observations": [{"text": "a"}, {"text": "b"}]})
    with pytest.raises(DataError, match=r"obs\.json, field 'about': must be one of") as caught:
        create_debate_model(None, path)
    assert caught.value.field == "about" and "'robot'" in str(caught.value)


def test_per_observation_owners_beat_the_majority_on_a_planted_person(person):
    path, owners = person
    model = create_debate_model(None, path)
    trainer = Trainer(TrainConfig(max_epochs=3))
    history, _ = trainer.train(model.observations, model.agents)
    last = history.validation_results[-1]
    assert last.owner_source == "built-in relevance" and last.n == 30
    assert last.accuracy > last.majority_rate + 0.3 and last.p_value < 1e-10
    assert last.p_value == pytest.approx(
        binomtest(last.successes, last.n, 1 / 7, alternative="greater").pvalue
    )
    # the owners by relevance are mostly the planted ones: the check is about the person
    _, held_out = trainer.split(len(owners))
    predicted, _ = _owners(model, trainer, held_out)
    assert (predicted == owners[held_out]).mean() > 0.8
    saved = TrainHistory.from_dict(json.loads(json.dumps(history.to_dict())))
    assert saved.validation_results[-1] == last


def _owners(model, trainer, held_out):
    from assembly_gym.agents.debate.tendencies import compute_claims

    claims = compute_claims(model.observations, model.agents)
    train = np.setdiff1d(np.arange(len(model.observations)), held_out)
    texts = model.observations.texts
    profiles = ClaimProfiles([texts[i] for i in train], [texts[i] for i in held_out])
    allocations = np.array([a.allocation for a in model.agents])
    forecast = profiles.log_likelihood(claims.relevance[:, train], allocations)
    return Validator(seed=trainer.seed).owners(
        claims.take(held_out), np.full(len(held_out), -1), allocations, forecast=forecast
    )


def test_the_forecast_is_allocation_prior_plus_claimed_words():
    # tendency 0 claimed the texts about apples, tendency 1 those about boats
    profiles = ClaimProfiles(["apple pie", "apple tart", "boat sail"], ["apple", "sail", "zebra"])
    relevance = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    forecast = profiles.log_likelihood(relevance, np.array([0.5, 0.5]))
    assert forecast.shape == (2, 3)
    assert forecast[0, 0] > forecast[1, 0] and forecast[1, 1] > forecast[0, 1]
    assert forecast[0, 2] == forecast[1, 2] == 0.0  # an unknown word: no evidence
    claims = ClaimSet(np.zeros((2, 3, 0)), np.zeros((2, 3)))
    predicted, _ = Validator().owners(claims, np.full(3, -1), np.array([0.3, 0.7]), None, forecast)
    np.testing.assert_array_equal(predicted, [0, 1, 1])  # the unknown word: the prior decides
    predicted, _ = Validator().owners(claims, np.full(3, -1), np.array([0.3, 0.7]))
    np.testing.assert_array_equal(predicted, [1, 1, 1])  # no forecast: the allocation alone


@pytest.mark.parametrize("validate", [True, False])
def test_refreshed_claims_ask_the_command_once_per_epoch(tmp_path, person, validate):
    log = tmp_path / "calls.jsonl"
    source = tmp_path / "fake.py"
    source.write_text(FAKE.format(log=str(log)))
    command = ClaimModel(
        [sys.executable, str(source)], batch_size=1000, refresh=True, validate=validate
    )
    model = create_debate_model(None, person[0])
    trainer = Trainer(TrainConfig(max_epochs=3, min_epochs=3))
    history, _ = trainer.train(model.observations, model.agents, claim_model=command)
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert history.epochs_run == 3 and len(requests) == 3 == history.claim_batches
    assert [r["epoch"] for r in requests] == [1, 2, 3]
    first = [t["allocation"] for t in requests[0]["tendencies"]]
    assert first == pytest.approx([1 / 7] * 7, abs=1e-6)
    sent = [t["allocation"] for t in requests[2]["tendencies"]]
    assert sent == pytest.approx(list(history.metrics[1].allocations.values()), abs=1e-6)
    _, held_out = trainer.split(len(model.observations))
    held_ids = {model.observations.ids[i] for i in held_out}
    asked = {o["id"] for o in requests[0]["observations"]}
    assert (held_ids <= asked) is validate and held_ids.isdisjoint(asked) is not validate
    source_name = "claim command" if validate else "built-in relevance"
    assert history.validation_results[-1].owner_source == source_name


def test_without_refresh_the_command_is_asked_once(tmp_path, person):
    log = tmp_path / "calls.jsonl"
    source = tmp_path / "fake.py"
    source.write_text(FAKE.format(log=str(log)))
    model = create_debate_model(None, person[0])
    command = ClaimModel([sys.executable, str(source)], batch_size=1000)
    history, _ = Trainer(TrainConfig(max_epochs=3, min_epochs=3)).train(
        model.observations, model.agents, claim_model=command
    )
    assert len(log.read_text().splitlines()) == 1 and history.epochs_run == 3


def test_synthetic_person_is_seeded_and_checked():
    first, owners, weights = synthetic_person(20, rng=np.random.default_rng(0))
    again, _, _ = synthetic_person(20, rng=np.random.default_rng(0))
    assert first == again and first["about"] == "person" and len(first["observations"]) == 20
    assert owners.shape == (20,) and weights.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="n_observations ≥ 2"):
        synthetic_person(1, rng=np.random.default_rng(0))


def test_training_moves_a_planted_person_toward_its_mixture_and_each_winner_gains(tmp_path):
    """Default settings: L1 to the planted mixture falls, and every epoch's winner gained share."""
    document, _, _ = synthetic_person(400, rng=np.random.default_rng(0))  # debate generate's
    model = create_debate_model(None, write(tmp_path, document))
    config = TrainConfig()
    history, _ = model.train(config)
    planted = np.array([model.planted[a.name] for a in model.agents])
    start = np.abs(1 / 7 - planted).sum()
    l1 = [np.abs(np.array(list(m.allocations.values())) - planted).sum() for m in history.metrics]
    assert l1[-1] < start / 2 and history.converged
    for metrics in history.metrics:
        gained = metrics.allocation_changes[metrics.winner]
        capped = metrics.allocations[metrics.winner] >= config.max_allocation - 1e-12
        assert gained > 0 or capped or metrics.total_change < 1e-12
    likelihoods = [v.log_likelihood for v in history.validation_results]
    assert likelihoods[-1] > likelihoods[0]  # the held-out fit sees the training
    assert likelihoods[history.best_epoch - 1] == max(likelihoods)


def test_the_planted_mixture_is_read_checked_and_kept(tmp_path, person):
    content = load_observations_json(person[0])
    assert set(content.planted) == {t.value for t in PersonTendency}
    records = [{"text": "hunger"}, {"text": "wine"}]
    for planted in ({"survival": 0.7}, {"survival": "half"}, [0.5, 0.5], {"": 1.0}, {}):
        path = write(tmp_path, {"about": "person", "observations": records, "planted": planted})
        with pytest.raises(DataError, match=r"obs\.json, field 'planted': must map") as caught:
            load_observations_json(path)
        assert caught.value.field == "planted"
    path = write(tmp_path, {"about": "person", "observations": records, "planted": {"x": 1}})
    assert load_observations_json(path).planted == {"x": 1.0}
    with pytest.raises(DataError, match=r"field 'planted': names \['x'\], not tendencies"):
        create_debate_model(None, path)
    model = create_debate_model(None, person[0])
    model.save(tmp_path / "m.json")
    loaded = DebateModel.load(tmp_path / "m.json")
    assert loaded.planted == model.planted and "Planted mixture: L1 distance" in loaded.summary()
