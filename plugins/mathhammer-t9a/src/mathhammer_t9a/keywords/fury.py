"""Fury: a to-hit roll of 6 scores one extra hit on the same target.

Text B (army-builder data, "Fury"). Text A has Battle Focus instead, whose
2022 wording is not verified: refused under revision A. The extra hit rolls
to wound as any hit; with Poison Attacks only the original hit wounds
automatically.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import Effect, KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_t9a.keyword_api import AttackRules


def apply(rules: AttackRules) -> None:
    rules.text_b_only("Fury", "text A has Battle Focus instead, and its 2022 wording is not verified")
    if rules.hit.critical is not None and rules.hit.critical != 6:
        raise ValueError(
            f"Fury keys on a to-hit roll of 6 while another attribute keys on {rules.hit.critical}+ "
            "(two instances of Poison Attacks); one to-hit roll cannot hold both thresholds"
        )
    rules.hit.critical = 6
    rules.hit.critical_requires_success = True
    # Extra hits first, so a Poison skip on the same critical leaves them to roll to wound.
    rules.hit.effects.insert(0, Effect(on="critical", action="extra", amount="1"))


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("t9a", "Fury", apply, description="a to-hit roll of 6 scores one extra hit"))
