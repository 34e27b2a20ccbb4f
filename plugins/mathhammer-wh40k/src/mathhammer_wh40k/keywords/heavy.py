"""Heavy: +1 to hit when the unit held still (``[context] stationary``).

10th edition: the unit Remained Stationary. 11th edition: in the unit's own
Shooting phase, unengaged, not set up this turn, and no model moved more than
3". Both come down to the one context flag; the version recorded says which
reading the scenario follows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, Rule, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules

RULE = Rule(
    "Heavy",
    versions={
        "11e": "11th edition: +1 to hit if the unit is not engaged, was not set up this turn and no model moved "
        'more than 3"',
        "10e": "10th edition: +1 to hit if the unit Remained Stationary",
    },
    default="11e",
    editions={"10e": "10e", "11e": "11e"},
)


def apply(rules: WeaponRules) -> str | None:
    if rules.weapon.type != "ranged":
        return "it helps ranged weapons only"
    if not rules.context.stationary:
        return "the unit did not hold still (context.stationary)"
    if rules.version == "11e" and rules.context.engaged:
        return "the unit is engaged (context.engaged), and 11th edition's Heavy needs it unengaged"
    rules.hit.modifiers.append(1)
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Heavy", apply, rule=RULE, description="+1 to hit when stationary"))
