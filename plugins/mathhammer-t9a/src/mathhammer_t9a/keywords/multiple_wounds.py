"""Multiple Wounds (X): each unsaved wound becomes X wounds.

Multiple Wounds (Rules, attack attributes): X may be dice, rolled for each
unsaved wound; the result is capped at the target's Health Points
characteristic (HP already lost does not lower the cap). Text B applies it
to HP losses alike. Written ``Multiple Wounds (X, Clipped Wings)``: against a
model with Fly each unsaved wound becomes X+1; whether the cap applies
before or after the +1 is not verified, so a Clipped Wings attack whose X+1
can exceed the target's HP is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mathhammer.plugin import KeywordSpec, hookimpl, parse_dice

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_t9a.keyword_api import AttackRules

SPELLING = re.compile(r"multiple wounds\s*(?:\((?P<inside>[^)]*)\))?\s*", re.IGNORECASE)


def parse(text: str) -> Mapping[str, Any] | None:
    """``{"x": dice, "clipped_wings": bool}`` for ``Multiple Wounds (X[, Clipped Wings])``."""
    m = SPELLING.fullmatch(text.strip())
    if m is None:
        return None
    inside = m.group("inside")
    if inside is None:
        raise ValueError("Multiple Wounds needs its X, as in Multiple Wounds (D3)")
    parts = [p.strip() for p in inside.split(",")]
    clipped = len(parts) == 2 and parts[1].casefold() == "clipped wings"
    if len(parts) > 2 or (len(parts) == 2 and not clipped):
        raise ValueError(f"write Multiple Wounds (X) or Multiple Wounds (X, Clipped Wings), not {text.strip()!r}")
    try:
        x = parse_dice(parts[0])
    except ValueError as exc:
        raise ValueError(f"Multiple Wounds takes a number or dice expression: {exc}") from None
    if x.min < 1:
        raise ValueError(f"Multiple Wounds ({x}) can roll {x.min}; X must be at least 1")
    return {"x": str(x), "clipped_wings": clipped}


def apply(rules: AttackRules) -> None:
    x = parse_dice(rules.params["x"])
    target = rules.scenario.target
    damage = str(x)
    if rules.params["clipped_wings"] and target.fly:
        if x.max + 1 > target.hp:
            raise ValueError(
                f"Multiple Wounds ({x}, Clipped Wings) against Fly can reach {x.max + 1} wounds, more than the "
                f"target's HP {target.hp}; whether the cap at HP comes before or after the +1 is not verified, "
                "so mathhammer does not guess"
            )
        dice = f"{x.count if x.count > 1 else ''}D{x.sides}" if x.count else ""
        damage = str(parse_dice(f"{dice}{x.constant + 1:+d}" if dice else str(x.constant + 1)))
    rules.pool.damage = damage
    rules.pool.cap_at_wounds = True


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec(
            "t9a",
            "Multiple Wounds",
            apply,
            parse=parse,
            description="each unsaved wound becomes X wounds, capped at the target's HP",
        )
    )
