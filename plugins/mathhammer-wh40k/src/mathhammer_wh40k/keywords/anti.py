"""Anti-KEYWORD X+: against a target with KEYWORD, an unmodified wound roll of
X+ is a critical wound (and so wounds, whatever the Strength and Toughness)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def parse(text: str) -> Mapping[str, Any] | None:
    words = " ".join(text.split())
    if not words.casefold().startswith("anti-"):
        return None
    m = re.fullmatch(r"anti-(.+?)\s+(\d)\+", words, re.IGNORECASE)
    if m is None or not 2 <= int(m.group(2)) <= 6:
        raise ValueError("write Anti-KEYWORD X+ with X from 2 to 6, as in Anti-Infantry 4+")
    return {"keyword": m.group(1), "x": int(m.group(2))}


def apply(rules: WeaponRules) -> str | None:
    keyword = rules.params["keyword"]
    if not rules.target_has(keyword):
        return f"the target is not {keyword.upper()}"
    rules.wound.critical = min(rules.wound.critical or 7, rules.params["x"])
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec(
            "wh40k", "Anti", apply, parse=parse, repeatable=True, description="critical wounds on X+ against KEYWORD"
        )
    )
