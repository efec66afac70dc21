"""``assembly-gym debate train --claim-command``: a command that fails on every batch."""

from __future__ import annotations

import pytest

from assembly_gym.benchmarks.cli import main

FAILING = "sh -c 'cat >/dev/null; echo model unavailable >&2; exit 3'"


@pytest.mark.parametrize("quiet", [[], ["--quiet"]])
def test_a_command_that_fails_on_every_batch_exits_nonzero_and_saves_nothing(
    tmp_path, capsys, quiet
):
    out = tmp_path / "m.json"
    code = main(
        ["debate", "train", "--synthetic", "--max-epochs", "2", *quiet]
        + ["--claim-command", FAILING, "--claim-batch-size", "100", "--out", str(out)]
    )
    err = capsys.readouterr().err.strip()
    assert code != 0 and not out.exists()
    assert len(err.splitlines()) == 1
    assert FAILING in err and "exited with code 3: model unavailable" in err
