"""The Ninth Age for mathhammer.

Build a scenario from these classes, or load one from a TOML file with
``mathhammer.load_scenario``; then ``mathhammer.simulate`` or
``mathhammer.evaluate`` it.
"""

from mathhammer_t9a.keyword_api import AttackRules, CriticalWound
from mathhammer_t9a.model import (
    Attack,
    Combat,
    CombatScenario,
    CombatScore,
    CombatUnit,
    Context,
    Scenario,
    Target,
)

__all__ = [
    "Attack",
    "AttackRules",
    "Combat",
    "CombatScenario",
    "CombatScore",
    "CombatUnit",
    "Context",
    "CriticalWound",
    "Scenario",
    "Target",
]
