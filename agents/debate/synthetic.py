"""Synthetic actors with planted tendency mixtures: the ground truth of the debate's recovery.

:func:`plant_mixture` relabels real situations by a known mixture: each observation's owner
z_i ~ Categorical(w*), its action y_i ~ p_{z_i}(· | x_i). :func:`synthetic_person` writes a
free-text document about a person with planted owners and its planted mixture (how its
texts are made: docs/debate.md, "Command line").
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from assembly_gym.agents.debate.arena import ClaimSet
from assembly_gym.agents.debate.observations import Observations
from assembly_gym.agents.debate.tendencies import PersonTendency

__all__ = ["plant_mixture", "synthetic_person"]

_PERSON_WORDS = {  # tendency: (words of its description, words it lacks)
    "survival": (
        ("hunger", "thirst", "shelter", "illness", "injury", "danger", "medicine"),
        ("wound", "fever", "storm", "starving", "hospital", "cold"),
    ),
    "security": (
        ("savings", "income", "insurance", "pension", "property", "routine", "debt"),
        ("mortgage", "budget", "contract", "salary", "locks", "bank"),
    ),
    "belonging": (
        ("family", "friends", "partner", "children", "marriage", "community", "loneliness"),
        ("sister", "wedding", "neighbours", "reunion", "hug", "cousin"),
    ),
    "status": (
        ("reputation", "prestige", "praise", "awards", "promotion", "rank", "admiration"),
        ("trophy", "applause", "medal", "headline", "fame", "rival"),
    ),
    "autonomy": (
        ("freedom", "independence", "control", "rebellion", "resigning", "venture", "privacy"),
        ("quit", "alone", "defied", "solo", "refused", "escape"),
    ),
    "meaning": (
        ("faith", "calling", "vocation", "cause", "legacy", "truth", "knowledge"),
        ("prayer", "mission", "teaching", "volunteer", "manuscript", "conscience"),
    ),
    "pleasure": (
        ("fun", "play", "feasts", "wine", "travel", "music", "parties"),
        ("dancing", "beach", "chocolate", "holiday", "concert", "games"),
    ),
}
_FILLER = ("today", "again", "later", "city", "morning", "letter", "week", "spoke", "wrote")


def plant_mixture(
    observations: Observations,
    claims: ClaimSet,
    allocations: np.ndarray,
    *,
    rng: np.random.Generator,
) -> tuple[Observations, np.ndarray]:
    """Relabel observations with actions drawn from a planted mixture of claims.

    Args:
        observations: the situations (their actions are replaced).
        claims: the tendencies' claims on them, shape (K, N, A) with A ≥ 1.
        allocations: the planted mixture w*, shape (K,), summing to 1.
        rng: the random generator.

    Returns:
        The relabelled observations and the planted owner of each, shape (N,).

    Raises:
        ValueError: shapes that do not match, no actions, or weights that are not a distribution.
    """
    weights = np.asarray(allocations, dtype=np.float64)
    k, n, n_actions = claims.probs.shape
    if n != len(observations) or n_actions != observations.n_actions or n_actions == 0:
        raise ValueError("claims must cover every observation and its (at least one) actions")
    if weights.shape != (k,) or (weights < 0).any() or not np.isclose(weights.sum(), 1.0):
        raise ValueError(f"allocations must be a distribution over {k} tendencies")
    owners = rng.choice(k, size=(n,), p=weights / weights.sum())
    probs = claims.probs[owners, np.arange(n)]  # (N, A)
    if observations.masks is not None:
        probs = np.where(observations.masks, probs, 0.0)
        probs /= probs.sum(axis=1, keepdims=True)
    draws = rng.random((n, 1))
    actions = np.minimum((draws > np.cumsum(probs, axis=1)).sum(axis=1), n_actions - 1)
    return replace(observations, actions=actions.astype(np.int64)), owners


def synthetic_person(
    n_observations: int,
    *,
    rng: np.random.Generator,
    name: str = "Synthetic person",
    noise: float = 0.3,
) -> tuple[dict[str, object], np.ndarray, np.ndarray]:
    """A free-text observations document about a person, with planted owners and mixture.

    Args:
        n_observations: how many observations (≥ 2).
        rng: the random generator.
        name: the person's name (the document's ``name``).
        noise: probability that a text also has a word of another tendency's description.

    Returns:
        The document (the observations JSON schema, ``"about": "person"``, with the planted
        mixture rounded to 4 decimals as ``"planted": {tendency: share}``), the planted
        owner of each observation (positions in :class:`PersonTendency`), shape (N,), and the
        planted mixture w* ~ Dirichlet(1), shape (7,).

    Raises:
        ValueError: fewer than two observations or ``noise`` outside [0, 1].
    """
    if n_observations < 2 or not 0.0 <= noise <= 1.0:
        raise ValueError(
            f"need n_observations ≥ 2 and 0 ≤ noise ≤ 1, got {n_observations} and {noise}"
        )
    names = [tendency.value for tendency in PersonTendency]
    weights = rng.dirichlet(np.ones(len(names)))
    owners = rng.choice(len(names), size=n_observations, p=weights)
    records = []
    for i, owner in enumerate(owners):
        described, lacking = _PERSON_WORDS[names[owner]]
        words = [*rng.choice(described, 2, replace=False), *rng.choice(lacking, 2, replace=False)]
        if rng.random() < noise:
            other = names[rng.choice([k for k in range(len(names)) if k != owner])]
            words.append(str(rng.choice(_PERSON_WORDS[other][0])))
        words += list(rng.choice(_FILLER, 2, replace=False))
        text = " ".join(str(word) for word in rng.permutation(words))
        records.append({"id": f"obs-{i + 1}", "text": f"{text}."})
    planted = {
        tendency: round(float(share), 4) for tendency, share in zip(names, weights, strict=True)
    }
    document: dict[str, object] = {
        "name": name, "about": "person", "observations": records, "planted": planted,
    }  # fmt: skip
    return document, owners.astype(np.int64), weights
