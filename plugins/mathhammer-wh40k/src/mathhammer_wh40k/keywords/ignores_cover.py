"""Ignores Cover: the target never has the Benefit of Cover against this attack
(11th edition: cancelling cover from any rule, Stealth's included)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import mathhammer
from mathhammer.keywords import KeywordSpec

if TYPE_CHECKING:
    from mathhammer.registry import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    rules.flags.add("ignores_cover")


@mathhammer.hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Ignores Cover", apply, description="the target gets no Benefit of Cover"))
