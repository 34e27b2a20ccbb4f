"""Blast, as the specification has it and as 10th and 11th edition do.

``[rules] Blast`` picks the version, ``[rules] edition`` an edition's:

- ``spec`` (default): the specification's rule
  (``wh40k-mortal-wounds-hit-modifiers-blast.txt``): against a unit of 6-10
  models each model's attacks are at least 3; against 11 or more the attack
  dice are not rolled and count as their maximum.
- ``10e``: add 1 to the Attacks for every 5 models in the target (rounded
  down) (10th-edition notes, BSData/wh40k-10e).
- ``11e``: add X attack dice (1 for plain ``Blast``, X for ``Blast X``) for
  every 5 models in the target; no random Attacks needed (11th-edition notes).

``Blast X`` with a number is printed by 11th edition only, so a weapon
spelled so follows ``11e`` unless the scenario chooses a version (``[rules]
Blast``, the weapon's own ``rules``, or an ``edition``); choosing one without
an X is refused, naming that field. The Result names the version that ran and
why. Plain ``Blast`` follows the default, ``spec``.

Every version refuses a target within Engagement Range of the firing unit
(``[context] engaged``): the specification and 10th edition forbid it
outright, 11th edition through its targeting rules. The model count is the
target's when it was selected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mathhammer.plugin import KeywordSpec, Rule, ScenarioError, hookimpl, with_value

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar

RULE = Rule(
    name="Blast",
    versions={
        "spec": "specification (9th-edition text): at least 3 attacks against 6-10 models; maximum against 11+",
        "10e": "10th edition: +1 attack for every 5 models in the target",
        "11e": "11th edition: +X attack dice (Blast X; plain Blast is 1) for every 5 models in the target",
    },
    default="spec",
    editions={"10e": "10e", "11e": "11e"},
)


def apply(rules: Any) -> None:
    """Change the pool's attack terms for the size of the target."""
    if rules.context.engaged:
        raise ScenarioError(
            "Blast weapons can never be used against a unit within Engagement Range of the firing unit",
            source=rules.scenario.source,
            field="context.engaged",
        )
    models = rules.target_models()
    for term in rules.pool.attacks:
        if rules.version == "spec":
            if 6 <= models <= 10:
                term.minimum = max(term.minimum or 0, 3)
            elif models >= 11:
                term.maximize = True
        elif rules.version == "10e":
            term.bonus += models // 5
        else:
            term.bonus += (rules.params["x"] or 1) * (models // 5)


def parse(text: str) -> Mapping[str, Any] | None:
    """``Blast`` or ``Blast X`` (X a whole number from 1 to 100)."""
    return with_value("Blast", "int", optional=True)(text)


def printed_in(params: Mapping[str, Any]) -> str | None:
    """``Blast X`` is printed by 11th edition only; plain ``Blast`` by every version."""
    return "11e" if params["x"] is not None else None


SPEC = KeywordSpec(
    ruleset="wh40k",
    name="Blast",
    apply=apply,
    parse=parse,
    rule=RULE,
    printed_in=printed_in,
    description="more attacks against big units (versions: spec, 10e, 11e)",
)


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(SPEC)
