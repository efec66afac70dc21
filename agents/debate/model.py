"""A debate model: one actor's observations, its competing tendencies, and their calibrated shares.

:func:`create_debate_model` builds one from a free-text file or roll calls (docs/debate.md,
"Quick start").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from assembly_gym.agents.debate.claims import ClaimModel
from assembly_gym.agents.debate.observations import (
    ABOUT,
    Observations,
    TextTendencySpec,
    load_observations_json,
)
from assembly_gym.agents.debate.tendencies import (
    AgentList,
    AnyTendency,
    PersonTendency,
    Tendency,
    TendencyAgent,
    tendency_agents,
)
from assembly_gym.agents.debate.trainer import (
    DebateLogger,
    DebateResult,
    TrainConfig,
    Trainer,
    TrainHistory,
)
from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import atomic_write_json, checked_field, read_versioned_json

__all__ = ["MODEL_KIND", "DebateModel", "create_debate_model"]

MODEL_KIND = "debate-model"
_VERSION = 1
_AGENT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str, "description": str, "tendency": (str, type(None)), "allocation": (int, float),
}  # fmt: skip


class DebateModel:
    """An actor's observations and the tendency agents that compete to explain them.

    Args:
        name: who is modelled.
        agents: the tendencies (unique names), with their allocations.
        observations: what they explain.
        history: the last training run, if any.
        planted: the mixture known to have generated the observations, by tendency name,
            absent names 0 (a synthetic actor's; the summary gives the allocations' L1
            distance to it).

    Attributes:
        agents: the tendencies, an :class:`~assembly_gym.agents.debate.tendencies.AgentList`.
    """

    def __init__(
        self,
        name: str,
        agents: Sequence[TendencyAgent],
        observations: Observations,
        *,
        history: TrainHistory | None = None,
        planted: dict[str, float] | None = None,
    ) -> None:
        names = [agent.name for agent in agents]
        if len(set(names)) != len(names) or len(names) < 2:
            raise ValueError(
                f"a debate needs at least two tendencies with unique names, got {names}"
            )
        self.name = name
        self.agents = AgentList(agents)
        self.observations = observations
        self.history = history
        self.planted = planted

    def __repr__(self) -> str:
        return (
            f"DebateModel({self.name!r}, {len(self.agents)} tendencies, "
            f"{len(self.observations)} observations)"
        )

    @property
    def allocations(self) -> dict[str, float]:
        """Each tendency's current share, by name."""
        return {agent.name: agent.allocation for agent in self.agents}

    def train(
        self,
        config: TrainConfig | None = None,
        *,
        logger: DebateLogger | Sequence[DebateLogger] | None = None,
        verbose: bool = False,
        seed: int = 0,
        claim_model: ClaimModel | None = None,
    ) -> tuple[TrainHistory, DebateResult]:
        """Train with :class:`~assembly_gym.agents.debate.trainer.Trainer`.

        The history is kept and saved.
        """
        history, result = Trainer(config, seed=seed).train(
            self.observations, self.agents, logger, verbose, claim_model=claim_model
        )
        self.history = history
        return history, result

    def save(self, path: str | Path) -> None:
        """Write the model (tendencies, allocations, observations, last history), atomically."""
        agents = [
            {
                "name": a.name,
                "description": a.description,
                "tendency": None if isinstance(a.tendency, TextTendencySpec) else a.tendency.value,
                "allocation": a.allocation,
            }
            for a in self.agents
        ]
        document = {
            "name": self.name,
            "agents": agents,
            "observations": self.observations.to_dict(),
            "history": None if self.history is None else self.history.to_dict(),
            "planted": self.planted,
        }
        atomic_write_json(path, document, kind=MODEL_KIND, version=_VERSION)

    @classmethod
    def load(cls, path: str | Path) -> DebateModel:
        """Read a model written by :meth:`save`.

        Raises:
            CheckpointError: missing, corrupted, another kind or version, or malformed content
                (a field of the wrong type included).
        """
        document = read_versioned_json(path, kind=MODEL_KIND, version=_VERSION)
        problem = "malformed debate model"
        name = checked_field(document, "name", str, path, problem=problem)
        saved_agents = checked_field(document, "agents", list, path, items=dict, problem=problem)
        for agent in saved_agents:
            for key, types in _AGENT_FIELDS.items():
                checked_field(agent, key, types, path, problem=problem)
        observations = checked_field(document, "observations", dict, path, problem=problem)
        history = checked_field(document, "history", (dict, type(None)), path, problem=problem)
        trained = None if history is None else TrainHistory.from_dict(history, source=path)
        planted = checked_field(document, "planted", (dict, type(None)), path,
                                items=(int, float), default=None, problem=problem)  # fmt: skip
        try:
            agents = [
                TendencyAgent(
                    _tendency(a["name"], a["description"], a["tendency"]), float(a["allocation"])
                )
                for a in saved_agents
            ]
            return cls(
                name,
                agents,
                Observations.from_dict(observations),
                history=trained,
                planted=planted,
            )
        # AttributeError: a nested field of the wrong type (a number where a list belongs).
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise CheckpointError(f"{path}: malformed debate model ({error!r})") from error

    def summary(self) -> str:
        """A few lines: who, how many observations, allocations, last training run."""
        labelled = int(self.observations.labelled.sum())
        lines = [
            f"Debate model: {self.name}",
            f"Observations: {len(self.observations)} ({labelled} with an observed action)",
            "Allocations:",
        ]
        width = max(len(agent.name) for agent in self.agents)
        for agent in sorted(self.agents, key=lambda a: -a.allocation):
            bar = "#" * round(agent.allocation * 40)
            lines.append(f"  {agent.name:<{width}}  {agent.allocation:6.1%}  {bar}")
        if self.planted is not None:
            planted = np.array([self.planted.get(agent.name, 0.0) for agent in self.agents])
            shares = np.array([agent.allocation for agent in self.agents])
            equal = np.abs(planted - 1 / len(self.agents)).sum()
            lines.append(
                f"Planted mixture: L1 distance {np.abs(shares - planted).sum():.3f} "
                f"(equal shares: {equal:.3f})"
            )
        if self.history is None:
            lines.append("Not trained yet.")
        else:
            last = self.history.validation_results[-1]
            lines.append(
                f"Training: {self.history.epochs_run} epochs, "
                f"{'converged' if self.history.converged else 'not converged'}, best epoch "
                f"{self.history.best_epoch}; validation log-likelihood {last.log_likelihood:.4f} "
                f"nats, owner accuracy {last.accuracy:.3f} (chance 1/K {last.chance:.3f}, majority "
                f"{last.majority_rate:.3f}, n={last.n}), binomial p = {last.p_value:.2g} "
                f"{last.stars}; owners by {last.owner_source}"
            )
            if last.action_accuracy is not None:
                lines.append(
                    f"Held-out actions: accuracy {last.action_accuracy:.3f}, macro-F1 "
                    f"{last.action_macro_f1:.3f}, log-loss {last.action_log_loss:.3f}"
                )
            if self.history.claim_failures:
                lines.append(
                    f"Claim command failed on {self.history.claim_failures} of "
                    f"{self.history.claim_batches} batches (built-in claims used); first: "
                    f"{self.history.first_claim_error}"
                )
        return "\n".join(lines)


def create_debate_model(
    name: str | None,
    source: str | Path | Observations,
    *,
    tendencies: Sequence[AnyTendency] | None = None,
    about: str | None = None,
) -> DebateModel:
    """Build a model of one actor from observations, with equal starting shares.

    Args:
        name: who is modelled (None: the file's ``name``, else the file's stem).
        source: a free-text observations JSON file (schema in
            :mod:`assembly_gym.agents.debate.observations`) or :class:`Observations` (for
            example from :func:`~assembly_gym.agents.debate.observations.rollcall_observations`).
        tendencies: the competing tendencies; default: the file's own, else the seven
            defaults of ``about``.
        about: whose default tendencies apply to a file (one of
            :data:`~assembly_gym.agents.debate.observations.ABOUT`; None: the file's
            ``about`` field): ``"state"``, the seven :class:`Tendency` members (scored by text
            relevance on free text, by their legislative scorers on roll calls), or
            ``"person"``, the seven :class:`PersonTendency` members. Roll-call observations
            always default to the legislative seven.

    Raises:
        DataError: a bad observations file (names the file, record and field), a ``planted``
            mixture among them, naming a tendency the model does not have.
        ValueError: ``about`` not in ``ABOUT``, or given with roll-call observations.
    """
    if about is not None and about not in ABOUT:
        raise ValueError(f"about must be one of {list(ABOUT)}, got {about!r}")
    specs: tuple[TextTendencySpec, ...]
    planted = None
    if isinstance(source, Observations):
        if about is not None:
            raise ValueError("about selects the default tendencies of a free-text file")
        observations, specs = source, ()
        name = name or "actor"
    else:
        content = load_observations_json(source)
        observations, specs, planted = content.observations, content.tendencies, content.planted
        name = name or content.name or Path(source).stem
        about = about or content.about
    defaults = list(PersonTendency) if about == "person" else list(Tendency)
    chosen = list(tendencies) if tendencies is not None else list(specs) or defaults
    agents = tendency_agents(chosen)
    unknown = sorted(set(planted or ()) - {agent.name for agent in agents})
    if unknown:
        names = [agent.name for agent in agents]
        raise DataError(source, f"names {unknown}, not tendencies of the model {names}",
                        field="planted")  # fmt: skip
    return DebateModel(name, agents, observations, planted=planted)


def _tendency(name: str, description: str, value: str | None) -> AnyTendency:
    """A saved agent's tendency: an enum member by its value, else the described one."""
    if value is None:
        return TextTendencySpec(name, description)
    return {t.value: t for t in (*Tendency, *PersonTendency)}[value]
