"""Psychic Powers shipped with the ruleset: what each does when manifested.

A model attempting a power rolls 1d12 + Skill against the power's Difficulty
instead of making its normal attack (Psychic Powers); the ruleset rolls that
test, these decide what success does. A scenario names one in a power's
``power`` field; a third party adds others as keywords named
``"Power <Effect>"`` whose ``apply`` receives a
:class:`mathhammer_skilldice.keyword_api.PowerRules`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import Effect, KeywordSpec, hookimpl, with_value

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar
    from mathhammer_skilldice.keyword_api import PowerRules


def damage(rules: PowerRules) -> None:
    """Damage X against the enemy unit's thresholds."""
    rules.strike(str(rules.params["x"]))


def direct_damage(rules: PowerRules) -> None:
    """X Direct Damage to the enemy unit: no thresholds, not reduced."""
    rules.strike("1", [Effect(on="success", action="mortal", amount=str(rules.params["x"]), ends_attack=True)])


def heal(rules: PowerRules) -> None:
    """The caster's unit restores X HP; destroyed models do not return."""
    rules.heal(str(rules.params["x"]))


def restore(rules: PowerRules) -> None:
    """The caster's unit restores X HP, and destroyed models return as the HP supports them."""
    rules.heal(str(rules.params["x"]), return_models=True)


def advantage(rules: PowerRules) -> None:
    """The caster's unit makes its Attack Rolls this round with Advantage."""
    rules.grant_advantage()


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    for name, apply, what in [
        ("Power Damage", damage, "Damage X to the enemy unit, against its thresholds"),
        ("Power Direct Damage", direct_damage, "X Direct Damage to the enemy unit"),
        ("Power Heal", heal, "the caster's unit restores X HP"),
        ("Power Restore", restore, "the caster's unit restores X HP, destroyed models returning"),
    ]:
        register(KeywordSpec("skilldice", name, apply, parse=with_value(name, "dice"), description=what))
    register(
        KeywordSpec(
            "skilldice", "Power Advantage", advantage, description="the caster's unit attacks with Advantage this round"
        )
    )
