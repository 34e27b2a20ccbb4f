"""Psychic: in 11th edition the attack may ignore any modifiers to BS/WS and to
the hit roll; the attacker ignores the harmful ones and keeps the helpful ones
(a decided default), cover's worsened BS included. In 10th edition it only marks
the attack as a Psychic Attack, which matters only to Feel No Pain against
Psychic Attacks (a target model's ``feel_no_pain_psychic``); against a target
without one it has no effect and the Result says so. In both editions the
ruleset lets ``feel_no_pain_psychic`` ignore the weapon's damage and mortal
wounds, and applies the 11th-edition effect after every other hit modifier;
this rule picks the version."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, Rule, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules

RULE = Rule(
    "Psychic",
    versions={
        "11e": "11th edition: harmful modifiers to BS and to the hit roll are ignored; beneficial ones are kept",
        "10e": "10th edition: no effect on the dice; it only marks the attack as a Psychic Attack, whose "
        "damage a Feel No Pain against Psychic Attacks may ignore",
    },
    default="11e",
    editions={"10e": "10e", "11e": "11e"},
)


def apply(rules: WeaponRules) -> str | None:
    rules.flags.add("psychic")
    against_psychic = any(m.feel_no_pain_psychic is not None for m in rules.scenario.target.models)
    if rules.version == "10e" and not against_psychic:
        return (
            "10th edition's Psychic only marks a Psychic Attack, and the target has no Feel No Pain against "
            "Psychic Attacks"
        )
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec("wh40k", "Psychic", apply, rule=RULE, description="11th: ignores harmful hit and BS modifiers")
    )
