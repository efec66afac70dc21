"""Optional dependencies: imported where they are used, with the ``pip install`` that adds them."""

from __future__ import annotations

import importlib
from types import ModuleType

from assembly_gym.core.errors import MissingDependencyError

__all__ = ["require"]


def require(package: str, *, extra: str, purpose: str) -> ModuleType:
    """Import an optional top-level package, or say which extra installs it.

    Call it first in the function that needs the package; its own imports follow.

    Args:
        package: the import name, e.g. ``"imitation"``.
        extra: the assembly-gym extra that installs it, e.g. ``"imitation"``.
        purpose: what it is needed for, as the error message should say.

    Raises:
        MissingDependencyError: the package does not import; the message names
            ``pip install 'assembly-gym[extra]'``.
    """
    try:
        return importlib.import_module(package)
    except ImportError as error:
        raise MissingDependencyError(package, extra, purpose) from error
