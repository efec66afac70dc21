"""Atomic, versioned saving."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest

from assembly_gym.core import persist
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    check_output_file,
    json_header,
    read_versioned_json,
    temporary_sibling,
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
    path.unlink()  # a file that atomic_write_json did not write is never replaced
    atomic_write_json(path, {}, kind="world-model", version=1)
    with pytest.raises(
        CheckpointError, match="expected a 'reward-model' file, found 'world-model'"
    ):
        read_versioned_json(path, kind="reward-model", version=1)
    path.unlink()
    atomic_write_json(path, {}, kind="reward-model", version=2)
    with pytest.raises(CheckpointError, match="format version 2, this code reads 1"):
        read_versioned_json(path, kind="reward-model", version=1)


def test_a_single_file_output_replaces_only_an_earlier_one_of_its_kind(tmp_path):
    model, header = tmp_path / "model.json", json_header("debate-model")
    assert check_output_file(model, header=header) == model  # new
    atomic_write_json(model, {"a": 1}, kind="debate-model", version=1)
    assert model.read_bytes().startswith(header)
    check_output_file(model, header=header)  # an earlier one of its kind: replaced
    atomic_write_json(model, {"a": 2}, kind="debate-model", version=7)  # whatever its version
    notes = tmp_path / "notes.txt"
    notes.write_text('{"kind": "debate-model"}')  # a user's file, even one that looks alike
    for path, kind in ((notes, "debate-model"), (model, "world-model")):
        with pytest.raises(CheckpointError, match=f"{path.name}: exists, and does not begin as "
                                                  f"this output does .*{kind}"):  # fmt: skip
            atomic_write_json(path, {}, kind=kind, version=1)
    with pytest.raises(CheckpointError, match="notes.txt: exists; a file that may be yours is"):
        check_output_file(notes, header=None)  # a PNG figure or a Markdown report
    check_output_file(notes, header=b'{"kind"')  # what begins as the output does
    with pytest.raises(CheckpointError, match="is a folder; name a file"):
        check_output_file(tmp_path, header=header)
    assert notes.read_text() == '{"kind": "debate-model"}'
    assert read_versioned_json(model, kind="debate-model", version=7)["a"] == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_is_not_an_earlier_output(tmp_path):
    os.mkfifo(tmp_path / "pipe")  # opening it to read would wait for a writer
    with pytest.raises(CheckpointError, match="pipe: exists, and does not begin as"):
        check_output_file(tmp_path / "pipe", header=b"")


@pytest.mark.skipif(persist.fcntl is None, reason="no advisory locks")
def test_a_write_removes_the_stale_unlocked_leftovers_of_its_own_only(tmp_path):
    path = tmp_path / "model.json"
    stale, fresh, held = (temporary_sibling(path) for _ in range(3))
    users = tmp_path / ".model.json.my-backup.tmp"  # a name of the old pattern, not of a save
    for leftover in (stale, fresh, held, users):
        leftover.write_text("partial")
    old = time.time() - 60
    for leftover in (stale, held, users):
        os.utime(leftover, (old, old))
    with open(held) as file:
        persist.fcntl.flock(file.fileno(), persist.fcntl.LOCK_EX)  # a write still running
        atomic_write_text(path, "new")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([fresh.name, held.name, users.name, "model.json"])
    assert users.read_text() == "partial"
