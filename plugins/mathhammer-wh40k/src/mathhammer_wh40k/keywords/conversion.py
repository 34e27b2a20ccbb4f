"""Conversion: against a target farther away than the distance the datasheet names
(more than 24" for the Imperial Knights' conversion beam cannons, more than 12" for
the Chaos Knights' Moirax), an unmodified successful hit roll of 4+ is a critical hit.

Conversion is a datasheet ability, not a core keyword, and its distance differs from
datasheet to datasheet, so the scenario says whether the target is beyond it:
``[context] beyond_conversion_range`` (default false). "Successful" means a 4 or a 5
that misses (BS 5+ after cover) stays a miss, as with other abilities worded so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules

CRITICAL = 4


def apply(rules: WeaponRules) -> str | None:
    if not rules.context.beyond_conversion_range:
        return "the target is not beyond the weapon's Conversion range (context.beyond_conversion_range)"
    if rules.hit.automatic:
        return "the weapon hits automatically, so it makes no hit roll to be critical"
    if rules.hit.critical is not None and rules.hit.critical <= CRITICAL:
        return f"its critical hits already come on {rules.hit.critical}+"
    rules.hit.critical = CRITICAL
    rules.hit.critical_requires_success = True
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Conversion", apply, description="critical hits on 4+ beyond its range"))
