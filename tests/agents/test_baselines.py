"""The agent protocol and every baseline, on hand-made demonstrations with known answers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax

from assembly_gym.agents.base import Agent, BaseAgent, apply_mask
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
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import Demonstration, rollcall_demonstrations
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

LAYOUT = ObservationLayout(feature_names())
VOTES = ("yes", "no", "abstain")


def _demo(obs: np.ndarray, acts, country: str = "Country 001", n_actions: int = 3):
    acts = np.asarray(acts, dtype=np.int64)
    obs = np.asarray(obs, dtype=np.float32)
    return Demonstration(
        country, np.concatenate([obs, obs[-1:]]), acts, np.ones((len(acts), n_actions), bool)
    )


def _obs(n: int, layout: ObservationLayout = LAYOUT, **named: np.ndarray | float) -> np.ndarray:
    """Observations of zeros with some named dimensions set."""
    obs = np.zeros((n, len(layout)), dtype=np.float32)
    for name, value in named.items():
        obs[:, layout.index(name)] = value
    return obs


@pytest.fixture(scope="module")
def demos() -> list[Demonstration]:
    """A country that votes yes on most things, no on human rights, sometimes abstains."""
    rng = np.random.default_rng(0)
    hr = (np.arange(60) % 3 == 0).astype(float)
    similar = rng.dirichlet(np.ones(3), size=60)
    obs = _obs(60, issue_hr=hr, year=rng.random(60), similar_yes=similar[:, 0],
               similar_no=similar[:, 1], similar_abstain=similar[:, 2], past_yes=0.7,
               past_no=0.2, past_abstain=0.1)  # fmt: skip
    acts = np.where(hr == 1, 1, 0)
    acts[[1, 2, 4]] = 2
    return [_demo(obs[:30], acts[:30]), _demo(obs[30:], acts[30:])]


FACTORIES = {
    "random": lambda: RandomAgent(3, LAYOUT),
    "always-yes": lambda: AlwaysYesAgent(3, LAYOUT),
    "majority": lambda: MajorityAgent(3, LAYOUT),
    "issue-majority": lambda: IssueMajorityAgent(3, LAYOUT),
    "similar-vote": lambda: SimilarVoteAgent(3, LAYOUT),
    "text kNN (tuned)": lambda: TextNeighbourAgent(3, LAYOUT, recent=None),
    "logistic": lambda: LogisticAgent(3, LAYOUT),
}


# ---------------------------------------------------------------------- the protocol


@pytest.mark.parametrize("name", list(FACTORIES))
def test_every_baseline_honours_the_protocol(name, demos):
    agent = FACTORIES[name]().fit(demos)
    assert isinstance(agent, Agent) and isinstance(agent.name, str)
    obs, _, _ = Demonstration.stack(demos)
    probs = agent.action_probs(obs)
    assert probs.shape == (len(obs), 3)
    assert (probs >= 0).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    np.testing.assert_array_equal(agent.act(obs), probs.argmax(axis=1))
    single = agent.action_probs(obs[0])  # one observation is a batch of one
    np.testing.assert_allclose(single, probs[:1])


@pytest.mark.parametrize("name", list(FACTORIES))
def test_masked_actions_get_zero(name, demos):
    agent = FACTORIES[name]().fit(demos)
    obs, _, _ = Demonstration.stack(demos)
    rng = np.random.default_rng(1)
    masks = rng.random((len(obs), 3)) < 0.6
    masks[np.arange(len(obs)), rng.integers(3, size=len(obs))] = True  # one valid at least
    probs = agent.action_probs(obs, masks)
    assert (probs[~masks] == 0).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert masks[np.arange(len(obs)), agent.act(obs, masks)].all()
    assert masks[np.arange(len(obs)), agent.act(obs, masks, rng=rng)].all()
    only_no = agent.action_probs(obs[:4], np.array([False, True, False]))  # one mask for all
    np.testing.assert_array_equal(only_no, np.tile([0.0, 1.0, 0.0], (4, 1)))


@pytest.mark.parametrize("name", list(FACTORIES))
def test_seeded_sampling_is_reproducible_and_follows_the_probabilities(name, demos):
    agent = FACTORIES[name]().fit(demos)
    obs = np.repeat(Demonstration.stack(demos)[0][:1], 6000, axis=0)
    first = agent.act(obs, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(first, agent.act(obs, rng=np.random.default_rng(5)))
    frequencies = np.bincount(first, minlength=3) / len(first)
    np.testing.assert_allclose(frequencies, agent.action_probs(obs[0])[0], atol=0.025)


def test_base_agent_contract():
    with pytest.raises(ValueError, match="n_actions must be ≥ 1"):
        RandomAgent(0)
    with pytest.raises(NotImplementedError):
        BaseAgent(3).action_probs(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="needs the env's observation layout"):
        IssueMajorityAgent(3).fit([_demo(np.zeros((2, 3)), [0, 1])])


# ---------------------------------------------------------------------- apply_mask


def test_apply_mask_renormalises_over_valid_actions():
    probs = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
    masked = apply_mask(probs, np.array([[True, False, True], [True, True, False]]))
    np.testing.assert_allclose(masked, [[0.5 / 0.7, 0, 0.2 / 0.7], [0.5, 0.5, 0]])
    np.testing.assert_allclose(apply_mask(probs, None), probs)
    np.testing.assert_allclose(apply_mask(2 * probs, None), probs)  # any scale normalises


def test_apply_mask_row_with_all_mass_masked_is_uniform_over_valid():
    probs = np.array([[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    mask = np.array([[False, True, True, False, True], [True, False, False, False, True]])
    np.testing.assert_allclose(
        apply_mask(probs, mask), [[0, 1 / 3, 1 / 3, 0, 1 / 3], [0.5, 0, 0, 0, 0.5]]
    )


def test_apply_mask_refuses_a_row_without_valid_actions():
    mask = np.array([[True, False], [False, False]])
    with pytest.raises(ValueError, match="mask row 1 allows no action"):
        apply_mask(np.full((2, 2), 0.5), mask)


# ---------------------------------------------------------------------- each baseline


def test_random_is_uniform_over_valid_actions():
    agent = RandomAgent(5)
    np.testing.assert_allclose(agent.action_probs(np.zeros((2, 3))), 0.2)
    mask = np.array([True, False, False, False, True])
    np.testing.assert_allclose(agent.action_probs(np.zeros((1, 3)), mask), [[0.5, 0, 0, 0, 0.5]])


def test_always_yes():
    probs = AlwaysYesAgent(3, epsilon=0.1).action_probs(np.zeros((2, 4)))
    np.testing.assert_allclose(probs, [[0.9, 0.05, 0.05]] * 2)
    deliberation = AlwaysYesAgent(5, yes_action=1)  # Deliberation-v0: YES is action 1
    draft = np.array([True, False, False, False, True])  # YES is masked at DRAFT
    assert deliberation.act(np.zeros((1, 4))).tolist() == [1]
    np.testing.assert_allclose(
        deliberation.action_probs(np.zeros((1, 4)), draft), [[0.5, 0, 0, 0, 0.5]]
    )
    with pytest.raises(ValueError, match="yes_action an action index"):
        AlwaysYesAgent(3, yes_action=3)
    with pytest.raises(ValueError, match="at least two actions"):
        AlwaysYesAgent(1)
    with pytest.raises(ValueError, match="epsilon in \\(0, 1\\)"):
        AlwaysYesAgent(3, epsilon=0.0)


def test_majority_counts_with_one_pseudo_vote_per_action():
    demos = [_demo(np.zeros((4, 2)), [0, 0, 0, 1]), _demo(np.zeros((2, 2)), [0, 1])]
    agent = MajorityAgent(3).fit(demos)
    np.testing.assert_allclose(agent.action_probs(np.zeros((3, 2))), [[5 / 9, 3 / 9, 1 / 9]] * 3)


def test_issue_majority_counts_by_issue(demos):
    agent = IssueMajorityAgent(3, LAYOUT, strength=3.0).fit(demos)
    overall = (np.array([37, 20, 3]) + 1) / 63  # 60 votes, one pseudo-vote per action
    hr = (np.array([0, 20, 0]) + 3 * overall) / 23
    none = (np.array([37, 0, 3]) + 3 * overall) / 43
    probs = agent.action_probs(_obs(2, issue_hr=np.array([1.0, 0.0])))
    np.testing.assert_allclose(probs, [hr, none], rtol=1e-6)
    # An issue never seen backs off to the country's overall frequencies.
    np.testing.assert_allclose(agent.action_probs(_obs(1, issue_nu=1.0))[0], overall, rtol=1e-6)
    # The first issue code of a roll call is its key (me before hr).
    both = agent.action_probs(_obs(1, issue_me=1.0, issue_hr=1.0))[0]
    np.testing.assert_allclose(both, overall, rtol=1e-6)


def test_similar_vote_reads_the_named_dimensions():
    names = [f"{p}_{v}" for p in ("past", "similar") for v in VOTES][::-1] + ["year"]
    layout = ObservationLayout(names)  # another order than the env's: lookup is by name
    agent = SimilarVoteAgent(3, layout)
    agent.mix_ = 0.25
    obs = _obs(1, layout, similar_yes=0.1, similar_no=0.8, similar_abstain=0.1,
               past_yes=0.6, past_no=0.2, past_abstain=0.2, year=0.9)  # fmt: skip
    expected = 0.75 * np.array([0.1, 0.8, 0.1]) + 0.25 * np.array([0.6, 0.2, 0.2])
    np.testing.assert_allclose(agent.action_probs(obs)[0], expected, atol=1e-5)
    deliberation = SimilarVoteAgent(5, layout, vote_actions=(1, 2, 3))
    deliberation.mix_ = 0.25
    np.testing.assert_allclose(deliberation.action_probs(obs)[0, 1:4], expected, atol=1e-5)


@pytest.mark.parametrize(("similar_right", "low"), [(True, True), (False, False)])
def test_similar_vote_fits_its_mix_weight(similar_right, low):
    rng = np.random.default_rng(3)
    acts = rng.choice(3, size=200, p=[0.6, 0.3, 0.1])
    right = np.eye(3)[acts] * 0.9 + 0.1 / 3
    wrong = np.eye(3)[(acts + 1) % 3] * 0.9 + 0.1 / 3
    similar = right if similar_right else wrong
    shares = {f"similar_{v}": similar[:, i] for i, v in enumerate(VOTES)}
    obs = _obs(200, **shares, past_yes=0.6, past_no=0.3, past_abstain=0.1)
    agent = SimilarVoteAgent(3, LAYOUT).fit([_demo(obs, acts)])
    assert 0.01 <= agent.mix_ <= 1.0
    assert (agent.mix_ < 0.1) if low else (agent.mix_ > 0.9)


def _shares(acts: np.ndarray, right: bool) -> np.ndarray:
    """Vote shares that put 0.9 on the vote cast (``right``) or on the next one."""
    return np.eye(3)[acts if right else (acts + 1) % 3] * 0.9 + 0.1 / 3


def test_text_knn_mixes_the_named_vote_distributions_and_sharpens_them():
    names = [f"{p}_{v}" for p in ("past", "allies", "similar") for v in VOTES][::-1] + ["year"]
    layout = ObservationLayout(names)  # no issue_* or lineage_*: the sources are those present
    seen = _obs(9, layout, similar_yes=1.0, past_yes=1.0, allies_yes=1.0)
    agent = TextNeighbourAgent(3, layout).fit([_demo(seen, [0] * 9)])
    assert agent.mixed_ == ("similar", "allies", "past")
    agent.weights_, agent.sharpness_ = np.array([0.5, 0.25, 0.25]), 2.0
    similar, allies, past = np.array([0.1, 0.8, 0.1]), np.array([0.2, 0.2, 0.6]), np.full(3, 1 / 3)
    obs = _obs(1, layout, **{f"{name}_{v}": shares[i] for name, shares in
                             (("similar", similar), ("allies", allies), ("past", past))
                             for i, v in enumerate(VOTES)})  # fmt: skip
    expected = (0.5 * similar + 0.25 * allies + 0.25 * past + 1e-4) ** 2
    np.testing.assert_allclose(agent.action_probs(obs)[0], expected / expected.sum(), rtol=1e-5)
    deliberation = TextNeighbourAgent(5, layout, vote_actions=(1, 2, 3))
    vars(deliberation).update(mixed_=agent.mixed_, weights_=agent.weights_, sharpness_=2.0)
    votes = deliberation.action_probs(obs)[0, 1:4]
    np.testing.assert_allclose(votes / votes.sum(), expected / expected.sum(), rtol=1e-5)


def test_text_knn_is_tuned_on_the_last_sessions_only():
    """Its similar_* shares were wrong in the first sessions and right in the last ones."""
    rng = np.random.default_rng(5)
    demos = []
    for session in range(6):
        acts = rng.choice(3, size=60, p=[0.6, 0.3, 0.1])
        similar = _shares(acts, right=session >= 4)
        obs = _obs(60, **{f"similar_{v}": similar[:, i] for i, v in enumerate(VOTES)},
                   past_yes=0.6, past_no=0.3, past_abstain=0.1)  # fmt: skip
        demos.append(_demo(obs, acts))
    recent = TextNeighbourAgent(3, LAYOUT, recent=2).fit(demos)
    every = TextNeighbourAgent(3, LAYOUT, recent=None).fit(demos)
    similar = recent.mixed_.index("similar")
    assert recent.weights_[similar] > 0.5 > 0.1 > every.weights_[similar]
    assert recent.sharpness_ > 1.0  # right shares earn confidence
    np.testing.assert_allclose(recent.weights_.sum(), 1.0)


def test_text_knn_needs_its_features_and_a_positive_window():
    layout = ObservationLayout([f"similar_{v}" for v in VOTES])
    with pytest.raises(ValueError, match="needs the similar_\\* and past_\\* features"):
        TextNeighbourAgent(3, layout).fit([_demo(_obs(2, layout), [0, 1])])
    with pytest.raises(ValueError, match="recent must be ≥ 1 or None"):
        TextNeighbourAgent(3, LAYOUT, recent=0)


def test_logistic_learns_a_separable_rule_and_handles_one_class():
    rng = np.random.default_rng(4)
    year = rng.random(120)
    acts = np.where(year > 0.5, 0, 1)
    agent = LogisticAgent(3, LAYOUT, C=10.0).fit([_demo(_obs(120, year=year), acts)])
    test = _obs(2, year=np.array([0.95, 0.05]))
    assert agent.act(test).tolist() == [0, 1]
    assert agent.action_probs(test)[:, 2].max() < 0.01  # never seen: only the floor
    single = LogisticAgent(3, LAYOUT).fit([_demo(_obs(5), [2] * 5)])
    probs = single.action_probs(_obs(3, year=np.array([0.1, 0.5, 0.9])))
    np.testing.assert_allclose(probs, [[1e-3, 1e-3, 1.0]] * 3 / np.float64(1.002))


def test_planted_agent_is_the_planted_softmax():
    assembly = generate_assembly(
        SyntheticConfig(n_countries=4, n_blocs=2, n_sessions=3, roll_calls_per_session=10, seed=1)
    )
    country = assembly.data.country_names[2]
    demos = rollcall_demonstrations(assembly.data, [country], with_infos=False)
    agent = PlantedAgent(assembly, LAYOUT).fit(demos)
    obs, _, _ = Demonstration.stack(demos)
    theta = assembly.country_theta(country)
    expected = softmax(np.column_stack([np.ones(len(obs)), obs]) @ theta.T, axis=-1)
    np.testing.assert_allclose(agent.action_probs(obs), expected, rtol=1e-5)
    assert isinstance(agent, Agent)
