"""Parameter counts, per-phase parameters in checkpoints, the ablations and the phase-2 options."""

import torch

from assembly_gym.world_models.leworld import (
    LeWorldModel,
    LeWorldSystem,
    evaluate_system,
    train_leworld,
)
from assembly_gym.world_models.leworld.batches import SequenceBatch
from assembly_gym.world_models.leworld.evaluation import (
    ablation_table,
    always_open,
    phase_ablation,
)
from assembly_gym.world_models.leworld.system import count_params
from assembly_gym.world_models.leworld.training import train_phase


def test_count_params_splits_the_system_into_its_components(world, tiny_config):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    counts = count_params(system)
    assert counts["total"] == sum(p.numel() for p in system.parameters())
    assert counts["total"] == sum(v for k, v in counts.items() if k != "total")
    assert all(v > 0 for v in counts.values())
    assert counts["info-request head"] == 32 * 4 + 4  # blm_hidden × query_dim + bias
    assert counts["router"] > system.config.num_slms  # its MLP and one bias per SLM


def test_per_phase_parameters_are_saved_loaded_and_ablated(world, tiny_config, data, tmp_path):
    config = tiny_config(phase1_epochs=1, phase2_epochs=1, phase3_epochs=1)
    system, report = train_leworld(
        world, config, phases=(1, 2, 3), data=data, progress=False, evaluate=False
    )
    assert list(report.states) == ["phase 1", "phase 2", "phase 3"]
    LeWorldModel(system, phase_states=report.states).save(tmp_path / "model")
    loaded = LeWorldModel.load(tmp_path / "model")
    systems = loaded.phase_systems()
    assert list(systems) == ["phase 1", "phase 2", "phase 3"]
    assert [s.use_query for s in systems.values()] == [False, False, loaded.system.use_query]
    for name, value in report.states["phase 1"].items():
        assert torch.equal(systems["phase 1"].state_dict()[name], value), name
    batch = SequenceBatch.from_episodes(data.test)
    with torch.no_grad():  # the final parameters are the loaded system's
        torch.testing.assert_close(
            systems["phase 3"].run(batch).predictions, loaded.system.run(batch).predictions
        )
    comparisons = phase_ablation(systems, data.test)
    assert list(comparisons)[:2] == ["phase 2 vs phase 1", "phase 3 vs phase 2"]
    assert list(comparisons)[-1] == "router vs always open"
    assert all(d.n == len(data.test) and d.low <= d.high for d in comparisons.values())
    table = ablation_table(comparisons)
    assert table.count("\n") == len(comparisons) + 1 and "| phase 2 vs phase 1 |" in table


def test_a_checkpoint_without_per_phase_parameters_loads_with_none(world, tiny_config, tmp_path):
    LeWorldModel(LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)).save(tmp_path)
    loaded = LeWorldModel.load(tmp_path)
    assert loaded.phase_states == {} and loaded.phase_systems() == {}


def _phase2(world, config, data) -> tuple[LeWorldSystem, dict[str, torch.Tensor]]:
    system = LeWorldSystem(world.config, world.memory, config, seed=0)
    before = {k: v.clone() for k, v in system.state_dict().items()}
    train_phase(
        system,
        phase=2,
        train=SequenceBatch.from_episodes(data.train),
        val=SequenceBatch.from_episodes(data.val),
        progress=False,
        generator=torch.Generator().manual_seed(0),
    )
    return system, before


def test_phase2_with_frozen_slms_trains_only_the_rest(world, tiny_config, data):
    config = tiny_config(phase2_freeze_slm_epochs=3, phase2_lr=1e-2, phase2_warmup_steps=0)
    system, before = _phase2(world, config, data)
    changed = {k for k, v in system.state_dict().items() if not torch.equal(v, before[k])}
    assert changed and not any(k.startswith(("slms.", "blm.info_head.")) for k in changed)
    assert all(p.requires_grad for p in system.parameters())


def test_the_always_open_baseline_routes_every_read(world, tiny_config, data):
    system = LeWorldSystem(world.config, world.memory, tiny_config(), seed=0)
    torch.nn.init.constant_(system.blm.router_bias, -50.0)  # the router closes every gate
    opened = always_open(system)
    assert not system.open_router and opened.open_router
    assert evaluate_system(system, data.test).slm_usage == (0.0, 0.0)
    assert evaluate_system(opened, data.test).slm_usage == (1.0, 1.0)
