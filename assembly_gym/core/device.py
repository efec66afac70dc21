"""Where torch work runs: ``device="auto"`` is the GPU when there is one, else the CPU.

SB3's convention, for every torch part (world models, LeWorld, the neural reward, the
batched Simulator-v0) and the CLI's ``--device``. Nothing here moves data: each part moves
its tensors once per batch or epoch, never per step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

__all__ = ["DEVICES", "resolve_device"]

DEVICES = ("auto", "cpu", "cuda")
"""The names ``--device`` accepts (``cuda:N`` too: a GPU by index)."""


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """The torch device a name means.

    Args:
        device: ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"``,
            ``"cuda:N"``, or a ``torch.device``.

    Raises:
        ValueError: an unknown name, or a CUDA device where CUDA is not available.
    """
    import torch

    if isinstance(device, torch.device):
        chosen = device
    elif device == "auto":
        chosen = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        try:
            chosen = torch.device(device)
        except RuntimeError as error:
            raise ValueError(f"unknown device {device!r}: use auto, cpu, cuda or cuda:N") from error
    if chosen.type not in ("cpu", "cuda"):
        raise ValueError(f"unsupported device {str(chosen)!r}: use auto, cpu, cuda or cuda:N")
    if chosen.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {str(chosen)!r} asked for, but CUDA is not available here")
    return chosen
