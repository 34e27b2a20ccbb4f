"""Melta X: +X Damage against a target within half range (``[context] half_range``).

In 11th edition the bonus becomes part of D (D6 becomes D6+2), which is how
it is applied here in both editions."""

from __future__ import annotations

from typing import TYPE_CHECKING

import mathhammer
from mathhammer import parse_dice
from mathhammer.keywords import KeywordSpec, with_value

if TYPE_CHECKING:
    from mathhammer.registry import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    if not rules.context.half_range:
        return
    x = parse_dice(rules.params["x"])
    d = parse_dice(rules.pool.damage)
    if x.is_random:
        raise ValueError(f"Melta takes a whole number, not {rules.params['x']!r}")
    rules.pool.damage = str(
        parse_dice(f"{d.count}D{d.sides}{d.constant + x.constant:+d}" if d.count else str(d.constant + x.constant))
    )


@mathhammer.hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Melta", apply, parse=with_value("Melta"), description="+X Damage at half range"))
