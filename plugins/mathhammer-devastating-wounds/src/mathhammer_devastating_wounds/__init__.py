"""Devastating Wounds, in every wording it has had.

A critical wound (an unmodified 6, or lower where a rule such as Anti-X says
so) is resolved in one of these ways; ``[rules] "Devastating Wounds"`` picks
the version, ``[rules] edition`` picks an edition's:

- ``11e`` (default): the attack's sequence ends; it inflicts mortal wounds
  equal to the weapon's Damage, after the pool's normal damage, on one model
  only: excess is lost (11th-edition notes, BSData/wh40k-11e).
- ``11e-damage-reduced``: the same, with the model's damage reduction applied
  to that amount (whether it applies is UNVERIFIED in the notes).
- ``10e-2023-06``: mortal wounds equal to the Damage, no save, spilling over
  like any mortal wounds; damage modifiers apply before the conversion
  (June 2023 core rules and launch Rules Commentary). The text does not say
  when they land: the project inflicts them after the pool's normal damage,
  as the specification and 11th edition order mortal wounds (README.md says
  why, and why the order "as each attack resolves" is not offered).
- ``10e-2023-09``: no saving throw of any kind; allocated after all the
  unit's other attacks; damage inflicted normally: excess lost, Feel No Pain
  and damage reduction apply (balance dataslate of 7 September 2023).
- ``10e-2024``: as September 2023, then mortal wounds equal to the Damage
  instead of normal damage, stopping at one model (the reading players and
  toadchild/40kdice give for the December 2024 commentary; UNVERIFIED).
- ``10e-2024-spill``: the same mortal wounds, spilling over as the core
  mortal-wound rule alone would have them.

Lethal Hits wound automatically without a wound roll, so they are never
critical wounds and never trigger this. With Precision the mortal wounds (or,
for ``10e-2023-09``, the unsaved attacks) go to the chosen CHARACTER first
(11th-edition app note 24.28.01), even when held until every other attack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mathhammer.plugin import Effect, KeywordSpec, Rule, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar

RULE = Rule(
    name="Devastating Wounds",
    versions={
        "11e": "11th edition: a critical wound ends the attack and inflicts mortal wounds equal to its Damage on "
        "one model, excess lost, after the pool's normal damage",
        "11e-damage-reduced": "11th edition, an UNVERIFIED reading: a critical wound ends the attack and inflicts "
        "mortal wounds equal to its Damage less the model's damage reduction, on one model, excess lost, after the "
        "pool's normal damage",
        "10e-2023-06": "10th edition, June 2023: a critical wound ends the attack and inflicts mortal wounds equal "
        "to its Damage, no save, spilling over; inflicted after the pool's normal damage (the text is silent on when)",
        "10e-2023-09": "10th edition, September 2023 dataslate: a critical wound allows no save and is resolved "
        "after all the unit's other attacks, its damage inflicted normally (excess lost)",
        "10e-2024": "10th edition, 2024, the no-spill reading: a critical wound allows no save, is resolved after "
        "all the unit's other attacks, and inflicts mortal wounds equal to its Damage on one model, excess lost",
        "10e-2024-spill": "10th edition, 2024, by the core mortal-wound rule: a critical wound allows no save, is "
        "resolved after all the unit's other attacks, and inflicts mortal wounds equal to its Damage, spilling over",
    },
    default="11e",
    editions={"10e": "10e-2024", "11e": "11e"},
)

EFFECTS: dict[str, Effect] = {
    "11e": Effect(on="critical", action="mortal", spill=False, ends_attack=True, focus=True),
    "11e-damage-reduced": Effect(
        on="critical", action="mortal", spill=False, ends_attack=True, reduced=True, focus=True
    ),
    "10e-2023-06": Effect(on="critical", action="mortal", spill=True, ends_attack=True, reduced=True, focus=True),
    "10e-2023-09": Effect(on="critical", action="unsaved", after_all=True),
    "10e-2024": Effect(
        on="critical", action="mortal", spill=False, ends_attack=True, reduced=True, after_all=True, focus=True
    ),
    "10e-2024-spill": Effect(
        on="critical", action="mortal", spill=True, ends_attack=True, reduced=True, after_all=True, focus=True
    ),
}


def apply(rules: Any) -> None:
    """Resolve the pool's critical wounds as the selected version says."""
    rules.wound.effects.append(EFFECTS[rules.version])


SPEC = KeywordSpec(
    ruleset="wh40k",
    name="Devastating Wounds",
    apply=apply,
    rule=RULE,
    description="critical wounds bypass saves (versions: 11e, 10e-2023-06, 10e-2023-09, 10e-2024, ...)",
)


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(SPEC)
