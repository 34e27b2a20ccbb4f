"""The plugin module: registers the ``wh40k`` ruleset with mathhammer."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mathhammer.plugin import Compiled, KeywordTable, RulesetRegistrar, ScenarioError, hookimpl
from mathhammer_wh40k.compile import compile_scenario
from mathhammer_wh40k.load import load
from mathhammer_wh40k.model import Scenario

try:
    __version__ = version("mathhammer-wh40k")
except PackageNotFoundError:
    __version__ = "0.0.0"


class Wh40k:
    """Warhammer 40,000: the specification's attack sequence, else 11th edition."""

    name = "wh40k"
    title = "Warhammer 40,000"
    version = __version__
    # The game's own weapon abilities, wherever they are implemented (Blast, Devastating Wounds and
    # Sustained Hits come in distributions of their own); any other keyword is a third party's addition.
    own_keywords = frozenset(
        {
            "Anti",
            "Assault",
            "Blast",
            "Cleave",
            "Close-quarters",
            "Conversion",
            "Damaged",
            "Devastating Wounds",
            "Extra Attacks",
            "Hazardous",
            "Heavy",
            "Ignores Cover",
            "Indirect Fire",
            "Lance",
            "Lethal Hits",
            "Melta",
            "One Shot",
            "Pistol",
            "Precision",
            "Psychic",
            "Rapid Fire",
            "Sustained Hits",
            "Torrent",
            "Twin-linked",
        }
    )

    def load(self, data: Mapping[str, Any], source: str | None) -> Scenario:
        return load(data, source)

    def compile(self, scenario: Any, keywords: KeywordTable) -> Compiled:
        if not isinstance(scenario, Scenario):
            raise ScenarioError(f"the wh40k ruleset compiles mathhammer_wh40k.Scenario, not {type(scenario).__name__}")
        return compile_scenario(scenario, keywords)


@hookimpl
def mathhammer_register_rulesets(register: RulesetRegistrar) -> None:
    register(Wh40k())
