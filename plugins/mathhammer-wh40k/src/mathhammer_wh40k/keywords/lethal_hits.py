"""Lethal Hits: a critical hit wounds automatically.

The automatic wound is not a critical wound, so it cannot trigger Devastating
Wounds; only the critical hit itself wounds automatically, not the extra hits
of Sustained Hits. In 11th edition taking the automatic wound is optional; the
attacker always takes it here (a decided default: a wound roll can only do
worse than an automatic wound for the attack itself).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mathhammer
from mathhammer.keywords import KeywordSpec
from mathhammer.plan import Effect

if TYPE_CHECKING:
    from mathhammer.registry import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    rules.hit.effects.append(Effect(on="critical", action="skip", steps=1))


@mathhammer.hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Lethal Hits", apply, description="a critical hit wounds automatically"))
