"""Warhammer 40,000 for mathhammer.

Build a scenario from these classes, or load one from a TOML file with
``mathhammer.load_scenario``; then ``mathhammer.simulate`` it.
"""

from mathhammer_wh40k.model import Attacker, Context, ModelProfile, MortalWoundsAbility, Scenario, Target, Weapon

__all__ = ["Attacker", "Context", "ModelProfile", "MortalWoundsAbility", "Scenario", "Target", "Weapon"]
