"""Flaming Attacks: special saves that burn away.

Text A (list of personal protections): Fortitude cannot be used against
them, and they re-roll failed to-wound rolls against Flammable models.
Text B (army-builder data): Regeneration cannot be used against them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_t9a.keyword_api import AttackRules


def apply(rules: AttackRules) -> None:
    if rules.revision == "A":
        rules.denied_saves.add("Fortitude")
        if rules.scenario.target.flammable and not rules.wound.automatic:
            rules.wound.reroll = "failures"
    else:
        rules.denied_saves.add("Regeneration")


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec(
            "t9a",
            "Flaming Attacks",
            apply,
            description="no Fortitude (A) / Regeneration (B); A: re-roll failed wounds against Flammable",
        )
    )
