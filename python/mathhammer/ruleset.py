"""What a ruleset plugin provides: the :class:`Ruleset` protocol."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mathhammer.keywords import KeywordTable, NoEffect
from mathhammer.plan import Plan
from mathhammer.result import Chance


@dataclass
class Compiled:
    """A scenario compiled by its ruleset.

    Attributes:
        plan: The Plan to run.
        rule_versions: Rule name to the version used, recorded in the Result.
        attacker: The attacking side's name, as charts and reports show it ("" when it has none).
        target: The target's name ("" when it has none).
        rule_descriptions: Rule name to what the version used does, in words
            (:func:`mathhammer.plugin.describe`): the reports print it.
        stage_labels: Counter name to a human label for tables.
        chances: Probabilities to report beside the stages (P(attacker wins)).
        distributions: Further stages whose distribution the Result shows (rounds fought).
    """

    plan: Plan
    rule_versions: dict[str, str] = field(default_factory=dict)
    stage_labels: dict[str, str] = field(default_factory=dict)
    chances: list[Chance] = field(default_factory=list)
    distributions: list[str] = field(default_factory=list)
    """Stages beyond damage and models destroyed whose whole distribution the Result shows."""
    hidden: list[str] = field(default_factory=list)
    """Stages whose mean means nothing (codes read through chances), left out of the tables."""
    no_effect: list[NoEffect] = field(default_factory=list)
    """Keywords the scenario lists that change nothing in this calculation, each with its reason."""
    # Newer fields go last, so positional construction written before them keeps working.
    rule_descriptions: dict[str, str] = field(default_factory=dict)
    attacker: str = ""
    target: str = ""
    modifiers: dict[str, list[str]] = field(default_factory=dict)
    """The modifiers in force for each attack pool (by the pool's name), each in words, for narration."""


@runtime_checkable
class Ruleset(Protocol):
    """A game system: reads its scenario format and compiles it to a Plan.

    Attributes:
        name: Short unique name used in scenario files (``ruleset = "wh40k"``).
        version: Version of the plugin's implementation of the rules.
        title: Human name, such as "Warhammer 40,000".

    A ruleset may also have ``own_keywords``, the names of its game's own
    keywords (a set of str); ``mathhammer plugins`` then marks any other keyword
    registered for it as a third party's addition. It is optional, so it is
    read with ``getattr`` and not part of the protocol's checks.
    """

    name: str
    version: str
    title: str

    def load(self, data: Mapping[str, Any], source: str | None) -> Any:
        """Validate scenario data (a parsed TOML table) into the ruleset's objects.

        Raises:
            ScenarioError: naming ``source``, the field and the value.
        """

    def compile(self, scenario: Any, keywords: KeywordTable) -> Compiled:
        """Compile a loaded scenario to a Plan, applying its keywords."""
