from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.deliberation import TALLY_KEYS, resolution_records
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    deliberation_demonstrations,
    rollcall_demonstrations,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

pytest.importorskip("minari", reason="the minari extra is not installed")
pytest.importorskip("h5py", reason="minari's hdf5 storage is not installed")

from assembly_gym.envs.legislative.minari_datasets import from_minari, to_minari  # noqa: E402


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(SyntheticConfig(n_countries=5, n_sessions=3, seed=3))


def _plain(info):
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}


def _assert_same(original: list[Demonstration], loaded: list[Demonstration]) -> None:
    assert len(loaded) == len(original)
    for a, b in zip(original, loaded, strict=True):
        assert a.country == b.country
        np.testing.assert_array_equal(a.obs, b.obs)
        assert b.obs.dtype == a.obs.dtype
        np.testing.assert_array_equal(a.acts, b.acts)
        np.testing.assert_array_equal(a.masks, b.masks)
        assert a.terminal == b.terminal
        assert [_plain(x) for x in a.infos] == [_plain(x) for x in b.infos]


def test_rollcall_round_trip(assembly, tmp_path):
    demos = rollcall_demonstrations(assembly.data, ["Country 002", "Country 004"])
    dataset = to_minari(
        demos, "assembly/rollcall-test-v0", env_id="assembly/RollCall-v0", root=tmp_path
    )
    assert dataset.total_episodes == len(demos)
    _assert_same(demos, from_minari("assembly/rollcall-test-v0", root=tmp_path))


def test_deliberation_round_trip_keeps_stage_tallies(assembly, tmp_path):
    demos = deliberation_demonstrations(resolution_records(assembly), ["Country 001"])[:5]
    to_minari(
        demos, "assembly/deliberation-test-v0", env_id="assembly/Deliberation-v0", root=tmp_path
    )
    loaded = from_minari("assembly/deliberation-test-v0", root=tmp_path)
    _assert_same(demos, loaded)
    assert loaded[0].infos[0]["tally"]["sponsors"] == demos[0].infos[0]["tally"]["sponsors"]
    assert all(set(info["tally"]) == set(TALLY_KEYS) for info in loaded[0].infos)


def test_nothing_to_export(tmp_path):
    with pytest.raises(DataError, match="nothing to export"):
        to_minari([], "assembly/empty-v0", env_id="assembly/RollCall-v0", root=tmp_path)


def test_none_in_infos_is_refused(assembly, tmp_path):
    demo = rollcall_demonstrations(assembly.data, ["Country 001"])[0]
    infos = tuple({**info, "recorded_action": None} for info in demo.infos)
    broken = Demonstration(demo.country, demo.obs, demo.acts, demo.masks, infos)
    with pytest.raises(DataError, match="may not be None"):
        to_minari([broken], "assembly/none-v0", env_id="assembly/RollCall-v0", root=tmp_path)


# ---------------------------------------------------------------------- Minari's DataCollector


@pytest.mark.parametrize("env_id", ["assembly/RollCall-v0", "assembly/Deliberation-v0"])
def test_minari_data_collector_records_every_info(assembly, env_id, tmp_path, monkeypatch):
    """Minari's own recorder: reset and step infos share keys and dtypes, so it stores them."""
    pytest.importorskip("jax", reason="DataCollector needs minari[create] (jax)")
    from minari import DataCollector, load_dataset

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    data = assembly.data if env_id == "assembly/RollCall-v0" else resolution_records(assembly)
    env = DataCollector(gym.make(env_id, data=data), record_infos=True)
    env.action_space.seed(0)
    observations, infos = [], []
    for seed in (0, 1):
        obs, info = env.reset(seed=seed)
        observations.append([obs])
        infos.append([info])
        terminated = False
        while not terminated:
            obs, _, terminated, _, info = env.step(env.action_space.sample())
            observations[-1].append(obs)
            infos[-1].append(info)
    dataset_id = f"assembly/{env_id.split('/')[1].lower()}-collector-v0"
    env.create_dataset(dataset_id, algorithm_name="random", author="tests", description="test")
    env.close()
    episodes = list(load_dataset(dataset_id).iterate_episodes())
    assert len(episodes) == 2
    for episode, seen_obs, seen_infos in zip(episodes, observations, infos, strict=True):
        np.testing.assert_array_equal(episode.observations, np.stack(seen_obs))
        assert set(episode.infos) == set(seen_infos[0])
        for key, values in episode.infos.items():
            if isinstance(values, dict):  # a nested dict (the Deliberation tally) per key
                for sub, column in values.items():
                    assert column.tolist() == [info[key][sub] for info in seen_infos]
            elif values.dtype == object:  # text comes back as UTF-8 bytes
                assert [v.decode() for v in values] == [info[key] for info in seen_infos]
            else:
                np.testing.assert_array_equal(values, np.stack([i[key] for i in seen_infos]))
