"""Battle Shock effects a scenario may choose (``battle_shock = "..."``).

The rules say a unit that loses 3 HP to one attack (Damage of at least
double its Major Threshold) makes a Battle Shock test, and not what the test
is or does; by default mathhammer counts the tests and gives them no effect.
These two are effects a group can agree on; a third party adds others as
keywords named ``"Battle Shock <Effect>"`` whose ``apply`` receives a
:class:`mathhammer_skilldice.keyword_api.BattleShockRules`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mathhammer.plugin import KeywordSpec, hookimpl, parse_dice

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_skilldice.keyword_api import BattleShockRules


def parse_lose(text: str) -> Mapping[str, Any] | None:
    """``Battle Shock Lose X HP`` or ``... unless N+`` (a d12 test the unit passes on N or more)."""
    m = re.fullmatch(r"battle shock lose\s+(?P<x>\S+)\s+hp(?:\s+unless\s+(?P<n>\S+?)\+?)?", text.strip(), re.I)
    if m is None:
        return None
    try:
        x = parse_dice(m.group("x"))
    except ValueError as exc:
        raise ValueError(f"Lose X HP takes a number or dice expression: {exc}") from None
    if x.max < 1:  # listed, yet it would never do anything
        raise ValueError(f"Lose {m.group('x')} HP does nothing: X must be at least 1, as in Lose 1 HP or Lose D3 HP")
    n = m.group("n")
    if n is not None and not (n.isdigit() and 1 <= int(n) <= 12):
        raise ValueError(f"the test is a d12 roll: write unless 2+ to unless 12+, not {n!r}")
    return {"x": str(x), "n": None if n is None else int(n)}


def lose(rules: BattleShockRules) -> None:
    rules.lose = str(rules.params["x"])
    rules.test = rules.params["n"]


def shaken(rules: BattleShockRules) -> None:
    rules.shaken = True


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(
        KeywordSpec(
            "skilldice",
            "Battle Shock Lose",
            lose,
            parse=parse_lose,
            description="the unit loses X HP more (unless it rolls N+ on a d12)",
        )
    )
    register(
        KeywordSpec(
            "skilldice",
            "Battle Shock Shaken",
            shaken,
            description="the unit makes its Attack Rolls with Disadvantage for the rest of the round",
        )
    )
