"""What a search space is: its hyperparameters, its score, and the command that reads its best.

A :class:`Space` names hyperparameters (:class:`Param`, each the ``dest`` of a flag of the
consuming command), builds its data once in the driver (:attr:`Space.prepare`), and runs one
configuration for one seed as a generator (:attr:`Space.iterations`) that yields the
validation score after each iteration: a fit, a chunk of epochs, a chunk of timesteps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Param", "Space", "SweepSettings"]


@dataclass(frozen=True)
class Param:
    """One hyperparameter: a flag of the consuming command and the range searched.

    Attributes:
        name: the flag's dest (``l2`` for ``--l2``).
        kind: ``"log"`` (log-uniform float), ``"log_int"`` (log-uniform integer),
            ``"uniform"`` (float) or ``"choice"`` (one of ``choices``).
        low: the smallest value (numbers).
        high: the largest value (numbers; included).
        choices: the values of a ``"choice"``.
    """

    name: str
    kind: Literal["log", "log_int", "uniform", "choice"]
    low: float = 0.0
    high: float = 0.0
    choices: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"{self.name}: a choice needs choices")
        if self.kind != "choice" and not (
            self.low < self.high and (self.low > 0 or self.kind == "uniform")
        ):
            raise ValueError(f"{self.name}: need 0 < low < high (log) or low < high")

    @property
    def log(self) -> bool:
        """Whether the value is searched (and plotted) on a log scale."""
        return self.kind in ("log", "log_int")

    def domain(self, tune: Any) -> Any:
        """The Tune search domain (``tune``: the ``ray.tune`` module)."""
        if self.kind == "choice":
            return tune.choice(list(self.choices))
        if self.kind == "log_int":
            return tune.lograndint(int(self.low), int(self.high) + 1)
        if self.kind == "log":
            return tune.loguniform(self.low, self.high)
        return tune.uniform(self.low, self.high)

    def describe(self) -> str:
        """A few words: ``l2: log-uniform in [0.01, 1000]``."""
        if self.kind == "choice":
            return f"{self.name}: one of {', '.join(map(str, self.choices))}"
        what = {"log": "log-uniform", "log_int": "log-uniform integer", "uniform": "uniform"}
        return f"{self.name}: {what[self.kind]} in [{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class SweepSettings:
    """The data a sweep is scored on, as the command line gave it.

    Attributes:
        data: an unvotes folder or UNDL CSV (None: the synthetic assembly).
        sessions: the training sessions (first, last), inclusive (None: those of the
            bench's temporal split, the first three quarters).
        countries: the countries (None: every country that voted; the debate: the first).
        validation_sessions: how many of the last training sessions validate (None: a
            sixth, at least one).
        quick: tiny sizes, for a smoke test.
    """

    data: str | None = None
    sessions: tuple[int, int] | None = None
    countries: tuple[str, ...] | None = None
    validation_sessions: int | None = None
    quick: bool = False


@dataclass(frozen=True)
class Space:
    """A named search space and how one of its configurations is scored.

    Attributes:
        name: what ``assembly-gym sweep NAME`` calls it.
        params: the hyperparameters.
        command: the command whose ``--config`` reads the best flags (``"irl fit"``).
        metric: the score's name (``"validation log-loss"``).
        mode: ``"min"`` or ``"max"``: which score is best.
        prepare: settings → the data every trial shares (built once, in the driver).
        iterations: (config, seed, data) → the validation score after each iteration.
        n_iterations: settings → how many scores a trial yields at most (1: no early stopping).
        summary: one line for the docs and ``--help``.
        fixed: flags the best flags always carry, by dest (``{"kind": "linear"}``).
    """

    name: str
    params: tuple[Param, ...]
    command: str
    metric: str
    mode: Literal["min", "max"]
    prepare: Callable[[SweepSettings], Any]
    iterations: Callable[[Mapping[str, Any], int, Any], Iterator[float]]
    n_iterations: Callable[[SweepSettings], int]
    summary: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
