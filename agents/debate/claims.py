"""The optional claim-model hook: an external command (say, a language-model CLI) makes claims.

The stdin/stdout JSON protocol (``assembly-gym-debate-claims/1``), how a claim becomes a
distribution and when a batch becomes a :class:`BatchError`: see docs/debate.md, section
"The claim-command hook". A claim without ``relevance`` has its strength as relevance.

Each call runs in a session of its own, its environment marked with a token of the call;
when the call ends, whichever way (a timeout, too much output, a normal exit), its process
group is killed and, on Linux, every process that carries the token or descends from one
that does (found in /proc, a grandchild that left the group with ``setsid()`` or was
orphaned included), so no process the command started outlives its batch. A call that
prints more than :data:`MAX_OUTPUT_BYTES` on stdout stops the whole run with a
:class:`ClaimModelError`.
"""

from __future__ import annotations

import json
import os
import reprlib
import secrets
import select
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from assembly_gym.agents.debate.arena import ClaimSet
from assembly_gym.agents.debate.observations import Observations
from assembly_gym.agents.debate.tendencies import TendencyAgent
from assembly_gym.core.errors import AssemblyGymError

__all__ = [
    "MAX_OUTPUT_BYTES",
    "PROTOCOL",
    "BatchError",
    "ClaimModel",
    "ClaimModelError",
    "ClaimReport",
]

PROTOCOL = "assembly-gym-debate-claims/1"

MAX_OUTPUT_BYTES = 16 * 2**20
"""The most a claim command may print on stdout for one batch (16 MiB); more stops the run."""

_STDERR_TAIL = 64 * 2**10  # bytes of stderr kept (its last line is reported)
_CALL_TOKEN = "ASSEMBLY_GYM_CLAIM_CALL"  # the environment variable that marks a call's processes


class ClaimModelError(AssemblyGymError, RuntimeError):
    """The claim command cannot be run or printed too much, or batches failed without fallback."""


@dataclass(frozen=True)
class BatchError:
    """A batch whose claims could not be obtained from the command.

    Attributes:
        batch: 0-based batch number.
        ids: the ids of the batch's observations.
        message: what went wrong.
    """

    batch: int
    ids: tuple[str, ...]
    message: str

    def __str__(self) -> str:
        return f"batch {self.batch} (observations {self.ids[0]}…{self.ids[-1]}): {self.message}"


@dataclass(frozen=True)
class ClaimReport:
    """Claims from the command.

    Attributes:
        claims: claims on every observation (failed batches: the fallback's).
        answered: which observations the command answered, shape (N,) bool.
        errors: one entry per failed batch.
        batches: how many batches were sent.
    """

    claims: ClaimSet
    answered: np.ndarray
    errors: tuple[BatchError, ...]
    batches: int


class _BadAnswer(Exception):
    """A command's answer that does not follow the schema (becomes a BatchError)."""


@dataclass(frozen=True)
class ClaimModel:
    """An external command that makes claims, a batch of observations at a time.

    Args:
        command: the program and its arguments (a list, or a string split like a shell would;
            it is not run through a shell).
        timeout: seconds a batch may take before its processes are killed and it is reported.
        batch_size: observations per call.
        refresh: ask again at the start of every epoch (with the current allocations);
            otherwise the claims are asked once, before the first epoch.
        validate: the command also claims the held-out observations (so it assigns their
            owners); otherwise the built-in scorers claim them.

    Example:
        >>> model = ClaimModel(["python", "my_llm_claims.py"], timeout=120, batch_size=8)
    """

    command: Sequence[str] | str
    timeout: float = 60.0
    batch_size: int = 16
    refresh: bool = False
    validate: bool = True

    def __post_init__(self) -> None:
        argv = tuple(shlex.split(self.command) if isinstance(self.command, str) else self.command)
        if not argv:
            raise ValueError("the claim command is empty")
        object.__setattr__(self, "command", argv)
        if self.timeout <= 0 or self.batch_size < 1:
            raise ValueError(
                f"timeout must be > 0 and batch_size ≥ 1, got {self.timeout} and {self.batch_size}"
            )

    def request(
        self,
        observations: Observations,
        agents: Sequence[TendencyAgent],
        index: np.ndarray,
        *,
        allocations: np.ndarray | None = None,
        epoch: int = 1,
    ) -> dict[str, Any]:
        """The JSON document sent to the command for the observations at ``index``.

        ``allocations`` (K,) are the shares sent (default: the agents' ``allocation``).
        """
        shares = [a.allocation for a in agents] if allocations is None else allocations
        names, records = observations.feature_names, []
        for i in index:
            record: dict[str, Any] = {"id": observations.ids[i]}
            if observations.texts is not None:
                record["text"] = observations.texts[i]
            if names:
                values = observations.features[i].tolist()
                record["features"] = {n: round(v, 6) for n, v in zip(names, values, strict=True)}
            records.append(record)
        return {
            "protocol": PROTOCOL,
            "epoch": int(epoch),
            "actions": list(observations.action_names),
            "tendencies": [
                {"name": a.name, "description": a.description, "allocation": round(float(w), 6)}
                for a, w in zip(agents, shares, strict=True)
            ],
            "observations": records,
        }

    def claims(
        self,
        observations: Observations,
        agents: Sequence[TendencyAgent],
        *,
        fallback: ClaimSet | None = None,
        progress: bool = False,
        allocations: np.ndarray | None = None,
        epoch: int = 1,
    ) -> ClaimReport:
        """Ask the command for claims on every observation, batch by batch.

        Args:
            observations: what to claim.
            agents: the tendencies (names, descriptions and allocations are sent).
            fallback: claims used for the observations of failed batches.
            progress: show a tqdm bar over batches.
            allocations: the current shares sent, shape (K,) (default: the agents').
            epoch: the training epoch asking (sent).

        Raises:
            ClaimModelError: the command cannot be started, printed more than
                :data:`MAX_OUTPUT_BYTES`, or a batch failed and there is no fallback (the
                message lists every failed batch).
        """
        n, n_actions = len(observations), observations.n_actions
        probs = np.full((len(agents), n, n_actions), 1.0 / max(n_actions, 1))
        relevance = np.zeros((len(agents), n))
        answered = np.zeros(n, dtype=bool)
        errors: list[BatchError] = []
        starts = range(0, n, self.batch_size)
        for batch, start in enumerate(tqdm(starts, desc="claims", disable=not progress)):
            index = np.arange(start, min(start + self.batch_size, n))
            request = self.request(
                observations, agents, index, allocations=allocations, epoch=epoch
            )
            try:
                parsed = self._parse(self._run(request), observations, agents, index)
            except _BadAnswer as error:
                ids = tuple(observations.ids[i] for i in index)
                errors.append(BatchError(batch, ids, str(error)))
                continue
            probs[:, index], relevance[:, index] = parsed
            answered[index] = True
        claims = ClaimSet(probs, relevance)
        if errors:
            if fallback is None:
                raise ClaimModelError(
                    f"{len(errors)} of {len(starts)} claim batches failed: "
                    + "; ".join(str(e) for e in errors)
                )
            missing = np.flatnonzero(~answered)
            claims = claims.replace(missing, fallback.take(missing))
        return ClaimReport(claims, answered, tuple(errors), len(starts))

    def _run(self, request: dict[str, Any]) -> Any:
        """Run the command on one request in a session of its own; its parsed answer."""
        token = secrets.token_hex(16)
        try:
            pipe = subprocess.PIPE
            process = subprocess.Popen(
                self.command,
                stdin=pipe,
                stdout=pipe,
                stderr=pipe,
                start_new_session=True,
                env={**os.environ, _CALL_TOKEN: token},
            )
        except OSError as error:
            raise ClaimModelError(
                f"cannot run claim command {self.command[0]!r}: {error}"
            ) from error
        with process:
            try:
                stdout, stderr = self._exchange(process, json.dumps(request).encode())
            finally:
                _kill_call(process, token)
        if process.returncode != 0:
            lines = stderr.decode(errors="replace").strip().splitlines()
            detail = lines[-1] if lines else "no error output"
            raise _BadAnswer(f"command exited with code {process.returncode}: {detail}")
        try:
            return json.loads(stdout)
        except (ValueError, RecursionError) as error:  # bad JSON or UTF-8, too deep, huge ints
            raise _BadAnswer(f"command did not print valid JSON ({error})") from error

    def _exchange(self, process: subprocess.Popen[bytes], request: bytes) -> tuple[bytes, bytes]:
        """Write the request, read stdout and the tail of stderr until the command exits.

        Raises:
            _BadAnswer: past the timeout.
            ClaimModelError: stdout longer than :data:`MAX_OUTPUT_BYTES`.
        """
        assert process.stdin and process.stdout and process.stderr  # all three are pipes
        deadline = time.monotonic() + self.timeout
        stdout, stderr, sent = bytearray(), bytearray(), 0
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdin, selectors.EVENT_WRITE)
            selector.register(process.stdout, selectors.EVENT_READ, stdout)
            selector.register(process.stderr, selectors.EVENT_READ, stderr)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _BadAnswer(f"timed out after {self.timeout:g} s")
                for key, _ in selector.select(left):
                    if key.fileobj is process.stdin:
                        try:  # at most PIPE_BUF bytes: a write that cannot block
                            sent += os.write(key.fd, request[sent : sent + select.PIPE_BUF])
                        except BrokenPipeError:  # the command stopped reading: fine
                            sent = len(request)
                        if sent == len(request):
                            selector.unregister(process.stdin)
                            process.stdin.close()
                        continue
                    chunk = os.read(key.fd, 2**16)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    key.data.extend(chunk)
                    del stderr[:-_STDERR_TAIL]
                    if len(stdout) > MAX_OUTPUT_BYTES:
                        raise ClaimModelError(
                            f"claim command {shlex.join(self.command)!r} printed more than "
                            f"{MAX_OUTPUT_BYTES} bytes for one batch (MAX_OUTPUT_BYTES); stopped it"
                        )
        try:
            process.wait(max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired as error:
            raise _BadAnswer(f"timed out after {self.timeout:g} s") from error
        return bytes(stdout), bytes(stderr)

    @staticmethod
    def _parse(
        answer: Any, observations: Observations, agents: Sequence[TendencyAgent], index: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Validate an answer; the batch's claims: probs (K, B, A) and relevance (K, B)."""
        if not isinstance(answer, dict) or not isinstance(answer.get("claims"), list):
            raise _BadAnswer("the answer must be a JSON object with a 'claims' list")
        rows = {observations.ids[i]: j for j, i in enumerate(index)}
        tendencies = {a.name: k for k, a in enumerate(agents)}
        actions = {name: a for a, name in enumerate(observations.action_names)}
        n_actions = len(actions)
        batch_probs = np.full((len(agents), len(index), n_actions), 1.0 / max(n_actions, 1))
        batch_relevance = np.zeros((len(agents), len(index)))
        seen: set[tuple[int, int]] = set()
        for position, claim in enumerate(answer["claims"]):
            where = f"claims[{position}]"
            if not isinstance(claim, dict):
                raise _BadAnswer(f"{where} is not an object")
            if not _names(claim.get("id"), rows):
                raise _BadAnswer(f"{where}: field 'id' names no observation of this batch")
            if not _names(claim.get("tendency"), tendencies):
                raise _BadAnswer(f"{where}: field 'tendency' names no tendency")
            action = claim.get("action")
            if action is not None and not _names(action, actions):
                raise _BadAnswer(f"{where}: field 'action' must be null or one of {list(actions)}")
            strength = _unit(claim.get("strength"), where, "strength")
            given = claim.get("relevance", strength)
            k, i = tendencies[claim["tendency"]], rows[claim["id"]]
            if (k, i) in seen:
                raise _BadAnswer(
                    f"{where}: a second claim of {claim['tendency']!r} on {claim['id']!r}"
                )
            seen.add((k, i))
            batch_relevance[k, i] = _unit(given, where, "relevance")
            if n_actions and action is not None:
                batch_probs[k, i] = (1.0 - strength) / n_actions
                batch_probs[k, i, actions[action]] += strength
        return batch_probs, batch_relevance


def _kill_call(process: subprocess.Popen[bytes], token: str) -> None:
    """Kill every process of a call, then reap the command.

    First its process group; then, where /proc lists processes (Linux), each process marked
    with the call's ``token`` or descended from one, round after round until none is left
    (a process forked while the others are killed is found in the next round).
    """
    _send_kill(os.killpg, process.pid)
    mark = f"{_CALL_TOKEN}={token}".encode()
    for _ in range(100):  # bounded: a process stuck in the kernel may outlast SIGKILL a while
        left = _marked_processes(mark)
        if not left:
            break
        for pid in left:
            _send_kill(os.kill, pid)
    process.wait()


def _send_kill(kill: Callable[[int, int], None], pid: int) -> None:
    """SIGKILL a process (``os.kill``) or a process group (``os.killpg``) that may be gone."""
    try:
        kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # gone (macOS: only zombies left)
        pass


def _marked_processes(mark: bytes) -> set[int]:
    """Running processes whose environment holds ``mark``, and their descendants (Linux)."""
    if not os.path.isdir("/proc/self"):
        return set()
    children: dict[int, list[int]] = {}
    marked = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry.name}/environ", "rb") as environ:
                if mark in environ.read().split(b"\0"):  # a zombie's is empty
                    marked.append(int(entry.name))
        except OSError:  # ended meanwhile, or another user's
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(marked), marked
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _names(value: Any, known: dict[str, int]) -> bool:
    """Whether a field's value is one of the names in ``known`` (any other JSON value is not)."""
    return isinstance(value, str) and value in known


def _unit(value: Any, where: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        shown = reprlib.repr(value)  # bounded, however large or deep the value
        raise _BadAnswer(f"{where}: field '{name}' must be a number in [0, 1], got {shown}")
    return float(value)
