"""What a Ninth Age attack attribute's ``apply`` receives.

An attribute is registered with :class:`mathhammer.KeywordSpec` for ruleset
``"t9a"``. While a scenario compiles, every attack listing it calls
``spec.apply(rules)`` once with an :class:`AttackRules`; ``apply`` edits the
Plan primitives (``rules.pool``, ``rules.hit``, ``rules.wound``) and states
what the ruleset's own steps must respect (special saves an attack denies,
how a natural 6 to wound is saved, to-hit flags). The ruleset then works out
the to-hit roll and the saves, so attributes need not know the tables.
An attribute that differs between the two texts reads ``rules.revision``
(``"A"`` or ``"B"``) and raises :class:`ValueError` with the reason for a
text whose wording is not verified; the ruleset reports it against the
scenario field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mathhammer.plugin import AttackPool, Test
from mathhammer_t9a.model import Attack, Scenario


@dataclass
class CriticalWound:
    """How an attack that rolled a natural 6 to wound is saved instead.

    Attributes:
        ap: Armour Penetration it has instead of the attack's.
        denied: Special saves it denies, beyond those the attack denies.
    """

    ap: int
    denied: set[str] = field(default_factory=set)


@dataclass
class AttackRules:
    """One attack while it compiles.

    Attributes:
        attack: The attack as the scenario gives it.
        scenario: The whole scenario (target, context, revision).
        revision: ``"A"`` or ``"B"``: which text of the rules to follow.
        pool: The Plan's attack pool being built.
        hit: The to-hit test; its ``target`` is set by the ruleset after every
            attribute applied. Set ``critical`` (with ``critical_requires_success``)
            and effects for rules keyed on the to-hit roll.
        wound: The to-wound test, its target already looked up.
        params: What the attribute's ``parse`` returned for its spelling.
        instances: How many times the attack lists the attribute (attributes
            registered ``repeatable`` may be listed twice, as Poison Attacks).
        flags: To-hit facts the ruleset reads: ``"accurate"``,
            ``"quick_to_fire"``, ``"unwieldy"``; ``unwieldy`` holds Unwieldy's X.
        denied_saves: Special saves (``"Aegis"``, ``"Fortitude"``,
            ``"Regeneration"``) that cannot be used against this attack.
        rerolled_saves: Special saves whose successes the defender must re-roll.
        critical_wound: Set when a natural 6 to wound changes how the attack is saved.
    """

    attack: Attack
    scenario: Scenario
    revision: str
    pool: AttackPool
    hit: Test
    wound: Test
    params: Mapping[str, Any] = field(default_factory=dict)
    instances: int = 1
    flags: set[str] = field(default_factory=set)
    unwieldy: int = 0
    denied_saves: set[str] = field(default_factory=set)
    rerolled_saves: set[str] = field(default_factory=set)
    critical_wound: CriticalWound | None = None

    def text_b_only(self, rule: str, why: str) -> None:
        """Refuse a rule whose text-A wording is not verified."""
        if self.revision != "B":
            raise ValueError(
                f'{rule} under text A: {why}, so mathhammer does not guess; use revision B ([rules] revision = "B")'
            )
