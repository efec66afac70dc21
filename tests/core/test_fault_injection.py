"""Fault injection: saves killed with SIGKILL midway, and saves racing each other and a reader.

A real process (``fault_saver.py``) saves an artifact over an existing one and is killed at
every point between its file writes: before the first file, between each pair, after the
manifest before the swap, after the swap before the cleanup, and, forced to save without an
atomic exchange, between its two renames. The folder must then load as wholly the old artifact
(before the swap) or wholly the new one (after), and the next save must work and remove the
killed save's temporary siblings. A debate model (one file) is killed before its rename.
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from assembly_gym.core import persist
from assembly_gym.core.artifact import read_artifact, write_artifact

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or persist.fcntl is None, reason="needs fork and advisory locks"
)

SAVER = Path(__file__).with_name("fault_saver.py")
_spec = importlib.util.spec_from_file_location("fault_saver", SAVER)
assert _spec is not None and _spec.loader is not None
saver = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(saver)

_TIMEOUT_S = 60


class Zygote:
    """The saver process: forks one child per save, which the test kills where it pauses."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SAVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, bufsize=1, start_new_session=True,  # its own group: see close()
        )  # fmt: skip
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        assert self._next() == "READY"

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def _next(self) -> str:
        try:
            return self.lines.get(timeout=_TIMEOUT_S)
        except queue.Empty:
            raise AssertionError(
                f"the saver said nothing for {_TIMEOUT_S} s (exit code {self.process.poll()})"
            ) from None

    def kill_at(self, scenario: str, source: str, target: Path, pause: tuple) -> None:
        """Save ``source`` at ``target`` in a child, SIGKILL it where it pauses, reap it."""
        assert self.process.stdin is not None
        command = {"scenario": scenario, "source": source, "target": str(target), "pause": pause}
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        pid, paused = None, False
        while pid is None or not paused:
            line = self._next()
            assert not line.startswith(("DONE", "ERROR")), f"{pause}: did not pause: {line}"
            if line.startswith("FORKED"):
                pid = int(line.split()[1])
            paused = paused or line == "PAUSED"
        os.kill(pid, signal.SIGKILL)
        reaped = self._next().split()
        assert reaped[:2] == ["REAPED", str(pid)]
        assert os.WIFSIGNALED(int(reaped[2])) and os.WTERMSIG(int(reaped[2])) == signal.SIGKILL

    def close(self) -> None:
        """End the saver and any child a failed test left paused (the saver's process group)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture(scope="module")
def zygote():
    process = Zygote()
    yield process
    process.close()


@pytest.fixture(scope="module")
def sources(tmp_path_factory, small_assembly):
    """Per scenario, (old, new): folders of two different saved models (a report: labels)."""
    from assembly_gym.agents.debate.model import create_debate_model
    from assembly_gym.agents.debate.observations import rollcall_observations
    from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    from assembly_gym.envs.legislative.transitions import deliberation_transitions
    from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
    from assembly_gym.irl.linear import LinearRewardModel
    from assembly_gym.world_models.leworld import LeWorldConfig, LeWorldModel, LeWorldSystem
    from assembly_gym.world_models.mlp import MLPEnsemble

    root = tmp_path_factory.mktemp("sources")
    data = small_assembly.data
    transitions = deliberation_transitions(
        generate_assembly(SyntheticConfig(n_countries=4, n_sessions=2, roll_calls_per_session=4))
    )
    world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024, sequence_length=4))
    config = LeWorldConfig(num_slms=2, slm_hidden=8, blm_hidden=8, read_dim=4, query_dim=2)
    found = {}
    for seed, label in enumerate(("old", "new")):
        theta = np.random.default_rng(seed).normal(size=(len(data.countries), 3, 3))
        LinearRewardModel(data.country_names, ("yes", "no", "abstain"), ("x1", "x2"), theta,
                          history=data).save(root / f"irl_{label}")  # fmt: skip
        mlp = MLPEnsemble(members=1, hidden=(4,), max_epochs=1, seed=seed, threads=1)
        mlp.fit(transitions).save(root / f"world_model_{label}")
        system = LeWorldSystem(world.config, world.memory, config, seed=seed)
        LeWorldModel(system).save(root / f"leworld_{label}")
        observations = rollcall_observations(data, data.country_names[0])
        create_debate_model(label, observations).save(root / f"debate_{label}")
    for scenario in ("irl", "world_model", "leworld", "debate"):
        found[scenario] = (str(root / f"{scenario}_old"), str(root / f"{scenario}_new"))
    found["report"] = ("old", "new")
    return found


def state(scenario: str, folder: Path) -> tuple[str, object]:
    """(artifact id, content) of what ``folder`` holds, loaded as users load it."""
    from assembly_gym.irl.base import RewardModel
    from assembly_gym.world_models.base import load_world_model
    from assembly_gym.world_models.checkpoint import read_checkpoint
    from assembly_gym.world_models.leworld import LeWorldModel

    content: object
    if scenario == "irl":  # loaded first: a load restores a folder that a killed save moved aside
        model = RewardModel.load(folder)
        content = (model.profile()[0].tobytes(), model.history.votes.tobytes())
    elif scenario == "world_model":
        model = load_world_model(folder)
        obs = model.start_states[:4]
        content = model.predict(obs, np.zeros(len(obs), dtype=np.int64)).mean.tobytes()
    elif scenario == "leworld":
        model = LeWorldModel.load(folder)
        weights = b"".join(t.numpy().tobytes() for t in model.system.state_dict().values())
        content = (weights, model.extra, read_checkpoint(folder).files[saver.LEWORLD_RESULTS])
    else:
        report = read_artifact(folder, manifest=saver.RESULTS, kind=saver.REPORT_KIND, version=1)
        markdown, page = (report.files[name].decode() for name in ("results.md", "report.html"))
        assert report.artifact_id in markdown.splitlines()[-1] and report.artifact_id in page
        tables = markdown.split("\n---\n")[0]
        content = (report.manifest["options"], report.manifest["suites"], tables)
    artifact_id = json.loads((folder / saver.MANIFESTS[scenario]).read_text())["artifact_id"]
    return artifact_id, content


def siblings(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.glob(f".{folder.name}.*.tmp"))


@pytest.mark.parametrize("scenario", ["irl", "world_model", "leworld", "report"])
def test_a_killed_save_leaves_the_old_or_the_new_artifact(
    scenario, sources, zygote, tmp_path, monkeypatch
):
    old, new = sources[scenario]
    target, reference = tmp_path / "target", tmp_path / "reference"
    saver.save(scenario, new, str(reference))
    _, new_content = state(scenario, reference)
    n_files = len(json.loads((reference / saver.MANIFESTS[scenario]).read_text())["files"])
    points = [("write", k) for k in range(n_files + 1)]
    points += [("swap", "before"), ("swap", "after"), ("fallback", "between")]
    saver.save(scenario, old, str(target))
    monkeypatch.setattr(persist, "_LEFTOVER_AGE_S", 0.0)  # this process's saves: the next ones
    for pause in points:
        old_id, old_content = state(scenario, target)
        assert old_content != new_content
        zygote.kill_at(scenario, new, target, pause)
        found_id, found = state(scenario, target)
        if pause == ("swap", "after"):
            assert found_id != old_id and found == new_content, pause
        else:
            assert found_id == old_id and found == old_content, pause
        assert siblings(target), pause  # what the killed save left behind
        saver.save(scenario, old, str(target))  # the next save works and cleans up
        assert siblings(target) == [] and state(scenario, target)[1] == old_content


def test_a_killed_debate_save_leaves_the_old_model_and_the_next_save_cleans_up(
    sources, zygote, tmp_path, monkeypatch
):
    from assembly_gym.agents.debate.model import DebateModel

    old, new = sources["debate"]
    target = tmp_path / "model.json"
    saver.save("debate", old, str(target))
    zygote.kill_at("debate", new, target, ("replace", "before"))
    assert DebateModel.load(target).name == "old" and siblings(target)
    users = tmp_path / ".model.json.my-backup.tmp"  # a user's file with the old pattern's name
    users.write_text("mine")
    monkeypatch.setattr(persist, "_LEFTOVER_AGE_S", 0.0)
    saver.save("debate", new, str(target))
    assert DebateModel.load(target).name == "new" and siblings(target) == [users.name]
    assert users.read_text() == "mine"


WRITER = """
import os, sys
os.fsync = lambda descriptor: None  # durability is not what this test checks
from assembly_gym.core.artifact import write_artifact
folder, tag, saves = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(saves):
    value = f"{tag}-{i}".encode()
    write_artifact(folder, {"a": value, "b/c": 2 * value, "d": 3 * value}, manifest="m.json",
                   payload={"value": value.decode()}, kind="race", version=1)
"""


def test_concurrent_writers_and_a_reader_never_see_a_mix(tmp_path):
    folder = tmp_path / "raced"
    write_artifact(folder, {"a": b"x", "b/c": b"xx", "d": b"xxx"}, manifest="m.json",
                   payload={"value": "x"}, kind="race", version=1)  # fmt: skip
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(folder), tag, "200"])
        for tag in ("one", "two")
    ]
    seen = set()
    while any(writer.poll() is None for writer in writers) or not seen:
        loaded = read_artifact(folder, manifest="m.json", kind="race", version=1)
        value = loaded.manifest["value"].encode()
        assert loaded.files == {"a": value, "b/c": 2 * value, "d": 3 * value}
        seen.add(value)
    assert [writer.wait(timeout=_TIMEOUT_S) for writer in writers] == [0, 0]
    assert len(seen) > 10  # the reader saw many saves, not only the first or the last
    final = read_artifact(folder, manifest="m.json", kind="race", version=1)
    assert final.manifest["value"] in ("one-199", "two-199") and siblings(folder) == []
