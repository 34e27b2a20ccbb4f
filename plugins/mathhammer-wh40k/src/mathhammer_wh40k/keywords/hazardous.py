"""Hazardous: after the unit has attacked, the weapon may hurt its bearers.

- ``11e`` (default): one hazard roll per weapon (each model firing it); a 1-2
  fails and inflicts 1 mortal wound on the attacking unit, or 3 if every model
  in it is a MONSTER or VEHICLE (``attacker.keywords``), allocated in the
  normal mortal-wound order (11th edition, 06.03).
- ``10e-2024``: one test per weapon; a 1 fails and inflicts 3 mortal wounds,
  all on one model carrying the weapon, excess lost (10th edition errata, 2024).
- ``10e-2023``: one test per weapon; a 1 fails and destroys a model carrying
  it, or inflicts 3 mortal wounds if it is a CHARACTER, MONSTER or VEHICLE
  (10th edition, June 2023). The bearer is the first attacker model listed;
  it is destroyed outright (no Feel No Pain), which needs the attacker's
  models listed.

With the attacker's models listed (``[[attacker.models]]``) the Result reports
the wounds and models the attacker lost; without them, the mortal wounds it
suffers (stage ``attacker_mortal_wounds``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, MortalWounds, Rolls, Rule, ScenarioError, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules

RULE = Rule(
    "Hazardous",
    versions={
        "11e": "11th edition: one hazard roll per weapon; a 1-2 inflicts 1 mortal wound (3 if every model is a "
        "MONSTER or VEHICLE)",
        "10e-2024": "10th edition, 2024: one test per weapon; a 1 inflicts 3 mortal wounds on one bearer, excess lost",
        "10e-2023": "10th edition, June 2023: one test per weapon; a 1 destroys the bearer, or inflicts 3 mortal "
        "wounds on a CHARACTER, MONSTER or VEHICLE",
    },
    default="11e",
    editions={"10e": "10e-2024", "11e": "11e"},
)
COUNTER = "attacker_mortal_wounds"


def apply(rules: WeaponRules) -> None:
    keywords = {k.casefold() for k in rules.scenario.attacker.keywords}
    big = bool(keywords & {"monster", "vehicle"})
    models = rules.scenario.attacker.models
    counter: str | None = COUNTER
    slain = False
    if rules.version == "11e":
        fail, amount, spill = 2, 3 if big else 1, True
    elif rules.version == "10e-2024":
        fail, amount, spill = 1, 3, False
    else:
        # The bearer is the first attacker model listed.
        sturdy = big or "character" in keywords or bool(models and models[0].character)
        if not sturdy and not models:
            raise ScenarioError(
                "Hazardous 10e-2023 destroys the bearer: list the attacker's models ([[attacker.models]]) "
                "so the loss can be counted, or pick another version",
                source=rules.scenario.source,
                field="attacker.models",
            )
        slain = not sturdy
        fail, amount, spill = 1, 3 if sturdy else models[0].wounds, False
        if slain:
            counter = None  # a model destroyed outright suffers no mortal wounds
    if counter is not None and counter not in rules.counters:
        rules.counters.append(counter)
    for weapon in rules.weapons:
        rules.after_attacks.append(
            MortalWounds(
                name=f"Hazardous ({weapon.name})",
                amount=str(amount),
                counter=counter,
                rolls=Rolls(count=weapon.count, fail_at_most=fail),
                against="attacker",
                spill=spill,
                # Destroyed outright: as many wounds as it has, no Feel No Pain.
                feel_no_pain=not slain,
            )
        )


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Hazardous", apply, rule=RULE, description="may hurt the attacker afterwards"))
