"""Agents that model a country's behaviour behind one protocol: ``fit``, ``action_probs``, ``act``.

The protocol and the simple baselines are importable from here; the heavier agents live in
their modules so that importing ``agents`` stays light: ``assembly_gym.agents.irl_agent``
(MaxEnt IRL), ``assembly_gym.agents.debate`` (the debate allocator),
``assembly_gym.agents.imitation_agents`` (imitation's BC, GAIL, AIRL, MCE-IRL) and
``assembly_gym.agents.sb3`` (SB3 and sb3-contrib policies); ``assembly_gym.agents.sb3_vec``
hands the native vector envs to SB3.

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
