"""The plugin module: registers the ``t9a`` ruleset with mathhammer."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mathhammer.plugin import Compiled, KeywordTable, ProfileFormat, RulesetRegistrar, ScenarioError, hookimpl
from mathhammer_t9a.compile import compile_combat, compile_scenario
from mathhammer_t9a.load import load
from mathhammer_t9a.model import CombatScenario, Scenario

try:
    __version__ = version("mathhammer-t9a")
except PackageNotFoundError:
    __version__ = "0.0.0"


class NinthAge:
    """The Ninth Age (2nd edition, 2022 rules): melee and shooting attacks against one unit, and close combat
    between two units under the project's documented conventions."""

    name = "t9a"
    title = "The Ninth Age"
    version = __version__
    # The game's own attack attributes; any other is a third party's addition.
    own_keywords = frozenset(
        {
            "Accurate",
            "Divine Attacks",
            "Flaming Attacks",
            "Fury",
            "Hatred",
            "Lethal Strike",
            "Multiple Wounds",
            "Poison Attacks",
            "Quick to Fire",
            "Unwieldy",
        }
    )

    # How `mathhammer compare` reads a library: an attacker is its list of attacks, [[attackers.NAME.attack]]
    # as a scenario's [[attack]]; a close combat (both units striking) is no cell of a table of one unit
    # attacking another.
    profile_format = ProfileFormat(
        attacker_key="attack",
        refused={
            "combat": "makes a close combat, both units striking each other, which cannot be a compare cell:"
            " compare tabulates one unit's attacks on another; run the combat with 'mathhammer simulate FILE',"
            " or compare each unit's attacks as [[attackers.NAME.attack]] tables"
        },
    )

    def load(self, data: Mapping[str, Any], source: str | None) -> Scenario | CombatScenario:
        return load(data, source)

    def compile(self, scenario: Any, keywords: KeywordTable) -> Compiled:
        if isinstance(scenario, CombatScenario):
            return compile_combat(scenario, keywords)
        if not isinstance(scenario, Scenario):
            raise ScenarioError(
                "the t9a ruleset compiles mathhammer_t9a.Scenario or mathhammer_t9a.CombatScenario, "
                f"not {type(scenario).__name__}"
            )
        return compile_scenario(scenario, keywords)


@hookimpl
def mathhammer_register_rulesets(register: RulesetRegistrar) -> None:
    register(NinthAge())
