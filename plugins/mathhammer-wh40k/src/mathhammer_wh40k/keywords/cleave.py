"""Cleave X (11th edition): +X attack dice for every 5 models in the target, when
the weapon has a single target (always so in a mathhammer scenario)."""

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
        raise ValueError(f"Cleave takes a whole number, not {rules.params['x']!r}")
    for term in rules.pool.attacks:
        term.bonus += x.constant * (rules.target_models() // 5)


@mathhammer.hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    spec = KeywordSpec(
        "wh40k", "Cleave", apply, parse=with_value("Cleave"), description="+X attacks per 5 target models"
    )
    register(spec)
