"""Range checks on a 40k scenario, shared by files and Python objects.

Types are the loader's business; this module knows what values the rules allow.
"""

from __future__ import annotations

from mathhammer.exceptions import ScenarioError
from mathhammer_wh40k.model import ModelProfile, Modifiers, Scenario

MAX_COUNT = 10_000
MAX_CHARACTERISTIC = 30


def _fail(source: str | None, field: str, message: str) -> None:
    raise ScenarioError(message, source=source, field=field)


def _range(source: str | None, field: str, value: int, low: int, high: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail(source, field, f"is {value!r}; {what} must be a whole number from {low} to {high}")


def _roll(source: str | None, field: str, value: int | None, *, optional: bool, what: str) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= 6:
        _fail(source, field, f'is {value!r}; {what} must be a roll from 2+ to 6+ (written "3+")')


def _modifiers(source: str | None, base: str, m: Modifiers) -> None:
    for name in ("hit", "wound", "save"):
        _range(source, f"{base}.{name}", getattr(m, name), -6, 6, "a modifier")
    for name in ("reroll_hits", "reroll_wounds"):
        if getattr(m, name) not in ("none", "ones", "failures", "non_critical"):
            _fail(source, f"{base}.{name}", f"is {getattr(m, name)!r}; expected none, ones, failures or non_critical")


def _model(source: str | None, base: str, m: ModelProfile) -> None:
    _range(source, f"{base}.count", m.count, 1, MAX_COUNT, "a model count")
    _range(source, f"{base}.wounds", m.wounds, 1, 1000, "W")
    _roll(source, f"{base}.save", m.save, optional=True, what="Sv")
    _roll(source, f"{base}.invulnerable", m.invulnerable, optional=True, what="InSv")
    _roll(source, f"{base}.feel_no_pain", m.feel_no_pain, optional=True, what="Feel No Pain")
    _roll(source, f"{base}.feel_no_pain_mortal", m.feel_no_pain_mortal, optional=True, what="Feel No Pain")


def check_scenario(s: Scenario, source: str | None = None) -> None:
    """Raise :class:`ScenarioError` for the first value the rules do not allow."""
    if not s.attacker.weapons and not s.attacker.mortal_wounds:
        _fail(source, "attacker.weapons", "is empty; list at least one weapon ([[attacker.weapons]])")
    for i, w in enumerate(s.attacker.weapons):
        base = f"attacker.weapons[{i}]"
        if w.type not in ("ranged", "melee"):
            _fail(source, f"{base}.type", f"is {w.type!r}; expected 'ranged' or 'melee'")
        _range(source, f"{base}.count", w.count, 1, MAX_COUNT, "a model count")
        _roll(source, f"{base}.skill", w.skill, optional=False, what="BS" if w.type == "ranged" else "WS")
        _range(source, f"{base}.strength", w.strength, 1, MAX_CHARACTERISTIC, "S")
        _range(source, f"{base}.ap", w.ap, -6, 0, "AP (written as 0 or negative, as in -1)")
        _modifiers(source, f"{base}.modifiers", w.modifiers)
    for i, m in enumerate(s.attacker.models):
        _model(source, f"attacker.models[{i}]", m)
    _range(source, "target.toughness", s.target.toughness, 1, MAX_CHARACTERISTIC, "T")
    if not s.target.models:
        _fail(source, "target.models", "is empty; list the target's models ([[target.models]])")
    for i, m in enumerate(s.target.models):
        _model(source, f"target.models[{i}]", m)
    _modifiers(source, "modifiers", s.modifiers)
