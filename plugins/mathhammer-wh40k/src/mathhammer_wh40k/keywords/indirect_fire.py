"""Indirect Fire: shooting a target no attacking model can see
(``[context] target_visible = false``). Against a visible target the weapon
shoots normally.

- ``11e`` (default): the target has the Benefit of Cover, hit rolls cannot be
  re-rolled, and an unmodified 1-5 fails; only 1-3 fails if the unit held still
  and a friendly unit can see the target (``stationary`` and ``spotted``).
- ``10e-2023``: -1 to hit and the target has the Benefit of Cover.
- ``10e-2024``: the same, and an unmodified 1-3 always fails; Torrent weapons
  cannot fire indirectly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, Rule, ScenarioError, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_wh40k.keyword_api import WeaponRules

RULE = Rule(
    "Indirect Fire",
    versions={
        "11e": "11th edition (10.07): the target has cover, hit rolls are not re-rolled, and unmodified hit rolls "
        "of 1-5 fail (1-3 if stationary and spotted)",
        "10e-2023": "10th edition, June 2023: -1 to hit, and the target has cover",
        "10e-2024": "10th edition errata (by August 2024): -1 to hit, the target has cover, and unmodified hit rolls "
        "of 1-3 fail; Torrent weapons cannot fire indirectly",
    },
    default="11e",
    editions={"10e": "10e-2024", "11e": "11e"},
)


def apply(rules: WeaponRules) -> str | None:
    if rules.context.target_visible:
        return "the target is visible (context.target_visible), so the weapon shoots normally"
    rules.flags.add("grants_cover")
    if rules.version == "11e":
        rules.flags.add("no_hit_rerolls")
        held = rules.context.stationary and rules.context.spotted
        rules.hit.natural_fail = max(rules.hit.natural_fail, 3 if held else 5)
        return None
    rules.hit.modifiers.append(-1)
    if rules.version == "10e-2024":
        rules.hit.natural_fail = max(rules.hit.natural_fail, 3)

        def no_torrent() -> None:
            # A finalizer, so Torrent is seen wherever the weapon lists it.
            if rules.hit.automatic:
                raise ScenarioError(
                    "Torrent weapons cannot shoot indirectly (Indirect Fire, 10th edition 2024); "
                    "make the target visible or pick another version",
                    source=rules.scenario.source,
                    field="context.target_visible",
                )

        rules.finalizers.append(no_torrent)
    return None


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(KeywordSpec("wh40k", "Indirect Fire", apply, rule=RULE, description="shoot what no model can see"))
