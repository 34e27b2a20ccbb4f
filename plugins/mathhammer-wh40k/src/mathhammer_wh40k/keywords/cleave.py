"""Cleave X (11th edition): +X attack dice for every 5 models in the target, when
the weapon has a single target (always so in a mathhammer scenario)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl, with_value

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> str | None:
    if rules.target_models() < 5:
        return "the target has fewer than 5 models"
    for term in rules.pool.attacks:
        term.bonus += rules.params["x"] * (rules.target_models() // 5)
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    spec = KeywordSpec(
        "wh40k", "Cleave", apply, parse=with_value("Cleave", "int"), description="+X attacks per 5 target models"
    )
    register(spec)
