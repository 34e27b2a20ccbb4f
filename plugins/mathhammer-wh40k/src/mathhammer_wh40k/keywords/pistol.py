"""Pistol (10th edition) and Close-quarters (11th edition): may shoot at a unit
within Engagement Range of the firing unit (``[context] engaged``). Other
ranged weapons cannot, unless the firing models are MONSTERS or VEHICLES, who
then take -1 to hit (the ruleset applies both)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> str | None:
    rules.flags.add("pistol")
    if not rules.context.engaged:
        return "it lets the weapon shoot while engaged, and the unit is not engaged (context.engaged)"
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Pistol", apply, description="can shoot while engaged (10th edition name)"))
    register(KeywordSpec("wh40k", "Close-quarters", apply, description="can shoot while engaged (11th edition name)"))
