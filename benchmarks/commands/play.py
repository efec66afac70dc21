"""``assembly-gym play``: step through a session or a resolution as a country, in the terminal.

Each step shows the env's rendering (the roll call or the stage, the context, the valid
actions) and asks for an action; ``--expert`` plays what the country actually did instead.
At the end a table lists, per step, your action beside the country's.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from assembly_gym.benchmarks.commands.arguments import POSITIVE_INT, SEED, SESSION
from assembly_gym.core.errors import AssemblyGymError
from assembly_gym.envs.legislative.data import Vote
from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.spaces import Action


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``play`` subcommand."""
    parser = subparsers.add_parser(
        "play",
        help="play a country in the terminal",
        description="Step through a session (roll calls) or a resolution (deliberation) as a "
        "country; at the end see what the country actually did.",
    )
    parser.add_argument("--country", required=True, help="the country you play")
    parser.add_argument(
        "--env",
        choices=("rollcall", "deliberation"),
        default="rollcall",
        help="a session of roll calls, or one resolution from draft to plenary",
    )
    parser.add_argument(
        "--data",
        default=None,
        help="real data (an unvotes folder); default: the synthetic assembly",
    )
    parser.add_argument("--session", type=SESSION, default=None, help="the session to play")
    parser.add_argument(
        "--steps",
        type=POSITIVE_INT,
        default=None,
        help="stop after this many steps (default: the whole episode)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the episode draw")
    parser.add_argument(
        "--expert",
        action="store_true",
        help="play the country's recorded actions instead of asking",
    )
    parser.set_defaults(run=run)


def _names(env: Any) -> dict[int, str]:
    members = Vote if isinstance(env, RollCallEnv) else Action
    return {member.value: member.name for member in members}


def _ask(names: dict[int, str], mask, stdin: TextIO, stdout: TextIO) -> int | None:
    """Read an action (number or name) among the valid ones; None on end of input or 'q'."""
    valid = {i: n for i, n in names.items() if mask[i]}
    while True:
        stdout.write(f"your action [{', '.join(f'{i}={n}' for i, n in valid.items())}, q=quit]: ")
        stdout.flush()
        line = stdin.readline()
        if not line or line.strip().lower() in ("q", "quit"):
            return None
        text = line.strip().upper()
        chosen = int(text) if text.isdigit() else {n: i for i, n in valid.items()}.get(text)
        if chosen in valid:
            return chosen
        stdout.write(f"  not a valid action: {line.strip()!r}\n")


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Play one episode; returns 0 (also when the player quits early)."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    env_class = RollCallEnv if args.env == "rollcall" else DeliberationEnv
    env = env_class(args.data, country=args.country, session=args.session, render_mode="ansi")
    names = _names(env)
    _, info = env.reset(seed=args.seed)
    history: list[tuple[str, str, str]] = []
    terminated = False
    while not terminated and (args.steps is None or len(history) < args.steps):
        stdout.write(env.render_text() + "\n")
        mask = info["action_mask"]
        if args.expert:
            action = env.recorded_action()
            if action is None:
                raise AssemblyGymError(
                    f"the record has no action of {args.country} here; play without --expert"
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
        stdout.write(env.render_text() + "\n")
    matches = sum(you == actual for _, you, actual in history)
    stdout.write(f"\nWhat {args.country} actually did ({matches}/{len(history)} matched):\n")
    for label, you, actual in history:
        stdout.write(f"  {label:<40} you {you:<10} actual {actual}\n")
    return 0
