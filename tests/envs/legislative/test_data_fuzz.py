"""Property-based: a corrupted roll-call file loads exactly right, or raises DataError.

A small valid ``unvotes`` folder and a small UN Digital Library file are corrupted at random
(rows dropped, duplicated, shuffled; a column deleted; cells replaced by odd text; the byte
stream truncated; quotes, line breaks and bad bytes injected; gzip bytes flipped). Each
loader must then either raise :class:`DataError`, or return data that agrees *exactly*
with an independent reading of the corrupted bytes by Python's ``csv`` module: one matrix
cell per vote row, no row lost, no field shifted. Any other exception fails the test.
"""

from __future__ import annotations

import csv
import gzip
import io
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import event, given, settings
from hypothesis import strategies as st

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import default_country_table
from assembly_gym.envs.legislative.data import (
    ABSENT,
    ISSUE_CODES,
    RollCallData,
    load_undl_votes,
    load_unvotes,
)

Table = list[list[str]]

ROLL_CALLS: Table = [
    ["rcid", "session", "importantvote", "date", "unres", "amend", "para", "short", "descr"],
    ["3", "1.0", "", "1946-01-01", "R/1/66", "1.0", "0.0", "AMENDMENTS, RULES", "TO ADOPT"],
    ["4", "1.0", "0.0", "1946-01-02", "R/1/79", "0.0", "0.0", "", 'SAID "NO" TO IT'],
    ["7", "1.0", "1.0", "1946-01-02", "", "", "", "PARA", "Côte d’Ivoire, again"],
    ["10", "2.0", "", "1947-09-20", "R/2/1", "0.0", "1.0", "SHORT", ""],
    ["12", "3", "0", "1948-10-01", "R/3/5", "", "", "X", "Y"],
]
ISSUES: Table = [
    ["rcid", "short_name", "issue"],
    ["3", "hr", "Human rights"],
    ["10", "me", "Palestinian conflict"],
    ["10", "nu", "Nuclear weapons and nuclear material"],
    ["12", "co", "Colonialism"],
]
VOTES: Table = [
    ["rcid", "country", "country_code", "vote"],
    ["3", "United States", "US", "yes"],
    ["3", "Namibia", "NA", "no"],
    ["3", "Federal Republic of Germany", "", "abstain"],
    ["4", "United States", "US", "no"],
    ["4", "Namibia", "NA", "yes"],
    ["7", "Atlantis", "", "yes"],
    ["7", "France", "FR", "abstain"],
    ["10", "Namibia", "NA", "yes"],
    ["10", "France", "FR", "no"],
    ["12", "United States", "US", "yes"],
    ["12", "Côte d’Ivoire", "CI", "yes"],
]
UNDL: Table = [
    ["undl_id", "ms_code", "ms_name", "ms_vote", "resolution", "date", "session", "title",
     "agenda_title", "subjects"],
    ["1001", "USA", "UNITED STATES", "Y", "A/RES/78/1", "2023-12-04", "78", "Nuclear, now",
     "Disarmament", "NUCLEAR"],
    ["1001", "TUR", "Türkiye", "N", "A/RES/78/1", "2023-12-04", "78", "Nuclear, now",
     "Disarmament", "NUCLEAR"],
    ["1001", "NLD", "Netherlands (Kingdom of the)", "", "A/RES/78/1", "2023-12-04", "78",
     "Nuclear, now", "Disarmament", "NUCLEAR"],
    ["1002", "USA", "UNITED STATES", "A", "A/RES/ES-10/21", "2023-10-27", "ES-10",
     'The "civilians"', "", "TERRITORIES"],
    ["1002", "ATL", "Atlantis", "X", "A/RES/ES-10/21", "2023-10-27", "ES-10",
     'The "civilians"', "", "TERRITORIES"],
    ["1002", "FRA", "FRANCE", "NV", "A/RES/ES-10/21", "2023-10-27", "ES-10",
     'The "civilians"', "", "TERRITORIES"],
    ["1003", "FRA", "FRANCE", "Y", "A/RES/1(I)", "1946-01-24", "", "Atomic", "", ""],
]  # fmt: skip

UNVOTES_FILES = {
    "votes": "un_votes.csv.gz",
    "roll_calls": "un_roll_calls.csv.gz",
    "issues": "un_roll_call_issues.csv.gz",
}
VOTE_CODES = {"yes": 0, "no": 1, "abstain": 2}
UNDL_CODES = {"Y": 0, "N": 1, "A": 2, "X": ABSENT, "NV": ABSENT, "": ABSENT}

# --------------------------------------------------------------------------------------
# Corruptions
# --------------------------------------------------------------------------------------

ODD_VALUES = st.one_of(
    st.sampled_from([
        "", " ", "NaN", "NA", "nan", "None", "null", "yes", "no", "abstain", "Yes", "Y", "X",
        "3", "3.0", "03", "3.5", "1e3", "-1", "99", "+4", "١٢", "1946-01-01", "1946-02-30",
        "1946-01-01T10:00", "01/02/1946", "1.0", "0", "hr", "zz", "France", "Namibia", " NA ",
        "Türkiye", "USA", "Ünïcödé ✓", 'a"b', '"', '""', "x,y", "line\nbreak", "cr\rhere",
        "\x00", "\t", "A/RES/78/2", "ES-11", "S-29",
    ]),
    st.text(max_size=6),
)  # fmt: skip
SNIPPETS = [b'"', b"\n", b"\r", b'""', b",", b"\x00", b"\xff", b"\xc3", b"\r\n", b'"\n"', b" "]

set_cell = st.tuples(st.just("set_cell"), st.integers(0, 20), st.integers(0, 9), ODD_VALUES)
table_op = st.one_of(
    set_cell,
    set_cell,
    set_cell,
    st.tuples(st.just("drop_row"), st.integers(0, 20)),
    st.tuples(st.just("dup_row"), st.integers(0, 20)),
    st.tuples(st.just("shuffle"), st.integers(0, 2**16)),
    st.tuples(st.just("drop_column"), st.integers(0, 9)),
)
where = st.sampled_from(range(1, 1000)).map(lambda n: n / 1000)  # a position in the bytes
byte_op = st.one_of(
    st.tuples(st.just("truncate"), where),
    st.tuples(st.just("inject"), where, st.sampled_from(SNIPPETS)),
    st.tuples(st.just("inject"), where, st.sampled_from(SNIPPETS)),
    st.tuples(st.just("delete"), where, st.integers(1, 8)),
)
gzip_op = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 9).map(lambda n: n / 1000), st.integers(1, 255)),
    st.tuples(st.just("flip"), where, st.integers(1, 255)),
    st.tuples(st.just("gz_truncate"), where),
)


def apply_table_op(table: Table, op: tuple) -> Table:
    header, rows = list(table[0]), [list(r) for r in table[1:]]
    kind = op[0]
    if kind == "drop_row" and rows:
        del rows[op[1] % len(rows)]
    elif kind == "dup_row" and rows:
        i = op[1] % len(rows)
        rows.insert(i, list(rows[i]))
    elif kind == "shuffle":
        np.random.default_rng(op[1]).shuffle(rows)
    elif kind == "drop_column":
        j = op[1] % len(header)
        return [r[:j] + r[j + 1 :] for r in [header, *rows]]
    elif kind == "set_cell" and rows:
        rows[op[1] % len(rows)][op[2] % len(header)] = op[3]
    return [header, *rows]


def apply_byte_op(raw: bytes, op: tuple) -> bytes:
    at = int(op[1] * len(raw))
    if op[0] in ("truncate", "gz_truncate"):
        return raw[: max(at, 1)]  # the 0-byte file is a unit test
    if op[0] == "inject":
        return raw[:at] + op[2] + raw[at:]
    if op[0] == "delete":
        return raw[:at] + raw[at + op[2] :]
    at = min(at, len(raw) - 1)  # flip
    return raw[:at] + bytes([raw[at] ^ op[2]]) + raw[at + 1 :]


def to_csv(table: Table) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(table)
    return out.getvalue().encode("utf-8")


# --------------------------------------------------------------------------------------
# The independent reading: Python's csv module on the corrupted bytes
# --------------------------------------------------------------------------------------


def records(raw: bytes) -> tuple[list[str], list[list[str]]]:
    """Header and rows as the csv module reads them; asserts the layout the loader demands."""
    text = raw.decode("utf-8").removeprefix("\ufeff")
    rows = [r for r in csv.reader(io.StringIO(text, newline="")) if r]
    assert rows, "a file without lines loaded"
    header = [name.strip() for name in rows[0]]
    for row in rows[1:]:
        assert len(row) == len(header), f"a row of {len(row)} fields loaded: {row}"
        assert not any("\n" in v or "\r" in v for v in row), f"a multi-line field loaded: {row}"
    assert len(rows) > 1, "a file without data rows loaded"
    return header, rows[1:]


def columns(raw: bytes) -> dict[str, list[str]]:
    header, rows = records(raw)
    assert len(set(header) - {""}) == len([h for h in header if h]), "duplicate columns loaded"
    return {
        name: pd.Series([r[j] for r in rows], dtype="str").str.strip().tolist()
        for j, name in enumerate(header)
    }


def as_int(text: str) -> int:
    number = float(text)
    assert number.is_integer(), text
    return int(number)


def country_row(data: RollCallData, name: str, code: str) -> int:
    table = default_country_table()
    country = table.find(name) or (table.find(code) if code else None)
    return data.country_names.index(country.name if country else name)


def check_votes(data: RollCallData, rcids: list[str], names: list[str], codes: list[str],
                votes: list[int]) -> None:  # fmt: skip
    """Every vote row is one matrix cell with its vote; nothing else is in the matrix."""
    position = {rcid: j for j, rcid in enumerate(data.roll_calls["rcid"].tolist())}
    cells = set()
    for rcid, name, code, vote in zip(rcids, names, codes, votes, strict=True):
        cell = (country_row(data, name, code), position[as_int(rcid)])
        assert data.votes[cell] == vote, (rcid, name, vote)
        cells.add(cell)
    assert len(cells) == len(votes), "two rows landed in one cell"
    cast = sum(v != ABSENT for v in votes)
    assert int((data.votes != ABSENT).sum()) == cast, "the matrix holds votes of no row"
    rows = {country_row(data, n, c) for n, c in zip(names, codes, strict=True)}
    assert rows == set(range(data.n_countries)), "a country without rows"


def check_unvotes(data: RollCallData, files: dict[str, bytes]) -> None:
    raw = {key: gzip.decompress(value) for key, value in files.items()}
    calls = columns(raw["roll_calls"])
    table = data.roll_calls.set_index("rcid")
    assert len(table) == len(calls["rcid"]), "roll calls lost or invented"
    for i, rcid in enumerate(calls["rcid"]):
        row = table.loc[as_int(rcid)]
        assert row["session"] == as_int(calls["session"][i])
        assert row["date"] == pd.Timestamp(calls["date"][i])
        assert row["symbol"] == calls["unres"][i]
        assert (row["short"], row["descr"]) == (calls["short"][i], calls["descr"][i])
        for flag, name in (("important", "importantvote"), ("amend", "amend"), ("para", "para")):
            text = calls[name][i]
            assert (np.isnan(row[flag]) and text == "") or row[flag] == float(text)
    keys = data.roll_calls["session"].astype(float).tolist()
    assert keys == sorted(keys), "not in time order"

    issues = columns(raw["issues"])
    assert int(data.issues.sum()) == len(issues["rcid"]), "issue rows lost"
    for rcid, code in zip(issues["rcid"], issues["short_name"], strict=True):
        column = data.roll_calls.index[data.roll_calls["rcid"] == as_int(rcid)][0]
        assert data.issues[column, ISSUE_CODES.index(code)]

    votes = columns(raw["votes"])
    check_votes(data, votes["rcid"], votes["country"], votes["country_code"],
                [VOTE_CODES[v] for v in votes["vote"]])  # fmt: skip


def check_undl(data: RollCallData, raw: bytes) -> None:
    rows = columns(raw)
    check_votes(data, rows["undl_id"], rows["ms_name"], rows["ms_code"],
                [UNDL_CODES[v] for v in rows["ms_vote"]])  # fmt: skip
    table = data.roll_calls.set_index("rcid")
    assert len(table) == len({as_int(r) for r in rows["undl_id"]})
    for i, rcid in enumerate(rows["undl_id"]):
        row = table.loc[as_int(rcid)]
        assert row["symbol"] == rows["resolution"][i]
        assert row["date"] == pd.Timestamp(rows["date"][i])
        if "title" in rows:
            assert row["descr"] == rows["title"][i]


# --------------------------------------------------------------------------------------
# The properties
# --------------------------------------------------------------------------------------

FUZZ = settings(max_examples=100, deadline=None, derandomize=True)


def load_corrupted_unvotes(target: str, table_ops: list, byte_ops: list, gzip_ops: list) -> None:
    """Corrupt one file of the folder, load it, and check the outcome."""
    tables = {"votes": VOTES, "roll_calls": ROLL_CALLS, "issues": ISSUES}
    table = tables[target]
    for op in table_ops:
        table = apply_table_op(table, op)
    raw = to_csv(table)
    for op in byte_ops:
        raw = apply_byte_op(raw, op)
    files = {key: gzip.compress(to_csv(value), mtime=0) for key, value in tables.items()}
    files[target] = gzip.compress(raw, mtime=0)
    for op in gzip_ops:
        files[target] = apply_byte_op(files[target], op)

    with tempfile.TemporaryDirectory() as folder:
        for key, content in files.items():
            (Path(folder) / UNVOTES_FILES[key]).write_bytes(content)
        try:
            data = load_unvotes(folder)
        except DataError as error:
            event(f"DataError: {error.problem[:24]}")
            assert Path(error.source).name in UNVOTES_FILES.values(), str(error)
            assert str(error).startswith(error.source)
            return
    try:  # it loaded: then the gzip streams must be intact ...
        for content in files.values():
            gzip.decompress(content)
    except (OSError, EOFError, zlib.error) as error:
        raise AssertionError(f"a corrupt gzip stream loaded: {error}") from error
    event("loaded")
    check_unvotes(data, files)  # ... and the data exactly what the files say


def load_corrupted_undl(table_ops: list, byte_ops: list) -> None:
    table = UNDL
    for op in table_ops:
        table = apply_table_op(table, op)
    raw = to_csv(table)
    for op in byte_ops:
        raw = apply_byte_op(raw, op)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ga_voting.csv"
        path.write_bytes(raw)
        try:
            data = load_undl_votes(path)
        except DataError as error:
            event(f"DataError: {error.problem[:24]}")
            assert error.source == str(path), str(error)
            return
    event("loaded")
    check_undl(data, raw)


FILES = st.sampled_from(list(UNVOTES_FILES))


@FUZZ
@given(target=FILES, table_ops=st.lists(table_op, min_size=1, max_size=3))
def test_unvotes_with_corrupted_cells_and_rows(target: str, table_ops: list) -> None:
    load_corrupted_unvotes(target, table_ops, [], [])


@FUZZ
@given(
    target=FILES,
    table_ops=st.lists(table_op, max_size=1),
    byte_ops=st.lists(byte_op, min_size=1, max_size=2),
)
def test_unvotes_with_corrupted_bytes(target: str, table_ops: list, byte_ops: list) -> None:
    load_corrupted_unvotes(target, table_ops, byte_ops, [])


@FUZZ
@given(target=FILES, gzip_op=gzip_op)
def test_unvotes_with_corrupted_gzip(target: str, gzip_op: tuple) -> None:
    load_corrupted_unvotes(target, [], [], [gzip_op])


@FUZZ
@given(table_ops=st.lists(table_op, min_size=1, max_size=3))
def test_undl_with_corrupted_cells_and_rows(table_ops: list) -> None:
    load_corrupted_undl(table_ops, [])


@FUZZ
@given(table_ops=st.lists(table_op, max_size=1), byte_ops=st.lists(byte_op, min_size=1, max_size=2))
def test_undl_with_corrupted_bytes(table_ops: list, byte_ops: list) -> None:
    load_corrupted_undl(table_ops, byte_ops)


def test_the_uncorrupted_fixtures_load() -> None:
    """The fuzzed inputs start from valid files (else every example would just raise)."""
    with tempfile.TemporaryDirectory() as folder:
        files = {k: gzip.compress(to_csv(t)) for k, t in
                 {"votes": VOTES, "roll_calls": ROLL_CALLS, "issues": ISSUES}.items()}  # fmt: skip
        for key, content in files.items():
            (Path(folder) / UNVOTES_FILES[key]).write_bytes(content)
        check_unvotes(load_unvotes(folder), files)
        path = Path(folder) / "ga.csv"
        path.write_bytes(to_csv(UNDL))
        data = load_undl_votes(path)
        check_undl(data, to_csv(UNDL))
        assert data.unmatched_countries == ("Atlantis",)
