"""Tendencies: the competing explanations of an actor's behaviour, and their claims.

A tendency *claims* an observation: a distribution over the actions and a relevance in
[0, 1] (how much the observation is about it). Legislative scorers read a ``RollCall-v0``
observation by feature name; text scorers (free text, the seven :class:`PersonTendency`
members and tendencies described in a file) score relevance by TF-IDF similarity and claim
no action. The claim formula and each scorer's salience and position: docs/debate.md,
"Tendencies".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from assembly_gym.agents.debate.arena import ClaimSet
from assembly_gym.agents.debate.observations import VOTE_NAMES, Observations, TextTendencySpec
from assembly_gym.core.layout import ObservationLayout

__all__ = [
    "EPSILON",
    "AgentList",
    "AnyTendency",
    "PersonTendency",
    "Tendency",
    "TendencyAgent",
    "compute_claims",
    "legislative_claims",
    "tendency_agents",
    "text_relevance",
]

EPSILON = 0.02
"""Probability spread uniformly over the actions on top of every legislative claim."""


class Tendency(Enum):
    """The seven legislative tendencies (value: a short identifier)."""

    BLOC_LOYALTY = "bloc_loyalty"
    GREAT_POWER_ALIGNMENT = "great_power_alignment"
    HUMAN_RIGHTS = "human_rights"
    SOVEREIGNTY = "sovereignty"
    DECOLONISATION = "decolonisation"
    DEVELOPMENT = "development"
    CONSENSUS = "consensus"

    @property
    def label(self) -> str:
        """Human-readable name."""
        return _LABELS[self]

    @property
    def description(self) -> str:
        """What the tendency stands for, in words (also what text scorers match against)."""
        return _DESCRIPTIONS[self]


_LABELS = {
    Tendency.BLOC_LOYALTY: "bloc loyalty",
    Tendency.GREAT_POWER_ALIGNMENT: "great-power alignment",
    Tendency.HUMAN_RIGHTS: "human rights",
    Tendency.SOVEREIGNTY: "sovereignty and non-interference",
    Tendency.DECOLONISATION: "decolonisation and self-determination",
    Tendency.DEVELOPMENT: "development",
    Tendency.CONSENSUS: "consensus / majority-following",
}
_DESCRIPTIONS = {
    Tendency.BLOC_LOYALTY: (
        "Loyalty to its bloc and allies: keeps the established group line, votes as it and its "
        "partners voted before on the same questions, solidarity with coalition and alliance."
    ),
    Tendency.GREAT_POWER_ALIGNMENT: (
        "Alignment with the great powers and their security interests: nuclear weapons, arms "
        "control, disarmament, military strategy, sides with a powerful patron against the "
        "majority."
    ),
    Tendency.HUMAN_RIGHTS: (
        "Human rights: civil and political liberties, freedom of expression, torture, "
        "discrimination, rights of women and children, condemning abuses and violations."
    ),
    Tendency.SOVEREIGNTY: (
        "Sovereignty and non-interference: national independence, territorial integrity, rejects "
        "outside scrutiny, sanctions and intervention in the internal affairs of states."
    ),
    Tendency.DECOLONISATION: (
        "Decolonisation and self-determination: independence of colonial peoples and territories, "
        "end of occupation, rights of the Palestinian people, anti-apartheid and liberation."
    ),
    Tendency.DEVELOPMENT: (
        "Economic development: trade, poverty reduction, financing, debt relief, technology "
        "transfer, growth, investment and aid for developing countries."
    ),
    Tendency.CONSENSUS: (
        "Consensus and majority-following: goes along with the broad agreement of the assembly, "
        "cooperation, compromise, joins the majority and avoids isolation."
    ),
}


class PersonTendency(Enum):
    """The seven default tendencies of free text about a person (value: its name)."""

    SURVIVAL = "survival"
    SECURITY = "security"
    BELONGING = "belonging"
    STATUS = "status"
    AUTONOMY = "autonomy"
    MEANING = "meaning"
    PLEASURE = "pleasure"

    @property
    def label(self) -> str:
        """Human-readable name (the value)."""
        return self.value

    @property
    def description(self) -> str:
        """What the tendency stands for: the words its text scorer matches."""
        return _PERSON_DESCRIPTIONS[self]


_PERSON_DESCRIPTIONS = {
    PersonTendency.SURVIVAL: (
        "Survival: staying alive and physically whole: hunger, thirst, shelter, sleep, illness, "
        "injury, danger, fleeing, medicine, the body and its needs."
    ),
    PersonTendency.SECURITY: (
        "Security: safety and stability: savings, income, steady job, insurance, pension, "
        "property, protection, order, routine, planning, avoiding risk and debt."
    ),
    PersonTendency.BELONGING: (
        "Belonging: love and connection: family, friends, partner, children, marriage, "
        "community, loyalty, caring for others, fitting in, loneliness."
    ),
    PersonTendency.STATUS: (
        "Status: recognition and standing: reputation, prestige, praise, awards, promotion, "
        "rank, competition, admiration, titles, being seen as successful."
    ),
    PersonTendency.AUTONOMY: (
        "Autonomy: independence and self-direction: freedom, choosing one's own path, refusing "
        "control, rebellion, resigning, starting an own venture, privacy."
    ),
    PersonTendency.MEANING: (
        "Meaning: purpose beyond oneself: faith, calling, vocation, a cause, legacy, truth, "
        "knowledge, art, service, principles and values."
    ),
    PersonTendency.PLEASURE: (
        "Pleasure: enjoyment and comfort: fun, play, feasts, wine, travel, music, parties, "
        "leisure, romance, adventure, delight."
    ),
}

AnyTendency: TypeAlias = Tendency | PersonTendency | TextTendencySpec
"""What a tendency agent stands for; each has a ``value``, a ``label`` and a ``description``."""


@dataclass(eq=False)
class TendencyAgent:
    """One competing explanation of the actor: a tendency and its share of the mixture.

    Attributes:
        tendency: a legislative :class:`Tendency` (scored by its roll-call scorer on votes,
            by its description on texts), a :class:`PersonTendency` or a tendency described
            in a file (both scored by the relevance of texts to their description).
        allocation: the tendency's share of the explanation, in [0, 1].
    """

    tendency: AnyTendency
    allocation: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.allocation <= 1.0:
            raise ValueError(f"allocation must be in [0, 1], got {self.allocation}")

    @property
    def name(self) -> str:
        """Unique name, shown in logs and tables: the tendency's label."""
        return self.tendency.label

    @property
    def description(self) -> str:
        """What the tendency stands for, in words."""
        return self.tendency.description


class AgentList(list[TendencyAgent]):
    """Tendency agents, in order; :meth:`all` returns the list itself (the seed guide's call)."""

    def all(self) -> AgentList:
        """This list."""
        return self


def tendency_agents(tendencies: Iterable[AnyTendency] = tuple(Tendency)) -> AgentList:
    """One agent per tendency (repeats dropped), with equal shares."""
    chosen = list(dict.fromkeys(tendencies))
    return AgentList(TendencyAgent(t, 1.0 / len(chosen)) for t in chosen)


# --------------------------------------------------------------------------------------
# Legislative scorers: (salience (N,), position (N, 3)) read by name
# --------------------------------------------------------------------------------------

Scorer = Callable[[Callable[[str], np.ndarray]], tuple[np.ndarray, np.ndarray]]


def _sharpen(shares: np.ndarray, power: float = 2.0) -> np.ndarray:
    """Shares raised to a power and renormalised (uniform where they are all zero)."""
    raised = np.clip(shares, 0.0, None) ** power
    total = raised.sum(axis=1, keepdims=True)
    return np.where(total > 0, raised / np.where(total > 0, total, 1.0), 1.0 / shares.shape[1])


def _votes(get: Callable[[str], np.ndarray], prefix: str) -> np.ndarray:
    return np.column_stack([get(f"{prefix}_{v}") for v in VOTE_NAMES])


def _bloc_loyalty(get: Callable[[str], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    line = 0.7 * _votes(get, "similar") + 0.3 * _votes(get, "issue")
    return get("similar_coverage"), _sharpen(line)


def _issue_scorer(features: tuple[str, ...], position: tuple[float, float, float]) -> Scorer:
    """Salience: the largest of ``features``; a fixed position (yes, no, abstain)."""

    def score(get: Callable[[str], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        salience = np.maximum.reduce([get(name) for name in features])
        return salience, np.tile(np.asarray(position, dtype=np.float64), (len(salience), 1))

    return score


def _consensus(get: Callable[[str], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    yes, no = get("consensus_yes"), get("consensus_no")
    shares = np.column_stack([yes, no, np.clip(1.0 - yes - no, 0.0, 1.0)])
    return ((yes + no) > 0).astype(np.float64), _sharpen(shares)


_SCORERS: dict[Tendency, Scorer] = {
    Tendency.BLOC_LOYALTY: _bloc_loyalty,
    Tendency.GREAT_POWER_ALIGNMENT: _issue_scorer(
        ("issue_nu", "issue_di", "important"), (0.05, 0.80, 0.15)
    ),
    Tendency.HUMAN_RIGHTS: _issue_scorer(("issue_hr",), (0.90, 0.03, 0.07)),
    Tendency.SOVEREIGNTY: _issue_scorer(("issue_hr",), (0.10, 0.20, 0.70)),
    Tendency.DECOLONISATION: _issue_scorer(("issue_co", "issue_me"), (0.92, 0.03, 0.05)),
    Tendency.DEVELOPMENT: _issue_scorer(("issue_ec",), (0.92, 0.03, 0.05)),
    Tendency.CONSENSUS: _consensus,
}


def legislative_claims(
    tendency: Tendency, features: np.ndarray, layout: ObservationLayout
) -> tuple[np.ndarray, np.ndarray]:
    """A legislative tendency's claims on roll-call observations.

    Args:
        tendency: which tendency.
        features: ``RollCall-v0`` observations, shape (N, d).
        layout: the names of the d dimensions.

    Returns:
        probs (N, 3) over (yes, no, abstain), rows summing to 1, and the salience (N,) in [0, 1].

    Raises:
        KeyError: the layout lacks a dimension the tendency reads (names the known ones).
    """
    features = np.atleast_2d(np.asarray(features, dtype=np.float64))

    def get(name: str) -> np.ndarray:
        return np.clip(features[:, layout.index(name)], 0.0, 1.0)

    salience, position = _SCORERS[tendency](get)
    uniform = 1.0 / len(VOTE_NAMES)
    claim = salience[:, None] * position + (1.0 - salience[:, None]) * uniform
    return (1.0 - EPSILON) * claim + EPSILON * uniform, salience


def text_relevance(texts: Sequence[str], descriptions: Sequence[str]) -> np.ndarray:
    """TF-IDF cosine similarity of each description to each text, shape (K, N), in [0, 1].

    The vectoriser is fitted on the descriptions and the texts together (so words that
    appear everywhere weigh little); rows of zeros when they share no word.
    """
    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english", strip_accents="unicode")
    try:
        matrix = vectorizer.fit_transform([*descriptions, *texts])
    except ValueError:  # no word outside the stop words anywhere
        return np.zeros((len(descriptions), len(texts)))
    described, observed = matrix[: len(descriptions)], matrix[len(descriptions) :]
    return np.clip((described @ observed.T).toarray(), 0.0, 1.0)


def compute_claims(observations: Observations, agents: Sequence[TendencyAgent]) -> ClaimSet:
    """Every agent's built-in claims on every observation.

    Agents of a legislative :class:`Tendency` use its scorer when the observations have
    roll-call features; the others are scored by the relevance of the observations' texts to
    their descriptions.

    Raises:
        ValueError: text tendencies on observations without texts, or a legislative scorer
            on observations that are not ``RollCall-v0`` votes.
    """
    n, n_actions = len(observations), observations.n_actions
    probs = np.full((len(agents), n, n_actions), 1.0 / max(n_actions, 1))
    relevance = np.zeros((len(agents), n))
    textual = []
    for k, agent in enumerate(agents):
        if isinstance(agent.tendency, Tendency) and observations.feature_names:
            if observations.action_names != VOTE_NAMES:
                raise ValueError(
                    f"{agent.name!r} scores roll-call votes {VOTE_NAMES}, "
                    f"not actions {observations.action_names}"
                )
            probs[k], relevance[k] = legislative_claims(
                agent.tendency, observations.features, observations.layout
            )
        else:
            textual.append(k)
    if textual:
        if observations.texts is None:
            names = ", ".join(agents[k].name for k in textual)
            raise ValueError(f"text tendencies ({names}) need observations with texts")
        relevance[textual] = text_relevance(
            observations.texts, [agents[k].description for k in textual]
        )
    return ClaimSet(probs, relevance)
