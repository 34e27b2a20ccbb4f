"""Damaged X (11th edition, 24.39): -1 to hit while the attacking model has X wounds
or fewer left. 10th-edition datasheets print the same as ``Damaged: 1-X wounds
remaining``; both spellings are accepted.

The model's wounds left come from ``[context] wounds_remaining`` (unset: undamaged).
The -1 is a hit modifier, inside the +/-1 cap; a weapon that hits automatically
makes no hit roll, so it changes nothing there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules


def parse(text: str) -> Mapping[str, Any] | None:
    """``Damaged X``, ``Damaged 1-X`` or ``Damaged 1-X wounds remaining``."""
    words = " ".join(text.split()).casefold()
    if words != "damaged" and not words.startswith("damaged "):
        return None
    m = re.fullmatch(r"damaged (?:1\s*-\s*)?(\d{1,3})(?: wounds? remaining)?", words)
    if m is None or int(m.group(1)) < 1:
        raise ValueError("write Damaged X, with X the wounds left at which it starts, as in Damaged 4 or Damaged 1-4")
    return {"x": int(m.group(1))}


def apply(rules: WeaponRules) -> str | None:
    left = rules.context.wounds_remaining
    x = rules.params["x"]
    if left is None or left > x:
        return f"the attacking model has more than {x} wounds left (context.wounds_remaining)"
    if rules.hit.automatic:
        return "the weapon hits automatically, so there is no hit roll to worsen"
    rules.hit.modifiers.append(-1)
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Damaged", apply, parse=parse, description="-1 to hit at X wounds or fewer"))
