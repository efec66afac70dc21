"""Real data asked for but missing: the message names every path that was tried."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core import paths
from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import real_data_missing
from assembly_gym.envs.legislative.sources import roll_call_data

ADVICE = "set $ASSEMBLY_GYM_DATA to the folder that holds unvotes/un_votes.csv.gz"


def test_env_var_pointing_at_an_empty_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSEMBLY_GYM_DATA", str(tmp_path))
    with pytest.raises(DataError) as caught:
        roll_call_data("unvotes")
    message = str(caught.value)
    assert str(tmp_path) in message
    assert message == (
        f"unvotes: real data not found at {tmp_path / 'unvotes'} "
        f"($ASSEMBLY_GYM_DATA={tmp_path}): {ADVICE}"
    )


def test_env_var_pointing_nowhere_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "no such folder"
    monkeypatch.setenv("ASSEMBLY_GYM_DATA", str(missing))
    with pytest.raises(DataError, match="real data not found at .*no such folder"):
        roll_call_data("unvotes")


def test_without_env_var_both_shared_data_folders_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ASSEMBLY_GYM_DATA", raising=False)
    (tmp_path / "cwd" / "here").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "cwd" / "here")
    monkeypatch.setattr(paths, "_PROJECT_ROOT", tmp_path / "install" / "project")
    expected = (
        f"real data not found at {tmp_path / 'cwd' / 'shared' / 'data' / 'unvotes'} or "
        f"{tmp_path / 'install' / 'shared' / 'data' / 'unvotes'} "
        f"($ASSEMBLY_GYM_DATA is not set): {ADVICE}"
    )
    assert real_data_missing("unvotes", "un_votes.csv.gz") == expected
    with pytest.raises(DataError) as caught:
        gym.make("assembly/RollCall-v0", data="unvotes")  # what a newcomer types first
    assert str(caught.value) == f"unvotes: {expected}"


def test_the_same_folder_is_named_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSEMBLY_GYM_DATA", raising=False)
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    monkeypatch.setattr(paths, "_PROJECT_ROOT", tmp_path / "project")
    message = real_data_missing("un_documents", "A_RES_78_196.trajectory.json")
    folder = tmp_path / "shared" / "data" / "un_documents"
    assert message.count(str(folder)) == 1
    assert " or " not in message
    assert message.endswith("holds un_documents/A_RES_78_196.trajectory.json")


def test_a_missing_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"votes\.csv: file or folder not found"):
        roll_call_data(tmp_path / "votes.csv")
