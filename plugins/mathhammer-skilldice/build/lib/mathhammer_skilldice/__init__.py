"""The d12 Focus/Panic skill-dice system for mathhammer.

Build a scenario from these classes, or load one from a TOML file with
``mathhammer.load_scenario``; then ``mathhammer.simulate`` it.
"""

from mathhammer_skilldice.keyword_api import AttackRules
from mathhammer_skilldice.model import Scenario, Unit, Weapon

__all__ = ["AttackRules", "Scenario", "Unit", "Weapon"]
