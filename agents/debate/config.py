"""The settings of debate training, validated on construction."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from assembly_gym.agents.debate.allocation import check_bounds

__all__ = ["TrainConfig"]


@dataclass(frozen=True)
class TrainConfig:
    """Settings of debate training.

    Attributes:
        max_epochs: most epochs to run.
        min_epochs: fewest epochs before training may stop as converged.
        convergence_threshold: an epoch is stable when its summed absolute allocation change
            is below this.
        patience: consecutive stable epochs needed to stop.
        initial_lr: learning rate η of the first epoch.
        lr_decay: factor applied to η after each epoch, in (0, 1].
        validation_split: share of observations held out for validation, in (0, 1).
        min_allocation: smallest share of any tendency.
        max_allocation: largest share of any tendency.
    """

    max_epochs: int = 10
    min_epochs: int = 2
    convergence_threshold: float = 0.005
    patience: int = 3
    initial_lr: float = 0.15
    lr_decay: float = 0.9
    validation_split: float = 0.2
    min_allocation: float = 0.03
    max_allocation: float = 0.50

    def __post_init__(self) -> None:
        if not 1 <= self.min_epochs <= self.max_epochs:
            raise ValueError(
                f"need 1 ≤ min_epochs ≤ max_epochs, got {self.min_epochs} and {self.max_epochs}"
            )
        if self.patience < 1:
            raise ValueError(f"patience must be ≥ 1, got {self.patience}")
        if not self.convergence_threshold >= 0:
            raise ValueError(f"convergence_threshold must be ≥ 0, got {self.convergence_threshold}")
        if not self.initial_lr > 0:
            raise ValueError(f"initial_lr must be > 0, got {self.initial_lr}")
        if not 0 < self.lr_decay <= 1:
            raise ValueError(f"lr_decay must be in (0, 1], got {self.lr_decay}")
        if not 0 < self.validation_split < 1:
            raise ValueError(
                f"validation_split must be in (0, 1) (a share of the observations), "
                f"got {self.validation_split}"
            )
        if not 0 <= self.min_allocation <= self.max_allocation <= 1:
            raise ValueError(
                f"need 0 ≤ min_allocation ≤ max_allocation ≤ 1, "
                f"got {self.min_allocation} and {self.max_allocation}"
            )

    def check_tendencies(self, n_tendencies: int) -> None:
        """Check that ``n_tendencies`` allocations inside the bounds can sum to 1.

        Raises:
            ValueError: they cannot (names the bounds that would work).
        """
        check_bounds(n_tendencies, self.min_allocation, self.max_allocation)

    def learning_rate(self, epoch: int) -> float:
        """η of a 1-based epoch: ``initial_lr`` · ``lr_decay`` ^ (epoch − 1)."""
        return self.initial_lr * self.lr_decay ** (epoch - 1)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)
