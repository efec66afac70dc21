"""TrainConfig, the epoch loop: bounds after every update, convergence and patience, lr decay."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from assembly_gym.agents.debate import TrainConfig, Trainer
from assembly_gym.agents.debate.allocation import project_bounded_simplex
from assembly_gym.agents.debate.arena import Arena, ClaimSet, EpochDebate, RoundOutcome
from assembly_gym.agents.debate.observations import Observations, TextTendencySpec
from assembly_gym.agents.debate.synthetic import plant_mixture
from assembly_gym.agents.debate.tendencies import Tendency, TendencyAgent, tendency_agents

# --------------------------------------------------------------------------------------
# TrainConfig
# --------------------------------------------------------------------------------------


def test_train_config_has_exactly_the_specified_fields_and_defaults():
    expected = {
        "max_epochs": 10,
        "min_epochs": 2,
        "convergence_threshold": 0.005,
        "patience": 3,
        "initial_lr": 0.15,
        "lr_decay": 0.9,
        "validation_split": 0.2,
        "min_allocation": 0.03,
        "max_allocation": 0.50,
    }
    fields = dataclasses.fields(TrainConfig)
    assert [f.name for f in fields] == list(expected)
    assert {f.name: f.default for f in fields} == expected


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"initial_lr": 0.0}, r"initial_lr must be in \(0, 1\]"),
        ({"initial_lr": -0.1}, r"initial_lr must be in \(0, 1\]"),
        ({"initial_lr": 1.5}, r"initial_lr must be in \(0, 1\]"),
        ({"validation_split": 0.0}, r"validation_split must be in \(0, 1\)"),
        ({"validation_split": 1.0}, r"validation_split must be in \(0, 1\)"),
        ({"validation_split": 1.5}, r"validation_split must be in \(0, 1\)"),
        ({"lr_decay": 0.0}, r"lr_decay must be in \(0, 1\]"),
        ({"lr_decay": 1.2}, r"lr_decay must be in \(0, 1\]"),
        ({"min_epochs": 5, "max_epochs": 3}, "min_epochs ≤ max_epochs"),
        ({"min_epochs": 0}, "1 ≤ min_epochs"),
        ({"patience": 0}, "patience must be ≥ 1"),
        ({"convergence_threshold": -1.0}, "convergence_threshold must be ≥ 0"),
        ({"min_allocation": 0.6, "max_allocation": 0.5}, "min_allocation ≤ max_allocation"),
        ({"max_allocation": 1.5}, "max_allocation ≤ 1"),
    ],
)
def test_invalid_configs_raise(changes, match):
    with pytest.raises(ValueError, match=match):
        TrainConfig(**changes)


@pytest.mark.parametrize(
    ("config", "k"),
    [
        (TrainConfig(min_allocation=0.2), 7),
        (TrainConfig(), 1),
        (TrainConfig(max_allocation=0.1), 7),
    ],
)
def test_bounds_that_cannot_sum_to_one_over_k_tendencies_raise(config, k):
    with pytest.raises(ValueError, match="cannot sum to 1"):
        config.check_tendencies(k)


def test_trainer_refuses_bounds_that_do_not_fit_the_agents(country_observations):
    trainer = Trainer(TrainConfig(min_allocation=0.2))
    with pytest.raises(ValueError, match="7 allocations inside .* cannot sum to 1"):
        trainer.train(country_observations, tendency_agents())


def test_trainer_refuses_duplicate_names_and_too_few_observations(country_observations):
    agents = tendency_agents()
    agents[1] = TendencyAgent(agents[0].tendency)
    with pytest.raises(ValueError, match="names must be unique"):
        Trainer().train(country_observations, agents)
    with pytest.raises(ValueError, match="at least two observations"):
        Trainer().train(country_observations.take(np.array([0])), tendency_agents())


# --------------------------------------------------------------------------------------
# The epoch loop, driven by a scripted arena
# --------------------------------------------------------------------------------------


class ScriptedArena(Arena):
    """An arena whose epoch e moves ``changes[e] / 2`` between the first two allocations.

    The direction alternates, so that the allocations stay valid for any number of epochs.
    """

    def __init__(self, changes):
        super().__init__()
        self.changes = list(changes)
        self.learning_rates = []

    def debate(self, claims, outcomes, allocations, *, learning_rate, lower, upper):
        self.learning_rates.append(learning_rate)
        epoch = len(self.learning_rates)
        delta = self.changes[epoch - 1] / 2 * (-1) ** epoch  # Σ|Δ| = change
        moved = allocations.copy()
        moved[0] -= delta
        moved[1] += delta
        k, n = claims.probs.shape[:2]
        last = RoundOutcome(
            np.zeros((k, n)), np.ones((k, n)), np.zeros((k, n), bool), np.zeros(k), moved, moved
        )
        return EpochDebate(allocations, moved, np.arange(k, dtype=float), np.zeros(k), last)


def run_scripted(observations, changes, **config):
    arena = ScriptedArena(changes)
    history, _ = Trainer(TrainConfig(**config), arena=arena).train(observations, tendency_agents())
    return history, arena


@pytest.mark.parametrize(
    ("changes", "config", "epochs", "converged"),
    [
        # stable from epoch 1, but min_epochs=2 and patience=3: stops at epoch 3
        ([0.001] * 10, {}, 3, True),
        # min_epochs dominates patience
        ([0.001] * 10, {"min_epochs": 5, "patience": 1}, 5, True),
        # patience counts *consecutive* stable epochs: the large change at 3 resets it
        ([0.001, 0.001, 0.1, 0.001, 0.001, 0.001, 0.1, 0.1, 0.1, 0.1], {}, 6, True),
        # never stable: runs to max_epochs without converging
        ([0.1] * 10, {}, 10, False),
        # a change equal to the threshold is not below it
        ([0.005] * 10, {}, 10, False),
        ([0.001] * 4, {"max_epochs": 4, "patience": 5}, 4, False),
    ],
)
def test_convergence_needs_patience_consecutive_stable_epochs_after_min_epochs(
    country_observations, changes, config, epochs, converged
):
    history, _ = run_scripted(country_observations, changes, **config)
    assert history.epochs_run == epochs == len(history.metrics) == len(history.validation_results)
    assert history.converged is converged
    assert [m.epoch for m in history.metrics] == list(range(1, epochs + 1))


def test_learning_rate_decays_by_lr_decay_each_epoch(country_observations):
    history, arena = run_scripted(
        country_observations, [0.1] * 6, max_epochs=6, initial_lr=0.2, lr_decay=0.5
    )
    expected = [0.2 * 0.5**t for t in range(6)]
    np.testing.assert_allclose(arena.learning_rates, expected)
    np.testing.assert_allclose([m.learning_rate for m in history.metrics], expected)
    assert TrainConfig(initial_lr=0.2, lr_decay=0.5).learning_rate(3) == pytest.approx(0.05)


def test_epoch_metrics_report_changes_scores_and_winner(country_observations):
    history, _ = run_scripted(country_observations, [0.1] * 3, max_epochs=3)
    names = [a.name for a in tendency_agents()]
    first = history.metrics[0]
    assert first.winner == names[-1] and first.winning_score == 6.0  # scores 0..6: the last wins
    assert first.allocation_changes[names[0]] == pytest.approx(0.05)
    assert first.total_change == pytest.approx(0.1)
    assert set(first.allocations) == set(first.scores) == set(first.total_stakes) == set(names)


# --------------------------------------------------------------------------------------
# The real arena: bounds after every update, determinism, recovery
# --------------------------------------------------------------------------------------


class RecordingArena(Arena):
    """The real arena, recording the allocations after every round."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def round(self, *args, **kwargs):
        outcome = super().round(*args, **kwargs)
        self.seen.append(outcome.allocations)
        return outcome


def test_allocations_stay_inside_the_bounds_and_sum_to_one_after_every_update(
    country_observations,
):
    config = TrainConfig(min_allocation=0.1, max_allocation=0.2, max_epochs=4)
    arena = RecordingArena()
    agents = tendency_agents()
    agents[0].allocation = 0.97  # a start far outside the bounds is projected first
    history, result = Trainer(config, arena=arena).train(country_observations, agents)
    assert len(arena.seen) == arena.rounds * history.epochs_run
    for shares in [*arena.seen, *(np.array(list(m.allocations.values())) for m in history.metrics)]:
        assert np.isclose(shares.sum(), 1.0)
        assert (shares >= 0.1 - 1e-12).all() and (shares <= 0.2 + 1e-12).all()
    assert [a.allocation for a in agents] == pytest.approx(list(result.allocations.values()))


def test_training_is_deterministic_under_a_seed(country_observations):
    def run(seed):
        agents = tendency_agents()
        history, _ = Trainer(seed=seed).train(country_observations, agents)
        return history, [a.allocation for a in agents]

    (first, shares), (again, same) = run(3), run(3)
    assert shares == same and first == again
    other, _ = run(4)
    assert other.validation_results != first.validation_results  # another split


def test_history_and_result_describe_the_run(country_observations):
    agents = tendency_agents()
    history, result = Trainer().train(country_observations, agents)
    validation = history.validation_results[-1]
    assert validation.n == round(0.2 * len(country_observations))
    assert 1 <= history.best_epoch <= history.epochs_run
    best = history.validation_results[history.best_epoch - 1].log_likelihood
    assert best == max(v.log_likelihood for v in history.validation_results)
    assert result.winner.label == max(result.allocations, key=result.allocations.get)
    assert sum(result.allocation_changes.values()) == pytest.approx(0.0, abs=1e-9)
    some_claims = [c for claims in result.claims.values() for c in claims]
    assert some_claims and all(
        c.stake > 0 and c.action in ("yes", "no", "abstain") for c in some_claims
    )


def test_debate_recovers_a_planted_mixture(pooled_observations, pooled_claims):
    """Learning test: ≈ 2,700 decisions of an actor with a planted mixture of the tendencies."""
    planted = project_bounded_simplex(np.array([0.3, 0.05, 0.2, 0.05, 0.1, 0.05, 0.25]), 0.03, 0.5)
    actor, _ = plant_mixture(
        pooled_observations, pooled_claims, planted, rng=np.random.default_rng(7)
    )
    agents = tendency_agents()
    history, _ = Trainer().train(actor, agents)
    recovered = np.array([a.allocation for a in agents])
    uniform_error = np.abs(np.full(7, 1 / 7) - planted).sum()
    assert np.abs(recovered - planted).sum() < 0.3 < uniform_error
    assert history.converged
    assert history.validation_results[-1].p_value < 1e-3


def test_unlabelled_text_observations_train(rng):
    texts = (
        "human rights torture abuses",
        "trade poverty development",
        "torture abuses rights",
        "nuclear weapons disarmament",
        "development aid trade",
        "human rights women",
    )
    observations = Observations(
        ids=tuple(map(str, range(6))),
        features=np.zeros((6, 0), np.float32),
        actions=np.full(6, -1),
        texts=texts,
    )
    agents = tendency_agents(TextTendencySpec(t.label, t.description) for t in Tendency)
    history, result = Trainer(TrainConfig(max_allocation=0.6)).train(observations, agents)
    assert result.winner == TextTendencySpec("human rights", Tendency.HUMAN_RIGHTS.description)
    assert history.validation_results[-1].action_accuracy is None


def test_claims_outside_the_arena_are_checked():
    with pytest.raises(ValueError, match="probability distribution"):
        ClaimSet(np.full((2, 3, 3), 0.5), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="relevance must lie in"):
        ClaimSet(np.full((2, 3, 3), 1 / 3), np.full((2, 3), 2.0))
    with pytest.raises(ValueError, match="relevance must have shape"):
        ClaimSet(np.full((2, 3, 3), 1 / 3), np.zeros((3, 2)))
