"""A synthetic General Assembly with planted preferences: the embedded default and ground truth.

Countries sit in blocs; each country has reward weights θ_c over the roll-call feature map
φ(s, a) = e_a ⊗ [1, x(s)] (bloc centre plus a country deviation). Roll calls recur by theme
across sessions, like real UN agenda items, with issue codes, flags and a text made of the
theme's words. Each country votes by the MaxEnt-optimal policy of its reward, which for one
decision per roll call is the softmax π_c(a | s) = exp(θ_c·φ(s, a)) / Σ_b exp(θ_c·φ(s, b)).

Planted weights are non-zero only on the intercept and on the content features (issues,
flags, year, progress, text); the history features carry zero weight, because synthetic
countries have no memory. Everything is drawn from one seeded generator.

Example:
    >>> assembly = generate_assembly(SyntheticConfig(n_countries=8, n_sessions=4, seed=1))
    >>> assembly.data.votes.shape
    (8, 160)
    >>> assembly.theta.shape[:2]
    (8, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import softmax

from assembly_gym.envs.legislative.countries import Country
from assembly_gym.envs.legislative.data import ABSENT, ISSUE_CODES, RollCallData, Vote
from assembly_gym.envs.legislative.observation import FeatureConfig, content_features, feature_names
from assembly_gym.envs.legislative.phi import ActionFeatureMap

__all__ = ["SyntheticAssembly", "SyntheticConfig", "generate_assembly"]

ACTION_NAMES = tuple(v.name.lower() for v in Vote)
_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "de", "pa", "zu", "fe", "go", "hi")
_BOILERPLATE = ("draft", "resolution", "adopt", "assembly", "committee", "report")


@dataclass(frozen=True)
class SyntheticConfig:
    """Size and shape of a synthetic assembly.

    Attributes:
        n_countries: number of countries.
        n_blocs: number of blocs (countries are split evenly).
        n_sessions: number of sessions (one per year from ``first_year``).
        roll_calls_per_session: roll calls in each session.
        n_themes: recurring resolution themes (agenda items).
        first_year: calendar year of session 1.
        bloc_scale: standard deviation of bloc-centre weights.
        country_scale: standard deviation of a country's deviation from its bloc centre.
        yes_bias: intercept of "yes" over "no" (sets the share of yes votes).
        absence_rate: probability that a country does not vote on a roll call.
        seed: seed of the generator.
        features: the feature map's settings.
    """

    n_countries: int = 40
    n_blocs: int = 4
    n_sessions: int = 20
    roll_calls_per_session: int = 40
    n_themes: int = 60
    first_year: int = 1990
    bloc_scale: float = 1.2
    country_scale: float = 0.35
    yes_bias: float = 3.5
    absence_rate: float = 0.05
    seed: int = 0
    features: FeatureConfig = field(default_factory=FeatureConfig)

    def __post_init__(self) -> None:
        if self.n_countries < 1 or self.n_sessions < 1 or self.roll_calls_per_session < 1:
            raise ValueError("n_countries, n_sessions and roll_calls_per_session must be ≥ 1")
        if not 1 <= self.n_blocs <= self.n_countries:
            raise ValueError(f"n_blocs must be in 1..n_countries, got {self.n_blocs}")
        if not 0.0 <= self.absence_rate < 1.0:
            raise ValueError(f"absence_rate must be in [0, 1), got {self.absence_rate}")
        if self.n_themes < 1:
            raise ValueError(f"n_themes must be ≥ 1, got {self.n_themes}")


@dataclass(frozen=True)
class SyntheticAssembly:
    """A generated assembly and its ground truth.

    Attributes:
        data: the roll calls and votes, in the same shape as real data.
        config: the settings it was generated with.
        blocs: planted bloc of each country, shape (n_countries,).
        theta: planted reward weights, shape (n_countries, 3, 1 + d) over
            :attr:`feature_map` (rows: yes, no, abstain; centred over actions).
        feature_map: the φ(s, a) the weights are defined on.
    """

    data: RollCallData
    config: SyntheticConfig
    blocs: np.ndarray
    theta: np.ndarray
    feature_map: ActionFeatureMap

    def country_theta(self, country: str) -> np.ndarray:
        """Planted weights of one country, shape (3, 1 + d)."""
        return self.theta[self.data.country_index(country)]

    def bloc_of(self, country: str) -> int:
        """Planted bloc of one country."""
        return int(self.blocs[self.data.country_index(country)])


def generate_assembly(config: SyntheticConfig = SyntheticConfig()) -> SyntheticAssembly:
    """Generate roll calls, planted weights and MaxEnt-optimal votes from one seed."""
    rng = np.random.default_rng(config.seed)
    roll_calls = _roll_calls(config, rng)
    names = feature_names(config.features)
    feature_map = ActionFeatureMap(names, ACTION_NAMES)
    content = content_features(roll_calls, config.features)
    blocs = np.arange(config.n_countries) % config.n_blocs
    rng.shuffle(blocs)
    theta = _planted_weights(config, blocs, content.shape[1], len(names), rng)

    # π_c(a | s) = softmax_a θ_c·φ(s, a); history weights are zero, so content suffices.
    augmented = np.column_stack([np.ones(len(content)), content])  # (R, 1 + n_content)
    logits = np.einsum("cak,rk->cra", theta[:, :, : augmented.shape[1]], augmented)
    probs = softmax(logits, axis=-1)
    draws = rng.random(probs.shape[:2])[..., None]
    votes = (draws > np.cumsum(probs, axis=-1)).sum(axis=-1).astype(np.int8)
    votes[rng.random(votes.shape) < config.absence_rate] = ABSENT

    countries = tuple(
        Country(f"Country {i + 1:03d}", "", f"C{i + 1:02d}") for i in range(len(blocs))
    )
    data = RollCallData(
        countries, roll_calls, votes, source=f"synthetic assembly (seed {config.seed})"
    )
    return SyntheticAssembly(data, config, blocs, theta, feature_map)


def _planted_weights(
    config: SyntheticConfig, blocs: np.ndarray, n_content: int, n_obs: int,
    rng: np.random.Generator,
) -> np.ndarray:  # fmt: skip
    """Bloc centre + country deviation on [bias, content]; zero on history; centred over actions."""
    width = 1 + n_content
    centres = rng.normal(0.0, config.bloc_scale, size=(config.n_blocs, 3, width))
    centres[:, :, 0] *= 0.5  # blocs differ in their base rates less than in their content
    centres[:, Vote.YES, 0] += config.yes_bias
    centres[:, Vote.ABSTAIN, 0] += config.yes_bias / 6
    theta = np.zeros((len(blocs), 3, 1 + n_obs))
    deviation = rng.normal(0.0, config.country_scale, size=(len(blocs), 3, width))
    theta[:, :, :width] = centres[blocs] + deviation
    return theta - theta.mean(axis=1, keepdims=True)


def _roll_calls(config: SyntheticConfig, rng: np.random.Generator) -> pd.DataFrame:
    """Roll calls drawn from recurring themes, in the :data:`ROLL_CALL_COLUMNS` layout."""
    vocabulary = _pseudo_words(rng, 12 * config.n_themes)
    themes: list[dict[str, Any]] = []  # issues (set), words (list), title (str)
    for t in range(config.n_themes):
        n_issues = rng.choice([0, 1, 1, 2])
        themes.append(
            {
                "issues": set(rng.choice(len(ISSUE_CODES), size=n_issues, replace=False)),
                "words": list(vocabulary[12 * t : 12 * t + 12]),
                "title": " ".join(vocabulary[12 * t : 12 * t + 2]).upper(),
            }
        )
    popularity = rng.dirichlet(np.full(config.n_themes, 0.7))
    rows = []
    for session in range(1, config.n_sessions + 1):
        year = config.first_year + session - 1
        days = np.sort(rng.integers(0, 100, size=config.roll_calls_per_session))
        for k, day in enumerate(days):
            theme = themes[rng.choice(config.n_themes, p=popularity)]
            words = rng.choice(theme["words"], size=6, replace=False).tolist()
            words += rng.choice(_BOILERPLATE, size=2).tolist()
            row = {
                "rcid": session * 1000 + k,
                "session": session,
                "date": pd.Timestamp(year, 9, 15) + pd.Timedelta(days=int(day)),
                "symbol": f"A/RES/{session}/{k + 1}",
                "important": float(rng.random() < 0.1),
                "amend": float(rng.random() < 0.1),
                "para": float(rng.random() < 0.1),
                "short": theme["title"],
                "descr": " ".join(words).upper(),
            }
            for i, code in enumerate(ISSUE_CODES):
                row[f"issue_{code}"] = i in theme["issues"]
            rows.append(row)
    return pd.DataFrame(rows)


def _pseudo_words(rng: np.random.Generator, n: int) -> list[str]:
    """N distinct pronounceable made-up words (so no stop word or real term collides)."""
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < n:
        word = "".join(rng.choice(_SYLLABLES, size=rng.integers(3, 5)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words
