"""Lethal Hits: a critical hit wounds automatically.

The automatic wound is not a critical wound, so it cannot trigger Devastating
Wounds; only the critical hit itself wounds automatically, not the extra hits
of Sustained Hits. In 11th edition taking the automatic wound is optional.
Versions: ``always`` (default, the project's decided default: the attacker
takes it), ``roll`` (the attacker declines it and rolls to wound, which can
pay with Devastating Wounds or Anti-X critical wounds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import Effect, KeywordSpec, Rule, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


RULE = Rule(
    "Lethal Hits",
    versions={
        "always": "10th edition, and 11th edition's option always taken: every critical hit wounds automatically",
        "roll": "11th edition's option declined: critical hits roll to wound like other hits",
    },
    default="always",
    editions={"10e": "always", "11e": "always"},
)


def apply(rules: WeaponRules) -> None:
    if rules.version != "roll":
        rules.hit.effects.append(Effect(on="critical", action="skip", steps=1))


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Lethal Hits", apply, rule=RULE, description="a critical hit wounds automatically"))
