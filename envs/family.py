"""An env family: the one object that tells every floor above what it needs of one env.

What a family names, and why its parts may be ``"module:attribute"`` strings imported on first
use (:meth:`EnvFamily.load`): docs/architecture.md, "One object per env family".
:func:`register_family` is the one line that adds a family.

Example:
    >>> import assembly_gym
    >>> family = family_of("Deliberation-v0")
    >>> family.env_id, family.name, list(family.suites)
    ('assembly/Deliberation-v0', 'deliberation', ['deliberation'])
    >>> family.load("declaration").stages.terminal
    'TERMINAL'
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assembly_gym.core.state import StateDeclaration
from assembly_gym.core.transitions import Transitions

__all__ = ["FAMILIES", "EntryPoint", "EnvFamily", "family_of", "register_family", "resolve"]

_ENV_ID = re.compile(r"^(?:[\w.-]+/)?[\w.-]+-v\d+$")  # Gymnasium's [namespace/]Name-vN
_REFERENCE = re.compile(r"^[\w.]+:\w+$")  # "module:attribute"
_PARTS = ("declaration", "transitions", "demonstrations", "feature_map")

EntryPoint = str | Callable[..., Any]
"""An env's class (or any callable that builds it), or ``"module:Class"``."""


def resolve(reference: Any) -> Any:
    """The object a ``"module:attribute"`` string names (its module imported now).

    Any other value is returned as it is, so a part may be given as the object itself.
    """
    if not isinstance(reference, str):
        return reference
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class EnvFamily:
    """One env and what the floors above need of it; see the module docstring.

    Attributes:
        env_id: the Gymnasium id, ``namespace/Name-vN``.
        entry_point: the env's class (Gymnasium's entry point), or ``"module:Class"``.
        vector_entry_point: its native vector env's class (what ``gym.make_vec`` builds), or
            ``"module:Class"``, or None.
        declaration: its state declaration: which dimensions are the stage, the votes and
            the outcome rule (the empty declaration: none are).
        transitions: ``transitions(data=None, **options) -> Transitions``: every transition
            the family's data holds (``data=None``: its default data), carrying the
            declaration: what world models learn; or None.
        demonstrations: ``demonstrations(data, countries=None, ...)``: recorded behaviour
            as demonstrations (what imitation and IRL learn from), or None.
        feature_map: the reward features φ(s, a), a class built from the layout's names,
            or None.
        suites: ``bench`` suite name → the suite, or ``"module:SUITE"`` (suites live on the
            ``benchmarks`` floor, which builds its table of suites from the families).

    Raises:
        ValueError: an id that is not ``[namespace/]Name-vN``, or a string part that is not
            ``"module:attribute"``.
    """

    env_id: str
    entry_point: EntryPoint
    vector_entry_point: EntryPoint | None = None
    declaration: StateDeclaration | str = StateDeclaration()
    transitions: Callable[..., Transitions] | str | None = None
    demonstrations: Callable[..., Sequence[Any]] | str | None = None
    feature_map: Callable[..., Any] | str | None = None
    suites: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not _ENV_ID.match(self.env_id):
            raise ValueError(f"env id {self.env_id!r} is not [namespace/]Name-vN")
        parts = {"entry_point": self.entry_point, "vector_entry_point": self.vector_entry_point,
                 **{part: getattr(self, part) for part in _PARTS}, **self.suites}  # fmt: skip
        for part, value in parts.items():
            if isinstance(value, str) and not _REFERENCE.match(value):
                raise ValueError(f"{self.env_id}: {part} {value!r} is not 'module:attribute'")

    @property
    def name(self) -> str:
        """The id's name in lower case, without namespace and version (``"rollcall"``)."""
        return self.env_id.rpartition("/")[2].rpartition("-v")[0].lower()

    def load(self, part: str) -> Any:
        """A part (``"declaration"``, ``"transitions"``, …) as an object, imported now.

        Raises:
            ValueError: not one of the parts.
        """
        if part not in _PARTS:
            raise ValueError(f"a family's parts are {_PARTS}, not {part!r}")
        return resolve(getattr(self, part))


FAMILIES: dict[str, EnvFamily] = {}
"""Every registered family, by env id, in the order they were registered."""


def register_family(family: EnvFamily) -> None:
    """Add a family: :func:`family_of` finds it, ``gym.make(family.env_id)`` builds its env.

    Safe to call twice with the same family.

    Raises:
        ValueError: another family is registered under the same id.
    """
    if FAMILIES.setdefault(family.env_id, family) != family:
        raise ValueError(f"{family.env_id} is registered already, as another family")
    # Imported here: registration runs while Gymnasium 0.29 loads its plugins (see
    # envs.registration), when a top-level import would find gymnasium half initialised.
    from gymnasium.envs.registration import register, registry

    if family.env_id not in registry:
        register(
            id=family.env_id,
            entry_point=family.entry_point,
            vector_entry_point=family.vector_entry_point,
        )


def family_of(env: str) -> EnvFamily:
    """The registered family of an env: its id, its id without namespace, or its name.

    Args:
        env: e.g. ``"assembly/RollCall-v0"``, ``"RollCall-v0"`` or ``"rollcall"``.

    Raises:
        ValueError: no registered family has that id or name.
    """
    for family in FAMILIES.values():
        if env in (family.env_id, family.env_id.rpartition("/")[2], family.name):
            return family
    raise ValueError(f"no env family {env!r}; registered: {', '.join(FAMILIES)}")
