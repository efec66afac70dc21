"""``assembly-gym debate train --claim-command``: a command that fails on every batch."""

from __future__ import annotations

import sys

import pytest

from assembly_gym.benchmarks.cli import main

FAILING = "sh -c 'cat >/dev/null; echo model unavailable >&2; exit 3'"
DEEP = f"{sys.executable} -c \"print('[' * 200000 + ']' * 200000)\""  # too deep to parse
UNHASHABLE = (
    """sh -c 'cat >/dev/null; echo "{\\"claims\\": [{\\"id\\": [], \\"tendency\\": {}}]}"'"""
)
FAILURES = {
    FAILING: "exited with code 3: model unavailable",
    DEEP: "did not print valid JSON (maximum recursion depth exceeded",
    UNHASHABLE: "claims[0]: field 'id' names no observation of this batch",
}


@pytest.mark.parametrize(
    ("command", "quiet"), [(FAILING, []), (FAILING, ["--quiet"]), (DEEP, []), (UNHASHABLE, [])]
)
def test_a_command_that_fails_on_every_batch_exits_nonzero_and_saves_nothing(
    tmp_path, capsys, command, quiet
):
    out = tmp_path / "m.json"
    code = main(
        ["debate", "train", "--synthetic", "--max-epochs", "2", *quiet]
        + ["--claim-command", command, "--claim-batch-size", "100", "--out", str(out)]
    )
    err = capsys.readouterr().err.strip()
    assert code != 0 and not out.exists()
    assert len(err.splitlines()) == 1
    assert "claim command" in err and FAILURES[command] in err
