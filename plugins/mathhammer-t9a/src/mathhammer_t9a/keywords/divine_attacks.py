"""Divine Attacks: Aegis against them is worse, or gone.

Text A (Aegis): successful Aegis saves against them must be re-rolled.
Text B (army-builder data, "Aegis"): Aegis cannot be used against them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_t9a.keyword_api import AttackRules


def apply(rules: AttackRules) -> None:
    if rules.revision == "A":
        rules.rerolled_saves.add("Aegis")
    else:
        rules.denied_saves.add("Aegis")


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec("t9a", "Divine Attacks", apply, description="A: successful Aegis saves re-rolled; B: no Aegis")
    )
