"""The exception tree: every error mathhammer defines is a MathhammerError."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import mathhammer
from mathhammer import _core, exceptions


def _public_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class a mathhammer module defines or re-exports, by dotted name."""
    found: dict[str, type[BaseException]] = {}
    modules = [mathhammer, _core] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(mathhammer.__path__, "mathhammer.")
        if not info.name.rsplit(".", 1)[-1].startswith("_")
    ]
    for module in modules:
        for name in dir(module):
            value = getattr(module, name)
            if (
                not name.startswith("_")
                and isinstance(value, type)
                and issubclass(value, BaseException)
                and not issubclass(value, Warning)  # warnings are not errors
                and value.__module__.startswith("mathhammer")
            ):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_every_exported_exception_is_a_mathhammer_error() -> None:
    found = _public_exceptions()
    assert "mathhammer.exceptions.DiceError" in found
    assert "mathhammer._core.PlanError" in found
    strays = sorted(name for name, cls in found.items() if not issubclass(cls, exceptions.MathhammerError))
    assert strays == []


def test_every_exception_is_listed_in_mathhammer_exceptions() -> None:
    listed = {getattr(exceptions, name) for name in exceptions.__all__}  # warnings included
    assert set(_public_exceptions().values()) <= listed


@pytest.mark.parametrize("cls", [exceptions.DiceError, exceptions.PlanError, exceptions.ScenarioError])
def test_input_errors_are_value_errors_too(cls: type[Exception]) -> None:
    assert issubclass(cls, ValueError)
    assert issubclass(cls, exceptions.MathhammerError)


def test_errors_from_the_core_are_caught_as_mathhammer_errors() -> None:
    with pytest.raises(exceptions.MathhammerError, match="D0"):
        mathhammer.parse_dice("D0")
    with pytest.raises(exceptions.MathhammerError, match="plan field"):
        _core.CompiledPlan("{}")
