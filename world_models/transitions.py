"""The transitions world models learn, from any env family, and the splits they are judged on.

An env family's transitions builder (:attr:`~assembly_gym.envs.family.EnvFamily.transitions`)
makes every transition its data holds (:func:`env_transitions`); episodes that must not be
separated share a group (e.g. the resolution, or the session), and :func:`split_transitions`
never cuts a group.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assembly_gym.core.transitions import Transitions
from assembly_gym.envs.family import FAMILIES, family_of

__all__ = ["env_transitions", "modelled_envs", "split_transitions"]


def modelled_envs(namespace: str | None = None) -> tuple[str, ...]:
    """The registered envs with a transitions builder, by id without namespace.

    Args:
        namespace: only the ids in this namespace (``"assembly"``: this package's envs,
            which read the UN roll calls), or None for every registered family.
    """
    return tuple(
        env_id.rpartition("/")[2]
        for env_id, family in FAMILIES.items()
        if family.transitions and namespace in (None, env_id.partition("/")[0])
    )


def env_transitions(env: str, data: Any = None, **options: Any) -> Transitions:
    """Every transition of an env family's data, as its transitions builder makes them.

    Args:
        env: the family's id, with or without namespace, or its name (``"Deliberation-v0"``).
        data: the family's data (None: its default, e.g. the synthetic assembly).
        **options: the builder's options, e.g. ``progress=True``.

    Raises:
        ValueError: no such family, or one without a transitions builder.
    """
    family = family_of(env)
    if family.transitions is None:
        raise ValueError(f"world models learn {', '.join(modelled_envs())}, not {env!r}")
    return family.load("transitions")(data, **options)


def split_transitions(
    transitions: Transitions, *, last_train_session: int | None = None, seed: int = 0
) -> tuple[Transitions, Transitions, Transitions]:
    """Train, validation and test parts; a group (resolution or session) is never cut.

    Args:
        transitions: with extra ``session`` when ``last_train_session`` is given.
        last_train_session: None: 60/20/20 of the groups at random. A session: test = the
            later sessions, and the earlier ones split 80/20 into train and validation.
        seed: seed of the shuffle.
    """
    rng = np.random.default_rng(seed)
    if last_train_session is None:
        return transitions.split_by_episode((0.6, 0.2, 0.2), rng)  # type: ignore[return-value]
    if "session" not in transitions.extras:
        raise ValueError("a temporal split needs the transitions' 'session' extra")
    later = transitions.extras["session"] > last_train_session
    if later.all() or not later.any():
        raise ValueError(
            f"last_train_session={last_train_session} leaves no "
            f"{'training' if later.all() else 'test'} transitions"
        )
    train, validation = transitions.select(~later).split_by_episode((0.8, 0.2), rng)
    return train, validation, transitions.select(later)
