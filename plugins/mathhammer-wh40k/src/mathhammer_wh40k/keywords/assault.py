"""Assault: a unit that Advanced can still shoot, but only with its Assault weapons
(``[context] advanced``; 10th edition, unchanged in 11th). The ruleset refuses any
other ranged weapon in a scenario where the unit Advanced. When the unit did not
Advance the keyword changes nothing, and the Result says so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> str | None:
    rules.flags.add("assault")
    if not rules.context.advanced:
        return "it lets the weapon shoot after Advancing, and the unit did not Advance (context.advanced)"
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Assault", apply, description="can shoot after Advancing"))
