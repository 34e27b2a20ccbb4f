"""Sustained Hits X: each critical hit scores X additional hits.

The extra hits are ordinary hits: they make their own wound rolls and are
never critical, so they do not trigger Lethal Hits or further Sustained Hits.
X may be a dice expression (``Sustained Hits D3``), rolled for each critical
hit. Weapons that hit automatically (Torrent) score no critical hits, so this
never triggers for them. Unchanged between 10th and 11th edition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mathhammer.plugin import Effect, KeywordSpec, hookimpl, with_value

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar


def apply(rules: Any) -> None:
    """Add X hits, entering the wound roll as plain hits, on each critical hit."""
    rules.hit.effects.append(Effect(on="critical", action="extra", amount=rules.params["x"]))


SPEC = KeywordSpec(
    ruleset="wh40k",
    name="Sustained Hits",
    apply=apply,
    parse=with_value("Sustained Hits"),
    description="each critical hit scores X additional hits (X may be a dice expression, rolled per critical hit)",
)


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(SPEC)
