"""State declarations: validated on construction, serialisable; the outcome rule."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assembly_gym.core.state import (
    ABSENT,
    OneHotGroup,
    OutcomeRule,
    Stages,
    StateDeclaration,
    Vote,
    VoteGroup,
)

NAMES = ("phase_open", "phase_closed", "own_for", "own_against", "for", "against", "none",
         "turnout", "passed")  # fmt: skip
YES, NO, ABSTAIN = Vote.YES, Vote.NO, Vote.ABSTAIN
COUNCIL = OutcomeRule("adopted", "council", quota=0.6, veto=(0, 1), veto_dims=("no_0", "no_1"))
"""Five members, adopting with 3 yes of 5 (0.6) unless member 0 or 1 votes no."""


def declaration(**overrides):
    fields = dict(
        names=NAMES,
        stages=Stages(("phase_open", "phase_closed"), ("OPEN", "CLOSED"), "CLOSED"),
        one_hot=(OneHotGroup("own_ballot", ("own_for", "own_against"), True),),
        votes=(VoteGroup("ballot", ("for", "against", "none")),),
        shares=("turnout",),
        outcome=OutcomeRule("passed", "ballot", majority=2 / 3),
    )
    return StateDeclaration(**(fields | overrides))


def council_declaration() -> StateDeclaration:
    return StateDeclaration(
        names=("council_yes", "council_no", "council_abstain", "no_0", "no_1", "adopted"),
        votes=(VoteGroup("council", ("council_yes", "council_no", "council_abstain")),),
        outcome=COUNCIL,
    )


@pytest.mark.parametrize("make", [declaration, council_declaration, StateDeclaration])
def test_a_declaration_survives_json(make):
    again = StateDeclaration.from_dict(json.loads(json.dumps(make().to_dict())))
    assert again == make()


def test_the_outcome_rule_is_a_majority_of_yes_and_no():
    yes, no = np.array([0.5, 0.5, 0.7, 0.6]), np.array([0.5, 0.4, 0.3, 0.4])
    assert OutcomeRule("adopted", "plenary").passed(yes, no).tolist() == [False, True, True, True]
    assert OutcomeRule("x", "v", majority=2 / 3).passed(yes, no).tolist() == [
        False, False, True, False,
    ]  # fmt: skip
    assert OutcomeRule().passed(3, 2) is True and OutcomeRule().passed(2, 2) is False


def test_the_rule_decides_from_the_members_votes():
    votes = np.array([[YES, YES, NO, ABSTAIN, ABSENT], [YES, NO, NO, ABSTAIN, ABSENT]])
    np.testing.assert_array_equal(OutcomeRule()(votes), [True, False])
    assert OutcomeRule()(np.full((2, 3, 4), ABSENT)).shape == (2, 3)  # no vote: not adopted
    assert not OutcomeRule()(np.array([YES, ABSENT, -2, NO, NO]))  # any negative code is absent


@pytest.mark.parametrize(
    ("votes", "adopted"),
    [
        ([YES, YES, YES, NO, NO], True),  # 3 of 5, no veto member against
        ([YES, NO, YES, YES, YES], False),  # member 1 vetoes a 4 : 1 majority
        ([ABSTAIN, YES, YES, YES, ABSENT], True),  # a veto member's abstention does not block
        ([YES, YES, NO, ABSTAIN, ABSTAIN], False),  # 2 : 1, short of the quota of 3
    ],
)
def test_a_veto_and_a_quota_can_be_declared(votes, adopted):
    assert COUNCIL(np.array(votes)) == adopted


def test_nine_of_fifteen_is_a_quota_of_all_members():
    nine_of_fifteen = OutcomeRule(quota=0.6)
    votes = np.array([[YES] * 9 + [NO] * 6, [YES] * 8 + [ABSTAIN] * 7])
    np.testing.assert_array_equal(nine_of_fifteen(votes), [True, False])


def test_a_veto_decides_from_a_state_too():
    state = council_declaration()
    values = np.array([[0.6, 0.4, 0.0, 0, 0, 0], [0.8, 0.2, 0.0, 0, 1, 0],
                       [0.4, 0.2, 0.4, 0, 0, 0]])  # fmt: skip
    adopted = COUNCIL.from_state(values, state.names, state.vote("council"))
    np.testing.assert_array_equal(adopted, [True, False, False])
    np.testing.assert_array_equal(COUNCIL.vetoed(values, state.names), [False, True, False])
    with pytest.raises(ValueError, match="has a veto: pass vetoed"):
        COUNCIL.passed(0.6, 0.4)
    with pytest.raises(ValueError, match="needs its veto_dims among the state's names"):
        COUNCIL.vetoed(values[:, :3], state.names[:3])
    with pytest.raises(ValueError, match="is decided by the vote 'council', not 'ballot'"):
        COUNCIL.from_state(values, state.names, VoteGroup("ballot", ("a", "b", "c")))
    with pytest.raises(ValueError, match="need votes of more than 1 members"):
        COUNCIL(np.array([YES]))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"names": (*NAMES, "turnout")}, "names must be unique"),
        ({"shares": ("turnout", "quorum")}, r"\['quorum'\] are not among the declared names"),
        ({"shares": ("turnout", "for")}, "at most one group"),
        ({"one_hot": (OneHotGroup("stage", ("own_for",), True),)}, "one-hot group names"),
        ({"one_hot": (OneHotGroup("turnout", ("own_for",), True),)}, "one-hot group names"),
        ({"outcome": OutcomeRule("passed", "referendum")}, "'referendum' is not one of"),
        ({"outcome": OutcomeRule("passed", "ballot", veto=(0,))}, "needs its veto_dims"),
        (
            {"outcome": OutcomeRule("passed", "ballot", veto=(0,), veto_dims=("x",))},
            r"\['x'\] are not among the declared names",
        ),
        (
            {"outcome": OutcomeRule("passed", "ballot", veto=(0,), veto_dims=("for",))},
            "at most one group",
        ),
    ],
)
def test_inconsistent_declarations_are_refused(overrides, message):
    with pytest.raises(ValueError, match=message):
        declaration(**overrides)


def test_inconsistent_parts_are_refused():
    with pytest.raises(ValueError, match="need as many labels"):
        Stages(("a", "b"), ("A",), "A")
    with pytest.raises(ValueError, match="labels must be unique"):
        Stages(("a", "b"), ("A", "A"), "A")
    with pytest.raises(ValueError, match="terminal stage 'END' is not one of"):
        Stages(("a", "b"), ("A", "B"), "END")
    with pytest.raises(ValueError, match=r"needs \(yes, no, abstain\) dims"):
        VoteGroup("ballot", ("for", "against"))
    with pytest.raises(ValueError, match="majority must lie in"):
        OutcomeRule("passed", "ballot", majority=1.0)
    with pytest.raises(ValueError, match=r"quota must lie in \[0, 1\]"):
        OutcomeRule(quota=1.5)
    with pytest.raises(ValueError, match="distinct indices >= 0"):
        OutcomeRule(veto=(1, 1))
    with pytest.raises(ValueError, match="one dimension per veto member"):
        OutcomeRule(veto=(0, 1), veto_dims=("no_0",))
