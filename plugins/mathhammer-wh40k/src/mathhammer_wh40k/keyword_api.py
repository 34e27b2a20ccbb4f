"""What a 40k keyword plugin's ``apply`` receives.

A keyword is registered with :class:`mathhammer.KeywordSpec` for ruleset
``"wh40k"``. While a scenario compiles, every pool of identical attacks whose
weapons list the keyword calls ``spec.apply(rules)`` once with a
:class:`WeaponRules`; ``apply`` edits ``rules.pool``, ``rules.hit`` and
``rules.wound`` (Plan primitives from :mod:`mathhammer.plan`) and records the
rule version it followed in ``rules.rule_versions``. Keywords apply in the
order the weapon lists them; a keyword listed twice with the same parameters
(in any spelling) applies once, since abilities do not stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mathhammer.plan import AttackPool, Test
from mathhammer_wh40k.model import Scenario, Weapon


@dataclass
class WeaponRules:
    """One pool of identical attacks while it compiles.

    Attributes:
        weapons: The weapons pooled here (they share every rule, keywords included).
        scenario: The whole scenario (target keywords, models, modifiers).
        pool: The Plan's attack pool being built.
        hit: The pool's hit test (``automatic`` for weapons that hit automatically).
        wound: The pool's wound test.
        params: What the keyword's ``parse`` returned for this weapon's spelling.
        rule_versions: Rule name to version; record the version you followed.
    """

    weapons: list[Weapon]
    scenario: Scenario
    pool: AttackPool
    hit: Test
    wound: Test
    params: Mapping[str, Any]
    rule_versions: dict[str, str]

    @property
    def weapon(self) -> Weapon:
        """The first weapon of the pool (all share the same rules)."""
        return self.weapons[0]
