import io
import json

import numpy as np
import pytest
import torch

from assembly_gym.core.errors import CheckpointError
from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
from assembly_gym.world_models.leworld import LeWorldSystem, evaluate_system, train_leworld
from assembly_gym.world_models.leworld.baselines import MemorylessMLP, train_memoryless
from assembly_gym.world_models.leworld.batches import SequenceBatch
from assembly_gym.world_models.leworld.datasets import held_out_episodes, make_datasets
from assembly_gym.world_models.leworld.evaluation import paired_difference, sequence_mse
from assembly_gym.world_models.leworld.losses import (
    _add_usefulness,
    phase1_loss,
    phase2_loss,
    phase3_loss,
    read_usefulness,
)
from assembly_gym.world_models.leworld.training import (
    PhaseReport,
    Progress,
    TrainingReport,
    parse_phases,
    train_phase,
)


def test_datasets_are_seeded_and_the_test_part_stands_alone(world, tiny_config, data):
    again = make_datasets(world, tiny_config(), seed=0)
    assert np.array_equal(again.train.states, data.train.states)
    assert not np.array_equal(
        make_datasets(world, tiny_config(), seed=1).test.states, data.test.states
    )
    alone = held_out_episodes(world, tiny_config(num_train_sequences=5), seed=0)
    assert np.array_equal(alone.states, data.test.states)


@pytest.mark.slow
@pytest.mark.parametrize("phase", [1, 2, 3])
def test_each_phase_reduces_its_loss_on_a_tiny_problem(world, tiny_config, data, phase):
    epochs = {
        1: dict(phase1_epochs=12, phase1_batch_size=8),
        2: dict(phase2_epochs=12),
        3: dict(phase3_epochs=8, phase3_lr=2e-3),
    }
    config = tiny_config(num_train_sequences=64, **epochs[phase])
    system = LeWorldSystem(world.config, world.memory, config, seed=0)
    train = SequenceBatch.from_episodes(world.sample_episodes(64, np.random.default_rng(4)))
    val = SequenceBatch.from_episodes(data.val)
    report = train_phase(
        system,
        phase=phase,
        train=train,
        val=val,
        progress=False,
        generator=torch.Generator().manual_seed(0),
    )
    assert report.epochs == len(report.val_loss) == len(report.train_loss)
    assert report.train_loss[-1] < 0.9 * report.train_loss[0]
    assert min(report.val_loss) < report.val_loss[0]
    assert system.use_query == (phase == 3)


def test_phase_losses_have_their_parts(world, tiny_config, data):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    batch = SequenceBatch.from_episodes(data.val)
    _, parts = phase1_loss(system, batch.steps())
    assert set(parts) == {"address_ce", "confidence_bce", "mse", "exact_reads"}
    assert parts["address_ce"] == pytest.approx(np.log(4) + np.log(256) + np.log(128), rel=0.1)
    _, parts = phase3_loss(system, batch)
    assert {"address_ce", "confidence_bce", "exact_reads", "mse", "balance", "entropy"} <= set(
        parts
    )
    no_regions = SequenceBatch(batch.states, batch.c).steps()
    with pytest.raises(ValueError, match="regions"):
        phase1_loss(system, no_regions)


def test_a_read_is_useful_where_it_lowers_the_error_of_its_row(world, tiny_config, data):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    rows = SequenceBatch.from_episodes(data.val).steps()
    out = system.step(rows.s_prev, rows.s, rows.c, rows.step)
    read_dim = system.config.read_dim
    context = world.config.state_dim + world.config.char_dim
    with torch.no_grad():  # the BLM ignores read 1: it is never useful
        for layer in (system.blm.trunk[0], system.blm.skip):
            layer.weight[:, context + read_dim : context + 2 * read_dim] = 0.0
    out = system.step(rows.s_prev, rows.s, rows.c, rows.step)
    target = out.prediction.detach()
    useful = read_usefulness(system, out.blm.gates, out.encoded, out.slm.confidence,
                             (rows.s, rows.c, target))  # fmt: skip
    assert useful.shape == (2, len(rows))
    assert useful[1].sum() == 0 and useful[0].all()  # the target is the prediction with both
    system = LeWorldSystem(world.config, world.memory, tiny_config(lambda_usefulness=1.0), seed=0)
    _, parts = phase2_loss(system, rows)
    assert 0 < parts["usefulness"] < 10
    _, parts = phase3_loss(system, SequenceBatch.from_episodes(data.val))  # along sequences
    assert 0 < parts["usefulness"] < 10


def test_the_usefulness_loss_trains_the_router_and_never_moves_the_reads(
    world, tiny_config, data
):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    rows = SequenceBatch.from_episodes(data.val).steps()
    out = system.step(rows.s_prev, rows.s, rows.c, rows.step)
    parts = {"total": torch.zeros(())}
    _add_usefulness(system, parts, out.blm.gates, out.encoded, out.slm.confidence,
                    (rows.s, rows.c, rows.target))  # fmt: skip
    parts["total"].backward()
    grads = {name: p.grad for name, p in system.named_parameters()}
    assert grads["blm.router_bias"].any()
    moved = [name for name, g in grads.items() if g is not None and g.any()]
    assert all(name.startswith("blm.router") for name in moved), moved


def test_phase_1_drops_reads_only_while_training(world, tiny_config, data):
    rows = SequenceBatch.from_episodes(data.val).steps()
    system = LeWorldSystem(world.config, world.memory, tiny_config(phase1_gate_dropout=1.0), seed=0)
    dropped, _ = phase1_loss(system, rows, torch.Generator().manual_seed(0))
    kept, _ = phase1_loss(system, rows)  # validation: no generator, every read open
    assert dropped != kept
    reads = [p for name, p in system.named_parameters() if name.startswith("memory.")]
    system.zero_grad()
    dropped.backward()
    assert reads and all(p.grad is None or not p.grad.any() for p in reads)  # no read reached


def test_training_is_seeded_and_reports_every_phase(world, tiny_config, data):
    config = tiny_config(phase1_epochs=1, phase2_epochs=1, phase3_epochs=1)
    first, report = train_leworld(
        world, config, phases=(1, 2, 3), seed=3, data=data, progress=False
    )
    second, again = train_leworld(
        world, config, phases=(1, 2, 3), seed=3, data=data, progress=False
    )
    assert [p.phase for p in report.phases] == [1, 2, 3]
    assert list(report.metrics) == ["untrained", "phase 1", "phase 2", "phase 3"]
    assert [p.val_loss for p in report.phases] == [p.val_loss for p in again.phases]
    for a, b in zip(first.state_dict().values(), second.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    _, only_two = train_leworld(
        world, config, phases=(2,), data=data, progress=False, evaluate=False
    )
    assert [p.phase for p in only_two.phases] == [2] and not only_two.metrics
    _, default = train_leworld(world, config, data=data, progress=False, evaluate=False)
    assert [p.phase for p in default.phases] == [1, 2, 3]
    with pytest.raises(ValueError, match="subset"):
        train_leworld(world, config, phases=(4,))


def test_parse_phases():
    assert parse_phases("3,1") == (1, 3)
    with pytest.raises(ValueError, match="subset of 1,2,3"):
        parse_phases("1,4")


def test_metrics_of_oracle_and_random_reads(world, tiny_config, data):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    oracle = evaluate_system(system, data.test, read_mode="oracle")
    random = evaluate_system(system, data.test, read_mode="random")
    assert oracle.hit_rate == oracle.iou == 1.0
    assert random.hit_rate < 0.5
    assert len(oracle.horizon_mse) == 4 and all(np.isfinite(oracle.horizon_mse))  # T = 4 horizons
    assert oracle.noise_floor == pytest.approx(0.01, rel=0.2)
    assert len(oracle.slm_usage) == 2 and 0 <= oracle.routing_entropy <= np.log(2)
    per_sequence = sequence_mse(system, data.test, read_mode="oracle")
    assert per_sequence.shape == (16,) and per_sequence.mean() == pytest.approx(
        oracle.mse, rel=1e-5
    )


def test_memoryless_baseline_matches_the_size_and_learns(world, tiny_config, data):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    baseline = MemorylessMLP.like(system, state_dim=64, char_dim=32, sequence_length=4)
    size = sum(p.numel() for p in system.parameters())
    assert abs(sum(p.numel() for p in baseline.parameters()) - size) < 0.02 * size
    history = train_memoryless(baseline, data.train, data.val, epochs=5, progress=False)
    assert history[-1] < history[0]
    assert sequence_mse(baseline, data.test).shape == (16,)


def test_paired_difference():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    result = paired_difference(a, a - 1.0)
    assert result.difference == pytest.approx(1.0) and result.low == result.high == pytest.approx(
        1.0
    )
    noisy = paired_difference(np.array([1.0, 2.0, 0.5]), np.array([0.0, 2.5, 0.0]))
    assert noisy.low < noisy.difference < noisy.high
    with pytest.raises(ValueError, match="paired"):
        paired_difference(a, a[:2])


def test_tensorboard_logs_every_phase(world, tiny_config, data, tmp_path):
    config = tiny_config(phase1_epochs=1, phase2_epochs=1)
    train_leworld(
        world, config, phases=(1, 2), data=data, progress=False, evaluate=False, log_dir=tmp_path
    )
    assert list(tmp_path.glob("events.out.tfevents.*"))


def test_a_phase_that_only_hurts_keeps_the_parameters_it_started_from(world, tiny_config, data):
    config = tiny_config(phase2_epochs=2, phase2_lr=50.0, phase2_warmup_steps=0, grad_clip=1e3)
    system = LeWorldSystem(world.config, world.memory, config, seed=0)
    before = {k: v.clone() for k, v in system.state_dict().items()}
    report = train_phase(
        system,
        phase=2,
        train=SequenceBatch.from_episodes(data.train),
        val=SequenceBatch.from_episodes(data.val),
        progress=False,
        generator=torch.Generator().manual_seed(0),
    )
    assert min(report.val_loss) > report.initial_val_loss  # the huge steps only did harm
    assert report.best_epoch == 0
    for name, value in system.state_dict().items():
        assert torch.equal(value, before[name]), name


def test_phase_3_competes_with_the_model_phase_2_saved_without_the_request(
    world, tiny_config, data
):
    config = tiny_config(phase3_epochs=2, phase3_lr=50.0, grad_clip=1e3)
    system = LeWorldSystem(world.config, world.memory, config, seed=0)
    before = {k: v.clone() for k, v in system.state_dict().items()}
    val = SequenceBatch.from_episodes(data.val)
    without = sequence_mse(system, data.val, use_query=False).mean()
    report = train_phase(
        system,
        phase=3,
        train=SequenceBatch.from_episodes(data.train),
        val=val,
        progress=False,
        generator=torch.Generator().manual_seed(0),
    )
    assert report.initial_val_loss == pytest.approx(without, rel=1e-5)  # judged as saved
    assert report.best_epoch == 0 and not system.use_query  # kept as it came, no request
    for name, value in system.state_dict().items():
        assert torch.equal(value, before[name]), name


def test_the_request_starts_silent_and_phase_3s_own_reads_leave_the_slms_alone(
    world, tiny_config, data
):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    batch = SequenceBatch.from_episodes(data.val)
    with torch.no_grad():  # an untrained request changes no read
        torch.testing.assert_close(
            system.run(batch, use_query=True).predictions, system.run(batch).predictions
        )
    system.run(batch, use_query=True, slm_gradient=False).predictions.sum().backward()
    assert all(p.grad is None for p in system.slms.parameters())
    assert system.blm.trunk[0].weight.grad is not None


def test_oracle_reads_follow_the_pointers_of_a_pointer_chasing_world(tiny_config):
    world = MemoryWorld(
        MemoryWorldConfig(difficulty="medium", num_words=1024, sequence_length=4,
                          pointer_chasing=True)
    )  # fmt: skip
    data = make_datasets(world, tiny_config(), seed=0)
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    oracle = evaluate_system(system, data.test, read_mode="oracle")
    assert oracle.hit_rate == oracle.iou == 1.0  # against the windows the pointers give
    assert data.test.regions.shape[1:] == (2, 3 + 4)
    _, report = train_leworld(world, tiny_config(), phases=(1,), seed=0, progress=False)
    assert np.isfinite(report.metrics["phase 1"].mse)


def test_a_resumed_training_ends_where_an_uninterrupted_one_does(world, tiny_config, data):
    config = tiny_config(phase1_epochs=2, phase2_epochs=2, phase3_epochs=1)
    whole, _ = train_leworld(world, config, phases=(1, 2, 3), data=data, progress=False)
    saved = []
    train_leworld(
        world,
        config,
        phases=(1,),
        data=data,
        progress=False,
        after_phase=lambda system, progress: saved.append(progress),
    )
    (after_one,) = saved
    assert [p.phase for p in after_one.report.phases] == [1] and after_one.global_step > 0
    resumed, report = train_leworld(
        world, config, phases=(1, 2, 3), data=data, progress=False, resume=after_one
    )
    assert [p.phase for p in report.phases] == [1, 2, 3]
    assert list(report.metrics) == ["untrained", "phase 1", "phase 2", "phase 3"]
    for name, value in whole.state_dict().items():
        assert torch.equal(resumed.state_dict()[name], value), name
    assert [p.phase for p in after_one.report.phases] == [1]  # the caller's stays as it was
    train_leworld(world, config, phases=(3,), data=data, progress=False, after_phase=lambda
                  system, progress: saved.append(progress), evaluate=False)  # fmt: skip
    with pytest.raises(ValueError, match="cannot resume after phase 3"):
        train_leworld(world, config, phases=(2, 3), data=data, progress=False, resume=saved[1])


def test_a_saved_report_and_progress_are_read_back_checked():
    report = TrainingReport([PhaseReport(1, epochs=2, train_loss=[0.5], initial_val_loss=0.7)])
    saved = json.loads(json.dumps(report.to_dict()))
    assert TrainingReport.from_dict(saved, {}, source="m.json") == report
    progress = Progress(report, global_step=5, generator_state=torch.Generator().get_state(),
                        use_query=True)  # fmt: skip
    again = Progress.from_counters(report, progress.counters(), source="p.pt")
    assert again.global_step == 5 and torch.equal(again.generator_state, progress.generator_state)
    for values, message in [
        (None, "corrupted report .null, expected an object"),
        ({**saved, "seconds": "x"}, "corrupted report .field 'seconds' is a string"),
        ({**saved, "phases": [{"phase": "1"}]}, r"corrupted report .field 'phases\[0\].phase'"),
        ({"phases": [{}]}, r"corrupted report .no field 'phases\[0\].phase'"),
    ]:
        with pytest.raises(CheckpointError, match=f"^m.json: {message}"):
            TrainingReport.from_dict(values, {}, source="m.json")
    counters = {"global_step": 1.5, "generator_state": progress.generator_state, "use_query": 1}
    for data, message in [
        (b"garbage", "refused: not a weights-only tensor file$"),
        (_torch_bytes([1]), "corrupted training progress .not a dict"),
        (_torch_bytes(counters), "field 'global_step' is a number, expected an integer"),
        (_torch_bytes({**counters, "global_step": 1}), "field 'use_query' is an integer"),
    ]:
        with pytest.raises(CheckpointError, match=f"^p.pt: .*{message}"):
            Progress.from_counters(report, data, source="p.pt")


def _torch_bytes(value) -> bytes:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()
