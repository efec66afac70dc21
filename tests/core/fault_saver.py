"""A process that saves artifacts and can be killed at a chosen point of a save.

Run as a program, it imports the savers once, then reads one JSON command a line from stdin:
``{"scenario": ..., "source": ..., "target": ..., "pause": [what, where]}``. For each it forks a
child that loads the model saved at ``source`` and saves it at ``target``, pausing (it prints
``PAUSED`` and sleeps) at ``pause``: ``["write", k]`` before the k-th file write of the save (the
manifest is the last write), ``["swap", "before"]`` or ``["swap", "after"]`` around the swap,
``["fallback", "between"]`` between the two renames of a save without atomic exchange (forced),
``["replace", "before"]`` before a single file's rename (a debate model). It prints
``FORKED <pid>`` and, once the child is gone, ``REAPED <pid> <status>``; the test kills the
child with SIGKILL. Forking after the imports keeps each kill point to a few milliseconds.

The pause patches ``assembly_gym.core.artifact``'s internal functions in the child only: the
library has no test hooks. The test imports this module too, for the scenarios' models.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd

from assembly_gym.agents.debate.model import DebateModel
from assembly_gym.benchmarks.report import RESULTS, write_report
from assembly_gym.benchmarks.suites.base import SuiteResult
from assembly_gym.core import artifact
from assembly_gym.irl.base import MODEL_FILE, RewardModel
from assembly_gym.world_models.base import load_world_model
from assembly_gym.world_models.checkpoint import MANIFEST
from assembly_gym.world_models.leworld import LeWorldModel

REPORT_KIND = "test-report"
LEWORLD_RESULTS = "results.md"


def tiny_result(label: str) -> SuiteResult:
    """A one-agent suite result whose scores depend on ``label``."""
    score = 0.25 if label == "old" else 0.75
    table = pd.DataFrame({"agent": ["majority"], "accuracy": [score], "macro_f1": [score],
                          "log_loss": [1 - score]})  # fmt: skip
    return SuiteResult(suite="tiny", description=f"{label} run", split="none", source="memory",
                       countries=("A",), class_balance={"yes": 1.0}, chance_log_loss=1.0,
                       table=table)  # fmt: skip


def save(scenario: str, source: str, target: str) -> None:
    """Load what ``source`` holds (a report: its label) and save it at ``target``."""
    if scenario == "irl":
        RewardModel.load(source).save(target)
    elif scenario == "world_model":
        load_world_model(source).save(target)
    elif scenario == "leworld":
        files = {LEWORLD_RESULTS: f"results of {source}\n".encode()}
        LeWorldModel.load(source).save(target, extra={"source": source}, files=files)
    elif scenario == "report":
        write_report([tiny_result(source)], target, options={"label": source},
                     kind=REPORT_KIND, version=1)  # fmt: skip
    elif scenario == "debate":
        DebateModel.load(source).save(target)
    else:
        raise ValueError(f"unknown scenario {scenario!r}")


MANIFESTS = {"irl": MODEL_FILE, "world_model": MANIFEST, "leworld": MANIFEST, "report": RESULTS}


def _pause() -> None:
    print("PAUSED", flush=True)
    time.sleep(600)


def _install_pause(what: str, where: int | str) -> None:
    if what == "write":
        write, calls = artifact.write_synced, [0]

        def paused_write(path: Path, data: bytes, mode: int) -> None:
            if calls[0] == where:
                _pause()
            calls[0] += 1
            write(path, data, mode)

        artifact.write_synced = paused_write
    elif what == "fallback":
        artifact._exchange = lambda first, second: False
        rename = os.rename

        def paused_rename(source: Path, target: Path) -> None:
            rename(source, target)
            if Path(target).name == artifact._OLD:  # the old folder is aside, the new not in
                _pause()

        os.rename = paused_rename
    elif what == "replace":
        replace = os.replace

        def paused_replace(source: Path, target: Path) -> None:
            _pause()
            replace(source, target)

        os.replace = paused_replace
    else:
        swap = artifact._swap_in

        def paused_swap(staging: Path, folder: Path) -> None:
            if where == "before":
                _pause()
            swap(staging, folder)
            if where == "after":
                _pause()

        artifact._swap_in = paused_swap


def _warm_up() -> None:
    """Import, once before forking, what the savers import on first use (no torch op runs)."""
    import matplotlib.pyplot as plt

    from assembly_gym.benchmarks.report import figure_png

    with contextlib.suppress(ImportError):  # LeWorld's layers import it (and sympy): 1 s
        importlib.import_module("torch.fx.experimental.symbolic_shapes")
    figure_png(plt.figure())


def _serve() -> None:
    _warm_up()
    print("READY", flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                _install_pause(*command["pause"])
                save(command["scenario"], command["source"], command["target"])
                print("DONE", flush=True)
            except BaseException as error:  # reported to the test, which fails
                print(f"ERROR {error!r}", flush=True)
                status = 1
            finally:
                os._exit(status)
        print(f"FORKED {pid}", flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"REAPED {pid} {status}", flush=True)


if __name__ == "__main__":
    _serve()
