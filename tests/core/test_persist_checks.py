"""Checked reading: arrays sized before they are allocated, saved settings typed by annotation."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pytest

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import (
    MAX_INFLATED_BYTES,
    array_from_bytes,
    array_to_bytes,
    arrays_from_bytes,
    arrays_to_bytes,
    dataclass_from_dict,
)


def test_arrays_round_trip_in_any_order_and_compression():
    arrays = {"a": np.arange(12.0).reshape(3, 4), "0/text": np.array("é"),
              "f": np.asfortranarray(np.eye(3, dtype=np.int8))}  # fmt: skip
    for compress in (False, True):
        loaded = arrays_from_bytes(arrays_to_bytes(arrays, compress=compress), "x.npz")
        assert loaded.keys() == arrays.keys() and loaded["a"].flags.writeable
        for name, array in arrays.items():
            np.testing.assert_array_equal(loaded[name], array)
    np.testing.assert_array_equal(array_from_bytes(array_to_bytes(arrays["a"]), "x"), arrays["a"])


def _npy_header(shape: tuple[int, ...], descr: str = "<f4") -> bytes:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": descr, "fortran_order": False, "shape": shape}
    )
    return header.getvalue()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_npy_header((10**12,)) + bytes(8), r"declares shape \(1000000000000,\) of float32, "
         "4,000,000,000,000 bytes; 8 are present"),
        (_npy_header((4,)) + bytes(8), "16 bytes; 8 are present"),
        (_npy_header((1,)) + bytes(8), "4 bytes; 8 are present"),
        (_npy_header((1,), "|O") + bytes(8), "dtype object holds Python objects"),
        (b"\x93NUMPY\x03\x00" + bytes(8), r"format version \(3, 0\), this code reads"),
        (arrays_to_bytes({"a": np.zeros(2)}), r"an .npz archive, not an .npy array"),
    ],
    ids=["10^12 rows", "short", "long", "objects", "version", "npz"],
)  # fmt: skip
def test_an_npy_header_is_checked_before_anything_is_allocated(data, message):
    with pytest.raises(CheckpointError, match=f"^s.npy: corrupted array .*{message}"):
        array_from_bytes(data, "s.npy")


def _bomb(n_chunks: int) -> bytes:
    """An .npz whose one member is an .npy of ``n_chunks`` × 16 MiB of zeros, deflated.

    Built without ever holding the zeros: after a full flush deflate starts afresh, so each
    16 MiB of zeros deflate to the same block (no CRC: a reader must refuse it unread).
    """
    chunk = 1 << 24
    header = _npy_header((n_chunks * chunk,), "|u1")
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    deflated = start + block * n_chunks + b"\x03\x00"  # an empty final block ends it
    name, size = b"a.npy", len(header) + n_chunks * chunk
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, 0, len(deflated), size,
                        len(name), 0)  # fmt: skip
    central = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, 0, len(deflated),
                          size, len(name), 0, 0, 0, 0, 0, 0)  # fmt: skip
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central) + len(name),
                      len(local) + len(name) + len(deflated), 0)  # fmt: skip
    return local + name + deflated + central + name + end


def test_an_archive_that_inflates_to_gigabytes_is_refused_unread():
    bomb = _bomb(128)  # 2 GiB of zeros in about 2 MB, as an .npy that declares them
    assert len(bomb) < 3 << 20
    with pytest.raises(CheckpointError, match=f"t.npz: corrupted arrays .they inflate to "
                       f"2,147,483,776 bytes, more than the {MAX_INFLATED_BYTES:,}"):  # fmt: skip
        arrays_from_bytes(bomb, "t.npz")
    with zipfile.ZipFile(io.BytesIO(bomb)) as archive, archive.open("a.npy") as member:
        np.lib.format.read_magic(member)  # a valid member: numpy alone would allocate 2 GiB
        assert np.lib.format.read_array_header_1_0(member)[0] == (2 << 30,)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (arrays_to_bytes({"a": np.zeros(1)}).replace(b"a.npy", b"a.txt"),
         "member 'a.txt' is not an .npy array"),
        (array_to_bytes(np.zeros(1)), "not an .npz archive"),
        (b"PK\x03\x04 truncated", "File is not a zip file"),
    ],
)  # fmt: skip
def test_an_archive_holds_only_npy_arrays(data, message):
    with pytest.raises(CheckpointError, match=f"t.npz: corrupted arrays .{message}"):
        arrays_from_bytes(data, "t.npz")


def test_an_archive_member_is_sized_by_its_header_before_it_is_read():
    member = _npy_header((10**12,)) + bytes(8)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("a.npy", member)
    with pytest.raises(CheckpointError, match=r"t.npz: corrupted arrays .its header declares "
                       r"shape \(1000000000000,\) of float32"):  # fmt: skip
        arrays_from_bytes(archive.getvalue(), "t.npz")


@dataclass(frozen=True)
class _Inner:
    steps: int
    losses: tuple[float, ...] = ()


@dataclass(frozen=True)
class _Settings:
    flag: bool
    rate: float = 1.0
    text: Literal["hashed", "topics"] = "hashed"
    limit: float | None = None
    names: tuple[str, ...] = ()
    inner: list[_Inner] = field(default_factory=list)
    by_name: dict[str, _Inner] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.rate <= 0:
            raise ValueError(f"rate must be > 0, got {self.rate}")


def test_saved_settings_are_built_with_lists_as_tuples_and_dicts_as_dataclasses():
    values = {"flag": True, "rate": 2, "names": ["a"], "inner": [{"steps": 1, "losses": [0.5]}],
              "by_name": {"x": {"steps": 2}}}  # fmt: skip
    built = dataclass_from_dict(_Settings, values, what="settings")
    assert built == _Settings(True, 2, names=("a",), inner=[_Inner(1, (0.5,))],
                              by_name={"x": _Inner(2)})  # fmt: skip


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"flag": "yes"}, "field 'flag' is a string, expected true or false"),
        ({"flag": 1}, "field 'flag' is an integer, expected true or false"),
        ({"flag": True, "rate": True}, "field 'rate' is true or false, expected a number"),
        ({"flag": True, "rate": "x"}, "field 'rate' is a string, expected a number"),
        ({"flag": True, "rate": -1}, "rate must be > 0, got -1"),
        ({"flag": True, "text": "words"}, r"field 'text' is 'words', expected one of \['hashed'"),
        ({"flag": True, "limit": "1"}, "field 'limit' is a string, expected a number or null"),
        ({"flag": True, "names": "ab"}, "field 'names' is a string, expected a list"),
        ({"flag": True, "names": [1]}, r"field 'names\[0\]' is an integer, expected a string"),
        ({"flag": True, "inner": [{}]}, r"no field 'inner\[0\].steps'"),
        ({"flag": True, "inner": [{"steps": 1.5}]}, r"field 'inner\[0\].steps' is a number"),
        ({"flag": True, "by_name": {"x": 3}}, "field 'by_name.x' is an integer, expected an obj"),
        ({}, "no field 'flag'"),
        ({"flag": True, "colour": 1}, r"unknown settings options \['colour'\]; known: \['by_name"),
        ([1], "a list, expected an object"),
    ],
)  # fmt: skip
def test_a_saved_setting_of_another_type_names_the_file_and_the_field(values, message):
    with pytest.raises(CheckpointError, match=f"^m.json: corrupted settings .{message}"):
        dataclass_from_dict(_Settings, values, what="settings", source="m.json")
    with pytest.raises(ValueError, match=message) as raised:  # given, not read: no file to name
        dataclass_from_dict(_Settings, values, what="settings")
    assert not isinstance(raised.value, CheckpointError)
