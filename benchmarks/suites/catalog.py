"""The agents the suites run, as :class:`~assembly_gym.benchmarks.suites.base.AgentSpec` factories.

Each function returns the spec of one agent for a task; suites pick from them. A reward of
any registered kind is an agent by :func:`reward_spec` (named ``maxent-irl (<kind>)``); the
default reward (:func:`default_reward_spec`) is the bench's agent. Learners that fit every
country at once (most reward kinds) get one work unit; per-country learners are split into
chunks of countries that run in parallel under ``--jobs``. Learners built on torch fit on
one thread (:func:`single_threaded`, or by themselves).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from assembly_gym.agents.base import Agent
from assembly_gym.agents.baselines import (
    AlwaysYesAgent,
    IssueMajorityAgent,
    LogisticAgent,
    MajorityAgent,
    PlantedAgent,
    RandomAgent,
    SimilarVoteAgent,
    TextNeighbourAgent,
)
from assembly_gym.agents.irl_agent import RewardModelAgent, reward_agent_name
from assembly_gym.benchmarks.suites.base import (
    AgentSpec,
    Options,
    Task,
    per_country,
    single_threaded,
)
from assembly_gym.irl.rollcall import DEFAULT_KIND, fit_reward_model

__all__ = [
    "baseline_specs",
    "bc_spec",
    "debate_spec",
    "default_reward_spec",
    "ideal_spec",
    "mce_irl_spec",
    "neural_reward_spec",
    "planted_spec",
    "reward_spec",
]


def baseline_specs(
    task: Task, *, yes_action: int = 0, vote_actions: tuple[int, int, int] = (0, 1, 2)
) -> list[AgentSpec]:
    """The simple baselines of :mod:`assembly_gym.agents.baselines` (all but the planted one)."""
    n, layout = task.n_actions, task.layout
    makers: dict[str, Callable[[Task], Agent]] = {
        "random": lambda t: RandomAgent(n, layout),
        "always-yes": lambda t: AlwaysYesAgent(n, layout, yes_action=yes_action),
        "majority": lambda t: MajorityAgent(n, layout),
        "issue-majority": lambda t: IssueMajorityAgent(n, layout),
        "last-similar-vote": lambda t: SimilarVoteAgent(n, layout, vote_actions=vote_actions),
        TextNeighbourAgent.name: lambda t: TextNeighbourAgent(n, layout, vote_actions=vote_actions),
        "logistic (sklearn)": lambda t: LogisticAgent(n, layout),
    }
    return [AgentSpec(name, per_country(make), baseline=True) for name, make in makers.items()]


def reward_spec(
    kind: str, *, chunk: int | None = None, budget: str | None = None, **settings: Any
) -> AgentSpec:
    """MaxEnt IRL with a reward of any registered kind, named ``maxent-irl (<kind>)``.

    Args:
        kind: the reward kind (:func:`~assembly_gym.irl.base.reward_kinds`).
        chunk: countries per work unit; None (one fit of every country) unless the kind
            fits each country alone.
        budget: its compute budget in words, for the table (None: fitted to convergence).
        **settings: the kind's own (e.g. ``l2`` of "linear").
    """

    def fit(task: Task, countries: Sequence[str]) -> Mapping[str, Agent]:
        demos = {country: task.train[country] for country in countries}
        return RewardModelAgent.fit_countries(demos, layout=task.layout, kind=kind, **settings)

    return AgentSpec(reward_agent_name(kind), fit, chunk=chunk, budget=budget)


def default_reward_spec() -> AgentSpec:
    """The bench's agent: the default reward, the row every other row is tested against.

    :data:`~assembly_gym.irl.rollcall.DEFAULT_KIND` with its default settings, as ``irl fit``
    fits it.
    """
    return replace(reward_spec(DEFAULT_KIND), reference=True)


def ideal_spec() -> AgentSpec:
    """Dynamic ideal points (the "ideal" kind, default dimensions and walk) as a forecaster.

    Fitted once on the task's training data (``context["train_data"]``, described with its
    ``context["feature_config"]``) through
    :func:`~assembly_gym.irl.rollcall.fit_reward_model`, which gives the kind each vote's roll
    call and session; a later roll call takes its nearest training roll calls' cuts, and each
    country stands where it last stood.
    """

    def fit(task: Task, countries: Sequence[str]) -> Mapping[str, Agent]:
        model = fit_reward_model(task.context["train_data"], countries, kind="ideal",
                                 feature_config=task.context["feature_config"])  # fmt: skip
        return {c: RewardModelAgent.from_reward_model(model, c, task.layout) for c in countries}

    return AgentSpec(reward_agent_name("ideal"), fit, chunk=None)


def neural_reward_spec(options: Options, *, epochs: int = 300) -> AgentSpec:
    """The "neural" kind: an MLP reward per country (fitted alone, so in chunks of countries).

    Its width, weight decay and device are the run's ``--neural-width``,
    ``--neural-weight-decay`` and ``--device``; ``epochs`` full-batch gradient steps (named
    in the table).
    """
    return reward_spec(
        "neural", chunk=16, budget=f"{epochs} epochs", hidden=(options.neural_width,),
        l2=options.neural_weight_decay, epochs=epochs, seed=options.seed, device=options.device,
    )  # fmt: skip


def mce_irl_spec(
    task: Task, *, max_countries: int, max_decisions: int = 200, max_iter: int = 1000
) -> AgentSpec:
    """MCE-IRL of the imitation library on each country's last ``max_decisions`` roll calls.

    Its dense (S, A, S) transitions grow as the square of the decisions, so it runs on the
    first ``max_countries`` countries and a window of recent roll calls, with at most
    ``max_iter`` of imitation's gradient steps (both named in the table).
    """

    def make(task: Task):
        from assembly_gym.agents.imitation_agents import MCEIRLAgent

        return MCEIRLAgent(task.n_actions, task.layout, max_decisions=max_decisions,
                           max_iter=max_iter, seed=task.seed)  # fmt: skip

    budget = f"last {max_decisions} votes, ≤{max_iter} steps"
    return AgentSpec("imitation MCE-IRL", per_country(make), max_countries=max_countries,
                     requires="imitation", budget=budget)  # fmt: skip


def debate_spec(task: Task) -> AgentSpec:
    """The debate allocator (tendency mixture calibrated by adversarial debate)."""

    def make(task: Task):
        from assembly_gym.agents.debate.agent import DebateAllocatorAgent

        return DebateAllocatorAgent(task.n_actions, task.layout, seed=task.seed)

    return AgentSpec("debate allocator", per_country(make))


def bc_spec(task: Task, *, max_countries: int | None = None, n_epochs: int = 20) -> AgentSpec:
    """Imitation's behavioural cloning (a peer-library reference); ``n_epochs`` is its budget.

    It needs its epochs (5 instead of 20 raise the synthetic log-loss from 0.594 to 0.743):
    a budget runs it on the first ``max_countries`` countries instead.
    """

    def make(task: Task):
        from assembly_gym.agents.imitation_agents import BCAgent

        return BCAgent(task.n_actions, task.layout, n_epochs=n_epochs, seed=task.seed)

    return AgentSpec("imitation BC", single_threaded(per_country(make)),
                     max_countries=max_countries, requires="imitation",
                     budget=f"{n_epochs} epochs")  # fmt: skip


def planted_spec(task: Task, assembly) -> AgentSpec:
    """The synthetic assembly's true policy: the ceiling."""
    return AgentSpec("planted (oracle)", per_country(lambda t: PlantedAgent(assembly, t.layout)))
