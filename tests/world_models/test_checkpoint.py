"""Checkpoints: clear errors for missing, corrupted, truncated, foreign or mismatched ones."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from assembly_gym.core.errors import CheckpointError
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.world_models.base import load_world_model, register_world_model
from assembly_gym.world_models.checkpoint import (
    MANIFEST,
    START_STATES,
    check_layout,
    load_start_states,
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
    assert load_start_states(folder).shape[1] == 75
    assert not list(folder.glob(".*.tmp"))  # no temporary file left behind


def test_missing_folder(tmp_path):
    with pytest.raises(CheckpointError, match="no saved world model here"):
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

    register_world_model("test-constant", lambda folder, manifest: Constant())
    Constant().save(tmp_path / "c")
    assert isinstance(load_world_model(tmp_path / "c", layout=("a", "b")), Constant)


def test_a_checkpoint_saved_before_the_namespace_still_loads(delib, tmp_path, monkeypatch):
    """Manifests written before 0.2 name ``world_models.…`` modules; they load all the same."""
    import json
    import sys

    from assembly_gym.world_models import base, empirical

    EmpiricalModel = empirical.EmpiricalModel
    EmpiricalModel().fit(delib).save(tmp_path / "old")
    manifest_path = tmp_path / "old" / "world_model.json"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["module"] == "assembly_gym.world_models.empirical"
    manifest["module"] = "world_models.empirical"
    manifest_path.write_text(json.dumps(manifest))
    # As in a fresh process: the kind is not registered and its module not imported yet.
    monkeypatch.delitem(base._LOADERS, manifest["model_kind"])
    monkeypatch.delitem(sys.modules, "assembly_gym.world_models.empirical")
    loaded = load_world_model(tmp_path / "old")
    assert type(loaded).__name__ == "EmpiricalModel"
    assert manifest["model_kind"] in base._LOADERS
