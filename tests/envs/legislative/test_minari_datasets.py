from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.deliberation import resolution_records
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
    assert set(loaded[0].infos[0]["tally"]) == {"sponsors"}
    assert set(loaded[0].infos[1]["tally"]) == {"yes", "no", "abstain"}


def test_nothing_to_export(tmp_path):
    with pytest.raises(DataError, match="nothing to export"):
        to_minari([], "assembly/empty-v0", env_id="assembly/RollCall-v0", root=tmp_path)


def test_none_in_infos_is_refused(assembly, tmp_path):
    demo = rollcall_demonstrations(assembly.data, ["Country 001"])[0]
    infos = tuple({**info, "recorded_action": None} for info in demo.infos)
    broken = Demonstration(demo.country, demo.obs, demo.acts, demo.masks, infos)
    with pytest.raises(DataError, match="may not be None"):
        to_minari([broken], "assembly/none-v0", env_id="assembly/RollCall-v0", root=tmp_path)
