"""Rapid Fire X: +X Attacks against a target within half range (``[context] half_range``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl, with_value

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    if rules.context.half_range:
        for term in rules.pool.attacks:
            term.bonus += rules.params["x"]


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    spec = KeywordSpec(
        "wh40k", "Rapid Fire", apply, parse=with_value("Rapid Fire", "int"), description="+X Attacks at half range"
    )
    register(spec)
