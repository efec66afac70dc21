"""Agents that model a country's behaviour behind one protocol: ``fit``, ``action_probs``, ``act``.

The protocol and the simple baselines are importable from here; the heavier agents (MaxEnt
IRL, the debate allocator, imitation's, SB3's; docs/architecture.md) live in their modules
so that importing ``agents`` stays light.

Example:
    >>> from assembly_gym.agents import MajorityAgent
    >>> from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
    >>> from assembly_gym.envs.legislative.sources import roll_call_data
    >>> demos = rollcall_demonstrations(roll_call_data(), ["Country 001"])
    >>> MajorityAgent().fit(demos).action_probs(demos[0].obs[:2]).shape
    (2, 3)
"""

from assembly_gym.agents.base import Agent, BaseAgent, EpisodeScores, EpisodicAgent
from assembly_gym.agents.baselines import (
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
    "EpisodeScores",
    "EpisodicAgent",
    "IssueMajorityAgent",
    "LogisticAgent",
    "MajorityAgent",
    "PlantedAgent",
    "RandomAgent",
    "SimilarVoteAgent",
]
