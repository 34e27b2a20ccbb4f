"""Hatred: failed to-hit rolls must be re-rolled.

Text B (army-builder data, "Hatred"). Text A's wording is not verified:
refused under revision A.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_t9a.keyword_api import AttackRules


def apply(rules: AttackRules) -> None:
    rules.text_b_only("Hatred", "its wording is not verified")
    rules.hit.reroll = "failures"


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("t9a", "Hatred", apply, description="failed to-hit rolls are re-rolled"))
