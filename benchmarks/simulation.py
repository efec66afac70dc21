"""Sessions played by learned rewards: every country votes by its soft-optimal policy at once.

Policies, voters and the batched seeded draws: docs/simulation.md, "How a session is played".
:class:`Interventions` change the game before it is played, with the same draws, so a
baseline and an intervened run of one seed are paired.

Example:
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> from assembly_gym.irl.rollcall import fit_reward_model
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3)).data
    >>> model = fit_reward_model(data.select_sessions(1, 2))
    >>> session = data.select_sessions(3, 3).roll_calls
    >>> played = simulate(model, session, seed=0)
    >>> played.votes.shape, played.tallies.shape
    ((4, 40), (40, 3))
    >>> everyone_no = Interventions(force=(("all", "no"),))
    >>> forced = simulate(model, session, seed=0, interventions=everyone_no)
    >>> bool(forced.adopted.any())
    False
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, ADOPTION, ISSUE_CODES, Vote
from assembly_gym.irl.base import RewardModel

__all__ = [
    "GROUPS",
    "SETTABLE",
    "VOTE_NAMES",
    "Interventions",
    "Simulation",
    "check_interventions",
    "check_settings",
    "count_votes",
    "majority_play",
    "members",
    "resolve_group",
    "set_roll_call_features",
    "simulate",
    "yes_shares",
]

VOTE_NAMES = tuple(v.name.lower() for v in Vote)
"""Action names, in action-index order: yes, no, abstain."""

GROUPS = {
    "P5": ("China", "France", "Russia", "United Kingdom", "United States"),
}
"""Named groups of countries for :attr:`Interventions.force`; ``all`` names every voter."""

SETTABLE = ("issue", "important", "amend", "para")
"""Roll-call attributes an intervention may set: ``issue`` takes an issue code (or ``none``),
the flags take 0 or 1."""


@dataclass(frozen=True)
class Interventions:
    """What a counterfactual changes; composable (all apply together).

    Attributes:
        replace_reward: (A, B) pairs: country A acts by B's learned reward, reading B's view
            of each roll call (the learned reward reads the voter's own record, so A votes
            as B would, with its own draws).
        force: (who, vote) pairs: ``who`` is ``all``, a name of :data:`GROUPS`, or countries
            joined by ``+``; every one of them always votes ``vote`` (yes, no or abstain).
            Applied after ``replace_reward``.
        set_features: (attribute, value) pairs of :data:`SETTABLE`, set on every simulated
            roll call before the countries see it.
    """

    replace_reward: tuple[tuple[str, str], ...] = ()
    force: tuple[tuple[str, str], ...] = ()
    set_features: tuple[tuple[str, str], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.replace_reward or self.force or self.set_features)

    def describe(self) -> str:
        """The command-line flags that make these interventions (quoted for a shell)."""
        flags = [("--replace-reward", f"{a}={b}") for a, b in self.replace_reward]
        flags += [("--force", f"{who}={vote}") for who, vote in self.force]
        flags += [("--set", f"{name}={value}") for name, value in self.set_features]
        return " ".join(f"{flag} {shlex.quote(value)}" for flag, value in flags)


@dataclass(frozen=True)
class Simulation:
    """One play of some roll calls by some countries.

    Attributes:
        countries: the voters, shape (C,).
        roll_calls: the roll calls played (attributes as seen, interventions applied), R rows.
        probs: each voter's policy on each roll call, shape (C, R, 3), float64.
        votes: the votes drawn, shape (C, R), int8 :class:`Vote` values.
        seed: the seed of the draws.
        decision_seconds: time of the batched step (draws and tallies), seconds.
        policy_seconds: time to compute the policies (features and softmax), seconds.
    """

    countries: tuple[str, ...]
    roll_calls: pd.DataFrame = field(repr=False)
    probs: np.ndarray = field(repr=False)
    votes: np.ndarray = field(repr=False)
    seed: int
    decision_seconds: float = 0.0
    policy_seconds: float = 0.0

    @property
    def tallies(self) -> np.ndarray:
        """Votes per roll call and action, shape (R, 3)."""
        return count_votes(self.votes)

    @property
    def yes_share(self) -> np.ndarray:
        """Share of yes among the votes cast, per roll call, shape (R,)."""
        return yes_shares(self.tallies)

    @property
    def adopted(self) -> np.ndarray:
        """Whether each roll call passes (:data:`ADOPTION`: yes > no), shape (R,) bool."""
        return ADOPTION(self.votes.T)

    @property
    def decisions_per_second(self) -> float:
        """Agent decisions (countries × roll calls) per second of the batched step."""
        return self.votes.size / max(self.decision_seconds, 1e-9)


def members(model: RewardModel) -> tuple[str, ...]:
    """The model's countries that voted in the last session of its training history.

    Raises:
        DataError: the model carries no training history.
    """
    history = model.require_history()
    last = history.roll_calls["session"].to_numpy() == history.sessions[-1]
    voted = {
        name
        for name, row in zip(history.country_names, history.votes[:, last], strict=True)
        if (row != ABSENT).any()
    }
    return tuple(c for c in model.countries if c in voted)


def simulate(
    model: RewardModel,
    roll_calls: pd.DataFrame,
    *,
    seed: int = 0,
    interventions: Interventions = Interventions(),
    countries: tuple[str, ...] | None = None,
) -> Simulation:
    """Every voter draws its vote on every roll call from its learned policy.

    Args:
        model: learned rewards with their training history.
        roll_calls: the roll calls to play: attributes only (the layout of
            :func:`~assembly_gym.envs.legislative.data.unvotes.load_roll_call_attributes`); no vote.
        seed: seed of the draws (same seed and shape: same uniform numbers).
        interventions: what to change before playing.
        countries: the voters (default: :func:`members`).

    Raises:
        DataError: an unknown country or group, a bad setting, no history, no roll call.
    """
    if len(roll_calls) == 0:
        raise DataError("roll calls", "no roll call to simulate")
    voters = members(model) if countries is None else tuple(countries)
    rows = [model.country_index(c) for c in voters]
    roll_calls = set_roll_call_features(roll_calls, interventions.set_features)
    start = time.perf_counter()
    probs = model.policy(roll_calls)[rows]
    probs = _intervene(probs, model, voters, interventions)
    policy_seconds = time.perf_counter() - start
    start = time.perf_counter()
    votes = _draw(probs, np.random.default_rng(seed))
    count_votes(votes)  # the step ends with the tallies every outcome is read from
    decision_seconds = time.perf_counter() - start
    return Simulation(voters, roll_calls, probs, votes, seed, decision_seconds, policy_seconds)


def majority_play(
    model: RewardModel, roll_calls: pd.DataFrame, countries: tuple[str, ...]
) -> Simulation:
    """Each voter always plays its most frequent vote in the model's training history.

    Its ``probs`` are the voter's historical vote frequencies with one pseudo-vote per action
    (so a vote never cast in training scores a finite log-loss); the most likely action of
    those is the majority it plays. Ties go to the earlier action (yes, then no).
    """
    history = model.require_history()
    counts = np.zeros((len(countries), len(Vote)))
    for i, country in enumerate(countries):
        votes = history.votes[history.country_index(country)]
        counts[i] = np.bincount(votes[votes != ABSENT], minlength=len(Vote))
    frequencies = (counts + 1.0) / (counts + 1.0).sum(axis=1, keepdims=True)
    probs = np.repeat(frequencies[:, None, :], len(roll_calls), axis=1)
    votes = np.repeat(counts.argmax(axis=1)[:, None], len(roll_calls), axis=1).astype(np.int8)
    return Simulation(tuple(countries), roll_calls, probs, votes, seed=0)


def set_roll_call_features(
    roll_calls: pd.DataFrame, settings: tuple[tuple[str, str], ...]
) -> pd.DataFrame:
    """A copy of ``roll_calls`` with attributes set on every row (``roll_calls`` if none).

    ``("issue", code)`` makes ``code`` the only issue code (``"none"``: no code);
    ``("important" | "amend" | "para", "0" | "1")`` sets the flag.

    Raises:
        DataError: an attribute outside :data:`SETTABLE` or a value it does not take.
    """
    if not settings:
        return roll_calls
    table = roll_calls.copy()
    for name, value in settings:
        if name == "issue":
            if value not in (*ISSUE_CODES, "none"):
                raise DataError(
                    "--set", f"issue={value!r}: expected one of {[*ISSUE_CODES, 'none']}"
                )
            for code in ISSUE_CODES:
                table[f"issue_{code}"] = code == value
        elif name in SETTABLE:
            if value not in ("0", "1"):
                raise DataError("--set", f"{name}={value!r}: expected 0 or 1")
            table[name] = float(value)
        else:
            raise DataError("--set", f"unknown attribute {name!r}; expected one of {SETTABLE}")
    return table


def resolve_group(model: RewardModel, who: str, voters: tuple[str, ...]) -> tuple[str, ...]:
    """The voters that ``who`` names: ``all``, a :data:`GROUPS` name, or ``A+B+…``.

    Raises:
        DataError: a country the model does not know, or one that is not among the voters.
    """
    if who == "all":
        return voters
    return tuple(_voter(model, name, voters) for name in GROUPS.get(who, who.split("+")))


def check_interventions(
    model: RewardModel, interventions: Interventions, voters: tuple[str, ...]
) -> None:
    """Raise the error an intervention would meet, before anything is computed.

    Raises:
        DataError: an unknown country, group, vote or attribute.
    """
    for a, b in interventions.replace_reward:
        _voter(model, a, voters), _voter(model, b, voters)
    for who, vote in interventions.force:
        resolve_group(model, who, voters)
        if vote not in VOTE_NAMES:
            raise DataError("--force", f"{who}={vote}: expected a vote in {list(VOTE_NAMES)}")
    check_settings(interventions.set_features)


def check_settings(settings: tuple[tuple[str, str], ...]) -> None:
    """Raise the error :func:`set_roll_call_features` would meet on these settings.

    Raises:
        DataError: an attribute outside :data:`SETTABLE` or a value it does not take.
    """
    blank = {f"issue_{c}": [False] for c in ISSUE_CODES} | {n: [0.0] for n in SETTABLE[1:]}
    set_roll_call_features(pd.DataFrame(blank), settings)


def _voter(model: RewardModel, name: str, voters: tuple[str, ...]) -> str:
    """The canonical name of a voter (name, alias or ISO code).

    Raises:
        DataError: a country the model does not know, or one that is not among the voters.
    """
    found = model.countries[model.country_index(name.strip())]
    if found not in voters:
        raise DataError(
            "reward model",
            f"{found!r} is not among the simulated voters (the countries that voted in the "
            "model's last training session)",
            field="country",
        )
    return found


def _intervene(
    probs: np.ndarray, model: RewardModel, voters: tuple[str, ...], interventions: Interventions
) -> np.ndarray:
    """Policies (C, R, 3) after reward replacements, then forced votes."""
    if not (interventions.replace_reward or interventions.force):
        return probs
    index = {name: i for i, name in enumerate(voters)}
    changed = probs.copy()
    for a, b in interventions.replace_reward:
        changed[index[_voter(model, a, voters)]] = probs[index[_voter(model, b, voters)]]
    for who, vote in interventions.force:
        rows = [index[name] for name in resolve_group(model, who, voters)]
        changed[rows] = np.eye(len(Vote))[VOTE_NAMES.index(vote)]
    return changed


def _draw(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One vote per (country, roll call) by inverting the cumulative policy: (C, R) int8."""
    uniform = rng.random(probs.shape[:2])
    edges = np.cumsum(probs, axis=-1)[..., :-1]
    return (uniform[..., None] >= edges).sum(axis=-1).astype(np.int8)


def count_votes(votes: np.ndarray) -> np.ndarray:
    """Tallies: votes (C, R) (:data:`ABSENT` allowed) → counts of yes, no, abstain (R, 3)."""
    return np.stack([(votes == v).sum(axis=0) for v in Vote], axis=1)


def yes_shares(tallies: np.ndarray) -> np.ndarray:
    """Share of yes among the votes cast: tallies (R, 3) → (R,); 0 where none was cast."""
    return tallies[:, Vote.YES] / np.maximum(tallies.sum(axis=1), 1)
