"""What a country sees of a roll call before it votes: the observation, a name per dimension.

Observations of ``RollCall-v0`` (and the roll-call part of ``Deliberation-v0``, before its
stage state) are rows of :class:`RollCallFeatures`. Every value lies in [0, 1]:

====================  =====================================================================
name                  meaning
====================  =====================================================================
issue_me … issue_ec   Voeten issue codes of the roll call (0/1)
important             US State Department "important vote" (0 when not coded)
amend, para           vote on an amendment / on a paragraph (0 when not coded)
year                  (year − 1945) / 100, clipped to [0, 1]
progress              position of the roll call within its session, 0 … 1
text_00 … text_NN     (``FeatureConfig(text="hashed")``, the default) hashed bag of words of
                      the short and long description (L2-normalised); unreadable buckets
topic: w1 · w2 · w3   (``FeatureConfig(text="topics")``, instead of ``text_*``) the roll
                      call's weight on each of ``text_dims`` topics (:class:`TextTopics`),
                      each named by its three top words (L2-normalised over the topics); a
                      name shared by two topics gets " (2)", one with no word is "topic: (none)"
similar_yes/no/abst.  the country's votes on the most similar earlier roll calls (text
                      cosine similarity), weighted by similarity ** sharpness
similar_coverage      share of that weight on roll calls where the country voted
similar_top           cosine similarity of the most similar earlier roll call
consensus_yes/no      share of all countries voting yes / no on those similar roll calls
past_yes/no/abstain   the country's vote shares over all earlier roll calls
issue_yes/no/abst.    the country's vote shares on earlier roll calls of the same issues
log_<share>           (only with ``FeatureConfig(log_shares=True)``) each vote share p of
                      the similar/consensus/past/issue rows on a log scale,
                      ln((p + 0.01) / 0.01) / ln(101): 0 at p = 0, 1 at p = 1, so that a
                      linear logit can weigh shares multiplicatively (p^β)
agree_<reference>     (only with ``FeatureConfig(relations=True)``) how often the country
                      voted as the reference did on the similar earlier roll calls where
                      both voted (same neighbours and weights as similar_*); without such a
                      neighbour, its agreement with the reference over all earlier roll
                      calls, shrunk toward all countries' agreement with it (½ when
                      nothing is known). References (``FeatureConfig.references``):
                      agree_united_states, agree_russia (the USSR's seat until 1991),
                      agree_china (the PRC, from session 26), agree_india (a Non-Aligned
                      leader)
agree_majority        (with ``relations=True``) the same with the plurality vote of all
                      countries as the reference: how often the country sided with the
                      assembly's majority on similar items
allies_yes/no/abst.   (only with ``FeatureConfig(allies=k)``, k ≥ 1) how the country's k
                      closest allies voted on the similar earlier roll calls (same
                      neighbours and weights as similar_*). Allies are the countries that
                      voted most often as it did in the sessions before the target, each
                      session's agreement weighted by 2 ** (−age / 1 session), and each ally
                      weighted by its agreement rate ** 8 (both chosen on validation
                      sessions). Without an ally vote on a neighbour: its similar_* shares;
                      with ``log_shares``, also ``log_allies_*``
lineage_yes/no/abst.  (only with ``FeatureConfig(lineage=True)``) the country's vote on the
                      roll call's lineage (one-hot; :mod:`~assembly_gym.envs.legislative.lineage`);
                      lineage_absent: it did not vote on it; lineage_none: the roll call has
                      no lineage; lineage_age: sessions since the lineage / 10, clipped to [0, 1]
====================  =====================================================================

"Earlier" means *strictly earlier sessions* of a history of votes. Inside one data set the
history is the data itself; for a forecast it is the training data, so a held-out session
is described exactly as it would be before any of its votes were cast. Topics read texts,
never votes: they are fitted once on the history's texts (a history's own roll calls are
described with topics their texts helped shape), and roll calls later than the history
never shape them, so their names depend on the history: read them from
:attr:`RollCallFeatures.names` (or :func:`feature_names` with ``history=``).

The reward feature maps φ(s, a) over these observations are in
:mod:`assembly_gym.envs.legislative.phi`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.linalg import cholesky, solve_triangular
from scipy.optimize import nnls
from sklearn.decomposition import NMF
from sklearn.feature_extraction.text import (
    ENGLISH_STOP_WORDS,
    CountVectorizer,
    HashingVectorizer,
    TfidfVectorizer,
)
from sklearn.preprocessing import normalize

from assembly_gym.core.backoff import smoothed
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, ISSUE_CODES, RollCallData, Vote
from assembly_gym.envs.legislative.lineage import latest_lineage

__all__ = [
    "CONTENT_NAMES",
    "FeatureConfig",
    "HISTORY_NAMES",
    "LOG_SHARE_NAMES",
    "REFERENCES",
    "RollCallFeatures",
    "TextTopics",
    "content_features",
    "content_names",
    "feature_names",
    "fit_topics",
    "LINEAGE_NAMES",
    "ally_names",
    "relation_names",
    "roll_call_text",
]

HISTORY_NAMES = (
    "similar_yes", "similar_no", "similar_abstain", "similar_coverage", "similar_top",
    "consensus_yes", "consensus_no", "past_yes", "past_no", "past_abstain",
    "issue_yes", "issue_no", "issue_abstain",
)  # fmt: skip
_BASE_CONTENT = (*(f"issue_{c}" for c in ISSUE_CODES), "important", "amend", "para", "year",
                 "progress")  # fmt: skip
_SHARE_NAMES = (
    "similar_yes", "similar_no", "similar_abstain", "consensus_yes", "consensus_no",
    "past_yes", "past_no", "past_abstain", "issue_yes", "issue_no", "issue_abstain",
)  # fmt: skip
LOG_SHARE_NAMES = tuple(f"log_{name}" for name in _SHARE_NAMES)
LINEAGE_NAMES = ("lineage_yes", "lineage_no", "lineage_abstain", "lineage_absent",
                 "lineage_none", "lineage_age")  # fmt: skip
_SHARE_COLUMNS = [HISTORY_NAMES.index(name) for name in _SHARE_NAMES]
_LOG_FLOOR = 0.01  # log_p = ln((p + floor) / floor) / ln((1 + floor) / floor)
_N_ISSUE_KEYS = len(ISSUE_CODES) + 1  # the six issues and "no issue code"
_UNIFORM = np.full(len(Vote), 1.0 / len(Vote))  # shares before any vote is counted
REFERENCES = ("United States", "Russia", "China", "India")  # agree_* reference countries
_TOPIC_WORDS = 3  # words in a topic's name
_ALLY_HALF_LIFE = 1.0  # sessions after which an ally's earlier agreement counts half
_ALLY_POWER = 8.0  # an ally's weight: its (smoothed) agreement rate ** power
# Procedural words of the roll-call descriptions, which name no subject.
_PROCEDURE_WORDS = frozenset(
    "add adopt adopted adopting agenda amend amended amendment amendments assembly comm comte "
    "draft general item nations op operative para paragraph paragraphs pream preambular "
    "president recorded report req requested res resol resolution resolutions rev said "
    "section separate shall syg text united vote votes voting".split()
)


def _slug(name: str) -> str:
    """``"United States"`` → ``"united_states"``."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


@dataclass(frozen=True)
class FeatureConfig:
    """Settings of the roll-call feature map.

    The neighbour defaults (``half_life``, ``candidates``, ``neighbours``, ``sharpness``)
    were chosen on a validation split of the real votes (history up to session 55, scored
    on sessions 56–60), never on the benchmark's test sessions (61–69).

    Attributes:
        text_dims: hashed bag-of-words dimensions.
        neighbours: how many similar earlier roll calls describe a country's history.
        sharpness: neighbour weight = cosine similarity ** sharpness (higher: nearer to top-1).
        half_life: sessions after which an earlier vote weighs half as much (None: no decay).
        candidates: the most similar earlier roll calls among which the neighbours are chosen.
        prior_strength: pseudo-votes pulling sparse vote shares toward the broader share.
        log_shares: also give every vote share on a log scale (``log_*`` names), which a
            linear logit over the features (MaxEnt IRL, logistic regression) can use.
        text: how the text is described: "hashed" (``text_dims`` hashed word buckets) or
            "topics" (``text_dims`` NMF topics of the history's texts, named by their words).
        relations: also give the country's agreement with each reference and with the
            majority on similar earlier roll calls (``agree_*`` names).
        references: the reference countries of the ``agree_*`` features (names as in the
            data; one absent from the history gives the all-countries fallback).
        allies: how many closest allies describe the ``allies_*`` features (0: none).
        lineage: also give the country's vote on the roll call's lineage (``lineage_*``).
    """

    text_dims: int = 32
    neighbours: int = 10
    sharpness: float = 4.0
    half_life: float | None = 1.0
    candidates: int = 50
    prior_strength: float = 2.0
    log_shares: bool = False
    text: Literal["hashed", "topics"] = "hashed"
    relations: bool = False
    references: tuple[str, ...] = REFERENCES
    allies: int = 0
    lineage: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "references", tuple(self.references))  # a list from JSON
        if self.text not in ("hashed", "topics"):
            raise ValueError(f"text must be 'hashed' or 'topics', got {self.text!r}")
        slugs = [_slug(name) for name in self.references]
        if not all(slugs) or len({*slugs, "majority"}) != len(slugs) + 1:
            raise ValueError(
                f"references must have distinct names other than 'majority', got {self.references}"
            )
        if self.text_dims < 1 or self.neighbours < 1:
            raise ValueError(
                f"text_dims and neighbours must be ≥ 1, got {self.text_dims}, {self.neighbours}"
            )
        if self.sharpness < 0 or self.prior_strength <= 0:
            raise ValueError("sharpness must be ≥ 0 and prior_strength > 0")
        if self.candidates < self.neighbours:
            raise ValueError(
                f"candidates ({self.candidates}) must be ≥ neighbours ({self.neighbours})"
            )
        if self.half_life is not None and self.half_life <= 0:
            raise ValueError(f"half_life must be > 0 or None, got {self.half_life}")
        if self.allies < 0:
            raise ValueError(f"allies must be ≥ 0, got {self.allies}")


def content_names(
    config: FeatureConfig = FeatureConfig(), history: RollCallData | None = None
) -> tuple[str, ...]:
    """Names of the country-independent (content) dimensions, in order.

    Args:
        config: feature settings.
        history: the votes the features are described by; needed for ``text="topics"``,
            whose names are the words of the topics fitted on its texts.

    Raises:
        ValueError: ``text="topics"`` without a history.
    """
    if config.text == "hashed":
        return (*_BASE_CONTENT, *(f"text_{i:02d}" for i in range(config.text_dims)))
    if history is None:
        raise ValueError(
            "topic names are the words of the topics fitted on a history: pass history= "
            "or read RollCallFeatures(...).names"
        )
    return (*_BASE_CONTENT, *fit_topics(history.roll_calls, config.text_dims).names)


def relation_names(config: FeatureConfig = FeatureConfig()) -> tuple[str, ...]:
    """Names of the ``agree_*`` dimensions (empty unless ``config.relations``), in order."""
    if not config.relations:
        return ()
    return (*(f"agree_{_slug(name)}" for name in config.references), "agree_majority")


def ally_names(config: FeatureConfig = FeatureConfig()) -> tuple[str, ...]:
    """Names of the ``allies_*`` dimensions (and ``log_allies_*`` with ``log_shares``), in order.

    Empty unless ``config.allies`` ≥ 1.
    """
    if not config.allies:
        return ()
    names = tuple(f"allies_{v.name.lower()}" for v in Vote)
    return (*names, *(f"log_{name}" for name in names)) if config.log_shares else names


def feature_names(
    config: FeatureConfig = FeatureConfig(), history: RollCallData | None = None
) -> tuple[str, ...]:
    """Names of all observation dimensions, in order.

    Content, history, log shares, relations, allies, lineage.

    Raises:
        ValueError: ``text="topics"`` without a history (see :func:`content_names`).
    """
    extra = LOG_SHARE_NAMES if config.log_shares else ()
    lineage = LINEAGE_NAMES if config.lineage else ()
    return (*content_names(config, history), *HISTORY_NAMES, *extra, *relation_names(config),
            *ally_names(config), *lineage)  # fmt: skip


CONTENT_NAMES = content_names()


def _sublinear(counts: sparse.csr_matrix) -> sparse.csr_matrix:
    """1 + log(count) for the non-zero term counts (sublinear term frequency)."""
    counts = sparse.csr_matrix(counts, dtype=np.float32)
    counts.data = 1.0 + np.log(counts.data)
    return counts


def roll_call_text(roll_calls: pd.DataFrame) -> list[str]:
    """The text that describes each roll call: short title and description."""
    return (roll_calls["short"].fillna("") + " . " + roll_calls["descr"].fillna("")).tolist()


class TextTopics:
    """Topics of roll-call texts: an NMF of TF-IDF word counts, each topic named by its words.

    Fit with :func:`fit_topics`. Words are lower-case runs of two or more letters that are
    neither English stop words nor procedural words ("adopt", "draft", "paragraph", …) and
    appear in at least two texts; term counts are sublinear (1 + log count). The NMF starts
    from NNDSVDA with seed 0, so the same texts give the same topics.

    Attributes:
        names: ``"topic: w1 · w2 · w3"`` per topic (k), unique.
        words: the ten top words of each topic, by weight (k tuples; empty: a void topic).
    """

    def __init__(
        self,
        vectorizer: TfidfVectorizer | None,
        components: np.ndarray,
        words: tuple[tuple[str, ...], ...],
    ) -> None:
        self._vectorizer = vectorizer
        self._components = components  # (k, vocabulary), non-negative
        self.words = words
        names: list[str] = []
        for top in words:
            name = "topic: " + (" · ".join(top[:_TOPIC_WORDS]) if top else "(none)")
            copies = sum(1 for n in names if n == name or n.startswith(name + " ("))
            names.append(f"{name} ({copies + 1})" if copies else name)
        self.names = tuple(names)

    def transform(self, roll_calls: pd.DataFrame) -> np.ndarray:
        """Topic weights of roll calls, shape (R, k), float64 in [0, 1], rows L2-normalised.

        Each roll call's weights are the non-negative least squares fit of its TF-IDF
        vector by the topics, solved row by row: a roll call's weights do not depend on
        which other roll calls are described with it. A text with no known word is all 0.
        """
        k = len(self.names)
        if self._vectorizer is None:
            return np.zeros((len(roll_calls), k))
        counts = self._vectorizer.transform(roll_call_text(roll_calls))
        gram = self._components @ self._components.T  # (k, k)
        # min ||x − w H||² = min ||Lᵀ w − L⁻¹ H x||² with L Lᵀ = H Hᵀ (+ a ridge for void topics)
        lower = cholesky(gram + 1e-10 * max(np.trace(gram), 1.0) * np.eye(k), lower=True)
        targets = solve_triangular(lower, (counts @ self._components.T).T, lower=True).T
        weights = np.stack([nnls(lower.T, target)[0] for target in targets]) if k else targets
        return normalize(weights.reshape(len(roll_calls), k))


def fit_topics(roll_calls: pd.DataFrame, n_topics: int) -> TextTopics:
    """:class:`TextTopics` fitted on the texts of ``roll_calls`` (cached for the same texts).

    Args:
        roll_calls: the roll calls whose texts shape the topics (a history's).
        n_topics: how many topics (k); topics beyond what the texts support are void.
    """
    return _fitted_topics(tuple(roll_call_text(roll_calls)), n_topics)


@lru_cache(maxsize=4)
def _fitted_topics(texts: tuple[str, ...], n_topics: int) -> TextTopics:
    """:func:`fit_topics` on the texts themselves (hashable, for the cache)."""
    vectorizer = TfidfVectorizer(
        stop_words=sorted(ENGLISH_STOP_WORDS | _PROCEDURE_WORDS), min_df=2,
        sublinear_tf=True, token_pattern=r"(?u)\b[^\W\d_]{2,}\b",
    )  # fmt: skip
    try:
        counts = vectorizer.fit_transform(texts)
    except ValueError:  # no word appears twice
        return TextTopics(None, np.zeros((n_topics, 0)), ((),) * n_topics)
    fitted = min(n_topics, *counts.shape)
    nmf = NMF(fitted, init="nndsvda", random_state=0, max_iter=500)
    components = np.zeros((n_topics, counts.shape[1]))
    components[:fitted] = nmf.fit(counts).components_
    vocabulary = vectorizer.get_feature_names_out()
    words = tuple(
        tuple(vocabulary[j] for j in np.argsort(-row, kind="stable")[:10] if row[j] > 0)
        for row in components
    )
    return TextTopics(vectorizer, components, words)


def _log_share(shares: np.ndarray) -> np.ndarray:
    """Shares in [0, 1] on the log scale of ``log_*`` features, in [0, 1], same shape."""
    return (np.log1p(shares / _LOG_FLOOR) / np.log1p(1.0 / _LOG_FLOOR)).clip(0.0, 1.0)


class RollCallFeatures:
    """Features of a fixed set of target roll calls, for any country, given a vote history.

    Args:
        roll_calls: the target roll calls (a :class:`RollCallData` ``roll_calls`` table).
        history: votes known before the targets; only its sessions strictly earlier than a
            target's session describe that target.
        config: feature settings.

    Example:
        >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
        >>> data = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=3)).data
        >>> feats = RollCallFeatures(data.roll_calls, history=data)
        >>> feats.for_country(data.country_names[0]).shape == (data.n_roll_calls, len(feats.names))
        True
    """

    def __init__(
        self,
        roll_calls: pd.DataFrame,
        history: RollCallData,
        config: FeatureConfig = FeatureConfig(),
    ) -> None:
        self.config = config
        self.history = history
        self.names = feature_names(config, history)
        self.n_content = len(content_names(config, history))
        self.sessions = roll_calls["session"].to_numpy(dtype=np.int64)
        self.content = content_features(roll_calls, config, history)
        self._issue_keys = _issue_keys(roll_calls)
        self._neighbours, self._weights, self._top = self._find_neighbours(roll_calls)
        self._before = np.searchsorted(history.sessions, self.sessions, side="left")
        self._history_sessions = np.searchsorted(
            history.sessions, history.roll_calls["session"].to_numpy()
        )
        self._history_issue_keys = _issue_keys(history.roll_calls)
        self._consensus = self._consensus_shares()
        # All countries' shares over strictly earlier sessions (not the whole history, which
        # would leak the target's own and later sessions into its features).
        self._prior = smoothed(self._counts_before(history.votes), _UNIFORM, 1.0)
        if config.relations:
            self._references = self._reference_votes()
            agreed, both = self._agreement(history.votes)
            self._agreement_prior = (agreed + config.prior_strength * 0.5) / (
                both + config.prior_strength
            )  # all countries' agreement with each reference, shrunk toward ½, (R, n_ref)
        if config.allies:
            self._ally_decay = self._session_decay()
        if config.lineage:
            self._lineage = latest_lineage(roll_calls, history.roll_calls)  # (R,), −1: none

    @property
    def n_roll_calls(self) -> int:
        """Number of target roll calls."""
        return len(self.sessions)

    def for_country(self, country: str) -> np.ndarray:
        """Observation rows of one country for every target roll call, shape (R, d), float32.

        A country without history (a new member, or one the history lacks) gets the
        all-countries shares of the earlier sessions as its past and zero similar-vote coverage.
        """
        row: int | None
        try:
            row = self.history.country_index(country)
        except DataError:
            row, votes = None, np.full(self.history.n_roll_calls, ABSENT, dtype=np.int8)
        else:
            votes = self.history.votes[row]
        history = self._history_features(votes, row)
        return np.concatenate([self.content, history], axis=1).astype(np.float32)

    def for_countries(self, countries: Sequence[str]) -> np.ndarray:
        """Stacked :meth:`for_country`, shape (n_countries, R, d), float32."""
        return np.stack([self.for_country(c) for c in countries])

    # ----------------------------------------------------------------------------------

    def _find_neighbours(
        self, roll_calls: pd.DataFrame
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The k history roll calls of strictly earlier sessions that best describe each target.

        Similarity is the cosine of TF-IDF vectors (sublinear term counts of words and word
        pairs) whose IDF counts only the history's roll calls of sessions before the
        target's, so no later text informs a target. Among the ``candidates`` most similar,
        the k with the largest weight similarity ** sharpness × 2 ** (−(age − 1) / half_life)
        are kept, age in sessions: the latest version of a recurring resolution counts most.

        Returns indices (R, k) into the history, weights (R, k) (0 where no candidate) and
        the top cosine similarity (R,).
        """
        config = self.config
        n_targets, n_pool = len(roll_calls), self.history.n_roll_calls
        index = np.zeros((n_targets, config.neighbours), dtype=np.int64)
        weight = np.zeros((n_targets, config.neighbours), dtype=np.float64)
        top = np.zeros(n_targets, dtype=np.float64)
        if n_pool == 0 or n_targets == 0:
            return index, weight, top
        counter = CountVectorizer(ngram_range=(1, 2), stop_words="english", dtype=np.float32)
        try:
            counter.fit(roll_call_text(self.history.roll_calls) + roll_call_text(roll_calls))
        except ValueError:  # no words at all
            return index, weight, top
        pool = _sublinear(counter.transform(roll_call_text(self.history.roll_calls)))
        targets = _sublinear(counter.transform(roll_call_text(roll_calls)))
        pool_sessions = self.history.roll_calls["session"].to_numpy()  # sorted: time order
        present = (pool > 0).astype(np.float32)
        for session in np.unique(self.sessions):
            n_before = int(np.searchsorted(pool_sessions, session, side="left"))
            if n_before == 0:
                continue
            rows = np.flatnonzero(self.sessions == session)
            document_frequency = np.asarray(present[:n_before].sum(axis=0)).ravel()
            idf = np.where(
                document_frequency > 0,
                np.log((1.0 + n_before) / (1.0 + document_frequency)) + 1.0,
                0.0,  # a word no earlier roll call used says nothing about similarity
            ).astype(np.float32)
            scale = sparse.diags(idf)
            similarity = (
                normalize(targets[rows] @ scale) @ normalize(pool[:n_before] @ scale).T
            ).toarray()
            age = session - pool_sessions[:n_before]
            self._keep_best(similarity, age, rows, index, weight, top)
        return index, weight, top

    def _keep_best(
        self, similarity: np.ndarray, age: np.ndarray, rows: np.ndarray,
        index: np.ndarray, weight: np.ndarray, top: np.ndarray,
    ) -> None:  # fmt: skip
        """Fill the neighbours of target ``rows`` from their similarities (rows, pool)."""
        config = self.config
        take = min(config.candidates, similarity.shape[1])
        candidates = np.argpartition(-similarity, take - 1, axis=1)[:, :take]
        cosine = np.take_along_axis(similarity, candidates, axis=1)
        top[rows] = np.maximum(cosine.max(axis=1), 0.0)
        decay = (
            1.0 if config.half_life is None else 2.0 ** (-(age[candidates] - 1) / config.half_life)
        )
        score = np.where(cosine > 0, np.maximum(cosine, 0.0) ** config.sharpness * decay, 0.0)
        keep = min(config.neighbours, take)
        best = np.argsort(-score, axis=1, kind="stable")[:, :keep]
        index[rows, :keep] = np.take_along_axis(candidates, best, axis=1)
        weight[rows, :keep] = np.take_along_axis(score, best, axis=1)

    def _consensus_shares(self) -> np.ndarray:
        """Similarity-weighted yes and no shares of all voters on the neighbours, (R, 2)."""
        votes = self.history.votes
        if votes.shape[1] == 0:
            return np.zeros((self.n_roll_calls, 2))
        counts = np.stack([(votes == v).sum(axis=0) for v in Vote], axis=1).astype(float)
        shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
        total = self._weights.sum(axis=1, keepdims=True)
        mixed = np.einsum("rk,rkv->rv", self._weights, shares[self._neighbours][:, :, :2])
        return np.where(total > 0, mixed / np.maximum(total, 1e-300), 0.0)

    def _history_features(self, votes: np.ndarray, row: int | None) -> np.ndarray:
        """History block of one country's observations, shape (R, n_history).

        Args:
            votes: the country's history votes, shape (R_history,).
            row: its row in the history (None: not in it).
        """
        strength = self.config.prior_strength
        past_counts, issue_counts = self._cumulative_counts(votes)
        past = smoothed(past_counts, self._prior, strength)
        issue_total = np.einsum("ri,riv->rv", self._issue_keys, issue_counts)
        issue = smoothed(issue_total, past, strength)

        neighbour_votes = votes[self._neighbours]  # (R, k)
        voted = (neighbour_votes != ABSENT) & (self._weights > 0)
        weight = np.where(voted, self._weights, 0.0)
        total = self._weights.sum(axis=1)
        covered = weight.sum(axis=1)
        similar = np.stack([(weight * (neighbour_votes == v)).sum(axis=1) for v in Vote], axis=1)
        has = covered > 0
        similar = np.where(has[:, None], similar / np.maximum(covered, 1e-300)[:, None], issue)
        coverage = np.where(total > 0, covered / np.maximum(total, 1e-300), 0.0)
        block = np.column_stack([similar, coverage, self._top, self._consensus, past, issue])
        block = block.clip(0.0, 1.0)
        if self.config.log_shares:
            block = np.column_stack([block, _log_share(block[:, _SHARE_COLUMNS])])
        if self.config.relations:
            block = np.column_stack([block, self._relations(votes).clip(0.0, 1.0)])
        if self.config.allies:
            allies = self._allies(votes, row, similar).clip(0.0, 1.0)
            if self.config.log_shares:
                allies = np.column_stack([allies, _log_share(allies)])
            block = np.column_stack([block, allies])
        if self.config.lineage:
            block = np.column_stack([block, self._lineage_block(votes)])
        return block

    def _lineage_block(self, votes: np.ndarray) -> np.ndarray:
        """The ``lineage_*`` block of one country, shape (R, 6)."""
        has = self._lineage >= 0
        vote = np.full(self.n_roll_calls, -2)  # -2: no lineage
        vote[has] = votes[self._lineage[has]]
        onehot = np.stack([vote == v for v in Vote] + [vote == ABSENT, ~has], axis=1)
        lineage_sessions = self.history.roll_calls["session"].to_numpy()[self._lineage[has]]
        age = np.zeros(self.n_roll_calls)
        age[has] = np.clip((self.sessions[has] - lineage_sessions) / 10.0, 0.0, 1.0)
        return np.column_stack([onehot, age])

    def _session_decay(self) -> np.ndarray:
        """Weight of each history session for each target, shape (R, n_history_sessions).

        Sessions strictly before the target's count, the latest of them 1, each earlier one
        halved every ``_ALLY_HALF_LIFE`` sessions; later sessions 0.
        """
        sessions = self.history.sessions.astype(float)
        if len(sessions) == 0:
            return np.zeros((self.n_roll_calls, 0))
        latest = sessions[np.maximum(self._before - 1, 0)]  # (R,)
        earlier = np.arange(len(sessions))[None, :] < self._before[:, None]
        age = latest[:, None] - sessions[None, :]
        return np.where(earlier, 2.0 ** (-age / _ALLY_HALF_LIFE), 0.0)

    def _allies(self, votes: np.ndarray, row: int | None, fallback: np.ndarray) -> np.ndarray:
        """The ``allies_*`` block of one country, shape (R, 3).

        Args:
            votes: the country's history votes, shape (R_history,).
            row: its row in the history, which is never its own ally (None: not in it).
            fallback: its similar_* shares, shape (R, 3), where no ally voted on a neighbour.
        """
        everyone = self.history.votes  # (n, R_h)
        if everyone.shape[1] == 0:
            return fallback
        both = (everyone != ABSENT) & (votes != ABSENT)[None]
        same = (both & (everyone == votes[None])).astype(np.float64)
        starts = np.searchsorted(self._history_sessions, np.arange(len(self.history.sessions)))
        agreed = self._ally_decay @ np.add.reduceat(same, starts, axis=1).T  # (R, n)
        cast = self._ally_decay @ np.add.reduceat(both.astype(np.float64), starts, axis=1).T
        weight = np.where(cast > 0, ((agreed + 1.0) / (cast + 2.0)) ** _ALLY_POWER, 0.0)
        if row is not None:
            weight[:, row] = 0.0
        keep = min(self.config.allies, weight.shape[1])
        allies = np.argpartition(-weight, keep - 1, axis=1)[:, :keep]  # (R, a)
        ally_weight = np.take_along_axis(weight, allies, axis=1)
        ally_votes = everyone[allies[:, :, None], self._neighbours[:, None, :]]  # (R, a, k)
        mass = np.where(
            ally_votes != ABSENT, ally_weight[:, :, None] * self._weights[:, None, :], 0.0
        )
        shares = np.stack([(mass * (ally_votes == v)).sum(axis=(1, 2)) for v in Vote], axis=1)
        total = shares.sum(axis=1, keepdims=True)
        return np.where(total > 0, shares / np.maximum(total, 1e-300), fallback)

    def _reference_votes(self) -> np.ndarray:
        """Votes of each reference, then the plurality vote, on the history, (n_ref + 1, R_h).

        A reference absent from the history, and a roll call nobody voted on, are ABSENT.
        """
        votes = self.history.votes
        rows = []
        for name in self.config.references:
            try:
                rows.append(votes[self.history.country_index(name)])
            except DataError:
                rows.append(np.full(votes.shape[1], ABSENT, dtype=votes.dtype))
        counts = np.stack([(votes == v).sum(axis=0) for v in Vote])  # (3, R_h)
        plurality = np.where(counts.sum(axis=0) > 0, counts.argmax(axis=0), ABSENT)
        return np.stack([*rows, plurality.astype(votes.dtype)])

    def _agreement(self, votes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Agreements of votes (n, R_history) with each reference and votes cast by both.

        Summed over strictly earlier sessions and the n rows, each shape (R, n_ref + 1).
        """
        cast = (votes != ABSENT)[None] & (self._references != ABSENT)[:, None]  # (n_ref, n, R_h)
        agreed = cast & (votes[None] == self._references[:, None])
        return self._sum_before(agreed.sum(axis=1)), self._sum_before(cast.sum(axis=1))

    def _relations(self, votes: np.ndarray) -> np.ndarray:
        """The ``agree_*`` block of one country, shape (R, n_ref + 1).

        Similarity-weighted agreement on the neighbours both voted on; without one, the
        country's agreement over all earlier sessions shrunk toward all countries'.
        """
        agreed, both = self._agreement(votes[None])
        overall = (agreed + self.config.prior_strength * self._agreement_prior) / (
            both + self.config.prior_strength
        )
        mine = votes[self._neighbours]  # (R, k)
        theirs = self._references[:, self._neighbours]  # (n_ref, R, k)
        weight = np.where((mine != ABSENT) & (theirs != ABSENT), self._weights, 0.0)
        covered = weight.sum(axis=2).T  # (R, n_ref)
        similar = (weight * (mine == theirs)).sum(axis=2).T
        return np.where(covered > 0, similar / np.maximum(covered, 1e-300), overall)

    def _sum_before(self, values: np.ndarray) -> np.ndarray:
        """History values (m, R_history) summed over the sessions before each target, (R, m)."""
        per_session = np.zeros((len(self.history.sessions) + 1, values.shape[0]))
        np.add.at(per_session, self._history_sessions + 1, values.T.astype(float))
        return np.cumsum(per_session, axis=0)[self._before]

    def _counts_before(self, votes: np.ndarray) -> np.ndarray:
        """Votes (n, R_history) cast in sessions strictly before each target, summed, (R, 3)."""
        return self._sum_before(np.stack([(votes == v).sum(axis=0) for v in Vote]))

    def _cumulative_counts(self, votes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vote counts over sessions strictly before each target: (R, 3) and (R, 7, 3)."""
        cast = np.stack([votes == v for v in Vote], axis=1)  # (R_history, 3)
        per_issue = self._history_issue_keys[:, :, None] & cast[:, None, :]  # (R_history, 7, 3)
        issue = self._sum_before(per_issue.reshape(len(votes), -1).T)
        return self._counts_before(votes[None, :]), issue.reshape(-1, _N_ISSUE_KEYS, len(Vote))


def content_features(
    roll_calls: pd.DataFrame,
    config: FeatureConfig = FeatureConfig(),
    history: RollCallData | None = None,
) -> np.ndarray:
    """Country-independent block of the observations, shape (R, n_content), float64 in [0, 1].

    Args:
        roll_calls: the roll calls to describe.
        config: feature settings.
        history: whose texts the topics are fitted on; needed for ``text="topics"``.

    Raises:
        ValueError: ``text="topics"`` without a history.
    """
    issues = roll_calls[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(dtype=float)
    flags = roll_calls[["important", "amend", "para"]].to_numpy(dtype=float)
    flags = np.nan_to_num(flags, nan=0.0)
    year = pd.to_datetime(roll_calls["date"]).dt.year.to_numpy(dtype=float)
    year = np.clip((year - 1945.0) / 100.0, 0.0, 1.0)
    progress = _session_progress(roll_calls["session"].to_numpy())
    if config.text == "topics":
        if history is None:
            raise ValueError("text='topics' describes roll calls by a history's topics: "
                             "pass history=")  # fmt: skip
        text = fit_topics(history.roll_calls, config.text_dims).transform(roll_calls)
    else:
        hasher = HashingVectorizer(n_features=config.text_dims, alternate_sign=False,
                                   norm="l2", stop_words="english")  # fmt: skip
        text = hasher.transform(roll_call_text(roll_calls)).toarray()
    return np.column_stack([issues, flags, year, progress, text])


def _session_progress(sessions: np.ndarray) -> np.ndarray:
    """Position of each roll call within its session (rows are in time order), 0 … 1."""
    group = pd.Series(sessions).groupby(sessions)
    return (group.cumcount() / (group.transform("size") - 1).clip(lower=1)).to_numpy(float)


def _issue_keys(roll_calls: pd.DataFrame) -> np.ndarray:
    """Issue membership, shape (R, 7): the six issue codes and "no issue code"."""
    issues = roll_calls[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(dtype=bool)
    return np.column_stack([issues, ~issues.any(axis=1)])
