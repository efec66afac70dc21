"""Shared fixtures: a tiny synthetic assembly, its unvotes-layout folder, scored predictions."""

from __future__ import annotations

import gzip
import importlib.util
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assembly_gym.envs.legislative.data import ABSENT, ISSUE_CODES, RollCallData, Vote
from assembly_gym.envs.legislative.synthetic import (
    SyntheticAssembly,
    SyntheticConfig,
    generate_assembly,
)

OPTIONAL_EXTRAS = {
    "imitation": "the optional imitation extra is not installed (research stack)",
    "ray": "the optional ray extra is not installed (`pip install 'assembly-gym[ray]'`)",
}
"""Marker (= the extra's import name) → why its tests skip where the extra is absent."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the tests marked ``imitation`` or ``ray`` where that extra is not installed."""
    for marker, reason in OPTIONAL_EXTRAS.items():
        if importlib.util.find_spec(marker) is not None:
            continue
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray with 2 CPUs for the whole test session (started on first use)."""
    from assembly_gym.core.cluster import connect_ray

    ray = connect_ray(num_cpus=2)
    yield ray
    ray.shutdown()


# "human" renders open a pygame window: the tests draw it to no screen.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

_VOTE_WORDS = {Vote.YES: "yes", Vote.NO: "no", Vote.ABSTAIN: "abstain"}


@pytest.fixture(scope="session")
def small_assembly() -> SyntheticAssembly:
    return generate_assembly(
        SyntheticConfig(n_countries=6, n_blocs=2, n_sessions=6, roll_calls_per_session=30, seed=3)
    )


def write_unvotes(data: RollCallData, folder: Path) -> Path:
    """Write data in the Voeten/unvotes layout (three gzip CSVs) and return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    table = data.roll_calls

    def flag(values: pd.Series) -> list[str]:
        return ["" if np.isnan(v) else str(int(v)) for v in values]

    pd.DataFrame(
        {
            "rcid": table["rcid"],
            "session": table["session"],
            "importantvote": flag(table["important"]),
            "date": pd.to_datetime(table["date"]).dt.strftime("%Y-%m-%d"),
            "unres": table["symbol"],
            "amend": flag(table["amend"]),
            "para": flag(table["para"]),
            "short": table["short"],
            "descr": table["descr"],
        }
    ).to_csv(folder / "un_roll_calls.csv.gz", index=False, compression="gzip")
    issues = [
        (rcid, code, code)
        for rcid, row in zip(table["rcid"], table.itertuples(), strict=True)
        for code in ISSUE_CODES
        if getattr(row, f"issue_{code}")
    ]
    pd.DataFrame(issues, columns=["rcid", "short_name", "issue"]).to_csv(
        folder / "un_roll_call_issues.csv.gz", index=False, compression="gzip"
    )
    rows, cols = np.nonzero(data.votes != ABSENT)
    pd.DataFrame(
        {
            "rcid": table["rcid"].to_numpy()[cols],
            "country": [data.countries[r].name for r in rows],
            "country_code": [data.countries[r].iso2 for r in rows],
            "vote": [_VOTE_WORDS[Vote(v)] for v in data.votes[rows, cols]],
        }
    ).to_csv(folder / "un_votes.csv.gz", index=False, compression="gzip")
    with gzip.open(folder / "un_votes.csv.gz", "rt") as handle:  # sanity: readable
        handle.readline()
    return folder


@pytest.fixture(scope="session")
def small_unvotes_folder(
    small_assembly: SyntheticAssembly, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return write_unvotes(small_assembly.data, tmp_path_factory.mktemp("unvotes"))


@pytest.fixture(scope="session")
def grouped_predictions() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """3,000 predicted distributions over 3 actions: actual actions, probabilities, groups."""
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.choice(3, n, p=[0.7, 0.1, 0.2])
    probs = rng.dirichlet([3, 1, 1], n)
    groups = rng.integers(0, 200, n)
    return y, probs, groups


def _assert_same(native, sync, path: str = "infos") -> None:
    """Every key of ``sync`` is in ``native`` with the same values (episode times aside)."""
    if isinstance(sync, dict):
        for key, value in sync.items():
            if path.endswith("['episode']") and key == "t":
                continue  # wall-clock durations
            assert key in native, f"{path}[{key!r}] is missing"
            _assert_same(native[key], value, f"{path}[{key!r}]")
    elif isinstance(sync, (tuple, list)) or getattr(sync, "dtype", None) == np.dtype(object):
        assert len(native) == len(sync), path  # a step's results; dicts per sub-env (0.29)
        for i, value in enumerate(sync):
            _assert_same(native[i], value, f"{path}[{i}]")
    else:
        np.testing.assert_array_equal(native, sync, err_msg=path)


def _lockstep(native, sync, *, seed: int, steps: int, idle: int) -> int:
    """Reset and step two vector envs alike, asserting equal results; the episodes they ended.

    Each step takes a random valid action per sub-env from its ``action_mask`` (``idle``
    where none is valid: the episode is over).
    """
    obs, infos = native.reset(seed=seed)
    _assert_same((obs, infos), sync.reset(seed=seed))
    rng, episodes = np.random.default_rng(0), 0
    for _ in range(steps):
        masks = infos["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else idle for m in masks])
        *results, infos = native.step(actions)
        *expected, expected_infos = sync.step(actions)
        _assert_same(results, expected, "step")
        _assert_same(infos, expected_infos)
        episodes += int(expected_infos.get("_episode", np.zeros(native.num_envs)).sum())
    return episodes


@pytest.fixture(scope="session")
def lockstep():
    """``lockstep(native, sync, seed=, steps=, idle=)``: a native vector env against
    ``SyncVectorEnv`` of single envs, step by step; returns the episodes they ended."""
    return _lockstep


@pytest.fixture(scope="session")
def same_results():
    """``same_results(native, sync, path)``: every key and value of ``sync`` is in ``native``."""
    return _assert_same
