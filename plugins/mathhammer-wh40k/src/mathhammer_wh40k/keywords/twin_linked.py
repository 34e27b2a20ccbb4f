"""Twin-linked: re-roll the wound roll.

Version ``failures`` (default) re-rolls failed wound rolls only, what a player
does unless another rule rewards criticals; ``fish`` re-rolls every wound roll
that is not a critical wound, for weapons that gain from critical wounds
(Devastating Wounds, Anti-X). Unchanged from 10th to 11th edition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, Reroll, Rule, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules

RULE = Rule(
    "Twin-linked",
    versions={
        "failures": "10th and 11th edition, the usual choice: failed wound rolls are re-rolled",
        "fish": "10th and 11th edition, fishing for critical wounds: every wound roll that is not a critical wound "
        "is re-rolled",
    },
    default="failures",
)


def apply(rules: WeaponRules) -> None:
    wanted: Reroll = "non_critical" if rules.version == "fish" else "failures"
    if rules.wound.reroll != "non_critical":
        rules.wound.reroll = wanted


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Twin-linked", apply, rule=RULE, description="re-roll the wound roll"))
