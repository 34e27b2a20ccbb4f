"""Rapid Fire X: +X Attacks against a target within half range (``[context] half_range``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import mathhammer
from mathhammer import parse_dice
from mathhammer.keywords import KeywordSpec, with_value

if TYPE_CHECKING:
    from mathhammer.registry import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> None:
    x = parse_dice(rules.params["x"])
    if x.is_random:
        raise ValueError(f"Rapid Fire takes a whole number, not {rules.params['x']!r}")
    if rules.context.half_range:
        for term in rules.pool.attacks:
            term.bonus += x.constant


@mathhammer.hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    spec = KeywordSpec(
        "wh40k", "Rapid Fire", apply, parse=with_value("Rapid Fire"), description="+X Attacks at half range"
    )
    register(spec)
