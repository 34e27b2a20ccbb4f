"""Hazardous X: when Panic is higher than Focus, the attacking unit suffers
X Direct Damage after the attack, whether or not it hit (Attacks & Damage).

Direct Damage removes HP directly: no thresholds, no damage reduction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mathhammer.plugin import Effect, KeywordSpec, hookimpl, parse_dice, with_value

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_skilldice.keyword_api import AttackRules


def parse(text: str) -> Mapping[str, Any] | None:
    """``Hazardous X``: X a number or dice expression of at least 1."""
    params = with_value("Hazardous", "dice")(text)
    if params is not None and parse_dice(params["x"]).min < 1:
        raise ValueError(f"Hazardous {params['x']} can deal {parse_dice(params['x']).min}; X is at least 1")
    return params


def apply(rules: AttackRules) -> None:
    rules.on_panic(Effect(on="success", action="mortal", amount=str(rules.params["x"]), against="attacker", spill=True))


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec(
            "skilldice",
            "Hazardous",
            apply,
            parse=parse,
            description="Panic > Focus: X Direct Damage to the attacking unit, hit or miss",
        )
    )
