"""Ignores Cover: the target never has the Benefit of Cover against this attack
(11th edition: cancelling cover from any rule, Stealth's included)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    rules.flags.add("ignores_cover")


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Ignores Cover", apply, description="the target gets no Benefit of Cover"))
