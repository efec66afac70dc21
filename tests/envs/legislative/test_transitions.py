"""The legislative transitions builders: equal to the demonstrations; the plenary-only real case."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.core.paths import unvotes_dir
from assembly_gym.core.state import StateDeclaration
from assembly_gym.envs.legislative.data import ABSENT
from assembly_gym.envs.legislative.deliberation import (
    STATE_DECLARATION,
    STATE_NAMES,
    resolution_records,
)
from assembly_gym.envs.legislative.demonstrations import deliberation_demonstrations
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.resolutions import NOT_RECORDED, records_from_roll_calls
from assembly_gym.envs.legislative.transitions import (
    deliberation_transitions,
    mark_non_members,
    rollcall_transitions,
    transitions_from_demonstrations,
)

NAMES = (*feature_names(), *STATE_NAMES)


def demo_transitions(records):
    """The reference: every step of every demonstration, as the demonstrations give it."""
    demos = deliberation_demonstrations(mark_non_members(records), from_first_recorded=True)
    column = {int(r): i for i, r in enumerate(records.resolutions["rcid"])}
    groups = np.array([column[d.infos[0]["rcid"]] for d in demos])
    return transitions_from_demonstrations(demos, NAMES, groups=groups)


@pytest.mark.parametrize("source", ["simulated", "roll calls"])
def test_deliberation_transitions_equal_the_demonstrations(small_assembly, source):
    if source == "simulated":
        records = resolution_records(small_assembly)
    else:
        records = records_from_roll_calls(small_assembly.data)
    fast, reference = deliberation_transitions(records), demo_transitions(records)
    for name in ("obs", "acts", "next_obs", "dones", "episodes", "groups", "masks"):
        assert np.array_equal(getattr(fast, name), getattr(reference, name)), name
    assert fast.obs_names == NAMES
    assert fast.declaration == STATE_DECLARATION  # what a model fitted on them carries


def test_complete_records_give_three_steps_per_episode(small_assembly):
    delib = deliberation_transitions(small_assembly)
    n_countries, n_resolutions = resolution_records(small_assembly).plenary.shape
    assert len(delib) == 3 * n_countries * n_resolutions  # all transitions the data holds
    stage = delib.obs[:, [NAMES.index(f"stage_{s}") for s in ("draft", "committee", "plenary")]]
    assert stage.sum(1).tolist() == [1.0] * len(delib)
    assert np.array_equal(delib.dones, stage[:, 2] == 1)
    voted = delib.extras["voters"][stage[:, 0] == 0]
    assert (voted > 0).all() and (delib.extras["voters"][stage[:, 0] == 1] == 0).all()


def test_roll_call_records_give_the_plenary_step_only(small_assembly):
    records = records_from_roll_calls(small_assembly.data)
    t = deliberation_transitions(records)
    plenary, terminal = NAMES.index("stage_plenary"), NAMES.index("stage_terminal")
    assert (t.obs[:, plenary] == 1).all() and (t.next_obs[:, terminal] == 1).all() and t.dones.all()
    earlier = ("committee", "own_committee", "sponsor", "own_cosponsor")
    unrecorded = [NAMES.index(n) for n in STATE_NAMES if n.startswith(earlier)]
    assert (t.next_obs[:, unrecorded] == 0).all()
    assert len(np.unique(t.episodes)) == len(t)


def test_countries_without_a_vote_in_a_session_are_not_members(small_assembly):
    records = records_from_roll_calls(small_assembly.data)
    plenary = records.plenary.copy()
    first_session = (
        records.resolutions["session"].to_numpy() == records.resolutions["session"].min()
    )
    plenary[0, first_session] = ABSENT  # country 0 casts no vote in the first session
    records = type(records)(records.countries, records.resolutions, records.sponsors,
                            records.committee, plenary, records.source)  # fmt: skip
    marked = mark_non_members(records)
    assert (marked.plenary[0, first_session] == NOT_RECORDED).all()
    assert (marked.plenary[1:] == records.plenary[1:]).all()
    t = deliberation_transitions(records, [records.country_names[0]])
    assert not np.isin(t.groups, np.flatnonzero(first_session)).any()


def test_rollcall_transitions(small_assembly):
    rollcall = rollcall_transitions(small_assembly)
    assert len(rollcall) == (small_assembly.data.votes != ABSENT).sum()
    last = np.flatnonzero(rollcall.dones)
    assert np.array_equal(rollcall.obs[last], rollcall.next_obs[last])  # the env repeats it
    assert np.array_equal(rollcall.groups, rollcall.extras["session"])
    assert rollcall.masks.all() and rollcall.masks.shape[1] == 3
    assert rollcall.declaration == StateDeclaration()


@pytest.mark.real_data
@pytest.mark.skipif(unvotes_dir() is None, reason="real data not found (../shared/data)")
def test_real_votes_give_plenary_transitions_of_members():
    t = deliberation_transitions("unvotes", ["South Sudan"])
    assert (t.obs[:, NAMES.index("stage_plenary")] == 1).all() and t.dones.all()
    # South Sudan joined in July 2011: no transitions (non-member absences) before session 65
    assert t.extras["session"].min() >= 65 and t.extras["session"].max() == 69
    assert (t.acts != 4).any()  # votes cast, and absences of a member (often, for South Sudan)
