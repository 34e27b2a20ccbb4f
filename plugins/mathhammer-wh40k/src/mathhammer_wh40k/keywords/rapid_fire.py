"""Rapid Fire X: +X Attacks against a target within half range (``[context] half_range``).

X is a number or a dice expression (``Rapid Fire D3``), added to each model's
Attacks: ``A 2, Rapid Fire D3`` makes D3+2 attacks per model. A weapon whose A
is already random (``D6``) rolls X as further dice of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mathhammer.plugin import Attacks, KeywordSpec, hookimpl, parse_dice, with_value

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules

_parse = with_value("Rapid Fire")


def parse(text: str) -> Mapping[str, Any] | None:
    params = _parse(text)
    if params is not None and parse_dice(params["x"]).min < 1:
        raise ValueError(f"Rapid Fire takes a number or dice expression of at least 1, not {params['x']!r}")
    return params


def apply(rules: WeaponRules) -> str | None:
    if not rules.context.half_range:
        return "the target is not within half range (context.half_range)"
    x = parse_dice(rules.params["x"])
    if not x.count:
        for term in rules.pool.attacks:
            term.bonus += x.constant
        return None

    def add_dice() -> None:
        # A finalizer, so attack bonuses per term (Blast, Cleave) are not
        # given twice to a model whose Rapid Fire dice become a term of their own.
        for term in list(rules.pool.attacks):
            a = parse_dice(term.dice)
            if not a.count:
                term.dice = str(parse_dice(f"{x.count}D{x.sides}{x.constant + a.constant:+d}"))
                continue
            if term.minimum is not None:
                raise ValueError(
                    f"Rapid Fire {x} on a weapon with random Attacks cannot share the Blast minimum per model; "
                    "pick another Blast version"
                )
            rules.pool.attacks.append(Attacks(models=term.models, dice=str(x), maximize=term.maximize))

    rules.finalizers.append(add_dice)
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Rapid Fire", apply, parse=parse, description="+X Attacks at half range"))
