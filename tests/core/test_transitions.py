"""Transitions: validation, selection, splits that never cut a group, concatenation, declaration."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.core.state import StateDeclaration
from assembly_gym.core.transitions import Transitions


def make(n=6, d=3, **fields):
    rng = np.random.default_rng(0)
    base = dict(
        obs=rng.random((n, d)).astype(np.float32),
        acts=np.arange(n) % 2,
        next_obs=rng.random((n, d)).astype(np.float32),
        dones=np.arange(n) % 2 == 1,
        episodes=np.arange(n) // 2,
        obs_names=tuple(f"x{i}" for i in range(d)),
    )
    return Transitions(**(base | fields))


def test_transitions_reject_bad_shapes_and_values():
    with pytest.raises(ValueError, match="must both have shape"):
        make(next_obs=np.zeros((6, 2), np.float32))
    with pytest.raises(ValueError, match="acts has 5 rows, expected 6"):
        make(acts=np.zeros(5, np.int64))
    with pytest.raises(ValueError, match="2 observation names for 3 dimensions"):
        make(obs_names=("a", "b"))
    with pytest.raises(ValueError, match="NaN or infinite"):
        make(obs=np.full((6, 3), np.nan, np.float32))
    with pytest.raises(ValueError, match="masks must be bool"):
        make(masks=np.ones((6, 2), np.int64))
    with pytest.raises(ValueError, match="bounds must be"):
        make(bounds=(np.zeros(2), np.ones(2)))
    with pytest.raises(ValueError, match="voters has 2 rows"):
        make(extras={"voters": np.zeros(2)})


def test_select_keeps_optional_fields():
    t = make(groups=np.array([0, 0, 1, 1, 2, 2]), masks=np.ones((6, 2), bool),
             extras={"voters": np.arange(6)})  # fmt: skip
    part = t.select(np.array([2, 3]))
    assert len(part) == 2 and part.groups.tolist() == [1, 1]
    assert part.extras["voters"].tolist() == [2, 3] and part.masks.shape == (2, 2)


def test_split_by_episode_never_cuts_a_group():
    groups = np.repeat(np.arange(10), 4)  # 10 groups of 2 episodes of 2 steps
    t = make(n=40, groups=groups, episodes=np.arange(40) // 2)
    parts = t.split_by_episode((0.6, 0.2, 0.2), np.random.default_rng(1))
    assert sum(len(p) for p in parts) == 40
    seen = [set(p.groups.tolist()) for p in parts]
    assert [len(s) for s in seen] == [6, 2, 2]
    assert not (seen[0] & seen[1] or seen[0] & seen[2] or seen[1] & seen[2])
    with pytest.raises(ValueError, match="sum to 1"):
        t.split_by_episode((0.5, 0.2), np.random.default_rng(0))


def test_episode_starts_and_concatenate():
    t = make()
    assert t.episode_starts().tolist() == [0, 2, 4]
    both = Transitions.concatenate([t, t.select(np.arange(2))])
    assert len(both) == 8 and both.obs_names == t.obs_names
    with pytest.raises(ValueError, match="observation names"):
        Transitions.concatenate([t, make(obs_names=("a", "b", "c"))])
    with pytest.raises(ValueError, match="nothing to concatenate"):
        Transitions.concatenate([])


def test_the_declaration_travels_with_selections_and_refuses_a_mixed_batch():
    declared = make(declaration=StateDeclaration(names=("x0",), shares=("x0",)))
    assert make().declaration == StateDeclaration()
    assert declared.select(np.arange(2)).declaration == declared.declaration
    assert Transitions.concatenate([declared, declared]).declaration == declared.declaration
    with pytest.raises(ValueError, match="state declaration"):
        Transitions.concatenate([declared, make()])
