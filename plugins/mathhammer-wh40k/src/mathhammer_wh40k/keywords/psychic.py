"""Psychic: in 11th edition the attack may ignore any modifiers to BS/WS and to
the hit roll; the attacker ignores the harmful ones and keeps the helpful ones
(a decided default), cover's worsened BS included. In 10th edition it has no
effect on the dice. The ruleset's ``Psychic`` rule picks the version."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    rules.flags.add("psychic")


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Psychic", apply, description="11th: ignores harmful hit and BS modifiers"))
