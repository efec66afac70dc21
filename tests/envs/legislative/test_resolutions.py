"""Resolution records: validation, lookups, the three sources (roll calls, documents, synthetic)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import documents_dir
from assembly_gym.envs.legislative.data import ABSENT, Vote
from assembly_gym.envs.legislative.documents import Trajectory, load_trajectories
from assembly_gym.envs.legislative.documents.trajectory import RecordedVote
from assembly_gym.envs.legislative.resolutions import (
    NOT_RECORDED,
    ResolutionRecords,
    generate_resolution_records,
    records_from_roll_calls,
    records_from_trajectories,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=12, n_blocs=3, n_sessions=4, roll_calls_per_session=25, seed=6)
    )


@pytest.fixture(scope="module")
def records(assembly) -> ResolutionRecords:
    return generate_resolution_records(assembly)


# ---------------------------------------------------------------------- validation


@pytest.mark.parametrize("name", ["sponsors", "committee", "plenary"])
def test_matrices_of_the_wrong_shape_or_dtype_are_refused(records, name):
    matrix = getattr(records, name)
    with pytest.raises(DataError, match=f"{name} must be int8 of shape"):
        replace(records, **{name: matrix[:, :-1]})
    with pytest.raises(DataError, match=f"{name} must be int8 of shape"):
        replace(records, **{name: matrix.astype(np.int64)})


def test_bad_codes_and_empty_records_are_refused(records):
    sponsors = records.sponsors.copy()
    sponsors[0, 0] = 2
    with pytest.raises(DataError, match="sponsors hold codes other than 0, 1, NOT_RECORDED"):
        replace(records, sponsors=sponsors)
    for name in ("committee", "plenary"):
        votes = getattr(records, name).copy()
        votes[1, 1] = 7
        with pytest.raises(DataError, match=f"{name} holds codes outside the vote codes"):
            replace(records, **{name: votes})
    empty = np.zeros((records.n_countries, 0), dtype=np.int8)
    with pytest.raises(DataError, match="no resolutions"):
        replace(records, resolutions=records.resolutions.iloc[:0], sponsors=empty,
                committee=empty, plenary=empty)  # fmt: skip


def test_lookups(records):
    assert records.country_index(records.country_names[3]) == 3
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        records.country_index("Atlantis")
    rcid = int(records.resolutions["rcid"].iloc[7])
    symbol = records.resolutions["symbol"].iloc[7]
    assert records.resolution_index(rcid) == records.resolution_index(np.int64(rcid)) == 7
    assert records.resolution_index(symbol) == 7
    with pytest.raises(DataError, match="unknown resolution 'A/RES/0/0'"):
        records.resolution_index("A/RES/0/0")


def test_select_and_plenary_history(records):
    columns = np.array([2, 5, 9])
    subset = records.select(columns)
    assert subset.n_resolutions == 3
    np.testing.assert_array_equal(subset.plenary, records.plenary[:, columns])
    assert subset.resolutions["rcid"].tolist() == records.resolutions["rcid"].iloc[columns].tolist()
    plenary = records.plenary.copy()
    plenary[0, 0] = NOT_RECORDED
    history = replace(records, plenary=plenary).plenary_history()
    assert history.votes[0, 0] == ABSENT
    np.testing.assert_array_equal(history.votes[1:], records.plenary[1:])


# ---------------------------------------------------------------------- sources


def test_records_from_roll_calls_keep_whole_resolutions_as_plenary_votes(assembly):
    data = assembly.data
    records = records_from_roll_calls(data)
    whole = ~((data.roll_calls["amend"] == 1) | (data.roll_calls["para"] == 1)).to_numpy()
    assert 0 < records.n_resolutions == whole.sum() < data.n_roll_calls
    np.testing.assert_array_equal(records.plenary, data.votes[:, whole])
    assert (records.sponsors == NOT_RECORDED).all() and (records.committee == NOT_RECORDED).all()
    assert records.country_names == data.country_names


def test_records_from_roll_calls_need_a_whole_resolution(assembly):
    data = assembly.data
    table = data.roll_calls.copy()
    table["amend"] = 1.0
    with pytest.raises(DataError, match="no votes on whole resolutions"):
        records_from_roll_calls(replace(data, roll_calls=table))


def test_records_from_trajectories():
    first = Trajectory(
        symbol="A/RES/78/1",
        title="Situation of human rights in Narnia",
        session=78,
        sponsors=("France", "Germany"),
        additional_sponsors=("Chile",),
        committee_vote=RecordedVote(in_favour=("France", "Germany"), against=("Cuba",)),
        plenary_vote=RecordedVote(tally={"yes": 100, "no": 10, "abstain": 5}),
    )
    second = Trajectory(
        symbol="A/RES/78/2",
        title="Nuclear disarmament",
        date="2023-12-04",
        plenary_vote=RecordedVote(in_favour=("Cuba",), against=("France",), abstaining=("Chile",)),
    )
    records = records_from_trajectories([first, second])
    names = list(records.country_names)
    assert sorted(names) == ["Chile", "Cuba", "France", "Germany"]
    row = {name: names.index(name) for name in names}
    assert records.sponsors[[row["France"], row["Germany"], row["Chile"]], 0].tolist() == [1, 1, 1]
    assert records.sponsors[row["Cuba"], 0] == 0
    assert (records.sponsors[:, 1] == NOT_RECORDED).all()  # no sponsor list
    assert records.committee[row["France"], 0] == Vote.YES
    assert records.committee[row["Cuba"], 0] == Vote.NO
    assert records.committee[row["Chile"], 0] == ABSENT  # listed nowhere in a recorded vote
    assert (records.plenary[:, 0] == NOT_RECORDED).all()  # a tally without lists
    assert records.plenary[row["Chile"], 1] == Vote.ABSTAIN
    assert (records.committee[:, 1] == NOT_RECORDED).all()
    table = records.resolutions
    assert table["symbol"].tolist() == ["A/RES/78/1", "A/RES/78/2"]
    assert table["session"].tolist() == [78, 78]  # the second from its date (Dec 2023)
    assert table["issue_hr"].tolist() == [True, False]
    assert table["issue_nu"].tolist() == [False, True]
    with pytest.raises(DataError, match="no trajectories given"):
        records_from_trajectories([])


@pytest.mark.real_data
@pytest.mark.skipif(documents_dir() is None, reason="real UN documents not found")
def test_records_from_the_real_documents():
    records = records_from_trajectories(load_trajectories(documents_dir()))
    assert records.n_resolutions > 50 and records.n_countries > 150
    assert (records.sponsors != NOT_RECORDED).any()
    assert (records.plenary != NOT_RECORDED).any() and (records.committee != NOT_RECORDED).any()


# ---------------------------------------------------------------------- synthetic


def test_generated_records_cover_every_stage(records, assembly):
    assert records.country_names == assembly.data.country_names
    assert records.n_resolutions == assembly.data.n_roll_calls
    assert np.isin(records.sponsors, (0, 1)).all()
    for votes in (records.committee, records.plenary):
        assert np.isin(votes, (ABSENT, 0, 1, 2)).all()
    assert 0.05 < records.sponsors.mean() < 0.6


def test_generated_records_are_deterministic_per_seed(records, assembly):
    again = generate_resolution_records(assembly)
    for name in ("sponsors", "committee", "plenary"):
        np.testing.assert_array_equal(getattr(records, name), getattr(again, name))
    other = generate_resolution_records(assembly, seed=99)
    assert not np.array_equal(records.committee, other.committee)


def test_sponsors_vote_yes_more_often(assembly):
    loyal = generate_resolution_records(assembly, loyalty=6.0)
    neutral = generate_resolution_records(assembly, loyalty=0.0)

    def yes_rate(records, sponsored):
        votes = records.plenary[records.sponsors == sponsored]
        return (votes[votes != ABSENT] == Vote.YES).mean()

    assert yes_rate(loyal, 1) > yes_rate(loyal, 0)
    assert yes_rate(loyal, 1) > yes_rate(neutral, 1)
