"""The claim-command hook, with small fake commands written by the tests (including a timeout)."""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import time

import numpy as np
import pytest

from assembly_gym.agents.debate import ClaimModel, DebateModel, TrainConfig, Trainer, TrainHistory
from assembly_gym.agents.debate.claims import PROTOCOL, ClaimModelError
from assembly_gym.agents.debate.observations import Observations
from assembly_gym.agents.debate.tendencies import compute_claims, tendency_agents

# A fake language model: claims "yes" for human rights on every observation, records each call.
FAKE = """
import json, sys
request = json.load(sys.stdin)
with open({log!r}, "a") as log:
    log.write(json.dumps(request) + "\\n")
claims = [{{"id": o["id"], "tendency": "human rights", "action": "yes", "strength": 0.6,
            "relevance": 0.9}} for o in request["observations"]]
claims.append({{"id": request["observations"][0]["id"], "tendency": "development",
                "action": None, "strength": 0.0}})
print(json.dumps({{"claims": claims}}))
"""


@pytest.fixture()
def small(country_observations) -> Observations:
    return country_observations.take(np.arange(10))


def script(tmp_path, source: str, name: str = "fake.py") -> list[str]:
    path = tmp_path / name
    path.write_text(source)
    return [sys.executable, str(path)]


def test_claims_come_from_the_command_in_batches(tmp_path, small):
    log = tmp_path / "calls.jsonl"
    model = ClaimModel(script(tmp_path, FAKE.format(log=str(log))), timeout=20, batch_size=4)
    agents = tendency_agents()
    report = model.claims(small, agents)
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert [len(r["observations"]) for r in requests] == [4, 4, 2]
    assert requests[0]["protocol"] == PROTOCOL
    assert requests[0]["actions"] == ["yes", "no", "abstain"]
    assert [t["name"] for t in requests[0]["tendencies"]] == [a.name for a in agents]
    first = requests[0]["observations"][0]
    assert first["id"] == small.ids[0] and "text" in first and "issue_hr" in first["features"]
    assert report.errors == () and report.answered.all()
    hr = [a.name for a in agents].index("human rights")
    np.testing.assert_allclose(report.claims.probs[hr], [[0.6 + 0.4 / 3, 0.4 / 3, 0.4 / 3]] * 10)
    np.testing.assert_allclose(report.claims.relevance[hr], 0.9)
    others = [k for k in range(7) if k != hr]
    np.testing.assert_allclose(report.claims.probs[others], 1 / 3)  # unmentioned: no claim
    np.testing.assert_allclose(report.claims.relevance[others], 0.0)


def test_a_command_that_hangs_is_stopped_and_reported_per_batch(tmp_path, small):
    hang = "import sys, time\nsys.stdin.read()\ntime.sleep(30)\n"
    model = ClaimModel(script(tmp_path, hang), timeout=0.5, batch_size=6)
    fallback = compute_claims(small, tendency_agents())
    report = model.claims(small, tendency_agents(), fallback=fallback)
    assert [e.batch for e in report.errors] == [0, 1]
    assert all("timed out after 0.5 s" in e.message for e in report.errors)
    assert report.errors[1].ids == small.ids[6:]
    assert "batch 0 (observations" in str(report.errors[0])
    assert not report.answered.any()
    np.testing.assert_allclose(report.claims.probs, fallback.probs)


def test_failing_batches_without_fallback_raise_with_every_batch(tmp_path, small):
    crash = "import sys\nsys.stdin.read()\nsys.exit('model unavailable')\n"
    model = ClaimModel(script(tmp_path, crash), timeout=20, batch_size=5)
    with pytest.raises(
        ClaimModelError,
        match=r"2 of 2 claim batches failed: batch 0 .*"
        r"exited with code 1: model unavailable; batch 1",
    ):
        model.claims(small, tendency_agents())


# One answer per call, chosen by the first observation's id: which batch gets which problem.
PICKY = """
import json, sys
request = json.load(sys.stdin)
first = request["observations"][0]["id"]
answers = {answers!r}
print(answers.get(first, json.dumps({{"claims": []}})))
"""


@pytest.mark.parametrize(
    ("answer", "match"),
    [
        ("not json", "did not print valid JSON"),
        (json.dumps([1]), "JSON object with a 'claims' list"),
        (json.dumps({"claims": [3]}), r"claims\[0\] is not an object"),
        (
            json.dumps({"claims": [{"id": "nope", "tendency": "human rights", "strength": 1}]}),
            "field 'id' names no observation of this batch",
        ),
        (
            json.dumps({"claims": [{"id": "{id}", "tendency": "greed", "strength": 1}]}),
            "field 'tendency' names no tendency",
        ),
        (
            json.dumps(
                {
                    "claims": [
                        {"id": "{id}", "tendency": "human rights", "action": "maybe", "strength": 1}
                    ]
                }
            ),
            "field 'action' must be null or one of",
        ),
        (
            json.dumps({"claims": [{"id": "{id}", "tendency": "human rights", "strength": 2}]}),
            r"field 'strength' must be a number in \[0, 1\]",
        ),
        (
            json.dumps(
                {
                    "claims": [
                        {
                            "id": "{id}",
                            "tendency": "human rights",
                            "strength": 0.5,
                            "relevance": "high",
                        }
                    ]
                }
            ),
            "field 'relevance' must be a number",
        ),
        (
            json.dumps(
                {"claims": [{"id": "{id}", "tendency": "human rights", "strength": 0.5}] * 2}
            ),
            "a second claim of 'human rights'",
        ),
        ("[" * 200_000 + "]" * 200_000, "did not print valid JSON .*recursion"),
        (
            json.dumps({"claims": [{"id": ["{id}"], "tendency": "human rights", "strength": 1}]}),
            "field 'id' names no observation of this batch",
        ),
        (
            json.dumps({"claims": [{"id": "{id}", "tendency": {"a": 1}, "strength": 1}]}),
            "field 'tendency' names no tendency",
        ),
        (
            json.dumps(
                {
                    "claims": [
                        {"id": "{id}", "tendency": "human rights", "action": [], "strength": 1}
                    ]
                }
            ),
            "field 'action' must be null or one of",
        ),
        (
            json.dumps(
                {"claims": [{"id": "{id}", "tendency": "human rights", "strength": "x" * 10**6}]}
            ),
            r"field 'strength' must be a number in \[0, 1\], got '.{1,40}'$",
        ),
    ],
)
def test_answers_that_break_the_schema_fail_only_their_batch(tmp_path, small, answer, match):
    first_id = small.ids[0]
    answers = {first_id: answer.replace("{id}", first_id)}
    model = ClaimModel(script(tmp_path, PICKY.format(answers=answers)), timeout=20, batch_size=5)
    fallback = compute_claims(small, tendency_agents())
    report = model.claims(small, tendency_agents(), fallback=fallback)
    assert len(report.errors) == 1 and report.errors[0].batch == 0
    assert re.search(match, report.errors[0].message)
    np.testing.assert_array_equal(report.answered, [False] * 5 + [True] * 5)


def test_trainer_uses_the_claim_command_and_reports_its_errors(tmp_path, small):
    hang = "import sys, time\nsys.stdin.read()\ntime.sleep(30)\n"
    model = ClaimModel(script(tmp_path, hang), timeout=0.3, batch_size=10)
    _, result = Trainer().train(small, tendency_agents(), claim_model=model)
    assert len(result.claim_errors) == 1 and "timed out" in result.claim_errors[0].message


# A grandchild that writes a marker after a delay, while its parent keeps the batch waiting
# (it times out) or answers at once (it exits normally); 0.5 s later than either, the marker
# must still be missing: the whole process group was killed when the batch ended.
GRANDCHILD = {
    "timeout": "(sleep 0.5; touch {marker}) & exec sleep 30",
    "exit": "(sleep 0.5; touch {marker}) >/dev/null 2>&1 & echo '{{\"claims\": []}}'",
}


@pytest.mark.parametrize("ending", sorted(GRANDCHILD))
def test_no_process_of_the_command_outlives_its_batch(tmp_path, small, ending):
    marker = tmp_path / "marker"
    command = ["sh", "-c", GRANDCHILD[ending].format(marker=marker)]
    model = ClaimModel(command, timeout=0.3, batch_size=10)
    fallback = compute_claims(small, tendency_agents())
    report = model.claims(small, tendency_agents(), fallback=fallback)
    assert report.answered.all() == (ending == "exit")
    time.sleep(1.0)
    assert not marker.exists()


# A command that answers at once, leaving a grandchild in a session of its own (setsid),
# orphaned (its parent exits) and off the command's pipes: no process group or tree holds it.
DAEMON = """
import os, sys, time
sys.stdin.read()
if os.fork() == 0:
    os.setsid()
    for fd in (0, 1, 2):
        os.dup2(os.open(os.devnull, os.O_RDWR), fd)
    if os.fork() == 0:
        time.sleep(0.5)
        open({marker!r}, "w").close()
    os._exit(0)
time.sleep(0.2)
print('{{"claims": []}}')
"""


@pytest.mark.skipif(
    not os.path.isdir("/proc/self"), reason="the marked processes are found in /proc"
)
def test_a_grandchild_that_leaves_the_session_does_not_outlive_its_batch(tmp_path, small):
    marker = tmp_path / "marker"
    model = ClaimModel(script(tmp_path, DAEMON.format(marker=str(marker))), timeout=20)
    report = model.claims(small, tendency_agents())
    assert report.answered.all()
    time.sleep(1.0)
    assert not marker.exists()


def test_too_much_output_stops_the_command_and_the_run(tmp_path, small, monkeypatch):
    monkeypatch.setattr(importlib.import_module(ClaimModel.__module__), "MAX_OUTPUT_BYTES", 1000)
    flood = "import sys\nsys.stdin.read()\nwhile True:\n    print('x' * 300, flush=True)\n"
    command = script(tmp_path, flood, name="flood.py")
    model = ClaimModel(command, timeout=5, batch_size=10)
    fallback = compute_claims(small, tendency_agents())
    began = time.monotonic()
    with pytest.raises(ClaimModelError, match=r"flood\.py' printed more than 1000 bytes"):
        model.claims(small, tendency_agents(), fallback=fallback)
    assert time.monotonic() - began < 4  # stopped at the limit, not at the timeout


def test_failed_batches_are_counted_in_the_saved_history(tmp_path, small):
    crash = "import sys\nsys.stdin.read()\nsys.exit('model unavailable')\n"
    model = DebateModel("actor", tendency_agents(), small)
    claim_model = ClaimModel(script(tmp_path, crash), timeout=20, batch_size=4)
    history, _ = model.train(TrainConfig(max_epochs=2), claim_model=claim_model)
    assert (history.claim_batches, history.claim_failures) == (3, 3)
    assert history.claims_all_failed
    assert history.first_claim_error.startswith("batch 0 (observations")
    assert history.first_claim_error.endswith("exited with code 1: model unavailable")
    assert TrainHistory.from_dict(json.loads(json.dumps(history.to_dict()))) == history
    assert "Claim command failed on 3 of 3 batches" in model.summary()
    # a history without a claim command, and one saved before these fields existed
    plain, _ = model.train(TrainConfig(max_epochs=2))
    assert (plain.claim_batches, plain.claim_failures, plain.first_claim_error) == (0, 0, None)
    assert not plain.claims_all_failed and "Claim command" not in model.summary()
    older = {k: v for k, v in history.to_dict().items() if not k.startswith(("claim", "first"))}
    assert TrainHistory.from_dict(older).claim_failures == 0


def test_a_history_with_some_failed_batches_is_not_all_failed(tmp_path, small):
    answers = {small.ids[0]: "not json"}
    claim_model = ClaimModel(script(tmp_path, PICKY.format(answers=answers)), batch_size=5)
    history, _ = Trainer(TrainConfig(max_epochs=2)).train(
        small, tendency_agents(), claim_model=claim_model
    )
    assert (history.claim_batches, history.claim_failures) == (2, 1)
    assert not history.claims_all_failed
    assert "did not print valid JSON" in history.first_claim_error


def test_bad_commands_and_settings_raise(small):
    with pytest.raises(ValueError, match="the claim command is empty"):
        ClaimModel([])
    with pytest.raises(ValueError, match="timeout must be > 0 and batch_size ≥ 1"):
        ClaimModel(["x"], timeout=0)
    with pytest.raises(ValueError, match="timeout must be > 0 and batch_size ≥ 1"):
        ClaimModel(["x"], batch_size=0)
    assert ClaimModel("python -m tool --flag 'a b'").command == (
        "python",
        "-m",
        "tool",
        "--flag",
        "a b",
    )
    with pytest.raises(ClaimModelError, match="cannot run claim command"):
        ClaimModel(["/nonexistent/claim-tool"]).claims(small, tendency_agents())
