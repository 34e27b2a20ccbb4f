"""Lethal Strike: a to-wound roll of 6 makes the attack's AP 10 and denies Regeneration.

Text B (army-builder data, "Lethal Strike"): with Armour capped at 6, AP 10
leaves no armour save; Regeneration cannot be used against it; Aegis can.
Text A: only the clause denying Fortitude to such attacks is verified
(list of personal protections), not what it does to armour: refused under
revision A rather than half applied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl
from mathhammer_t9a.keyword_api import CriticalWound

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_t9a.keyword_api import AttackRules

LETHAL_AP = 10


def apply(rules: AttackRules) -> None:
    rules.text_b_only("Lethal Strike", "only its clause denying Fortitude is verified, not its effect on armour")
    if rules.wound.automatic:
        return  # no to-wound roll, no 6 to roll
    # A natural 6 always wounds (To-Wound Rolls), so it is a success even when
    # to-wound modifiers push the roll needed past 6.
    rules.wound.critical = 6
    rules.wound.critical_requires_success = False
    rules.critical_wound = CriticalWound(ap=LETHAL_AP, denied={"Regeneration"})


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec("t9a", "Lethal Strike", apply, description="a to-wound roll of 6: AP 10, no Regeneration (text B)")
    )
