"""Optional dependencies: import them on first use, or say which extra to install.

Plots need matplotlib (``mathhammer[plot]``) and data frames need pandas
(``mathhammer[pandas]``).
The core API and the command line's tables never import either, so a plain
``pip install mathhammer`` stays small.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mathhammer.exceptions import MissingDependencyError


def require(module: str, extra: str, *, feature: str) -> ModuleType:
    """Import ``module``, or raise an error naming the extra that provides it.

    Args:
        module: The module to import, such as ``"matplotlib"``.
        extra: The mathhammer extra that installs it, such as ``"plot"``.
        feature: What the user asked for, such as ``"plotting"``, for the message.

    Raises:
        MissingDependencyError: when ``module`` cannot be imported.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise MissingDependencyError(
            f"{feature} needs {top}, which is not installed; install it with: pip install 'mathhammer[{extra}]'"
        ) from None
