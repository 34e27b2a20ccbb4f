"""The plugin module: registers the ``skilldice`` ruleset with mathhammer."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mathhammer.plugin import Compiled, KeywordTable, ProfileFormat, RulesetRegistrar, ScenarioError, hookimpl
from mathhammer_skilldice.compile import compile_scenario
from mathhammer_skilldice.load import load
from mathhammer_skilldice.model import Scenario

try:
    __version__ = version("mathhammer-skilldice")
except PackageNotFoundError:
    __version__ = "0.0.0"


class SkillDice:
    """The d12 Focus/Panic skill-dice system: one unit's attack on another."""

    name = "skilldice"
    title = "d12 skill dice (Focus/Panic)"
    version = __version__
    # The game's own keywords, Inflict effects (from mathhammer-inflict), powers and Battle Shock
    # effects; any other is a third party's addition.
    own_keywords = frozenset(
        {
            "Battle Shock Lose",
            "Battle Shock Shaken",
            "Hazardous",
            "Inflict Damage",
            "Inflict Direct Damage",
            "Inflict Status",
            "Power Advantage",
            "Power Damage",
            "Power Direct Damage",
            "Power Heal",
            "Power Restore",
        }
    )

    # How `mathhammer compare` reads a library: a unit's `models` is the rules' own count, and a fight
    # (both units taking turns) is no cell of a table of one unit attacking another.
    profile_format = ProfileFormat(
        models=True,
        refused={
            "fight": "makes a fight, both units taking turns, which cannot be a compare cell: compare tabulates"
            " one unit attacking another; run the fight with 'mathhammer simulate FILE', or remove [fight] to"
            " compare the attacker's attacks"
        },
    )

    def load(self, data: Mapping[str, Any], source: str | None) -> Scenario:
        return load(data, source)

    def compile(self, scenario: Any, keywords: KeywordTable) -> Compiled:
        if not isinstance(scenario, Scenario):
            raise ScenarioError(
                f"the skilldice ruleset compiles mathhammer_skilldice.Scenario, not {type(scenario).__name__}"
            )
        return compile_scenario(scenario, keywords)


@hookimpl
def mathhammer_register_rulesets(register: RulesetRegistrar) -> None:
    register(SkillDice())
