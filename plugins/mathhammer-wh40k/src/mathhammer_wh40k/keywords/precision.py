"""Precision: the attacker sends the attacks to a visible CHARACTER.

11th edition: at the start of the Allocation Order step the attacker may make
the group of a CHARACTER that an attacking model can see the current group; it
stays current until the attacks end or it is destroyed, and the pool's
Devastating Wounds mortal wounds go to it first. 10th edition: an attack that
wounds may be allocated to a visible CHARACTER; resolved pool by pool that
comes to the same, so both versions share the mechanism and the Result says
which reading ran. The attacker always uses it, on the first CHARACTER listed
in the target, when ``[context] character_visible`` (default true). Only
Devastating Wounds' mortal wounds follow it; other mortal wounds go where
mortal wounds always go (11th edition 06.02).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, Rule, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules

RULE = Rule(
    "Precision",
    versions={
        "11e": "11th edition (24.28): a visible CHARACTER's group becomes the current group until it is destroyed",
        "10e": "10th edition: wounding attacks may be allocated to a visible CHARACTER",
    },
    default="11e",
    editions={"10e": "10e", "11e": "11e"},
)


def apply(rules: WeaponRules) -> str | None:
    characters = [i for i, g in enumerate(rules.target_groups) if g.tier > 0]
    if not characters:
        return "the target has no CHARACTER"
    if not rules.context.character_visible:
        return "no CHARACTER in the target is visible (context.character_visible)"
    rules.pool.focus = characters
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Precision", apply, rule=RULE, description="attacks go to a visible CHARACTER"))
