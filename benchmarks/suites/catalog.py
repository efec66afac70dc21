"""The agents the suites run, as :class:`~assembly_gym.benchmarks.suites.base.AgentSpec` factories.

Each function returns the spec of one agent for a task; suites pick from them. Learners
that fit every country at once (MaxEnt IRL) get one work unit; per-country learners are
split into chunks of countries that run in parallel under ``--jobs``. Learners built on
torch fit on one thread (:func:`single_threaded`, or by themselves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assembly_gym.agents.base import Agent
from assembly_gym.agents.baselines import (
    AlwaysYesAgent,
    IssueMajorityAgent,
    LogisticAgent,
    MajorityAgent,
    PlantedAgent,
    RandomAgent,
    SimilarVoteAgent,
)
from assembly_gym.benchmarks.commands.irl import DEFAULT_REAL_L2
from assembly_gym.benchmarks.suites.base import (
    AgentSpec,
    Options,
    Task,
    per_country,
    single_threaded,
)
from assembly_gym.envs.legislative.observation import FeatureConfig

__all__ = [
    "REAL_FEATURES",
    "REAL_L2",
    "baseline_specs",
    "bc_spec",
    "debate_spec",
    "irl_spec",
    "mce_irl_spec",
    "neural_irl_spec",
    "planted_spec",
]


REAL_FEATURES = FeatureConfig(log_shares=True, relations=True, allies=20, lineage=True)
"""The features of every forecast of real votes (the ``unvotes`` suite and ``experiment
irl_forecast``): the env's, every vote share on a log scale, the agreement with the reference
countries and the majority (``agree_*``), the votes of the country's 20 closest allies on
similar earlier roll calls (``allies_*``) and its vote on last year's version of the resolution
(``lineage_*``), each chosen on validation sessions (fit ≤ 55, scored 56–60) by
``assembly-gym experiment irl_forecast``."""
REAL_L2 = DEFAULT_REAL_L2
"""Linear MaxEnt IRL's λ on real votes, chosen on validation sessions (fit ≤ 55, scored 56–60)
by ``assembly-gym experiment irl_forecast``; ``irl fit --data`` uses it too."""


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
        "logistic (sklearn)": lambda t: LogisticAgent(n, layout),
    }
    return [AgentSpec(name, per_country(make), baseline=True) for name, make in makers.items()]


def irl_spec(task: Task, *, l2: float = 10.0) -> AgentSpec:
    """Linear MaxEnt IRL, every country in one batched fit with shrinkage to the global mean.

    ``l2`` is the prior precision on standardised weights (:data:`REAL_L2` on real votes).
    """

    def fit(task: Task, countries: Sequence[str]):
        from assembly_gym.agents.irl_agent import MaxEntIRLAgent

        return MaxEntIRLAgent.fit_countries(
            {c: task.train[c] for c in countries}, layout=task.layout, l2=l2
        )

    return AgentSpec("maxent-irl (linear)", fit, chunk=None)


def neural_irl_spec(task: Task, options: Options, *, epochs: int = 300) -> AgentSpec:
    """Neural MaxEnt IRL: an MLP reward over the observation, fitted per country.

    Its width, weight decay and device are the run's ``--neural-width``,
    ``--neural-weight-decay`` and ``--device``; ``epochs`` full-batch gradient steps (named
    in the table).
    """

    def make(task: Task):
        from assembly_gym.agents.irl_agent import NeuralMaxEntIRLAgent

        return NeuralMaxEntIRLAgent(task.n_actions, task.layout, hidden=(options.neural_width,),
                                    l2=options.neural_weight_decay, epochs=epochs, seed=task.seed,
                                    device=options.device)  # fmt: skip

    return AgentSpec("maxent-irl (neural)", per_country(make), budget=f"{epochs} epochs")


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
