"""Artifacts: folders saved whole (temporary sibling, one swap) and read whole (checksums, ids)."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest

from assembly_gym.core import artifact, persist
from assembly_gym.core.artifact import (
    check_destination,
    new_artifact_id,
    read_artifact,
    write_artifact,
)
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import current_umask

MANIFEST = "thing.json"
KIND = "test-thing"
ENTRY = {"sha256": "0" * 64, "size": 1}  # a manifest's entry for a file of one byte


def save(folder, contents, **payload):
    return write_artifact(folder, contents, manifest=MANIFEST, payload=payload, kind=KIND,
                          version=2)  # fmt: skip


def read(folder, **options):
    return read_artifact(folder, manifest=MANIFEST, kind=KIND, version=2, **options)


def siblings(folder):
    """Temporary siblings a save left beside ``folder``."""
    return sorted(p.name for p in folder.parent.iterdir() if p.name.endswith(".tmp"))


def edit_manifest(folder, **changes):
    path = folder / MANIFEST
    document = json.loads(path.read_text())
    document.update(changes)
    path.write_text(json.dumps(document))


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_round_trip_with_nested_names(tmp_path):
    folder = tmp_path / "deep" / "thing"  # missing folders are made
    files = {"a.bin": b"alpha", "sub/deeper/b.txt": b"beta"}
    artifact_id = save(folder, files, note="hello")
    loaded = read(folder)
    assert loaded.files == files and loaded.artifact_id == artifact_id and len(artifact_id) == 32
    assert loaded.manifest["note"] == "hello" and loaded.manifest["kind"] == KIND
    assert loaded.manifest["format_version"] == 2 and set(loaded.manifest["files"]) == set(files)
    assert siblings(folder) == []
    given = new_artifact_id()
    assert save(folder, files) != artifact_id
    assert save(folder, files) != save(folder, files)
    assert write_artifact(folder, files, manifest=MANIFEST, payload={}, kind=KIND, version=2,
                          artifact_id=given) == given == read(folder).artifact_id  # fmt: skip


def test_a_save_replaces_the_whole_folder(tmp_path):
    folder = tmp_path / "thing"
    save(folder, {"old.bin": b"1", "both.bin": b"old"})
    save(folder, {"both.bin": b"new"})
    assert sorted(p.name for p in folder.iterdir()) == ["both.bin", MANIFEST]
    assert read(folder).files == {"both.bin": b"new"} and siblings(folder) == []


@pytest.mark.parametrize(
    "name", ["", ".", "../escape.bin", "/absolute.bin", "a//b.bin", "a/../b.bin", "a\\b", "dir/"]
)
def test_file_names_must_be_plain_relative_paths(tmp_path, name):
    with pytest.raises(ValueError, match="not a plain relative path"):
        save(tmp_path / "thing", {name: b"x"})
    assert not (tmp_path / "thing").exists() and siblings(tmp_path / "thing") == []


def test_the_manifest_and_its_fields_are_not_files_or_payload(tmp_path):
    with pytest.raises(ValueError, match="the manifest has that name"):
        save(tmp_path / "thing", {MANIFEST: b"x"})
    with pytest.raises(ValueError, match=r"manifest's own fields \['files'\]"):
        save(tmp_path / "thing", {}, **{"files": {}})


def test_destination_checks(tmp_path):
    check = lambda path: check_destination(path, manifest=MANIFEST, kind=KIND)  # noqa: E731
    assert check(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    (tmp_path / "empty").mkdir()
    check(tmp_path / "empty")
    (tmp_path / "file").write_text("x")
    with pytest.raises(CheckpointError, match="file: exists and is not a folder"):
        check(tmp_path / "file")
    with pytest.raises(CheckpointError, match="is a file, not a folder"):
        check(tmp_path / "file" / "under")
    (tmp_path / "others").mkdir()
    (tmp_path / "others" / "notes.txt").write_text("mine")
    with pytest.raises(CheckpointError, match="holds other files"):
        check(tmp_path / "others")
    save(tmp_path / "saved", {"a": b"1"})
    check(tmp_path / "saved")  # an artifact of the same kind: replaced
    with pytest.raises(CheckpointError, match="holds other files .no 'other-kind'"):
        check_destination(tmp_path / "saved", manifest=MANIFEST, kind="other-kind")
    with pytest.raises(CheckpointError, match="exists and is not a folder"):
        save(tmp_path / "file", {"a": b"1"})  # write_artifact checks too
    assert (tmp_path / "file").read_text() == "x"


def test_the_current_folder_is_never_replaced(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    for path in (".", "..", "sub/.."):
        with pytest.raises(CheckpointError, match="the current folder or one above it"):
            save(path, {"a": b"1"})
    save("sub/../thing", {"a": b"1"})  # relative paths are saved beside their real parent
    assert read(tmp_path / "here" / "thing").files == {"a": b"1"}
    assert sorted(p.name for p in (tmp_path / "here").iterdir()) == ["thing"]


def test_files_beside_an_artifact_are_never_deleted(tmp_path):
    folder = tmp_path / "thing"
    save(folder, {"a": b"1", "sub/b": b"2"})
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(CheckpointError, match=r"files that are not part of .* \(notes.txt\)"):
        save(folder, {"a": b"new"})
    assert (folder / "notes.txt").read_text() == "mine" and read(folder).files["a"] == b"1"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_without_write_permission_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    try:
        with pytest.raises(CheckpointError, match="no permission to write in"):
            check_destination(locked / "thing", manifest=MANIFEST, kind=KIND)
    finally:
        os.chmod(locked, 0o700)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_permissions_are_those_of_a_plain_write_or_of_what_is_replaced(tmp_path):
    folder = tmp_path / "thing"
    save(folder, {"a": b"1", "b": b"2"})
    umask = current_umask()
    assert _mode(folder) == 0o777 & ~umask  # not mkdtemp's private 0o700
    assert _mode(folder / "a") == _mode(folder / MANIFEST) == 0o666 & ~umask
    os.chmod(folder, 0o750)
    os.chmod(folder / "a", 0o600)
    save(folder, {"a": b"new", "b": b"new"})
    assert _mode(folder) == 0o750 and _mode(folder / "a") == 0o600
    assert _mode(folder / "b") == 0o666 & ~umask


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format_version": True}, "format version True, this code reads 2"),
        ({"format_version": 3}, "format version 3, this code reads 2"),
        ({"kind": "other"}, "expected a 'test-thing' file, found 'other'"),
        ({"files": ["a"]}, "field 'files' is a list, expected an object"),
        ({"files": {"a": "0" * 64}}, "field 'files' holds a string, expected only an object"),
        ({"files": {"a": {"sha256": "0" * 64}}}, "file 'a': listed without a 'sha256' .* 'size'"),
        ({"files": {"a": {"sha256": "0", "size": -1}}}, "file 'a': listed without a 'sha256'"),
        ({"files": {"../../etc/passwd": ENTRY}}, "file '../../etc/passwd': not a plain"),
        ({"artifact_id": 7}, "field 'artifact_id' is an integer, expected a string"),
        ({"files": {"a": ENTRY}}, "a: corrupted or truncated, or from another save"),
        ({"files": {"missing": ENTRY}}, "missing: file not found .the save is incomplete"),
    ],
)
def test_a_tampered_manifest_is_a_checkpoint_error(tmp_path, change, message):
    folder = tmp_path / "thing"
    save(folder, {"a": b"1"})
    edit_manifest(folder, **change)
    with pytest.raises(CheckpointError, match=message):
        read(folder)


def test_a_file_is_read_no_further_than_its_listed_size(tmp_path):
    folder = tmp_path / "thing"
    save(folder, {"a": b"1"})
    (folder / "a").write_bytes(b"1" + b"x" * 2**20)  # grown by an edit
    assert artifact._read_file(folder, "a", 1) == b"1x"  # allocates what the save wrote, + 1
    with pytest.raises(CheckpointError, match="a: corrupted or truncated, or from another save"):
        read(folder)


def test_missing_corrupted_or_unreadable_files(tmp_path):
    folder = tmp_path / "thing"
    with pytest.raises(CheckpointError, match="no saved 'test-thing' here .folder not found"):
        read(folder)
    save(folder, {"a": b"1", "b": b"2"})
    (folder / "b").unlink()
    (folder / "b").mkdir()  # a folder where a file belongs
    with pytest.raises(CheckpointError, match="b: not a plain file or folder"):
        read(folder)
    (folder / MANIFEST).write_text("{")
    with pytest.raises(CheckpointError, match="thing.json: corrupted"):
        read(folder)
    (folder / MANIFEST).unlink()
    with pytest.raises(CheckpointError, match="thing.json: file not found"):
        read(folder)


def test_without_an_atomic_exchange_the_old_folder_is_moved_aside(tmp_path, monkeypatch):
    monkeypatch.setattr(artifact, "_exchange", lambda first, second: False)
    folder = tmp_path / "thing"
    first = save(folder, {"a": b"old"})
    second = save(folder, {"a": b"new", "b": b"more"})
    loaded = read(folder)
    assert loaded.artifact_id == second != first and loaded.files == {"a": b"new", "b": b"more"}
    assert siblings(folder) == []
    rename, failed = os.rename, []

    def fail_the_new_one_in(source, target):
        if target == folder and not failed:  # the old folder went aside; the new one fails
            failed.append(source)
            raise OSError("disk gone")
        rename(source, target)

    monkeypatch.setattr(artifact.os, "rename", fail_the_new_one_in)
    with pytest.raises(OSError, match="disk gone"):
        save(folder, {"a": b"third"})
    monkeypatch.setattr(artifact.os, "rename", rename)
    assert read(folder).artifact_id == second and siblings(folder) == []


@pytest.mark.skipif(persist.fcntl is None, reason="no advisory locks")
@pytest.mark.parametrize("by", ["read", "save"])
def test_an_old_folder_left_aside_by_a_killed_save_is_restored(tmp_path, monkeypatch, by):
    """A save without exchange killed between its two renames: the old folder is aside."""
    folder = tmp_path / "thing"
    old = save(folder, {"a": b"old"})
    aside = persist.temporary_sibling(folder)
    aside.mkdir()
    os.rename(folder, aside / "old")
    live = persist.temporary_sibling(folder)  # another save, still running, also has one
    live.mkdir()
    (live / "old").mkdir()
    lock = persist.lock(live)
    try:
        if by == "read":
            assert read(folder).artifact_id == old
        else:  # a save that then fails: the old folder is back all the same

            def full(path, data, mode):
                raise OSError("disk full")

            monkeypatch.setattr(artifact, "write_synced", full)
            with pytest.raises(OSError, match="disk full"):
                save(folder, {"a": b"new"})
            assert folder.is_dir()
    finally:
        os.close(lock)
    assert read(folder).artifact_id == old and (live / "old").is_dir()


@pytest.mark.parametrize("where", ["file", "manifest", "folder on the way"])
def test_a_symbolic_link_inside_an_artifact_is_refused(tmp_path, where):
    outside = tmp_path / "outside"
    save(outside, {"a": b"1", "sub/b": b"2"})  # what the links point to: the same content
    folder = tmp_path / "thing"
    save(folder, {"a": b"1", "sub/b": b"2"})
    name = {"file": "a", "manifest": MANIFEST, "folder on the way": "sub"}[where]
    if name == MANIFEST:
        (outside / MANIFEST).write_bytes((folder / MANIFEST).read_bytes())
    target = folder / name
    if target.is_dir():
        for child in target.iterdir():
            child.unlink()
        target.rmdir()
    else:
        target.unlink()
    target.symlink_to(outside / name)
    with pytest.raises(CheckpointError, match=f"thing/{name}: a symbolic link; an artifact is"):
        read(folder)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_special_file_inside_an_artifact_is_refused_without_blocking(tmp_path):
    folder = tmp_path / "thing"
    save(folder, {"a": b"1"})
    (folder / "a").unlink()
    os.mkfifo(folder / "a")  # opening it to read would wait for a writer
    with pytest.raises(CheckpointError, match="thing/a: not a plain file or folder"):
        read(folder)


def test_a_linked_artifact_folder_is_read_but_never_saved_over(tmp_path):
    folder = tmp_path / "thing"
    old = save(folder, {"a": b"1"})
    (tmp_path / "link").symlink_to(folder)
    assert read(tmp_path / "link").artifact_id == old  # the path the user named
    with pytest.raises(CheckpointError, match="link: is a symbolic link; name the folder"):
        save(tmp_path / "link", {"a": b"2"})
    assert read(folder).artifact_id == old


def test_a_failed_save_keeps_the_old_artifact_and_no_sibling(tmp_path, monkeypatch):
    folder = tmp_path / "thing"
    old = save(folder, {"a": b"old"})

    def full(path, data, mode):
        raise OSError("disk full")

    monkeypatch.setattr(artifact, "write_synced", full)
    with pytest.raises(OSError, match="disk full"):
        save(folder, {"a": b"new"})
    assert read(folder).artifact_id == old and siblings(folder) == []


@pytest.mark.skipif(persist.fcntl is None, reason="no advisory locks")
def test_only_stale_unlocked_siblings_of_its_own_are_removed(tmp_path):
    folder = tmp_path / "thing"
    stale, fresh, held = (persist.temporary_sibling(folder) for _ in range(3))
    users = [tmp_path / name for name in (".thing.my-backup.tmp", ".thing.other.tmp.keep",
                                          f".thing.{'A' * 32}.tmp")]  # fmt: skip
    for sibling in (stale, fresh, held, *users):
        sibling.mkdir()
        (sibling / "partial.bin").write_bytes(b"x")
    old = time.time() - 60
    for sibling in (stale, held, *users):
        os.utime(sibling, (old, old))
    lock = persist.lock(held)  # a save still running elsewhere
    try:
        save(folder, {"a": b"1"})
    finally:
        os.close(lock)
    assert siblings(folder) == sorted([fresh.name, held.name, users[0].name, users[2].name])
    assert all((user / "partial.bin").read_bytes() == b"x" for user in users)


def test_a_save_during_a_read_is_detected_and_the_read_repeated(tmp_path, monkeypatch):
    folder = tmp_path / "thing"
    save(folder, {"a": b"old", "b": b"old"})
    decode = artifact._decode_manifest
    calls = []

    def decode_then_save(*args):
        document = decode(*args)
        if not calls:  # the first read: another save swaps the folder after the manifest
            calls.append(save(folder, {"a": b"new", "b": b"new"}))
        return document

    monkeypatch.setattr(artifact, "_decode_manifest", decode_then_save)
    loaded = read(folder)
    assert loaded.artifact_id == calls[0] and loaded.files == {"a": b"new", "b": b"new"}
