"""Benchmark: the debate allocator against the baselines on real UN votes, 20 countries.

Train on sessions ≤ 60, test on sessions 61–69 (a forecast: test roll calls are described
by the training votes only), every agent fitted per country by
:func:`assembly_gym.benchmarks.harness.evaluate`: the foundation's baselines, the MaxEnt-IRL
agent and the debate allocator with the default
:class:`~assembly_gym.agents.debate.TrainConfig`. Also prints each country's calibrated
allocations.

Needs the real data (``--data``, else ``$ASSEMBLY_GYM_DATA`` or ``../shared/data``).

Run: ``assembly-gym experiment debate_real [--countries NAME ...] [--data DIR]``
"""

from __future__ import annotations

import argparse

from assembly_gym.agents.debate.agent import DebateAllocatorAgent
from assembly_gym.agents.debate.tendencies import Tendency
from assembly_gym.agents.irl_agent import RewardModelAgent
from assembly_gym.benchmarks.commands.arguments import SESSION
from assembly_gym.benchmarks.experiments import add_data_argument, real_votes
from assembly_gym.benchmarks.harness import TemporalSplit, default_agents, evaluate
from assembly_gym.envs.legislative.sources import roll_call_data

__all__ = ["add_arguments", "run"]

COUNTRIES = (
    "United States", "Russia", "China", "United Kingdom", "France", "Germany", "Japan", "India",
    "Brazil", "South Africa", "Nigeria", "Egypt", "Iran", "Israel", "Cuba", "Mexico", "Canada",
    "Indonesia", "Pakistan", "Sweden",
)  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The split, the countries and the data."""
    parser.add_argument("--last-train-session", type=SESSION, default=60)
    parser.add_argument("--countries", nargs="+", default=COUNTRIES, metavar="NAME",
                        help="countries to evaluate (default: 20 from every region)")  # fmt: skip
    add_data_argument(parser)


def run(args: argparse.Namespace) -> None:
    """Print the comparison table and the debate's allocations per country."""
    data = roll_call_data(real_votes(args))
    split = TemporalSplit.of(data, args.last_train_session)
    agents = default_agents()
    agents["maxent-irl (linear)"] = lambda layout: RewardModelAgent(
        3, layout, kind="linear", shrinkage="none", standard_errors=False
    )
    fitted: list[DebateAllocatorAgent] = []  # one per country, in the table's order

    def debate(layout):
        agent = DebateAllocatorAgent(3, layout, seed=args.seed)
        fitted.append(agent)
        return agent

    agents["debate"] = debate
    result = evaluate(agents, split, countries=args.countries, progress=False)
    print(f"Data: {data.source}")
    print(result.to_markdown())
    print()
    print("Debate allocations per country (%, columns in Tendency order):")
    labels = [t.label.split(" ")[0] for t in Tendency]
    print("| country | " + " | ".join(labels) + " | epochs | converged | val. owner acc. | p |")
    print("|---|" + "---:|" * (len(labels) + 4))
    for country, agent in zip(result.countries, fitted, strict=True):
        last = agent.history_.validation_results[-1]
        shares = " | ".join(f"{100 * w:.0f}" for w in agent.allocations_)
        print(
            f"| {country} | {shares} | {agent.history_.epochs_run} | "
            f"{agent.history_.converged} | {last.accuracy:.3f} | {last.p_value:.1e} |"
        )
