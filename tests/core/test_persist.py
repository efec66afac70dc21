"""Atomic, versioned saving."""

from __future__ import annotations

import json
import os
import stat

import pytest

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    read_versioned_json,
)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_round_trip_and_tags(tmp_path):
    path = tmp_path / "deep" / "model.json"  # missing folders are made
    atomic_write_json(path, {"weights": [1, 2]}, kind="reward-model", version=3)
    document = read_versioned_json(path, kind="reward-model", version=3)
    assert document == {"kind": "reward-model", "format_version": 3, "weights": [1, 2]}
    atomic_write_text(tmp_path / "a.txt", "é\n")
    assert (tmp_path / "a.txt").read_bytes() == "é\n".encode()


def test_files_get_the_permissions_of_a_plain_write(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    atomic_write_text(tmp_path / "atomic.txt", "x")
    assert _mode(tmp_path / "atomic.txt") == _mode(plain)
    os.chmod(plain, 0o640)
    atomic_write_text(plain, "y")  # replacing a file keeps its permissions
    assert _mode(plain) == 0o640


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "results.md"
    atomic_write_text(path, "old")

    def refuse(source, target):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_bytes(path, b"new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["results.md"]


def test_read_errors(tmp_path):
    path = tmp_path / "model.json"
    with pytest.raises(CheckpointError, match="file not found"):
        read_versioned_json(path, kind="reward-model", version=1)
    path.write_text("{not json")
    with pytest.raises(CheckpointError, match="corrupted"):
        read_versioned_json(path, kind="reward-model", version=1)
    path.write_text(json.dumps([1, 2]))
    with pytest.raises(CheckpointError, match="not a 'reward-model' file"):
        read_versioned_json(path, kind="reward-model", version=1)
    atomic_write_json(path, {}, kind="world-model", version=1)
    with pytest.raises(
        CheckpointError, match="expected a 'reward-model' file, found 'world-model'"
    ):
        read_versioned_json(path, kind="reward-model", version=1)
    atomic_write_json(path, {}, kind="reward-model", version=2)
    with pytest.raises(CheckpointError, match="format version 2, this code reads 1"):
        read_versioned_json(path, kind="reward-model", version=1)
