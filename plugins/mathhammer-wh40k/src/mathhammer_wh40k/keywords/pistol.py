"""Pistol (10th edition) and Close-quarters (11th edition): may shoot at a unit
within Engagement Range of the firing unit (``[context] engaged``). Other
ranged weapons cannot, unless the firing models are MONSTERS or VEHICLES, who
then take -1 to hit (the ruleset applies both)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import mathhammer
from mathhammer.keywords import KeywordSpec

if TYPE_CHECKING:
    from mathhammer.registry import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    rules.flags.add("pistol")


@mathhammer.hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Pistol", apply, description="can shoot while engaged (10th edition name)"))
    register(KeywordSpec("wh40k", "Close-quarters", apply, description="can shoot while engaged (11th edition name)"))
