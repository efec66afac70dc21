"""``assembly-gym --help`` imports no subcommand; every parser and argument is described."""

from __future__ import annotations

import argparse
import json
import pkgutil
import subprocess
import sys

import pytest

import assembly_gym.benchmarks.commands
from assembly_gym.benchmarks.cli import COMMANDS, build_parser, subcommand_parsers

PACKAGE = "assembly_gym.benchmarks.commands"
PROBE = """
import json, sys
from assembly_gym.benchmarks.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def _imported(*argv: str) -> tuple[set[str], str]:
    """The modules a fresh interpreter has imported after ``assembly-gym ARGV``, and its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True
    )
    *printed, modules = done.stdout.splitlines()
    return set(json.loads(modules)), "\n".join(printed)


def _subcommands(modules: set[str]) -> set[str]:
    return {name.removeprefix(f"{PACKAGE}.") for name in modules if name.startswith(f"{PACKAGE}.")}


@pytest.mark.parametrize("argv", [["--help"], []], ids=["--help", "no arguments"])
def test_the_top_level_listing_imports_no_subcommand_and_no_torch(argv):
    modules, printed = _imported(*argv)
    assert _subcommands(modules) <= {"arguments"}
    heavy = {"torch", "assembly_gym.benchmarks.harness", "assembly_gym.envs.legislative"}
    assert not heavy & modules
    if argv:
        assert set(COMMANDS) <= set(printed.split())


def test_a_subcommand_imports_only_its_own_module():
    modules, printed = _imported("play", "--help")
    assert _subcommands(modules) == {"arguments", "flags", "play"}
    assert "usage: assembly-gym play" in printed


def test_the_table_names_every_subcommand_module():
    found = {m.name for m in pkgutil.iter_modules(assembly_gym.benchmarks.commands.__path__)}
    assert set(COMMANDS) == found - {"arguments", "flags"}


def test_the_benchmarks_package_imports_its_names_on_first_use():
    suites = "'assembly_gym.benchmarks.suites' in sys.modules"
    probe = f"import sys, assembly_gym.benchmarks as b; print({suites}, b.SUITES != {{}}, {suites})"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "True"]
    import assembly_gym.benchmarks as benchmarks

    assert set(benchmarks.__all__) <= set(dir(benchmarks))
    with pytest.raises(AttributeError):
        benchmarks.nothing  # noqa: B018


def test_every_command_and_argument_is_described():
    parser = build_parser()
    for command in [parser, *subcommand_parsers(parser)]:
        assert command.format_help()  # help strings are %-formatted: a stray % would raise
        assert command.description, f"{command.prog}: no description"
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    assert choice.help, f"{command.prog} {choice.dest}: no help"
            else:
                name = action.option_strings or action.dest
                assert action.help and action.help.strip(), f"{command.prog} {name}: no help"


def test_bench_lists_the_agent_names_it_accepts():
    bench = next(p for p in subcommand_parsers(build_parser()) if p.prog == "assembly-gym bench")
    assert "random, always-yes, majority" in " ".join(bench.format_help().split())


def test_bench_help_imports_no_suite_and_no_torch():
    modules, printed = _imported("bench", "--help")
    assert "usage: assembly-gym bench" in printed
    assert "debate allocator, imitation BC, planted (oracle)" in " ".join(printed.split())
    heavy = {"torch", "assembly_gym.benchmarks.suites", "assembly_gym.benchmarks.report"}
    assert not heavy & modules


def test_the_names_bench_help_lists_and_checks_are_the_suites(unvotes_folder):
    from assembly_gym.benchmarks.options import AGENTS, SUITE_NAMES, Options
    from assembly_gym.benchmarks.suites import SUITES
    from assembly_gym.benchmarks.suites.base import build_task

    assert SUITE_NAMES == tuple(sorted(SUITES)) == tuple(sorted(AGENTS))
    for name, suite in SUITES.items():
        data = {"unvotes": str(unvotes_folder), "masked": "synthetic"}.get(name)
        options = Options(data=data, quick=name != "synthetic")
        agents = [spec.name for spec in suite.agents(build_task(suite, options), options)]
        listed = [a for a in AGENTS[name] if name == "synthetic" or a in agents]
        assert agents == listed, name  # listed in order; synthetic's all (`bench --help` shows)
