"""Benchmark: the debate allocator against the baselines on real UN votes, 20 countries.

Train on sessions ≤ 60, test on sessions 61–69 (a forecast: test roll calls are described
by the training votes only), every agent fitted per country by
:func:`assembly_gym.benchmarks.harness.evaluate`: the foundation's baselines, the MaxEnt-IRL
agent (``assembly_gym.agents.irl_agent``, when it imports and runs) and the debate allocator
with the default :class:`~assembly_gym.agents.debate.TrainConfig`. Also prints each country's
calibrated allocations.

Needs the real data (``--data``, else ``$ASSEMBLY_GYM_DATA`` or ``../shared/data``).

Run: ``assembly-gym experiment debate_real [--countries NAME ...] [--data DIR]``
"""

from __future__ import annotations

import argparse
import traceback

from assembly_gym.agents.debate import DebateAllocatorAgent, Tendency
from assembly_gym.benchmarks.commands.arguments import SESSION
from assembly_gym.benchmarks.experiments import add_data_argument, real_votes
from assembly_gym.benchmarks.harness import AgentFactory, TemporalSplit, default_agents, evaluate
from assembly_gym.envs.legislative.sources import roll_call_data

__all__ = ["add_arguments", "irl_factory", "run"]

COUNTRIES = (
    "United States",
    "Russia",
    "China",
    "United Kingdom",
    "France",
    "Germany",
    "Japan",
    "India",
    "Brazil",
    "South Africa",
    "Nigeria",
    "Egypt",
    "Iran",
    "Israel",
    "Cuba",
    "Mexico",
    "Canada",
    "Indonesia",
    "Pakistan",
    "Sweden",
)


def irl_factory() -> tuple[AgentFactory | None, str]:
    """The MaxEnt-IRL agent's factory, or None and why it is left out."""
    try:
        from assembly_gym.agents.irl_agent import MaxEntIRLAgent
    except Exception as error:  # noqa: BLE001 — a colleague's module in progress: report, go on
        return None, f"assembly_gym.agents.irl_agent does not import ({error!r})"
    return (
        lambda layout: MaxEntIRLAgent(3, layout)
    ), "assembly_gym.agents.irl_agent.MaxEntIRLAgent"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The split, the countries and the data."""
    parser.add_argument("--last-train-session", type=SESSION, default=60)
    parser.add_argument(
        "--countries",
        nargs="+",
        default=COUNTRIES,
        metavar="NAME",
        help="countries to evaluate (default: 20 from every region)",
    )
    add_data_argument(parser)


def run(args: argparse.Namespace) -> None:
    """Print the comparison table and the debate's allocations per country."""
    data = roll_call_data(real_votes(args))
    split = TemporalSplit.of(data, args.last_train_session)
    agents = default_agents()
    factory, irl_note = irl_factory()
    if factory is not None:
        agents["maxent-irl"] = factory
    fitted: dict[str, DebateAllocatorAgent] = {}

    def debate(layout):
        agent = DebateAllocatorAgent(3, layout, seed=args.seed)
        fitted[f"#{len(fitted)}"] = agent
        return agent

    agents["debate"] = debate
    try:
        result = evaluate(agents, split, countries=args.countries, progress=False)
    except Exception:  # noqa: BLE001 — rerun without the colleague's agent if it breaks
        if factory is None:
            raise
        irl_note = "assembly_gym.agents.irl_agent failed during the run:\n" + traceback.format_exc(
            limit=3
        )
        del agents["maxent-irl"]
        fitted.clear()
        result = evaluate(agents, split, countries=args.countries, progress=False)
    print(f"Data: {data.source}")
    print(f"MaxEnt-IRL agent: {irl_note}")
    print(result.to_markdown())
    print()
    print("Debate allocations per country (%, columns in Tendency order):")
    labels = [t.label.split(" ")[0] for t in Tendency]
    print("| country | " + " | ".join(labels) + " | epochs | converged | val. owner acc. | p |")
    print("|---|" + "---:|" * (len(labels) + 4))
    for country, agent in zip(result.countries, fitted.values(), strict=True):
        last = agent.history_.validation_results[-1]
        shares = " | ".join(f"{100 * w:.0f}" for w in agent.allocations_)
        print(
            f"| {country} | {shares} | {agent.history_.epochs_run} | "
            f"{agent.history_.converged} | {last.accuracy:.3f} | {last.p_value:.1e} |"
        )
