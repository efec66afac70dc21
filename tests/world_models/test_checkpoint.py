"""Checkpoints: saved whole; clear errors for missing, corrupted, tampered or mismatched ones."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import shutil

import numpy as np
import pytest
import torch

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import array_to_bytes
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.world_models.base import load_world_model, register_world_model
from assembly_gym.world_models.checkpoint import (
    MANIFEST,
    START_STATES,
    check_layout,
    read_checkpoint,
    read_manifest,
    save_checkpoint,
)


@pytest.fixture(scope="module")
def saved(models, tmp_path_factory):
    """Both models saved once; tests work on copies."""
    root = tmp_path_factory.mktemp("saved")
    for name, model in models.items():
        model.save(root / name)
    return root


@pytest.fixture(params=["empirical", "mlp"])
def folder(request, saved, tmp_path):
    return shutil.copytree(saved / request.param, tmp_path / request.param)


def parameter_file(folder):
    return next(name for name in json.loads((folder / MANIFEST).read_text())["files"]
                if name != START_STATES)  # fmt: skip


def test_checkpoint_layout(folder):
    manifest = read_manifest(folder)
    assert manifest["format_version"] == 1 and len(manifest["obs_names"]) == 75
    assert set(manifest["files"]) == {parameter_file(folder), START_STATES}
    assert load_world_model(folder).start_states.shape[1] == 75
    assert not list(folder.glob(".*.tmp"))  # no temporary file left behind


def test_missing_folder(tmp_path):
    with pytest.raises(CheckpointError, match="no saved .world_model. here .folder not found"):
        load_world_model(tmp_path / "nowhere")


def test_truncated_parameters(folder):
    path = folder / parameter_file(folder)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(CheckpointError, match="corrupted or truncated"):
        load_world_model(folder)


def test_missing_parameter_file(folder):
    (folder / parameter_file(folder)).unlink()
    with pytest.raises(CheckpointError, match="file not found"):
        load_world_model(folder)


def test_corrupted_manifest(folder):
    path = folder / MANIFEST
    path.write_text(path.read_text()[:200])
    with pytest.raises(CheckpointError, match="corrupted"):
        load_world_model(folder)


def test_other_format_version(folder):
    path = folder / MANIFEST
    path.write_text(path.read_text().replace('"format_version": 1', '"format_version": 99'))
    with pytest.raises(CheckpointError, match="format version 99, this code reads 1"):
        load_world_model(folder)


def test_layout_that_does_not_match_the_env(folder):
    other = (*feature_names(), "something_else")
    with pytest.raises(CheckpointError, match="observation layout does not match.*75 dimensions, "
                       "the env has 57; first difference at dimension 56"):  # fmt: skip
        load_world_model(folder, layout=other)
    with pytest.raises(CheckpointError, match="'stage_draft' in the model, 'x' in the env"):
        check_layout(read_manifest(folder)["obs_names"], [*feature_names(), "x"], folder)


def test_unknown_kind_from_outside_the_package(folder):
    path = folder / MANIFEST
    text = path.read_text()
    kind = json.loads(text)["model_kind"]
    text = text.replace(f'"model_kind": "{kind}"', '"model_kind": "mystery"')
    path.write_text(text.replace('"module": "assembly_gym.world_models.', '"module": "elsewhere.'))
    with pytest.raises(CheckpointError, match="unknown world-model kind 'mystery'"):
        load_world_model(folder)


def test_any_kind_can_register_a_loader(tmp_path):
    class Constant:
        obs_names = ("a", "b")

        def fit(self, transitions):
            return self

        def predict(self, obs, action):
            raise NotImplementedError

        def sample(self, obs, action, rng):
            return np.zeros_like(obs)

        def save(self, path):
            save_checkpoint(
                path, model_kind="test-constant", module="assembly_gym.world_models.base",
                obs_names=self.obs_names, payload={}, files={"p.bin": b"x"},
            )  # fmt: skip

    register_world_model("test-constant", lambda checkpoint: Constant())
    Constant().save(tmp_path / "c")
    assert isinstance(load_world_model(tmp_path / "c", layout=("a", "b")), Constant)


def rewrite(folder, name, data):
    """Replace a file of a checkpoint and its checksum, as a tamperer (or a bug) would."""
    (folder / name).write_bytes(data)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    (folder / MANIFEST).write_text(json.dumps(manifest))


class _Hostile:
    def __reduce__(self):
        return (os.system, ("touch hacked",))


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (lambda: b"garbage", "refused: not a weights-only tensor file$"),
        (lambda: _torch_bytes({"w": torch.zeros(2)})[:300], "refused: not a weights-only"),
        (lambda: pickle.dumps(_Hostile(), protocol=2), "refused: not a weights-only"),
        (lambda: _torch_bytes({"w": _Hostile()}), "refused: not a weights-only tensor file$"),
        (lambda: _torch_bytes([torch.zeros(2)]), "corrupted weights .not a state dict"),
        (lambda: _torch_bytes({"w": torch.zeros(2)}), "weights of another layout"),
    ],
    ids=["garbage", "truncated", "pickle", "torch-pickle", "list", "other-layout"],
)
def test_bad_weights_with_a_matching_checksum(saved, tmp_path, monkeypatch, weights, message):
    folder = shutil.copytree(saved / "mlp", tmp_path / "mlp")
    rewrite(folder, "weights.pt", weights())
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CheckpointError, match=f"weights.pt: {message}") as raised:
        load_world_model(folder)
    assert "\n" not in str(raised.value)  # not torch's many lines that suggest an unsafe load
    assert not (tmp_path / "hacked").exists()


def _torch_bytes(value) -> bytes:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("tables.npz", b"PK\x03\x04 truncated", "tables.npz: corrupted arrays"),
        (START_STATES, b"\x93NUMPY garbage", "start_states.npy: corrupted array"),
    ],
)
def test_bad_arrays_with_a_matching_checksum(saved, tmp_path, name, data, message):
    folder = shutil.copytree(saved / "empirical", tmp_path / "empirical")
    rewrite(folder, name, data)
    with pytest.raises(CheckpointError, match=message):
        load_world_model(folder)


@pytest.mark.parametrize(
    ("key", "value"),
    [("format_version", True), ("model_kind", 7), ("module", ["x"]), ("obs_names", "abc"),
     ("obs_names", [1, 2]), ("files", ["weights.pt"]), ("config", []), ("simulator", "x"),
     ("schema", None), ("metadata", [1]), ("artifact_id", 5)],
)  # fmt: skip
def test_manifest_fields_of_the_wrong_type(folder, key, value):
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest[key] = value
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="world_model.json: (corrupted|format version True)"):
        load_world_model(folder)


def test_nested_manifest_fields_of_the_wrong_type(folder):
    manifest = json.loads((folder / MANIFEST).read_text())
    for path, value in [(("simulator", "noop_action"), "3"), (("simulator", "n_actions"), []),
                        (("schema", "parts"), 5), (("config", "seed"), "x")]:  # fmt: skip
        changed = json.loads(json.dumps(manifest))
        changed[path[0]][path[1]] = value
        (folder / MANIFEST).write_text(json.dumps(changed))
        with pytest.raises(CheckpointError, match="world_model.json: corrupted"):
            load_world_model(folder)


def _edit_manifest(folder, change):
    manifest = json.loads((folder / MANIFEST).read_text())
    change(manifest)
    (folder / MANIFEST).write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["simulator"].update(max_episode_steps=float("inf")),
         "field 'max_episode_steps' is a number, expected an integer"),
        (lambda m: m["simulator"].update(max_episode_steps=0),
         "field 'simulator.max_episode_steps' is 0, below 1"),
        (lambda m: m["simulator"].update(noop_action=99), "field 'simulator.noop_action' is 99"),
        (lambda m: m["simulator"].update(mask_table=[[True]]),
         r"field 'simulator.mask_table' is of shape \(1, 1\)"),
        (lambda m: m["config"].update(n_bins=float("nan")), "config .field 'n_bins' is a number"),
        (lambda m: m["config"].pop("seed"), "config .no field 'seed'"),
        (lambda m: m["obs_names"].pop(), "field 'obs_names' is 74 names, not the schema's 75"),
        (lambda m: m["schema"]["low"].pop(), "field 'schema' is bounds of shapes"),
    ],
    ids=["steps-infinity", "steps-0", "noop", "mask-table", "n_bins-nan", "no-seed",
         "obs-names-one-short", "bounds"],
)  # fmt: skip
def test_metadata_that_does_not_fit_is_one_checkpoint_error(folder, change, message):
    _edit_manifest(folder, change)
    with pytest.raises(CheckpointError, match=f"world_model.json: corrupted.*{message}"):
        load_world_model(folder)


@pytest.mark.parametrize(
    ("model", "key", "value", "message"),
    [
        ("empirical", "smoothing", "x", "field 'smoothing' is a string, expected an integer or"),
        ("empirical", "smoothing", -1, "smoothing must be > 0"),
        ("empirical", "coarse_bins", None, "field 'coarse_bins' is null"),
        ("empirical", "change", ["x"], "field 'change' holds a string"),
        ("mlp", "members", float("inf"), "field 'members' is a number, expected an integer"),
        ("mlp", "hidden", [16, "16"], "field 'hidden' holds a string"),
        ("mlp", "obs_mean", [0.0], "field 'obs_mean' has 1 values, not 75"),
    ],
)
def test_a_config_field_of_the_wrong_type_or_range(saved, tmp_path, model, key, value, message):
    folder = shutil.copytree(saved / model, tmp_path / model)
    _edit_manifest(folder, lambda m: m["config"].update({key: value}))
    with pytest.raises(CheckpointError, match=f"world_model.json: corrupted config .{message}"):
        load_world_model(folder)
    _edit_manifest(folder, lambda m: m["config"].pop(key))
    with pytest.raises(CheckpointError, match=f"corrupted config .no field '{key}'"):
        load_world_model(folder)


@pytest.mark.parametrize(
    ("array", "message"),
    [(np.zeros((3, 4), dtype=np.float32), r"start states of shape \(3, 4\)"),
     (np.zeros((3, 75), dtype=np.int64), r"and dtype int64, expected \(N, 75\) floats")],
)  # fmt: skip
def test_start_states_of_another_shape(folder, array, message):
    rewrite(folder, START_STATES, array_to_bytes(array))
    with pytest.raises(CheckpointError, match=f"start_states.npy: corrupted .*{message}"):
        load_world_model(folder)


def test_an_npy_header_that_claims_more_than_the_file_holds(folder):
    header = io.BytesIO()
    shape = (10**12, 75)  # 300 TB: refused before anything is allocated, not a MemoryError
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False,
                                                  "shape": shape})  # fmt: skip
    rewrite(folder, START_STATES, header.getvalue() + bytes(4 * 75 * 3))
    with pytest.raises(CheckpointError, match=r"start_states.npy: corrupted array .its header "
                       r"declares shape \(1000000000000, 75\) of float32, 300,000,000,000,000 "
                       "bytes; 900 are present"):  # fmt: skip
        load_world_model(folder)


def test_a_checkpoint_is_saved_whole_with_one_id(folder, models, tmp_path):
    model = models[folder.name]
    first = read_checkpoint(folder)
    model.save(folder)
    second = read_checkpoint(folder)
    assert first.artifact_id != second.artifact_id and set(first.files) == set(second.files)
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder.name]  # no temporary sibling
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(CheckpointError, match=r"not part of its 'world_model' \(notes.txt\)"):
        model.save(folder)
    assert (folder / "notes.txt").read_text() == "mine"


def test_leworld_saves_its_results_in_the_same_swap(tmp_path):
    from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
    from assembly_gym.world_models.leworld import LeWorldConfig, LeWorldModel, LeWorldSystem

    world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024, sequence_length=4))
    config = LeWorldConfig(num_slms=2, slm_hidden=8, blm_hidden=8, read_dim=4, query_dim=2)
    model = LeWorldModel(LeWorldSystem(world.config, world.memory, config, seed=0))
    model.save(tmp_path / "m", extra={"a": 1}, files={"results.md": b"table"})
    checkpoint = read_checkpoint(tmp_path / "m")
    assert (
        checkpoint.files["results.md"] == b"table" and "results.md" in checkpoint.manifest["files"]
    )
    assert LeWorldModel.load(tmp_path / "m").extra == {"a": 1}
    with pytest.raises(ValueError, match=r"files \['parameters.pt'\] are the model's own"):
        model.save(tmp_path / "m", files={"parameters.pt": b"x"})
    rewrite(tmp_path / "m", "parameters.pt", b"garbage")
    with pytest.raises(CheckpointError, match="parameters.pt: refused: not a weights-only"):
        LeWorldModel.load(tmp_path / "m")
    manifest = json.loads((tmp_path / "m" / MANIFEST).read_text())
    manifest["seed"] = "0"
    (tmp_path / "m" / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="field 'seed' is a string, expected an integer"):
        LeWorldModel.load(tmp_path / "m")
    manifest["seed"], manifest["world"]["num_words"] = 0, float("inf")
    (tmp_path / "m" / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="field 'num_words' is a number, expected an int"):
        LeWorldModel.load(tmp_path / "m")
