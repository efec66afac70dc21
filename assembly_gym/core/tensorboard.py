"""The one way to open a TensorBoard writer: lazily imported, with a clear error if absent."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, overload

from assembly_gym.core.errors import MissingDependencyError

if TYPE_CHECKING:
    from torch.utils.tensorboard import SummaryWriter

__all__ = ["summary_writer"]


@overload
def summary_writer(log_dir: str | Path) -> SummaryWriter: ...
@overload
def summary_writer(log_dir: None) -> None: ...
@overload
def summary_writer(log_dir: str | Path | None) -> SummaryWriter | None: ...
def summary_writer(log_dir: str | Path | None) -> SummaryWriter | None:
    """A TensorBoard ``SummaryWriter`` writing event files into ``log_dir``.

    Args:
        log_dir: the folder of the event files, or None for no logging.

    Returns:
        The writer (the caller closes it), or None when ``log_dir`` is None.

    Raises:
        MissingDependencyError: tensorboard is not installed.
    """
    if log_dir is None:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as error:  # tensorboard is a dependency, but may be left out
        raise MissingDependencyError("tensorboard", purpose="TensorBoard logging") from error
    return SummaryWriter(log_dir=str(log_dir))
