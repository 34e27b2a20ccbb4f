"""Inflict effects for rulesets whose attack rolls can Inflict (the d12
skill-dice system: Focus higher than Panic).

A weapon names its effect (``inflict = "Direct Damage 2"``); this package
registers three, through the same keyword hook a third party uses:

- ``Damage +X``: the hit deals X more Damage (before the thresholds).
- ``Direct Damage X``: the target loses X HP directly (no thresholds, not
  reduced).
- ``Status: NAME``: the target suffers a named status; the Result reports
  how often (stage ``status_<name>``).

A third party adds an effect by registering a :class:`mathhammer.KeywordSpec`
named ``"Inflict <Effect>"`` for the ruleset, whose ``apply`` calls the
ruleset's :meth:`InflictRules.on_inflict` with a Plan :class:`Effect`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol

from mathhammer.plugin import Effect, KeywordRegistrar, KeywordSpec, hookimpl, parse_dice

RULESETS = ("skilldice",)
"""Rulesets whose attack rules provide :class:`InflictRules`."""


class InflictRules(Protocol):
    """What a ruleset's keyword ``apply`` receives, as far as Inflict effects need it."""

    params: Mapping[str, Any]

    def on_inflict(self, effect: Effect, *, hits_only: bool = False) -> None:
        """Run ``effect`` when the attack Inflicts (``hits_only``: and hits)."""

    def add_counter(self, name: str, label: str) -> str:
        """Report a new stage; returns its name."""


def _parser(pattern: str, kind: str) -> Any:
    """A parser for ``Inflict <pattern>``; ``kind`` names what X must be."""
    compiled = re.compile(r"inflict\s+" + pattern, re.IGNORECASE)

    def parse(text: str) -> Mapping[str, Any] | None:
        m = compiled.fullmatch(text.strip())
        if m is None:
            return None
        x = m.group("x").strip()
        if kind == "int":
            if not x.isdigit() or not 1 <= int(x) <= 100:
                raise ValueError(f"takes a whole number from 1 to 100, not {x!r}")
            return {"x": int(x)}
        if kind == "dice":
            try:
                return {"x": str(parse_dice(x))}
            except ValueError as exc:
                raise ValueError(f"takes a number or dice expression: {exc}") from None
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9 _-]{0,39}", x):
            raise ValueError(f"a status is named with letters, digits, spaces, - or _, not {x!r}")
        return {"x": x}

    return parse


def extra_damage(rules: InflictRules) -> None:
    rules.on_inflict(Effect(on="success", action="unsaved", bonus=int(rules.params["x"])), hits_only=True)


def direct_damage(rules: InflictRules) -> None:
    rules.on_inflict(Effect(on="success", action="mortal", amount=str(rules.params["x"]), spill=True))


def status(rules: InflictRules) -> None:
    name = str(rules.params["x"])
    slug = re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_")
    counter = rules.add_counter(f"status_{slug}", f"{name} inflicted")
    rules.on_inflict(Effect(on="success", action="count", counter=counter))


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    for ruleset in RULESETS:
        register(
            KeywordSpec(
                ruleset,
                "Inflict Damage",
                extra_damage,
                parse=_parser(r"damage\s*\+\s*(?P<x>.*)", "int"),
                description="Inflict: the hit deals X more Damage",
            )
        )
        register(
            KeywordSpec(
                ruleset,
                "Inflict Direct Damage",
                direct_damage,
                parse=_parser(r"direct\s+damage\s+(?P<x>.*)", "dice"),
                description="Inflict: the target loses X HP directly",
            )
        )
        register(
            KeywordSpec(
                ruleset,
                "Inflict Status",
                status,
                parse=_parser(r"status\s*:\s*(?P<x>.*)", "name"),
                description="Inflict: a named status; the Result reports how often",
            )
        )
