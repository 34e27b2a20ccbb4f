"""The Inflict effects' spellings, what each adds to an attack, and bad spellings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

import mathhammer_inflict
from mathhammer.plugin import Effect, KeywordSpec


@dataclass
class Recorder:
    """Stands in for a ruleset's attack rules: records what an effect asks for."""

    params: Mapping[str, Any] = field(default_factory=dict)
    effects: list[tuple[Effect, bool]] = field(default_factory=list)
    counters: dict[str, str] = field(default_factory=dict)

    def on_inflict(self, effect: Effect, *, hits_only: bool = False) -> None:
        self.effects.append((effect, hits_only))

    def add_counter(self, name: str, label: str) -> str:
        self.counters[name] = label
        return name


def specs() -> dict[str, KeywordSpec]:
    found: dict[str, KeywordSpec] = {}
    mathhammer_inflict.mathhammer_register_keywords(lambda spec: found.setdefault(spec.name, spec))
    return found


def applied(text: str) -> Recorder:
    for spec in specs().values():
        params = spec.match(text)
        if params is not None:
            rules = Recorder(params=params)
            spec.apply(rules)
            return rules
    raise AssertionError(f"no effect spells {text!r}")


def test_three_effects_for_the_skill_dice_ruleset() -> None:
    assert sorted(specs()) == ["Inflict Damage", "Inflict Direct Damage", "Inflict Status"]
    assert {s.ruleset for s in specs().values()} == {"skilldice"}


def test_extra_damage_needs_a_hit() -> None:
    [(effect, hits_only)] = applied("Inflict Damage +2").effects
    assert (effect.action, effect.bonus, hits_only) == ("unsaved", 2, True)


def test_direct_damage_takes_dice() -> None:
    [(effect, hits_only)] = applied("Inflict Direct Damage D3").effects
    assert (effect.action, effect.amount, hits_only) == ("mortal", "D3", False)


def test_a_status_is_counted_under_its_own_name() -> None:
    rules = applied("Inflict Status: Set on Fire")
    [(effect, _)] = rules.effects
    assert (effect.action, effect.counter) == ("count", "status_set_on_fire")
    assert rules.counters == {"status_set_on_fire": "Set on Fire inflicted"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Inflict Damage +0", "from 1 to 100"),
        ("Inflict Damage +x", "from 1 to 100"),
        ("Inflict Direct Damage D0", "dice expression"),
        ("Inflict Status: <b>", "letters, digits"),
    ],
)
def test_bad_spellings_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        for spec in specs().values():
            spec.match(text)
