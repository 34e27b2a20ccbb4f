"""Torrent: the weapon hits automatically; no hit roll, so no critical hits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    rules.hit.automatic = True
    rules.hit.effects = [e for e in rules.hit.effects if e.on == "success"]


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Torrent", apply, description="hits automatically: no hit roll"))
