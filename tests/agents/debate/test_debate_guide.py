"""The seed guide's Quick Start and example, with only their import lines changed.

The guide calls ``model.agents.all()``, ``agent.tendency.value``, ``result.winner.value`` and
names person tendencies by enum value: thin aliases of the package's own API.
"""

from __future__ import annotations

import json

import numpy as np

from assembly_gym.agents.debate.synthetic import synthetic_person

GUIDE = """
from assembly_gym.agents.debate import ConsoleLogger, TrainConfig, Trainer, create_debate_model
from assembly_gym.agents.debate.tendencies import PersonTendency

# Quick Start
model = create_debate_model("Ada", observations_file)
config = TrainConfig(max_epochs=10)
trainer = Trainer(config)
history, result = trainer.train(model.observations, model.agents.all(), logger=ConsoleLogger())
print(f"Dominant tendency: {result.winner.value}")

# Example: read the calibrated mixture
for agent in model.agents.all():
    print(f"{agent.tendency.value:<10} {agent.allocation:6.1%}")
print(f"Best epoch: {history.best_epoch} of {history.epochs_run}")
for tendency in PersonTendency:
    print(f"{tendency.value}: {tendency.description}")
model.save(model_file)
"""


def test_the_guides_quick_start_and_example_run(tmp_path, capsys):
    document, _, _ = synthetic_person(120, rng=np.random.default_rng(1))
    observations_file = tmp_path / "ada.json"
    observations_file.write_text(json.dumps(document))
    names = {"observations_file": observations_file, "model_file": tmp_path / "ada.debate.json"}
    exec(compile(GUIDE, "guide.py", "exec"), names)
    printed = capsys.readouterr().out
    model, result = names["model"], names["result"]
    assert f"Dominant tendency: {result.winner.value}" in printed
    assert result.winner.value == max(model.allocations, key=model.allocations.get)
    assert all(f"{agent.tendency.value:<10}" in printed for agent in model.agents)
    assert "survival: Survival: staying alive" in printed
    assert model.agents.all() is model.agents and (tmp_path / "ada.debate.json").is_file()
