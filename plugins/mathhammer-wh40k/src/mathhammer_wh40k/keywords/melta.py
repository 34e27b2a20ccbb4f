"""Melta X: +X Damage against a target within half range (``[context] half_range``).

In 11th edition the bonus becomes part of D (D6 becomes D6+2), which is how
it is applied here in both editions: it is added to the pool's damage bonus,
after any doubling of D (multiply, then add)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl, with_value

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> str | None:
    if not rules.context.half_range:
        return "the target is not within half range (context.half_range)"
    rules.pool.damage_bonus += rules.params["x"]
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec("wh40k", "Melta", apply, parse=with_value("Melta", "int"), description="+X Damage at half range")
    )
