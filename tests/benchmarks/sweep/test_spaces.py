"""The sweep's spaces: validation data only, and Optuna asked for where it is absent."""

from __future__ import annotations

import sys

import pytest

from assembly_gym.benchmarks.splits import TemporalSplit
from assembly_gym.benchmarks.sweep import SPACES, SweepSettings
from assembly_gym.benchmarks.sweep.run import search_algorithm
from assembly_gym.benchmarks.sweep.votes import validation_split
from assembly_gym.core.errors import AssemblyGymError, DataError
from assembly_gym.envs.legislative.sources import roll_call_data


def test_the_trials_data_never_holds_the_test_sessions() -> None:
    test_sessions = set(TemporalSplit.of(roll_call_data()).test.sessions)
    for space in ("irl", "neural-reward", "debate"):
        data = SPACES[space].prepare(SweepSettings(quick=True))  # what every trial is sent
        seen = {*data.train.sessions, *data.fit.sessions, *data.validation.sessions}
        assert seen.isdisjoint(test_sessions)
        assert max(data.fit.sessions) < min(data.validation.sessions)
        assert set(data.fit.sessions) | set(data.validation.sessions) == set(data.train.sessions)


def test_given_training_sessions_bound_the_data() -> None:
    data = validation_split(SweepSettings(sessions=(1, 10), validation_sessions=3))
    assert list(data.fit.sessions) == list(range(1, 8))
    assert list(data.validation.sessions) == [8, 9, 10]
    with pytest.raises(DataError, match="cannot keep 10 for validation"):
        validation_split(SweepSettings(sessions=(1, 10), validation_sessions=10))


def test_optuna_asked_for_where_absent_is_an_error(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "optuna", None)
    with pytest.raises(AssemblyGymError, match="--search optuna needs Optuna"):
        search_algorithm("optuna", SPACES["irl"], 0)


def test_the_spaces_name_flags_their_commands_take() -> None:
    from assembly_gym.benchmarks.cli import build_parser, subcommand_parsers
    from assembly_gym.benchmarks.experiments import build_parser as experiment_parser

    parser = build_parser()
    for space in SPACES.values():
        if space.command.startswith("experiment "):
            command = experiment_parser(space.command.split()[1])
        else:
            prog = f"assembly-gym {space.command}"
            command = next(p for p in subcommand_parsers(parser) if p.prog == prog)
        dests = {a.dest for a in command._actions}
        assert {p.name for p in space.params} <= dests, space.name
