"""The state declaration of every ``assembly/`` env family, and the one a layout belongs to.

World models and ``Simulator-v0`` need to know what the dimensions of the env they model
are (:class:`~assembly_gym.core.state.StateDeclaration`). A model fitted or saved with a
declaration carries it; otherwise (models saved before declarations, models of any kind
that know only their layout) :func:`declaration_for_layout` finds it from the layout's
names.

Example:
    >>> from assembly_gym.envs.legislative.deliberation import STATE_NAMES
    >>> declaration_for_layout(("year", *STATE_NAMES)).stages.terminal
    'TERMINAL'
    >>> declaration_for_layout(("a", "b")) == STATE_DECLARATIONS["assembly/RollCall-v0"]
    True
"""

from __future__ import annotations

from collections.abc import Sequence

from assembly_gym.core.state import StateDeclaration
from assembly_gym.envs.legislative import deliberation, rollcall
from assembly_gym.envs.memory import env as memory

__all__ = ["STATE_DECLARATIONS", "declaration_for_layout"]

STATE_DECLARATIONS: dict[str, StateDeclaration] = {
    "assembly/Deliberation-v0": deliberation.STATE_DECLARATION,
    "assembly/RollCall-v0": rollcall.STATE_DECLARATION,
    "assembly/MemoryDynamics-v0": memory.STATE_DECLARATION,
}
"""Env id → the state declaration of its family."""


def declaration_for_layout(names: Sequence[str]) -> StateDeclaration:
    """The declaration of the env family a layout belongs to.

    Args:
        names: the observation layout's dimension names.

    Returns:
        The declaration in :data:`STATE_DECLARATIONS` that names the most of the layout's
        dimensions; the empty declaration (no stages, nothing grouped) when none names any.
    """
    present = set(names)
    best = max(STATE_DECLARATIONS.values(), key=lambda d: len(present.intersection(d.names)))
    return best if present.intersection(best.names) else StateDeclaration()
