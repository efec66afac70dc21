"""Reset options checked against what an env accepts: a typo or a wrong type raises.

Each env declares the options its ``reset`` takes and their types (``RESET_OPTIONS``); its
vector version checks the same ones. ``int`` means an integral number that is not a bool
(``np.int64`` passes). None always passes: it means what None means in the env's
constructor (e.g. draw the country at random).

Example:
    >>> checked_options({"country": "Canada"}, {"country": (str,)}, "env")
    {'country': 'Canada'}
    >>> checked_options({"contry": "Canada"}, {"country": (str,)}, "env")
    Traceback (most recent call last):
    ...
    ValueError: env: unknown reset option 'contry' (did you mean 'country'?); accepted: 'country'
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Mapping
from typing import Any

__all__ = ["OptionTypes", "checked_options"]

OptionTypes = Mapping[str, tuple[type, ...]]
"""Option name → the types its value may have."""


def checked_options(options: Any, accepted: OptionTypes, owner: str) -> dict[str, Any]:
    """A copy of ``options`` (None: empty) once every key and value type is checked.

    Args:
        options: the ``options`` handed to ``reset``.
        accepted: the options the env takes and their types.
        owner: the env, for messages (e.g. ``"RollCall-v0"``).

    Raises:
        TypeError: ``options`` is not a mapping, or a value has another type than its option's.
        ValueError: a key is not an accepted option; the message lists the accepted ones.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"{owner}: reset options must be a dict, got {type(options).__name__}")
    for key, value in options.items():
        if key not in accepted:
            names = ", ".join(map(repr, accepted)) or "none"
            close = difflib.get_close_matches(str(key), list(accepted), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"{owner}: unknown reset option {key!r}{hint}; accepted: {names}")
        types = accepted[key]
        if value is not None and not any(_is(value, kind) for kind in types):
            expected = " or ".join(kind.__name__ for kind in types)
            raise TypeError(
                f"{owner}: option {key!r} must be {expected}, got {type(value).__name__} {value!r}"
            )
    return dict(options)


def _is(value: Any, kind: type) -> bool:
    if kind is int:  # any integral number (np.int64 too), but not a bool
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    return isinstance(value, kind)
