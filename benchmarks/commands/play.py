"""``assembly-gym play``: step through a session or a resolution as a country (:class:`Play`)."""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import textwrap
from dataclasses import dataclass
from typing import Any, Literal, TextIO

from assembly_gym.benchmarks.commands import flags
from assembly_gym.core.errors import AssemblyGymError, DataError
from assembly_gym.core.paths import real_data_missing, unvotes_dir
from assembly_gym.envs.family import FAMILIES, family_of, resolve
from assembly_gym.envs.legislative.countries import default_country_table
from assembly_gym.envs.legislative.data.schema import ISSUE_NAMES, Vote
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.sources import default_assembly
from assembly_gym.envs.legislative.spaces import Action

_LETTERS = {"YES": "y", "NO": "n", "ABSTAIN": "a", "COSPONSOR": "c", "NO_ACTION": "p"}
"""The key of each action's name (of :class:`Vote` and :class:`Action`), typed at the prompt."""
_ISSUE_LIST = re.compile(r"(?<=issues: )[a-z]{2}(?:, [a-z]{2})*")  # "issues: hr, co" in the text


@dataclass(frozen=True, kw_only=True)
class Play:
    """Step through a session (roll calls) or a resolution (deliberation) as a country.

    Each step shows the env's rendering, wrapped to the terminal with the issues named, and asks
    for an action: y (yes), n (no), a (abstain), c (cosponsor), p (pass), the action's number or
    name; q quits (--expert plays what the country did). At the end, your actions beside the
    country's. Episodes come from the held-out test sessions (61-69 of the real votes) unless
    --split or --session says otherwise. Without --data, a real country's name ("France") plays
    on the real UN votes when they are found ($ASSEMBLY_GYM_DATA, else ../shared/data).
    """

    country: str = flags.option(
        "the country you play: a synthetic one ('Country 001'), or a real one ('France') to "
        "play on the real UN votes", required=True,
    )  # fmt: skip
    env: str = flags.option(
        "a session of roll calls, or one resolution from draft to plenary", "rollcall",
        choices=tuple(family.name for family in FAMILIES.values() if family.demonstrations),
    )  # fmt: skip
    data: str | None = flags.data(
        "real data ('unvotes' or an unvotes folder); default: the synthetic assembly, or the "
        "real votes when --country names a real country", group=None,
    )  # fmt: skip
    split: Literal["test", "train", "all"] = flags.option(
        "where the episode is drawn: the held-out later sessions agents are scored on (test, "
        "the default), the training sessions, or all; --session overrides it", "test",
    )  # fmt: skip
    session: int | None = flags.option("the session to play", minimum=1)
    steps: int | None = flags.option(
        "stop after this many steps (default: the whole episode)", minimum=1
    )
    seed: int = flags.seed("the episode draw")
    expert: bool = flags.switch("play the country's recorded actions instead of asking")


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``play`` subcommand."""
    flags.add_command(subparsers, "play", run, help_text, Play)


def _real_country(country: str) -> str | None:
    """The real country's name when ``country`` names one and not a synthetic country.

    Raises:
        AssemblyGymError: a real country, but the real votes are not found (the error says
            where they were looked for, how to point at them, and names synthetic countries).
    """
    synthetic = default_assembly().data
    try:
        synthetic.country_index(country)
        return None
    except DataError:
        real = default_country_table().find(country)
    if real is None:
        return None  # neither: the env's error, with its "did you mean", says so
    if unvotes_dir() is None:
        few = ", ".join(map(repr, synthetic.country_names[:3]))
        raise AssemblyGymError(
            f"{real.name} is a real country, not a synthetic one ({few}, … "
            f"{len(synthetic.country_names)} in all); "
            f"{real_data_missing('unvotes', 'un_votes.csv.gz')}, "
            "or pass --data with an unvotes folder (Voeten's UN votes, as in the R package unvotes)"
        )
    return real.name


def _key(text: str) -> str:
    """Typed text as a key: upper case, without spaces, hyphens and underscores."""
    return re.sub(r"[\s_-]+", "", text).upper()


def _choice(text: str, valid: dict[int, str]) -> int | None:
    """The valid action that ``text`` names (letter, number or name), else None."""
    key = _key(text)
    if key.isdigit():
        return int(key) if int(key) in valid else None
    for value, name in valid.items():
        if key in (_LETTERS[name].upper(), _key(name)):
            return value
    return None


def _ask(names: dict[int, str], mask, stdin: TextIO, stdout: TextIO) -> int | None:
    """Read an action among the valid ones; None on end of input or 'q'."""
    valid = {i: n for i, n in names.items() if mask[i]}
    choices = ", ".join(f"{_LETTERS[n]}/{i}={n}" for i, n in valid.items())
    while True:
        stdout.write(f"your action [{choices}; q=quit]: ")
        stdout.flush()
        line = stdin.readline()
        if not line or _key(line) in ("Q", "QUIT"):
            return None
        chosen = _choice(line, valid)
        if chosen is not None:
            return chosen
        stdout.write(f"  not a valid action: {line.strip()!r}; type one of those in brackets\n")


def screen(text: str, info: dict[str, Any], width: int) -> str:
    """The env's text for a terminal: issues by name, the description whole, lines wrapped.

    Args:
        text: the env's ``render_text()``; lines indented by spaces.
        info: the step's info; its ``description`` replaces a line that shows only its start.
        width: columns; a line is wrapped at word boundaries, its continuation indented two
            more spaces (a word longer than a line is kept whole).

    Returns:
        The text, no line longer than ``width`` but for single long words.
    """
    description = str(info.get("description", ""))
    lines = []
    for line in text.splitlines():
        body = line.lstrip()
        indent = line[: len(line) - len(body)]
        if body and len(body) < len(description) and description.startswith(body):
            body = description
        body = _ISSUE_LIST.sub(
            lambda found: ", ".join(ISSUE_NAMES.get(code, code) for code in found[0].split(", ")),
            body,
        )
        lines.append(textwrap.fill(body, width, initial_indent=indent,
                                   subsequent_indent=indent + "  ", break_long_words=False,
                                   break_on_hyphens=False))  # fmt: skip
    return "\n".join(lines)


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Play one episode; returns 0 (also when the player quits early)."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    real = _real_country(args.country) if args.data is None else None
    env_class = resolve(family_of(args.env).entry_point)
    data = "unvotes" if real else args.data
    split = None if args.session is not None or args.split == "all" else args.split
    env = env_class(data, country=args.country, session=args.session, split=split,
                    render_mode="ansi")  # fmt: skip
    if real:
        stdout.write(f"{real} is in the real UN votes: playing on them (--data unvotes)\n")
    width = max(shutil.get_terminal_size().columns - 1, 40)
    names = {a.value: a.name for a in (Vote if isinstance(env, RollCallEnv) else Action)}
    _, info = env.reset(seed=args.seed)
    country = info["country"]  # as the data spells it
    history: list[tuple[str, str, str]] = []
    terminated = False
    while not terminated and (args.steps is None or len(history) < args.steps):
        stdout.write(screen(env.render_text(), info, width) + "\n")
        mask = info["action_mask"]
        if args.expert:
            action = env.recorded_action()
            if action is None:
                raise AssemblyGymError(
                    f"the record has no action of {country} here; play without --expert"
                )
            stdout.write(f"expert plays {names[action]}\n")
        else:
            action = _ask(names, mask, stdin, stdout)
            if action is None:
                break
        step_label = info.get("symbol") or info.get("stage") or f"step {len(history) + 1}"
        stage = info.get("stage", "")
        _, reward, terminated, _, info = env.step(action)
        actual = info.get("recorded_action")  # revealed once the step is taken; −1: no record
        recorded = "not recorded" if actual is None or actual < 0 else names[actual]
        history.append((f"{step_label} {stage}".strip(), names[action], recorded))
        stdout.write(f"  you: {names[action]} | actually: {recorded} | reward {reward:+.2f}\n\n")
    if terminated:
        stdout.write(screen(env.render_text(), info, width) + "\n")
    matches = sum(you == actual for _, you, actual in history)
    stdout.write(f"\nWhat {country} actually did ({matches}/{len(history)} matched):\n")
    for label, you, actual in history:
        stdout.write(f"  {label:<40} you {you:<10} actual {actual}\n")
    return 0
