"""Accurate, Quick to Fire and Unwieldy: how a shooting weapon takes the to-hit modifiers.

To-hit modifiers (both texts): Accurate ignores the Long Range penalty;
Quick to Fire ignores the penalty for Moving and Shooting. Unwieldy: text A
makes that penalty -2 (-1 with Quick to Fire); text B's Unwieldy (X) is a
further -X when the model moved. The ruleset applies them when it works out
the roll a shot needs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_t9a.keyword_api import AttackRules


def _shooting(rules: AttackRules, name: str) -> None:
    if rules.attack.type != "shooting":
        raise ValueError(f"{name} changes the to-hit modifiers of shooting; this is a melee attack")


def accurate(rules: AttackRules) -> None:
    _shooting(rules, "Accurate")
    rules.flags.add("accurate")


def quick_to_fire(rules: AttackRules) -> None:
    _shooting(rules, "Quick to Fire")
    rules.flags.add("quick_to_fire")


def parse_unwieldy(text: str) -> Mapping[str, Any] | None:
    m = re.fullmatch(r"unwieldy\s*(?:\(\s*(?P<x>[^)]*?)\s*\))?", text.strip(), re.IGNORECASE)
    if m is None:
        return None
    x = m.group("x")
    if x is not None and not (x.isdigit() and 1 <= int(x) <= 6):
        raise ValueError(f"Unwieldy (X) takes a whole number from 1 to 6, not {x!r}")
    return {"x": None if x is None else int(x)}


def unwieldy(rules: AttackRules) -> None:
    _shooting(rules, "Unwieldy")
    x = rules.params["x"]
    if rules.revision == "A" and x is not None:
        raise ValueError("text A's Unwieldy has no value (it makes moving and shooting -2); write Unwieldy")
    if rules.revision == "B" and x is None:
        raise ValueError("text B's Unwieldy has a value: an extra -X to hit after moving, as in Unwieldy (1)")
    rules.flags.add("unwieldy")
    rules.unwieldy = x or 0


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("t9a", "Accurate", accurate, description="ignores the Long Range to-hit penalty"))
    register(KeywordSpec("t9a", "Quick to Fire", quick_to_fire, description="ignores the Moving and Shooting penalty"))
    register(
        KeywordSpec(
            "t9a",
            "Unwieldy",
            unwieldy,
            parse=parse_unwieldy,
            description="A: moving and shooting is -2; B: Unwieldy (X) is a further -X after moving",
        )
    )
