"""Agents that model a country's behaviour behind one protocol: ``fit``, ``action_probs``, ``act``.

The protocol and the simple baselines are importable from here; the heavier agents live in
their modules so that importing ``agents`` stays light: ``agents.irl_agent`` (MaxEnt IRL),
``agents.debate`` (the debate allocator), ``agents.imitation_agents`` (imitation's BC,
GAIL, AIRL, MCE-IRL) and ``agents.sb3`` (SB3 and sb3-contrib policies).

Example:
    >>> from agents import MajorityAgent
    >>> from envs.legislative.demonstrations import rollcall_demonstrations
    >>> from envs.legislative.sources import roll_call_data
    >>> demos = rollcall_demonstrations(roll_call_data(), ["Country 001"])
    >>> MajorityAgent().fit(demos).action_probs(demos[0].obs[:2]).shape
    (2, 3)
"""

from agents.base import Agent, BaseAgent
from agents.baselines import (
    AlwaysYesAgent,
    IssueMajorityAgent,
    LogisticAgent,
    MajorityAgent,
    PlantedAgent,
    RandomAgent,
    SimilarVoteAgent,
)

__all__ = [
    "Agent",
    "AlwaysYesAgent",
    "BaseAgent",
    "IssueMajorityAgent",
    "LogisticAgent",
    "MajorityAgent",
    "PlantedAgent",
    "RandomAgent",
    "SimilarVoteAgent",
]
