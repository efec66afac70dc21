"""Loggers (console, JSON, TensorBoard, W&B) and the allocation plot."""

from __future__ import annotations

import io
import json
import sys

import pytest

from assembly_gym.agents.debate import (
    ConsoleLogger,
    JSONLogger,
    TensorBoardLogger,
    TrainConfig,
    Trainer,
    WandbLogger,
    plot_allocations,
)
from assembly_gym.agents.debate.loggers import JSON_LOG_KIND
from assembly_gym.agents.debate.tendencies import tendency_agents
from assembly_gym.agents.debate.trainer import DebateLogger
from assembly_gym.core.errors import MissingDependencyError


def train(observations, logger, **config):
    return Trainer(TrainConfig(max_epochs=4, **config)).train(
        observations, tendency_agents(), logger=logger
    )


def test_loggers_follow_the_protocol(tmp_path):
    assert isinstance(ConsoleLogger(), DebateLogger)
    assert isinstance(JSONLogger(tmp_path / "log.json"), DebateLogger)
    assert not isinstance(object(), DebateLogger)


def test_console_logger_prints_one_block_per_epoch(country_observations):
    stream = io.StringIO()
    history, result = train(country_observations, ConsoleLogger(stream))
    text = stream.getvalue()
    assert text.count("\nEpoch ") == history.epochs_run
    assert "Epoch 1/4  lr 0.1500" in text and "Epoch 2/4  lr 0.1350" in text
    assert f"winner: {history.metrics[0].winner} (score " in text
    first_share = history.metrics[0].allocations[result.winner.label]
    assert f"{first_share:6.1%}" in text
    validation = history.validation_results[0]
    assert f"p = {validation.p_value:.2g} {validation.stars}" in text
    assert "held-out actions: accuracy" in text
    assert f"winner: {result.winner.label}" in text.splitlines()[-1]


def test_json_logger_writes_the_documented_schema(country_observations, tmp_path):
    path = tmp_path / "logs" / "train.json"
    history, result = train(country_observations, JSONLogger(path))
    log = json.loads(path.read_text())
    assert log["kind"] == JSON_LOG_KIND and log["format_version"] == 1
    assert log["config"] == TrainConfig(max_epochs=4).to_dict()
    assert log["tendencies"] == [a.name for a in tendency_agents()]
    assert len(log["epochs"]) == history.epochs_run
    epoch = log["epochs"][0]
    for key in (
        "epoch",
        "learning_rate",
        "winner",
        "winning_score",
        "scores",
        "allocations",
        "allocation_changes",
        "total_stakes",
        "validation",
    ):
        assert key in epoch
    assert epoch["allocations"] == pytest.approx(history.metrics[0].allocations)
    assert epoch["validation"]["p_value"] == pytest.approx(history.validation_results[0].p_value)
    assert log["summary"] == {
        "epochs_run": history.epochs_run,
        "converged": history.converged,
        "best_epoch": history.best_epoch,
        "winner": result.winner.label,
        "allocations": pytest.approx(result.allocations),
    }
    assert list(path.parent.iterdir()) == [path]  # atomic: no temporary file left behind


def test_json_logger_file_is_complete_after_every_epoch(country_observations, tmp_path):
    path = tmp_path / "train.json"
    seen = []

    class Spy:
        def start(self, config, tendencies):
            pass

        def log_epoch(self, metrics, validation):
            seen.append(len(json.loads(path.read_text())["epochs"]))

        def finish(self, history, result):
            pass

    train(country_observations, [JSONLogger(path), Spy()])
    assert seen == list(range(1, len(seen) + 1))


def test_tensorboard_logger_writes_an_event_file_with_scalars(country_observations, tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    history, _ = train(country_observations, TensorBoardLogger(tmp_path / "tb"))
    files = list((tmp_path / "tb").glob("events.out.tfevents.*"))
    assert len(files) == 1 and files[0].stat().st_size > 0
    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {
        "learning_rate",
        "allocation_change",
        "validation/accuracy",
        "validation/p_value",
        "allocation/human rights",
        "score/consensus / majority-following",
    } <= tags
    values = [e.value for e in events.Scalars("allocation/human rights")]
    assert values == pytest.approx(
        [m.allocations["human rights"] for m in history.metrics], abs=1e-6
    )


def test_wandb_logger_says_how_to_install_wandb_when_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb → ImportError
    with pytest.raises(
        MissingDependencyError,
        match=r"wandb is needed for the W&B logger .*pip install 'assembly-gym\[wandb\]'",
    ):
        WandbLogger("assembly-gym", "test")


def test_wandb_logger_offline(country_observations, tmp_path):
    pytest.importorskip("wandb", reason="the optional wandb extra is not installed")
    logger = WandbLogger("assembly-gym-test", "offline-run", directory=tmp_path)
    train(country_observations, logger)
    assert list(tmp_path.rglob("*.wandb")), "no offline run file written"


def test_plot_allocations_writes_a_png(country_observations, tmp_path):
    history, _ = train(country_observations, None)
    path = plot_allocations(history, tmp_path / "plots" / "allocations.png", bounds=(0.03, 0.5))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 5000
