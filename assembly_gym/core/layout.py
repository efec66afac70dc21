"""Named observation dimensions: every env says what each value of its observation means."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["ObservationLayout"]


class ObservationLayout:
    """Names of the observation dimensions, with lookup by name.

    Example:
        >>> layout = ObservationLayout(["issue_hr", "year"])
        >>> layout.index("year"), len(layout)
        (1, 2)
    """

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        if len(set(self.names)) != len(self.names):
            raise ValueError("observation names must be unique")
        self._index = {name: i for i, name in enumerate(self.names)}

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObservationLayout) and self.names == other.names

    def __hash__(self) -> int:
        return hash(self.names)

    def __repr__(self) -> str:
        return f"ObservationLayout({len(self.names)} names: {', '.join(self.names[:4])}, …)"

    def index(self, name: str) -> int:
        """Position of a named dimension; KeyError names the known ones when unknown."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no observation dimension {name!r}; known: {self.names}") from None

    def indices(self, names: Sequence[str]) -> np.ndarray:
        """Positions of several named dimensions, shape (len(names),)."""
        return np.array([self.index(n) for n in names], dtype=np.int64)
