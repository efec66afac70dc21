"""State declarations: validated on construction, serialisable, the outcome rule."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assembly_gym.core.state import OneHotGroup, OutcomeRule, Stages, StateDeclaration, VoteGroup

NAMES = ("phase_open", "phase_closed", "own_for", "own_against", "for", "against", "none",
         "turnout", "passed")  # fmt: skip


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


def test_a_declaration_survives_json():
    again = StateDeclaration.from_dict(json.loads(json.dumps(declaration().to_dict())))
    assert again == declaration() and again.vote("ballot").dims == ("for", "against", "none")
    assert StateDeclaration.from_dict(StateDeclaration().to_dict()) == StateDeclaration()


def test_the_outcome_rule_is_a_majority_of_yes_and_no():
    yes, no = np.array([0.5, 0.5, 0.7, 0.6]), np.array([0.5, 0.4, 0.3, 0.4])
    assert OutcomeRule("adopted", "plenary").passed(yes, no).tolist() == [False, True, True, True]
    assert OutcomeRule("x", "v", majority=2 / 3).passed(yes, no).tolist() == [
        False, False, True, False,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"names": (*NAMES, "turnout")}, "names must be unique"),
        ({"shares": ("turnout", "quorum")}, r"\['quorum'\] are not among the declared names"),
        ({"shares": ("turnout", "for")}, "at most one group"),
        ({"one_hot": (OneHotGroup("stage", ("own_for",), True),)}, "one-hot group names"),
        ({"one_hot": (OneHotGroup("turnout", ("own_for",), True),)}, "one-hot group names"),
        ({"outcome": OutcomeRule("passed", "referendum")}, "'referendum' is not one of"),
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
