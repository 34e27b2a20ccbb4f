"""Lance: +1 to wound if the bearer's unit charged this turn (``[context] charged``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def apply(rules: WeaponRules) -> str | None:
    if not rules.context.charged:
        return "the unit did not charge this turn (context.charged)"
    rules.wound.modifiers.append(1)
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Lance", apply, description="+1 to wound after charging"))
