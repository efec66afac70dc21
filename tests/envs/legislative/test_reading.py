"""The one reader of every data file: each of its checks on roll-call CSVs and UN documents alike.

Before there was one reader, the roll-call CSV reader and the document reader each had
checks the other lacked (gzip by name or by magic bytes, empty files, folders, the line of a
corrupt gzip stream); every check is run here on both kinds of input.
"""

from __future__ import annotations

import codecs
import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import load_roll_calls, load_undl_votes
from assembly_gym.envs.legislative.documents import load_marc_drafts, load_trajectories

UNDL = """\
undl_id,ms_code,ms_name,ms_vote,resolution,date
1001,USA,United States of America,Y,A/RES/78/1,2023-12-04
1001,TUR,Türkiye,A,A/RES/78/1,2023-12-04
1002,FRA,FRANCE,Y,A/RES/1(I),1946-01-24
"""
NO_MARC_RECORDS = (
    '<?xml version="1.0"?>\n<collection xmlns="http://www.loc.gov/MARC21/slim">\n</collection>\n'
)

KINDS: dict[str, tuple[Callable[[Path], Any], str]] = {
    "roll-call CSV": (load_undl_votes, "ga.csv"),
    "roll calls of any layout": (load_roll_calls, "ga.csv"),
    "UN document": (load_marc_drafts, "drafts.xml"),
    "UN document of any layout": (load_trajectories, "x.trajectory.json"),
}


@pytest.fixture(params=list(KINDS))
def kind(request: pytest.FixtureRequest) -> tuple[Callable[[Path], Any], str]:
    return KINDS[request.param]


def test_a_missing_file_is_named(tmp_path: Path, kind) -> None:
    loader, name = kind
    with pytest.raises(DataError, match=f"{name}: (file|file or folder) not found"):
        loader(tmp_path / name)


def test_a_folder_is_not_a_file(tmp_path: Path) -> None:
    """Loaders of one file refuse a folder (the layout-detecting loaders read folders)."""
    for loader in (load_undl_votes, load_marc_drafts):
        with pytest.raises(DataError, match="is a folder, expected a file"):
            loader(tmp_path)


@pytest.mark.parametrize(
    "content",
    [b"", b" \n\t\r\n", codecs.BOM_UTF8, codecs.BOM_UTF8 + b"\r\n"],
    ids=["0 bytes", "white space", "byte-order mark", "byte-order mark and a line end"],
)
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_an_empty_file_is_an_error_at_line_1(
    tmp_path: Path, kind, content: bytes, compress: bool
) -> None:
    loader, name = kind
    path = tmp_path / name
    path.write_bytes(gzip.compress(content) if compress else content)
    message = "empty file after decompression" if compress else "empty file"
    with pytest.raises(DataError, match=message) as caught:
        loader(path)
    assert caught.value.row == 1
    assert Path(caught.value.source) == path


def test_gzip_is_detected_by_its_magic_bytes_whatever_the_name(tmp_path: Path) -> None:
    plain = tmp_path / "plain.csv"
    plain.write_text(UNDL, encoding="utf-8")
    for name in ("ga.csv", "ga.csv.gz", "ga.gzip"):
        packed = tmp_path / name
        packed.write_bytes(gzip.compress(UNDL.encode("utf-8")))
        for loader in (load_undl_votes, load_roll_calls):
            np.testing.assert_array_equal(loader(packed).votes, load_undl_votes(plain).votes)
    document = tmp_path / "drafts.xml"  # gunzipped, then read as XML
    document.write_bytes(gzip.compress(NO_MARC_RECORDS.encode("utf-8")))
    with pytest.raises(DataError, match="no MARC records"):
        load_marc_drafts(document)


def test_a_gz_name_on_content_that_is_not_gzip_is_an_error(tmp_path: Path, kind) -> None:
    loader, name = kind
    path = tmp_path / f"{name}.gz"
    path.write_text(UNDL if name.endswith(".csv") else NO_MARC_RECORDS, encoding="utf-8")
    with pytest.raises(DataError, match="corrupt or truncated gzip data: not a valid gzip file"):
        loader(path)


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda gz: gz[: len(gz) // 2],  # truncated
        lambda gz: gz[:-4] + b"\x00\x00\x00\x00",  # wrong length in the trailer
        lambda gz: gz[:12] + bytes(b ^ 0x55 for b in gz[12:40]) + gz[40:],  # flipped bytes
    ],
    ids=["truncated", "trailer", "flipped"],
)
def test_a_corrupt_gzip_stream_is_an_error_at_a_line(tmp_path: Path, kind, corrupt) -> None:
    loader, name = kind
    path = tmp_path / name
    text = UNDL if name.endswith(".csv") else NO_MARC_RECORDS
    path.write_bytes(corrupt(gzip.compress(text.encode("utf-8"), mtime=0)))
    with pytest.raises(
        DataError,
        match="corrupt or truncated gzip data at or after this line: not a valid gzip file",
    ) as caught:
        loader(path)
    assert isinstance(caught.value.row, int) and caught.value.row >= 1
    assert str(caught.value).startswith(f"{path}, line {caught.value.row}: ")
