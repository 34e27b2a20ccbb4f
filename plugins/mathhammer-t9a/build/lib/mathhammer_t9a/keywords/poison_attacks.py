"""Poison Attacks: a to-hit roll of 6 wounds automatically.

Text B (army-builder data, "Poison Attacks"): the hit needs no to-wound roll;
with two instances a successful to-hit roll of 5 or 6 does. If the hit is
multiplied (Fury), only one of the hits wounds automatically. Text A's
wording is not verified: refused under revision A.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import Effect, KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_t9a.keyword_api import AttackRules


def apply(rules: AttackRules) -> None:
    rules.text_b_only("Poison Attacks", "its wording is not verified")
    if rules.instances > 2:
        raise ValueError("Poison Attacks is listed more than twice; the rules say what one and two instances do")
    threshold = 5 if rules.instances == 2 else 6
    if rules.hit.critical is not None and rules.hit.critical != threshold:
        raise ValueError(
            f"Poison Attacks keys on a to-hit roll of {threshold}+ while another attribute keys on "
            f"{rules.hit.critical}+; one to-hit roll cannot hold both thresholds"
        )
    rules.hit.critical = threshold
    rules.hit.critical_requires_success = True
    rules.hit.effects.append(Effect(on="critical", action="skip", steps=1))


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec(
            "t9a",
            "Poison Attacks",
            apply,
            description="a to-hit roll of 6 (5+ with two instances) wounds automatically",
            repeatable=True,
        )
    )
