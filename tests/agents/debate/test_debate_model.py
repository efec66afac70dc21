"""Observations files (schema and every error), debate models (build, train, save, load)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assembly_gym.agents.debate import (
    ConsoleLogger,
    DebateModel,
    TrainConfig,
    Trainer,
    create_debate_model,
)
from assembly_gym.agents.debate.observations import (
    Observations,
    TextTendencySpec,
    load_observations_json,
)
from assembly_gym.agents.debate.tendencies import Tendency
from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import atomic_write_json

TEXTS = [
    "Called for an investigation into torture and the detention of journalists.",
    "Rejected sanctions as interference in the internal affairs of a sovereign state.",
    "Announced debt relief and trade financing for developing countries.",
    "Defended freedom of expression and the rights of women.",
    "Backed the independence of colonial territories and self-determination.",
    "Voted with the allies of the coalition, as the group did last year.",
    "Condemned human rights violations reported by the special rapporteur.",
    "Supported the nuclear disarmament treaty and arms control talks.",
    "Joined the broad consensus of the assembly on the budget compromise.",
    "Urged protection of the rights of children and an end to discrimination.",
]


def write(tmp_path, document, name="observations.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


@pytest.fixture()
def observations_file(tmp_path):
    records = [
        {"id": f"note-{i}", "text": text, "date": "2024-01-01"} for i, text in enumerate(TEXTS)
    ]
    return write(tmp_path, {"name": "A foreign minister", "observations": records})


def test_a_valid_file_is_read(observations_file):
    content = load_observations_json(observations_file)
    assert content.name == "A foreign minister" and content.tendencies == ()
    assert content.observations.ids[:2] == ("note-0", "note-1")
    assert content.observations.texts[2] == TEXTS[2]
    assert not content.observations.labelled.any()


def test_ids_default_to_positions_and_tendencies_are_read(tmp_path):
    path = write(
        tmp_path,
        {
            "tendencies": [{"name": "a", "description": "x y"}, {"name": "b", "description": "z"}],
            "observations": [{"text": "one"}, {"text": "two", "id": 7}],
        },
    )
    content = load_observations_json(path)
    assert content.observations.ids == ("1", "7")
    assert content.tendencies == (TextTendencySpec("a", "x y"), TextTendencySpec("b", "z"))


@pytest.mark.parametrize(
    ("document", "match", "field", "row"),
    [
        ("{not json", "not valid UTF-8 JSON", None, None),
        ([1, 2], "expected a JSON object", None, None),
        (
            {"observations": [{"text": "a"}, {"text": "b"}], "extra": 1},
            "unknown key",
            "extra",
            None,
        ),
        (
            {"observations": [{"text": "a"}]},
            "at least two observation records",
            "observations",
            None,
        ),
        ({"observations": "text"}, "at least two observation records", "observations", None),
        ({}, "at least two observation records", "observations", None),
        (
            {"name": 3, "observations": [{"text": "a"}, {"text": "b"}]},
            "non-empty text",
            "name",
            None,
        ),
        ({"observations": [{"text": "a"}, "b"]}, "must be a JSON object", None, "observations[1]"),
        (
            {"observations": [{"text": "a"}, {"txt": "b"}]},
            "unknown field",
            "txt",
            "observations[1]",
        ),
        (
            {"observations": [{"text": "a"}, {"text": " "}]},
            "required, non-empty",
            "text",
            "observations[1]",
        ),
        ({"observations": [{"text": "a"}, {}]}, "required, non-empty", "text", "observations[1]"),
        (
            {"observations": [{"text": "a", "date": 2024}, {"text": "b"}]},
            "must be text",
            "date",
            "observations[0]",
        ),
        (
            {"observations": [{"text": "a", "id": "x"}, {"text": "b", "id": "x"}]},
            "duplicate id",
            "id",
            "observations[1]",
        ),
        (
            {"observations": [{"text": "a", "id": [1]}, {"text": "b"}]},
            "non-empty text or an integer",
            "id",
            "observations[0]",
        ),
        (
            {"tendencies": {"a": 1}, "observations": [{"text": "a"}, {"text": "b"}]},
            "must be a list",
            "tendencies",
            None,
        ),
        (
            {"tendencies": [{"name": "a"}], "observations": [{"text": "a"}, {"text": "b"}]},
            "exactly 'name' and 'description'",
            None,
            "tendencies[0]",
        ),
        (
            {
                "tendencies": [{"name": "a", "description": ""}, {"name": "b", "description": "x"}],
                "observations": [{"text": "a"}, {"text": "b"}],
            },
            "non-empty text",
            "description",
            "tendencies[0]",
        ),
        (
            {
                "tendencies": [
                    {"name": "a", "description": "x"},
                    {"name": "a", "description": "y"},
                ],
                "observations": [{"text": "a"}, {"text": "b"}],
            },
            "duplicate tendency name",
            "name",
            "tendencies[1]",
        ),
        (
            {
                "tendencies": [{"name": "a", "description": "x"}],
                "observations": [{"text": "a"}, {"text": "b"}],
            },
            "at least two tendencies",
            "tendencies",
            None,
        ),
    ],
)
def test_bad_files_raise_data_errors_naming_file_record_and_field(
    tmp_path, document, match, field, row
):
    path = write(tmp_path, document)
    with pytest.raises(DataError, match=match) as caught:
        load_observations_json(path)
    assert caught.value.source == str(path) and str(path) in str(caught.value)
    assert caught.value.field == field
    assert caught.value.row == row


def test_a_missing_or_undecodable_file_raises(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        load_observations_json(tmp_path / "absent.json")
    bad = tmp_path / "latin1.json"
    bad.write_bytes('{"observations": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(DataError, match="not valid UTF-8 JSON"):
        load_observations_json(bad)


def test_the_seed_style_usage(observations_file, tmp_path, capsys):
    model = create_debate_model("A foreign minister", observations_file)
    config = TrainConfig(max_epochs=8, validation_split=0.3)
    trainer = Trainer(config)
    history, result = trainer.train(model.observations, model.agents, logger=ConsoleLogger())
    assert 1 <= history.epochs_run <= 8
    assert isinstance(history.converged, bool)
    assert 0.0 <= history.validation_results[-1].accuracy <= 1.0
    allocations = {agent.name: agent.allocation for agent in model.agents}
    assert sum(allocations.values()) == pytest.approx(1.0)
    assert allocations == pytest.approx(result.allocations)
    assert max(allocations, key=allocations.get) == result.winner.label
    model.save(tmp_path / "minister.debate.json")
    assert "Epoch 1/8" in capsys.readouterr().out
    loaded = DebateModel.load(tmp_path / "minister.debate.json")
    assert loaded.allocations == pytest.approx(allocations)


def test_save_and_load_round_trip_a_trained_rollcall_model(country_observations, tmp_path):
    model = create_debate_model("Country 001", country_observations)
    history, _ = model.train(TrainConfig(max_epochs=3))
    model.save(tmp_path / "model.json")
    loaded = DebateModel.load(tmp_path / "model.json")
    assert loaded.name == "Country 001"
    assert loaded.allocations == model.allocations
    assert [a.tendency for a in loaded.agents] == list(Tendency)
    assert loaded.history == history
    np.testing.assert_array_equal(loaded.observations.features, country_observations.features)
    np.testing.assert_array_equal(loaded.observations.actions, country_observations.actions)
    np.testing.assert_array_equal(loaded.observations.masks, country_observations.masks)
    assert loaded.observations.texts == country_observations.texts
    assert f"Training: {history.epochs_run} epochs" in loaded.summary()


def test_loading_bad_models_raises_checkpoint_errors(tmp_path):
    with pytest.raises(CheckpointError, match="file not found"):
        DebateModel.load(tmp_path / "absent.json")
    atomic_write_json(tmp_path / "other.json", {}, kind="reward-model", version=1)
    with pytest.raises(CheckpointError, match="expected a 'debate-model' file"):
        DebateModel.load(tmp_path / "other.json")
    atomic_write_json(tmp_path / "broken.json", {"name": "x"}, kind="debate-model", version=1)
    with pytest.raises(CheckpointError, match="malformed debate model"):
        DebateModel.load(tmp_path / "broken.json")


@pytest.fixture(scope="module")
def saved_document(country_observations, tmp_path_factory):
    model = create_debate_model("Country 001", country_observations)
    model.train(TrainConfig(max_epochs=3))
    path = tmp_path_factory.mktemp("debate") / "model.json"
    model.save(path)
    return path.read_text()


@pytest.mark.parametrize(
    ("path", "value"),
    [(("name",), 3), (("agents",), {"a": 1}), (("agents",), [1]), (("agents", 0, "name"), 7),
     (("agents", 0, "description"), None), (("agents", 0, "tendency"), 1),
     (("agents", 0, "allocation"), True), (("agents", 0, "allocation"), "0.5"),
     (("observations",), [1]), (("observations", "ids"), 5), (("observations", "features"), 5),
     (("history",), "none"), (("history", "metrics"), 5)],
)  # fmt: skip
def test_fields_of_the_wrong_type_are_checkpoint_errors(saved_document, tmp_path, path, value):
    document = json.loads(saved_document)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    (tmp_path / "model.json").write_text(json.dumps(document))
    with pytest.raises(CheckpointError, match="model.json: (malformed debate model|corrupted "
                       "history)"):  # fmt: skip
        DebateModel.load(tmp_path / "model.json")


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [("converged", "no", "field 'converged' is a string, expected true or false"),
     ("epochs_run", 2.5, "field 'epochs_run' is a number, expected an integer"),
     ("metrics", [{"epoch": 1}], r"no field 'metrics\[0\].learning_rate'"),
     ("validation_results", [None], r"field 'validation_results\[0\]' is null")],
)  # fmt: skip
def test_a_history_field_of_another_type_is_named(saved_document, tmp_path, key, value, message):
    document = json.loads(saved_document)
    document["history"][key] = value
    (tmp_path / "model.json").write_text(json.dumps(document))
    with pytest.raises(CheckpointError, match=f"model.json: corrupted history .{message}"):
        DebateModel.load(tmp_path / "model.json")


def test_models_name_defaults_and_tendency_choice(observations_file, country_observations):
    assert create_debate_model(None, observations_file).name == "A foreign minister"
    chosen = create_debate_model(
        "x", country_observations, tendencies=[Tendency.HUMAN_RIGHTS, Tendency.CONSENSUS]
    )
    assert [a.name for a in chosen.agents] == ["human rights", "consensus / majority-following"]
    mixed = create_debate_model(
        "x", country_observations, tendencies=[Tendency.HUMAN_RIGHTS, TextTendencySpec("a", "b")]
    )
    assert [a.name for a in mixed.agents] == ["human rights", "a"]
    with pytest.raises(ValueError, match="at least two tendencies"):
        create_debate_model("x", country_observations, tendencies=[Tendency.HUMAN_RIGHTS])


def test_observations_validate_themselves():
    with pytest.raises(ValueError, match="ids must be unique"):
        Observations(ids=("a", "a"), features=np.zeros((2, 0), np.float32), actions=np.full(2, -1))
    with pytest.raises(ValueError, match="features must have shape"):
        Observations(ids=("a",), features=np.zeros((2, 1), np.float32), actions=np.full(1, -1))
    with pytest.raises(ValueError, match="actions must be −1 or an index below 0"):
        Observations(ids=("a",), features=np.zeros((1, 0), np.float32), actions=np.array([0]))
    with pytest.raises(ValueError, match="an observed action is masked out"):
        Observations(
            ids=("a",),
            features=np.zeros((1, 0), np.float32),
            actions=np.array([0]),
            action_names=("yes", "no"),
            masks=np.array([[False, True]]),
        )
