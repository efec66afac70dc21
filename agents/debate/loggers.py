"""Loggers of debate training: console, JSON file, TensorBoard, Weights & Biases.

A logger is anything with the three methods of
:class:`~assembly_gym.agents.debate.trainer.DebateLogger`; pass several as a list. The JSON
log's schema and the scalars' tags: docs/debate.md, "Loggers and plots".
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from assembly_gym.core.errors import MissingDependencyError
from assembly_gym.core.persist import atomic_write_json
from assembly_gym.core.tensorboard import summary_writer

if TYPE_CHECKING:
    from assembly_gym.agents.debate.trainer import (
        DebateResult,
        EpochMetrics,
        TrainConfig,
        TrainHistory,
    )
    from assembly_gym.agents.debate.validator import ValidationResult

__all__ = [
    "JSON_LOG_KIND",
    "ConsoleLogger",
    "JSONLogger",
    "TensorBoardLogger",
    "WandbLogger",
]

JSON_LOG_KIND = "debate-training-log"


class ConsoleLogger:
    """One block of text per epoch: learning rate, winner and score, allocations in %, validation.

    Args:
        stream: where to print (default ``sys.stdout``).
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self._max_epochs = 0

    def _print(self, text: str) -> None:
        print(text, file=self.stream or sys.stdout)

    def start(self, config: TrainConfig, tendencies: Sequence[str]) -> None:
        """Print the setting."""
        self._max_epochs = config.max_epochs
        self._print(
            f"Debate of {len(tendencies)} tendencies, at most {config.max_epochs} epochs, "
            f"allocations in [{config.min_allocation:.0%}, {config.max_allocation:.0%}]"
        )

    def log_epoch(self, metrics: EpochMetrics, validation: ValidationResult) -> None:
        """Print the epoch's block."""
        width = max(len(name) for name in metrics.allocations)
        lines = [
            f"Epoch {metrics.epoch}/{self._max_epochs}  lr {metrics.learning_rate:.4f}",
            f"  winner: {metrics.winner} (score {metrics.winning_score:+.4f})",
            "  allocations:",
        ]
        for name, share in sorted(metrics.allocations.items(), key=lambda item: -item[1]):
            change = metrics.allocation_changes[name]
            lines.append(f"    {name:<{width}}  {share:6.1%}  ({change:+.1%})")
        lines.append(
            f"  validation: log-likelihood {validation.log_likelihood:.4f} nats; owner accuracy "
            f"{validation.accuracy:.3f} (n={validation.n}, chance "
            f"{validation.chance:.3f}, majority {validation.majority_rate:.3f}), "
            f"p = {validation.p_value:.2g} {validation.stars}; owners by "
            f"{validation.owner_source}"
        )
        if validation.action_accuracy is not None:
            lines.append(
                f"  held-out actions: accuracy {validation.action_accuracy:.3f}, macro-F1 "
                f"{validation.action_macro_f1:.3f}, log-loss {validation.action_log_loss:.3f}"
            )
        self._print("\n".join(lines))

    def finish(self, history: TrainHistory, result: DebateResult) -> None:
        """Print the outcome (and any failed claim batches)."""
        state = "converged" if history.converged else "stopped at max_epochs"
        self._print(
            f"{state} after {history.epochs_run} epochs; best validation at epoch "
            f"{history.best_epoch}; winner: {result.winner.label} "
            f"({result.allocations[result.winner.label]:.1%})"
        )
        for error in result.claim_errors:
            self._print(f"  claim command failed on {error} (built-in claims used)")


class JSONLogger:
    """Writes the whole log as one JSON document, atomically, after every epoch.

    Args:
        path: the file to write (its folder is created).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.document: dict[str, Any] = {}

    def _write(self) -> None:
        atomic_write_json(self.path, self.document, kind=JSON_LOG_KIND, version=1)

    def start(self, config: TrainConfig, tendencies: Sequence[str]) -> None:
        """Write the header."""
        self.document = {
            "config": config.to_dict(),
            "tendencies": list(tendencies),
            "epochs": [],
            "summary": None,
        }
        self._write()

    def log_epoch(self, metrics: EpochMetrics, validation: ValidationResult) -> None:
        """Append the epoch and rewrite the file."""
        self.document["epochs"].append({**metrics.to_dict(), "validation": validation.to_dict()})
        self._write()

    def finish(self, history: TrainHistory, result: DebateResult) -> None:
        """Add the summary and rewrite the file."""
        self.document["summary"] = {
            "epochs_run": history.epochs_run,
            "converged": history.converged,
            "best_epoch": history.best_epoch,
            "winner": result.winner.label,
            "allocations": result.allocations,
        }
        self._write()


class TensorBoardLogger:
    """Scalars per tendency and epoch, through ``torch.utils.tensorboard.SummaryWriter``.

    Args:
        logdir: folder of the event files.
    """

    def __init__(self, logdir: str | Path) -> None:
        self.logdir = Path(logdir)
        self.writer = summary_writer(self.logdir)

    def start(self, config: TrainConfig, tendencies: Sequence[str]) -> None:
        """Record the settings as text."""
        self.writer.add_text("config", ", ".join(f"{k}={v}" for k, v in config.to_dict().items()))

    def log_epoch(self, metrics: EpochMetrics, validation: ValidationResult) -> None:
        """Write the epoch's scalars."""
        for tag, value in _scalars(metrics, validation).items():
            self.writer.add_scalar(tag, value, metrics.epoch)
        self.writer.flush()

    def finish(self, history: TrainHistory, result: DebateResult) -> None:
        """Close the writer."""
        self.writer.close()


class WandbLogger:
    """Logs to Weights & Biases, offline by default (needs ``pip install 'assembly-gym[wandb]'``).

    Args:
        project: the W&B project.
        run_name: the run's name.
        mode: ``"offline"`` (default: files under ``directory``, sync later with ``wandb sync``),
            ``"online"`` or ``"disabled"``.
        directory: where offline runs are written (default: W&B's default).

    Raises:
        MissingDependencyError: wandb is not installed.
    """

    def __init__(
        self,
        project: str,
        run_name: str | None = None,
        *,
        mode: str = "offline",
        directory: str | Path | None = None,
    ) -> None:
        try:
            import wandb
        except ImportError as error:
            raise MissingDependencyError("wandb", "wandb", "the W&B logger") from error
        self._wandb = wandb
        self.project, self.run_name, self.mode = project, run_name, mode
        self.directory = None if directory is None else str(directory)
        self.run: Any = None  # the wandb run (wandb ships no types), from start()

    def start(self, config: TrainConfig, tendencies: Sequence[str]) -> None:
        """Open the run with the settings as its config."""
        self.run = self._wandb.init(
            project=self.project,
            name=self.run_name,
            mode=self.mode,
            dir=self.directory,
            config={**config.to_dict(), "tendencies": list(tendencies)},
            reinit=True,
        )

    def log_epoch(self, metrics: EpochMetrics, validation: ValidationResult) -> None:
        """Log the epoch's scalars."""
        self.run.log(_scalars(metrics, validation), step=metrics.epoch)

    def finish(self, history: TrainHistory, result: DebateResult) -> None:
        """Record the summary and close the run."""
        summary = {"epochs_run": history.epochs_run, "converged": history.converged}
        self.run.summary.update({**summary, "winner": result.winner.label})
        self.run.finish()


def _scalars(metrics: EpochMetrics, validation: ValidationResult) -> dict[str, float]:
    """An epoch's scalars by tag: per tendency, the epoch's, and every numeric validation field."""
    row = {"learning_rate": metrics.learning_rate, "allocation_change": metrics.total_change}
    for tag, values in (
        ("allocation", metrics.allocations),
        ("score", metrics.scores),
        ("stake", metrics.total_stakes),
    ):
        row.update({f"{tag}/{name}": value for name, value in values.items()})
    numeric = {k: v for k, v in validation.to_dict().items() if isinstance(v, (int, float))}
    return row | {f"validation/{key}": value for key, value in numeric.items()}
