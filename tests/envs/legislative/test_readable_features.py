"""Readable roll-call features: text topics named by their words, agreement with references."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from assembly_gym.core.paths import unvotes_dir
from assembly_gym.envs.legislative import observation, roll_call_data
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.observation import (
    FeatureConfig,
    RollCallFeatures,
    TextTopics,
    content_features,
    feature_names,
    fit_topics,
    relation_names,
    roll_call_text,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.base import RewardModel
from assembly_gym.irl.linear import LinearRewardModel

TOPICS = FeatureConfig(text="topics", text_dims=6)
RELATIONS = FeatureConfig(relations=True, references=("Country 001", "Atlantis"))


@pytest.fixture(scope="module")
def data() -> RollCallData:
    return generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=5, roll_calls_per_session=16, seed=3)
    ).data


def test_the_default_stays_hashed_without_relations():
    assert FeatureConfig().text == "hashed" and not FeatureConfig().relations
    assert "text_00" in feature_names() and relation_names() == ()
    assert relation_names(RELATIONS) == ("agree_country_001", "agree_atlantis", "agree_majority")
    assert feature_names(RELATIONS)[-3:] == relation_names(RELATIONS)


def test_feature_config_checks_the_new_settings():
    with pytest.raises(ValueError, match="text must be 'hashed' or 'topics', got 'words'"):
        FeatureConfig(text="words")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="references must have distinct names"):
        FeatureConfig(references=("Majority",))
    with pytest.raises(ValueError, match="references must have distinct names"):
        FeatureConfig(references=("United States", "united states"))
    assert FeatureConfig(references=["China"]).references == ("China",)  # type: ignore[arg-type]


def test_topic_names_need_the_history_they_are_fitted_on(data):
    with pytest.raises(ValueError, match="topic names are the words of the topics"):
        feature_names(TOPICS)
    with pytest.raises(ValueError, match="pass history="):
        content_features(data.roll_calls, TOPICS)
    features = RollCallFeatures(data.roll_calls, history=data, config=TOPICS)
    assert features.names == feature_names(TOPICS, history=data)
    topics = [n for n in features.names if n.startswith("topic: ")]
    assert len(topics) == TOPICS.text_dims == len(set(topics))
    assert not any(n.startswith("text_") for n in features.names)
    rows = features.for_country(data.country_names[0])
    assert rows.shape == (data.n_roll_calls, len(features.names))
    assert rows.min() >= 0.0 and rows.max() <= 1.0 and rows[:, 11:17].any()


def test_topics_are_deterministic_and_come_from_the_history_only(data):
    train, test = data.temporal_split(3)
    first = fit_topics(train.roll_calls, 6)
    words = test.roll_calls.assign(descr="NUCLEAR TEST BAN " * 3, short="NUCLEAR TEST BAN")
    forecast = RollCallFeatures(words, history=train, config=TOPICS)
    assert forecast.names == feature_names(TOPICS, history=train)
    assert not any("nuclear" in n for n in forecast.names)  # later texts shape no topic
    # Words the history never used describe nothing.
    np.testing.assert_array_equal(forecast.content[:, 11:17], 0.0)
    observation._fitted_topics.cache_clear()  # a fresh fit, not the cached one
    again = fit_topics(train.roll_calls, 6)
    assert again is not first and again.names == first.names
    expected = first.transform(test.roll_calls)
    np.testing.assert_array_equal(again.transform(test.roll_calls), expected)
    # A roll call's weights do not depend on the roll calls described with it.
    alone = first.transform(test.roll_calls.iloc[[4]])
    np.testing.assert_allclose(alone, expected[[4]], atol=1e-12)


def test_topic_names_are_made_unique(data):
    topics = TextTopics(None, np.zeros((4, 0)), (("a", "b", "c", "d"), ("a", "b", "c"), (), ()))
    assert topics.names == (
        "topic: a · b · c", "topic: a · b · c (2)", "topic: (none)", "topic: (none) (2)"
    )  # fmt: skip
    expected = np.zeros((data.n_roll_calls, 4))
    np.testing.assert_array_equal(topics.transform(data.roll_calls), expected)


def _flip(data: RollCallData, columns: np.ndarray) -> RollCallData:
    votes = data.votes.copy()
    change = columns[None, :] & (votes != ABSENT)
    votes[change] = (votes[change] + 1) % 3
    return replace(data, votes=votes)


def test_agreement_uses_strictly_earlier_sessions(data):
    features = RollCallFeatures(data.roll_calls, history=data, config=RELATIONS)
    sessions = data.roll_calls["session"].to_numpy()
    changed = _flip(data, sessions >= 3)
    after = RollCallFeatures(changed.roll_calls, history=changed, config=RELATIONS)
    before_rows, after_rows = features.for_country("Country 004"), after.for_country("Country 004")
    np.testing.assert_array_equal(before_rows[sessions <= 3], after_rows[sessions <= 3])
    assert not np.array_equal(before_rows[sessions == 4], after_rows[sessions == 4])


def test_agreement_values(data):
    features = RollCallFeatures(data.roll_calls, history=data, config=RELATIONS)
    rows = features.for_country("Country 001")
    column = {n: features.names.index(n) for n in features.names}
    assert rows.min() >= 0.0 and rows.max() <= 1.0
    covered = rows[:, column["similar_coverage"]] > 0
    assert covered.any()
    np.testing.assert_array_equal(rows[covered, column["agree_country_001"]], 1.0)  # itself
    # A reference the history lacks, and the first session, give the neutral ½.
    np.testing.assert_array_equal(rows[:, column["agree_atlantis"]], 0.5)
    first = data.roll_calls["session"].to_numpy() == 1
    np.testing.assert_array_equal(rows[first, column["agree_majority"]], 0.5)
    assert 0.5 < rows[~first, column["agree_majority"]].mean() < 1.0


def test_a_model_with_topics_reloads_and_forecasts_the_same(data, tmp_path):
    train, test = data.temporal_split(4)
    config = replace(TOPICS, relations=True, references=("Country 002",))
    names = RollCallFeatures(train.roll_calls, history=train, config=config).names
    rng = np.random.default_rng(0)
    model = LinearRewardModel(
        train.country_names[:3], ("yes", "no", "abstain"), names,
        rng.normal(size=(3, 3, 1 + len(names))), feature_config=config, history=train,
    )  # fmt: skip
    loaded = RewardModel.load(model.save(tmp_path / "model"))
    assert loaded.feature_config == config and loaded.obs_names == names
    np.testing.assert_allclose(loaded.policy(test.roll_calls), model.policy(test.roll_calls))


@pytest.mark.real_data
@pytest.mark.skipif(
    unvotes_dir() is None, reason="real data absent: set $ASSEMBLY_GYM_DATA or place ../shared/data"
)
def test_real_topics_are_named_by_real_words():
    history = roll_call_data("unvotes").select_sessions(last=30)
    topics = fit_topics(history.roll_calls, 32)
    text = " ".join(roll_call_text(history.roll_calls)).lower()
    words = {w for name in topics.names for w in name.removeprefix("topic: ").split(" · ")}
    assert len(set(topics.names)) == 32 and all(w.isalpha() and w in text for w in words)
    assert {"nuclear", "colonial", "apartheid", "korea"} <= words
